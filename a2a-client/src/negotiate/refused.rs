//! What becomes of a task whose claim was refused ([`Task::fall_back`](crate::Task::fall_back), which
//! `run_task` calls too): a task that had ended keeps its result (sending it again would run
//! finished work twice); an unfinished one is followed to its end (by default), canceled and sent
//! again, or left as it is, as [`AfterRefusal`] says; a refusal before the agent accepted any task sends the message once.

use a2a_typestate::SingleShot;
use a2a_typestate_types::error::A2aErrorCode;
use a2a_typestate_types::{
    CancelTaskRequest, GetTaskRequest, Message, MessageId, SendMessageResponse, StreamResponse, Task,
    TaskState,
};

use super::AfterRefusal;
use crate::task::OnUpdate;
use crate::{AgentConnection, Error};

/// What [`Task::fall_back`](crate::Task::fall_back) did after a refusal, and the answer it gives.
///
/// ```
/// use a2a_typestate_client::negotiate::Fallback;
/// use a2a_typestate_client::{Message, SendMessageResponse};
///
/// let kept = Fallback::Kept(SendMessageResponse::Message(Message::agent("sunny")));
/// assert_eq!(kept.text().as_deref(), Some("sunny"));
/// assert!(!kept.may_have_run_twice());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Fallback {
    /// The refused task had ended (a terminal state, or the agent answered with a message): its
    /// result as the client last read it. Nothing was sent: the work ran once.
    Kept(SendMessageResponse),
    /// The message was sent once more, single-shot, and this is the answer. `refused_task` is the
    /// refused task when the agent had accepted it and it had not ended (it was asked to cancel
    /// first, best effort): the work may then have run twice. `None` when the agent had accepted no
    /// task (its "not supported" to the stream, say): this send is the work's first run.
    Sent {
        /// The single-shot send's answer.
        answer: SendMessageResponse,
        /// The refused task, when it existed and had not ended (boxed: a task is large beside the
        /// other variants).
        refused_task: Option<Box<Task>>,
    },
    /// Under [`AfterRefusal::EndWithRefusal`], the refused task had not ended: it as last seen.
    /// Nothing was sent.
    EndedWithRefusal(Task),
}

impl Fallback {
    /// The answer's text, whichever way it came (see [`SendMessageResponse::text`]).
    pub fn text(&self) -> Option<String> {
        match self {
            Self::Kept(answer) | Self::Sent { answer, .. } => answer.text(),
            Self::EndedWithRefusal(task) => task.text(),
        }
    }

    /// `true` when the message was sent again while the refused task had been accepted and had
    /// not ended: the agent may have run the work twice.
    pub fn may_have_run_twice(&self) -> bool {
        matches!(self, Self::Sent { refused_task: Some(_), .. })
    }

    /// The answer, whichever way it came: the kept result, the single-shot send's answer, or the
    /// unfinished task.
    pub fn into_answer(self) -> SendMessageResponse {
        match self {
            Self::Kept(answer) | Self::Sent { answer, .. } => answer,
            Self::EndedWithRefusal(task) => SendMessageResponse::Task(task),
        }
    }
}

impl crate::Task<SingleShot> {
    /// The fallback after a refusal, which never runs finished work twice: what the refused task
    /// came to, as the client last read it (the stream's end, a send's answer, `GetTask`), decides.
    /// - It had ended: its result is kept and nothing is sent ([`Fallback::Kept`]).
    /// - The agent had accepted no task, or this handle is a suspect agent's: `message` is sent
    ///   once, single-shot ([`Fallback::Sent`], the work's first run).
    /// - It had not ended: as `after` says. [`AfterRefusal::FollowToEnd`] (the default) polls it
    ///   to its end and keeps that ([`Fallback::Kept`]: the work ran once);
    ///   [`AfterRefusal::SendAgain`] asks the agent to cancel
    ///   it (best effort; a task that ended meanwhile is kept instead) and sends `message`
    ///   single-shot, a second run that [`Fallback::may_have_run_twice`] reports;
    ///   [`AfterRefusal::EndWithRefusal`] sends nothing ([`Fallback::EndedWithRefusal`]).
    ///
    /// `message` goes with a fresh id and no task id: the single-shot send starts its own task.
    /// [`Client::run_task`](crate::Client::run_task) acts on its refusals through this same call.
    ///
    /// # Errors
    /// As [`send_message`](crate::Task::send_message) on the single-shot handle.
    pub async fn fall_back(mut self, message: Message, after: AfterRefusal) -> Result<Fallback, Error> {
        let conn = self.connection().clone();
        let agent = conn.agent().as_str().to_owned();
        let metrics = conn.client().metrics();
        let mut refused = RefusedTask::of(self.take_result());
        if let RefusedTask::Unfinished(task) = refused {
            refused = match after {
                AfterRefusal::EndWithRefusal => {
                    tracing::warn!(%agent, task = %task.id, "ended with the refusal, the task unfinished");
                    metrics.record_ended_with_refusal();
                    crate::task_events::ended_with_refusal(task.state());
                    return Ok(Fallback::EndedWithRefusal(task));
                }
                AfterRefusal::FollowToEnd => follow(&conn, task, self.on_update()).await?,
                AfterRefusal::SendAgain => cancel(&conn, task, self.on_update()).await,
            };
        }
        let refused_task = match refused {
            RefusedTask::Ended(result) => {
                tracing::warn!(%agent, "refused after the task ended: its result is kept");
                metrics.record_refused_result_kept();
                crate::task_events::result_kept(result.state());
                return Ok(Fallback::Kept(result));
            }
            RefusedTask::Unfinished(task) => Some(Box::new(task)),
            RefusedTask::NotAccepted => None,
        };
        tracing::warn!(%agent, second_run = refused_task.is_some(), "falling back to a single-shot send");
        if refused_task.is_some() {
            metrics.record_may_have_run_twice();
        }
        let mut message = message;
        message.message_id = MessageId::random();
        message.task_id = None;
        let answer = super::answered(self.send_message(message).await)?;
        Ok(Fallback::Sent { answer, refused_task })
    }
}

/// The refused task as the client last read it (the stream's end, a send's answer, `GetTask`;
/// never a push callback, which may come late).
#[derive(Debug)]
enum RefusedTask {
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
    fn of(seen: Option<SendMessageResponse>) -> Self {
        match seen {
            None => Self::NotAccepted,
            Some(SendMessageResponse::Task(task)) if !task.is_terminal() => Self::Unfinished(task),
            Some(ended) => Self::Ended(ended),
        }
    }
}

/// Follows the refused, unfinished `task` with `GetTask` polling until it ends or pauses for input
/// (the connection's poll: its cadence, each poll retried, the task deadline), each new state to
/// the caller's observer: [`Ended`](RefusedTask::Ended) with what it came to. Nothing is sent again.
async fn follow(
    conn: &AgentConnection,
    task: Task,
    on_update: Option<&OnUpdate>,
) -> Result<RefusedTask, Error> {
    use futures::StreamExt;
    tracing::warn!(agent = %conn.agent().as_str(), task = %task.id, "refused while it runs: followed to its end, not sent again");
    let mut states = conn.follow_task(&task.id);
    let mut last = task;
    while let Some(polled) = states.next().await {
        last = polled?;
        if let Some(on_update) = on_update {
            on_update.event(&StreamResponse::Task(last.clone()));
        }
    }
    Ok(RefusedTask::Ended(SendMessageResponse::Task(last)))
}

/// Asks the agent to cancel `task` before the message is sent again, so the refused run does not
/// go on beside the new one. Best effort: a cancel that fails is logged and the task comes back as
/// it was. When the agent says the task can no longer be canceled, one `GetTask` reads what it
/// ended in. Returns the task as the agent last reported it, [`Ended`](RefusedTask::Ended) when it
/// had ended on its own meanwhile (its result is then kept: nothing is sent).
async fn cancel(conn: &AgentConnection, task: Task, on_update: Option<&OnUpdate>) -> RefusedTask {
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
