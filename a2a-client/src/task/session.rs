//! What a task handle keeps beside the typestate handle: the connection, the clock, the task as
//! seen so far, the push watch, and how every observation reaches the typestate handle.

use std::time::Duration;

use a2a_typestate::{Call, Channel, Observed, TaskHandle};
use a2a_typestate_types::{
    ContextId, GetTaskRequest, Message, MessageId, SendMessageConfiguration, SendMessageRequest,
    SendMessageResponse, StreamResponse, Task, TaskId, TaskState,
};
use tokio::time::Instant;

use super::follow_up::FollowUp;
use super::push::{PushRegistrationAnswer, PushRegistrationPath, PushState};
use super::snapshot::Snapshot;
use crate::webhook::PushCallback;
use crate::{AgentConnection, Error};

/// The I/O side of one task handle.
#[derive(Debug)]
pub(super) struct Session {
    pub(super) conn: AgentConnection,
    /// The handle's clock: every observation is stamped with the time elapsed since it started.
    start: Instant,
    pub(super) snapshot: Snapshot,
    /// The last state seen outside push (a late push delivery says nothing about "now").
    pub(super) last_state: Option<TaskState>,
    /// The agent answered with a message, not a task: the exchange is over.
    pub(super) direct_answer: bool,
    /// The question (its status message id, if any) the last follow-up answered, until the agent
    /// moves on from it: the same question again is no progress, so the turn goes on.
    pub(super) answered: Option<Option<MessageId>>,
    /// The task's webhook: the config it watches and every attempt to register it.
    pub(super) push: PushState,
    pub(super) history_fetched: bool,
    /// Requests made on this tracked handle (the negotiation round trips).
    pub(super) round_trips: u64,
    /// What the caller chose for this task's sends.
    pub(super) settings: SendSettings,
    /// Why this handle is single-shot, when it is: what its sends are counted as.
    pub(super) single_shot: Option<SingleShotReason>,
    /// The caller's view of each update, as it arrives.
    pub(super) on_update: Option<super::OnUpdate>,
    /// The interfaces this task could not reach before the agent answered, in the order tried.
    pub(super) unreachable: Vec<UnreachableInterface>,
}

/// A declared interface a task could not reach (its connection was never opened, so nothing was
/// sent there): the task went on on the agent's next declared interface. A transport fallback, not
/// a refusal: it says nothing about the card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreachableInterface {
    /// The interface's URL, as the card writes it.
    pub url: String,
    /// What the connection attempt came to, in one line (DNS, refused, TLS, connect timeout).
    pub error: String,
    /// Why, when the URL says so plainly: the card was served from one place and names an address
    /// inside the agent's host or network (a container's `localhost`, `0.0.0.0`, a private
    /// address, a service name).
    pub diagnosis: Option<String>,
}

/// What the caller chose for a task's sends, apart from what the task did: set before the first
/// send (by `Negotiation` or the handle's setters), read by every turn.
#[derive(Debug)]
pub(super) struct SendSettings {
    /// The `historyLength` asked for when the history is relied on.
    pub(super) history_length: u32,
    /// The `acceptedOutputModes` every message is sent with (empty: any).
    pub(super) accepted_output_modes: Vec<String>,
    /// How a send answers a task that asks for input...
    pub(super) follow_up: FollowUp,
    /// ...and how many times at most.
    pub(super) max_follow_ups: u32,
}

impl Default for SendSettings {
    fn default() -> Self {
        Self {
            history_length: super::follow_up::DEFAULT_HISTORY_LENGTH,
            accepted_output_modes: Vec::new(),
            follow_up: FollowUp::none(),
            max_follow_ups: super::follow_up::DEFAULT_MAX_FOLLOW_UPS,
        }
    }
}

/// Why a handle sends single-shot: every send is counted by it, whichever path made the handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SingleShotReason {
    /// A claim was refused on this task (the fallback, step (c) of the refusal rules).
    Refused,
    /// The agent was capability-suspect when the task began.
    Suspect,
    /// The caller gave the claims up.
    Chosen,
}

impl Session {
    pub(super) fn new(conn: AgentConnection) -> Self {
        Self {
            conn,
            start: Instant::now(),
            snapshot: Snapshot::default(),
            last_state: None,
            direct_answer: false,
            answered: None,
            push: PushState::default(),
            history_fetched: false,
            round_trips: 0,
            settings: SendSettings::default(),
            single_shot: None,
            on_update: None,
            unreachable: Vec::new(),
        }
    }

    /// Moves this task to the agent's next declared interface this client speaks when `error` says
    /// the one in use could not be reached (the connection was never opened: DNS, refused, TLS,
    /// connect timeout; nothing was sent, so nothing can run twice) and the agent has answered
    /// nothing for this task yet. A transport fallback: no refusal, no mark. `true` when the call
    /// is to be made again on the new interface; `false` leaves `error` to be handled as before.
    pub(super) async fn fail_over(&mut self, error: &Error) -> bool {
        if !error.is_connect() || self.task_id().is_some() || self.direct_answer {
            return false;
        }
        let from = self.conn.interface().url.clone();
        let diagnosis = self.conn.unreachable_diagnosis();
        self.unreachable.push(UnreachableInterface {
            url: from.clone(),
            error: error.to_string(),
            diagnosis,
        });
        let tried: Vec<String> = self.unreachable.iter().map(|u| u.url.clone()).collect();
        let Some(next) = self.conn.next_interface(&tried).await else {
            let bound = self.conn.client().config().task_budget().interfaces();
            if tried.len() >= bound as usize {
                tracing::warn!(
                    agent = %self.conn.agent().as_str(),
                    unreachable = %from,
                    tried = tried.len(),
                    %error,
                    "interface unreachable, and the task has tried as many interfaces as its budget allows"
                );
            }
            return false;
        };
        tracing::warn!(
            agent = %self.conn.agent().as_str(),
            unreachable = %from,
            next = %next.interface().url,
            %error,
            "interface unreachable: the call moves to the next declared interface"
        );
        self.conn.client().metrics().record_interface_failover();
        self.conn = next;
        true
    }

    /// After the agent answered a send: when this task left an unreachable interface for the one
    /// in use, the agent's answering interface is remembered (discovery opens it first while it
    /// lasts, in this client and, through a shared cache, in the other replicas).
    pub(super) fn answered(&self) {
        if !self.unreachable.is_empty() {
            let conn = &self.conn;
            conn.client().discovery_cache().remember_answering_interface(conn.agent(), &conn.interface().url);
        }
    }

    /// What every refusal leads to, whichever handle settled it: counted, the agent marked
    /// capability-suspect in the discovery cache (unless marks are off) so its next tasks go
    /// single-shot at once, and the handle's sends from here on counted as the fallback.
    pub(super) fn after_refusal<'a>(
        &mut self,
        violations: impl Iterator<Item = &'a a2a_typestate::AgentCardLifecycleViolation>,
    ) {
        self.single_shot = Some(SingleShotReason::Refused);
        let client = self.conn.client();
        for violation in violations {
            crate::task_events::claim_refused(violation);
            client.metrics().record_refusal(violation.capability());
            if client.config().suspect_marks() == crate::SuspectMarks::On {
                client.discovery_cache().mark_suspect(
                    self.conn.agent(),
                    violation.capability(),
                    violation.to_string(),
                );
                client.metrics().record_suspect_mark(violation.capability());
                crate::task_events::suspect_mark_set(violation.capability());
            }
        }
        // What the negotiation spent before the refusal ended it.
        client.metrics().record_wasted_round_trips(self.round_trips);
    }

    /// Records on the current span that a settle verified `capability`, with the evidence.
    pub(super) fn claim_verified(capability: a2a_typestate::Capability, verdict: &a2a_typestate::Verdict) {
        if let a2a_typestate::Verdict::Verified(evidence) = verdict {
            crate::task_events::claim_verified(capability, evidence);
        }
    }

    /// Starts this handle's clock at `at` (the start of the run it serves, before discovery), so
    /// its task deadline counts the whole run.
    pub(super) fn begin_clock_at(&mut self, at: Instant) {
        self.start = at;
    }

    /// Time elapsed on this handle's clock.
    pub(super) fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// The instant `elapsed` on this handle's clock stands for.
    pub(super) fn instant(&self, elapsed: Duration) -> Instant {
        self.start + elapsed
    }

    pub(super) fn round_trip(&mut self) {
        self.round_trips += 1;
        self.conn.client().metrics().record_negotiation_round_trip();
    }

    pub(super) fn task_id(&self) -> Option<TaskId> {
        self.snapshot.task().map(|t| t.id.clone()).filter(|id| !id.is_empty())
    }

    /// Records `observed` now into `handle`; a lifecycle deviation is logged (the verifier keeps
    /// it as evidence either way).
    pub(super) fn observe<H: TaskHandle>(&mut self, handle: &mut H, observed: Observed) {
        if let Observed::Status { state, via, .. } = &observed
            && *via != Channel::Push
        {
            self.last_state = Some(*state);
            if !state.is_interrupted() {
                self.answered = None;
            }
        }
        let now = self.now();
        if let Err(deviation) = handle.record(now, observed) {
            let agent = self.conn.agent().as_str();
            tracing::warn!(%deviation, %agent, "observation does not fit the task's lifecycle");
        }
    }

    /// Records what an error says about the agent (its protocol error code, a transport fault, or
    /// an HTTP error outside the protocol; a 401 or 403 is about credentials and says nothing of
    /// the call); returns the error for `?`.
    pub(super) fn observe_error<H: TaskHandle>(&mut self, handle: &mut H, call: Call, error: Error) -> Error {
        if let Some(code) = error.protocol_error().and_then(|p| p.code()) {
            let code = i32::try_from(code).unwrap_or(i32::MIN);
            self.observe(handle, Observed::AgentError { call, code });
        } else if let Some(fault) = error.transport_fault() {
            self.observe(handle, Observed::TransportFault { call, fault });
        } else if let Some(status) = error.status().filter(|s| !matches!(s, 401 | 403)) {
            self.observe(handle, Observed::CallFailed { call, status });
        }
        error
    }

    /// Checks that an answer is about this task: once the agent assigned the task (its first
    /// answer or event), every later one must name the same task id and, where it carries one,
    /// the same context id. An id left empty names nothing and is not checked.
    ///
    /// # Errors
    /// A protocol error naming both tasks when it is about another one: `what` is not observed, so
    /// it neither verifies nor refuses a claim of this task.
    pub(super) fn about_this_task(
        &self,
        what: &str,
        task: Option<&TaskId>,
        context: Option<&ContextId>,
    ) -> Result<(), Error> {
        let Some(this) = self.snapshot.task().filter(|t| !t.id.is_empty()) else { return Ok(()) };
        let task = task.filter(|id| !id.is_empty());
        let context = context.filter(|id| !id.is_empty());
        let other_task = task.is_some_and(|id| *id != this.id);
        let other_context =
            context.zip(this.context_id.as_ref()).is_some_and(|(answered, ours)| answered != ours);
        if !other_task && !other_context {
            return Ok(());
        }
        let this_context = this.context_id.as_ref();
        let error =
            Error::about_another_task(what, (task.unwrap_or(&this.id), context), (&this.id, this_context));
        let agent = self.conn.agent().as_str();
        tracing::warn!(%error, %agent, "answer about another task refused");
        Err(error.with_url(agent))
    }

    /// A whole task the agent answered a call about this task with (`GetTask`, `CancelTask`,
    /// a follow-up send), checked to be this task.
    ///
    /// # Errors
    /// As [`Session::about_this_task`].
    pub(super) fn is_this_task(&self, what: &str, task: &Task) -> Result<(), Error> {
        self.about_this_task(what, Some(&task.id), task.context_id.as_ref())
    }

    /// The answer to a send, checked to be about this task (a follow-up continues it; before the
    /// first answer there is no task yet and anything goes).
    ///
    /// # Errors
    /// As [`Session::about_this_task`].
    pub(super) fn is_this_tasks_answer(
        &self,
        what: &str,
        response: &SendMessageResponse,
    ) -> Result<(), Error> {
        match response {
            SendMessageResponse::Task(task) => self.is_this_task(what, task),
            SendMessageResponse::Message(message) => {
                self.about_this_task(what, message.task_id.as_ref(), message.context_id.as_ref())
            }
        }
    }

    /// A stream event: checked to be about this task, folded into the task and observed.
    ///
    /// # Errors
    /// As [`Session::about_this_task`]; the event is then neither folded nor observed.
    pub(super) fn on_event<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        event: StreamResponse,
    ) -> Result<(), Error> {
        let (task, context) = match &event {
            StreamResponse::Task(task) => (Some(&task.id), task.context_id.as_ref()),
            StreamResponse::Message(message) => (message.task_id.as_ref(), message.context_id.as_ref()),
            StreamResponse::StatusUpdate(update) => (Some(&update.task_id), update.context_id.as_ref()),
            StreamResponse::ArtifactUpdate(update) => (Some(&update.task_id), update.context_id.as_ref()),
        };
        self.about_this_task("a stream event", task, context)?;
        if let Some(on_update) = &self.on_update {
            on_update.event(&event);
        }
        let observed = Observed::from_stream_response(&event, Channel::Stream);
        let message = matches!(event, StreamResponse::Message(_));
        self.snapshot.apply_event(event);
        let bound = self.conn.client().config().task_budget().result_bytes();
        if self.snapshot.held_bytes() > bound {
            return Err(Error::result_over_budget(self.snapshot.held_bytes(), bound).after_a_send());
        }
        if message && self.snapshot.task().is_none() {
            self.direct_answer = true;
        }
        if let Some(observed) = observed {
            self.observe(handle, observed);
        }
        Ok(())
    }

    /// The answer to a send: checked to be about this task (a follow-up continues it), folded into
    /// the task and observed.
    ///
    /// # Errors
    /// As [`Session::about_this_task`]; the answer is then neither folded nor observed.
    pub(super) fn on_send_response<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        response: &SendMessageResponse,
    ) -> Result<(), Error> {
        self.is_this_tasks_answer("a SendMessage answer", response)?;
        if let Some(on_update) = &self.on_update {
            on_update.send_answer(response);
        }
        self.snapshot.apply_send(response);
        match Observed::from_send_response(response) {
            Some(observed) => self.observe(handle, observed),
            None => self.direct_answer = true,
        }
        Ok(())
    }

    /// The answers a task has left: this handle's follow-up policy and its whole budget.
    pub(super) fn follow_ups(&self) -> super::follow_up::FollowUps {
        super::follow_up::FollowUps::new(self.settings.follow_up.clone(), self.settings.max_follow_ups)
    }

    /// A push callback: observed (its state, if it carries one).
    pub(super) fn on_callback<H: TaskHandle>(&mut self, handle: &mut H, callback: &PushCallback) {
        self.observe(handle, Observed::PushCallback { state: callback.task_state() });
    }

    /// Reads every callback already received for the task; and, once, observes that the receiver
    /// turned connections away while the task waited (a callback may have been lost on the
    /// client's side, so the silence is not the agent's).
    pub(super) fn drain_callbacks<H: TaskHandle>(&mut self, handle: &mut H) {
        let Some(task) = self.task_id() else { return };
        let Some(watch) = self.push.watch.as_ref() else { return };
        let receiver = watch.receiver.clone();
        let turned_away = watch.turned_away_at.is_some_and(|at| receiver.turned_away() > at);
        while let Some(callback) = receiver.try_next_callback(&task) {
            self.on_callback(handle, &callback);
        }
        if turned_away && let Some(watch) = self.push.watch.as_mut() {
            watch.turned_away_at = None;
            self.observe(handle, Observed::ReceiverTurnedAway);
        }
    }

    /// The send carrying the push config succeeded: the config is registered.
    pub(super) fn push_accepted<H: TaskHandle>(&mut self, handle: &mut H) {
        if let Some(watch) = self.push.watch.as_mut().filter(|w| !w.accepted) {
            watch.accepted = true;
            watch.turned_away_at = Some(watch.receiver.turned_away());
            let inline = watch.confirm;
            let out_of_reach =
                crate::agent_url::webhook_out_of_reach(&self.conn.interface().url, watch.registration.url());
            if out_of_reach {
                // Said before the registration it explains: a silence there says nothing.
                self.observe(handle, Observed::WebhookOutOfReach);
            }
            self.observe(handle, Observed::PushRegistered);
            if inline {
                let answer = PushRegistrationAnswer::AcceptedUnconfirmed(
                    "the send carrying it succeeded; not confirmed yet".to_owned(),
                );
                self.record_push_answer(PushRegistrationPath::Inline, answer);
            }
        }
    }

    /// The current turn is over: a direct answer, a terminal state, or a question not yet answered
    /// (the question just answered does not end the turn while the agent has not moved on).
    pub(super) fn turn_ended(&self) -> bool {
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
                let asked = self.question();
                answered.is_some() && asked.is_some() && asked.as_ref() != answered.as_ref()
            }
        }
    }

    /// The id of the agent's current status message (its question while it asks for input).
    pub(super) fn question(&self) -> Option<MessageId> {
        self.snapshot.task().and_then(|t| t.status.message.as_ref()).map(|m| m.message_id.clone())
    }

    /// `message` as this task's next message, with its ids (see [`with_ids`]): after the first,
    /// it continues the task (its `taskId` and `contextId` set), and answering a question is
    /// remembered so the same question again is not taken for a new one.
    pub(super) fn prepare(&mut self, mut message: Message) -> Message {
        if let Some(task) = self.snapshot.task() {
            message.task_id = Some(task.id.clone());
            if message.context_id.is_none() {
                message.context_id = task.context_id.clone();
            }
            if task.status.state.is_interrupted() {
                self.answered = Some(self.question());
            }
        }
        with_ids(message)
    }

    /// Before a turn that opens by replying to a task this handle did not start (the message names
    /// its task, and nothing of it was seen yet): the question the task waits on, read once with
    /// `GetTask`, is remembered as the one answered, so the agent's answer from before it read the
    /// reply (the same question again) is not taken for a new one and the turn is followed to its
    /// end. Not observed as a transition: it is the task's state from before this run. A fetch that
    /// fails leaves the turn to end on the first question seen, as without it.
    pub(super) async fn learn_question_replied_to(&mut self, message: &Message) {
        if self.snapshot.task().is_some() || self.answered.is_some() {
            return;
        }
        let Some(task_id) = message.task_id.clone() else { return };
        self.round_trip();
        match self.conn.get_task(GetTaskRequest::new(task_id)).await {
            Ok(task) if task.status.state.is_interrupted() => {
                self.answered = Some(task.status.message.map(|m| m.message_id));
            }
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "the task replied to could not be read first"),
        }
    }

    /// The request for `message`: the accepted output modes, `returnImmediately` on a polled
    /// send, and the push config inline while the agent has not taken it.
    pub(super) fn request(
        &self,
        message: &Message,
        accepted_output_modes: &[String],
        return_immediately: bool,
    ) -> SendMessageRequest {
        let configuration = SendMessageConfiguration {
            accepted_output_modes: accepted_output_modes.to_vec(),
            return_immediately,
            task_push_notification_config: self
                .push
                .watch
                .as_ref()
                .filter(|w| !w.accepted)
                .map(|w| w.registration.to_config()),
            ..SendMessageConfiguration::default()
        };
        SendMessageRequest::new(message.clone()).with_configuration(configuration)
    }
}

/// `message` with the ids every send goes out with, whoever wrote it (a caller, or a follow-up
/// policy that only writes the content): a random message id when it has none, and on a message
/// that starts a task (no task id) a context id of the client's when it has none, so a send whose
/// answer is lost can be looked up by it ([`AgentConnection::find_sent_task`]) instead of sent again.
pub(super) fn with_ids(mut message: Message) -> Message {
    if message.message_id.is_empty() {
        message.message_id = MessageId::random();
    }
    if message.task_id.is_none() && message.context_id.as_ref().is_none_or(|c| c.is_empty()) {
        message.context_id = Some(ContextId::from(uuid::Uuid::new_v4().to_string()));
    }
    message
}
