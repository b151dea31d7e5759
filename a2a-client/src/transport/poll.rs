//! [`TaskPoll`]: `GetTask` at a bounded cadence, as a stream that ends at a terminal or interrupted
//! state; [`TaskFollow`]: the same loop, yielding each new state once.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_typestate_types::{GetTaskRequest, Task, TaskState};
use futures::future::BoxFuture;
use futures::stream::{BoxStream, Stream, StreamExt};

use crate::Error;
use a2a_typestate::{Bounds, LifecycleFault};

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
/// yields a task in a terminal or interrupted state, after an error that retries could not cure, or
/// with a [`LifecycleFault::DeadlineExceeded`] once the client's task deadline
/// ([`Bounds::task_deadline`], as for a task's own polls) has passed since polling began. Drop it to
/// stop polling.
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
    pub(crate) fn new(get_task: GetTask, request: GetTaskRequest, cadence: Cadence, bounds: &Bounds) -> Self {
        struct State {
            get_task: GetTask,
            request: GetTaskRequest,
            polls: u32,
            done: bool,
            started: tokio::time::Instant,
            last_state: Option<TaskState>,
        }
        let deadline = bounds.task_deadline();
        let started = tokio::time::Instant::now();
        let state = State { get_task, request, polls: 0, done: false, started, last_state: None };
        let inner = futures::stream::unfold(state, move |mut state| async move {
            if state.done {
                return None;
            }
            let delay = cadence.delay(state.polls);
            let left = deadline.saturating_sub(state.started.elapsed());
            if delay > left {
                // The next poll would come after the deadline: the wait ends there.
                tokio::time::sleep(left).await;
                state.done = true;
                let fault = LifecycleFault::DeadlineExceeded { state: state.last_state, deadline };
                return Some((Err(Error::from(fault)), state));
            }
            tokio::time::sleep(delay).await;
            state.polls = state.polls.saturating_add(1);
            let outcome = (state.get_task)(state.request.clone()).await;
            state.done = match &outcome {
                Ok(task) => task.state().is_terminal() || task.state().is_interrupted(),
                Err(_) => true,
            };
            if let Ok(task) = &outcome {
                state.last_state = Some(task.state());
            }
            Some((outcome, state))
        })
        .boxed();
        Self { inner, cadence }
    }

    /// The delay before the next poll number `poll` (0-based), as this poll computes it.
    pub fn delay(&self, poll: u32) -> Duration {
        self.cadence.delay(poll)
    }

    /// The same polls, yielding a task only when its state differs from the state yielded before
    /// it: see [`TaskFollow`].
    pub fn new_states(self) -> TaskFollow {
        TaskFollow { poll: self, last: None }
    }
}

/// A task followed by polling `GetTask`: each new state once, in the snapshot it was first seen in.
///
/// The view of a [`TaskPoll`] that leaves out the polls whose state is the one already yielded, so
/// the loop, its cadence and its bounds are the poll's own: the card's declared interval clamped by
/// [`Bounds::card_cadence`], else the client's [`PollCadence`]; each `GetTask` retried and bounded
/// by the request timeout; the task deadline ([`Bounds::task_deadline`]) ending it with
/// [`LifecycleFault::DeadlineExceeded`]. It ends after the terminal or interrupted
/// (`input-required`, `auth-required`) state, or after an error. Drop it to stop following.
pub struct TaskFollow {
    poll: TaskPoll,
    last: Option<TaskState>,
}

impl fmt::Debug for TaskFollow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskFollow").field("poll", &self.poll).field("last", &self.last).finish()
    }
}

impl TaskFollow {
    /// The state yielded last, if any.
    pub fn last_state(&self) -> Option<TaskState> {
        self.last
    }
}

impl Stream for TaskFollow {
    type Item = Result<Task, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match std::task::ready!(self.poll.poll_next_unpin(cx)) {
                Some(Ok(task)) if Some(task.state()) == self.last => {}
                Some(Ok(task)) => {
                    self.last = Some(task.state());
                    return Poll::Ready(Some(Ok(task)));
                }
                other => return Poll::Ready(other),
            }
        }
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
    use a2a_typestate_types::TaskId;

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

    /// A `GetTask` answering the states in `states` one poll after another (the last one again once
    /// they run out), and how many polls it answered.
    fn scripted(
        states: &'static [&'static str],
    ) -> (GetTask, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        let polls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&polls);
        let get: GetTask = Box::new(move |request: GetTaskRequest| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let state = states[n.min(states.len() - 1)];
            Box::pin(async move {
                let task = serde_json::json!({"id": request.id.as_str(), "status": {"state": state}});
                Ok(serde_json::from_value::<Task>(task).unwrap())
            })
        });
        (get, polls)
    }

    fn follow(get: GetTask, bounds: &Bounds) -> TaskFollow {
        let cadence = Cadence::new(Some(Duration::from_secs(1)), PollCadence::default());
        TaskPoll::new(get, GetTaskRequest::new(TaskId::new("t")), cadence, bounds).new_states()
    }

    #[tokio::test(start_paused = true)]
    async fn following_a_task_yields_each_state_once_up_to_the_terminal_one() {
        let (get, polls) = scripted(&[
            "TASK_STATE_SUBMITTED",
            "TASK_STATE_WORKING",
            "TASK_STATE_WORKING",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED",
            "TASK_STATE_COMPLETED",
        ]);
        let states: Vec<TaskState> =
            follow(get, &Bounds::default()).map(|t| t.unwrap().state()).collect().await;
        assert_eq!(states, [TaskState::Submitted, TaskState::Working, TaskState::Completed]);
        assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 5, "no poll after the terminal state");
    }

    #[tokio::test(start_paused = true)]
    async fn following_a_task_stops_at_a_question() {
        let (get, polls) =
            scripted(&["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]);
        let states: Vec<TaskState> =
            follow(get, &Bounds::default()).map(|t| t.unwrap().state()).collect().await;
        assert_eq!(states, [TaskState::Working, TaskState::InputRequired]);
        assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn following_a_task_ends_with_a_fault_at_the_task_deadline() {
        let (get, _) = scripted(&["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]);
        let bounds = Bounds::default().with_task_deadline(Duration::from_secs(30));
        let followed: Vec<_> = follow(get, &bounds).collect().await;
        assert_eq!(followed.len(), 3, "two states, then the fault: {followed:?}");
        let fault = followed[2].as_ref().unwrap_err().lifecycle_fault().cloned();
        let expected = LifecycleFault::DeadlineExceeded {
            state: Some(TaskState::Working),
            deadline: Duration::from_secs(30),
        };
        assert_eq!(fault, Some(expected));
    }

    #[tokio::test(start_paused = true)]
    async fn polling_a_task_that_never_ends_stops_with_a_fault_at_the_task_deadline() {
        let working: GetTask = Box::new(|request: GetTaskRequest| {
            Box::pin(async move {
                let task = serde_json::json!({
                    "id": request.id.as_str(),
                    "contextId": "c",
                    "status": {"state": "TASK_STATE_WORKING"},
                });
                Ok(serde_json::from_value::<Task>(task).unwrap())
            })
        });
        let bounds = Bounds::default().with_task_deadline(Duration::from_secs(10));
        let cadence = Cadence::new(Some(Duration::from_secs(3)), PollCadence::default());
        let started = tokio::time::Instant::now();
        let polled: Vec<_> =
            TaskPoll::new(working, GetTaskRequest::new(TaskId::new("t")), cadence, &bounds).collect().await;

        assert_eq!(polled.len(), 4, "three polls, then the fault");
        assert!(polled[..3].iter().all(|p| p.as_ref().is_ok_and(|t| t.state() == TaskState::Working)));
        let fault = polled[3].as_ref().unwrap_err().lifecycle_fault().cloned();
        let expected = LifecycleFault::DeadlineExceeded {
            state: Some(TaskState::Working),
            deadline: Duration::from_secs(10),
        };
        assert_eq!(fault, Some(expected));
        assert_eq!(started.elapsed(), Duration::from_secs(10), "the wait ends at the deadline, not after");
    }
}
