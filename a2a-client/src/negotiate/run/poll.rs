//! The polled turn: `SendMessage` with `returnImmediately`, then `GetTask` at a bounded cadence;
//! and the `GetTask` that confirms artifacts or relies on the history at the task's end.

use a2a_types::{GetTaskRequest, Message, TaskState};
use a2a_typestate::{Advice, Call, Capability, Channel, LifecycleFault, Observed};

use super::{Rejection, Run};
use crate::Error;

impl Run<'_> {
    pub(super) async fn poll_turn(&mut self, message: &Message) -> Result<(), Error> {
        let response = loop {
            self.round_trip();
            match self.conn.send_message(self.request(message, true)).await {
                Ok(response) => break response,
                Err(error) => match self.rejection(Call::SendMessage, error) {
                    Rejection::Refused => return Ok(()),
                    Rejection::NoPush => {}
                    // Only a streaming call is answered "no streaming"; a send never is.
                    Rejection::NoStreaming => return Ok(()),
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

    pub(super) async fn poll_until_end(&mut self) -> Result<(), Error> {
        let cadence = self.client.config().poll_cadence();
        let card_cadence = self.verifier.card().poll_cadence().is_some();
        let bound = self.verifier.bounds().working_unobservable();
        let polling_since = self.now();
        let mut polls = 0;
        let fault_budget = self.client.config().retry_policy().max_attempts();
        let mut faulted_polls = 0;
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
            match self.fetch_task(false).await {
                Ok(()) => faulted_polls = 0,
                // The task exists: a poll whose retries ran out is polled again (the next poll is the
                // retry), rather than returning an error that would invite sending the task twice.
                Err(error) if error.is_retryable() && faulted_polls + 1 < fault_budget => faulted_polls += 1,
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// One `GetTask`; with `historyLength` when `for_history` (the history is relied on).
    pub(super) async fn fetch_task(&mut self, for_history: bool) -> Result<(), Error> {
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
    pub(super) async fn confirm_at_end(&mut self) -> Result<(), Error> {
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
}
