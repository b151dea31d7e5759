//! Reconstructing missed states from the task's history: only where the handle holds a
//! state-transition history claim.

use a2a_types::{GetTaskRequest, Task as WireTask};
use a2a_typestate::{HasHistoryClaim, Observed};

use super::{Feedable, TypedTask};
use crate::Error;

impl<C: Feedable> TypedTask<C> {
    /// Fetches the task with at most `history_length` history messages (`GetTask` with
    /// `historyLength`; `None` asks for the agent's default) to reconstruct the states the client
    /// missed, and relies on that history: its state and its entry count are fed to the handle.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] before the agent assigned a task id, or for a length past
    /// `i32::MAX`; otherwise as [`AgentConnection::get_task`](crate::AgentConnection::get_task).
    pub async fn reconstruct_history(&mut self, history_length: Option<u32>) -> Result<WireTask, Error>
    where
        C::History: HasHistoryClaim,
    {
        let permit = self.task.history_permit();
        let Some(id) = permit.task_id().cloned() else {
            return Err(Error::config("no task whose history to fetch yet: send a message first"));
        };
        let mut request = GetTaskRequest::new(id);
        request.history_length = history_length
            .map(i32::try_from)
            .transpose()
            .map_err(|_| Error::config("historyLength does not fit the protocol's int32"))?;
        let task = self.fetch(request).await?;
        self.observe(Observed::history(&task, history_length));
        Ok(task)
    }
}
