//! The typed task handle [`Handle`] and its transitions.

use std::fmt;
use std::marker::PhantomData;

use a2a_typestate_types::{ContextId, TaskId, TaskState};

use crate::capability::Capability;
use crate::card::CardClaims;
use crate::claims::{
    ClaimSet, HasHistoryClaim, HasPushClaim, HasStreamingClaim, HasVerifiedHistory, HasVerifiedPush,
    HasVerifiedStreaming, SettlesHistory, SettlesPush, SettlesStreaming, SingleShot, Tracked,
};
use crate::lifecycle::{Lifecycle, Step};
use crate::observe::{Elapsed, Observed};
use crate::permit::{
    HistoryPermit, PollPermit, PushPermit, Reliance, SendPermit, SingleShotSend, StreamPermit,
};
use crate::state::{HandleState, ObserveError, Outcome};
use crate::verdict::{LifecycleFault, Pending, Verdict};
use crate::verify::Verifier;

// The two handles and the refusal that hands one back refer to each other (a dynamic handle
// narrows into a typed one, either settles into a refusal carrying the single-shot handle), so
// they are one module.
pub(crate) mod dyn_task;
pub(crate) mod refusal;

use dyn_task::DynHandle;
use refusal::Refusal;

/// A task handle whose type says which of the card's claims it holds and how far each has been
/// verified. No I/O: the client makes the calls (with the permits this hands out) and feeds back
/// what it observed.
///
/// `C` is [`SingleShot`] or [`Claims<S, H, P>`](crate::Claims); see [`Claims`](crate::Claims) for the markers.
/// A `Handle` is obtained by narrowing a [`DynHandle`] (`Handle::try_from(dyn_task)`), which comes from
/// [`CardClaims::lift`]; verified states come only out of the `settle_*` methods. It is not
/// `Clone`: each transition takes `self`, so a handle consumed by a refusal cannot be used again.
///
/// # States
///
/// | state | enables | how to get there |
/// | --- | --- | --- |
/// | `Handle<Claims<..>>` (any slots) | [`send_permit`](Self::send_permit), [`poll_permit`](Self::poll_permit), [`observe`](Self::observe), [`verdict`](Self::verdict), [`lifecycle_fault`](Self::lifecycle_fault) | narrow a [`DynHandle`] |
/// | streaming slot [`Streaming`](crate::Streaming) | [`stream_permit`](Self::stream_permit) (its first use is the check) | the card declares `streaming: true`; narrow |
/// | [`StreamingVerified`](crate::StreamingVerified) | `stream_permit` without artifact confirmation, [`rely_on_streaming`](Self::rely_on_streaming) | [`settle_streaming`](Self::settle_streaming) after the first stream reached a terminal state with its artifacts |
/// | history slot [`History`](crate::History) | [`history_permit`](Self::history_permit): reconstruct missed states with `GetTask` | the card declares `stateTransitionHistory: true` (0.3 or legacy field); narrow |
/// | [`HistoryVerified`](crate::HistoryVerified) | [`rely_on_history`](Self::rely_on_history) | [`settle_history`](Self::settle_history) after the first relied-on history was not empty |
/// | push slot [`Push`](crate::Push) | [`push_permit`](Self::push_permit): register a webhook | the card declares `pushNotifications: true`; narrow |
/// | [`PushVerified`](crate::PushVerified) | [`rely_on_push`](Self::rely_on_push) | [`settle_push`](Self::settle_push) after a callback arrived within the bound |
/// | `Handle<SingleShot>` | only [`single_shot_send`](Handle::single_shot_send) | a refusal ([`Refusal::into_task`]), or [`into_single_shot`](Self::into_single_shot) |
///
/// The gated methods are written once for every `C`, bounded on the slot they need
/// (`C::Streaming: HasStreamingClaim`): on a handle whose slot lacks the claim, `Handle<SingleShot>`
/// included, a call does not compile, and the error names the missing claim and how to get one.
///
/// Moves between states:
/// - `settle_*` takes the handle and returns [`Settlement::Verified`] with the slot upgraded,
///   [`Settlement::Pending`] with the same handle back, or `Err(`[`Refusal`]`)` carrying the handle
///   downgraded to `Handle<SingleShot>` with the [`AgentCardLifecycleViolation`](crate::AgentCardLifecycleViolation).
/// - [`into_dyn`](Self::into_dyn) forgets the type; narrowing back checks at run time and hands the
///   [`DynHandle`] back on failure. Narrowing may drop a claim (the caller does not depend on it) but
///   never adds or upgrades one, and never turns a single-shot handle back into a tracked one.
pub struct Handle<C: ClaimSet = SingleShot> {
    pub(crate) state: HandleState,
    _claims: PhantomData<fn() -> C>,
}

impl<C: ClaimSet> fmt::Debug for Handle<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("claims", &std::any::type_name::<C>())
            .field("lifecycle", &self.state.lifecycle)
            .finish_non_exhaustive()
    }
}

impl<C: ClaimSet> Handle<C> {
    pub(crate) fn from_state(state: HandleState) -> Self {
        Self { state, _claims: PhantomData }
    }

    fn retype<D: ClaimSet>(self) -> Handle<D> {
        Handle { state: self.state, _claims: PhantomData }
    }

    /// The task id, once the agent assigned one.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.state.lifecycle.task_id()
    }

    /// The context id, once known.
    pub fn context_id(&self) -> Option<&ContextId> {
        self.state.lifecycle.context_id()
    }

    /// What the agent's card claims (all of it, not only what this handle holds).
    pub fn card(&self) -> &CardClaims {
        self.state.verifier.card()
    }

    /// Forgets the type: a [`DynHandle`] for code that holds many agents.
    pub fn into_dyn(self) -> DynHandle {
        DynHandle { state: self.state }
    }

    /// Gives up every claim and lifecycle tracking: the lifecycle-agnostic fallback.
    pub fn into_single_shot(mut self) -> Handle<SingleShot> {
        self.state.set_slots(None);
        self.retype()
    }
}

// The gated operations, written once over every claim set and bounded on the slot they need
// (rp-hal's `where MODE: Readable`). Bounding on `C`'s slots rather than implementing them for
// `Claims<S, H, P>` alone means a `Handle<SingleShot>` gets the same domain-worded error as a
// handle whose card never made the claim, instead of a bare "no method named ..." (E0599).
impl<C: ClaimSet> Handle<C> {
    /// Permission to open a stream (`SendStreamingMessage` / `SubscribeToTask`). Needs a streaming
    /// claim; while it is unverified, the first stream is the check.
    pub fn stream_permit(&self) -> StreamPermit
    where
        C::Streaming: HasStreamingClaim,
    {
        self.state.stream_permit()
    }

    /// Permission to reconstruct missed states from the task's history with `GetTask`. Needs a
    /// state-transition history claim; while it is unverified, the first fetch is the check.
    pub fn history_permit(&self) -> HistoryPermit
    where
        C::History: HasHistoryClaim,
    {
        self.state.history_permit()
    }

    /// Permission to register a push-notification callback. Needs a push claim; while it is
    /// unverified, the first callback (or its absence within the bound) is the check.
    pub fn push_permit(&self) -> PushPermit
    where
        C::Push: HasPushClaim,
    {
        self.state.push_permit()
    }

    /// Rely on the stream alone (no `GetTask` confirmation, no poll fallback). Needs a verified
    /// streaming claim.
    pub fn rely_on_streaming(&self) -> Reliance
    where
        C::Streaming: HasVerifiedStreaming,
    {
        Reliance { capability: Capability::Streaming }
    }

    /// Rely on the agent's history alone (no local transcript). Needs a verified history claim.
    pub fn rely_on_history(&self) -> Reliance
    where
        C::History: HasVerifiedHistory,
    {
        Reliance { capability: Capability::StateTransitionHistory }
    }

    /// Rely on push callbacks alone (no polling beside them). Needs a verified push claim.
    pub fn rely_on_push(&self) -> Reliance
    where
        C::Push: HasVerifiedPush,
    {
        Reliance { capability: Capability::PushNotifications }
    }
}

impl Handle<SingleShot> {
    /// The single-shot send: one blocking `SendMessage`, no intermediate states expected.
    pub fn single_shot_send(&self) -> SingleShotSend {
        SingleShotSend { _private: () }
    }
}

// Written once over every claim set and bounded on `Tracked`, so the fallback handle gets a
// domain-worded error rather than "no method named ...".
impl<C: ClaimSet> Handle<C> {
    /// The current task state, if any was observed.
    pub fn state(&self) -> Option<TaskState>
    where
        C: Tracked,
    {
        self.state.lifecycle.state()
    }

    /// The task's lifecycle as observed.
    pub fn lifecycle(&self) -> &Lifecycle
    where
        C: Tracked,
    {
        &self.state.lifecycle
    }

    /// The verifier with everything observed so far.
    pub fn verifier(&self) -> &Verifier
    where
        C: Tracked,
    {
        &self.state.verifier
    }

    /// Records what the client observed at `at` (elapsed since the handle was created): drives the
    /// lifecycle and feeds the verifier.
    ///
    /// # Errors
    ///
    /// [`ObserveError`] when a status breaks the lifecycle rules or a follow-up does not fit the
    /// task. The observation is recorded for the verifier either way.
    pub fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError>
    where
        C: Tracked,
    {
        self.state.observe(at, observed)
    }

    /// The verdict on `capability` at `now`; `None` when this handle does not hold that claim.
    pub fn verdict(&self, capability: Capability, now: Elapsed) -> Option<Verdict>
    where
        C: Tracked,
    {
        self.state.verifier.verdict(capability, now)
    }

    /// A lifecycle fault at `now` (a `WORKING` unobservable past the bound), if any.
    pub fn lifecycle_fault(&self, now: Elapsed) -> Option<LifecycleFault>
    where
        C: Tracked,
    {
        self.state.verifier.lifecycle_fault(now)
    }

    /// Permission to `SendMessage` (first message or follow-up).
    pub fn send_permit(&self) -> SendPermit
    where
        C: Tracked,
    {
        self.state.send_permit()
    }

    /// How to poll `GetTask`: the card's declared cadence, or the client's bounded interval.
    pub fn poll_permit(&self) -> PollPermit
    where
        C: Tracked,
    {
        self.state.poll_permit()
    }
}

impl<C: ClaimSet> Handle<C> {
    fn settle_into<V: ClaimSet>(
        mut self,
        capability: Capability,
        now: Elapsed,
    ) -> SettleResult<Handle<V>, Self> {
        match self.state.settle(capability, now) {
            Outcome::Verified => Ok(Settlement::Verified(self.retype())),
            Outcome::Pending(pending) => Ok(Settlement::Pending(self, pending)),
            Outcome::Refused(violation) => {
                let refusals = self.state.verifier.deciding_refusal(violation, now);
                Err(Refusal::new(self.into_single_shot(), refusals))
            }
        }
    }
}

/// What a `settle_*` call returns: the upgraded handle `V`, the same handle `U` still pending, or a
/// [`Refusal`] carrying the downgraded one (`R`, a [`Handle<SingleShot>`] unless a layer above wraps
/// it in its own handle).
pub type SettleResult<V, U, R = Handle<SingleShot>> = Result<Settlement<V, U>, Refusal<R>>;

/// The type `settle_streaming` upgrades `C` to.
pub type StreamingSettled<C> = <C as ClaimSet>::StreamingSettled;
/// The type `settle_history` upgrades `C` to.
pub type HistorySettled<C> = <C as ClaimSet>::HistorySettled;
/// The type `settle_push` upgrades `C` to.
pub type PushSettled<C> = <C as ClaimSet>::PushSettled;

// The settles, written once over every claim set and bounded on a trait that names the slot: on a
// handle without the unverified claim the error says so in these words instead of E0599.
impl<C: ClaimSet> Handle<C> {
    /// Asks the verifier about the streaming claim at `now` and moves the handle accordingly.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] (with the handle downgraded to `Handle<SingleShot>`) when all three refusal
    /// conditions held; the violation it reports is the first by evidence among every claim this
    /// handle checks, the same one [`DynHandle::settle`] would report.
    pub fn settle_streaming(self, now: Elapsed) -> SettleResult<Handle<StreamingSettled<C>>, Self>
    where
        C: SettlesStreaming,
    {
        self.settle_into(Capability::Streaming, now)
    }

    /// Asks the verifier about the state-transition history claim at `now` and moves the handle.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] when all three refusal conditions held (its advice: abandon, do not retry,
    /// unless another claim's contradiction came first and decides: see [`Handle::settle_streaming`]).
    pub fn settle_history(self, now: Elapsed) -> SettleResult<Handle<HistorySettled<C>>, Self>
    where
        C: SettlesHistory,
    {
        self.settle_into(Capability::StateTransitionHistory, now)
    }

    /// Asks the verifier about the push claim at `now` and moves the handle.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] when all three refusal conditions held (deciding as in
    /// [`Handle::settle_streaming`]).
    pub fn settle_push(self, now: Elapsed) -> SettleResult<Handle<PushSettled<C>>, Self>
    where
        C: SettlesPush,
    {
        self.settle_into(Capability::PushNotifications, now)
    }
}

/// The non-refusal outcomes of a `settle_*` call.
#[derive(Debug)]
pub enum Settlement<V, U> {
    /// The claim is verified: the handle with the slot upgraded.
    Verified(V),
    /// Not settled yet: the same handle back, and why.
    Pending(U, Pending),
}
