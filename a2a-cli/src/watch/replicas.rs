//! What the watch shares with orchestrator replicas through their Redis (`--redis`):
//!
//! - the suspect marks they hold, read every card check for the page and `/metrics`: the keys
//!   `{prefix}:suspect:{claim}:...{agent}` (a capability, or a card claim with its subject) that
//!   [`RedisBackend`](a2a_typestate_client::shared::redis::RedisBackend) writes, each a JSON mark
//!   expiring with it. The watch never writes or clears a replica's mark;
//! - the availability breakers they opened (`{prefix}:unavailable:{agent}`, a JSON record expiring
//!   with the cool-down), read in the same pass: an agent that answered none of their tasks for a
//!   while, which says nothing about its card;
//! - the replicas' task journal (`{prefix}:journal:alive:{replica}`, each replica's lease, and
//!   `{prefix}:journal:takeovers`, the last takeovers of a dead replica's tasks), read in the same
//!   pass: which replicas are alive, and which took over whose tasks;
//! - the watch's own history, one list per agent, `{prefix}:watch:history:{agent}`: each entry as
//!   JSON, the newest last, trimmed to the retained count and expiring the retained age after the
//!   last write; read back when a watch starts, so another watch (or a restarted one) knows since when
//!   each verdict holds.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::Shared;
use super::store::{
    Entry, ReplicasSeen, Retention, SharedBreakerSeen, SharedMarkSeen, TakeoverSeen, agent_key,
};

/// The most marks read in one pass (a fleet's marks, not a whole keyspace).
const MAX_MARKS: usize = 10_000;
/// The longest one pass (or the history's read at start) may take.
const READ_BOUND: Duration = Duration::from_secs(10);
/// The longest one history write may take.
const WRITE_BOUND: Duration = Duration::from_secs(5);
/// History entries waiting for their write at most; past it, entries are not kept in Redis (the
/// page says so).
pub(super) const WRITE_QUEUE: usize = 1024;

/// The list holding `url`'s history.
fn history_key(prefix: &str, url: &str) -> String {
    format!("{prefix}:watch:history:{}", agent_key(url))
}

/// Each agent's history as kept in Redis, oldest first (at most `keep` entries each).
///
/// # Errors
/// A message naming the server when it cannot be reached or read within the bound.
pub(super) async fn read_history(
    url: &str,
    prefix: &str,
    agents: &[String],
    keep: usize,
) -> Result<Vec<Vec<Entry>>, String> {
    let failed = |e: &dyn std::fmt::Display| {
        format!("cannot read the history from Redis at {}: {e}", crate::user_url::shown(url))
    };
    let client = redis::Client::open(url).map_err(|e| failed(&e))?;
    let read = async {
        let mut conn = client.get_multiplexed_async_connection().await?;
        let mut histories = Vec::with_capacity(agents.len());
        let from = -isize::try_from(keep).unwrap_or(isize::MAX);
        for agent in agents {
            let raw: Vec<Vec<u8>> = redis::cmd("LRANGE")
                .arg(history_key(prefix, agent))
                .arg(from)
                .arg(-1)
                .query_async(&mut conn)
                .await?;
            // An entry this version cannot read is skipped: it may come from a newer watch.
            histories.push(raw.iter().filter_map(|bytes| serde_json::from_slice(bytes).ok()).collect());
        }
        Ok::<_, redis::RedisError>(histories)
    };
    match tokio::time::timeout(READ_BOUND, read).await {
        Ok(Ok(histories)) => Ok(histories),
        Ok(Err(e)) => Err(failed(&e)),
        Err(_) => Err(failed(&format!("no answer within {READ_BOUND:?}"))),
    }
}

/// Writes each entry sent on `entries` to its agent's list until `stop` (then the entries already
/// queued, each within its bound); a write that fails is said on the page, and the next one
/// connects again.
pub(super) async fn write_history(
    url: String,
    prefix: String,
    retention: Retention,
    mut entries: mpsc::Receiver<(String, Vec<u8>)>,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let Ok(client) = redis::Client::open(url.as_str()) else { return };
    let mut writer = HistoryWriter { client, conn: None, prefix, retention };
    loop {
        let next = tokio::select! {
            next = entries.recv() => next,
            _ = stop.changed() => None,
        };
        let Some((agent, bytes)) = next else { break };
        let failure = writer.write(&agent, bytes).await;
        shared.update(|fleet| {
            if failure.is_some() || fleet.store_error.as_deref().is_some_and(|e| e.contains("Redis")) {
                fleet.store_error = failure;
                fleet.version += 1;
            }
        });
    }
    while let Ok((agent, bytes)) = entries.try_recv() {
        let _ = writer.write(&agent, bytes).await;
    }
}

/// The history's connection to Redis, opened again after a failure.
struct HistoryWriter {
    client: redis::Client,
    conn: Option<redis::aio::MultiplexedConnection>,
    prefix: String,
    retention: Retention,
}

impl HistoryWriter {
    /// Appends one entry to `agent`'s list, trims it and renews its expiry; why not, if it failed.
    async fn write(&mut self, agent: &str, bytes: Vec<u8>) -> Option<String> {
        let key = history_key(&self.prefix, agent);
        let keep = -isize::try_from(self.retention.keep).unwrap_or(isize::MAX);
        let max_age_ms = u64::try_from(self.retention.max_age.as_millis()).unwrap_or(u64::MAX);
        let (client, held) = (&self.client, self.conn.take());
        let write = async move {
            let mut connection = match held {
                Some(connection) => connection,
                None => client.get_multiplexed_async_connection().await?,
            };
            redis::pipe()
                .cmd("RPUSH")
                .arg(&key)
                .arg(bytes)
                .ignore()
                .cmd("LTRIM")
                .arg(&key)
                .arg(keep)
                .arg(-1)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(max_age_ms)
                .ignore()
                .query_async::<()>(&mut connection)
                .await?;
            Ok::<_, redis::RedisError>(connection)
        };
        match tokio::time::timeout(WRITE_BOUND, write).await {
            Ok(Ok(connection)) => {
                self.conn = Some(connection);
                None
            }
            Ok(Err(e)) => Some(format!("the history could not be written to Redis: {e}")),
            Err(_) => Some(format!("the history could not be written to Redis within {WRITE_BOUND:?}")),
        }
    }
}

/// Reads the marks every `period` until `stop`.
pub(super) async fn follow(
    url: String,
    prefix: String,
    period: Duration,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let client = redis::Client::open(url.as_str());
    loop {
        if let Ok(client) = &client
            && let Ok(Ok(marks)) = tokio::time::timeout(READ_BOUND, read(client, &prefix)).await
        {
            shared.update(|fleet| fleet.set_shared(marks.0, marks.1, marks.2));
        }
        tokio::select! {
            () = tokio::time::sleep(period) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Every mark and open breaker under `prefix`, by agent.
async fn read(client: &redis::Client, prefix: &str) -> Result<Held, redis::RedisError> {
    let mut conn = client.get_multiplexed_async_connection().await?;
    let marks = marks_among(&scan(&mut conn, &format!("{prefix}:suspect:*")).await?);
    let mut breakers = BTreeMap::new();
    for (value, ttl_ms) in scan(&mut conn, &format!("{prefix}:unavailable:*")).await? {
        let Some(breaker) = value.and_then(|v| serde_json::from_str::<Value>(&v).ok()) else { continue };
        let text = |name: &str| breaker.get(name).and_then(Value::as_str).map(str::to_owned);
        let Some(agent) = text("agent") else { continue };
        breakers.insert(
            agent_key(&agent).to_owned(),
            SharedBreakerSeen {
                failures: breaker.get("failures").and_then(Value::as_u64).unwrap_or(0),
                evidence: text("evidence").unwrap_or_default(),
                opened_by: text("by"),
                ttl_ms: u64::try_from(ttl_ms).ok(),
            },
        );
    }
    let alive_prefix = format!("{prefix}:journal:alive:");
    let mut alive: Vec<String> = keys(&mut conn, &format!("{alive_prefix}*"))
        .await?
        .into_iter()
        .filter_map(|key| key.strip_prefix(&alive_prefix).map(str::to_owned))
        .collect();
    alive.sort();
    let logged: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("{prefix}:journal:takeovers"))
        .arg(0)
        .arg(TAKEOVERS_SHOWN - 1)
        .query_async(&mut conn)
        .await?;
    let takeovers = logged
        .iter()
        .filter_map(|entry| {
            let entry: Value = serde_json::from_str(entry).ok()?;
            let text = |name: &str| entry.get(name).and_then(Value::as_str).map(str::to_owned);
            Some(TakeoverSeen {
                from: text("from")?,
                to: text("to")?,
                tasks: entry.get("tasks").and_then(Value::as_u64)?,
                at_ms: entry.get("atMs").and_then(Value::as_u64)?,
            })
        })
        .collect();
    Ok((marks, breakers, ReplicasSeen { alive, takeovers }))
}

/// Takeovers the page lists.
const TAKEOVERS_SHOWN: isize = 20;

/// What one pass reads: marks and open breakers by agent, and the replicas' journal.
type Held = (BTreeMap<String, Vec<SharedMarkSeen>>, BTreeMap<String, SharedBreakerSeen>, ReplicasSeen);

/// Every key matching `pattern` (at most [`MAX_MARKS`]).
async fn keys(
    conn: &mut redis::aio::MultiplexedConnection,
    pattern: &str,
) -> Result<Vec<String>, redis::RedisError> {
    let mut keys: Vec<String> = Vec::new();
    let mut cursor = 0_u64;
    loop {
        let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(pattern)
            .arg("COUNT")
            .arg(1000)
            .query_async(conn)
            .await?;
        keys.extend(batch);
        cursor = next;
        if cursor == 0 || keys.len() >= MAX_MARKS {
            break;
        }
    }
    Ok(keys)
}

/// The value and milliseconds left of every key matching `pattern` (at most [`MAX_MARKS`]).
async fn scan(
    conn: &mut redis::aio::MultiplexedConnection,
    pattern: &str,
) -> Result<Vec<(Option<String>, i64)>, redis::RedisError> {
    let keys = keys(conn, pattern).await?;
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    for key in &keys {
        pipe.cmd("GET").arg(key).cmd("PTTL").arg(key);
    }
    pipe.query_async(conn).await
}

/// The marks among `values`, by agent.
fn marks_among(values: &[(Option<String>, i64)]) -> BTreeMap<String, Vec<SharedMarkSeen>> {
    let mut marks: BTreeMap<String, Vec<SharedMarkSeen>> = BTreeMap::new();
    for (value, ttl_ms) in values {
        let (value, ttl_ms) = (value.as_deref(), *ttl_ms);
        let Some(mark) = value.and_then(|v| serde_json::from_str::<Value>(v).ok()) else { continue };
        let text = |name: &str| mark.get(name).and_then(Value::as_str).map(str::to_owned);
        let (Some(agent), Some(capability)) = (text("agent"), text("capability")) else { continue };
        // A card claim's mark names its subject (an extension URI, an interface URL) apart.
        let capability = match text("subject") {
            Some(subject) => format!("{capability} {subject}"),
            None => capability,
        };
        marks.entry(agent_key(&agent).to_owned()).or_default().push(SharedMarkSeen {
            capability,
            evidence: text("evidence").unwrap_or_default(),
            marked_by: text("marked_by"),
            ttl_ms: u64::try_from(ttl_ms).ok(),
        });
    }
    for list in marks.values_mut() {
        list.sort_by(|a, b| a.capability.cmp(&b.capability));
    }
    marks
}
