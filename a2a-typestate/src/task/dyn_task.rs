//! The dynamic task handle [`DynHandle`], for code that holds many agents.

use std::fmt;
use std::sync::Arc;

use a2a_typestate_types::TaskState;

use super::Handle;
use super::refusal::Refusal;
use crate::bounds::Bounds;
use crate::capability::{Capability, CapabilitySet, ClaimStatus};
use crate::card::CardClaims;
use crate::claims::{ClaimSet, SingleShot};
use crate::lifecycle::{Lifecycle, Step};
use crate::observe::{Elapsed, Observed};
use crate::permit::{
    HistoryPermit, PollPermit, PushPermit, Reliance, SendPermit, SingleShotSend, StreamPermit,
};
use crate::state::{HandleState, ObserveError, Outcome};
use crate::verify::Verifier;

/// A task handle whose claims are known only at run time, for code that holds many agents.
///
/// Made from a card's claims with [`DynHandle::new`] (holding every claim the card declares);
/// narrowed to a typed [`Handle`] with `Handle::try_from`, which hands the `DynHandle` back on failure.
/// The same gated operations exist here as fallible methods.
#[derive(Debug)]
pub struct DynHandle {
    pub(crate) state: HandleState,
}

/// A gated operation refused at run time on a [`DynHandle`]: the handle lacks the claim (or its
/// verification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingClaim {
    /// The capability needed.
    pub capability: Capability,
    /// What the operation needs.
    pub needed: ClaimStatus,
    /// What the handle holds.
    pub held: ClaimStatus,
}

impl fmt::Display for MissingClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this task handle holds {:?} for {}, the operation needs {:?}",
            self.held, self.capability, self.needed
        )
    }
}

impl std::error::Error for MissingClaim {}

impl DynHandle {
    /// A tracked handle for a new task against the agent whose card gave `card`, holding every
    /// claim the card declares (unverified).
    pub fn new(card: Arc<CardClaims>, bounds: Bounds) -> Self {
        Self { state: HandleState::new(card, bounds) }
    }

    /// How far the claim on `capability` has come (`Unclaimed` for a single-shot handle).
    pub fn status(&self, capability: Capability) -> ClaimStatus {
        self.state.status(capability)
    }

    /// The claims held (claimed or verified).
    pub fn held(&self) -> CapabilitySet {
        Capability::ALL.into_iter().filter(|c| self.status(*c) != ClaimStatus::Unclaimed).collect()
    }

    /// `true` for the lifecycle-agnostic fallback handle.
    pub fn is_single_shot(&self) -> bool {
        self.state.slots.is_none()
    }

    /// The task state, if any was observed.
    pub fn state(&self) -> Option<TaskState> {
        self.state.lifecycle.state()
    }

    /// The lifecycle as observed.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.state.lifecycle
    }

    /// The verifier with everything observed so far.
    pub fn verifier(&self) -> &Verifier {
        &self.state.verifier
    }

    /// Records an observation, as [`Handle::observe`].
    ///
    /// # Errors
    ///
    /// As [`Handle::observe`]; [`ObserveError::SingleShot`] on a single-shot handle.
    pub fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        if self.is_single_shot() {
            return Err(ObserveError::SingleShot);
        }
        self.state.observe(at, observed)
    }

    fn require(&self, capability: Capability, needed: ClaimStatus) -> Result<(), MissingClaim> {
        let held = self.status(capability);
        if held >= needed { Ok(()) } else { Err(MissingClaim { capability, needed, held }) }
    }

    /// As [`Handle::stream_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a streaming claim.
    pub fn stream_permit(&self) -> Result<StreamPermit, MissingClaim> {
        self.require(Capability::Streaming, ClaimStatus::Claimed).map(|()| self.state.stream_permit())
    }

    /// As [`Handle::history_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a history claim.
    pub fn history_permit(&self) -> Result<HistoryPermit, MissingClaim> {
        self.require(Capability::StateTransitionHistory, ClaimStatus::Claimed)
            .map(|()| self.state.history_permit())
    }

    /// As [`Handle::push_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a push claim.
    pub fn push_permit(&self) -> Result<PushPermit, MissingClaim> {
        self.require(Capability::PushNotifications, ClaimStatus::Claimed).map(|()| self.state.push_permit())
    }

    /// As the `rely_on_*` methods of [`Handle`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] unless the claim on `capability` is verified.
    pub fn rely_on(&self, capability: Capability) -> Result<Reliance, MissingClaim> {
        self.require(capability, ClaimStatus::Verified).map(|()| Reliance { capability })
    }

    /// Permission to `SendMessage` on a tracked handle, or `None` for a single-shot one.
    pub fn send_permit(&self) -> Option<SendPermit> {
        (!self.is_single_shot()).then(|| self.state.send_permit())
    }

    /// How to poll, or `None` for a single-shot handle.
    pub fn poll_permit(&self) -> Option<PollPermit> {
        (!self.is_single_shot()).then(|| self.state.poll_permit())
    }

    /// Keeps only the claims in `depends` (the caller's path depends on no other, so no other is
    /// checked); never adds or upgrades one.
    pub fn depend_only_on(&mut self, depends: CapabilitySet) {
        if let Some(mut slots) = self.state.slots {
            for (slot, capability) in slots.iter_mut().zip(Capability::ALL) {
                if !depends.contains(capability) {
                    *slot = ClaimStatus::Unclaimed;
                }
            }
            self.state.set_slots(Some(slots));
        }
    }

    /// Gives up every claim and lifecycle tracking: the lifecycle-agnostic fallback.
    pub fn into_single_shot(mut self) -> Handle<SingleShot> {
        self.state.set_slots(None);
        Handle::from_state(self.state)
    }

    /// The single-shot send, always available.
    pub fn single_shot_send(&self) -> SingleShotSend {
        SingleShotSend { _private: () }
    }

    /// Settles every held, unverified claim at `now`: verified ones are upgraded, pending ones stay.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] for the held claim whose contradiction came first ([`Verifier::refusals`]),
    /// with the other refused claims ([`Refusal::others`]), carrying the handle downgraded to
    /// single-shot.
    pub fn settle(mut self, now: Elapsed) -> Result<Self, Refusal> {
        for capability in Capability::ALL {
            if self.status(capability) != ClaimStatus::Claimed {
                continue;
            }
            if let Outcome::Refused(violation) = self.state.settle(capability, now) {
                let refusals = self.state.verifier.deciding_refusal(violation, now);
                let task: Handle<SingleShot> = Handle::from_state(self.state);
                return Err(Refusal::new(task.into_single_shot(), refusals));
            }
        }
        Ok(self)
    }
}

impl<C: ClaimSet> From<Handle<C>> for DynHandle {
    fn from(task: Handle<C>) -> Self {
        task.into_dyn()
    }
}

impl From<Refusal> for DynHandle {
    fn from(refusal: Refusal) -> Self {
        refusal.into_task().into_dyn()
    }
}
