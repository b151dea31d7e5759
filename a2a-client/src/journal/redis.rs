//! The Redis store: the journal on the server the replicas already share for the discovery cache.
//! Each commit is one pipeline (`MULTI`/`EXEC`), bounded by the journal's commit wait; a failure
//! drops the connection, and the next commit opens a new one (bounded too).
//!
//! Keys under the prefix:
//! - `{prefix}:journal:task:{first message id}`: the record as JSON; once it ended it expires
//!   after the retention;
//! - `{prefix}:journal:open:{owner}`: the set of the owner's records not ended;
//! - `{prefix}:journal:mark:{agent and claim}`: a suspect mark, expiring with it;
//! - `{prefix}:journal:alive:{owner}`: the owner's lease on its tasks, set with every commit and
//!   renewed while it lives; once it expired, a live replica may move the owner's open set to its
//!   own (one script: each task goes to one taker);
//! - `{prefix}:journal:takeovers`: the last takeovers (who, from whom, how many), newest first, for
//!   `a2a watch --redis`.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use redis::AsyncConnectionConfig;
use redis::aio::MultiplexedConnection;

use super::record::{MarkRecord, TaskRecord};
use super::writer::{Encoded, Store, Write};
use crate::Error;

/// Most mark keys one read takes (a bound on its loop).
const MAX_MARK_KEYS: usize = 100_000;
/// Most owners one takeover pass looks at.
const MAX_OWNERS: usize = 10_000;
/// Takeovers kept in the log.
const TAKEOVER_LOG: isize = 100;

/// Moves a dead owner's open set to the taker's, unless the owner's lease is alive: KEYS[1] the
/// owner's open set, KEYS[2] its lease, KEYS[3] the taker's open set. Returns the ids moved.
/// One script, so two replicas taking over at once split nothing: the first takes all.
const TAKE_OVER: &str = r"
if redis.call('EXISTS', KEYS[2]) == 1 then return {} end
local ids = redis.call('SMEMBERS', KEYS[1])
for _, id in ipairs(ids) do redis.call('SADD', KEYS[3], id) end
redis.call('DEL', KEYS[1])
return ids
";

#[derive(Debug)]
pub(crate) struct RedisStore {
    client: redis::Client,
    prefix: String,
    bound: Duration,
    retention: Duration,
    lease: Duration,
    conn: Mutex<Option<MultiplexedConnection>>,
}

fn px(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisStore {
    /// Checks the URL; connects nothing yet.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `url` is not a Redis URL.
    pub(crate) fn new(
        url: &str,
        prefix: &str,
        bound: Duration,
        retention: Duration,
        lease: Duration,
    ) -> Result<Self, Error> {
        let client =
            redis::Client::open(url).map_err(|e| Error::config_with("not a redis url", Box::new(e)))?;
        Ok(Self { client, prefix: prefix.to_owned(), bound, retention, lease, conn: Mutex::new(None) })
    }

    fn alive_key(&self, owner: &str) -> String {
        format!("{}:journal:alive:{owner}", self.prefix)
    }

    fn takeovers_key(&self) -> String {
        format!("{}:journal:takeovers", self.prefix)
    }

    fn task_key(&self, message_id: &str) -> String {
        format!("{}:journal:task:{message_id}", self.prefix)
    }

    fn open_key(&self, owner: &str) -> String {
        format!("{}:journal:open:{owner}", self.prefix)
    }

    fn mark_key(&self, key: &str) -> String {
        format!("{}:journal:mark:{key}", self.prefix)
    }

    async fn connection(&self) -> Result<MultiplexedConnection, String> {
        if let Some(conn) = self.conn.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            return Ok(conn);
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.bound))
            .set_response_timeout(Some(self.bound));
        let conn = tokio::time::timeout(
            self.bound,
            self.client.get_multiplexed_async_connection_with_config(&config),
        )
        .await
        .map_err(|_| "redis connect timed out".to_owned())?
        .map_err(|e| e.to_string())?;
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn.clone());
        Ok(conn)
    }

    /// The keys matching `pattern`, at most about `most` (a bound on the loop).
    async fn keys(&self, pattern: &str, most: usize) -> Result<Vec<String>, String> {
        let mut keys: Vec<String> = Vec::new();
        let mut cursor = 0_u64;
        loop {
            let (next, batch): (u64, Vec<String>) = self
                .with(async |conn| {
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(1000)
                        .query_async(conn)
                        .await
                })
                .await?;
            keys.extend(batch);
            cursor = next;
            if cursor == 0 || keys.len() >= most {
                return Ok(keys);
            }
        }
    }

    /// Runs `f` on the connection within the bound; a failure drops the connection.
    async fn with<T>(
        &self,
        f: impl AsyncFnOnce(&mut MultiplexedConnection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let mut conn = self.connection().await?;
        let result = match tokio::time::timeout(self.bound, f(&mut conn)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("redis command timed out".to_owned()),
        };
        if result.is_err() {
            *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
        result
    }
}

impl Store for RedisStore {
    fn commit(&self, batch: Vec<Encoded>) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.atomic();
            for Encoded { write, bytes } in &batch {
                match write {
                    Write::Task(record) => {
                        let key = self.task_key(&record.message_id);
                        let open = self.open_key(&record.owner);
                        if record.ended.is_some() {
                            pipe.cmd("SET")
                                .arg(&key)
                                .arg(bytes.as_slice())
                                .arg("PX")
                                .arg(px(self.retention))
                                .ignore();
                            pipe.cmd("SREM").arg(&open).arg(&record.message_id).ignore();
                        } else {
                            pipe.cmd("SET").arg(&key).arg(bytes.as_slice()).ignore();
                            pipe.cmd("SADD").arg(&open).arg(&record.message_id).ignore();
                            // In the same transaction as the open task: no moment holds an open
                            // task without its owner's lease.
                            pipe.cmd("SET")
                                .arg(self.alive_key(&record.owner))
                                .arg(1)
                                .arg("PX")
                                .arg(px(self.lease))
                                .ignore();
                        }
                    }
                    Write::Mark(mark) => {
                        let ttl = mark.ttl();
                        if !ttl.is_zero() {
                            pipe.cmd("SET")
                                .arg(self.mark_key(&mark.key()))
                                .arg(bytes.as_slice())
                                .arg("PX")
                                .arg(px(ttl))
                                .ignore();
                        }
                    }
                }
            }
            self.with(async move |conn| pipe.query_async::<()>(conn).await).await
        })
    }

    fn unfinished(&self, owner: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>> {
        let open = self.open_key(owner);
        Box::pin(async move {
            let ids: Vec<String> =
                self.with(async |conn| redis::cmd("SMEMBERS").arg(&open).query_async(conn).await).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
            let values: Vec<Option<Vec<u8>>> =
                self.with(async |conn| redis::cmd("MGET").arg(&keys).query_async(conn).await).await?;
            let mut found: Vec<TaskRecord> = values
                .into_iter()
                .flatten()
                .filter_map(|v| TaskRecord::from_bytes(&v))
                .filter(|r| r.ended.is_none())
                .collect();
            found.sort_by_key(|r| r.begun_at_ms);
            Ok(found)
        })
    }

    fn find(&self, message_id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, String>> {
        let key = self.task_key(message_id);
        Box::pin(async move {
            let value: Option<Vec<u8>> =
                self.with(async |conn| redis::cmd("GET").arg(&key).query_async(conn).await).await?;
            Ok(value.and_then(|v| TaskRecord::from_bytes(&v)))
        })
    }

    fn marks(&self) -> BoxFuture<'_, Result<Vec<MarkRecord>, String>> {
        let pattern = format!("{}:journal:mark:*", self.prefix);
        Box::pin(async move {
            let keys = self.keys(&pattern, MAX_MARK_KEYS).await?;
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let values: Vec<Option<Vec<u8>>> =
                self.with(async |conn| redis::cmd("MGET").arg(&keys).query_async(conn).await).await?;
            Ok(values.into_iter().flatten().filter_map(|v| MarkRecord::from_bytes(&v)).collect())
        })
    }

    fn alive(&self, owner: &str, lease: Duration) -> BoxFuture<'_, Result<(), String>> {
        let key = self.alive_key(owner);
        Box::pin(async move {
            self.with(async |conn| {
                redis::cmd("SET").arg(&key).arg(1).arg("PX").arg(px(lease)).query_async::<()>(conn).await
            })
            .await
        })
    }

    fn take_over(&self, owner: &str) -> BoxFuture<'_, Result<Vec<TaskRecord>, String>> {
        let owner = owner.to_owned();
        Box::pin(async move {
            let pattern = format!("{}:journal:open:*", self.prefix);
            let open_prefix = self.open_key("");
            let owners: Vec<String> = self
                .keys(&pattern, MAX_OWNERS)
                .await?
                .iter()
                .filter_map(|key| key.strip_prefix(&open_prefix).map(str::to_owned))
                .collect();
            let mine = self.open_key(&owner);
            let mut taken = Vec::new();
            for from in owners.into_iter().filter(|from| *from != owner) {
                let keys = [self.open_key(&from), self.alive_key(&from), mine.clone()];
                let ids: Vec<String> = self
                    .with(async |conn| {
                        redis::cmd("EVAL").arg(TAKE_OVER).arg(3).arg(&keys).query_async(conn).await
                    })
                    .await?;
                if ids.is_empty() {
                    continue;
                }
                let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
                let values: Vec<Option<Vec<u8>>> =
                    self.with(async |conn| redis::cmd("MGET").arg(&keys).query_async(conn).await).await?;
                let records: Vec<TaskRecord> = values
                    .into_iter()
                    .flatten()
                    .filter_map(|v| TaskRecord::from_bytes(&v))
                    .filter(|r| r.ended.is_none())
                    .map(|r| TaskRecord { owner: owner.clone(), taken_over_from: Some(from.clone()), ..r })
                    .collect();
                let entry = serde_json::json!({
                    "from": from,
                    "to": owner,
                    "tasks": records.len(),
                    "atMs": super::record::now_ms(),
                })
                .to_string();
                let mut pipe = redis::pipe();
                pipe.atomic();
                for record in &records {
                    pipe.cmd("SET").arg(self.task_key(&record.message_id)).arg(record.to_bytes()).ignore();
                }
                pipe.cmd("LPUSH").arg(self.takeovers_key()).arg(entry).ignore();
                pipe.cmd("LTRIM").arg(self.takeovers_key()).arg(0).arg(TAKEOVER_LOG - 1).ignore();
                self.with(async move |conn| pipe.query_async::<()>(conn).await).await?;
                tracing::warn!(from = %from, tasks = records.len(), "took over the unfinished tasks of a replica whose lease ran out");
                taken.extend(records);
            }
            taken.sort_by_key(|r| r.begun_at_ms);
            Ok(taken)
        })
    }
}
