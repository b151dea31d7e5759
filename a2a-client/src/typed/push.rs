//! Push-notification registration and callbacks: only where the handle holds a push claim.

use a2a_typestate::{Call, HasPushClaim, Observed};

use super::{Feedable, TypedTask};
use crate::Error;
use crate::webhook::{PushArrival, PushReceiver, PushRegistration};

impl<C: Feedable> TypedTask<C> {
    /// Registers a webhook on `receiver` for the task (`CreateTaskPushNotificationConfig`); the
    /// agent's acceptance is fed to the handle, and the arrival bound starts.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] before the agent assigned a task id; otherwise as
    /// [`AgentConnection::create_task_push_notification_config`](crate::AgentConnection::create_task_push_notification_config)
    /// (an agent answering `-32003` is observed: with an unverified claim that is a refusal).
    pub async fn register_push(&mut self, receiver: &PushReceiver) -> Result<PushRegistration, Error>
    where
        C::Push: HasPushClaim,
    {
        let permit = self.task.push_permit();
        let Some(task) = permit.task_id() else {
            return Err(Error::config("no task to register a webhook for yet: send a message first"));
        };
        let registration = receiver.register(task);
        match self.session.conn.create_task_push_notification_config(registration.to_config()).await {
            Ok(_) => {
                self.observe(Observed::PushRegistered);
                Ok(registration)
            }
            Err(error) => {
                receiver.unregister(&registration);
                Err(self.observe_error(Call::PushNotificationConfig, error))
            }
        }
    }

    /// Waits for the next callback about the task on `receiver`, at most the push-arrival bound
    /// (the client's `push_arrival_bound`), and feeds it (or nothing, on absence: the verdict
    /// reads absence from elapsed time).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] before the agent assigned a task id or when `receiver` holds
    /// no registration for it.
    pub async fn await_push(&mut self, receiver: &PushReceiver) -> Result<PushArrival, Error>
    where
        C::Push: HasPushClaim,
    {
        let permit = self.task.push_permit();
        let Some(task) = permit.task_id().cloned() else {
            return Err(Error::config("no task to await a callback for yet: send a message first"));
        };
        let arrival = receiver.next_callback(&task, permit.arrival_bound()).await?;
        if let PushArrival::Delivered(callback) = &arrival {
            let state = callback.task_state();
            self.observe(Observed::PushCallback { state });
        }
        Ok(arrival)
    }
}
