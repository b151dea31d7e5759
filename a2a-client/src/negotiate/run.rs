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

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{
    GetTaskRequest, Message, SendMessageConfiguration, SendMessageRequest, SendMessageResponse,
    StreamResponse, Task, TaskId, TaskState,
};
use a2a_typestate::{
    Advice, AgentCardLifecycleViolation, Call, Capability, CapabilitySet, CardClaims, Channel, DynTask,
    Lifecycle, LifecycleFault, Observed, PendingReason, Verdict, Verifier,
};
use futures::StreamExt;
use tokio::time::Instant;

use super::plan::{InputRequest, Negotiation};
use super::snapshot::Snapshot;
use crate::error::TransportFault;
use crate::webhook::{PushArrival, PushCallback, PushReceiver, PushRegistration};
use crate::{AgentConnection, Client, Error, EventStream, ProtocolError, StreamEnd};

/// How a negotiated run ended, before the client acts on it.
#[derive(Debug)]
pub(crate) enum RunEnd {
    /// No claim the caller depends on was refused.
    Finished { result: SendMessageResponse, verified: CapabilitySet },
    /// At least one claim was refused; the first (by evidence) decides.
    Refused { refusals: Vec<AgentCardLifecycleViolation>, task: Option<Task> },
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
        let claims = Arc::new(CardClaims::lift(conn.card().card(), plan.deployment_kind()));
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
        end.map(|end| RunReport { end, round_trips, handle, elapsed })
    }

    async fn drive(&mut self, message: Message) -> Result<RunEnd, Error> {
        let mut streaming = self.plan.depends().contains(Capability::Streaming);
        if self.plan.depends().contains(Capability::PushNotifications) {
            let receiver = Arc::new(self.client.start_push_receiver().await?);
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
        let verified = Capability::ALL
            .into_iter()
            .filter(|c| self.verifier.verdict(*c, self.now()).is_some_and(|v| v.is_verified()))
            .collect();
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
        Some(RunEnd::Refused { refusals, task: self.snapshot.task().cloned() })
    }

    fn turn_ended(&self) -> bool {
        self.direct_answer || self.last_state.is_some_and(|s| s.is_terminal() || s.is_interrupted())
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

    // ---- streaming ----

    async fn stream_turn(&mut self, message: &Message) -> Result<StreamTurn, Error> {
        let stream = loop {
            self.round_trip();
            match self.conn.send_streaming_message(self.request(message, false)).await {
                Ok(stream) => break stream,
                Err(error) => match self.rejection(Call::SendStreamingMessage, error) {
                    Rejection::Refused => return Ok(StreamTurn::Done),
                    Rejection::NoPush => {}
                    Rejection::NoStreaming => return Ok(StreamTurn::NotStreaming),
                    Rejection::Fatal(error) => return Err(error),
                },
            }
        };
        self.push_accepted();
        self.consume(stream, Call::SendStreamingMessage).await?;
        Ok(StreamTurn::Done)
    }

    /// Reads an error answering a send: refusal, an undeclared capability the agent lacks, or fatal.
    fn rejection(&mut self, call: Call, error: Error) -> Rejection {
        let protocol = error.protocol_error();
        let no_streaming = call.is_streaming() && protocol.is_some_and(|p| p.is_unsupported_operation());
        let carried_push = self.push.as_ref().is_some_and(|w| !w.accepted);
        let no_push = carried_push && protocol.is_some_and(|p| p.is_push_notification_not_supported());
        if no_push {
            // The config rode on the send: the answer is about push (Call::PushNotificationConfig).
            let code = i32::try_from(ProtocolError::PUSH_NOTIFICATION_NOT_SUPPORTED).unwrap_or(i32::MIN);
            self.observe(Observed::AgentError { call: Call::PushNotificationConfig, code });
        } else {
            let error = self.observe_error(call, error);
            if !no_streaming {
                return Rejection::Fatal(error);
            }
        }
        if self.refused().is_some() {
            return Rejection::Refused;
        }
        if no_push {
            if let Some(watch) = self.push.take() {
                watch.receiver.unregister(&watch.registration);
            }
            return Rejection::NoPush;
        }
        Rejection::NoStreaming
    }

    /// The send carrying the push config succeeded: the config is registered.
    fn push_accepted(&mut self) {
        if let Some(watch) = self.push.as_mut().filter(|w| !w.accepted) {
            watch.accepted = true;
            self.observe(Observed::PushRegistered);
        }
    }

    /// Reads a stream to its end, reattaching after drops within the retry budget; polls when it
    /// closed (or could not be reattached) before the turn ended.
    async fn consume(&mut self, mut stream: EventStream, mut call: Call) -> Result<(), Error> {
        let mut reattach_budget = self.client.config().retry_policy().max_attempts().saturating_sub(1);
        let mut missed = false;
        loop {
            let (fault, failure) = match self.read(&mut stream, call).await? {
                StreamStop::Refused => return Ok(()),
                StreamStop::Closed => break,
                StreamStop::Dropped(fault, failure) => (fault, failure),
            };
            self.observe(Observed::TransportFault { call, fault: observed_fault(fault) });
            if self.turn_ended() {
                break;
            }
            let Some(task) = self.task_id() else {
                // No event named the task: nothing to reattach to or poll.
                return Err(failure.unwrap_or_else(|| Error::transport(fault, None)));
            };
            missed = true;
            if reattach_budget == 0 {
                break;
            }
            reattach_budget -= 1;
            self.client.metrics().record_retry();
            self.round_trip();
            call = Call::SubscribeToTask;
            match self.conn.resubscribe(&task).await {
                Ok(reattached) => stream = reattached,
                // Still failing, or nothing left to subscribe to (the task ended): poll below.
                Err(error) => {
                    let _ = self.observe_error(call, error);
                    break;
                }
            }
        }
        if missed && self.plan.depends().contains(Capability::StateTransitionHistory) {
            self.fetch_task(true).await?;
        }
        if !self.turn_ended() {
            self.poll_until_end().await?;
        }
        Ok(())
    }

    /// Reads `stream` until it ends, a refusal settles, or it drops.
    async fn read(&mut self, stream: &mut EventStream, call: Call) -> Result<StreamStop, Error> {
        let mut failure = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => {
                    self.on_event(&event);
                    if self.refused().is_some() {
                        return Ok(StreamStop::Refused);
                    }
                }
                Err(error) => failure = Some(error),
            }
        }
        let fault = match stream.end() {
            Some(StreamEnd::Dropped(fault)) => Some(fault),
            _ => failure.as_ref().and_then(Error::transport_fault),
        };
        match (fault, failure) {
            (Some(fault), failure) => Ok(StreamStop::Dropped(fault, failure)),
            (None, Some(error)) => Err(self.observe_error(call, error)),
            (None, None) => Ok(StreamStop::Closed),
        }
    }

    fn on_event(&mut self, event: &StreamResponse) {
        self.snapshot.apply_event(event);
        if matches!(event, StreamResponse::Message(_)) && self.snapshot.task().is_none() {
            self.direct_answer = true;
        }
        if let Some(observed) = Observed::from_stream_response(event, Channel::Stream) {
            self.observe(observed);
        }
    }

    // ---- polling ----

    async fn poll_turn(&mut self, message: &Message) -> Result<(), Error> {
        let response = loop {
            self.round_trip();
            match self.conn.send_message(self.request(message, true)).await {
                Ok(response) => break response,
                Err(error) => match self.rejection(Call::SendMessage, error) {
                    Rejection::Refused => return Ok(()),
                    Rejection::NoPush => {}
                    Rejection::NoStreaming => return Err(Error::config("a send is not a streaming call")),
                    Rejection::Fatal(error) => return Err(error),
                },
            }
        };
        self.push_accepted();
        self.snapshot.apply_send(&response);
        match Observed::from_send_response(&response) {
            Some(observed) => self.observe(observed),
            None => self.direct_answer = true,
        }
        self.poll_until_end().await
    }

    async fn poll_until_end(&mut self) -> Result<(), Error> {
        let cadence = self.client.config().poll_cadence();
        let card_cadence = self.verifier.card().poll_cadence().is_some();
        let bound = self.verifier.bounds().working_unobservable();
        let polling_since = self.now();
        let mut polls = 0;
        while !self.turn_ended() {
            let now = self.now();
            if let Some(fault) = self.verifier.lifecycle_fault(now) {
                return Err(fault.into());
            }
            // The verifier exempts a streamed task; one whose stream closed early is polled now, on the
            // client's own interval when the card declares none, so the same bound applies.
            if !card_cadence
                && self.last_state == Some(TaskState::Working)
                && now.saturating_sub(polling_since) > bound
            {
                return Err(LifecycleFault::WorkingUnobservable { since: polling_since, bound }.into());
            }
            if self.refused().is_some() {
                return Ok(());
            }
            let delay = if card_cadence { self.verifier.poll_interval() } else { cadence.delay(polls) };
            polls = polls.saturating_add(1);
            self.wait(delay).await;
            self.fetch_task(false).await?;
        }
        Ok(())
    }

    /// One `GetTask`; with `historyLength` when `for_history` (the history is relied on).
    async fn fetch_task(&mut self, for_history: bool) -> Result<(), Error> {
        let Some(id) = self.task_id() else { return Ok(()) };
        let length = for_history.then(|| self.plan.history_len());
        let request = GetTaskRequest {
            history_length: length.map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
            ..GetTaskRequest::new(id)
        };
        self.round_trip();
        let task = match self.conn.get_task(request).await {
            Ok(task) => task,
            Err(error) => return Err(self.observe_error(Call::GetTask, error)),
        };
        self.observe(Observed::task(&task, Channel::GetTask));
        if let Some(length) = length {
            self.history_fetched = true;
            self.observe(Observed::history(&task, Some(length)));
        }
        self.snapshot.replace(task);
        Ok(())
    }

    /// At the task's end: confirm streamed artifacts and rely on the history when the caller does.
    async fn confirm_at_end(&mut self) -> Result<(), Error> {
        let unconfirmed = self
            .verifier
            .verdict(Capability::Streaming, self.now())
            .is_some_and(|v| v.advice() == Advice::ConfirmWithGetTask);
        let history =
            self.plan.depends().contains(Capability::StateTransitionHistory) && !self.history_fetched;
        if unconfirmed || history {
            self.fetch_task(history).await?;
        }
        Ok(())
    }

    // ---- push ----

    /// The receiver and task to read callbacks for, while the first is still awaited.
    fn awaited_push(&self) -> Option<(Arc<PushReceiver>, TaskId)> {
        let watch = self.push.as_ref().filter(|w| w.accepted && !w.delivered)?;
        Some((watch.receiver.clone(), self.task_id()?))
    }

    /// Waits `delay`, reading a push callback meanwhile when one is still awaited.
    async fn wait(&mut self, delay: Duration) {
        let Some((receiver, task)) = self.awaited_push() else {
            tokio::time::sleep(delay).await;
            return;
        };
        match receiver.next_callback(&task, delay).await {
            Ok(PushArrival::Delivered(callback)) => self.on_callback(&callback),
            Ok(PushArrival::Absent { .. }) => {}
            // No callback has bound the inline registration to the task yet.
            Err(_) => tokio::time::sleep(delay).await,
        }
    }

    fn on_callback(&mut self, callback: &PushCallback) {
        let state = callback.stream_response().ok().and_then(|body| match body {
            StreamResponse::Task(task) => Some(task.status.state),
            StreamResponse::StatusUpdate(update) => Some(update.status.state),
            _ => None,
        });
        self.observe(Observed::PushCallback { state });
        if let Some(watch) = &mut self.push {
            watch.delivered = true;
        }
    }

    /// After the task ended: waits for the first callback until the push-arrival bound runs out.
    async fn await_push(&mut self) -> Result<(), Error> {
        while let Some((receiver, task)) = self.awaited_push() {
            let deadline = match self.verifier.verdict(Capability::PushNotifications, self.now()) {
                Some(Verdict::Pending(pending)) => match pending.reason() {
                    PendingReason::AwaitingPushCallback { deadline } => *deadline,
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            };
            // A hair past the deadline, so the verdict after an absence is settled.
            let wait = deadline.saturating_sub(self.now()) + Duration::from_millis(5);
            match receiver.next_callback(&task, wait).await {
                Ok(PushArrival::Delivered(callback)) => self.on_callback(&callback),
                Ok(PushArrival::Absent { .. }) => {}
                Err(_) => tokio::time::sleep(wait.min(UNBOUND_REGISTRATION_RECHECK)).await,
            }
        }
        Ok(())
    }
}

/// How often to look again for the first callback of an inline registration not yet bound to its
/// task (the receiver knows the task only from that callback).
const UNBOUND_REGISTRATION_RECHECK: Duration = Duration::from_millis(10);

/// The verifier's words for a client transport fault.
fn observed_fault(fault: TransportFault) -> a2a_typestate::TransportFault {
    use a2a_typestate::TransportFault as Observed;
    match fault {
        TransportFault::Timeout => Observed::Timeout,
        TransportFault::Unavailable(502) => Observed::BadGateway,
        TransportFault::Unavailable(503) => Observed::ServiceUnavailable,
        TransportFault::Unavailable(504) => Observed::GatewayTimeout,
        _ => Observed::ConnectionReset,
    }
}
