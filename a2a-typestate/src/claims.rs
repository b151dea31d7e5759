//! The claim markers and the sealed traits that gate a task handle's calls; documented on [`Claims`].

use std::convert::Infallible;
use std::fmt;
use std::marker::PhantomData;

use crate::capability::ClaimStatus;

pub(crate) mod sealed {
    /// Keeps the claim traits closed: only this crate's markers implement them.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a claim marker of a2a-typestate",
        note = "claims come only from an Agent Card (`CardClaims::lift`); the claim traits are sealed"
    )]
    pub trait Sealed {}
}

macro_rules! marker {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}
        impl sealed::Sealed for $name {}
    };
}

marker!(
    /// Streaming slot: the card does not declare streaming (or the caller does not depend on it).
    NoStreaming
);
marker!(
    /// Streaming slot: the card declares `capabilities.streaming: true`; not yet verified.
    Streaming
);
marker!(
    /// Streaming slot: the first stream delivered what a streaming claim promises.
    StreamingVerified
);
marker!(
    /// History slot: the card does not declare `stateTransitionHistory` (or the caller does not
    /// depend on it).
    NoHistory
);
marker!(
    /// History slot: the card declares `stateTransitionHistory: true`; not yet verified.
    History
);
marker!(
    /// History slot: the first `GetTask` relied upon returned the task's history.
    HistoryVerified
);
marker!(
    /// Push slot: the card does not declare push notifications (or the caller does not depend on
    /// them).
    NoPush
);
marker!(
    /// Push slot: the card declares `capabilities.pushNotifications: true`; not yet verified.
    Push
);
marker!(
    /// Push slot: a callback arrived within the bound after registration.
    PushVerified
);
marker!(
    /// The fallback state after a refusal: a lifecycle-agnostic, single-shot `SendMessage` with no
    /// expectation of intermediate states. No claim, no lifecycle tracking.
    SingleShot
);

/// The claim set of a tracked task: one marker per capability slot.
///
/// Uninhabited (it holds an [`Infallible`]), so it exists only as a type. The defaults make the
/// common cases short: `Claims<Streaming>` claims streaming only, `Claims` claims nothing
/// but still tracks the lifecycle (polling).
///
/// # The markers
///
/// ```
/// use a2a_typestate::{Claims, NoHistory, Push, SingleShot, StreamingVerified, Handle};
///
/// // Streaming verified, no history claim, push claimed but not yet verified:
/// type Watched = Handle<Claims<StreamingVerified, NoHistory, Push>>;
/// // What is left after a refusal:
/// type Fallback = Handle<SingleShot>;
/// // The markers cost nothing: the typed handle is as large as the dynamic one.
/// assert_eq!(size_of::<Watched>(), size_of::<Fallback>());
/// assert_eq!(size_of::<Watched>(), size_of::<a2a_typestate::DynHandle>());
/// ```
///
/// A task handle is `Handle<C>` where `C` is either [`SingleShot`] (the lifecycle-agnostic fallback)
/// or [`Claims<S, H, P>`](Claims), one slot per capability:
///
/// | slot | no claim | declared, unverified | verified |
/// | --- | --- | --- | --- |
/// | `S`: streaming | [`NoStreaming`] | [`Streaming`] | [`StreamingVerified`] |
/// | `H`: state-transition history | [`NoHistory`] | [`History`] | [`HistoryVerified`] |
/// | `P`: push notifications | [`NoPush`] | [`Push`] | [`PushVerified`] |
///
/// One parameter holding the claim set (rather than `Handle<S, H, P>`) keeps `Handle<SingleShot>` a
/// single, distinct state and lets a fourth axis be added to `Claims` with a default, without
/// touching code that names today's handles.
///
/// Every marker is an uninhabited enum: it exists only in types, costs nothing at run time, and
/// nobody can construct one. Every trait here is **sealed**: it cannot be implemented outside this
/// crate, so no code can declare a claim of its own. Claims are lifted from a card in exactly one
/// place, [`CardClaims::lift`](crate::CardClaims::lift); a `*Verified` marker is reached only through
/// a `settle_*` method of [`Handle`](crate::Handle), after the verifier said so.
pub struct Claims<S = NoStreaming, H = NoHistory, P = NoPush> {
    _slots: PhantomData<SlotTypes<S, H, P>>,
    _uninhabited: Infallible,
}

/// `fn() -> ..` keeps the markers out of auto traits and variance: a claim set is only a type.
type SlotTypes<S, H, P> = fn() -> (S, H, P);

impl<S, H, P> fmt::Debug for Claims<S, H, P> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self._uninhabited {}
    }
}

impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> sealed::Sealed for Claims<S, H, P> {}

/// A marker for the streaming slot of [`Claims`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not belong in the streaming slot of `Claims<S, H, P>`",
    note = "the streaming slot takes `NoStreaming`, `Streaming` or `StreamingVerified`"
)]
pub trait StreamingSlot: sealed::Sealed {
    /// How far the streaming claim has come.
    const STATUS: ClaimStatus;
    /// The marker once this slot's claim is verified (the same marker when there is nothing to verify).
    type Settled: StreamingSlot;
}

/// A marker for the history slot of [`Claims`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not belong in the history slot of `Claims<S, H, P>`",
    note = "the history slot takes `NoHistory`, `History` or `HistoryVerified`"
)]
pub trait HistorySlot: sealed::Sealed {
    /// How far the history claim has come.
    const STATUS: ClaimStatus;
    /// The marker once this slot's claim is verified (the same marker when there is nothing to verify).
    type Settled: HistorySlot;
}

/// A marker for the push slot of [`Claims`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not belong in the push slot of `Claims<S, H, P>`",
    note = "the push slot takes `NoPush`, `Push` or `PushVerified`"
)]
pub trait PushSlot: sealed::Sealed {
    /// How far the push claim has come.
    const STATUS: ClaimStatus;
    /// The marker once this slot's claim is verified (the same marker when there is nothing to verify).
    type Settled: PushSlot;
}

impl StreamingSlot for NoStreaming {
    const STATUS: ClaimStatus = ClaimStatus::Unclaimed;
    type Settled = NoStreaming;
}
impl StreamingSlot for Streaming {
    const STATUS: ClaimStatus = ClaimStatus::Claimed;
    type Settled = StreamingVerified;
}
impl StreamingSlot for StreamingVerified {
    const STATUS: ClaimStatus = ClaimStatus::Verified;
    type Settled = StreamingVerified;
}
impl HistorySlot for NoHistory {
    const STATUS: ClaimStatus = ClaimStatus::Unclaimed;
    type Settled = NoHistory;
}
impl HistorySlot for History {
    const STATUS: ClaimStatus = ClaimStatus::Claimed;
    type Settled = HistoryVerified;
}
impl HistorySlot for HistoryVerified {
    const STATUS: ClaimStatus = ClaimStatus::Verified;
    type Settled = HistoryVerified;
}
impl PushSlot for NoPush {
    const STATUS: ClaimStatus = ClaimStatus::Unclaimed;
    type Settled = NoPush;
}
impl PushSlot for Push {
    const STATUS: ClaimStatus = ClaimStatus::Claimed;
    type Settled = PushVerified;
}
impl PushSlot for PushVerified {
    const STATUS: ClaimStatus = ClaimStatus::Verified;
    type Settled = PushVerified;
}

/// The type parameter of [`Handle`](crate::Handle): [`SingleShot`] or a [`Claims`] set. Sealed.
///
/// Its associated types name the marker in each capability slot; [`SingleShot`] holds no claim
/// in any of them. The gated methods of [`Handle`](crate::Handle) are bounded on these (`where
/// C::Streaming: HasStreamingClaim`), so calling one on a handle that lacks the claim,
/// `Handle<SingleShot>` included, is the same domain-worded error rather than "method not found".
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a task state",
    note = "a task handle is `Task<SingleShot>` or `Task<Claims<S, H, P>>`"
)]
pub trait ClaimSet: sealed::Sealed {
    /// The claim statuses in [`Capability::ALL`](crate::Capability::ALL) order, or `None` for
    /// [`SingleShot`], which tracks no lifecycle.
    const SLOTS: Option<[ClaimStatus; 3]>;
    /// The streaming slot's marker ([`NoStreaming`] for [`SingleShot`]).
    type Streaming: StreamingSlot;
    /// The history slot's marker ([`NoHistory`] for [`SingleShot`]).
    type History: HistorySlot;
    /// The push slot's marker ([`NoPush`] for [`SingleShot`]).
    type Push: PushSlot;
    /// This set with the streaming slot verified: what `settle_streaming` returns.
    type StreamingSettled: ClaimSet;
    /// This set with the history slot verified: what `settle_history` returns.
    type HistorySettled: ClaimSet;
    /// This set with the push slot verified: what `settle_push` returns.
    type PushSettled: ClaimSet;
}

impl ClaimSet for SingleShot {
    const SLOTS: Option<[ClaimStatus; 3]> = None;
    type Streaming = NoStreaming;
    type History = NoHistory;
    type Push = NoPush;
    type StreamingSettled = SingleShot;
    type HistorySettled = SingleShot;
    type PushSettled = SingleShot;
}

impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> ClaimSet for Claims<S, H, P> {
    const SLOTS: Option<[ClaimStatus; 3]> = Some([S::STATUS, H::STATUS, P::STATUS]);
    type Streaming = S;
    type History = H;
    type Push = P;
    type StreamingSettled = Claims<S::Settled, H, P>;
    type HistorySettled = Claims<S, H::Settled, P>;
    type PushSettled = Claims<S, H, P::Settled>;
}

/// A claim set that tracks the task's lifecycle: every [`Claims`] set, never [`SingleShot`]. Sealed.
///
/// Bounds the calls that observe or poll a task, so calling one on the fallback handle names what
/// is wrong instead of "no method named ...".
#[diagnostic::on_unimplemented(
    message = "a single-shot task handle tracks no lifecycle",
    label = "needs a tracked handle (`Task<Claims<..>>`); this one is `{Self}`",
    note = "after a refusal only the single-shot send is left (`send_message` on the client's handle, \
            `single_shot_send` on the typestate's); a new task starts from a new handle"
)]
pub trait Tracked: ClaimSet {}
impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> Tracked for Claims<S, H, P> {}

// Capability traits: one per operation family, written once, implemented by every marker that
// allows it (rp-hal's `where MODE: Readable`).

/// A streaming slot holding a streaming claim, verified or not. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle has no streaming claim",
    label = "needs a streaming claim; this handle's streaming slot is `{Self}`",
    note = "a streaming claim comes only from a card declaring `capabilities.streaming: true`: get the task \
            as `Task<Claims<Streaming, ..>>` (`client.task::<Claims<Streaming>>(url)`, or `Task::try_from` on a \
            `DynTask`; `Handle` and `DynHandle` in `a2a-typestate` alone)",
    note = "a `Task<SingleShot>` (the fallback after a refusal) holds no claim at all: it offers only the \
            single-shot send (`send_message` on the client's handle, `single_shot_send` on the typestate's)"
)]
pub trait HasStreamingClaim: StreamingSlot {}
impl HasStreamingClaim for Streaming {}
impl HasStreamingClaim for StreamingVerified {}

/// A history slot holding a state-transition-history claim, verified or not. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle has no state-transition history claim",
    label = "needs a history claim; this handle's history slot is `{Self}`",
    note = "a history claim comes only from a card declaring `stateTransitionHistory: true` (0.3, or a 1.0 \
            card carrying it as a legacy field): get the task as `Task<Claims<_, History, _>>` \
            (`client.task::<Claims<NoStreaming, History>>(url)`, or `Task::try_from` on a `DynTask`; \
            `Handle` and `DynHandle` in `a2a-typestate` alone)",
    note = "a `Task<SingleShot>` (the fallback after a refusal) holds no claim at all: it offers only the \
            single-shot send (`send_message` on the client's handle, `single_shot_send` on the typestate's)"
)]
pub trait HasHistoryClaim: HistorySlot {}
impl HasHistoryClaim for History {}
impl HasHistoryClaim for HistoryVerified {}

/// A push slot holding a push-notification claim, verified or not. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle has no push-notification claim",
    label = "needs a push claim; this handle's push slot is `{Self}`",
    note = "a push claim comes only from a card declaring `capabilities.pushNotifications: true`: get the \
            task as `Task<Claims<_, _, Push>>` (`client.task::<Claims<NoStreaming, NoHistory, Push>>(url)`, \
            or `Task::try_from` on a `DynTask`; \
            `Handle` and `DynHandle` in `a2a-typestate` alone)",
    note = "a `Task<SingleShot>` (the fallback after a refusal) holds no claim at all: it offers only the \
            single-shot send (`send_message` on the client's handle, `single_shot_send` on the typestate's)"
)]
pub trait HasPushClaim: PushSlot {}
impl HasPushClaim for Push {}
impl HasPushClaim for PushVerified {}

/// A streaming slot whose claim has been verified. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle's streaming claim is not verified",
    label = "relies on a verified streaming claim; this handle's streaming slot is `{Self}`",
    note = "exercise the claim first (`send_streaming_message` on the client's `Task<Claims<Streaming, ..>>`), \
            then `settle_streaming` turns `Streaming` into `StreamingVerified`"
)]
pub trait HasVerifiedStreaming: HasStreamingClaim {}
impl HasVerifiedStreaming for StreamingVerified {}

/// A history slot whose claim has been verified. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle's state-transition history claim is not verified",
    label = "relies on a verified history claim; this handle's history slot is `{Self}`",
    note = "exercise the claim first (`get_task_history` on the client's `Task<Claims<_, History, _>>`), then \
            `settle_history` turns `History` into `HistoryVerified`"
)]
pub trait HasVerifiedHistory: HasHistoryClaim {}
impl HasVerifiedHistory for HistoryVerified {}

/// A push slot whose claim has been verified. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle's push-notification claim is not verified",
    label = "relies on a verified push claim; this handle's push slot is `{Self}`",
    note = "exercise the claim first (`watch_push` before the first send, then `await_push_callback` on the \
            client's `Task<Claims<_, _, Push>>`), then `settle_push` turns `Push` into `PushVerified`"
)]
pub trait HasVerifiedPush: HasPushClaim {}
impl HasVerifiedPush for PushVerified {}

// What each `settle_*` takes: a claim set whose slot holds the claim, still unverified. What it
// returns is `ClaimSet`'s associated type, defined for every set, so the signature is always well
// formed and a handle without the claim fails on this bound alone, in these words, not E0599.

/// A claim set holding an unverified streaming claim: what `settle_streaming` takes. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle holds no unverified streaming claim to settle",
    label = "`settle_streaming` needs the streaming slot to be `Streaming`; this handle is `Task<{Self}>`",
    note = "`settle_streaming` turns `Task<Claims<Streaming, ..>>` into `Task<Claims<StreamingVerified, ..>>`: get \
            the handle with `client.task::<Claims<Streaming>>(url)` and exercise the claim with \
            `send_streaming_message` first",
    note = "a verified claim is settled already, and a `Task<SingleShot>` (the fallback after a refusal) holds \
            no claim to settle"
)]
pub trait SettlesStreaming: ClaimSet {}
impl<H: HistorySlot, P: PushSlot> SettlesStreaming for Claims<Streaming, H, P> {}

/// A claim set holding an unverified state-transition history claim: what `settle_history` takes.
/// Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle holds no unverified state-transition history claim to settle",
    label = "`settle_history` needs the history slot to be `History`; this handle is `Task<{Self}>`",
    note = "`settle_history` turns `Task<Claims<_, History, _>>` into `Task<Claims<_, HistoryVerified, _>>`: the \
            claim comes from a 0.3 card's `stateTransitionHistory` (1.0 cards carry it only as a legacy field); \
            get the handle with `client.task::<Claims<NoStreaming, History>>(url)` and exercise it with \
            `get_task_history` first",
    note = "a verified claim is settled already, and a `Task<SingleShot>` (the fallback after a refusal) holds \
            no claim to settle"
)]
pub trait SettlesHistory: ClaimSet {}
impl<S: StreamingSlot, P: PushSlot> SettlesHistory for Claims<S, History, P> {}

/// A claim set holding an unverified push-notification claim: what `settle_push` takes. Sealed.
#[diagnostic::on_unimplemented(
    message = "this task handle holds no unverified push-notification claim to settle",
    label = "`settle_push` needs the push slot to be `Push`; this handle is `Task<{Self}>`",
    note = "`settle_push` turns `Task<Claims<_, _, Push>>` into `Task<Claims<_, _, PushVerified>>`: get the \
            handle with `client.task::<Claims<NoStreaming, NoHistory, Push>>(url)` and exercise the claim with \
            `watch_push` and `await_push_callback` first",
    note = "a verified claim is settled already, and a `Task<SingleShot>` (the fallback after a refusal) holds \
            no claim to settle"
)]
pub trait SettlesPush: ClaimSet {}
impl<S: StreamingSlot, H: HistorySlot> SettlesPush for Claims<S, H, Push> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_sets_report_their_slots_in_capability_order() {
        assert_eq!(SingleShot::SLOTS, None);
        assert_eq!(
            <Claims<StreamingVerified, NoHistory, Push>>::SLOTS,
            Some([ClaimStatus::Verified, ClaimStatus::Unclaimed, ClaimStatus::Claimed])
        );
        assert_eq!(<Claims>::SLOTS, Some([ClaimStatus::Unclaimed; 3]));
    }

    #[test]
    fn markers_are_zero_sized() {
        assert_eq!(size_of::<PhantomData<fn() -> Claims<StreamingVerified, History, PushVerified>>>(), 0);
        assert_eq!(size_of::<Streaming>(), 0);
    }
}
