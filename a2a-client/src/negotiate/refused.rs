//! What becomes of a task whose claim was refused: a task that had ended keeps its result (sending
//! it again would run finished work twice); an unfinished one is canceled and sent again, or left
//! as it is, as [`AfterRefusal`](super::AfterRefusal) says; a refusal before the agent accepted
//! any task sends the message once.

use a2a_typestate_types::error::A2aErrorCode;
use a2a_typestate_types::{
    CancelTaskRequest, GetTaskRequest, SendMessageResponse, StreamResponse, Task, TaskState,
};

use crate::AgentConnection;
use crate::task::OnUpdate;

/// The refused task as the client last read it (the stream's end, a send's answer, `GetTask`;
/// never a push callback, which may come late).
#[derive(Debug)]
pub(super) enum RefusedTask {
    /// The agent answered nothing that names a task: it accepted none, as far as the client knows.
    NotAccepted,
    /// A terminal state, or a direct message (the agent's whole answer): the work is done.
    Ended(SendMessageResponse),
    /// Accepted and not ended when the refusal came (running, or paused for input); after
    /// [`cancel`], as the agent then reported it (canceled, as a rule).
    Unfinished(Task),
}

impl RefusedTask {
    /// Reads what the refused handle had seen.
    pub(super) fn of(seen: Option<SendMessageResponse>) -> Self {
        match seen {
            None => Self::NotAccepted,
            Some(SendMessageResponse::Task(task)) if !task.is_terminal() => Self::Unfinished(task),
            Some(ended) => Self::Ended(ended),
        }
    }
}

/// Asks the agent to cancel `task` before the message is sent again, so the refused run does not
/// go on beside the new one. Best effort: a cancel that fails is logged and the task comes back as
/// it was. When the agent says the task can no longer be canceled, one `GetTask` reads what it
/// ended in. Returns the task as the agent last reported it, [`Ended`](RefusedTask::Ended) when it
/// had ended on its own meanwhile (its result is then kept: nothing is sent).
pub(super) async fn cancel(conn: &AgentConnection, task: Task, on_update: Option<&OnUpdate>) -> RefusedTask {
    let id = task.id.clone();
    let request = CancelTaskRequest { id: id.clone(), ..CancelTaskRequest::default() };
    let answer = match conn.cancel_task(request).await {
        Err(error)
            if error.protocol_error().and_then(|p| p.a2a_code()) == Some(A2aErrorCode::TaskNotCancelable) =>
        {
            conn.get_task(GetTaskRequest::new(id.clone())).await
        }
        answer => answer,
    };
    let reported = match answer {
        Ok(reported) if reported.id == id => reported,
        Ok(other) => {
            tracing::warn!(agent = %conn.agent().as_str(), task = %id, answered = %other.id, "the cancel was answered about another task");
            return RefusedTask::Unfinished(task);
        }
        Err(error) => {
            tracing::warn!(agent = %conn.agent().as_str(), task = %id, %error, "the refused task could not be canceled");
            return RefusedTask::Unfinished(task);
        }
    };
    crate::task_events::refused_task_cancel(reported.state());
    if let Some(on_update) = on_update {
        on_update.event(&StreamResponse::Task(reported.clone()));
    }
    if reported.is_terminal() && reported.state() != TaskState::Canceled {
        RefusedTask::Ended(SendMessageResponse::Task(reported))
    } else {
        RefusedTask::Unfinished(reported)
    }
}

#[cfg(test)]
mod tests {
    use a2a_testkit::ScriptedAgent;

    use super::*;

    #[tokio::test]
    async fn a_refused_task_that_ended_before_its_cancel_is_read_once_and_kept() {
        let agent = ScriptedAgent::builder().spawn().await.unwrap();
        let id = agent.store_completed_tasks(1).remove(0);
        let conn = crate::Client::builder().build().unwrap().connect(&agent.base_url()).await.unwrap();

        let seen_running = Task::new(id.as_str(), TaskState::Working);
        let kept = cancel(&conn, seen_running, None).await;

        let RefusedTask::Ended(SendMessageResponse::Task(task)) = kept else { panic!("{kept:?}") };
        assert_eq!((task.id.as_str(), task.state()), (id.as_str(), TaskState::Completed));
        // The cancel was answered "not cancelable"; one GetTask read what the task ended in.
        assert_eq!(agent.requests_for("CancelTask").len(), 1);
        assert_eq!(agent.requests_for("GetTask").len(), 1);
        agent.shutdown().await;
    }

    #[tokio::test]
    async fn a_refused_task_whose_cancel_fails_comes_back_as_it_was_seen() {
        let agent = ScriptedAgent::builder().spawn().await.unwrap();
        let conn = crate::Client::builder().build().unwrap().connect(&agent.base_url()).await.unwrap();

        let unknown = Task::new("not-a-task-of-this-agent", TaskState::Working);
        let after = cancel(&conn, unknown, None).await;

        let RefusedTask::Unfinished(task) = after else { panic!("{after:?}") };
        assert_eq!((task.id.as_str(), task.state()), ("not-a-task-of-this-agent", TaskState::Working));
        assert!(agent.requests_for("GetTask").is_empty(), "not found is no reason to read it");
        agent.shutdown().await;
    }
}
