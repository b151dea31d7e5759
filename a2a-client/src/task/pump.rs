//! The one event loop every turn runs in: stream events, push callbacks, poll ticks and deadlines
//! feed the handle in arrival order, until the turn ends, a claim is refused, or a bound runs out.

use a2a_typestate::{
    Advice, Call, Capability, Channel, ClaimAnswer, ClaimStatus, InterfaceAnswer, Observed, PendingReason,
    TaskHandle, Verdict,
};
use a2a_typestate_types::{GetTaskRequest, Message, SendMessageResponse};
use futures::StreamExt;
use tokio::time::sleep_until;

use super::session::Session;
use crate::transport::poll::Cadence;
use crate::{Error, EventStream, StreamEnd};

/// Where a turn's updates come from.
enum Source {
    /// A `SendStreamingMessage` or `SubscribeToTask` stream (boxed: the stream holds its first
    /// event, the poll nothing).
    Stream(Box<EventStream>, Call),
    /// `GetTask` at the card's cadence or the client's bounded one.
    Poll,
}

/// What one turn's loop keeps between wake-ups: where updates come from, and the cadence and
/// budgets it follows them with.
struct Follow {
    source: Source,
    cadence: Cadence,
    polls: u32,
    next_poll: std::time::Duration,
    /// Polls in a row whose retries ran out, and how many of those the turn tolerates.
    faulted_polls: u32,
    fault_budget: u32,
    /// Reattachments left after a dropped stream (the retry policy's attempts, less the first).
    reattach_budget: u32,
    /// A stream dropped: states may have been missed, so the history is read once the turn ends.
    missed: bool,
    /// The transport fault a stream error named, kept for that stream's end.
    stream_fault: Option<crate::TransportFault>,
}

/// What the loop does after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    TurnEnded,
    /// A claim was refused: the turn stops where it is (the settle reads the refusal).
    Refused,
}

/// How long past a deadline the loop wakes, so the verdict it re-reads is settled.
const PAST_DEADLINE: std::time::Duration = std::time::Duration::from_millis(5);

impl Session {
    /// `true` when the verifier refused a claim the handle holds.
    pub(super) fn refused<H: TaskHandle>(&self, handle: &H) -> bool {
        handle.verifier().refusal(self.now()).is_some()
    }

    /// The start every turn shares: `message` made this task's next one, and observed as sent with
    /// the accepted output modes it goes out with.
    fn begin_turn<H: TaskHandle>(&mut self, handle: &mut H, message: Message) -> (Message, Vec<String>) {
        let message = self.prepare(message);
        let accepted = self.settings.accepted_output_modes.clone();
        self.observe(handle, Observed::message_sent(&message, &accepted));
        (message, accepted)
    }

    /// Sends `message` with `SendStreamingMessage` and follows the task on the stream (reattaching
    /// after drops, polling if it closed early) until the turn ends.
    pub(super) async fn stream_turn<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        message: Message,
    ) -> Result<(), Error> {
        self.learn_question_replied_to(&message).await;
        let (message, accepted) = self.begin_turn(handle, message);
        let stream = loop {
            self.round_trip();
            let call = Call::SendStreamingMessage;
            let opening = self.conn.send_streaming_message(self.request(&message, &accepted, false));
            match self.within_bound(handle, opening).await? {
                Ok(stream) => break stream,
                Err(error) if self.fail_over(&error).await => {}
                Err(error) if error.may_have_run() && self.task_id().is_none() => {
                    return self.follow_unanswered(handle, call, &message, error).await;
                }
                Err(error) if error.is_method_missing() && self.task_id().is_none() => {
                    let error = self.observe_error(handle, call, error);
                    self.ask_binding(handle).await;
                    return Err(error);
                }
                Err(error) => self.send_failed(handle, call, error)?,
            }
        };
        self.answered();
        self.push_accepted(handle);
        self.pump(handle, Source::Stream(Box::new(stream), Call::SendStreamingMessage)).await
    }

    /// After a "method not found" to the stream: asks the same interface for a task no one
    /// assigned, read as the interface check reads it
    /// ([`AgentConnection::interface_answer`](crate::AgentConnection::interface_answer)). The
    /// agent's own error there, in the binding ("task not found"), shows it speaks this binding,
    /// so the missing method is streaming's; any other answer leaves the stream's error unexplained
    /// (a client speaking another binding or version hears "method not found" too).
    async fn ask_binding<H: TaskHandle>(&mut self, handle: &mut H) {
        self.round_trip();
        let Err(error) = self.conn.get_unknown_task().await else { return };
        let in_binding = match self.conn.interface_answer(&error) {
            Some(ClaimAnswer::Interface { answer, .. }) => {
                matches!(answer, InterfaceAnswer::Served { .. } | InterfaceAnswer::AgentError { .. })
            }
            _ => false,
        };
        let code = error.protocol_error().and_then(|p| p.code()).and_then(|c| i32::try_from(c).ok());
        if let (true, Some(code)) = (in_binding, code) {
            self.observe(handle, Observed::BindingUnderstood { call: Call::GetTask, code });
        }
    }

    /// Sends `message` with `SendMessage` (`returnImmediately`) and polls `GetTask` until the turn
    /// ends.
    pub(super) async fn poll_turn<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        message: Message,
    ) -> Result<(), Error> {
        self.learn_question_replied_to(&message).await;
        let (message, accepted) = self.begin_turn(handle, message);
        let response = loop {
            self.round_trip();
            match self.conn.send_message(self.request(&message, &accepted, true)).await {
                Ok(response) => break response,
                Err(error) if self.fail_over(&error).await => {}
                Err(error) if error.may_have_run() && self.task_id().is_none() => {
                    return self.follow_unanswered(handle, Call::SendMessage, &message, error).await;
                }
                Err(error) => self.send_failed(handle, Call::SendMessage, error)?,
            }
        };
        self.answered();
        self.push_accepted(handle);
        self.on_send_response(handle, &response)?;
        self.pump(handle, Source::Poll).await
    }

    /// After a first send whose answer was lost ([`Error::may_have_run`]): the fault observed (it
    /// says nothing of the card), then the task the send started, found under the message's
    /// context, followed with `GetTask` until the turn ends; or the error, saying why no task was
    /// found. The message is never sent again.
    async fn follow_unanswered<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        call: Call,
        message: &Message,
        error: Error,
    ) -> Result<(), Error> {
        let error = self.observe_error(handle, call, error);
        self.round_trip();
        let found = self.conn.task_of_unanswered_send(message, error).await?;
        self.answered();
        self.on_send_response(handle, &SendMessageResponse::Task(found))?;
        self.pump(handle, Source::Poll).await
    }

    /// Follows the task this handle already knows with `GetTask` until the turn ends.
    pub(super) async fn poll_until_turn_ends<H: TaskHandle>(&mut self, handle: &mut H) -> Result<(), Error> {
        if self.task_id().is_none() {
            return Err(Error::misuse("no task to follow yet"));
        }
        if self.turn_ended() {
            return Ok(());
        }
        self.pump(handle, Source::Poll).await
    }

    /// Follows the task on a new `SubscribeToTask` stream until the turn ends.
    pub(super) async fn subscribe_turn<H: TaskHandle>(&mut self, handle: &mut H) -> Result<(), Error> {
        let Some(task) = self.task_id() else {
            return Err(Error::misuse("no task to subscribe to yet: send a message first"));
        };
        if let Some(state) = self.last_state.filter(|s| s.is_terminal()) {
            return Err(Error::misuse(format!(
                "task {task} already ended ({state}): nothing to subscribe to"
            )));
        }
        self.round_trip();
        let call = Call::SubscribeToTask;
        let opening = self.conn.resubscribe(&task);
        match self.within_bound(handle, opening).await? {
            Ok(stream) => self.pump(handle, Source::Stream(Box::new(stream), call)).await,
            Err(error) => Err(self.observe_error(handle, call, error)),
        }
    }

    /// Runs `call` (opening a stream waits for its first event) no longer than the lifecycle bound:
    /// an agent that sends nothing but keep-alive comments ends as a lifecycle fault.
    async fn within_bound<H: TaskHandle, T>(
        &self,
        handle: &H,
        call: impl std::future::Future<Output = T>,
    ) -> Result<T, Error> {
        let Some(deadline) = handle.verifier().lifecycle_deadline() else { return Ok(call.await) };
        match tokio::time::timeout_at(self.instant(deadline + PAST_DEADLINE), call).await {
            Ok(answer) => Ok(answer),
            Err(_) => Err(handle
                .verifier()
                .lifecycle_fault(self.now())
                .map_or_else(|| Error::transport(crate::TransportFault::Timeout, None), Error::from)),
        }
    }

    /// An error answering a send, observed: `Ok` when the send is to be made again without its
    /// inline push config (the agent does not take push and its card's claim was not refused for
    /// it), else the error (a refusal it caused is read with `settle_*`).
    fn send_failed<H: TaskHandle>(&mut self, handle: &mut H, call: Call, error: Error) -> Result<(), Error> {
        let carried_push = self.push.watch.as_ref().is_some_and(|w| !w.accepted);
        if carried_push && super::push::another_path_may_help(&error) {
            // The config rode on the send: the answer may be about the webhook. The send goes again
            // without it (a second refusal is then about something else).
            self.push.attempts.push(super::push::PushRegistrationAttempt {
                path: super::push::PushRegistrationPath::Inline,
                answer: super::push::refused(&error),
            });
            let watch = self.push.watch.take();
            if let Some(watch) = &watch {
                watch.receiver.unregister(&watch.registration);
            }
            if self.push.alternatives {
                // Before any refusal, the other path: CreateTaskPushNotificationConfig once the
                // task exists; its answer is the one observed.
                self.push.fallback = watch.map(|w| w.receiver);
                return Ok(());
            }
            if error.protocol_error().is_some_and(|p| p.is_push_notification_not_supported()) {
                let code = i32::try_from(
                    a2a_typestate_types::error::A2aErrorCode::PushNotificationNotSupported.code(),
                )
                .unwrap_or(i32::MIN);
                self.observe(handle, Observed::AgentError { call: Call::PushNotificationConfig, code });
                if self.refused(handle) {
                    return Err(error);
                }
            }
            return Ok(());
        }
        Err(self.observe_error(handle, call, error))
    }

    /// The loop. Ends `Ok` when the turn ended or a claim was refused; `Err` on a lifecycle fault,
    /// a transport fault that outlived its budget, or an error the agent sent. Each wake-up is one
    /// named step: a stream item, a callback, a poll tick, or a deadline to re-read.
    async fn pump<H: TaskHandle>(&mut self, handle: &mut H, source: Source) -> Result<(), Error> {
        let mut follow = self.follow(handle, source);
        let mut arrivals = self.push.watch.as_ref().map(|w| w.arrivals.clone());
        loop {
            match self.checkpoint(handle).await? {
                Flow::Refused => return Ok(()),
                Flow::TurnEnded => break,
                Flow::Continue => {}
            }
            let wake = handle.verifier().lifecycle_deadline().map(|d| self.instant(d + PAST_DEADLINE));
            let polling = matches!(follow.source, Source::Poll);
            let poll_at = self.instant(follow.next_poll);
            let flow = tokio::select! {
                item = next_item(&mut follow.source) => match item {
                    Some(Ok(event)) => self.on_event(handle, event).map(|()| Flow::Continue)?,
                    Some(Err(error)) => self.on_stream_error(handle, &mut follow, error)?,
                    None => self.on_stream_end(handle, &mut follow).await?,
                },
                _ = wait_changed(&mut arrivals) => Flow::Continue,
                () = sleep_until(poll_at), if polling => self.on_poll_tick(handle, &mut follow).await?,
                () = sleep_or_never(wake) => Flow::Continue,
            };
            if flow == Flow::TurnEnded {
                break;
            }
        }
        self.after_turn(handle, follow.missed).await
    }

    /// How this turn follows the task from `source`: the cadence and the budgets it starts with.
    fn follow<H: TaskHandle>(&self, handle: &H, source: Source) -> Follow {
        let config = self.conn.client().config();
        let cadence = Cadence::new(handle.verifier().card().poll_cadence(), config.poll_cadence());
        Follow {
            source,
            cadence,
            polls: 0,
            next_poll: self.now() + cadence.delay(0),
            faulted_polls: 0,
            fault_budget: config.retry_policy().max_attempts(),
            reattach_budget: config.retry_policy().max_attempts().saturating_sub(1),
            missed: false,
            stream_fault: None,
        }
    }

    /// Before each wait: the callbacks that arrived, a push registration still owed, then whether
    /// a claim was refused, a bound ran out, or the turn ended.
    async fn checkpoint<H: TaskHandle>(&mut self, handle: &mut H) -> Result<Flow, Error> {
        self.drain_callbacks(handle);
        self.follow_up_push(handle).await;
        if self.refused(handle) {
            return Ok(Flow::Refused);
        }
        if let Some(fault) = handle.verifier().lifecycle_fault(self.now()) {
            return Err(fault.into());
        }
        Ok(if self.turn_ended() { Flow::TurnEnded } else { Flow::Continue })
    }

    /// An error read from the stream: a transport fault is kept for the stream's end, an error the
    /// agent sent inside the stream ends the turn.
    fn on_stream_error<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        follow: &mut Follow,
        error: Error,
    ) -> Result<Flow, Error> {
        let Source::Stream(stream, call) = &follow.source else { return Ok(Flow::Continue) };
        let call = *call;
        follow.stream_fault = match stream.end() {
            Some(StreamEnd::Dropped(fault)) => Some(fault),
            _ => error.transport_fault(),
        };
        if follow.stream_fault.is_none() {
            return Err(self.observe_error(handle, call, error));
        }
        Ok(Flow::Continue)
    }

    /// The stream ended before the turn did: reattached after a drop (within the retry policy's
    /// attempts), else polled from here.
    async fn on_stream_end<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        follow: &mut Follow,
    ) -> Result<Flow, Error> {
        let Source::Stream(stream, call) = &follow.source else { return Ok(Flow::Continue) };
        let call = *call;
        let dropped = match stream.end() {
            Some(StreamEnd::Dropped(fault)) => Some(fault),
            _ => follow.stream_fault.take(),
        };
        match dropped {
            Some(fault) => {
                self.observe(handle, Observed::TransportFault { call, fault });
                if self.turn_ended() {
                    return Ok(Flow::TurnEnded);
                }
                let Some(task) = self.task_id() else {
                    // No event named the task: nothing to reattach to or poll.
                    return Err(Error::transport(fault, None));
                };
                follow.missed = true;
                follow.source = Source::Poll;
                if follow.reattach_budget > 0 {
                    follow.reattach_budget -= 1;
                    self.conn.client().metrics().record_retry();
                    self.round_trip();
                    let opening = self.conn.resubscribe(&task);
                    match self.within_bound(handle, opening).await? {
                        Ok(stream) => follow.source = Source::Stream(Box::new(stream), Call::SubscribeToTask),
                        // Still failing, or nothing left to follow (the task ended): poll.
                        Err(error) => {
                            let _ = self.observe_error(handle, Call::SubscribeToTask, error);
                        }
                    }
                }
            }
            None => {
                self.observe(handle, Observed::StreamClosed);
                // Closed before the turn ended: the task is polled from here.
                follow.source = Source::Poll;
            }
        }
        follow.next_poll = self.now() + follow.cadence.delay(follow.polls);
        Ok(Flow::Continue)
    }

    /// One `GetTask` at the cadence. The task exists: a poll whose retries ran out is polled again
    /// (the next poll is the retry), rather than an error that would invite sending the task twice.
    async fn on_poll_tick<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        follow: &mut Follow,
    ) -> Result<Flow, Error> {
        follow.polls = follow.polls.saturating_add(1);
        follow.next_poll = self.now() + follow.cadence.delay(follow.polls);
        match self.fetch_task(handle, None).await {
            Ok(()) => follow.faulted_polls = 0,
            Err(error) if error.is_retryable() && follow.faulted_polls + 1 < follow.fault_budget => {
                follow.faulted_polls += 1;
            }
            Err(error) => return Err(error),
        }
        Ok(Flow::Continue)
    }

    /// Once the turn ended: the history read when a dropped stream may have missed states, and the
    /// one `GetTask` that settles a stream which ended without its artifacts.
    async fn after_turn<H: TaskHandle>(&mut self, handle: &mut H, missed: bool) -> Result<(), Error> {
        if missed && handle.claim_status(Capability::StateTransitionHistory) != ClaimStatus::Unclaimed {
            self.fetch_task(handle, Some(self.settings.history_length)).await?;
        }
        let unconfirmed = handle
            .verifier()
            .verdict(Capability::Streaming, self.now())
            .is_some_and(|v| v.advice() == Advice::ConfirmWithGetTask);
        if unconfirmed {
            // One GetTask settles the artifacts and, when the handle holds a history claim, relies
            // on the history too (the caller depends on it to rebuild what it missed).
            let holds_history =
                handle.claim_status(Capability::StateTransitionHistory) != ClaimStatus::Unclaimed;
            let history = (holds_history && !self.history_fetched).then_some(self.settings.history_length);
            // The task ended on the stream with its result: a `GetTask` the agent does not serve
            // (or that fails) leaves the claim as the verifier reads it, never the task unfinished.
            if let Err(error) = self.fetch_task(handle, history).await {
                tracing::debug!(%error, "the GetTask confirming a streamed task's artifacts failed");
            }
        }
        Ok(())
    }

    /// One `GetTask`; with `historyLength` when the history is relied on (`Some`).
    pub(super) async fn fetch_task<H: TaskHandle>(
        &mut self,
        handle: &mut H,
        history_length: Option<u32>,
    ) -> Result<(), Error> {
        let Some(id) = self.task_id() else {
            return Err(Error::misuse("no task to fetch yet: send a message first"));
        };
        let request = GetTaskRequest {
            history_length: history_length.map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
            ..GetTaskRequest::new(id)
        };
        self.round_trip();
        let task = match self.conn.get_task(request).await {
            Ok(task) => task,
            Err(error) => return Err(self.observe_error(handle, Call::GetTask, error)),
        };
        self.is_this_task("a GetTask answer", &task)?;
        if let Some(on_update) = &self.on_update {
            on_update.event(&a2a_typestate_types::StreamResponse::Task(task.clone()));
        }
        self.observe(handle, Observed::task(&task, Channel::GetTask));
        if let Some(length) = history_length {
            self.history_fetched = true;
            self.observe(handle, Observed::history(&task, Some(length)));
        }
        self.snapshot.replace(task);
        Ok(())
    }

    /// After the task ended: reads callbacks until the push claim is verified or its bound from the
    /// terminal transition runs out. Returns at once when nothing is awaited.
    pub(super) async fn await_push<H: TaskHandle>(&mut self, handle: &mut H) {
        let mut arrivals = self.push.watch.as_ref().filter(|w| w.accepted).map(|w| w.arrivals.clone());
        while arrivals.is_some() {
            self.drain_callbacks(handle);
            let deadline = match handle.verifier().verdict(Capability::PushNotifications, self.now()) {
                Some(Verdict::Pending(pending)) => match pending.reason() {
                    PendingReason::AwaitingPushCallback { deadline: Some(deadline) } => *deadline,
                    _ => return,
                },
                _ => return,
            };
            tokio::select! {
                _ = wait_changed(&mut arrivals) => {}
                () = sleep_until(self.instant(deadline + PAST_DEADLINE)) => {}
            }
        }
    }
}

/// The next stream item; never resolves while polling.
async fn next_item(source: &mut Source) -> Option<Result<a2a_typestate_types::StreamResponse, Error>> {
    match source {
        Source::Stream(stream, _) => stream.next().await,
        Source::Poll => std::future::pending().await,
    }
}

/// Resolves when a callback was accepted; never when nothing is watched.
async fn wait_changed(arrivals: &mut Option<tokio::sync::watch::Receiver<u64>>) {
    let changed = match arrivals {
        Some(rx) => rx.changed().await.is_ok(),
        None => false,
    };
    if !changed {
        std::future::pending::<()>().await;
    }
}

async fn sleep_or_never(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => sleep_until(at).await,
        None => std::future::pending().await,
    }
}
