//! The task handle: one task against one agent, whose type says which of the card's claims it
//! holds, and the one engine every way of running a task goes through.
//!
//! A handle starts from a discovered card: [`Client::task`] narrows it at once to the claims the
//! caller depends on (`Task<Claims<Streaming, History>>`); [`Client::dyn_task`] gives the dynamic
//! [`DynTask`] holding every claim the card makes, narrowed later with `Task::try_from` (which hands
//! it back on failure). The calls carry the spec's names and exist only where the type holds the
//! claim they exercise:
//!
//! | call | needs |
//! | --- | --- |
//! | [`send_streaming_message`](Task::send_streaming_message), [`subscribe_to_task`](Task::subscribe_to_task) | a streaming claim |
//! | [`get_task_history`](Task::get_task_history) | a state-transition history claim |
//! | [`watch_push`](Task::watch_push), [`create_task_push_notification_config`](Task::create_task_push_notification_config), [`await_push_callback`](Task::await_push_callback) | a push claim |
//! | [`send_message`](Task::send_message), [`get_task`](Task::get_task), [`cancel_task`](Task::cancel_task) | a tracked handle (`Claims<..>`) |
//! | [`send_message`](Task::<SingleShot>::send_message) (blocking, single-shot) | `Task<SingleShot>` |
//!
//! Each send is one *turn*: the message goes out, then one event loop feeds the handle with what
//! arrives, in arrival order — stream events, push callbacks, poll ticks, deadlines — until the
//! turn ends (a terminal state, a new question, a direct answer), a claim is refused, or a bound
//! runs out (a [`LifecycleFault`](crate::LifecycleFault): no progress past the unobservable bound,
//! or the task deadline). Then `settle_*` consumes the handle and returns it verified, still
//! pending, or a [`Refusal`] carrying the handle downgraded to `Task<SingleShot>`, whose only call
//! is the single-shot send; a refusal also marks the agent capability-suspect in the discovery
//! cache, however it was settled. [`Client::run_task`](crate::Client::run_task) is the dynamic driver
//! over these same calls.
//!
//! ```
//! use a2a_typestate_client::{Claims, Client, NoHistory, NoPush, Settlement, Streaming, Task};
//! use a2a_typestate_client::negotiate::Negotiation;
//! use a2a_testkit::{Lie, Script, ScriptedAgent};
//! use a2a_typestate_types::{Message, SendMessageResponse};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A card claiming streaming, from an agent whose artifact only comes through GetTask.
//! let agent = ScriptedAgent::builder().script(Script::honest().with(Lie::StreamWithoutArtifact)).spawn().await?;
//! let client = Client::builder().build()?;
//! let mut task: Task<Claims<Streaming>> = client.task(&agent.base_url()).await?;
//!
//! task.send_streaming_message(Message::user_text("m1", "hi")).await?; // exists: streaming is claimed
//! match task.settle_streaming() {
//!     Ok(Settlement::Verified(task)) => { let _ = task.handle().rely_on_streaming(); }
//!     Ok(Settlement::Pending(_task, why)) => println!("pending: {why}"),
//!     Err(refusal) => {
//!         println!("{}", refusal.violation());
//!         // Only the single-shot send is left (`single_shot.send_streaming_message(..)` does not compile).
//!         let single_shot = refusal.into_task();
//!         let answer = single_shot.send_message(Message::user_text("m2", "hi"), &Negotiation::default()).await?;
//!         assert!(matches!(answer, SendMessageResponse::Task(_))); // the fallback's result
//!     }
//! }
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod calls;
mod pump;
mod session;
pub(crate) mod snapshot;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use a2a_typestate::{
    CapabilitySet, ClaimSet, Claims, Deployment, Elapsed, HistorySlot, HistoryVerified, NarrowingError,
    PushSlot, PushVerified, Refusal, SettleResult, Settlement, SingleShot, StreamingSlot, StreamingVerified,
};
use a2a_typestate_types::{SendMessageResponse, TaskState};

use crate::{AgentConnection, Client, Error};
pub(crate) use session::Session;

/// A call on a task handle: a future of its result. Boxed so a call the handle's type does not
/// allow reports its compile error once, at the call.
pub type TaskCall<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// One task against one agent whose type says which of the card's claims it holds: the calls
/// that exercise a claim exist only when the type holds it. See [the module docs](self) and
/// [`a2a_typestate::Task`] for the states.
///
/// Not `Clone`: each `settle_*` takes the handle, so one consumed by a refusal cannot be used again.
pub struct Task<C: ClaimSet = SingleShot> {
    session: Session,
    handle: a2a_typestate::Task<C>,
}

/// A task against one agent holding every claim its card makes, known only at run time: for code
/// that holds many agents, and what a [`Task`] is narrowed from (`Task::try_from`, which hands this
/// back on failure). The same calls as [`Task`], checked at run time.
pub struct DynTask {
    session: Session,
    handle: a2a_typestate::DynTask,
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

impl Client {
    /// A new task handle on the agent at `agent` (its base URL, through the discovery cache),
    /// narrowed to the claims `C` depends on.
    ///
    /// # Errors
    /// As [`Client::connect`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) when the card does
    /// not claim what `C` holds (use [`Client::dyn_task`] and `Task::try_from` to get the handle
    /// back instead).
    pub async fn task<C: ClaimSet>(&self, agent: &str) -> Result<Task<C>, Error> {
        let handle = self.dyn_task(agent).await?;
        Task::try_from(handle).map_err(|error| Error::misuse(error.to_string()))
    }

    /// A new dynamic task handle on the agent at `agent`, holding every claim its card makes.
    ///
    /// # Errors
    /// As [`Client::connect`].
    pub async fn dyn_task(&self, agent: &str) -> Result<DynTask, Error> {
        Ok(self.connect(agent).await?.dyn_task(Deployment::Direct))
    }
}

impl AgentConnection {
    /// A new dynamic task handle on this connection: the card's claims as read when it was
    /// discovered (lifted once and shared), judged against the client's bounds; a gateway
    /// (`deployment`) yields none. The handle's clock starts now.
    pub fn dyn_task(&self, deployment: Deployment) -> DynTask {
        let claims = self.card().claims(deployment);
        let handle = a2a_typestate::DynTask::new(claims, self.client().config().verifier_bounds());
        DynTask { session: Session::new(self.clone()), handle }
    }
}

impl<C: ClaimSet> Task<C> {
    /// The typestate handle: its type, permits, verdicts and `rely_on_*`.
    pub fn handle(&self) -> &a2a_typestate::Task<C> {
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

    /// The task's state as last seen outside push.
    pub fn state(&self) -> Option<TaskState> {
        self.session.last_state
    }

    /// Requests this handle made (zero for a single-shot send).
    pub fn round_trips(&self) -> u64 {
        self.session.round_trips
    }

    /// Forgets the type: a [`DynTask`] with every observation kept.
    pub fn into_dyn(self) -> DynTask {
        DynTask { session: self.session, handle: self.handle.into_dyn() }
    }

    /// Gives up every claim: the lifecycle-agnostic fallback, by choice.
    pub fn into_single_shot(self) -> Task<SingleShot> {
        Task { session: self.session, handle: self.handle.into_single_shot() }
    }

    fn resettle<V: ClaimSet>(
        session: Session,
        settled: SettleResult<a2a_typestate::Task<V>, a2a_typestate::Task<C>>,
    ) -> SettleResult<Task<V>, Self, Task<SingleShot>> {
        match settled {
            Ok(Settlement::Verified(handle)) => Ok(Settlement::Verified(Task { session, handle })),
            Ok(Settlement::Pending(handle, why)) => Ok(Settlement::Pending(Task { session, handle }, why)),
            Err(refusal) => {
                session.after_refusal(std::slice::from_ref(refusal.violation()));
                Err(refusal.map_task(|handle| Task { session, handle }))
            }
        }
    }
}

impl Session {
    /// What every refusal leads to, whichever handle settled it: counted, and the agent marked
    /// capability-suspect in the discovery cache (unless marks are off) so its next tasks go
    /// single-shot at once.
    fn after_refusal(&self, violations: &[a2a_typestate::AgentCardLifecycleViolation]) {
        let client = self.conn.client();
        for violation in violations {
            client.metrics().record_refusal(violation.capability());
            if client.config().suspect_marks() == crate::SuspectMarks::On {
                client.discovery_cache().mark_suspect(
                    self.conn.agent(),
                    violation.capability(),
                    violation.to_string(),
                );
            }
        }
    }
}

impl<H: HistorySlot, P: PushSlot> Task<Claims<a2a_typestate::Streaming, H, P>> {
    /// Asks the verifier about the streaming claim now and moves the handle accordingly.
    ///
    /// # Errors
    /// A [`Refusal`] carrying the handle downgraded to `Task<SingleShot>` when all three refusal
    /// conditions held.
    pub fn settle_streaming(
        self,
    ) -> SettleResult<Task<Claims<StreamingVerified, H, P>>, Self, Task<SingleShot>> {
        let now = self.elapsed();
        Self::resettle(self.session, self.handle.settle_streaming(now))
    }
}

impl<S: StreamingSlot, P: PushSlot> Task<Claims<S, a2a_typestate::History, P>> {
    /// Asks the verifier about the state-transition history claim now.
    ///
    /// # Errors
    /// A [`Refusal`] when all three refusal conditions held (its advice: abandon the task).
    pub fn settle_history(self) -> SettleResult<Task<Claims<S, HistoryVerified, P>>, Self, Task<SingleShot>> {
        let now = self.elapsed();
        Self::resettle(self.session, self.handle.settle_history(now))
    }
}

impl<S: StreamingSlot, H: HistorySlot> Task<Claims<S, H, a2a_typestate::Push>> {
    /// Asks the verifier about the push claim now (an absent callback is a refusal only once the
    /// task ended and the arrival bound ran out: [`await_push_callback`](Task::await_push_callback)
    /// waits for that).
    ///
    /// # Errors
    /// A [`Refusal`] when all three refusal conditions held.
    pub fn settle_push(self) -> SettleResult<Task<Claims<S, H, PushVerified>>, Self, Task<SingleShot>> {
        let now = self.elapsed();
        Self::resettle(self.session, self.handle.settle_push(now))
    }
}

impl DynTask {
    /// The typestate handle: which claims it holds, its verdicts.
    pub fn handle(&self) -> &a2a_typestate::DynTask {
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

    /// The task's state as last seen outside push.
    pub fn state(&self) -> Option<TaskState> {
        self.session.last_state
    }

    /// Requests this handle made.
    pub fn round_trips(&self) -> u64 {
        self.session.round_trips
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
    /// A [`Refusal`] for the first refused claim (by evidence), carrying the handle downgraded to
    /// `Task<SingleShot>`.
    pub fn settle(self) -> Result<Self, Refusal<Task<SingleShot>>> {
        let now = self.elapsed();
        let refused: Vec<_> = self
            .handle
            .verifier()
            .verdicts(now)
            .into_iter()
            .filter_map(|(_, v)| v.violation().cloned())
            .collect();
        let DynTask { session, handle } = self;
        match handle.settle(now) {
            Ok(handle) => Ok(DynTask { session, handle }),
            Err(refusal) => {
                session.after_refusal(&refused);
                Err(refusal.map_task(|handle| Task { session, handle }))
            }
        }
    }

    /// Gives up every claim: the lifecycle-agnostic fallback.
    pub fn into_single_shot(self) -> Task<SingleShot> {
        let DynTask { session, handle } = self;
        let handle = a2a_typestate::Task::<SingleShot>::try_from(handle)
            .unwrap_or_else(|error| error.into_handle().into_single_shot());
        Task { session, handle }
    }
}

/// Narrowing, as [`a2a_typestate::Task::try_from`]: every claim `C` holds must be held by the card;
/// an unclaimed slot drops the claim (the caller does not depend on it). The error hands the
/// [`DynTask`] back.
impl<C: ClaimSet> TryFrom<DynTask> for Task<C> {
    type Error = NarrowingError<DynTask>;

    fn try_from(dyn_task: DynTask) -> Result<Self, NarrowingError<DynTask>> {
        let DynTask { session, handle } = dyn_task;
        match a2a_typestate::Task::<C>::try_from(handle) {
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
