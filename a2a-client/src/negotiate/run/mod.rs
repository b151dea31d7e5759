//! One negotiated task: the calls on the path the caller depends on, every observation fed to the
//! verifier, stopped at the first refusal.
//!
//! The path, per turn (the first message, then each follow-up):
//! - **streaming** (the caller depends on it): `SendStreamingMessage`; a stream cut by a transport
//!   fault is reattached with `SubscribeToTask` (counted as a retry, never a refusal) and, when the
//!   caller relies on history, the missed states are rebuilt with `GetTask`. A `-32004` answer from
//!   an agent whose card does not claim streaming is no refusal: the turn goes on by polling.
//! - **polling** otherwise: `SendMessage` with `returnImmediately`, then `GetTask` at the card's
//!   declared cadence or the client's bounded [`PollCadence`](crate::PollCadence); a `working` that
//!   outlasts the bound with no card basis is a [`LifecycleFault`](a2a_typestate::LifecycleFault).
//! - **push** (the caller depends on it): the webhook config goes inline with the first message (so
//!   no event can precede it); the first callback is awaited within the push-arrival bound (while
//!   polling, or after the task ends). A `-32003` answer from an agent whose card does not claim push
//!   is no refusal: the message is sent again without the config (no task was created).
//!
//! At the task's end: one `GetTask` (with `historyLength` when the caller relies on history) when
//! the stream's terminal state came without an artifact, or when history is relied on.

mod poll;
mod push;
mod stream;

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{
    Message, MessageId, SendMessageConfiguration, SendMessageRequest, SendMessageResponse, Task, TaskId,
    TaskState,
};
use a2a_typestate::{
    AgentCardLifecycleViolation, Call, Capability, CapabilitySet, Channel, DynTask, Lifecycle, Observed,
    Verdict, Verifier,
};
use tokio::time::Instant;

use super::plan::{InputRequest, Negotiation};
use super::snapshot::Snapshot;
use crate::error::TransportFault;
use crate::webhook::{PushReceiver, PushRegistration};
use crate::{AgentConnection, Client, Error, ProtocolError};

/// How a negotiated run ended, before the client acts on it.
#[derive(Debug)]
pub(crate) enum RunEnd {
    /// No claim the caller depends on was refused.
    Finished { result: SendMessageResponse, verified: CapabilitySet },
    /// At least one claim was refused; the first (by evidence) decides.
    Refused { refusals: Vec<AgentCardLifecycleViolation>, task: Option<Task>, verified: CapabilitySet },
}

/// The result of a run and its round-trip count.
#[derive(Debug)]
pub(crate) struct RunReport {
    pub(crate) end: RunEnd,
    pub(crate) round_trips: u64,
    /// The typestate handle that saw every observation the verifier saw, for the typed entry points.
    pub(crate) handle: Option<DynTask>,
    /// Elapsed time at the end of the run, on the handle's clock.
    pub(crate) elapsed: Duration,
}

struct PushWatch {
    receiver: Arc<PushReceiver>,
    registration: PushRegistration,
    /// The agent accepted the config (the send carrying it succeeded).
    accepted: bool,
    delivered: bool,
}

pub(crate) struct Run<'a> {
    client: &'a Client,
    conn: &'a AgentConnection,
    plan: &'a Negotiation,
    verifier: Verifier,
    lifecycle: Lifecycle,
    start: Instant,
    round_trips: u64,
    snapshot: Snapshot,
    last_state: Option<TaskState>,
    direct_answer: bool,
    history_fetched: bool,
    /// The question (its status message id, if any) the last follow-up answered, until the agent
    /// moves on from it: a send answered at once with the same paused task has not resumed yet.
    answered: Option<Option<MessageId>>,
    push: Option<PushWatch>,
    handle: Option<DynTask>,
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        if let Some(watch) = &self.push {
            watch.receiver.unregister(&watch.registration);
        }
    }
}

/// The outcome of one streamed turn.
enum StreamTurn {
    /// The stream delivered the turn (or a refusal stopped it).
    Done,
    /// The agent does not stream and its card does not claim it: poll this turn instead.
    NotStreaming,
}

/// How reading a stream stopped.
enum StreamStop {
    /// It closed cleanly.
    Closed,
    /// A claim was refused on what it delivered: stop reading.
    Refused,
    /// A transport fault cut it, with the error it yielded (if any).
    Dropped(TransportFault, Option<Error>),
}

/// What an error answering a send means for the turn.
enum Rejection {
    /// A claim was refused: stop.
    Refused,
    /// The agent does not push and its card does not claim it: send again without the config.
    NoPush,
    /// The agent does not stream and its card does not claim it.
    NoStreaming,
    /// Anything else: the run ends with this error.
    Fatal(Error),
}

impl<'a> Run<'a> {
    pub(crate) fn new(client: &'a Client, conn: &'a AgentConnection, plan: &'a Negotiation) -> Self {
        let claims = conn.card().claims(plan.deployment_kind());
        let bounds = client.config().verifier_bounds();
        let verifier = Verifier::new(claims.clone(), plan.depends(), bounds);
        Self {
            handle: Some(DynTask::new(claims, bounds)),
            client,
            conn,
            plan,
            verifier,
            lifecycle: Lifecycle::new(),
            start: Instant::now(),
            round_trips: 0,
            snapshot: Snapshot::default(),
            last_state: None,
            direct_answer: false,
            history_fetched: false,
            answered: None,
            push: None,
        }
    }

    /// Runs the task from `message` to its end or its first refusal.
    ///
    /// # Errors
    /// A transport fault that outlived the retry budget, a protocol error unrelated to a claim, an
    /// unreadable answer, or a [`LifecycleFault`](a2a_typestate::LifecycleFault).
    pub(crate) async fn run(mut self, message: Message) -> Result<RunReport, Error> {
        let end = self.drive(message).await;
        let (round_trips, elapsed, handle) = (self.round_trips, self.now(), self.handle.take());
        match end {
            Ok(end) => Ok(RunReport { end, round_trips, handle, elapsed }),
            Err(error) => Err(error.with_negotiation_round_trips(round_trips)),
        }
    }

    async fn drive(&mut self, message: Message) -> Result<RunEnd, Error> {
        let mut streaming = self.plan.depends().contains(Capability::Streaming);
        if self.plan.depends().contains(Capability::PushNotifications) {
            let receiver = match self.plan.receiver() {
                Some(shared) => shared.clone(),
                None => Arc::new(self.client.start_push_receiver().await?),
            };
            let registration = receiver.register_for_new_task();
            self.push = Some(PushWatch { receiver, registration, accepted: false, delivered: false });
        }
        let mut next = Some(message);
        let mut follow_ups = 0;
        while let Some(message) = next.take() {
            self.observe(Observed::message_sent(&message, self.plan.accepted()));
            if streaming {
                match self.stream_turn(&message).await? {
                    StreamTurn::Done => {}
                    StreamTurn::NotStreaming => {
                        streaming = false;
                        self.poll_turn(&message).await?;
                    }
                }
            } else {
                self.poll_turn(&message).await?;
            }
            if let Some(end) = self.refused() {
                return Ok(end);
            }
            if let Some(request) = self.input_request()
                && follow_ups < self.plan.follow_up_budget()
            {
                next = self.plan.follow_up_policy().answer(&request);
                if next.is_some() {
                    self.answered = Some(request.question.as_ref().map(|q| q.message_id.clone()));
                }
                follow_ups += 1;
            }
        }
        if self.last_state.is_some_and(TaskState::is_terminal) {
            self.confirm_at_end().await?;
        }
        self.await_push().await?;
        if let Some(end) = self.refused() {
            return Ok(end);
        }
        let verified = self.verified();
        let snapshot = std::mem::take(&mut self.snapshot);
        let result = snapshot.into_response().ok_or_else(|| {
            Error::config("the agent answered neither a task nor a message")
                .with_url(self.conn.agent().as_str())
        })?;
        Ok(RunEnd::Finished { result, verified })
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn round_trip(&mut self) {
        self.round_trips += 1;
        self.client.metrics().record_negotiation_round_trip();
    }

    fn observe(&mut self, observed: Observed) {
        match &observed {
            Observed::Status { task_id, context_id, state, via, .. } if *via != Channel::Push => {
                self.last_state = Some(*state);
                if !state.is_interrupted() {
                    self.answered = None;
                }
                if let Err(deviation) = self.lifecycle.advance(task_id, context_id.as_ref(), *state) {
                    tracing::warn!(%deviation, agent = %self.conn.agent().as_str(), "agent broke the task lifecycle");
                }
            }
            Observed::MessageSent { task_id: Some(task_id), context_id: Some(context_id), .. } => {
                if let Err(error) = self.lifecycle.follow_up(task_id, context_id) {
                    tracing::warn!(%error, "follow-up does not fit the task");
                }
            }
            _ => {}
        }
        let now = self.now();
        if let Some(handle) = &mut self.handle {
            // The handle's own lifecycle errors are the deviations already logged above.
            let _ = handle.observe(now, observed.clone());
        }
        self.verifier.observe(now, observed);
    }

    /// Records what an error says about the agent; returns the error for `?`.
    fn observe_error(&mut self, call: Call, error: Error) -> Error {
        if let Some(code) = error.protocol_error().and_then(|p| p.code()) {
            let code = i32::try_from(code).unwrap_or(i32::MIN);
            self.observe(Observed::AgentError { call, code });
        } else if let Some(fault) = error.transport_fault() {
            self.observe(Observed::TransportFault { call, fault: observed_fault(fault) });
        }
        error
    }

    /// The claims verified so far.
    fn verified(&self) -> CapabilitySet {
        let now = self.now();
        Capability::ALL
            .into_iter()
            .filter(|c| self.verifier.verdict(*c, now).is_some_and(|v| v.is_verified()))
            .collect()
    }

    fn refused(&self) -> Option<RunEnd> {
        let now = self.now();
        let mut refusals: Vec<AgentCardLifecycleViolation> = self
            .verifier
            .verdicts(now)
            .into_iter()
            .filter_map(|(_, verdict)| match verdict {
                Verdict::Refused(violation) => Some(violation),
                _ => None,
            })
            .collect();
        if refusals.is_empty() {
            return None;
        }
        refusals.sort_by_key(|violation| violation.evidence().seq);
        Some(RunEnd::Refused { refusals, task: self.snapshot.task().cloned(), verified: self.verified() })
    }

    /// The current turn is over: a direct answer, a terminal state, or a question not yet answered
    /// (the question just answered does not end the turn while the agent has not moved on from it).
    fn turn_ended(&self) -> bool {
        let Some(state) = self.last_state else { return self.direct_answer };
        if self.direct_answer || state.is_terminal() {
            return true;
        }
        if !state.is_interrupted() {
            return false;
        }
        match &self.answered {
            None => true,
            Some(answered) => {
                let asked =
                    self.snapshot.task().and_then(|t| t.status.message.as_ref()).map(|m| &m.message_id);
                answered.is_some() && asked.is_some() && asked != answered.as_ref()
            }
        }
    }

    fn task_id(&self) -> Option<TaskId> {
        self.snapshot.task().map(|t| t.id.clone()).filter(|id| !id.is_empty())
    }

    fn input_request(&self) -> Option<InputRequest> {
        let task = self.snapshot.task()?;
        task.status.state.is_interrupted().then(|| InputRequest {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state,
            question: task.status.message.clone(),
        })
    }

    fn request(&self, message: &Message, return_immediately: bool) -> SendMessageRequest {
        let configuration = SendMessageConfiguration {
            accepted_output_modes: self.plan.accepted().to_vec(),
            return_immediately,
            task_push_notification_config: self
                .push
                .as_ref()
                .filter(|w| !w.accepted)
                .map(|w| w.registration.to_config()),
            ..SendMessageConfiguration::default()
        };
        SendMessageRequest::new(message.clone()).with_configuration(configuration)
    }

    /// Reads an error answering a send: refusal, an undeclared capability the agent lacks, or fatal.
    fn rejection(&mut self, call: Call, error: Error) -> Rejection {
        let protocol = error.protocol_error();
        let carried_push = self.push.as_ref().is_some_and(|w| !w.accepted);
        if carried_push && protocol.is_some_and(|p| p.is_push_notification_not_supported()) {
            // The config rode on the send: the answer is about push (Call::PushNotificationConfig).
            let code = i32::try_from(ProtocolError::PUSH_NOTIFICATION_NOT_SUPPORTED).unwrap_or(i32::MIN);
            self.observe(Observed::AgentError { call: Call::PushNotificationConfig, code });
            if self.refused().is_some() {
                return Rejection::Refused;
            }
            if let Some(watch) = self.push.take() {
                watch.receiver.unregister(&watch.registration);
            }
            return Rejection::NoPush;
        }
        let no_streaming = call.is_streaming() && protocol.is_some_and(|p| p.is_unsupported_operation());
        let error = self.observe_error(call, error);
        if !no_streaming {
            Rejection::Fatal(error)
        } else if self.refused().is_some() {
            Rejection::Refused
        } else {
            Rejection::NoStreaming
        }
    }
}

/// The verifier's words for a client transport fault.
pub(crate) fn observed_fault(fault: TransportFault) -> a2a_typestate::TransportFault {
    use a2a_typestate::TransportFault as Observed;
    match fault {
        TransportFault::Timeout => Observed::Timeout,
        TransportFault::Unavailable(502) => Observed::BadGateway,
        TransportFault::Unavailable(503) => Observed::ServiceUnavailable,
        TransportFault::Unavailable(504) => Observed::GatewayTimeout,
        _ => Observed::ConnectionReset,
    }
}
