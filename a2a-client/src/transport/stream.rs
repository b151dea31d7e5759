//! [`EventStream`]: the typed stream of a streaming call, which remembers how it ended.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use a2a_typestate_types::{StreamResponse, TaskId};
use futures::stream::{BoxStream, Stream, StreamExt};

use crate::{Error, ErrorKind, TransportFault};

/// How an [`EventStream`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamEnd {
    /// The agent closed the stream cleanly after its last event (or, for a 0.3 agent, sent a status
    /// update with `final: true`): nothing more will come on this stream.
    Closed,
    /// The stream broke: the connection was reset, the body ended mid-event, or the idle bound ran
    /// out. Events may have been missed; reattach with
    /// [`AgentConnection::resubscribe`](crate::AgentConnection::resubscribe).
    Dropped(TransportFault),
    /// The agent reported an error inside the stream, or sent an event that could not be read (the
    /// error yielded says which); not a transport fault.
    Failed(ErrorKind),
}

/// One decoded event, and whether the agent marked it as the last (0.3 `final: true`).
///
/// The event is boxed from its read on: it passes through several `Result`s, the per-event future
/// and the stream before it reaches the caller, and each of those moves copied all 344 bytes of a
/// `StreamResponse` (the copies were a tenth of a stream's CPU, `BENCHMARKS.md` figure 9).
#[derive(Debug)]
pub(crate) struct Decoded {
    pub(crate) event: Box<StreamResponse>,
    pub(crate) last: bool,
}

/// A typed stream of [`StreamResponse`]s from `SendStreamingMessage` or `SubscribeToTask`.
///
/// Events are parsed one at a time, within the configured SSE event size and idle bound. Dropping the
/// stream closes the connection, which cancels the call on the agent's side only as far as the agent
/// treats a closed stream as a cancellation (the protocol does not say; use `CancelTask` to cancel).
/// After the stream yields `None` or an error, [`EventStream::end`] tells a clean close from a drop.
pub struct EventStream {
    inner: Option<BoxStream<'static, Result<Decoded, Error>>>,
    first: Option<Decoded>,
    end: Option<StreamEnd>,
    delivered: u64,
    task_id: Option<TaskId>,
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("delivered", &self.delivered)
            .field("task_id", &self.task_id)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

impl EventStream {
    /// A stream whose first event (if any) was already read, while the call could still be retried.
    pub(crate) fn new(first: Option<Decoded>, rest: BoxStream<'static, Result<Decoded, Error>>) -> Self {
        let end = if first.is_none() { Some(StreamEnd::Closed) } else { None };
        Self { inner: Some(rest), first, end, delivered: 0, task_id: None }
    }

    /// How the stream ended; `None` while it is still open.
    pub fn end(&self) -> Option<StreamEnd> {
        self.end
    }

    /// How many events the stream has yielded so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The task the last delivered event was about, if any: what to resubscribe to after a drop.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    fn deliver(&mut self, decoded: Decoded) -> Poll<Option<Result<StreamResponse, Error>>> {
        self.delivered += 1;
        if let Some(id) = decoded.event.task_id() {
            self.task_id = Some(id.clone());
        }
        if decoded.last {
            self.finish(StreamEnd::Closed);
        }
        Poll::Ready(Some(Ok(*decoded.event)))
    }

    fn finish(&mut self, end: StreamEnd) {
        self.end = Some(end);
        // Dropping the body closes the connection now rather than when the caller drops the stream.
        self.inner = None;
    }
}

impl Stream for EventStream {
    type Item = Result<StreamResponse, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(first) = this.first.take() {
            return this.deliver(first);
        }
        if this.end.is_some() {
            return Poll::Ready(None);
        }
        let Some(inner) = this.inner.as_mut() else {
            this.end = Some(StreamEnd::Closed);
            return Poll::Ready(None);
        };
        match inner.poll_next_unpin(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(decoded))) => this.deliver(decoded),
            Poll::Ready(Some(Err(error))) => {
                let end = match error.transport_fault() {
                    Some(fault) => StreamEnd::Dropped(fault),
                    None => StreamEnd::Failed(error.kind()),
                };
                this.finish(end);
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(None) => {
                this.finish(StreamEnd::Closed);
                Poll::Ready(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::{Task, TaskState};

    fn event(state: TaskState, last: bool) -> Decoded {
        Decoded { event: Box::new(StreamResponse::Task(Task::new("t1", state))), last }
    }

    fn stream(items: Vec<Result<Decoded, Error>>) -> EventStream {
        let mut items = items.into_iter();
        let first = items.next().map(|item| item.unwrap());
        EventStream::new(first, futures::stream::iter(items).boxed())
    }

    #[tokio::test]
    async fn a_clean_close_is_known_once_the_stream_is_exhausted() {
        let mut events =
            stream(vec![Ok(event(TaskState::Working, false)), Ok(event(TaskState::Completed, false))]);
        assert_eq!(events.end(), None);
        assert!(events.next().await.unwrap().is_ok());
        assert!(events.next().await.unwrap().is_ok());
        assert_eq!(events.end(), None, "the body may still hold more");
        assert!(events.next().await.is_none());
        assert_eq!(events.end(), Some(StreamEnd::Closed));
        assert_eq!(events.delivered(), 2);
        assert_eq!(events.task_id().map(TaskId::as_str), Some("t1"));
    }

    #[tokio::test]
    async fn an_event_marked_last_closes_the_stream_at_once() {
        let mut events =
            stream(vec![Ok(event(TaskState::Completed, true)), Ok(event(TaskState::Working, false))]);
        assert!(events.next().await.unwrap().is_ok());
        assert_eq!(events.end(), Some(StreamEnd::Closed));
        assert!(events.next().await.is_none(), "nothing is read past the last event");
    }

    #[tokio::test]
    async fn a_transport_fault_is_dropped_and_an_agent_error_is_failed() {
        let reset = Error::transport(TransportFault::Reset, None);
        let mut events = stream(vec![Ok(event(TaskState::Working, false)), Err(reset)]);
        assert!(events.next().await.unwrap().is_ok());
        assert!(events.next().await.unwrap().is_err());
        assert_eq!(events.end(), Some(StreamEnd::Dropped(TransportFault::Reset)));
        assert!(events.next().await.is_none());

        let refusal =
            Error::protocol(crate::ProtocolError::from_jsonrpc(&serde_json::json!({"code": -32603})));
        let mut events = stream(vec![Ok(event(TaskState::Working, false)), Err(refusal)]);
        assert!(events.next().await.unwrap().is_ok());
        assert!(events.next().await.unwrap().is_err());
        assert_eq!(events.end(), Some(StreamEnd::Failed(ErrorKind::Protocol)));
    }

    #[tokio::test]
    async fn a_stream_without_events_is_closed_from_the_start() {
        let mut events = stream(Vec::new());
        assert_eq!(events.end(), Some(StreamEnd::Closed));
        assert!(events.next().await.is_none());
    }

    #[test]
    fn handles_can_move_across_tasks() {
        fn send<T: Send + 'static>() {}
        fn shared<T: Send + Sync + 'static>() {}
        send::<EventStream>();
        send::<crate::TaskPoll>();
        send::<crate::TaskFollow>();
        send::<crate::TaskPages>();
        shared::<crate::AgentConnection>();
    }
}
