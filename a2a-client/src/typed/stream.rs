//! The streaming calls of [`TypedTask`]: they exist only where the handle holds a streaming claim.

use a2a_types::{
    GetTaskRequest, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task as WireTask,
};
use a2a_typestate::{Call, Channel, HasStreamingClaim, Observed, StreamPermit};
use futures::StreamExt;

use super::{Feedable, TypedTask};
use crate::{Error, EventStream, StreamEnd};

/// What one stream delivered, every item already fed to the handle.
#[derive(Debug)]
#[non_exhaustive]
pub struct Streamed {
    /// The events, in order.
    pub events: Vec<StreamResponse>,
    /// How the stream ended: [`StreamEnd::Dropped`] means events may have been missed (reattach
    /// with [`TypedTask::subscribe`]).
    pub end: Option<StreamEnd>,
    /// The `GetTask` that confirmed the artifacts, made when the claim was unverified and the
    /// terminal state came on the stream without any streamed artifact.
    pub confirmation: Option<WireTask>,
}

impl<C: Feedable> TypedTask<C> {
    /// Sends a message and reads the task's stream to its end (`SendStreamingMessage`). Each wait
    /// is bounded by the client's SSE idle timeout; a cut stream is observed as a transport fault,
    /// never as evidence against the card.
    ///
    /// While the streaming claim is unverified, a terminal state reached with no streamed artifact
    /// is confirmed with one `GetTask` (the check the claim's first use is).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] for a request carrying an inline push config (use
    /// [`register_push`](Self::register_push)); otherwise as
    /// [`AgentConnection::send_streaming_message`](crate::AgentConnection::send_streaming_message)
    /// (an agent answering `-32004` is observed: with an unverified claim that is a refusal, read
    /// it with `settle_streaming`); an error the agent sent inside the stream.
    pub async fn send_streaming(&mut self, request: SendMessageRequest) -> Result<Streamed, Error>
    where
        C::Streaming: HasStreamingClaim,
    {
        let permit = self.task.stream_permit();
        Self::refuse_inline_push(&request)?;
        let accepted = Self::accepted_output_modes(&request).to_vec();
        self.observe(Observed::message_sent(&request.message, &accepted));
        let call = Call::SendStreamingMessage;
        match self.session.conn.send_streaming_message(request).await {
            Ok(stream) => self.read_stream(stream, call, &permit).await,
            Err(error) => Err(self.observe_error(call, error)),
        }
    }

    /// Follows the task (`SubscribeToTask`) and reads its stream to its end, as
    /// [`send_streaming`](Self::send_streaming) does: how to reattach after a dropped stream.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] before the agent assigned a task id, or once the task was seen
    /// in a terminal state (there is nothing to follow, and the agent's `-32004` for it would
    /// read as a streaming refusal); otherwise as
    /// [`AgentConnection::subscribe_to_task`](crate::AgentConnection::subscribe_to_task).
    pub async fn subscribe(&mut self) -> Result<Streamed, Error>
    where
        C::Streaming: HasStreamingClaim,
    {
        let permit = self.task.stream_permit();
        let Some(id) = permit.task_id().cloned() else {
            return Err(Error::config("no task to subscribe to yet: send a message first"));
        };
        if let Some(state) = self.session.state.filter(|s| s.is_terminal()) {
            return Err(Error::config(format!("task {id} already ended ({state}): nothing to subscribe to")));
        }
        let call = Call::SubscribeToTask;
        match self.session.conn.subscribe_to_task(SubscribeToTaskRequest { tenant: None, id }).await {
            Ok(stream) => self.read_stream(stream, call, &permit).await,
            Err(error) => Err(self.observe_error(call, error)),
        }
    }

    async fn read_stream(
        &mut self,
        mut stream: EventStream,
        call: Call,
        permit: &StreamPermit,
    ) -> Result<Streamed, Error> {
        let mut events = Vec::new();
        let mut failure = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => {
                    if let Some(observed) = Observed::from_stream_response(&event, Channel::Stream) {
                        self.observe(observed);
                    }
                    events.push(event);
                }
                Err(error) => failure = Some(error),
            }
        }
        let end = stream.end();
        match end {
            Some(StreamEnd::Dropped(fault)) => {
                let fault = crate::negotiate::observed_fault(fault);
                self.observe(Observed::TransportFault { call, fault });
            }
            Some(StreamEnd::Closed) => self.observe(Observed::StreamClosed),
            _ => {
                if let Some(error) = failure {
                    return Err(self.observe_error(call, error));
                }
            }
        }
        let confirmation = match self.unconfirmed_terminal(&events, permit) {
            Some(id) => Some(self.fetch(GetTaskRequest::new(id)).await?),
            None => None,
        };
        Ok(Streamed { events, end, confirmation })
    }

    /// The task to confirm with `GetTask`: the claim is unverified and a terminal state came on
    /// this stream with no streamed artifact.
    fn unconfirmed_terminal(
        &self,
        events: &[StreamResponse],
        permit: &StreamPermit,
    ) -> Option<a2a_types::TaskId> {
        let streamed_artifact = events.iter().any(|e| match e {
            StreamResponse::ArtifactUpdate(_) => true,
            StreamResponse::Task(task) => !task.artifacts.is_empty(),
            _ => false,
        });
        let terminal = self.session.state.is_some_and(|s| s.is_terminal());
        (permit.must_confirm_artifacts() && terminal && !streamed_artifact)
            .then(|| self.task.task_id().cloned())
            .flatten()
    }
}
