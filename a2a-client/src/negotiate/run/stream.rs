//! The streamed turn: open the stream, read it, reattach after drops, poll if it closed early.

use a2a_types::{Message, StreamResponse};
use a2a_typestate::{Call, Capability, Channel, Observed};
use futures::StreamExt;

use super::{Rejection, Run, StreamStop, StreamTurn, observed_fault};
use crate::{Error, EventStream, StreamEnd};

impl Run<'_> {
    pub(super) async fn stream_turn(&mut self, message: &Message) -> Result<StreamTurn, Error> {
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

    /// Reads a stream to its end, reattaching after drops within the retry budget; polls when it
    /// closed (or could not be reattached) before the turn ended.
    pub(super) async fn consume(&mut self, mut stream: EventStream, mut call: Call) -> Result<(), Error> {
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
    pub(super) async fn read(&mut self, stream: &mut EventStream, call: Call) -> Result<StreamStop, Error> {
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

    pub(super) fn on_event(&mut self, event: &StreamResponse) {
        self.snapshot.apply_event(event);
        if matches!(event, StreamResponse::Message(_)) && self.snapshot.task().is_none() {
            self.direct_answer = true;
        }
        if let Some(observed) = Observed::from_stream_response(event, Channel::Stream) {
            self.observe(observed);
        }
    }
}
