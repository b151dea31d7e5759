//! [`TypedRefusal`]: a refused claim, carrying the downgraded typed handle.

use std::fmt;

use a2a_typestate::{AgentCardLifecycleViolation, Refusal, SingleShot};

use super::{Session, TypedTask};

/// A refused card: the violation, and the handle downgraded to `TypedTask<SingleShot>` on the same
/// connection. The refused handle was consumed by the `settle_*` call; this is the only way on.
pub struct TypedRefusal {
    // Boxed so `Result<_, TypedRefusal>` stays small, as `Refusal` is.
    inner: Box<(TypedTask<SingleShot>, AgentCardLifecycleViolation)>,
}

impl TypedRefusal {
    pub(super) fn new(session: Session, refusal: Refusal) -> Self {
        let (task, violation) = refusal.into_parts();
        Self { inner: Box::new((TypedTask { session, task }, violation)) }
    }

    /// The capability, the contradiction and the evidence.
    pub fn violation(&self) -> &AgentCardLifecycleViolation {
        &self.inner.1
    }

    /// The downgraded handle: single-shot only.
    pub fn into_task(self) -> TypedTask<SingleShot> {
        self.inner.0
    }

    /// Both parts.
    pub fn into_parts(self) -> (TypedTask<SingleShot>, AgentCardLifecycleViolation) {
        *self.inner
    }
}

impl fmt::Debug for TypedRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedRefusal").field("task", &self.inner.0).field("violation", &self.inner.1).finish()
    }
}

impl fmt::Display for TypedRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent card refused: it over-declares {}", self.violation().capability())
    }
}

impl std::error::Error for TypedRefusal {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.violation())
    }
}
