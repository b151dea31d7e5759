//! The client-side bounds the verifier measures elapsed time against.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate::Bounds;
//!
//! let bounds = Bounds::default().with_push_arrival(Duration::from_secs(30));
//! assert_eq!(bounds.push_arrival(), Duration::from_secs(30));
//! assert_eq!(bounds.poll_interval(), Duration::from_secs(2)); // the default is kept
//! ```

use std::time::Duration;

/// Every wait the verifier judges is bounded; each bound has a default a caller can change.
///
/// | bound | default | what it bounds |
/// | --- | --- | --- |
/// | [`poll_interval`](Self::poll_interval) | 2 s | `GetTask` polling when the card declares no cadence |
/// | [`unobservable`](Self::unobservable) | 30 s | how long a task may show no progress (no new state, question or artifact since the client last acted) before it is a lifecycle fault, on every channel |
/// | [`push_arrival`](Self::push_arrival) | 10 s | how long after the task's terminal transition the first push callback may take |
/// | [`task_deadline`](Self::task_deadline) | 300 s | the whole task, however much progress it shows |
///
/// A card-declared poll cadence is clamped to 100 ms ..= 60 s before use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    poll_interval: Duration,
    unobservable: Duration,
    push_arrival: Duration,
    task_deadline: Duration,
    events_kept: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            poll_interval: Duration::from_secs(2),
            unobservable: Duration::from_secs(30),
            push_arrival: Duration::from_secs(10),
            task_deadline: Duration::from_secs(300),
            events_kept: 10_000,
        }
    }
}

impl Bounds {
    /// Shortest card-declared poll cadence honoured.
    pub const MIN_CARD_CADENCE: Duration = Duration::from_millis(100);
    /// Longest card-declared poll cadence honoured.
    pub const MAX_CARD_CADENCE: Duration = Duration::from_secs(60);

    /// A card-declared poll cadence as every poll loop honours it: clamped to
    /// [`MIN_CARD_CADENCE`](Self::MIN_CARD_CADENCE)..=[`MAX_CARD_CADENCE`](Self::MAX_CARD_CADENCE),
    /// so a card can neither make the client hammer it nor stall it.
    pub fn card_cadence(declared: Duration) -> Duration {
        declared.clamp(Self::MIN_CARD_CADENCE, Self::MAX_CARD_CADENCE)
    }

    /// The client's own `GetTask` poll interval (default 2 s).
    pub fn poll_interval(&self) -> Duration {
        self.poll_interval
    }

    /// How long a task may go without observable progress before it is a lifecycle fault
    /// (default 30 s).
    pub fn unobservable(&self) -> Duration {
        self.unobservable
    }

    /// How long the first push callback may take after the task's terminal transition (default
    /// 10 s).
    pub fn push_arrival(&self) -> Duration {
        self.push_arrival
    }

    /// How long one task may take in all (default 300 s).
    pub fn task_deadline(&self) -> Duration {
        self.task_deadline
    }

    /// How many observations of one task a verifier keeps (default 10,000). Every observation
    /// reaches the rules; one that repeats the entry before it is never kept, and past this bound
    /// a state or artifact is kept only when it is terminal or the first of its kind (see
    /// [`Verifier::observe`](crate::Verifier::observe)).
    pub fn events_kept(&self) -> usize {
        self.events_kept
    }

    /// Sets how many observations of one task a verifier keeps (at least 16).
    #[must_use]
    pub fn with_events_kept(mut self, events: usize) -> Self {
        self.events_kept = events.max(16);
        self
    }

    /// Sets the client's poll interval.
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets the bound on a task without observable progress.
    #[must_use]
    pub fn with_unobservable(mut self, bound: Duration) -> Self {
        self.unobservable = bound;
        self
    }

    /// Sets the bound on push arrival.
    #[must_use]
    pub fn with_push_arrival(mut self, bound: Duration) -> Self {
        self.push_arrival = bound;
        self
    }

    /// Sets the deadline of the whole task.
    #[must_use]
    pub fn with_task_deadline(mut self, deadline: Duration) -> Self {
        self.task_deadline = deadline;
        self
    }
}
