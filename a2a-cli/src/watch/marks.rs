//! The suspect marks orchestrator replicas share through Redis, read for the page and `/metrics`:
//! the keys `{prefix}:suspect:{capability}:{agent}` that
//! [`RedisBackend`](a2a_typestate_client::shared::redis::RedisBackend) writes, each a JSON mark expiring
//! with it. Read only: the watch never writes or clears a replica's mark.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;

use super::Shared;
use super::store::SharedMarkSeen;

/// The most marks read in one pass (a fleet's marks, not a whole keyspace).
const MAX_MARKS: usize = 10_000;
/// The longest one pass may take.
const READ_BOUND: Duration = Duration::from_secs(10);

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
            shared.update(|fleet| fleet.set_shared_marks(marks));
        }
        tokio::select! {
            () = tokio::time::sleep(period) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Every mark under `prefix`, by agent.
async fn read(
    client: &redis::Client,
    prefix: &str,
) -> Result<BTreeMap<String, Vec<SharedMarkSeen>>, redis::RedisError> {
    let mut conn = client.get_multiplexed_async_connection().await?;
    let pattern = format!("{prefix}:suspect:*");
    let mut keys: Vec<String> = Vec::new();
    let mut cursor = 0_u64;
    loop {
        let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut conn)
            .await?;
        keys.extend(batch);
        cursor = next;
        if cursor == 0 || keys.len() >= MAX_MARKS {
            break;
        }
    }
    let mut marks: BTreeMap<String, Vec<SharedMarkSeen>> = BTreeMap::new();
    if keys.is_empty() {
        return Ok(marks);
    }
    let mut pipe = redis::pipe();
    for key in &keys {
        pipe.cmd("GET").arg(key).cmd("PTTL").arg(key);
    }
    let values: Vec<(Option<String>, i64)> = pipe.query_async(&mut conn).await?;
    for (value, ttl_ms) in values {
        let Some(mark) = value.and_then(|v| serde_json::from_str::<Value>(&v).ok()) else { continue };
        let text = |name: &str| mark.get(name).and_then(Value::as_str).map(str::to_owned);
        let (Some(agent), Some(capability)) = (text("agent"), text("capability")) else { continue };
        marks.entry(super::store::agent_key(&agent).to_owned()).or_default().push(SharedMarkSeen {
            capability,
            evidence: text("evidence").unwrap_or_default(),
            marked_by: text("marked_by"),
            ttl_ms: u64::try_from(ttl_ms).ok(),
        });
    }
    for list in marks.values_mut() {
        list.sort_by(|a, b| a.capability.cmp(&b.capability));
    }
    Ok(marks)
}
