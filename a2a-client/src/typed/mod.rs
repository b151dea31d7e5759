//! The typestate gate at the I/O layer: a task handle whose network calls exist only where the
//! agent's card claims the capability they exercise.
//!
//! [`TypedTask<C>`](TypedTask) pairs an [`AgentConnection`] with an [`a2a_typestate::Task<C>`].
//! Its calls are bounded by the same capability traits as the typestate's permits, so a call the
//! card never claimed does not compile, and the error names the missing claim:
//!
//! | call | needs |
//! | --- | --- |
//! | [`send_streaming`](TypedTask::send_streaming), [`subscribe`](TypedTask::subscribe) | `C::Streaming:` [`HasStreamingClaim`](a2a_typestate::HasStreamingClaim) |
//! | [`reconstruct_history`](TypedTask::reconstruct_history) | `C::History:` [`HasHistoryClaim`](a2a_typestate::HasHistoryClaim) |
//! | [`register_push`](TypedTask::register_push), [`await_push`](TypedTask::await_push) | `C::Push:` [`HasPushClaim`](a2a_typestate::HasPushClaim) |
//! | [`send_message`](TypedTask::send_message), [`get_task`](TypedTask::get_task) | a tracked handle (`Claims<..>`) |
//! | [`single_shot_send`](TypedTask::single_shot_send) | `TypedTask<SingleShot>` only |
//!
//! Every call feeds what it observed into the inner handle (through the
//! [`a2a_typestate::wire`] adapters); `settle_streaming`, `settle_history` and `settle_push` take
//! the handle and return it verified, still pending, or refused: a [`TypedRefusal`] carrying the
//! violation and the handle downgraded to `TypedTask<SingleShot>`, the only way on.
//!
//! A handle starts dynamic ([`DynAgentTask`], holding every claim the card makes, lifted once
//! from the discovered card) and is narrowed to the claims the caller depends on with
//! `TypedTask::try_from`, which hands the dynamic handle back on failure.
//!
//! Unlike [`Client::run_task`](crate::Client::run_task), nothing here decides a path, retries a
//! refused task or marks the agent suspect: each method is one exchange, and the caller drives.
//!
//! ```
//! use a2a_client::Client;
//! use a2a_client::typed::{DynAgentTask, TypedTask};
//! use a2a_testkit::{Lie, Script, ScriptedAgent};
//! use a2a_types::{Message, SendMessageRequest, SendMessageResponse};
//! use a2a_typestate::{Claims, Deployment, NoHistory, NoPush, Settlement, StreamingClaimed};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A card claiming streaming, from an agent whose artifact only comes through GetTask.
//! let script = Script::honest().with(Lie::StreamWithoutArtifact);
//! let agent = ScriptedAgent::builder().script(script).spawn().await?;
//! let client = Client::builder().build()?;
//! let handle = DynAgentTask::connect(&client, &agent.base_url(), Deployment::Direct).await?;
//! let mut task = TypedTask::<Claims<StreamingClaimed, NoHistory, NoPush>>::try_from(handle)?;
//!
//! task.send_streaming(SendMessageRequest::new(Message::user_text("m1", "hi"))).await?; // streaming claimed
//! let now = task.elapsed();
//! match task.settle_streaming(now) {
//!     Ok(Settlement::Verified(task)) => { let _ = task.task().rely_on_streaming(); }
//!     Ok(Settlement::Pending(_task, why)) => println!("pending: {why}"),
//!     Err(refusal) => {
//!         println!("{}", refusal.violation());
//!         // Only the single-shot send is left (`single_shot.send_streaming(..)` does not compile).
//!         let single_shot = refusal.into_task();
//!         let again = Message::user_text("m2", "hi");
//!         let answer = single_shot.single_shot_send(again, &Default::default()).await?;
//!         assert!(matches!(answer, SendMessageResponse::Task(_))); // the fallback's result
//!     }
//! }
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod dynamic;
mod feed;
mod history;
mod push;
mod refusal;
mod settle;
mod stream;

use std::fmt;

use a2a_types::{
    GetTaskRequest, Message, SendMessageRequest, SendMessageResponse, Task as WireTask, TaskState,
};
use a2a_typestate::{
    Call, Channel, ClaimSet, Claims, Elapsed, HistorySlot, Observed, PushSlot, SingleShot, StreamingSlot,
    Task,
};
use tokio::time::Instant;

use crate::negotiate::Negotiation;
use crate::{AgentConnection, Error};

pub use dynamic::{DynAgentTask, TypedNarrowingError};
pub use feed::Feedable;
pub use refusal::TypedRefusal;
pub use settle::TypedSettleResult;
pub use stream::Streamed;

/// A task against one agent whose type says which of the card's claims it holds: the network
/// calls that exercise a claim exist only when the type holds it. See [the module docs](self).
///
/// Not `Clone`: `settle_*` takes the handle, so one consumed by a refusal cannot be used again.
pub struct TypedTask<C: ClaimSet = SingleShot> {
    session: Session,
    task: Task<C>,
}

/// What a handle keeps beside the typestate handle, across its transitions.
#[derive(Debug)]
struct Session {
    conn: AgentConnection,
    /// The handle's clock: every observation is stamped with the time elapsed since it started.
    start: Instant,
    /// The last state seen outside push (a late push delivery says nothing about "now").
    state: Option<TaskState>,
}

impl<C: ClaimSet> fmt::Debug for TypedTask<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedTask")
            .field("agent", self.session.conn.agent())
            .field("task", &self.task)
            .finish_non_exhaustive()
    }
}

impl<C: ClaimSet> TypedTask<C> {
    /// The typestate handle: its type, permits, verdicts and `rely_on_*`.
    pub fn task(&self) -> &Task<C> {
        &self.task
    }

    /// The connection the calls go through.
    pub fn connection(&self) -> &AgentConnection {
        &self.session.conn
    }

    /// Time elapsed on this handle's clock: the `now` to pass to `settle_*`.
    pub fn elapsed(&self) -> Elapsed {
        self.session.start.elapsed()
    }

    /// Forgets the type: a [`DynAgentTask`] with every observation kept.
    pub fn into_dyn(self) -> DynAgentTask {
        DynAgentTask::from_parts(self.session, self.task.into_dyn())
    }

    /// Gives up every claim: the lifecycle-agnostic fallback, by choice.
    pub fn into_single_shot(self) -> TypedTask<SingleShot> {
        TypedTask { session: self.session, task: self.task.into_single_shot() }
    }

    /// The connection and the typestate handle.
    pub fn into_parts(self) -> (AgentConnection, Task<C>) {
        (self.session.conn, self.task)
    }
}

impl TypedTask<SingleShot> {
    /// The lifecycle-agnostic send: blocking `SendMessage`s (no stream, no push config, no
    /// `returnImmediately`) expecting no intermediate states, the same fallback
    /// [`Client::run_task`](crate::Client::run_task) makes after a refusal. `negotiation` gives the
    /// accepted output modes and the follow-up policy for a task that asks for input.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`].
    pub async fn single_shot_send(
        &self,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<SendMessageResponse, Error> {
        let _permit = self.task.single_shot_send();
        crate::negotiate::single_shot(&self.session.conn, message, negotiation).await
    }
}

// Written once over every claim set the facade can feed (all of them) and bounded on the slot
// each call exercises, as the typestate's permits are: the same domain-worded error, with
// `TypedTask<SingleShot>` included, instead of "no method named ..." (E0599).
impl<C: Feedable> TypedTask<C> {
    /// Records `observed` now; a lifecycle deviation is logged, and kept by the verifier.
    fn observe(&mut self, observed: Observed) {
        if let Observed::Status { state, via, .. } = &observed
            && *via != Channel::Push
        {
            self.session.state = Some(*state);
        }
        let now = self.elapsed();
        if let Err(deviation) = C::feed(&mut self.task, now, observed) {
            let agent = self.session.conn.agent().as_str();
            tracing::warn!(%deviation, %agent, "agent broke the task lifecycle");
        }
    }

    /// Records what an error says about the agent (its protocol error code, or a transport
    /// fault); returns the error for `?`.
    fn observe_error(&mut self, call: Call, error: Error) -> Error {
        if let Some(code) = error.protocol_error().and_then(|p| p.code()) {
            let code = i32::try_from(code).unwrap_or(i32::MIN);
            self.observe(Observed::AgentError { call, code });
        } else if let Some(fault) = error.transport_fault() {
            let fault = crate::negotiate::observed_fault(fault);
            self.observe(Observed::TransportFault { call, fault });
        }
        error
    }

    /// One `GetTask`, its answer (a whole task) fed as seen through [`Channel::GetTask`].
    async fn fetch(&mut self, request: GetTaskRequest) -> Result<WireTask, Error> {
        match self.session.conn.get_task(request).await {
            Ok(task) => {
                self.observe(Observed::task(&task, Channel::GetTask));
                Ok(task)
            }
            Err(error) => Err(self.observe_error(Call::GetTask, error)),
        }
    }

    /// A push config riding inline on a send would register a webhook past the push gate and
    /// unseen by the verifier: [`register_push`](Self::register_push) is the way.
    fn refuse_inline_push(request: &SendMessageRequest) -> Result<(), Error> {
        match request.configuration.as_ref().and_then(|c| c.task_push_notification_config.as_ref()) {
            Some(_) => Err(Error::config(
                "a typed task registers push with register_push, not inline in the send's \
                 configuration.taskPushNotificationConfig",
            )),
            None => Ok(()),
        }
    }

    fn accepted_output_modes(request: &SendMessageRequest) -> &[String] {
        request.configuration.as_ref().map_or(&[], |c| c.accepted_output_modes.as_slice())
    }
}

impl<S: StreamingSlot, H: HistorySlot, P: PushSlot> TypedTask<Claims<S, H, P>> {
    /// Sends a message on a tracked handle (`SendMessage`, blocking or with `returnImmediately`),
    /// feeding the message's media types and the answer to the verifier.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] for a request carrying an inline push config (use
    /// [`register_push`](Self::register_push)); otherwise as [`AgentConnection::send_message`]. The
    /// agent's error and transport faults are observed.
    pub async fn send_message(&mut self, request: SendMessageRequest) -> Result<SendMessageResponse, Error> {
        let _permit = self.task.send_permit();
        Self::refuse_inline_push(&request)?;
        self.observe(Observed::message_sent(&request.message, Self::accepted_output_modes(&request)));
        match self.session.conn.send_message(request).await {
            Ok(response) => {
                if let Some(observed) = Observed::from_send_response(&response) {
                    self.observe(observed);
                }
                Ok(response)
            }
            Err(error) => Err(self.observe_error(Call::SendMessage, error)),
        }
    }

    /// Polls the task once (`GetTask` without asking for history), feeding its state.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] before the agent assigned a task id; otherwise as
    /// [`AgentConnection::get_task`].
    pub async fn get_task(&mut self) -> Result<WireTask, Error> {
        let Some(id) = self.task.task_id().cloned() else {
            return Err(Error::config("no task to poll yet: send a message first"));
        };
        let mut request = GetTaskRequest::new(id);
        request.history_length = Some(0);
        self.fetch(request).await
    }
}
