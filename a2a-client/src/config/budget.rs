//! The task budget: what one task (and one audit of an agent) may cost, set by the user, whatever
//! the agent sends or its card claims.

use std::time::Duration;

use crate::defaults::{
    DEFAULT_EVENTS_KEPT, DEFAULT_INTERFACES_TRIED, DEFAULT_MAX_LIST_PAGES, DEFAULT_RESULT_BYTES,
    DEFAULT_TASK_DEADLINE,
};

/// What one task may cost: wall time, events kept, result bytes, interfaces tried, listing pages.
///
/// An agent chooses how long it takes, how many events it streams, how many interfaces its card
/// declares and how many pages a listing has. None of that may choose the client's costs: each is
/// bounded here, with a default, and each bound is applied at the one place its cost is paid.
///
/// | bound | default | applied where | past it |
/// | --- | --- | --- | --- |
/// | [`deadline`](TaskBudget::deadline) | [`DEFAULT_TASK_DEADLINE`] (300 s) | the whole run, discovery to end, the fallback included | the run ends with a definite outcome: its answer, or an error that says whether the work may have run |
/// | [`events_kept`](TaskBudget::events_kept) | [`DEFAULT_EVENTS_KEPT`] (10,000) | the observations a task keeps; an event that repeats the one before (same state, nothing new) is counted, not kept | further events are counted only |
/// | [`result_bytes`](TaskBudget::result_bytes) | [`DEFAULT_RESULT_BYTES`] (64 MiB) | the memory of the artifacts and messages a task keeps, each part counted with its own size (so an endless stream of one-byte chunks counts what its parts take) | the task ends with an error naming the bound |
/// | [`interfaces`](TaskBudget::interfaces) | [`DEFAULT_INTERFACES_TRIED`] (8) | the declared interfaces one task (or discovery) tries | the task ends with the last interface's error |
/// | [`pages`](TaskBudget::pages) | [`DEFAULT_MAX_LIST_PAGES`] (1,000) | the `ListTasks` pages one listing reads | the listing ends with [`crate::ListingFault`] |
///
/// ```
/// use std::time::Duration;
/// use a2a_typestate_client::{Client, TaskBudget};
///
/// let budget = TaskBudget::default().with_deadline(Duration::from_secs(30)).with_interfaces(2);
/// let client = Client::builder().task_budget(budget).build()?;
/// assert_eq!(client.config().task_budget().deadline(), Duration::from_secs(30));
/// # Ok::<(), a2a_typestate_client::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct TaskBudget {
    deadline: Duration,
    events_kept: usize,
    result_bytes: usize,
    interfaces: u32,
    pages: u32,
}

impl Default for TaskBudget {
    fn default() -> Self {
        Self {
            deadline: DEFAULT_TASK_DEADLINE,
            events_kept: DEFAULT_EVENTS_KEPT,
            result_bytes: DEFAULT_RESULT_BYTES,
            interfaces: DEFAULT_INTERFACES_TRIED,
            pages: DEFAULT_MAX_LIST_PAGES,
        }
    }
}

impl TaskBudget {
    /// Sets the wall time of one whole task, from discovery to its end, the fallback included.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Sets how many observations one task keeps (at least 16; repeats are counted, never kept).
    pub fn with_events_kept(mut self, events: usize) -> Self {
        self.events_kept = events.max(16);
        self
    }

    /// Sets how many bytes of artifacts and messages one task keeps, counted as the memory they take
    /// (at least 1 KiB).
    pub fn with_result_bytes(mut self, bytes: usize) -> Self {
        self.result_bytes = bytes.max(1024);
        self
    }

    /// Sets how many declared interfaces one task tries (at least 1).
    pub fn with_interfaces(mut self, interfaces: u32) -> Self {
        self.interfaces = interfaces.max(1);
        self
    }

    /// Sets how many `ListTasks` pages one listing reads (at least 1).
    pub fn with_pages(mut self, pages: u32) -> Self {
        self.pages = pages.max(1);
        self
    }

    /// The wall time of one whole task.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The observations one task keeps.
    pub fn events_kept(&self) -> usize {
        self.events_kept
    }

    /// The bytes of artifacts one task keeps.
    pub fn result_bytes(&self) -> usize {
        self.result_bytes
    }

    /// The declared interfaces one task tries.
    pub fn interfaces(&self) -> u32 {
        self.interfaces
    }

    /// The `ListTasks` pages one listing reads.
    pub fn pages(&self) -> u32 {
        self.pages
    }
}
