//! [`Feedable`]: how the facade records an observation into a handle of any claim set.

use a2a_typestate::{
    ClaimSet, Claims, Elapsed, HistorySlot, ObserveError, Observed, PushSlot, SingleShot, Step,
    StreamingSlot, Task,
};

mod sealed {
    pub trait Sealed {}
    impl Sealed for a2a_typestate::SingleShot {}
    impl<S, H, P> Sealed for a2a_typestate::Claims<S, H, P> {}
}

/// A claim set whose handle the typed facade can feed observations into: every claim set
/// (`SingleShot` and every `Claims<S, H, P>`). Sealed.
///
/// It exists so the gated calls of [`TypedTask`](super::TypedTask) can be written once over every
/// claim set, bounded only on the slot they exercise, exactly as the typestate's permits are:
/// `Task::observe` exists only on tracked handles, and a single-shot handle never reaches a gated
/// call anyway (its slots hold no claim).
pub trait Feedable: ClaimSet + Sized + sealed::Sealed {
    /// Records `observed` at `at` into `task`.
    ///
    /// # Errors
    /// As [`Task::observe`]; [`ObserveError::SingleShot`] for a single-shot handle.
    fn feed(task: &mut Task<Self>, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError>;
}

impl Feedable for SingleShot {
    fn feed(_: &mut Task<Self>, _: Elapsed, _: Observed) -> Result<Option<Step>, ObserveError> {
        Err(ObserveError::SingleShot)
    }
}

impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> Feedable for Claims<S, H, P> {
    fn feed(task: &mut Task<Self>, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        task.observe(at, observed)
    }
}
