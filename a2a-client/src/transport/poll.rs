//! [`TaskPoll`]: `GetTask` at a bounded cadence, as a stream that ends at a terminal or interrupted
//! state.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_typestate_types::{GetTaskRequest, Task};
use futures::future::BoxFuture;
use futures::stream::{BoxStream, Stream, StreamExt};

use crate::Error;
use a2a_typestate::Bounds;

use crate::config::PollCadence;

/// How often to poll: a fixed interval the card declared, or the client's growing cadence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cadence {
    /// The card's poll-cadence extension: this interval every time.
    Declared(Duration),
    /// The client's configuration: growing by its factor up to its cap.
    Configured(PollCadence),
}

impl Cadence {
    /// The cadence of every poll loop (a task's turn and [`TaskPoll`]): the card's declared interval,
    /// clamped as [`Bounds::card_cadence`] says, else the client's configured cadence.
    pub(crate) fn new(declared: Option<Duration>, configured: PollCadence) -> Self {
        match declared {
            Some(interval) => Cadence::Declared(Bounds::card_cadence(interval)),
            None => Cadence::Configured(configured),
        }
    }

    /// The delay before poll number `poll` (0-based).
    pub(crate) fn delay(self, poll: u32) -> Duration {
        match self {
            Cadence::Declared(interval) => interval,
            Cadence::Configured(cadence) => cadence.delay(poll),
        }
    }
}

/// The task as polled with `GetTask`, one item per poll.
///
/// Each poll waits for the cadence's delay first (the card's `POLL_CADENCE_EXTENSION_URI` interval
/// when it declares one, else the client's [`PollCadence`], growing to its cap), then makes one
/// `GetTask` (retried on transport faults, bounded by the request timeout). The stream ends after it
/// yields a task in a terminal or interrupted state, or after an error that retries could not cure.
/// Drop it to stop polling.
pub struct TaskPoll {
    inner: BoxStream<'static, Result<Task, Error>>,
    cadence: Cadence,
}

impl fmt::Debug for TaskPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPoll").field("cadence", &self.cadence).finish_non_exhaustive()
    }
}

/// One `GetTask` as the connection makes it (retried, bounded): given to [`TaskPoll::new`] so the
/// poll loop does not name the connection above it.
pub(crate) type GetTask =
    Box<dyn Fn(GetTaskRequest) -> BoxFuture<'static, Result<Task, Error>> + Send + Sync>;

impl TaskPoll {
    pub(crate) fn new(get_task: GetTask, request: GetTaskRequest, cadence: Cadence) -> Self {
        struct State {
            get_task: GetTask,
            request: GetTaskRequest,
            polls: u32,
            done: bool,
        }
        let state = State { get_task, request, polls: 0, done: false };
        let inner = futures::stream::unfold(state, move |mut state| async move {
            if state.done {
                return None;
            }
            tokio::time::sleep(cadence.delay(state.polls)).await;
            state.polls = state.polls.saturating_add(1);
            let outcome = (state.get_task)(state.request.clone()).await;
            state.done = match &outcome {
                Ok(task) => task.state().is_terminal() || task.state().is_interrupted(),
                Err(_) => true,
            };
            Some((outcome, state))
        })
        .boxed();
        Self { inner, cadence }
    }

    /// The delay before the next poll number `poll` (0-based), as this poll computes it.
    pub fn delay(&self, poll: u32) -> Duration {
        self.cadence.delay(poll)
    }
}

impl Stream for TaskPoll {
    type Item = Result<Task, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_cadence_is_clamped_by_the_same_bounds_the_verifier_uses() {
        let configured = PollCadence::default();
        let hour = Cadence::new(Some(Duration::from_secs(3600)), configured);
        assert_eq!(hour.delay(0), Bounds::MAX_CARD_CADENCE);
        let hammering = Cadence::new(Some(Duration::from_millis(1)), configured);
        assert_eq!(hammering.delay(7), Bounds::MIN_CARD_CADENCE);
        let declared = Cadence::new(Some(Duration::from_secs(3)), configured);
        assert_eq!(declared.delay(0), Bounds::card_cadence(Duration::from_secs(3)));
        assert_eq!(Cadence::new(None, configured).delay(2), configured.delay(2));
    }
}
