//! A send whose answer never came ([`Error::may_have_run`]): the task it may have started, looked
//! for under the context id the message went with, so the work is followed instead of sent again.

use std::time::Duration;

use a2a_typestate_types::{ContextId, ListTasksRequest, Message, Task};

use crate::{AgentConnection, Error};

/// How many tasks one look asks for under a send's context: the send's task and a fallback's, with
/// room.
const CONTEXT_PAGE: i32 = 20;

/// How long an empty listing is asked again after a send's answer was lost: an agent may store
/// its task a little after it read the request.
const LISTING_GRACE: Duration = Duration::from_secs(1);

impl AgentConnection {
    /// The task a send of `message` started, when the agent lists one under the message's context
    /// id: the task whose history holds the message, else the oldest listed. The client gives every
    /// message that starts a task a context id of its own when it has none, so the context is the
    /// send's: call this after a send ended in an error that [may have run](Error::may_have_run),
    /// instead of sending the message again.
    ///
    /// An empty listing is asked again for up to a second (the agent may store its task a little
    /// after it read the request); `Ok(None)` after that.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] when `message` has no context id to look by; the `ListTasks`
    /// call's error (a 0.3 agent has no `ListTasks`; an agent may not implement it).
    pub async fn find_sent_task(&self, message: &Message) -> Result<Option<Task>, Error> {
        let Some(context_id) = message.context_id.as_ref().filter(|c| !c.is_empty()) else {
            return Err(Error::misuse("a message without a context id cannot be looked up by it"));
        };
        let until = tokio::time::Instant::now() + LISTING_GRACE;
        loop {
            if let Some(found) = self.task_in_context(context_id, message.message_id.as_str()).await? {
                return Ok(Some(found));
            }
            if tokio::time::Instant::now() >= until {
                return Ok(None);
            }
            tokio::time::sleep(LISTING_GRACE / 4).await;
        }
    }

    /// One `ListTasks` under `context_id`, a context the client chose for one run: the task whose
    /// history holds message `message_id`, else the oldest listed (pages come newest first).
    pub(crate) async fn task_in_context(
        &self,
        context_id: &ContextId,
        message_id: &str,
    ) -> Result<Option<Task>, Error> {
        let request = ListTasksRequest {
            context_id: Some(context_id.clone()),
            page_size: Some(CONTEXT_PAGE),
            ..ListTasksRequest::default()
        };
        let mut listed = self.list_tasks(request).await?.tasks;
        let ours = listed.iter().position(|t| t.history.iter().any(|m| m.message_id.as_str() == message_id));
        Ok(match ours {
            Some(at) => Some(listed.swap_remove(at)),
            None => listed.pop(),
        })
    }

    /// [`AgentConnection::find_sent_task`] for a send that ended in `error`: the task, or `error`
    /// saying why none was found.
    pub(crate) async fn task_of_unanswered_send(
        &self,
        message: &Message,
        error: Error,
    ) -> Result<Task, Error> {
        match self.find_sent_task(message).await {
            Ok(Some(task)) => {
                tracing::info!(task = %task.id, %error, "a send's answer was lost: its task is followed, not sent again");
                Ok(task)
            }
            Ok(None) => {
                let context = message.context_id.as_ref().map_or("", |c| c.as_str());
                Err(error.not_found_after_send(format!("the agent lists no task under context {context}")))
            }
            Err(lookup) => Err(error.not_found_after_send(format!("ListTasks: {lookup}"))),
        }
    }
}
