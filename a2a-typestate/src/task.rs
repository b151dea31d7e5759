//! The typed task handle [`Task`] and its transitions.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use a2a_types::{ContextId, TaskId, TaskState};

use crate::bounds::Bounds;
use crate::capability::{Capability, CapabilitySet, ClaimStatus};
use crate::card::CardClaims;
use crate::claims::{
    ClaimSet, Claims, HasHistoryClaim, HasPushClaim, HasStreamingClaim, HasVerifiedHistory, HasVerifiedPush,
    HasVerifiedStreaming, HistoryClaimed, HistorySlot, HistoryVerified, PushClaimed, PushSlot, PushVerified,
    SingleShot, StreamingClaimed, StreamingSlot, StreamingVerified,
};
use crate::lifecycle::{FollowUpError, Lifecycle, Step, TransitionError};
use crate::observe::{Channel, Elapsed, Observed};
use crate::permit::{
    CadenceBasis, HistoryPermit, PollPermit, PushPermit, Reliance, SendPermit, SingleShotSend, StreamPermit,
};
use crate::verdict::{LifecycleFault, Pending, PendingReason, Verdict};
use crate::verify::Verifier;
use crate::violation::AgentCardLifecycleViolation;

/// The state shared by the typed and the dynamic handle. `slots` is `None` for a single-shot
/// handle; otherwise the runtime mirror of the type parameter.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) slots: Option<[ClaimStatus; 3]>,
    pub(crate) lifecycle: Lifecycle,
    pub(crate) verifier: Verifier,
}

impl Core {
    pub(crate) fn new(card: Arc<CardClaims>, bounds: Bounds) -> Self {
        let declared = card.declared();
        let slots = Capability::ALL
            .map(|c| if declared.contains(c) { ClaimStatus::Claimed } else { ClaimStatus::Unclaimed });
        Self {
            slots: Some(slots),
            lifecycle: Lifecycle::new(),
            verifier: Verifier::new(card, declared, bounds),
        }
    }

    pub(crate) fn status(&self, capability: Capability) -> ClaimStatus {
        let index = Capability::ALL.iter().position(|c| *c == capability).unwrap_or(0);
        self.slots.and_then(|s| s.get(index).copied()).unwrap_or(ClaimStatus::Unclaimed)
    }

    pub(crate) fn set_slots(&mut self, slots: Option<[ClaimStatus; 3]>) {
        self.slots = slots;
        let held =
            Capability::ALL.into_iter().filter(|c| self.status(*c) != ClaimStatus::Unclaimed).collect();
        self.verifier.set_depends_on(held);
    }

    pub(crate) fn set_status(&mut self, capability: Capability, status: ClaimStatus) {
        if let Some(mut slots) = self.slots {
            if let Some(index) = Capability::ALL.iter().position(|c| *c == capability)
                && let Some(slot) = slots.get_mut(index)
            {
                *slot = status;
            }
            self.set_slots(Some(slots));
        }
    }

    pub(crate) fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        let result = match &observed {
            Observed::Status { task_id, context_id, state, via, .. } => {
                match self.lifecycle.advance(task_id, context_id.as_ref(), *state) {
                    Ok(step) => Ok(Some(step)),
                    // Push is at-least-once and unordered: an old delivery is no protocol deviation.
                    Err(err) if *via == Channel::Push && !err.rule.is_about_identity() => {
                        Ok(Some(Step::Stale(*state)))
                    }
                    Err(err) => Err(err.into()),
                }
            }
            Observed::MessageSent { task_id: Some(task_id), context_id, .. } => match context_id {
                Some(context_id) => {
                    self.lifecycle.follow_up(task_id, context_id).map(|()| None).map_err(Into::into)
                }
                None => Err(ObserveError::FollowUp(FollowUpError::MissingContextId)),
            },
            _ => Ok(None),
        };
        // The verifier records everything, rejected transitions included: they are evidence too.
        self.verifier.observe(at, observed);
        result
    }

    pub(crate) fn settle(&mut self, capability: Capability, now: Elapsed) -> Outcome {
        match self.verifier.verdict(capability, now) {
            Some(Verdict::Verified(_)) => {
                self.set_status(capability, ClaimStatus::Verified);
                Outcome::Verified
            }
            Some(Verdict::Refused(violation)) => Outcome::Refused(violation),
            Some(Verdict::Pending(pending)) => Outcome::Pending(pending),
            None => Outcome::Pending(Pending::new(PendingReason::NotExercised)),
        }
    }

    fn stream_permit(&self) -> StreamPermit {
        StreamPermit {
            task_id: self.lifecycle.task_id().cloned(),
            context_id: self.lifecycle.context_id().cloned(),
            verified: self.status(Capability::Streaming) == ClaimStatus::Verified,
        }
    }

    fn history_permit(&self) -> HistoryPermit {
        HistoryPermit { task_id: self.lifecycle.task_id().cloned() }
    }

    fn push_permit(&self) -> PushPermit {
        PushPermit {
            task_id: self.lifecycle.task_id().cloned(),
            arrival_bound: self.verifier.bounds().push_arrival(),
        }
    }

    fn send_permit(&self) -> SendPermit {
        SendPermit {
            task_id: self.lifecycle.task_id().cloned(),
            context_id: self.lifecycle.context_id().cloned(),
        }
    }

    fn poll_permit(&self) -> PollPermit {
        let card_cadence = self.verifier.card().poll_cadence().is_some();
        let streamed = self.verifier.checked().contains(Capability::Streaming);
        PollPermit {
            interval: self.verifier.poll_interval(),
            basis: if card_cadence { CadenceBasis::Card } else { CadenceBasis::Client },
            working_bound: (!card_cadence && !streamed)
                .then(|| self.verifier.bounds().working_unobservable()),
        }
    }
}

pub(crate) enum Outcome {
    Verified,
    Pending(Pending),
    Refused(AgentCardLifecycleViolation),
}

/// Why an observation did not fit the task's lifecycle. It is still recorded for the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObserveError {
    /// The agent reported a transition the spec does not allow (a protocol deviation, not a
    /// capability refusal).
    Transition(TransitionError),
    /// The client's follow-up message does not fit the task.
    FollowUp(FollowUpError),
    /// A single-shot handle tracks no lifecycle.
    SingleShot,
}

impl From<TransitionError> for ObserveError {
    fn from(err: TransitionError) -> Self {
        Self::Transition(err)
    }
}

impl From<FollowUpError> for ObserveError {
    fn from(err: FollowUpError) -> Self {
        Self::FollowUp(err)
    }
}

impl fmt::Display for ObserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transition(err) => err.fmt(f),
            Self::FollowUp(err) => err.fmt(f),
            Self::SingleShot => f.write_str("a single-shot task handle tracks no lifecycle"),
        }
    }
}

impl std::error::Error for ObserveError {}

/// A task handle whose type says which of the card's claims it holds and how far each has been
/// verified. No I/O: the client makes the calls (with the permits this hands out) and feeds back
/// what it observed.
///
/// `C` is [`SingleShot`] or [`Claims<S, H, P>`](Claims); see [`crate::claims`] for the markers.
/// A `Task` is obtained by narrowing a [`DynTask`] (`Task::try_from(dyn_task)`), which comes from
/// [`CardClaims::lift`]; verified states come only out of the `settle_*` methods. It is not
/// `Clone`: each transition takes `self`, so a handle consumed by a refusal cannot be used again.
///
/// # States
///
/// | state | enables | how to get there |
/// | --- | --- | --- |
/// | `Task<Claims<..>>` (any slots) | [`send_permit`](Self::send_permit), [`poll_permit`](Self::poll_permit), [`observe`](Self::observe), [`verdict`](Self::verdict), [`lifecycle_fault`](Self::lifecycle_fault) | narrow a [`DynTask`] |
/// | streaming slot [`StreamingClaimed`] | [`stream_permit`](Self::stream_permit) (its first use is the check) | the card declares `streaming: true`; narrow |
/// | [`StreamingVerified`] | `stream_permit` without artifact confirmation, [`rely_on_streaming`](Self::rely_on_streaming) | [`settle_streaming`](Self::settle_streaming) after the first stream reached a terminal state with its artifacts |
/// | history slot [`HistoryClaimed`] | [`history_permit`](Self::history_permit): reconstruct missed states with `GetTask` | the card declares `stateTransitionHistory: true` (0.3 or legacy field); narrow |
/// | [`HistoryVerified`] | [`rely_on_history`](Self::rely_on_history) | [`settle_history`](Self::settle_history) after the first relied-on history was not empty |
/// | push slot [`PushClaimed`] | [`push_permit`](Self::push_permit): register a webhook | the card declares `pushNotifications: true`; narrow |
/// | [`PushVerified`] | [`rely_on_push`](Self::rely_on_push) | [`settle_push`](Self::settle_push) after a callback arrived within the bound |
/// | `Task<SingleShot>` | only [`single_shot_send`](Task::single_shot_send) | a refusal ([`Refusal::into_task`]), or [`into_single_shot`](Self::into_single_shot) |
///
/// Moves between states:
/// - `settle_*` takes the handle and returns [`Settlement::Verified`] with the slot upgraded,
///   [`Settlement::Pending`] with the same handle back, or `Err(`[`Refusal`]`)` carrying the handle
///   downgraded to `Task<SingleShot>` with the [`AgentCardLifecycleViolation`].
/// - [`into_dyn`](Self::into_dyn) forgets the type; narrowing back checks at run time and hands the
///   [`DynTask`] back on failure. Narrowing may drop a claim (the caller does not depend on it) but
///   never adds or upgrades one, and never turns a single-shot handle back into a tracked one.
pub struct Task<C: ClaimSet = SingleShot> {
    pub(crate) core: Core,
    _claims: PhantomData<fn() -> C>,
}

impl<C: ClaimSet> fmt::Debug for Task<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("claims", &std::any::type_name::<C>())
            .field("lifecycle", &self.core.lifecycle)
            .finish_non_exhaustive()
    }
}

impl<C: ClaimSet> Task<C> {
    pub(crate) fn from_core(core: Core) -> Self {
        Self { core, _claims: PhantomData }
    }

    fn retype<D: ClaimSet>(self) -> Task<D> {
        Task { core: self.core, _claims: PhantomData }
    }

    /// The task id, once the agent assigned one.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.core.lifecycle.task_id()
    }

    /// The context id, once known.
    pub fn context_id(&self) -> Option<&ContextId> {
        self.core.lifecycle.context_id()
    }

    /// What the agent's card claims (all of it, not only what this handle holds).
    pub fn card(&self) -> &CardClaims {
        self.core.verifier.card()
    }

    /// Forgets the type: a [`DynTask`] for code that holds many agents.
    pub fn into_dyn(self) -> DynTask {
        DynTask { core: self.core }
    }

    /// Gives up every claim and lifecycle tracking: the lifecycle-agnostic fallback.
    pub fn into_single_shot(mut self) -> Task<SingleShot> {
        self.core.set_slots(None);
        self.retype()
    }
}

impl Task<SingleShot> {
    /// The single-shot send: one blocking `SendMessage`, no intermediate states expected.
    pub fn single_shot_send(&self) -> SingleShotSend {
        SingleShotSend { _private: () }
    }
}

impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> Task<Claims<S, H, P>> {
    /// The current task state, if any was observed.
    pub fn state(&self) -> Option<TaskState> {
        self.core.lifecycle.state()
    }

    /// The task's lifecycle as observed.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.core.lifecycle
    }

    /// The verifier with everything observed so far.
    pub fn verifier(&self) -> &Verifier {
        &self.core.verifier
    }

    /// Records what the client observed at `at` (elapsed since the handle was created): drives the
    /// lifecycle and feeds the verifier.
    ///
    /// # Errors
    ///
    /// [`ObserveError`] when a status breaks the lifecycle rules or a follow-up does not fit the
    /// task. The observation is recorded for the verifier either way.
    pub fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        self.core.observe(at, observed)
    }

    /// The verdict on `capability` at `now`; `None` when this handle does not hold that claim.
    pub fn verdict(&self, capability: Capability, now: Elapsed) -> Option<Verdict> {
        self.core.verifier.verdict(capability, now)
    }

    /// A lifecycle fault at `now` (a `WORKING` unobservable past the bound), if any.
    pub fn lifecycle_fault(&self, now: Elapsed) -> Option<LifecycleFault> {
        self.core.verifier.lifecycle_fault(now)
    }

    /// Permission to `SendMessage` (first message or follow-up).
    pub fn send_permit(&self) -> SendPermit {
        self.core.send_permit()
    }

    /// How to poll `GetTask`: the card's declared cadence, or the client's bounded interval.
    pub fn poll_permit(&self) -> PollPermit {
        self.core.poll_permit()
    }

    /// Permission to open a stream (`SendStreamingMessage` / `SubscribeToTask`). Needs a streaming
    /// claim; while it is unverified, the first stream is the check.
    pub fn stream_permit(&self) -> StreamPermit
    where
        S: HasStreamingClaim,
    {
        self.core.stream_permit()
    }

    /// Permission to reconstruct missed states from the task's history with `GetTask`. Needs a
    /// state-transition history claim; while it is unverified, the first fetch is the check.
    pub fn history_permit(&self) -> HistoryPermit
    where
        H: HasHistoryClaim,
    {
        self.core.history_permit()
    }

    /// Permission to register a push-notification callback. Needs a push claim; while it is
    /// unverified, the first callback (or its absence within the bound) is the check.
    pub fn push_permit(&self) -> PushPermit
    where
        P: HasPushClaim,
    {
        self.core.push_permit()
    }

    /// Rely on the stream alone (no `GetTask` confirmation, no poll fallback). Needs a verified
    /// streaming claim.
    pub fn rely_on_streaming(&self) -> Reliance
    where
        S: HasVerifiedStreaming,
    {
        Reliance { capability: Capability::Streaming }
    }

    /// Rely on the agent's history alone (no local transcript). Needs a verified history claim.
    pub fn rely_on_history(&self) -> Reliance
    where
        H: HasVerifiedHistory,
    {
        Reliance { capability: Capability::StateTransitionHistory }
    }

    /// Rely on push callbacks alone (no polling beside them). Needs a verified push claim.
    pub fn rely_on_push(&self) -> Reliance
    where
        P: HasVerifiedPush,
    {
        Reliance { capability: Capability::PushNotifications }
    }

    fn settle_into<V: ClaimSet>(mut self, capability: Capability, now: Elapsed) -> SettleResult<V, Self> {
        match self.core.settle(capability, now) {
            Outcome::Verified => Ok(Settlement::Verified(self.retype())),
            Outcome::Pending(pending) => Ok(Settlement::Pending(self, pending)),
            Outcome::Refused(violation) => Err(Refusal::new(self.into_single_shot(), violation)),
        }
    }
}

/// What a `settle_*` call returns: the upgraded handle, the same handle still pending, or a
/// [`Refusal`] carrying the downgraded one.
pub type SettleResult<V, U> = Result<Settlement<Task<V>, U>, Refusal>;

impl<H: HistorySlot, P: PushSlot> Task<Claims<StreamingClaimed, H, P>> {
    /// Asks the verifier about the streaming claim at `now` and moves the handle accordingly.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] (with the handle downgraded to `Task<SingleShot>`) when all three refusal
    /// conditions held.
    pub fn settle_streaming(self, now: Elapsed) -> SettleResult<Claims<StreamingVerified, H, P>, Self> {
        self.settle_into(Capability::Streaming, now)
    }
}

impl<S: StreamingSlot, P: PushSlot> Task<Claims<S, HistoryClaimed, P>> {
    /// Asks the verifier about the state-transition history claim at `now` and moves the handle.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] when all three refusal conditions held (its advice: abandon, do not retry).
    pub fn settle_history(self, now: Elapsed) -> SettleResult<Claims<S, HistoryVerified, P>, Self> {
        self.settle_into(Capability::StateTransitionHistory, now)
    }
}

impl<S: StreamingSlot, H: HistorySlot> Task<Claims<S, H, PushClaimed>> {
    /// Asks the verifier about the push claim at `now` and moves the handle.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] when all three refusal conditions held.
    pub fn settle_push(self, now: Elapsed) -> SettleResult<Claims<S, H, PushVerified>, Self> {
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

/// A task handle whose claims are known only at run time, for code that holds many agents.
///
/// Made from a card's claims with [`DynTask::new`] (holding every claim the card declares);
/// narrowed to a typed [`Task`] with `Task::try_from`, which hands the `DynTask` back on failure.
/// The same gated operations exist here as fallible methods.
#[derive(Debug)]
pub struct DynTask {
    pub(crate) core: Core,
}

/// A gated operation refused at run time on a [`DynTask`]: the handle lacks the claim (or its
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

impl DynTask {
    /// A tracked handle for a new task against the agent whose card gave `card`, holding every
    /// claim the card declares (unverified).
    pub fn new(card: Arc<CardClaims>, bounds: Bounds) -> Self {
        Self { core: Core::new(card, bounds) }
    }

    /// How far the claim on `capability` has come (`Unclaimed` for a single-shot handle).
    pub fn status(&self, capability: Capability) -> ClaimStatus {
        self.core.status(capability)
    }

    /// The claims held (claimed or verified).
    pub fn held(&self) -> CapabilitySet {
        Capability::ALL.into_iter().filter(|c| self.status(*c) != ClaimStatus::Unclaimed).collect()
    }

    /// `true` for the lifecycle-agnostic fallback handle.
    pub fn is_single_shot(&self) -> bool {
        self.core.slots.is_none()
    }

    /// The task state, if any was observed.
    pub fn state(&self) -> Option<TaskState> {
        self.core.lifecycle.state()
    }

    /// The lifecycle as observed.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.core.lifecycle
    }

    /// The verifier with everything observed so far.
    pub fn verifier(&self) -> &Verifier {
        &self.core.verifier
    }

    /// Records an observation, as [`Task::observe`].
    ///
    /// # Errors
    ///
    /// As [`Task::observe`]; [`ObserveError::SingleShot`] on a single-shot handle.
    pub fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        if self.is_single_shot() {
            return Err(ObserveError::SingleShot);
        }
        self.core.observe(at, observed)
    }

    fn require(&self, capability: Capability, needed: ClaimStatus) -> Result<(), MissingClaim> {
        let held = self.status(capability);
        if held >= needed { Ok(()) } else { Err(MissingClaim { capability, needed, held }) }
    }

    /// As [`Task::stream_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a streaming claim.
    pub fn stream_permit(&self) -> Result<StreamPermit, MissingClaim> {
        self.require(Capability::Streaming, ClaimStatus::Claimed).map(|()| self.core.stream_permit())
    }

    /// As [`Task::history_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a history claim.
    pub fn history_permit(&self) -> Result<HistoryPermit, MissingClaim> {
        self.require(Capability::StateTransitionHistory, ClaimStatus::Claimed)
            .map(|()| self.core.history_permit())
    }

    /// As [`Task::push_permit`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] without a push claim.
    pub fn push_permit(&self) -> Result<PushPermit, MissingClaim> {
        self.require(Capability::PushNotifications, ClaimStatus::Claimed).map(|()| self.core.push_permit())
    }

    /// As the `rely_on_*` methods of [`Task`].
    ///
    /// # Errors
    ///
    /// [`MissingClaim`] unless the claim on `capability` is verified.
    pub fn rely_on(&self, capability: Capability) -> Result<Reliance, MissingClaim> {
        self.require(capability, ClaimStatus::Verified).map(|()| Reliance { capability })
    }

    /// Permission to `SendMessage` on a tracked handle, or `None` for a single-shot one.
    pub fn send_permit(&self) -> Option<SendPermit> {
        (!self.is_single_shot()).then(|| self.core.send_permit())
    }

    /// How to poll, or `None` for a single-shot handle.
    pub fn poll_permit(&self) -> Option<PollPermit> {
        (!self.is_single_shot()).then(|| self.core.poll_permit())
    }

    /// The single-shot send, always available.
    pub fn single_shot_send(&self) -> SingleShotSend {
        SingleShotSend { _private: () }
    }

    /// Settles every held, unverified claim at `now`: verified ones are upgraded, pending ones stay.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] for the first claim (in [`Capability::ALL`] order) whose three refusal
    /// conditions held, carrying the handle downgraded to single-shot.
    pub fn settle(mut self, now: Elapsed) -> Result<Self, Refusal> {
        for capability in Capability::ALL {
            if self.status(capability) != ClaimStatus::Claimed {
                continue;
            }
            if let Outcome::Refused(violation) = self.core.settle(capability, now) {
                let task: Task<SingleShot> = Task::from_core(self.core);
                return Err(Refusal::new(task.into_single_shot(), violation));
            }
        }
        Ok(self)
    }
}

impl<C: ClaimSet> From<Task<C>> for DynTask {
    fn from(task: Task<C>) -> Self {
        task.into_dyn()
    }
}

impl From<Refusal> for DynTask {
    fn from(refusal: Refusal) -> Self {
        refusal.into_task().into_dyn()
    }
}
