//! [`Refusal`]: a refused card, carrying the handle downgraded to single-shot.

use std::fmt;

use super::Handle;
use crate::claims::SingleShot;
use crate::violation::AgentCardLifecycleViolation;

/// A refused card: the handle downgraded to single-shot, the violation that decides, and the other
/// claims refused at the same settle.
///
/// Which violation decides is the verifier's choice, made once ([`Verifier::refusals`](crate::Verifier::refusals): the first
/// by evidence), whichever `settle` call found a claim refused: every handle and driver reports the
/// same one, and nothing above this crate re-orders them.
///
/// The refused typed handle was consumed by the `settle_*` call that refused it; this is the only
/// way on. `T` is the downgraded handle: [`Handle<SingleShot>`] here, and the I/O layer's own
/// single-shot handle once it puts its connection back on it ([`Refusal::map_task`]), so one
/// refusal type serves every layer (compare hyper's `TrySendError<T>`).
pub struct Refusal<T = Handle<SingleShot>> {
    // Boxed so `Result<_, Refusal>` stays small (reqwest and hyper box their errors likewise).
    inner: Box<(T, AgentCardLifecycleViolation, Vec<AgentCardLifecycleViolation>)>,
}

impl Refusal {
    /// `deciding` and `others` as the verifier named them (`Verifier::deciding_refusal`).
    pub(crate) fn new(
        task: Handle<SingleShot>,
        (deciding, others): (AgentCardLifecycleViolation, Vec<AgentCardLifecycleViolation>),
    ) -> Self {
        Self { inner: Box::new((task, deciding, others)) }
    }
}

impl<T> Refusal<T> {
    /// The violation that decides: the capability, the contradiction and the evidence.
    pub fn violation(&self) -> &AgentCardLifecycleViolation {
        &self.inner.1
    }

    /// The other claims the verifier refused at the same settle, the first by evidence first (empty
    /// when only one claim was contradicted). They mark the agent too; they do not decide.
    pub fn others(&self) -> &[AgentCardLifecycleViolation] {
        &self.inner.2
    }

    /// Every refused claim: the deciding violation, then [`others`](Self::others).
    pub fn violations(&self) -> impl Iterator<Item = &AgentCardLifecycleViolation> {
        std::iter::once(&self.inner.1).chain(&self.inner.2)
    }

    /// The downgraded handle: single-shot only.
    pub fn into_task(self) -> T {
        self.inner.0
    }

    /// The handle and the deciding violation (read [`others`](Self::others) first to keep them).
    pub fn into_parts(self) -> (T, AgentCardLifecycleViolation) {
        let (task, violation, _) = *self.inner;
        (task, violation)
    }

    /// The same refusal carrying `f(handle)`: how a layer above wraps the downgraded handle in its
    /// own (a connection beside it), keeping the violation as it is.
    pub fn map_task<U>(self, f: impl FnOnce(T) -> U) -> Refusal<U> {
        let (task, violation, others) = *self.inner;
        Refusal { inner: Box::new((f(task), violation, others)) }
    }
}

impl<T: fmt::Debug> fmt::Debug for Refusal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refusal")
            .field("task", &self.inner.0)
            .field("violation", &self.inner.1)
            .field("others", &self.inner.2)
            .finish()
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
