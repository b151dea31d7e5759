//! Runtime-checked narrowing from [`DynHandle`] to a typed [`Handle`], handing the value back on failure.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_typestate::{Bounds, CardClaims, Claims, Deployment, DynHandle, Streaming, Handle};
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"], "capabilities": {"pushNotifications": true}}"#)?;
//! let handle = DynHandle::new(Arc::new(CardClaims::lift(&card, Deployment::Direct)), Bounds::default());
//!
//! // The card claims no streaming: narrowing fails and hands the handle back.
//! let err = Handle::<Claims<Streaming>>::try_from(handle).unwrap_err();
//! println!("{err}");
//! let polling: Handle<Claims> = Handle::try_from(err.into_handle())?; // claims nothing: always fits
//! # let _ = polling;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use crate::capability::{Capability, ClaimStatus};
use crate::claims::ClaimSet;
use crate::task::Handle;
use crate::task::dyn_task::DynHandle;

/// Why a dynamic handle could not be narrowed; holds the handle, so nothing is lost.
///
/// `H` is the handle handed back: [`DynHandle`] here, and the I/O layer's dynamic handle once it
/// puts its connection back on it ([`NarrowingError::map_handle`]), so one error type serves
/// every layer.
#[derive(Debug)]
pub struct NarrowingError<H = DynHandle> {
    handle: H,
    mismatch: Mismatch,
}

/// What did not match when narrowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mismatch {
    /// The handle is single-shot (after a refusal, or by choice); it never becomes tracked again.
    SingleShot,
    /// The target type holds a claim (or a verification) the handle does not.
    Claim {
        /// The capability.
        capability: Capability,
        /// What the target type needs.
        wanted: ClaimStatus,
        /// What the handle holds.
        held: ClaimStatus,
    },
}

impl<H> NarrowingError<H> {
    /// What did not match.
    pub fn mismatch(&self) -> Mismatch {
        self.mismatch
    }

    /// The handle, unchanged.
    pub fn into_handle(self) -> H {
        self.handle
    }

    /// The same error handing back `f(handle)`: how a layer above wraps the dynamic handle in its
    /// own.
    pub fn map_handle<U>(self, f: impl FnOnce(H) -> U) -> NarrowingError<U> {
        NarrowingError { handle: f(self.handle), mismatch: self.mismatch }
    }
}

impl<H> fmt::Display for NarrowingError<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mismatch {
            Mismatch::SingleShot => {
                f.write_str("a single-shot task handle cannot be narrowed to a tracked one")
            }
            Mismatch::Claim { capability, wanted, held } => write!(
                f,
                "cannot narrow: the target needs {capability} {}, the handle holds it {}",
                status_words(wanted),
                status_words(held)
            ),
        }
    }
}

fn status_words(status: ClaimStatus) -> &'static str {
    match status {
        ClaimStatus::Unclaimed => "unclaimed",
        ClaimStatus::Claimed => "claimed (unverified)",
        ClaimStatus::Verified => "verified",
    }
}

impl<H: fmt::Debug> std::error::Error for NarrowingError<H> {}

/// Narrowing: every claimed slot of `C` must be held at least as far (verified satisfies
/// claimed); an unclaimed slot of `C` drops the claim (the caller does not depend on it, which is
/// always safe). `Handle<SingleShot>` accepts any handle.
impl<C: ClaimSet> TryFrom<DynHandle> for Handle<C> {
    type Error = NarrowingError;

    fn try_from(mut handle: DynHandle) -> Result<Self, NarrowingError> {
        let Some(wanted) = C::SLOTS else {
            handle.state.set_slots(None);
            return Ok(Handle::from_state(handle.state));
        };
        if handle.is_single_shot() {
            return Err(NarrowingError { handle, mismatch: Mismatch::SingleShot });
        }
        for (capability, wanted) in Capability::ALL.into_iter().zip(wanted) {
            let held = handle.status(capability);
            if held < wanted {
                return Err(NarrowingError {
                    handle,
                    mismatch: Mismatch::Claim { capability, wanted, held },
                });
            }
        }
        handle.state.set_slots(Some(wanted));
        Ok(Handle::from_state(handle.state))
    }
}
