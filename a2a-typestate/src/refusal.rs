//! [`Refusal`]: a refused card, carrying the handle downgraded to single-shot.

use std::fmt;

use crate::claims::SingleShot;
use crate::task::Task;
use crate::violation::AgentCardLifecycleViolation;

/// A refused card: the handle downgraded to [`Task<SingleShot>`] and the violation.
///
/// The refused typed handle was consumed by the call that refused it; this is the only way on.
#[derive(Debug)]
pub struct Refusal {
    // Boxed so `Result<_, Refusal>` stays small (reqwest and hyper box their errors likewise).
    inner: Box<(Task<SingleShot>, AgentCardLifecycleViolation)>,
}

impl Refusal {
    pub(crate) fn new(task: Task<SingleShot>, violation: AgentCardLifecycleViolation) -> Self {
        Self { inner: Box::new((task, violation)) }
    }

    /// The capability, the contradiction and the evidence.
    pub fn violation(&self) -> &AgentCardLifecycleViolation {
        &self.inner.1
    }

    /// The downgraded handle: single-shot only.
    pub fn into_task(self) -> Task<SingleShot> {
        self.inner.0
    }

    /// Both parts.
    pub fn into_parts(self) -> (Task<SingleShot>, AgentCardLifecycleViolation) {
        *self.inner
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent card refused: it over-declares {}", self.violation().capability())
    }
}

impl std::error::Error for Refusal {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.violation())
    }
}
