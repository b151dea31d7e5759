//! [`TaskHandle`]: what the typed and the dynamic handle share, for the code that drives either.

use crate::capability::{Capability, ClaimStatus};
use crate::claims::ClaimSet;
use crate::lifecycle::{Lifecycle, Step};
use crate::observe::{Elapsed, Observed};
use crate::state::ObserveError;
use crate::task::Handle;
use crate::task::dyn_task::DynHandle;
use crate::verify::Verifier;

mod sealed {
    pub trait Sealed {}
    impl<C: crate::ClaimSet> Sealed for crate::Handle<C> {}
    impl Sealed for crate::DynHandle {}
}

/// A task handle, typed ([`Handle<C>`](Handle)) or dynamic ([`DynHandle`]): the one interface an I/O
/// layer drives, so the calls that feed a handle are written once for both. Sealed.
///
/// It records observations and answers what has been seen; it hands out no permit and settles
/// nothing (those stay typed, on each handle).
pub trait TaskHandle: sealed::Sealed {
    /// Records what the client observed at `at`, as [`Handle::observe`].
    ///
    /// # Errors
    /// As [`Handle::observe`]; [`ObserveError::SingleShot`] on a single-shot handle, which tracks no
    /// lifecycle (the observation is dropped).
    fn record(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError>;

    /// How far the claim on `capability` has come (`Unclaimed` on a single-shot handle).
    fn claim_status(&self, capability: Capability) -> ClaimStatus;

    /// The verifier with everything observed so far.
    fn verifier(&self) -> &Verifier;

    /// The lifecycle as observed.
    fn lifecycle(&self) -> &Lifecycle;
}

impl<C: ClaimSet> TaskHandle for Handle<C> {
    fn record(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        if C::SLOTS.is_none() {
            return Err(ObserveError::SingleShot);
        }
        self.state.observe(at, observed)
    }

    fn claim_status(&self, capability: Capability) -> ClaimStatus {
        self.state.status(capability)
    }

    fn verifier(&self) -> &Verifier {
        &self.state.verifier
    }

    fn lifecycle(&self) -> &Lifecycle {
        &self.state.lifecycle
    }
}

impl TaskHandle for DynHandle {
    fn record(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        self.observe(at, observed)
    }

    fn claim_status(&self, capability: Capability) -> ClaimStatus {
        self.status(capability)
    }

    fn verifier(&self) -> &Verifier {
        &self.state.verifier
    }

    fn lifecycle(&self) -> &Lifecycle {
        &self.state.lifecycle
    }
}
