//! The embedded store: one [`redb`] file (pure Rust, crash-safe transactions; the CLI's `a2a watch`
//! keeps its history the same way). Each commit is one write transaction, made durable before it
//! returns; commits run on tokio's blocking pool, never on a task's thread.
//!
//! Tables: `tasks` (first message id → record JSON), `open` (first message id → owner, for the
//! records not ended) and `marks` (agent and claim → mark JSON).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use redb::{Database, ReadableTable, TableDefinition};

use super::record::{MarkRecord, TaskRecord, now_ms};
use super::writer::{Encoded, Store, Write};
use crate::Error;

const TASKS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("tasks");
const OPEN: TableDefinition<'_, &str, &str> = TableDefinition::new("open");
const MARKS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("marks");

/// redb's page cache: its default (1 GiB) would let the cache grow with the file.
const CACHE_BYTES: usize = 4 * 1024 * 1024;

#[derive(Debug)]
pub(crate) struct Embedded {
    db: Arc<Database>,
}

fn failed(e: impl Into<redb::Error>) -> String {
    e.into().to_string()
}

impl Embedded {
    /// Opens (or creates) the file at `path`, and drops the ended records older than `retention`
    /// and the expired marks.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] naming the file when it cannot be opened (another process holds
    /// it, no such directory, not a journal).
    pub(crate) fn open(path: &Path, retention: Duration) -> Result<Self, Error> {
        let db = redb::Builder::new().set_cache_size(CACHE_BYTES).create(path).map_err(|e| {
            Error::config_with(format!("cannot open the task journal {}", path.display()), Box::new(e))
        })?;
        let pruned = prune(&db, retention)
            .map_err(|e| Error::config(format!("cannot read the task journal {}: {e}", path.display())))?;
        if pruned > 0 {
            tracing::debug!(pruned, "ended journal records past their retention dropped");
        }
        Ok(Self { db: Arc::new(db) })
    }

    fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, String> + Send + 'static,
    ) -> BoxFuture<'_, Result<T, String>> {
        let db = Arc::clone(&self.db);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || f(&db)).await.map_err(|e| format!("journal worker: {e}"))?
        })
    }
}

/// Creates the tables, drops what is past its time; returns how many records went.
fn prune(db: &Database, retention: Duration) -> Result<usize, String> {
    let horizon = now_ms().saturating_sub(u64::try_from(retention.as_millis()).unwrap_or(u64::MAX));
    let now = now_ms();
    let txn = db.begin_write().map_err(failed)?;
    let mut pruned = 0;
    {
        let mut tasks = txn.open_table(TASKS).map_err(failed)?;
        txn.open_table(OPEN).map_err(failed)?;
        let mut marks = txn.open_table(MARKS).map_err(failed)?;
        let old: Vec<String> = tasks
            .iter()
            .map_err(failed)?
            .filter_map(Result::ok)
            .filter(|(_, value)| {
                TaskRecord::from_bytes(value.value())
                    .is_none_or(|r| r.ended.as_ref().is_some_and(|e| e.at_ms < horizon))
            })
            .map(|(key, _)| key.value().to_owned())
            .collect();
        for key in &old {
            tasks.remove(key.as_str()).map_err(failed)?;
        }
        pruned += old.len();
        let expired: Vec<String> = marks
            .iter()
            .map_err(failed)?
            .filter_map(Result::ok)
            .filter(|(_, value)| MarkRecord::from_bytes(value.value()).is_none_or(|m| m.expires_at_ms <= now))
            .map(|(key, _)| key.value().to_owned())
            .collect();
        for key in &expired {
            marks.remove(key.as_str()).map_err(failed)?;
        }
    }
    txn.commit().map_err(failed)?;
    Ok(pruned)
}

impl Store for Embedded {
    fn commit(&self, batch: Vec<Encoded>) -> BoxFuture<'_, Result<(), String>> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(failed)?;
            {
                let mut tasks = txn.open_table(TASKS).map_err(failed)?;
                let mut open = txn.open_table(OPEN).map_err(failed)?;
                let mut marks = txn.open_table(MARKS).map_err(failed)?;
                for Encoded { write, bytes } in &batch {
                    match write {
                        Write::Task(record) => {
                            let key = record.message_id.as_str();
                            tasks.insert(key, bytes.as_slice()).map_err(failed)?;
                            if record.ended.is_some() {
                                open.remove(key).map_err(failed)?;
                            } else {
                                open.insert(key, record.owner.as_str()).map_err(failed)?;
                            }
                        }
                        Write::Mark(mark) => {
                            marks.insert(mark.key().as_str(), bytes.as_slice()).map_err(failed)?;
                        }
                    }
                }
            }
            txn.commit().map_err(failed)
        })
    }

    fn unfinished(&self, owner: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>> {
        let owner = owner.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let open = txn.open_table(OPEN).map_err(failed)?;
            let tasks = txn.open_table(TASKS).map_err(failed)?;
            let mut found = Vec::new();
            for row in open.iter().map_err(failed)? {
                let (key, who) = row.map_err(failed)?;
                if who.value() != owner {
                    continue;
                }
                let record = tasks.get(key.value()).map_err(failed)?;
                if let Some(record) = record.and_then(|v| TaskRecord::from_bytes(v.value()))
                    && record.ended.is_none()
                {
                    found.push(record);
                }
            }
            found.sort_by_key(|r| r.begun_at_ms);
            Ok(found)
        })
    }

    fn find(&self, message_id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, String>> {
        let message_id = message_id.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let tasks = txn.open_table(TASKS).map_err(failed)?;
            let record = tasks.get(message_id.as_str()).map_err(failed)?;
            Ok(record.and_then(|v| TaskRecord::from_bytes(v.value())))
        })
    }

    fn marks(&self) -> BoxFuture<'_, Result<Vec<MarkRecord>, String>> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(failed)?;
            let marks = txn.open_table(MARKS).map_err(failed)?;
            let mut found = Vec::new();
            for row in marks.iter().map_err(failed)? {
                let (_, value) = row.map_err(failed)?;
                found.extend(MarkRecord::from_bytes(value.value()));
            }
            Ok(found)
        })
    }
}
