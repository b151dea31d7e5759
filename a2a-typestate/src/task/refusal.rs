//! [`Refusal`]: a refused card, carrying the handle downgraded to single-shot.

use std::fmt;

use super::Task;
use crate::claims::SingleShot;
use crate::violation::AgentCardLifecycleViolation;

/// A refused card: the handle downgraded to single-shot and the violation.
///
/// The refused typed handle was consumed by the `settle_*` call that refused it; this is the only
/// way on. `T` is the downgraded handle: [`Task<SingleShot>`] here, and the I/O layer's own
/// single-shot handle once it puts its connection back on it ([`Refusal::map_task`]), so one
/// refusal type serves every layer (compare hyper's `TrySendError<T>`).
pub struct Refusal<T = Task<SingleShot>> {
    // Boxed so `Result<_, Refusal>` stays small (reqwest and hyper box their errors likewise).
    inner: Box<(T, AgentCardLifecycleViolation)>,
}

impl Refusal {
    pub(crate) fn new(task: Task<SingleShot>, violation: AgentCardLifecycleViolation) -> Self {
        Self { inner: Box::new((task, violation)) }
    }
}

impl<T> Refusal<T> {
    /// The capability, the contradiction and the evidence.
    pub fn violation(&self) -> &AgentCardLifecycleViolation {
        &self.inner.1
    }

    /// The downgraded handle: single-shot only.
    pub fn into_task(self) -> T {
        self.inner.0
    }

    /// Both parts.
    pub fn into_parts(self) -> (T, AgentCardLifecycleViolation) {
        *self.inner
    }

    /// The same refusal carrying `f(handle)`: how a layer above wraps the downgraded handle in its
    /// own (a connection beside it), keeping the violation as it is.
    pub fn map_task<U>(self, f: impl FnOnce(T) -> U) -> Refusal<U> {
        let (task, violation) = *self.inner;
        Refusal { inner: Box::new((f(task), violation)) }
    }
}

impl<T: fmt::Debug> fmt::Debug for Refusal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refusal").field("task", &self.inner.0).field("violation", &self.inner.1).finish()
    }
}

impl<T> fmt::Display for Refusal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent card refused: it over-declares {}", self.violation().capability())
    }
}

impl<T: fmt::Debug> std::error::Error for Refusal<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.violation())
    }
}
