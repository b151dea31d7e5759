//! The one writer every journal write goes through: a bounded queue and a loop that takes all that
//! waits, keeps the newest write of each record, and commits them in one transaction (group
//! commit). A write that cannot be queued or committed in time is reported, never waited for past
//! its bound.
//!
//! Writes nobody waits for (a task's states and its end, marks) wait up to [`LINGER`] for company
//! before they are committed: the next write somebody waits for (a task's first record, a flush)
//! takes them along, or the linger ends. A task's states then cost a share of one commit instead
//! of a commit each (BENCHMARKS.md figure 10, the fleet), and what a crash can lose is the last
//! [`LINGER`] of states and ends, never a task's first record; recovery follows such a task as it
//! follows one whose end was not yet written.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::record::{MarkRecord, TaskRecord};
use crate::shared::BackendStatus;

/// The most writes one commit takes.
const MAX_BATCH: usize = 1024;

/// How long writes nobody waits for wait for a write that somebody does, before they are
/// committed on their own.
pub(crate) const LINGER: Duration = Duration::from_millis(20);

/// One write: a task's whole record, or a mark.
#[derive(Clone, Debug)]
pub(crate) enum Write {
    Task(TaskRecord),
    Mark(MarkRecord),
}

impl Write {
    fn key(&self) -> (bool, String) {
        match self {
            Self::Task(record) => (true, record.message_id.clone()),
            Self::Mark(mark) => (false, mark.key()),
        }
    }
}

/// A write with its record's bytes, serialized once by the writer for the store and its count.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) write: Write,
    pub(crate) bytes: Vec<u8>,
}

impl Encoded {
    fn of(write: Write) -> Self {
        let bytes = match &write {
            Write::Task(record) => record.to_bytes(),
            Write::Mark(mark) => mark.to_bytes(),
        };
        Self { write, bytes }
    }
}

/// Where the journal keeps its records: a file, or a Redis server.
pub(crate) trait Store: Send + Sync + fmt::Debug + 'static {
    /// Writes `batch` at once (one transaction, one pipeline); an error in words.
    fn commit(&self, batch: Vec<Encoded>) -> BoxFuture<'_, Result<(), String>>;
    /// The records of `owner` that did not end.
    fn unfinished(&self, owner: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>>;
    /// The record whose first message is `message_id`, ended or not.
    fn find(&self, message_id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, String>>;
    /// Every stored mark (expired ones included; the reader drops them).
    fn marks(&self) -> BoxFuture<'_, Result<Vec<MarkRecord>, String>>;
    /// Says `owner` is alive for `lease` more (a store shared by replicas; nothing by default).
    fn alive(&self, owner: &str, lease: Duration) -> BoxFuture<'_, Result<(), String>> {
        let _ = (owner, lease);
        Box::pin(async { Ok(()) })
    }
    /// Moves to `owner` the unfinished records of every other owner whose lease ran out, each to
    /// exactly one taker, and returns them rewritten as `owner`'s (a store shared by replicas;
    /// none by default: one process owns an embedded file).
    fn take_over(&self, owner: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>> {
        let _ = owner;
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// A write waiting for the writer, or (`None`) a flush: answered once every write before it is
/// committed.
struct Pending {
    write: Option<Write>,
    ack: Option<oneshot::Sender<bool>>,
}

const CONNECTING: u8 = 0;
const CONNECTED: u8 = 1;
const DEGRADED: u8 = 2;

/// Counters of the writer, read with [`Journal::stats`](super::Journal::stats).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) commits: AtomicU64,
    pub(crate) writes: AtomicU64,
    pub(crate) bytes: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) dropped: AtomicU64,
}

/// The sending side: cheap, never blocks.
#[derive(Debug)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Pending>,
    status: Arc<AtomicU8>,
    pub(crate) counters: Arc<Counters>,
}

impl Writer {
    /// Starts the loop on the current tokio runtime, committing to `store`, each commit bounded
    /// by `bound`.
    pub(crate) fn start(
        store: Arc<dyn Store>,
        queue_limit: usize,
        bound: Duration,
    ) -> Result<Self, crate::Error> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| crate::Error::config("a task journal must be built inside a tokio runtime"))?;
        let (tx, rx) = mpsc::channel(queue_limit);
        let status = Arc::new(AtomicU8::new(CONNECTING));
        let counters = Arc::new(Counters::default());
        runtime.spawn(run(store, rx, Arc::clone(&status), Arc::clone(&counters), bound));
        Ok(Self { tx, status, counters })
    }

    /// Queues `write`; `None` when the queue is full (the write is dropped and counted).
    pub(crate) fn send(&self, write: Write, acked: bool) -> Option<Option<oneshot::Receiver<bool>>> {
        let (ack, rx) = if acked {
            let (tx, rx) = oneshot::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        match self.tx.try_send(Pending { write: Some(write), ack }) {
            Ok(()) => Some(rx),
            Err(_) => {
                self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                if self.status.swap(DEGRADED, Ordering::Relaxed) != DEGRADED {
                    tracing::warn!("task journal queue full: writes dropped, tasks go on without durability");
                }
                None
            }
        }
    }

    /// Waits at most `within` until every write queued before this call is committed; `true`
    /// when it is (a failed commit counts as done: it will not be tried again).
    pub(crate) async fn flush(&self, within: Duration) -> bool {
        let (ack, done) = oneshot::channel();
        let flushed = async {
            self.tx.send(Pending { write: None, ack: Some(ack) }).await.is_ok() && done.await.is_ok()
        };
        tokio::time::timeout(within, flushed).await.unwrap_or(false)
    }

    pub(crate) fn status(&self) -> BackendStatus {
        match self.status.load(Ordering::Relaxed) {
            CONNECTED => BackendStatus::Connected,
            DEGRADED => BackendStatus::Degraded,
            _ => BackendStatus::Connecting,
        }
    }
}

/// Takes what waits, keeps the newest write of each record, commits once, answers every waiter.
async fn run(
    store: Arc<dyn Store>,
    mut rx: mpsc::Receiver<Pending>,
    status: Arc<AtomicU8>,
    counters: Arc<Counters>,
    bound: Duration,
) {
    let mut waiting = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut waiting, MAX_BATCH).await > 0 {
        linger(&mut rx, &mut waiting).await;
        let mut acks = Vec::new();
        let mut newest: HashMap<(bool, String), usize> = HashMap::new();
        let mut batch: Vec<Write> = Vec::with_capacity(waiting.len());
        for pending in waiting.drain(..) {
            acks.extend(pending.ack);
            let Some(write) = pending.write else { continue };
            match newest.get(&write.key()) {
                Some(&at) => batch[at] = write,
                None => {
                    newest.insert(write.key(), batch.len());
                    batch.push(write);
                }
            }
        }
        if batch.is_empty() {
            // Only flushes: everything before them is committed already.
            for ack in acks {
                let _ = ack.send(true);
            }
            continue;
        }
        let batch: Vec<Encoded> = batch.into_iter().map(Encoded::of).collect();
        let bytes: usize = batch.iter().map(|encoded| encoded.bytes.len()).sum();
        let writes = batch.len() as u64;
        let result = match tokio::time::timeout(bound, store.commit(batch)).await {
            Ok(result) => result,
            Err(_) => {
                Err(format!("commit took longer than {}", a2a_typestate_types::human::HumanDuration(bound)))
            }
        };
        let ok = result.is_ok();
        match result {
            Ok(()) => {
                counters.commits.fetch_add(1, Ordering::Relaxed);
                counters.writes.fetch_add(writes, Ordering::Relaxed);
                counters.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
                if status.swap(CONNECTED, Ordering::Relaxed) == DEGRADED {
                    tracing::info!("task journal writable again");
                }
            }
            Err(error) => {
                counters.failed.fetch_add(writes, Ordering::Relaxed);
                if status.swap(DEGRADED, Ordering::Relaxed) != DEGRADED {
                    tracing::warn!(%error, "task journal degraded: tasks go on without durability");
                }
            }
        }
        for ack in acks {
            let _ = ack.send(ok);
        }
    }
}

/// While nobody waits for what `waiting` holds, takes more for up to [`LINGER`]: until a write
/// somebody waits for arrives, the batch is full, or the queue closes.
async fn linger(rx: &mut mpsc::Receiver<Pending>, waiting: &mut Vec<Pending>) {
    if waiting.iter().any(|pending| pending.ack.is_some()) {
        return;
    }
    let until = tokio::time::Instant::now() + LINGER;
    while waiting.len() < MAX_BATCH {
        let before = waiting.len();
        match tokio::time::timeout_at(until, rx.recv_many(waiting, MAX_BATCH - before)).await {
            Ok(0) | Err(_) => return,
            Ok(_) if waiting[before..].iter().any(|pending| pending.ack.is_some()) => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::agent_url::AgentBaseUrl;

    /// A store that keeps each batch it is given, and fails while `failing` is set.
    #[derive(Debug, Default)]
    struct Batches {
        batches: Mutex<Vec<usize>>,
        failing: std::sync::atomic::AtomicBool,
    }

    impl Store for Batches {
        fn commit(&self, batch: Vec<Encoded>) -> BoxFuture<'_, Result<(), String>> {
            Box::pin(async move {
                if self.failing.load(Ordering::Relaxed) {
                    return Err("disk full".to_owned());
                }
                self.batches.lock().unwrap().push(batch.len());
                Ok(())
            })
        }
        fn unfinished(&self, _: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>> {
            Box::pin(async { Ok(Vec::new()) })
        }
        fn find(&self, _: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, String>> {
            Box::pin(async { Ok(None) })
        }
        fn marks(&self) -> BoxFuture<'_, Result<Vec<MarkRecord>, String>> {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    fn record(n: usize) -> Write {
        let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
        Write::Task(TaskRecord::new("", &agent, &format!("m-{n}"), "c"))
    }

    #[tokio::test(flavor = "current_thread")]
    async fn writes_waiting_together_are_committed_together_and_the_newest_of_a_record_wins() {
        let store = Arc::new(Batches::default());
        let writer = Writer::start(store.clone(), 1024, Duration::from_secs(1)).unwrap();
        // Queued before the writer runs (one thread): one batch; the second write of m-0 replaces
        // the first.
        for n in 0..100 {
            writer.send(record(n), false).unwrap();
        }
        writer.send(record(0), false).unwrap();
        assert!(writer.flush(Duration::from_secs(5)).await);
        assert_eq!(*store.batches.lock().unwrap(), [100]);
        assert_eq!(writer.status(), BackendStatus::Connected);
        assert_eq!(writer.counters.writes.load(Ordering::Relaxed), 100);
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn writes_nobody_waits_for_are_taken_along_by_the_next_write_somebody_waits_for() {
        let store = Arc::new(Batches::default());
        let writer = Writer::start(store.clone(), 1024, Duration::from_secs(1)).unwrap();
        writer.send(record(1), false).unwrap();
        tokio::time::sleep(LINGER / 4).await;
        writer.send(record(2), false).unwrap();
        tokio::time::sleep(LINGER / 4).await;
        assert!(store.batches.lock().unwrap().is_empty(), "still lingering");
        let ack = writer.send(record(3), true).unwrap().unwrap();
        assert!(ack.await.unwrap());
        assert_eq!(*store.batches.lock().unwrap(), [3], "one commit took all three");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn writes_nobody_waits_for_are_committed_alone_once_the_linger_ends() {
        let store = Arc::new(Batches::default());
        let writer = Writer::start(store.clone(), 1024, Duration::from_secs(1)).unwrap();
        writer.send(record(1), false).unwrap();
        tokio::time::sleep(LINGER / 2).await;
        assert!(store.batches.lock().unwrap().is_empty(), "still lingering");
        tokio::time::sleep(LINGER).await;
        assert_eq!(*store.batches.lock().unwrap(), [1], "committed without a waiter or a flush");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_commit_is_reported_to_its_waiter_and_a_full_queue_drops_at_once() {
        let store = Arc::new(Batches::default());
        store.failing.store(true, Ordering::Relaxed);
        let writer = Writer::start(store.clone(), 2, Duration::from_secs(1)).unwrap();
        let ack = writer.send(record(1), true).unwrap().unwrap();
        writer.send(record(2), false).unwrap();
        // The queue holds two: a third is dropped, not waited for.
        assert!(writer.send(record(3), false).is_none());
        assert_eq!(writer.counters.dropped.load(Ordering::Relaxed), 1);
        assert!(!ack.await.unwrap(), "the waiter hears the commit failed");
        assert_eq!(writer.status(), BackendStatus::Degraded);
        store.failing.store(false, Ordering::Relaxed);
        writer.send(record(4), false).unwrap();
        assert!(writer.flush(Duration::from_secs(5)).await);
        assert_eq!(writer.status(), BackendStatus::Connected, "writable again");
    }
}
