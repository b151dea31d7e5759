//! The task journal: what a client knows about each task it runs, kept where a crash does not
//! take it, so that after a restart [`Client::recover`](crate::Client::recover) finds every task
//! that had not ended and [`Client::resume`](crate::Client::resume) follows it to its end.
//!
//! A journal is opt-in, given with [`ClientBuilder::journal`](crate::ClientBuilder::journal): a
//! library that wrote files nobody asked for would surprise its user, and where the file lives
//! (which disk, which permissions, one per process) is the application's decision. The embedded
//! store is the one to start with: one file ([`Journal::embedded`], on `redb`), nothing to run
//! beside the process. Replicas that share a Redis server for the discovery cache can keep the
//! journal there too (`Journal::redis`, feature `redis`), each recovering its own tasks under
//! its replica name.
//!
//! What is recorded, per task ([`Client::run_task`](crate::Client::run_task)):
//! - **before the first byte is sent**, what identifies it: the agent, the message id, a context
//!   id (the client chooses one when the message has none, so the agent can list the task by it
//!   if its answer never arrives), the path the run takes and the claims it depends on. The run
//!   waits for this write at most the commit wait ([`DEFAULT_COMMIT_WAIT`]);
//! - the **task id** once the client reads it, each **state that waits on the caller**
//!   (input-required, auth-required) entered or left, and the **end** with the last state, written
//!   in the background;
//! - the agent's **suspect marks** after the run, with the wall-clock end of their TTL, so a
//!   restarted client still avoids what it caught an agent lying about.
//!
//! Writes are batched: one writer takes every write waiting, keeps the newest of each record and
//! commits them in one transaction (group commit). States, ends and marks, which nobody waits for,
//! wait up to 20 ms for a task's first record to take them along before they are committed alone.
//! A journal that cannot be written degrades as the shared cache does: the task goes on, its
//! [`TaskOutcome::durability`](crate::negotiate::TaskOutcome::durability) says it is
//! [`Durability::NotDurable`], [`Journal::status`] says [`Degraded`](crate::BackendStatus::Degraded),
//! and no wait is longer than the commit wait.
//!
//! ```no_run
//! use a2a_typestate_client::journal::{Journal, Recovered};
//! use a2a_typestate_client::Client;
//!
//! # async fn demo() -> Result<(), a2a_typestate_client::Error> {
//! let journal = Journal::embedded("/var/lib/orchestrator/tasks.redb").build()?;
//! let client = Client::builder().journal(journal).build()?;
//! for task in client.recover().await? {
//!     match client.resume(&task).await? {
//!         Recovered::Task(task) => println!("{}: {}", task.id, task.status.state),
//!         Recovered::NotStarted => println!("{} never reached the agent", task.message_id()),
//!         other => println!("{}: {other}", task.message_id()),
//!     }
//! }
//! # Ok(()) }
//! ```

mod embedded;
pub(crate) mod record;
#[cfg(feature = "redis")]
mod redis;
mod writer;

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use a2a_typestate_types::{StreamResponse, TaskState};

use crate::agent_url::AgentBaseUrl;
use crate::shared::BackendStatus;
use crate::{DiscoveryCache, Error};
pub use record::MAX_FIELD_BYTES;
use record::{Ended, MarkRecord, TaskRecord, bounded, now_ms};
use writer::{Store, Write, Writer};

/// Default longest wait for the record that identifies a task before its first byte is sent, and
/// the bound on each commit: 500 ms. Past it the task goes on, not durable.
pub const DEFAULT_COMMIT_WAIT: Duration = Duration::from_millis(500);
/// Default time an ended record is kept (for [`Client::journaled`](crate::Client::journaled)):
/// 24 h.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(24 * 3600);
/// Default number of writes waiting for the writer: 4,096 (beyond it writes are dropped and the
/// tasks they belong to are not durable).
pub const DEFAULT_QUEUE_LIMIT: usize = 4096;
/// Default time an agent is given, from when a send began, to list the task it started, before
/// [`Client::resume`](crate::Client::resume) judges a send whose answer never arrived
/// [`Recovered::NotStarted`]: 5 s. A request the killed process had written may still reach the
/// agent after the kill, and an agent may store its task a little after it read the request.
pub const DEFAULT_START_GRACE: Duration = Duration::from_secs(5);
/// Default lease of a replica on the tasks it runs, in a journal shared by replicas (Redis): 10 s,
/// renewed every third of it while the replica lives and with every commit. Past it, another
/// replica may take its unfinished tasks over ([`Client::take_over`](crate::Client::take_over)).
pub const DEFAULT_REPLICA_LEASE: Duration = Duration::from_secs(10);
/// Default key prefix of the Redis journal: `a2a`, as the Redis cache backend's.
pub const DEFAULT_KEY_PREFIX: &str = "a2a";

/// Whether a task's run can be found again after a crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Durability {
    /// The client has no journal: a crash loses what it knew of the task.
    NoJournal,
    /// What identifies the task was committed before its first byte was sent:
    /// [`Client::recover`](crate::Client::recover) finds it after a crash.
    Journaled,
    /// The journal could not be written within its bound (unreachable, full, failing): the task
    /// went on, but a crash would lose it.
    NotDurable,
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoJournal => "no journal",
            Self::Journaled => "journaled",
            Self::NotDurable => "not durable",
        })
    }
}

/// Where a journal keeps its records.
#[derive(Clone, Debug)]
enum Target {
    Embedded(PathBuf),
    #[cfg(feature = "redis")]
    Redis(String),
}

/// Builds a [`Journal`]; every bound has a default (the `DEFAULT_*` constants of this module).
#[derive(Clone, Debug)]
#[must_use]
pub struct JournalBuilder {
    target: Target,
    commit_wait: Duration,
    retention: Duration,
    queue_limit: usize,
    key_prefix: Option<String>,
    start_grace: Duration,
    replica_lease: Duration,
}

impl JournalBuilder {
    /// Sets how long a replica's hold on its tasks outlives its last sign of life, in a journal
    /// shared by replicas ([`DEFAULT_REPLICA_LEASE`]): the time after a replica dies before
    /// another may take its tasks over. Longer than any pause a live replica may take (a stop of
    /// the world, a slow network), or a paused replica's tasks are followed by two (never sent
    /// twice: a takeover only follows).
    pub fn replica_lease(mut self, lease: Duration) -> Self {
        self.replica_lease = lease;
        self
    }

    /// Sets how long after a send began an agent is given to list the task it started, before
    /// the send is judged not started ([`DEFAULT_START_GRACE`]).
    pub fn start_grace(mut self, grace: Duration) -> Self {
        self.start_grace = grace;
        self
    }

    /// Sets the longest wait for the record that identifies a task before it is sent, and the
    /// bound on each commit ([`DEFAULT_COMMIT_WAIT`]).
    pub fn commit_wait(mut self, bound: Duration) -> Self {
        self.commit_wait = bound;
        self
    }

    /// Sets how long an ended record is kept ([`DEFAULT_RETENTION`]).
    pub fn retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// Sets how many writes may wait for the writer ([`DEFAULT_QUEUE_LIMIT`]).
    pub fn queue_limit(mut self, limit: usize) -> Self {
        self.queue_limit = limit;
        self
    }

    /// Sets the prefix of the Redis journal's keys ([`DEFAULT_KEY_PREFIX`]).
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.key_prefix = Some(prefix.into());
        self
    }

    /// Opens the store (the embedded file now; the Redis server on the first write) and starts the
    /// writer on the current tokio runtime.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when a bound is zero, outside a tokio runtime, when the file
    /// cannot be opened (another process holds it, its directory does not exist, it is not a
    /// journal), when the URL is not a Redis URL, or a key prefix is given to the embedded journal
    /// or is empty. An unreachable Redis server is not an error: the journal starts degraded.
    pub fn build(self) -> Result<Journal, Error> {
        if self.commit_wait.is_zero()
            || self.retention.is_zero()
            || self.queue_limit == 0
            || self.replica_lease.is_zero()
        {
            return Err(Error::config(
                "journal commit wait, retention, queue limit and replica lease must be positive",
            ));
        }
        let store: Arc<dyn Store> = match &self.target {
            Target::Embedded(path) => {
                if self.key_prefix.is_some() {
                    return Err(Error::config("a key prefix applies to the redis journal, not a file"));
                }
                Arc::new(embedded::Embedded::open(path, self.retention)?)
            }
            #[cfg(feature = "redis")]
            Target::Redis(url) => {
                let prefix = self.key_prefix.as_deref().unwrap_or(DEFAULT_KEY_PREFIX);
                if prefix.is_empty() {
                    return Err(Error::config("the journal key prefix must not be empty"));
                }
                Arc::new(redis::RedisStore::new(
                    url,
                    prefix,
                    self.commit_wait,
                    self.retention,
                    self.replica_lease,
                )?)
            }
        };
        let writer = Writer::start(Arc::clone(&store), self.queue_limit, self.commit_wait)?;
        let inner = Inner {
            store,
            writer,
            commit_wait: self.commit_wait,
            owner: OnceLock::new(),
            marks_written: Mutex::new(HashMap::new()),
            target: self.target,
            start_grace: self.start_grace,
            replica_lease: self.replica_lease,
        };
        Ok(Journal { inner: Arc::new(inner) })
    }
}

/// Where a client records its tasks: see the [module docs](self). Cheap to clone; clones share
/// the store and its writer, which stops once the last clone is dropped.
#[derive(Clone)]
pub struct Journal {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn Store>,
    writer: Writer,
    commit_wait: Duration,
    owner: OnceLock<String>,
    /// The marks written, by key, with the end of their TTL: a mark already written is not again.
    marks_written: Mutex<HashMap<String, u64>>,
    target: Target,
    start_grace: Duration,
    replica_lease: Duration,
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = match &self.inner.target {
            Target::Embedded(path) => path.display().to_string(),
            #[cfg(feature = "redis")]
            Target::Redis(_) => "redis".to_owned(),
        };
        f.debug_struct("Journal")
            .field("store", &target)
            .field("owner", &self.owner())
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

/// What the journal's writer did so far: commits, records written and their bytes, and the writes
/// that failed or found the queue full.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JournalStats {
    /// Transactions (or pipelines) committed.
    pub commits: u64,
    /// Records written (a record written twice in one commit counts once).
    pub writes: u64,
    /// Bytes of the records written.
    pub bytes: u64,
    /// Records whose commit failed or ran past the commit wait.
    pub failed: u64,
    /// Records dropped because the queue was full.
    pub dropped: u64,
}

impl Journal {
    /// A journal in the file at `path` (created when absent; its directory must exist). One
    /// process holds the file at a time.
    pub fn embedded(path: impl Into<PathBuf>) -> JournalBuilder {
        Self::builder(Target::Embedded(path.into()))
    }

    /// A journal on the Redis server at `url` (`redis://host:port/db`), shared by replicas: each
    /// keeps its tasks under its [replica name](crate::ClientBuilder::replica_name).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn redis(url: impl Into<String>) -> JournalBuilder {
        Self::builder(Target::Redis(url.into()))
    }

    fn builder(target: Target) -> JournalBuilder {
        JournalBuilder {
            target,
            commit_wait: DEFAULT_COMMIT_WAIT,
            retention: DEFAULT_RETENTION,
            queue_limit: DEFAULT_QUEUE_LIMIT,
            key_prefix: None,
            start_grace: DEFAULT_START_GRACE,
            replica_lease: DEFAULT_REPLICA_LEASE,
        }
    }

    /// Whether the journal is being written: `Degraded` after a write failed or found the queue
    /// full, until the next commit succeeds.
    pub fn status(&self) -> BackendStatus {
        self.inner.writer.status()
    }

    /// Waits at most `within` until every write handed to the journal so far (a run's states and
    /// end are written in the background) has been committed or has failed; `true` when it has.
    /// For an orchestrator about to exit, and for tests.
    pub async fn flush(&self, within: Duration) -> bool {
        self.inner.writer.flush(within).await
    }

    /// What the writer did so far.
    pub fn stats(&self) -> JournalStats {
        let c = &self.inner.writer.counters;
        JournalStats {
            commits: c.commits.load(Ordering::Relaxed),
            writes: c.writes.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
        }
    }

    /// Whose tasks these are: the replica name ([`ClientBuilder::replica_name`](crate::ClientBuilder::replica_name)),
    /// empty without one.
    pub fn owner(&self) -> &str {
        self.inner.owner.get().map_or("", String::as_str)
    }

    /// How long after a send began an agent is given to list its task.
    pub(crate) fn start_grace(&self) -> Duration {
        self.inner.start_grace
    }

    /// Set once by the client builder, from the replica name; from then on the replica's lease
    /// is renewed every third of it until the journal is dropped (a store shared by replicas).
    pub(crate) fn set_owner(&self, owner: &str) {
        if self.inner.owner.set(owner.to_owned()).is_err() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let store = Arc::downgrade(&self.inner.store);
        let (owner, lease) = (owner.to_owned(), self.inner.replica_lease);
        runtime.spawn(async move {
            loop {
                // Held only while renewing: dropping the journal ends the loop.
                let Some(store) = store.upgrade() else { return };
                if let Err(error) = store.alive(&owner, lease).await {
                    tracing::debug!(%error, "the replica lease could not be renewed");
                }
                drop(store);
                tokio::time::sleep(lease / 3).await;
            }
        });
    }

    /// The unfinished tasks of replicas whose lease ran out, now this owner's.
    pub(crate) async fn take_over(&self) -> Result<Vec<JournaledTask>, Error> {
        let bound = self.inner.commit_wait * 4;
        let taken = tokio::time::timeout(bound, self.inner.store.take_over(self.owner()))
            .await
            .map_err(|_| {
                Error::config(format!(
                    "the task journal could not be read within {}",
                    a2a_typestate_types::human::HumanDuration(bound)
                ))
            })?
            .map_err(|e| Self::failed("takeover", e))?;
        Ok(taken.into_iter().map(JournaledTask::from).collect())
    }

    fn failed(what: &str, error: String) -> Error {
        Error::config(format!("the task journal could not be read ({what}): {error}"))
    }

    /// The tasks of this owner that did not end, oldest first; the marks stored are put back in
    /// `cache` first (those still inside their TTL).
    pub(crate) async fn unfinished(&self, cache: &DiscoveryCache) -> Result<Vec<JournaledTask>, Error> {
        let bound = self.inner.commit_wait;
        let read = async {
            let marks = self.inner.store.marks().await.map_err(|e| Self::failed("marks", e))?;
            let mut restored = 0;
            for (agent, mark) in marks.into_iter().filter_map(MarkRecord::into_mark) {
                restored += usize::from(cache.restore_mark(&agent, mark));
            }
            if restored > 0 {
                tracing::info!(restored, "suspect marks restored from the task journal");
            }
            let records =
                self.inner.store.unfinished(self.owner()).await.map_err(|e| Self::failed("tasks", e))?;
            Ok(records.into_iter().map(JournaledTask::from).collect())
        };
        // Two reads of the store, each its own round trip: twice the bound each.
        tokio::time::timeout(bound * 4, read).await.map_err(|_| {
            Error::config(format!(
                "the task journal could not be read within {}",
                a2a_typestate_types::human::HumanDuration(bound * 4)
            ))
        })?
    }

    /// The record whose first message is `message_id`, ended or not (kept for the retention).
    pub(crate) async fn find(&self, message_id: &str) -> Result<Option<JournaledTask>, Error> {
        let bound = self.inner.commit_wait;
        match tokio::time::timeout(bound * 2, self.inner.store.find(message_id)).await {
            Ok(found) => Ok(found.map_err(|e| Self::failed("task", e))?.map(JournaledTask::from)),
            Err(_) => Err(Error::config(format!(
                "the task journal could not be read within {}",
                a2a_typestate_types::human::HumanDuration(bound * 2)
            ))),
        }
    }

    /// Closes the record of a task [`Client::resume`](crate::Client::resume) followed: it ended or
    /// paused (its state), never started, or may have started (the caller's to decide).
    pub(crate) fn resumed(&self, task: &JournaledTask, recovered: &Recovered) {
        let mut record = task.record.clone();
        let (state, error) = match recovered {
            Recovered::Task(found) => {
                record.task_id = Some(bounded(found.id.as_str()));
                record.state = Some(found.status.state);
                (Some(found.status.state), None)
            }
            other => (None, Some(bounded(&format!("recovered: {other}")))),
        };
        record.ended = Some(Ended { state, error, at_ms: now_ms() });
        record.updated_at_ms = now_ms();
        self.write_later(record);
    }

    /// Writes `record` and waits for it at most the commit wait.
    async fn write_now(&self, record: TaskRecord) -> Durability {
        let Some(Some(ack)) = self.inner.writer.send(Write::Task(record), true) else {
            return Durability::NotDurable;
        };
        match tokio::time::timeout(self.inner.commit_wait, ack).await {
            Ok(Ok(true)) => Durability::Journaled,
            _ => Durability::NotDurable,
        }
    }

    /// Queues `record` without waiting.
    fn write_later(&self, record: TaskRecord) -> bool {
        self.inner.writer.send(Write::Task(record), false).is_some()
    }

    /// Queues `agent`'s unexpired suspect marks that were not written yet.
    pub(crate) fn remember_marks(&self, cache: &DiscoveryCache, agent: &AgentBaseUrl) {
        let marks = cache.suspect_marks(agent);
        if marks.is_empty() {
            return;
        }
        let now = tokio::time::Instant::now();
        let mut written = self.inner.marks_written.lock().unwrap_or_else(PoisonError::into_inner);
        for mark in marks {
            let ttl = mark.expires_at().saturating_duration_since(now);
            let record = MarkRecord::new(agent, mark.claim(), mark.evidence(), mark.card_version(), ttl);
            let key = record.key();
            // The same mark read again ends within a second of the one written.
            if written.get(&key).is_some_and(|at| at.abs_diff(record.expires_at_ms) < 1000) {
                continue;
            }
            written.insert(key, record.expires_at_ms);
            let _ = self.inner.writer.send(Write::Mark(record), false);
        }
    }
}

/// A task as the journal knows it: what identifies it, the last state the client read, and
/// whether its run ended. Returned by [`Client::recover`](crate::Client::recover) (those that did
/// not end) and [`Client::journaled`](crate::Client::journaled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournaledTask {
    record: TaskRecord,
}

impl From<TaskRecord> for JournaledTask {
    fn from(record: TaskRecord) -> Self {
        Self { record }
    }
}

/// A stored timestamp (a peer may have written it): never a panic, however far ahead.
fn time_of(ms: u64) -> SystemTime {
    a2a_typestate_types::wire_number::since_unix_epoch(Duration::from_millis(ms))
}

impl JournaledTask {
    /// The agent's base URL.
    pub fn agent(&self) -> &str {
        &self.record.agent
    }

    /// The id of the message that started the task.
    pub fn message_id(&self) -> &str {
        &self.record.message_id
    }

    /// The context id the first message went with.
    pub fn context_id(&self) -> &str {
        &self.record.context_id
    }

    /// The task id, once the agent had named it; `None` when its first answer never arrived.
    pub fn task_id(&self) -> Option<&str> {
        self.record.task_id.as_deref()
    }

    /// The last state the client read.
    pub fn last_state(&self) -> Option<TaskState> {
        self.record.state
    }

    /// The path the run took when it began: `streaming`, `polling` or `single-shot`.
    pub fn path(&self) -> &str {
        &self.record.path
    }

    /// The capabilities the caller depended on, as the card names them (`streaming`).
    pub fn depends(&self) -> &[String] {
        &self.record.depends
    }

    /// Of those, the ones the agent's card claimed when the run began.
    pub fn claimed(&self) -> &[String] {
        &self.record.claimed
    }

    /// When the run began (the wall clock).
    pub fn begun_at(&self) -> SystemTime {
        time_of(self.record.begun_at_ms)
    }

    /// Whether the run ended (a result or an error); a task that ended is not recovered.
    pub fn has_ended(&self) -> bool {
        self.record.ended.is_some()
    }

    /// The error the run ended with, if it ended with one.
    pub fn error(&self) -> Option<&str> {
        self.record.ended.as_ref().and_then(|e| e.error.as_deref())
    }

    /// The replica that began the task, when this one took it over
    /// ([`Client::take_over`](crate::Client::take_over)).
    pub fn taken_over_from(&self) -> Option<&str> {
        self.record.taken_over_from.as_deref()
    }
}

/// What following an unfinished task to its end found ([`Client::resume`](crate::Client::resume)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Recovered {
    /// The task, followed until it ended or paused for input (`SubscribeToTask` where its run was
    /// streaming, `GetTask` polling otherwise), as last read (boxed: the other outcomes are small).
    Task(Box<a2a_typestate_types::Task>),
    /// The answer to the first send never arrived, and the agent lists no task under the context
    /// id it was sent with, asked at least the start grace ([`DEFAULT_START_GRACE`]) after the
    /// send began: the message never reached it. Sending it again is the caller's choice.
    NotStarted,
    /// The answer to the first send never arrived, and the agent cannot list its tasks by context
    /// (`ListTasks` failed): the task may have started. It is not sent again.
    MayHaveStarted {
        /// Why the agent could not be asked.
        reason: String,
    },
}

impl fmt::Display for Recovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Task(task) => write!(f, "task {} {}", task.id, task.status.state),
            Self::NotStarted => f.write_str("not started"),
            Self::MayHaveStarted { reason } => write!(f, "may have started ({reason})"),
        }
    }
}

/// One run's record, kept as it changes: written before the first send, at each state change and
/// at the end.
#[derive(Debug)]
pub(crate) struct Recorder {
    journal: Journal,
    record: Mutex<TaskRecord>,
    durability: Durability,
}

/// What a run begins with, for the journal.
pub(crate) struct Begin<'a> {
    pub(crate) agent: &'a AgentBaseUrl,
    pub(crate) message_id: &'a str,
    pub(crate) context_id: &'a str,
    pub(crate) path: &'a str,
    pub(crate) depends: Vec<String>,
    pub(crate) claimed: Vec<String>,
}

impl Recorder {
    /// Commits what identifies the task, waiting at most the commit wait.
    pub(crate) async fn begin(journal: &Journal, begin: Begin<'_>) -> Arc<Self> {
        let mut record = TaskRecord::new(journal.owner(), begin.agent, begin.message_id, begin.context_id);
        record.path = begin.path.to_owned();
        record.depends = begin.depends;
        record.claimed = begin.claimed;
        let durability = journal.write_now(record.clone()).await;
        Arc::new(Self { journal: journal.clone(), record: Mutex::new(record), durability })
    }

    pub(crate) fn durability(&self) -> Durability {
        self.durability
    }

    /// An update the run read. Written (in the background) when it tells recovery or an operator
    /// something new: a new task id, or a state that waits on the caller (input-required,
    /// auth-required) entered or left. Other changes (submitted to working, a terminal state the
    /// end will write) are kept for the next write without one of their own.
    pub(crate) fn observe(&self, update: &StreamResponse) {
        let (task_id, state) = match update {
            StreamResponse::Task(task) => (&task.id, task.status.state),
            StreamResponse::StatusUpdate(update) => (&update.task_id, update.status.state),
            StreamResponse::ArtifactUpdate(_) | StreamResponse::Message(_) => return,
        };
        let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
        let same_task = record.task_id.as_deref() == Some(task_id.as_str());
        if same_task && record.state == Some(state) {
            return;
        }
        let new_task = !task_id.is_empty() && !same_task;
        if new_task {
            record.task_id = Some(bounded(task_id.as_str()));
        }
        let waits_on_caller = |state: Option<TaskState>| {
            matches!(state, Some(TaskState::InputRequired | TaskState::AuthRequired))
        };
        let worth_a_write = new_task || waits_on_caller(record.state) || waits_on_caller(Some(state));
        record.state = Some(state);
        record.updated_at_ms = now_ms();
        if worth_a_write {
            self.journal.write_later(record.clone());
        }
    }

    /// The run ended: with its last state (none for a direct message) or an error.
    pub(crate) fn end(&self, state: Option<TaskState>, error: Option<&Error>) {
        let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
        let error = error.map(|e| bounded(&e.to_string()));
        record.ended = Some(Ended { state, error, at_ms: now_ms() });
        record.updated_at_ms = now_ms();
        self.journal.write_later(record.clone());
    }
}
