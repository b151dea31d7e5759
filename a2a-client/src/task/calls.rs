//! The calls, named as in the spec: on [`Task`] gated by the claim they exercise, on [`DynTask`]
//! checked at run time. Both drive the same turn code in the session.

use std::sync::Arc;

use futures::StreamExt;

use a2a_typestate::{
    Call, Capability, Channel, ClaimSet, HasHistoryClaim, HasPushClaim, HasStreamingClaim, Observed,
    TaskHandle, Tracked,
};
use a2a_typestate_types::{
    CancelTaskRequest, Message, SendMessageConfiguration, SendMessageRequest, SendMessageResponse,
};

use super::answer::Answer;
use super::follow_up::{FollowUp, FollowUps, InputRequest};
use super::push::PushWatch;
use super::session::{Session, SingleShotReason, with_ids};
use super::snapshot::Snapshot;
use super::{DynTask, OnUpdate, Task, TaskCall};
use crate::Error;
use crate::types;
use crate::webhook::{PushReceiver, PushRegistration};

impl Session {
    /// How a call that may exercise a claim returns: the contradiction when the verifier now
    /// refuses a claim the handle holds, whatever the call itself came back with (an agent's "not
    /// supported" is what contradicted the claim, not an error of the call); else its result.
    fn answer<H: TaskHandle, T>(&self, handle: &H, result: Result<T, Error>) -> Result<Answer<T>, Error> {
        match handle.verifier().refusal(self.now()) {
            Some(violation) => Ok(Answer::Contradicted(violation)),
            None => result.map(Answer::Answered),
        }
    }

    /// How a turn returns: as [`answer`](Self::answer), its result the task (or direct message)
    /// as last seen once the turn ended.
    fn turn_answer<H: TaskHandle>(
        &self,
        handle: &H,
        turn: Result<(), Error>,
    ) -> Result<Answer<SendMessageResponse>, Error> {
        self.answer(handle, turn.and_then(|()| self.result()))
    }

    fn result(&self) -> Result<SendMessageResponse, Error> {
        self.snapshot.response().ok_or_else(|| {
            Error::protocol_answer("the agent answered neither a task nor a message")
                .with_url(self.conn.agent().as_str())
        })
    }

    fn watch_push(&mut self, receiver: Arc<PushReceiver>) -> Result<(), Error> {
        if self.task_id().is_some() {
            return Err(Error::misuse(
                "the task exists already: register its webhook with create_task_push_notification_config",
            ));
        }
        let registration = receiver.register_for_new_task();
        let arrivals = receiver.arrivals();
        self.push.watch = Some(PushWatch {
            receiver,
            registration,
            accepted: false,
            confirm: true,
            arrivals,
            turned_away_at: None,
        });
        Ok(())
    }

    pub(super) async fn create_push_config<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        receiver: Arc<PushReceiver>,
    ) -> Result<PushRegistration, Error> {
        let Some(task) = self.task_id() else {
            return Err(Error::misuse("no task to register a webhook for yet: send a message first"));
        };
        let registration = receiver.register(&task);
        self.round_trip();
        match self.conn.create_task_push_notification_config(registration.to_config()).await {
            Ok(_) => {
                let arrivals = receiver.arrivals();
                if let Some(old) = self.push.watch.replace(PushWatch {
                    receiver,
                    registration: registration.clone(),
                    accepted: false,
                    confirm: false,
                    arrivals,
                    turned_away_at: None,
                }) {
                    old.receiver.unregister(&old.registration);
                }
                if self.ended_unseen_before_registration().await {
                    // Nothing was left to push: no callback is awaited, so none is missed (one that
                    // still comes verifies the claim).
                    if let Some(watch) = self.push.watch.as_mut() {
                        watch.accepted = true;
                    }
                } else {
                    self.push_accepted(handle);
                }
                Ok(registration)
            }
            Err(error) => {
                receiver.unregister(&registration);
                Err(self.observe_error(handle, Call::PushNotificationConfig, error))
            }
        }
    }

    async fn fetch<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        history: Option<u32>,
    ) -> Result<types::Task, Error> {
        self.fetch_task(handle, history).await?;
        self.snapshot
            .task()
            .cloned()
            .ok_or_else(|| Error::misuse("no task to fetch yet: send a message first"))
    }

    async fn cancel<H: TaskHandle>(&mut self, handle: &mut H) -> Result<types::Task, Error> {
        let Some(id) = self.task_id() else {
            return Err(Error::misuse("no task to cancel yet: send a message first"));
        };
        self.round_trip();
        match self.conn.cancel_task(CancelTaskRequest { id, ..CancelTaskRequest::default() }).await {
            Ok(task) => {
                self.is_this_task("a CancelTask answer", &task)?;
                self.observe(handle, Observed::task(&task, Channel::SendResponse));
                self.snapshot.replace(task.clone());
                Ok(task)
            }
            Err(error) => Err(self.observe_error(handle, Call::CancelTask, error)),
        }
    }

    /// What the agent asks for, when the turn ended on a new question.
    fn input_request(&self) -> Option<InputRequest> {
        let task = self.snapshot.task()?;
        task.status.state.is_interrupted().then(|| InputRequest {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state,
            question: task.status.message.clone(),
        })
    }
}

// The gated calls, written once over every claim set and bounded on the slot each exercises, as
// the typestate's permits are: on a handle without the claim, `Task<SingleShot>` included, the
// compiler names the missing claim instead of "no method named ...".
impl<C: ClaimSet> Task<C> {
    /// Sends `message` with `SendStreamingMessage` and follows the task until the turn ends; the
    /// first message starts the task, later ones continue it (`taskId`/`contextId` set). Returns
    /// the task (or direct message) as last seen, or the contradiction of a claim (an agent that
    /// answers "not supported" to a card claiming streaming, a stream that ends without the
    /// artifact `GetTask` has): no error, `settle_streaming` then returns the refusal. Needs a
    /// streaming claim.
    ///
    /// # Errors
    /// A [`LifecycleFault`](crate::LifecycleFault) when the task shows no progress past the
    /// unobservable bound or runs past its deadline; a transport fault that outlived the retry
    /// budget; an error the agent sent that contradicts no claim.
    pub fn send_streaming_message(&mut self, message: Message) -> TaskCall<'_, Answer<SendMessageResponse>>
    where
        C::Streaming: HasStreamingClaim,
    {
        let _permit = self.handle.stream_permit();
        Box::pin(async move {
            let turn = self.session.stream_turn(&mut self.handle, message).await;
            self.session.turn_answer(&self.handle, turn)
        })
    }

    /// Follows the task on a new `SubscribeToTask` stream until the turn ends. Needs a streaming
    /// claim.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) before the agent assigned a task id, or once
    /// the task ended; otherwise as [`send_streaming_message`](Self::send_streaming_message).
    pub fn subscribe_to_task(&mut self) -> TaskCall<'_, Answer<SendMessageResponse>>
    where
        C::Streaming: HasStreamingClaim,
    {
        let _permit = self.handle.stream_permit();
        Box::pin(async move {
            let turn = self.session.subscribe_turn(&mut self.handle).await;
            self.session.turn_answer(&self.handle, turn)
        })
    }

    /// Fetches the task with at most `history_length` history messages (`GetTask` with
    /// `historyLength`) and relies on that history to rebuild the states the client missed: the
    /// first such fetch is the history claim's check (an empty history is the contradiction, and
    /// its advice is to abandon the task). Needs a history claim.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) before the agent assigned a task id;
    /// otherwise as [`AgentConnection::get_task`](crate::AgentConnection::get_task).
    pub fn get_task_history(&mut self, history_length: u32) -> TaskCall<'_, Answer<types::Task>>
    where
        C::History: HasHistoryClaim,
    {
        let _permit = self.handle.history_permit();
        Box::pin(async move {
            let fetched = self.session.fetch(&mut self.handle, Some(history_length.max(1))).await;
            self.session.answer(&self.handle, fetched)
        })
    }

    /// Watches push callbacks on `receiver` for this task: the config rides inline on the first
    /// send, so no event can precede it, and callbacks feed the handle as they arrive. Once the task
    /// exists, the inline config is confirmed with `GetTaskPushNotificationConfig`; when the agent
    /// refused it inline (`-32003`, or `-32602` for a URL it will not call) or accepted and dropped
    /// it, `CreateTaskPushNotificationConfig` is tried before any refusal, and only that answer
    /// counts. [`push_registration_attempts`](Task::push_registration_attempts) lists what each
    /// path answered. Needs a push claim.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) once the task exists (use
    /// [`create_task_push_notification_config`](Self::create_task_push_notification_config)).
    pub fn watch_push(&mut self, receiver: Arc<PushReceiver>) -> Result<(), Error>
    where
        C::Push: HasPushClaim,
    {
        let _permit = self.handle.push_permit();
        self.session.push.alternatives = true;
        self.session.watch_push(receiver)
    }

    /// Registers a webhook on `receiver` for the existing task
    /// (`CreateTaskPushNotificationConfig`) and watches its callbacks. A `-32003` answer to a card
    /// claiming push is the contradiction, read with `settle_push`. Unless the handle already saw
    /// the task end, one `GetTask` follows the create call: a task that had ended by then left
    /// nothing to push, and no callback is awaited (one that still comes verifies the claim).
    /// Needs a push claim.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) before the agent assigned a task id;
    /// otherwise as [`AgentConnection::create_task_push_notification_config`](crate::AgentConnection::create_task_push_notification_config).
    pub fn create_task_push_notification_config(
        &mut self,
        receiver: Arc<PushReceiver>,
    ) -> TaskCall<'_, Answer<PushRegistration>>
    where
        C::Push: HasPushClaim,
    {
        let _permit = self.handle.push_permit();
        Box::pin(async move {
            let created = self.session.create_push_config(&mut self.handle, receiver).await;
            self.session.answer(&self.handle, created)
        })
    }

    /// After the task ended, reads push callbacks until the push claim is verified or the arrival
    /// bound from the terminal transition ran out (then `settle_push` refuses). Returns at once
    /// while the task runs or when nothing is watched. Needs a push claim.
    ///
    /// # Errors
    /// None today; the signature leaves room for a receiver that fails.
    pub fn await_push_callback(&mut self) -> TaskCall<'_, ()>
    where
        C::Push: HasPushClaim,
    {
        let _permit = self.handle.push_permit();
        Box::pin(async move {
            self.session.await_push(&mut self.handle).await;
            Ok(())
        })
    }

    /// Sets the `acceptedOutputModes` every later message is sent with (empty: any). They take
    /// part in refusal condition 3.
    pub fn set_accepted_output_modes(&mut self, modes: impl IntoIterator<Item = impl Into<String>>) {
        self.session.settings.accepted_output_modes = modes.into_iter().map(Into::into).collect();
    }

    /// Sets how a single-shot send answers a task that pauses to ask for input (`INPUT_REQUIRED`,
    /// `AUTH_REQUIRED`), at most `budget` times: each answer is one more blocking `SendMessage` on
    /// the same task. By default none is answered and the paused task is the result.
    pub fn set_follow_up(&mut self, policy: FollowUp, budget: u32) {
        self.session.settings.follow_up = policy;
        self.session.settings.max_follow_ups = budget;
    }

    /// Calls `on_update` with each update of this task as it arrives (stream events, send answers,
    /// polled tasks), on this handle and the single-shot handle a refusal hands back: see
    /// [`OnUpdate`].
    pub fn set_on_update(&mut self, on_update: OnUpdate) {
        self.session.on_update = Some(on_update);
    }

    /// Sends `message` with `SendMessage`. On a tracked handle (`Task<Claims<..>>`) it goes with
    /// `returnImmediately` and `GetTask` is polled at the card's cadence or the client's bounded
    /// one until the turn ends; later messages continue the task. On `Task<SingleShot>` (the
    /// fallback after a refusal, or a suspect agent) it is the blocking, single-shot send that
    /// expects no intermediate states: a new task, whose paused states are answered by the
    /// [follow-up policy](Self::set_follow_up). A message with an empty id is given a random one.
    ///
    /// # Errors
    /// As [`send_streaming_message`](Task::send_streaming_message); on `Task<SingleShot>`, as
    /// [`AgentConnection::send_message`](crate::AgentConnection::send_message).
    pub fn send_message(&mut self, message: Message) -> TaskCall<'_, Answer<SendMessageResponse>> {
        Box::pin(async move {
            if C::SLOTS.is_none() {
                return self.session.single_shot_send(message).await.map(Answer::Answered);
            }
            let turn = self.session.poll_turn(&mut self.handle, message).await;
            self.session.turn_answer(&self.handle, turn)
        })
    }

    /// Polls the task once (`GetTask`, relying on no history). Needs a tracked handle.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) before the agent assigned a task id;
    /// otherwise as [`AgentConnection::get_task`](crate::AgentConnection::get_task).
    pub fn get_task(&mut self) -> TaskCall<'_, types::Task>
    where
        C: Tracked,
    {
        Box::pin(self.session.fetch(&mut self.handle, None))
    }

    /// Asks the agent to cancel the task (`CancelTask`). Needs a tracked handle.
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) before the agent assigned a task id;
    /// otherwise as [`AgentConnection::cancel_task`](crate::AgentConnection::cancel_task).
    pub fn cancel_task(&mut self) -> TaskCall<'_, types::Task>
    where
        C: Tracked,
    {
        Box::pin(self.session.cancel(&mut self.handle))
    }
}

impl Session {
    /// The lifecycle-agnostic path: a blocking `SendMessage` expecting no intermediate states; a
    /// paused task is answered by the follow-up policy with another blocking send on it, each
    /// answer counted against the budget. Counted as what made the handle single-shot.
    pub(super) async fn single_shot_send(
        &mut self,
        mut message: Message,
    ) -> Result<SendMessageResponse, Error> {
        let metrics = self.conn.client().metrics();
        match self.single_shot {
            Some(SingleShotReason::Refused) => {
                metrics.record_fallback();
                crate::task_events::fallback(self.round_trips);
            }
            Some(SingleShotReason::Suspect) => {
                metrics.record_suspect_single_shot();
                crate::task_events::suspect_single_shot();
            }
            Some(SingleShotReason::Chosen) | None => {}
        }
        let mut follow_ups = self.follow_ups();
        let mut answering = false;
        loop {
            let mut request = SendMessageRequest::new(with_ids(message));
            if !self.settings.accepted_output_modes.is_empty() {
                request = request.with_configuration(SendMessageConfiguration {
                    accepted_output_modes: self.settings.accepted_output_modes.clone(),
                    ..SendMessageConfiguration::default()
                });
            }
            let response = loop {
                match self.conn.send_message(request.clone()).await {
                    Ok(response) => break response,
                    Err(error) if !answering && self.fail_over(&error).await => {}
                    // The work may be running: followed to its end, never sent again.
                    Err(error) if error.may_have_run() && !answering => {
                        break self.follow_unanswered_single_shot(&request.message, error).await?;
                    }
                    Err(error) => return Err(error),
                }
            };
            self.answered();
            if answering {
                // A follow-up continues the task it answers; a first send starts a new one.
                self.is_this_tasks_answer("a follow-up answer", &response)?;
            }
            if let Some(on_update) = &self.on_update {
                on_update.send_answer(&response);
            }
            self.snapshot = Snapshot::default();
            self.snapshot.apply_send(&response);
            let SendMessageResponse::Task(task) = &response else { return Ok(response) };
            if !task.status.state.is_interrupted() {
                return Ok(response);
            }
            let request = InputRequest {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                state: task.status.state,
                question: task.status.message.clone(),
            };
            let Some(answer) = follow_ups.answer(&request) else { return Ok(response) };
            message = answer;
            answering = true;
        }
    }
}

impl Session {
    /// After a single-shot send whose answer was lost ([`Error::may_have_run`]): the task it
    /// started, found under the message's context and polled with `GetTask` until it ends or asks
    /// for input, within the task deadline; or `error`, saying why no task was found.
    async fn follow_unanswered_single_shot(
        &mut self,
        message: &Message,
        error: Error,
    ) -> Result<SendMessageResponse, Error> {
        let found = self.conn.task_of_unanswered_send(message, error).await?;
        let settled = |task: &types::Task| task.state().is_terminal() || task.state().is_interrupted();
        if settled(&found) {
            return Ok(SendMessageResponse::Task(found));
        }
        // Each new state reaches the caller's observer as it is seen; the last is the answer, which
        // the send reports as it reports any answer.
        let mut states = self.conn.follow_task(&found.id);
        let mut last = found;
        while let Some(polled) = states.next().await {
            let polled = polled?;
            if !settled(&polled)
                && let Some(on_update) = &self.on_update
            {
                on_update.send_answer(&SendMessageResponse::Task(polled.clone()));
            }
            last = polled;
        }
        Ok(SendMessageResponse::Task(last))
    }
}

/// The dynamic handle's calls: the same as [`Task`]'s, with the claim checked at run time.
impl DynTask {
    fn require(&self, capability: Capability) -> Result<(), Error> {
        let missing = match capability {
            Capability::Streaming => self.handle.stream_permit().err(),
            Capability::StateTransitionHistory => self.handle.history_permit().err(),
            Capability::PushNotifications => self.handle.push_permit().err(),
        };
        match missing {
            Some(missing) => Err(Error::misuse(missing.to_string())),
            None => self.require_tracked(),
        }
    }

    pub(super) fn require_tracked(&self) -> Result<(), Error> {
        match self.handle.send_permit() {
            Some(_) => Ok(()),
            None => Err(Error::misuse(
                "a single-shot task handle tracks no lifecycle: only send_message is left on it",
            )),
        }
    }

    /// As [`Task::send_streaming_message`].
    ///
    /// # Errors
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) without a streaming claim; otherwise as
    /// [`Task::send_streaming_message`].
    pub async fn send_streaming_message(
        &mut self,
        message: Message,
    ) -> Result<Answer<SendMessageResponse>, Error> {
        self.require(Capability::Streaming)?;
        let turn = self.session.stream_turn(&mut self.handle, message).await;
        self.session.turn_answer(&self.handle, turn)
    }

    /// As [`Task::subscribe_to_task`].
    ///
    /// # Errors
    /// As [`Task::subscribe_to_task`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) without a
    /// streaming claim.
    pub async fn subscribe_to_task(&mut self) -> Result<Answer<SendMessageResponse>, Error> {
        self.require(Capability::Streaming)?;
        let turn = self.session.subscribe_turn(&mut self.handle).await;
        self.session.turn_answer(&self.handle, turn)
    }

    /// As [`Task::send_message`]: polled on a tracked handle, the single-shot send on a single-shot
    /// one.
    ///
    /// # Errors
    /// As [`Task::send_message`].
    pub async fn send_message(&mut self, message: Message) -> Result<Answer<SendMessageResponse>, Error> {
        if self.handle.is_single_shot() {
            return self.session.single_shot_send(message).await.map(Answer::Answered);
        }
        let turn = self.session.poll_turn(&mut self.handle, message).await;
        self.session.turn_answer(&self.handle, turn)
    }

    /// As [`Task::get_task`].
    ///
    /// # Errors
    /// As [`Task::get_task`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) on a single-shot
    /// handle.
    pub async fn get_task(&mut self) -> Result<types::Task, Error> {
        self.require_tracked()?;
        self.session.fetch(&mut self.handle, None).await
    }

    /// As [`Task::get_task_history`].
    ///
    /// # Errors
    /// As [`Task::get_task_history`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) without a
    /// history claim.
    pub async fn get_task_history(&mut self, history_length: u32) -> Result<Answer<types::Task>, Error> {
        self.require(Capability::StateTransitionHistory)?;
        let fetched = self.session.fetch(&mut self.handle, Some(history_length.max(1))).await;
        self.session.answer(&self.handle, fetched)
    }

    /// As [`Task::watch_push`].
    ///
    /// # Errors
    /// As [`Task::watch_push`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) without a push
    /// claim.
    pub fn watch_push(&mut self, receiver: Arc<PushReceiver>) -> Result<(), Error> {
        self.require(Capability::PushNotifications)?;
        self.session.push.alternatives = true;
        self.session.watch_push(receiver)
    }

    /// As [`Task::create_task_push_notification_config`].
    ///
    /// # Errors
    /// As [`Task::create_task_push_notification_config`];
    /// [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) without a push claim.
    pub async fn create_task_push_notification_config(
        &mut self,
        receiver: Arc<PushReceiver>,
    ) -> Result<Answer<PushRegistration>, Error> {
        self.require(Capability::PushNotifications)?;
        let created = self.session.create_push_config(&mut self.handle, receiver).await;
        self.session.answer(&self.handle, created)
    }

    /// As [`Task::await_push_callback`]; returns at once without a push claim.
    pub async fn await_push_callback(&mut self) {
        if self.require(Capability::PushNotifications).is_ok() {
            self.session.await_push(&mut self.handle).await;
        }
    }

    /// As [`Task::cancel_task`].
    ///
    /// # Errors
    /// As [`Task::cancel_task`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) on a single-shot
    /// handle.
    pub async fn cancel_task(&mut self) -> Result<types::Task, Error> {
        self.require_tracked()?;
        self.session.cancel(&mut self.handle).await
    }

    /// As [`Task::set_accepted_output_modes`].
    pub fn set_accepted_output_modes(&mut self, modes: impl IntoIterator<Item = impl Into<String>>) {
        self.session.settings.accepted_output_modes = modes.into_iter().map(Into::into).collect();
    }

    /// As [`Task::set_follow_up`].
    pub fn set_follow_up(&mut self, policy: FollowUp, budget: u32) {
        self.session.settings.follow_up = policy;
        self.session.settings.max_follow_ups = budget;
    }

    /// As [`Task::set_on_update`].
    pub fn set_on_update(&mut self, on_update: OnUpdate) {
        self.session.on_update = Some(on_update);
    }

    /// Sets the `historyLength` the turns ask for when they rebuild missed states from the history
    /// (default [`DEFAULT_HISTORY_LENGTH`](crate::negotiate::DEFAULT_HISTORY_LENGTH)).
    pub fn set_history_length(&mut self, length: u32) {
        self.session.settings.history_length = length.max(1);
    }

    /// The answers this task has left under its follow-up policy: what `run_task` answers with.
    pub(crate) fn follow_ups(&self) -> FollowUps {
        self.session.follow_ups()
    }

    /// What the agent asks for, when the last turn ended on a question it has not moved on from.
    pub fn input_request(&self) -> Option<InputRequest> {
        self.session.turn_ended().then(|| self.session.input_request()).flatten()
    }

    /// The stream for an agent whose card does not claim streaming, for a caller that depends on
    /// it: under-declaring is safe, so `run_task` uses a stream the agent offers anyway. Nothing
    /// is checked (there is no claim); a `-32004` answer is returned for the caller to poll instead.
    pub(crate) async fn send_streaming_unclaimed(
        &mut self,
        message: Message,
    ) -> Result<Answer<SendMessageResponse>, Error> {
        self.require_tracked()?;
        // No claim to contradict: the agent's "not supported" goes back as the error it is.
        let turn = self.session.stream_turn(&mut self.handle, message).await;
        self.session.turn_answer(&self.handle, turn)
    }

    /// A webhook for an agent whose card does not claim push, for a caller that depends on it: the
    /// config rides inline and callbacks are read, nothing is checked; an agent answering `-32003`
    /// gets the message again without it.
    pub(crate) fn watch_push_unclaimed(&mut self, receiver: Arc<PushReceiver>) -> Result<(), Error> {
        self.require_tracked()?;
        self.session.watch_push(receiver)
    }

    /// `true` when a claim the handle holds was refused.
    pub fn is_refused(&self) -> bool {
        self.session.refused(&self.handle)
    }

    /// `true` once the agent's history was fetched and relied on.
    pub fn history_fetched(&self) -> bool {
        self.session.history_fetched
    }
}
