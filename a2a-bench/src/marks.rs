//! How long a suspect mark set in one replica process takes to be seen in every other (BENCHMARKS.md
//! figure 9): one writer process marks agents one after another, paced; each reader process, with
//! its own client cache and Redis connections, polls its local cache for the agent being marked and
//! records when the mark appeared. Both sides stamp wall-clock time (one machine, one clock), so
//! `scripts/bench/replicas.sh` can pair each mark with every replica's sighting.
//!
//! A mark is what a refusal writes ([`DiscoveryCache::mark_suspect`]); the task path reads only the
//! local cache, so "seen" here is when a task in that replica would be sent single-shot.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_typestate::Capability;
use a2a_typestate_client::config::{DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{AgentBaseUrl, BackendStatus, DiscoveryCache};
use serde::Serialize;

/// Which side of the probe this process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Sets the marks.
    Writer,
    /// Watches for them.
    Reader,
}

/// The probe's settings; writer and readers must agree on all but the role.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// Redis URL.
    pub redis: String,
    /// Key prefix (one per run).
    pub prefix: String,
    /// Writer or reader.
    pub role: Role,
    /// Marks to set.
    pub marks: usize,
    /// Time between two marks.
    pub gap: Duration,
    /// Wall-clock instant (ms since the Unix epoch) of the first mark, so that every reader is
    /// connected and waiting before it.
    pub start_at_ms: u64,
    /// How long a reader waits for one mark before it counts it as missed.
    pub give_up: Duration,
    /// How long a reader sleeps between two looks at its cache.
    pub poll: Duration,
}

/// One process's record: for the writer, when each mark was set; for a reader, when each was seen
/// (`None`: not within `give_up`). Nanoseconds since the Unix epoch.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeRecord {
    /// `writer` or `reader`.
    pub role: &'static str,
    /// Per mark.
    pub at_ns: Vec<Option<u128>>,
    /// Whether the shared cache was connected when the first mark was due.
    pub connected: bool,
}

fn now_ns() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// The agent of mark `n` (nobody listens there; a mark needs no agent).
fn agent(prefix: &str, n: usize) -> Result<AgentBaseUrl, a2a_typestate_client::Error> {
    AgentBaseUrl::parse(&format!("http://127.0.0.1:9/{prefix}/agent-{n}"))
}

/// Runs one side of the probe.
///
/// # Errors
///
/// When the cache cannot be built (a bad Redis URL).
pub async fn probe(options: &ProbeOptions) -> Result<ProbeRecord, a2a_typestate_client::Error> {
    let backend = RedisBackend::builder(options.redis.clone()).key_prefix(options.prefix.clone()).build()?;
    let cache = DiscoveryCache::new(DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL).with_backend(backend)?;
    let agents: Vec<AgentBaseUrl> =
        (0..options.marks).map(|n| agent(&options.prefix, n)).collect::<Result<_, _>>()?;
    let start = UNIX_EPOCH + Duration::from_millis(options.start_at_ms);
    let connect_by = Instant::now() + Duration::from_secs(5);
    while cache.backend_status() != Some(BackendStatus::Connected) && Instant::now() < connect_by {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let connected = cache.backend_status() == Some(BackendStatus::Connected);
    if let Ok(wait) = start.duration_since(SystemTime::now()) {
        tokio::time::sleep(wait).await;
    }
    let at_ns = match options.role {
        Role::Writer => {
            let mut at = Vec::with_capacity(agents.len());
            for (n, agent) in agents.iter().enumerate() {
                let due = start + options.gap * u32::try_from(n).unwrap_or(u32::MAX);
                if let Ok(wait) = due.duration_since(SystemTime::now()) {
                    tokio::time::sleep(wait).await;
                }
                at.push(Some(now_ns()));
                cache.mark_suspect(agent, Capability::Streaming, "mark-latency probe");
            }
            // Let the last marks leave before the process ends.
            cache.flush_shared(Duration::from_secs(2)).await;
            at
        }
        Role::Reader => {
            // The polling runs on its own thread so that its sleeps are the OS's (finer than the
            // runtime's millisecond timer) and never hold up the backend's subscriber task.
            let poll = options.poll;
            let give_up = options.give_up;
            let reader = cache.clone();
            tokio::task::spawn_blocking(move || {
                agents
                    .iter()
                    .map(|agent| {
                        let started = Instant::now();
                        loop {
                            if reader.is_suspect(agent).is_some() {
                                return Some(now_ns());
                            }
                            if started.elapsed() > give_up {
                                return None;
                            }
                            std::thread::sleep(poll);
                        }
                    })
                    .collect()
            })
            .await
            .unwrap_or_default()
        }
    };
    Ok(ProbeRecord {
        role: match options.role {
            Role::Writer => "writer",
            Role::Reader => "reader",
        },
        at_ns,
        connected,
    })
}
