//! [`OnUpdate`]: the caller's view of a task as the engine reads it, one update at a time.

use std::fmt;
use std::sync::Arc;

use a2a_typestate_types::{SendMessageResponse, StreamResponse};

/// A function called with each update of a task as the engine reads it, before it is folded into
/// the task: each stream event, each answer to a send (the task or the direct message) and each
/// task a `GetTask` poll returns, in arrival order, on whatever path the task runs (the stream,
/// polling, the single-shot fallback). Only updates checked to be about the task are passed on.
///
/// It runs inside the task's event loop: keep it short (print, count, send on a channel).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// use a2a_typestate_client::negotiate::Negotiation;
/// use a2a_typestate_client::task::OnUpdate;
///
/// let seen = Arc::new(AtomicUsize::new(0));
/// let counter = Arc::clone(&seen);
/// let negotiation = Negotiation::default().on_update(OnUpdate::new(move |_update| {
///     counter.fetch_add(1, Ordering::Relaxed);
/// }));
/// # let _ = negotiation;
/// ```
#[derive(Clone)]
pub struct OnUpdate(Arc<dyn Fn(&StreamResponse) + Send + Sync>);

impl OnUpdate {
    /// Calls `f` with each update.
    pub fn new(f: impl Fn(&StreamResponse) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub(crate) fn event(&self, event: &StreamResponse) {
        (self.0)(event);
    }

    pub(crate) fn send_answer(&self, response: &SendMessageResponse) {
        let update = match response {
            SendMessageResponse::Task(task) => StreamResponse::Task(task.clone()),
            SendMessageResponse::Message(message) => StreamResponse::Message(message.clone()),
        };
        self.event(&update);
    }
}

impl fmt::Debug for OnUpdate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OnUpdate(..)")
    }
}
