//! Push: the webhook config rides inline on the first send; callbacks are read while polling and,
//! after the task ended, until the push-arrival bound runs out.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::TaskId;
use a2a_typestate::{Capability, Observed, PendingReason, Verdict};

use super::Run;
use crate::Error;
use crate::webhook::{PushArrival, PushCallback, PushReceiver};

impl Run<'_> {
    /// The send carrying the push config succeeded: the config is registered.
    pub(super) fn push_accepted(&mut self) {
        if let Some(watch) = self.push.as_mut().filter(|w| !w.accepted) {
            watch.accepted = true;
            self.observe(Observed::PushRegistered);
        }
    }

    /// The receiver and task to read callbacks for, while the first is still awaited.
    pub(super) fn awaited_push(&self) -> Option<(Arc<PushReceiver>, TaskId)> {
        let watch = self.push.as_ref().filter(|w| w.accepted && !w.delivered)?;
        Some((watch.receiver.clone(), self.task_id()?))
    }

    /// Waits `delay`, reading a push callback meanwhile when one is still awaited.
    pub(super) async fn wait(&mut self, delay: Duration) {
        let Some((receiver, task)) = self.awaited_push() else {
            tokio::time::sleep(delay).await;
            return;
        };
        match receiver.next_callback(&task, delay).await {
            Ok(PushArrival::Delivered(callback)) => self.on_callback(&callback),
            Ok(PushArrival::Absent { .. }) => {}
            // No callback has bound the inline registration to the task yet.
            Err(_) => tokio::time::sleep(delay).await,
        }
    }

    pub(super) fn on_callback(&mut self, callback: &PushCallback) {
        let state = callback.task_state();
        self.observe(Observed::PushCallback { state });
        if let Some(watch) = &mut self.push {
            watch.delivered = true;
        }
    }

    /// After the task ended: waits for the first callback until the push-arrival bound runs out.
    pub(super) async fn await_push(&mut self) -> Result<(), Error> {
        while let Some((receiver, task)) = self.awaited_push() {
            let deadline = match self.verifier.verdict(Capability::PushNotifications, self.now()) {
                Some(Verdict::Pending(pending)) => match pending.reason() {
                    PendingReason::AwaitingPushCallback { deadline } => *deadline,
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            };
            // A hair past the deadline, so the verdict after an absence is settled.
            let wait = deadline.saturating_sub(self.now()) + Duration::from_millis(5);
            match receiver.next_callback(&task, wait).await {
                Ok(PushArrival::Delivered(callback)) => self.on_callback(&callback),
                Ok(PushArrival::Absent { .. }) => {}
                Err(_) => tokio::time::sleep(wait.min(UNBOUND_REGISTRATION_RECHECK)).await,
            }
        }
        Ok(())
    }
}

/// How often to look again for the first callback of an inline registration not yet bound to its
/// task (the receiver knows the task only from that callback).
const UNBOUND_REGISTRATION_RECHECK: Duration = Duration::from_millis(10);
