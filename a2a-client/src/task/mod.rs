//! The task handle: one task against one agent, whose type says which of the card's claims it
//! holds, and the one engine every way of running a task goes through.
//!
//! A handle starts from a discovered card: [`Client::task`](crate::Client::task) narrows it at once
//! to the claims the caller depends on (`Task<Claims<Streaming>>`), or hands out the single-shot
//! handle with the mark when the agent is capability-suspect ([`TaskEntry`]);
//! [`Client::dyn_task`](crate::Client::dyn_task) gives the dynamic [`DynTask`] holding every claim
//! the card makes, narrowed later with `Task::try_from` (which hands it back on failure). The calls
//! carry the spec's names and exist only where the type holds the claim they exercise:
//!
//! | call | needs |
//! | --- | --- |
//! | [`send_streaming_message`](Task::send_streaming_message), [`subscribe_to_task`](Task::subscribe_to_task) | a streaming claim |
//! | [`get_task_history`](Task::get_task_history) | a state-transition history claim (0.3 cards, or the legacy 1.0 field) |
//! | [`watch_push`](Task::watch_push), [`create_task_push_notification_config`](Task::create_task_push_notification_config), [`await_push_callback`](Task::await_push_callback) | a push claim |
//! | [`get_task`](Task::get_task), [`cancel_task`](Task::cancel_task) | a tracked handle (`Claims<..>`) |
//! | [`send_message`](Task::send_message) | any handle: polled on a tracked one, the blocking single-shot send on `Task<SingleShot>` |
//!
//! Each send is one *turn*: the message goes out, then one event loop feeds the handle with what
//! arrives, in arrival order — stream events, push callbacks, poll ticks, deadlines — until the
//! turn ends (a terminal state, a new question, a direct answer), a claim is contradicted, or a
//! bound runs out (a [`LifecycleFault`](crate::LifecycleFault): no progress past the unobservable
//! bound, or the task deadline). A contradiction is never an error: the call returns
//! [`Answer::Contradicted`], and `settle_*` then consumes the handle and returns it verified, still
//! pending, or a [`Refusal`] carrying the handle downgraded to `Task<SingleShot>`, whose only call
//! is the single-shot send; a refusal also marks the agent capability-suspect in the discovery
//! cache, however it was settled. [`Client::run_task`](crate::Client::run_task) is the dynamic
//! driver over these same calls.
//!
//! ```
//! use a2a_typestate_client::negotiate::AfterRefusal;
//! use a2a_typestate_client::{Claims, Client, Message, Settlement, Streaming, Task, TaskEntry};
//! # use a2a_testkit::{Lie, Script, ScriptedAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A card claiming streaming, from an agent that answers "not supported" to a stream (a
//! // scripted agent stands in for it here).
//! # let agent = ScriptedAgent::builder().script(Script::honest().with(Lie::StreamingRefused)).spawn().await?;
//! # let url = agent.base_url();
//! let client = Client::builder().build()?;
//! let TaskEntry::Claimed(mut task) = client.task::<Claims<Streaming>>(&url).await? else {
//!     unreachable!("a new client holds no suspect mark");
//! };
//!
//! let answer = task.send_streaming_message(Message::user("hi").with_message_id("m1")).await?; // no error
//! assert!(answer.is_contradicted());
//! match task.settle_streaming() {
//!     Ok(Settlement::Verified(task)) => { let _ = task.handle().rely_on_streaming(); }
//!     Ok(Settlement::Pending(_task, why)) => println!("pending: {why}"),
//!     Err(refusal) => {
//!         println!("{}", refusal.violation());
//!         // Only the single-shot calls are left (`single_shot.send_streaming_message(..)` does not
//!         // compile); `fall_back` keeps a finished task's answer, or sends the message once.
//!         let single_shot: Task = refusal.into_task();
//!         let fallback = single_shot.fall_back(Message::user("hi"), AfterRefusal::FollowToEnd).await?;
//!         assert_eq!(fallback.text().as_deref(), Some("echo: hi")); // the fallback's result
//!     }
//! }
//! // The agent is suspect now: the next typed entry is the single-shot handle, with the mark.
//! assert!(matches!(client.task::<Claims<Streaming>>(&url).await?, TaskEntry::Suspect(..)));
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod answer;
mod calls;
pub(crate) mod follow_up;
mod pump;
mod push;
mod session;
pub(crate) mod snapshot;
mod updates;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use a2a_typestate::{
    Capability, CapabilitySet, ClaimSet, Deployment, Elapsed, HistorySettled, NarrowingError, PushSettled,
    Refusal, SettleResult, Settlement, SettlesHistory, SettlesPush, SettlesStreaming, SingleShot,
    StreamingSettled,
};
use a2a_typestate_types::{SendMessageResponse, TaskState};

use crate::{AgentConnection, Error, SuspectMark};
pub use answer::Answer;
pub use push::{PushRegistrationAnswer, PushRegistrationAttempt, PushRegistrationPath};
use session::Session;
use session::SingleShotReason;
pub use session::UnreachableInterface;
pub use updates::OnUpdate;

/// A call on a task handle: a future of its result. Boxed so a call the handle's type does not
/// allow reports its compile error once, at the call.
pub type TaskCall<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// One task against one agent whose type says which of the card's claims it holds: the calls
/// that exercise a claim exist only when the type holds it. See [the module docs](self) and
/// [`a2a_typestate::Handle`] for the states.
///
/// Not `Clone`: each `settle_*` takes the handle, so one consumed by a refusal cannot be used again.
pub struct Task<C: ClaimSet = SingleShot> {
    session: Session,
    handle: a2a_typestate::Handle<C>,
}

/// A task against one agent holding every claim its card makes, known only at run time: for code
/// that holds many agents, and what a [`Task`] is narrowed from (`Task::try_from`, which hands this
/// back on failure). The same calls as [`Task`], checked at run time.
pub struct DynTask {
    session: Session,
    handle: a2a_typestate::DynHandle,
}

impl<C: ClaimSet> fmt::Debug for Task<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("agent", self.session.conn.agent())
            .field("handle", &self.handle)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for DynTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynTask")
            .field("agent", self.session.conn.agent())
            .field("handle", &self.handle)
            .finish_non_exhaustive()
    }
}

impl AgentConnection {
    /// A new dynamic task handle on this connection: the card's claims as read when it was
    /// discovered (lifted once and shared), judged against the client's bounds; a gateway
    /// (`deployment`) yields none. The handle's clock starts now.
    pub fn dyn_task(&self, deployment: Deployment) -> DynTask {
        let claims = self.card().claims(deployment);
        let handle = a2a_typestate::DynHandle::new(claims, self.client().config().verifier_bounds());
        DynTask { session: Session::new(self.clone()), handle }
    }
}

impl<C: ClaimSet> Task<C> {
    /// The typestate handle: its type, permits, verdicts and `rely_on_*`.
    pub fn handle(&self) -> &a2a_typestate::Handle<C> {
        &self.handle
    }

    /// The connection the calls go through.
    pub fn connection(&self) -> &AgentConnection {
        &self.session.conn
    }

    /// Time elapsed on this handle's clock.
    pub fn elapsed(&self) -> Elapsed {
        self.session.now()
    }

    /// The task (or direct message) as last seen: what the agent answered, folded from every send
    /// answer, stream event and `GetTask`.
    pub fn result(&self) -> Option<SendMessageResponse> {
        self.session.snapshot.response()
    }

    /// The result as seen so far, moved out: what the handle saw is forgotten, as its next
    /// single-shot send forgets it anyway.
    pub(crate) fn take_result(&mut self) -> Option<SendMessageResponse> {
        self.session.snapshot.take_response()
    }

    /// The observer set with `set_on_update`, which the refused task's cancel reports to as well.
    pub(crate) fn on_update(&self) -> Option<&OnUpdate> {
        self.session.on_update.as_ref()
    }

    /// The task's state as last seen outside push.
    pub fn state(&self) -> Option<TaskState> {
        self.session.last_state
    }

    /// Requests this handle made (zero for a single-shot send).
    pub fn round_trips(&self) -> u64 {
        self.session.round_trips
    }

    /// Every attempt to register this task's webhook, in order, with what the agent answered.
    pub fn push_registration_attempts(&self) -> &[PushRegistrationAttempt] {
        &self.session.push.attempts
    }

    /// The declared interfaces this task could not reach before the agent answered, in the order
    /// tried: its calls went on on the next one ([`Self::connection`] is the one in use).
    pub fn unreachable_interfaces(&self) -> &[UnreachableInterface] {
        &self.session.unreachable
    }

    /// The deviations from the 1.0 wire format read on this handle's connection (empty unless the
    /// client reads tolerantly, [`WireReading::Tolerant`](crate::WireReading::Tolerant)).
    pub fn wire_deviations(&self) -> Vec<crate::WireDeviation> {
        self.session.conn.wire_deviations()
    }

    /// Forgets the type: a [`DynTask`] with every observation kept.
    pub fn into_dyn(self) -> DynTask {
        DynTask { session: self.session, handle: self.handle.into_dyn() }
    }

    /// Gives up every claim: the lifecycle-agnostic fallback, by choice.
    pub fn into_single_shot(mut self) -> Task<SingleShot> {
        self.session.single_shot.get_or_insert(SingleShotReason::Chosen);
        Task { session: self.session, handle: self.handle.into_single_shot() }
    }

    fn resettle<V: ClaimSet>(
        mut session: Session,
        capability: Capability,
        settled: SettleResult<a2a_typestate::Handle<V>, a2a_typestate::Handle<C>>,
    ) -> SettleResult<Task<V>, Self, Task<SingleShot>> {
        match settled {
            Ok(Settlement::Verified(handle)) => {
                let now = session.now();
                if let Some(verdict) = a2a_typestate::TaskHandle::verifier(&handle).verdict(capability, now) {
                    Session::claim_verified(capability, &verdict);
                }
                Ok(Settlement::Verified(Task { session, handle }))
            }
            Ok(Settlement::Pending(handle, why)) => Ok(Settlement::Pending(Task { session, handle }, why)),
            Err(refusal) => {
                session.after_refusal(refusal.violations());
                Err(refusal.map_task(|handle| Task { session, handle }))
            }
        }
    }
}

// The settles, written once over every claim set and bounded on the trait naming the slot they
// upgrade, so a handle without the unverified claim reads the domain's words, not E0599.
impl<C: ClaimSet> Task<C> {
    /// Asks the verifier about the streaming claim now and moves the handle accordingly: verified
    /// (`Streaming` becomes `StreamingVerified`), still pending with the reason, or refused.
    ///
    /// # Errors
    /// A [`Refusal`] carrying the handle downgraded to `Task<SingleShot>` when all three refusal
    /// conditions held: its violation is the one that decides among every claim this handle checks
    /// (first by evidence), and every refused claim marks the agent capability-suspect.
    pub fn settle_streaming(self) -> SettleResult<Task<StreamingSettled<C>>, Self, Task<SingleShot>>
    where
        C: SettlesStreaming,
    {
        let now = self.elapsed();
        Self::resettle(self.session, Capability::Streaming, self.handle.settle_streaming(now))
    }

    /// Asks the verifier about the state-transition history claim now.
    ///
    /// # Errors
    /// A [`Refusal`] when all three refusal conditions held (its advice: abandon the task).
    pub fn settle_history(self) -> SettleResult<Task<HistorySettled<C>>, Self, Task<SingleShot>>
    where
        C: SettlesHistory,
    {
        let now = self.elapsed();
        Self::resettle(self.session, Capability::StateTransitionHistory, self.handle.settle_history(now))
    }

    /// Asks the verifier about the push claim now (an absent callback is a refusal only once the
    /// task ended and the arrival bound ran out: [`await_push_callback`](Task::await_push_callback)
    /// waits for that).
    ///
    /// # Errors
    /// A [`Refusal`] when all three refusal conditions held.
    pub fn settle_push(self) -> SettleResult<Task<PushSettled<C>>, Self, Task<SingleShot>>
    where
        C: SettlesPush,
    {
        let now = self.elapsed();
        Self::resettle(self.session, Capability::PushNotifications, self.handle.settle_push(now))
    }
}

/// What [`Client::task`](crate::Client::task) hands out: the typed handle to negotiate with, or,
/// for an agent already caught over-declaring (a suspect mark inside its TTL), the single-shot
/// handle with the mark, so the caller sends at once with no negotiation round trip.
#[derive(Debug)]
pub enum TaskEntry<C: ClaimSet> {
    /// The card makes the claims `C` holds: exercise them, then settle.
    Claimed(Task<C>),
    /// The agent is capability-suspect: only the single-shot send, and why.
    Suspect(Task<SingleShot>, SuspectMark),
}

impl<C: ClaimSet> TaskEntry<C> {
    /// The typed handle, or the single-shot one with its mark.
    ///
    /// # Errors
    /// The single-shot handle and the mark when the agent is suspect.
    // The error is the other variant's contents, handed back whole as narrowing does: both sides
    // hold a handle, so boxing one would only move the size, not save it.
    #[allow(clippy::result_large_err)]
    pub fn claimed(self) -> Result<Task<C>, (Task<SingleShot>, SuspectMark)> {
        match self {
            Self::Claimed(task) => Ok(task),
            Self::Suspect(task, mark) => Err((task, mark)),
        }
    }

    /// The mark, when the agent is suspect.
    pub fn suspect_mark(&self) -> Option<&SuspectMark> {
        match self {
            Self::Claimed(_) => None,
            Self::Suspect(_, mark) => Some(mark),
        }
    }
}

impl DynTask {
    /// The typestate handle: which claims it holds, its verdicts.
    pub fn handle(&self) -> &a2a_typestate::DynHandle {
        &self.handle
    }

    /// The connection the calls go through.
    pub fn connection(&self) -> &AgentConnection {
        &self.session.conn
    }

    /// Time elapsed on this handle's clock.
    pub fn elapsed(&self) -> Elapsed {
        self.session.now()
    }

    /// The task (or direct message) as last seen.
    pub fn result(&self) -> Option<SendMessageResponse> {
        self.session.snapshot.response()
    }

    /// The result, moved out of a handle that ends here (no copy of a large result).
    pub(crate) fn into_result(mut self) -> Option<SendMessageResponse> {
        self.session.snapshot.take_response()
    }

    /// The task's state as last seen outside push.
    pub fn state(&self) -> Option<TaskState> {
        self.session.last_state
    }

    /// Requests this handle made.
    pub fn round_trips(&self) -> u64 {
        self.session.round_trips
    }

    /// Every attempt to register this task's webhook, in order, with what the agent answered.
    pub fn push_registration_attempts(&self) -> &[PushRegistrationAttempt] {
        &self.session.push.attempts
    }

    /// The declared interfaces this task could not reach before the agent answered, in the order
    /// tried: its calls went on on the next one ([`Self::connection`] is the one in use).
    pub fn unreachable_interfaces(&self) -> &[UnreachableInterface] {
        &self.session.unreachable
    }

    /// The deviations from the 1.0 wire format read on this handle's connection (empty unless the
    /// client reads tolerantly, [`WireReading::Tolerant`](crate::WireReading::Tolerant)).
    pub fn wire_deviations(&self) -> Vec<crate::WireDeviation> {
        self.session.conn.wire_deviations()
    }

    /// Keeps only the claims in `depends`: the caller's path depends on no other (refusal
    /// condition 1), so nothing else is checked. Never adds a claim.
    pub fn depend_only_on(&mut self, depends: CapabilitySet) {
        self.handle.depend_only_on(depends);
    }

    /// The claims the verifier has verified so far.
    pub fn verified(&self) -> CapabilitySet {
        let now = self.elapsed();
        self.handle
            .verifier()
            .verdicts(now)
            .into_iter()
            .filter(|(_, verdict)| verdict.is_verified())
            .map(|(capability, _)| capability)
            .collect()
    }

    /// Settles every held, unverified claim now: verified ones are upgraded, pending ones stay.
    ///
    /// # Errors
    /// A [`Refusal`] for the claim whose contradiction came first (by evidence), carrying the
    /// handle downgraded to `Task<SingleShot>`; every refused claim marks the agent.
    pub fn settle(self) -> Result<Self, Refusal<Task<SingleShot>>> {
        let now = self.elapsed();
        let DynTask { mut session, handle } = self;
        // The claims upgraded before this settle, so only the ones it upgrades are recorded.
        let before = upgraded(&handle);
        match handle.settle(now) {
            Ok(handle) => {
                for (capability, verdict) in handle.verifier().verdicts(now) {
                    if upgraded(&handle).contains(capability) && !before.contains(capability) {
                        Session::claim_verified(capability, &verdict);
                    }
                }
                Ok(DynTask { session, handle })
            }
            Err(refusal) => {
                session.after_refusal(refusal.violations());
                Err(refusal.map_task(|handle| Task { session, handle }))
            }
        }
    }

    /// Takes over a task a run before a restart started ([`crate::journal`]): `task`, as `GetTask`
    /// read it, becomes this handle's task, as if its send had answered with it.
    ///
    /// # Errors
    /// As [`Self::send_message`]'s answer check: never for a handle that has no task yet.
    pub(crate) fn adopt(&mut self, task: a2a_typestate_types::Task) -> Result<(), Error> {
        self.session.on_send_response(&mut self.handle, &SendMessageResponse::Task(task))
    }

    /// Follows the adopted task with `GetTask` at the poll cadence until the turn ends (it ended,
    /// or paused for input), within the handle's bounds.
    ///
    /// # Errors
    /// As [`Self::send_message`] on a tracked handle.
    pub(crate) async fn poll_adopted(&mut self) -> Result<(), Error> {
        self.require_tracked()?;
        self.session.poll_until_turn_ends(&mut self.handle).await
    }

    /// Counts this handle's time, its task deadline included, from `at`: the start of the run it
    /// serves, so discovery is inside the deadline too.
    pub(crate) fn begin_clock_at(&mut self, at: tokio::time::Instant) {
        self.session.begin_clock_at(at);
    }

    /// The single-shot handle for an agent found capability-suspect when the task began.
    pub(crate) fn into_suspect_single_shot(mut self) -> Task<SingleShot> {
        self.session.single_shot = Some(SingleShotReason::Suspect);
        self.into_single_shot()
    }

    /// Gives up every claim: the lifecycle-agnostic fallback.
    pub fn into_single_shot(self) -> Task<SingleShot> {
        let DynTask { mut session, handle } = self;
        session.single_shot.get_or_insert(SingleShotReason::Chosen);
        let handle = a2a_typestate::Handle::<SingleShot>::try_from(handle)
            .unwrap_or_else(|error| error.into_handle().into_single_shot());
        Task { session, handle }
    }
}

/// Narrowing, as [`a2a_typestate::Handle::try_from`]: every claim `C` holds must be held by the card;
/// an unclaimed slot drops the claim (the caller does not depend on it). The error hands the
/// [`DynTask`] back.
impl<C: ClaimSet> TryFrom<DynTask> for Task<C> {
    type Error = NarrowingError<DynTask>;

    fn try_from(dyn_task: DynTask) -> Result<Self, NarrowingError<DynTask>> {
        let DynTask { session, handle } = dyn_task;
        match a2a_typestate::Handle::<C>::try_from(handle) {
            Ok(handle) => Ok(Task { session, handle }),
            Err(error) => Err(error.map_handle(|handle| DynTask { session, handle })),
        }
    }
}

impl<C: ClaimSet> From<Task<C>> for DynTask {
    fn from(task: Task<C>) -> Self {
        task.into_dyn()
    }
}

/// The claims a dynamic handle holds as verified (upgraded by a settle).
fn upgraded(handle: &a2a_typestate::DynHandle) -> CapabilitySet {
    a2a_typestate::Capability::ALL
        .iter()
        .copied()
        .filter(|c| handle.status(*c) == a2a_typestate::ClaimStatus::Verified)
        .collect()
}
