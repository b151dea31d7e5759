//! The fleet workload behind BENCHMARKS.md figure 9: many scripted agents, honest and lying in
//! known proportions, each given verified tasks through [`Client::run_task`], in two batches.
//!
//! `a2a-bench serve --kind fleet` starts the agents (a tenth of every ten lies about each of
//! streaming, history and push); `a2a-bench fleet` drives them through one client and prints one
//! JSON line: the batches' times, the round trips they spent and wasted, and the process's memory
//! and file descriptors, so that the cost per agent can be read at several fleet sizes.
//! `scripts/bench/fleet.sh` runs both on loopback and stops them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, CardPath, Lie, Protocol, RunningAgent, Script, ScriptedAgent, TestkitError};
use a2a_typestate::Capability;
use a2a_typestate_client::config::{DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL};
use a2a_typestate_client::journal::{Durability, Journal};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{BackendStatus, Client, DiscoveryCache, MetricsSnapshot, PollCadence};
use a2a_typestate_types::Message;
use futures::StreamExt;
use serde::Serialize;

use crate::memory;

/// One kind of fleet member: what its card claims and whether the agent keeps the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// Streams, as its card says.
    HonestStreamer,
    /// Declares nothing but a poll hint; answers by polling.
    HonestPoller,
    /// Declares push and calls back.
    HonestPusher,
    /// Declares nothing at all.
    HonestMinimal,
    /// A 0.3 agent (`agent.json`) declaring streaming and history, and keeping both.
    HonestLegacy,
    /// Declares streaming and refuses it.
    StreamingRefuser,
    /// Declares history and answers with an empty one.
    HistoryForgetter,
    /// Declares push and never calls back.
    SilentPusher,
}

/// Ten members in a row; agent `i` of a fleet is `PLAN[i % 10]`: seven honest, three lying.
pub const PLAN: [Member; 10] = [
    Member::HonestStreamer,
    Member::HonestPoller,
    Member::StreamingRefuser,
    Member::HonestPusher,
    Member::HonestMinimal,
    Member::HistoryForgetter,
    Member::HonestLegacy,
    Member::HonestStreamer,
    Member::SilentPusher,
    Member::HonestPoller,
];

/// The poll hint the polling members publish.
const POLL_HINT: Duration = Duration::from_millis(50);

impl Member {
    /// Agent `index` of a fleet.
    pub fn of(index: usize) -> Self {
        PLAN[index % PLAN.len()]
    }

    /// The name `serve` prints beside the agent's URL.
    pub fn label(self) -> &'static str {
        match self {
            Self::HonestStreamer => "honest-streamer",
            Self::HonestPoller => "honest-poller",
            Self::HonestPusher => "honest-pusher",
            Self::HonestMinimal => "honest-minimal",
            Self::HonestLegacy => "honest-legacy",
            Self::StreamingRefuser => "streaming-refuser",
            Self::HistoryForgetter => "history-forgetter",
            Self::SilentPusher => "silent-pusher",
        }
    }

    /// Reads a label back.
    pub fn from_label(label: &str) -> Option<Self> {
        PLAN.iter().copied().find(|member| member.label() == label)
    }

    /// Whether its card over-declares a claim.
    pub fn lies(self) -> bool {
        matches!(self, Self::StreamingRefuser | Self::HistoryForgetter | Self::SilentPusher)
    }

    /// The lifecycle claims on its card: what the caller's tasks depend on.
    pub fn declares(self) -> Vec<Capability> {
        match self {
            Self::HonestStreamer | Self::StreamingRefuser => vec![Capability::Streaming],
            Self::HonestPoller | Self::HonestMinimal => Vec::new(),
            Self::HonestPusher | Self::SilentPusher => vec![Capability::PushNotifications],
            Self::HonestLegacy | Self::HistoryForgetter => {
                vec![Capability::Streaming, Capability::StateTransitionHistory]
            }
        }
    }

    /// Starts the agent on 127.0.0.1.
    ///
    /// # Errors
    ///
    /// The testkit's, when the agent cannot start.
    pub async fn spawn(self) -> Result<RunningAgent, TestkitError> {
        let streaming = Capabilities::none().with_streaming();
        let (capabilities, script, protocol) = match self {
            Self::HonestStreamer => (streaming, Script::honest(), Protocol::V1_0),
            Self::HonestPoller => {
                (Capabilities::none().with_poll_cadence(POLL_HINT), Script::honest(), Protocol::V1_0)
            }
            Self::HonestPusher => (
                Capabilities::none().with_push_notifications().with_poll_cadence(POLL_HINT),
                Script::honest(),
                Protocol::V1_0,
            ),
            Self::HonestMinimal => (Capabilities::none(), Script::honest(), Protocol::V1_0),
            Self::HonestLegacy => {
                (streaming.with_state_transition_history(), Script::honest(), Protocol::V0_3)
            }
            Self::StreamingRefuser => {
                (Capabilities::none(), Script::honest().with(Lie::StreamingRefused), Protocol::V1_0)
            }
            Self::HistoryForgetter => (streaming, Script::honest().with(Lie::EmptyHistory), Protocol::V1_0),
            Self::SilentPusher => (
                Capabilities::none().with_poll_cadence(POLL_HINT),
                Script::honest().with(Lie::SilentPush),
                Protocol::V1_0,
            ),
        };
        let card_path = match protocol {
            Protocol::V0_3 => CardPath::AgentJson,
            _ => CardPath::AgentCardJson,
        };
        ScriptedAgent::builder()
            .name(self.label())
            .capabilities(capabilities)
            .script(script)
            .protocol(protocol)
            .card_path(card_path)
            .spawn()
            .await
    }
}

/// One agent as the fleet run drives it: a line `serve --kind fleet` printed.
#[derive(Debug, Clone)]
pub struct FleetAgent {
    /// Its base URL.
    pub url: String,
    /// What it is.
    pub member: Member,
}

impl FleetAgent {
    /// Reads `URL<TAB>label` lines; blank lines are skipped.
    ///
    /// # Errors
    ///
    /// Which line is not of that form.
    pub fn parse_lines(text: &str) -> Result<Vec<Self>, String> {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(number, line)| {
                let (url, label) = line.trim().split_once('\t').ok_or_else(|| {
                    format!("line {}: expected `URL<TAB>member`, found {line:?}", number + 1)
                })?;
                let member = Member::from_label(label.trim())
                    .ok_or_else(|| format!("line {}: unknown fleet member {label:?}", number + 1))?;
                Ok(Self { url: url.to_owned(), member })
            })
            .collect()
    }
}

/// How `a2a-bench fleet` runs.
#[derive(Debug, Clone)]
pub struct FleetOptions {
    /// The agents.
    pub agents: Vec<FleetAgent>,
    /// Tasks in flight at once.
    pub in_flight: usize,
    /// Batches, one task per agent each.
    pub batches: u32,
    /// Start at this agent (and wrap): replicas given different offsets meet each agent at
    /// different times.
    pub offset: usize,
    /// A Redis URL to share the suspect cache through, with its key prefix.
    pub redis: Option<(String, String)>,
    /// The replica's name, in its metrics and marks.
    pub replica: Option<String>,
    /// The push-arrival bound: how long a push-dependent task waits for the first callback.
    pub push_arrival_bound: Duration,
    /// The task journal the client writes, if any (figure 10 in the fleet).
    pub journal: Option<FleetJournal>,
}

/// Where the fleet's client journals its tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetJournal {
    /// The embedded store, a redb file at this path (created; an existing one is reopened).
    Embedded(std::path::PathBuf),
    /// Redis at this URL, under this key prefix.
    Redis(String, String),
}

impl FleetJournal {
    /// Reads `embedded:PATH` or `redis:URL` (the key prefix is then `prefix`).
    ///
    /// # Errors
    ///
    /// What was expected, when `spec` is neither.
    pub fn parse(spec: &str, prefix: &str) -> Result<Self, String> {
        match spec.split_once(':') {
            Some(("embedded", path)) if !path.is_empty() => Ok(Self::Embedded(path.into())),
            Some(("redis", _)) => Ok(Self::Redis(spec["redis:".len()..].to_owned(), prefix.to_owned())),
            _ => Err(format!("--journal {spec:?}: expected embedded:PATH or redis:redis://HOST:PORT")),
        }
    }
}

/// What the journal wrote over the run (its own counts) and how the tasks came out of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetJournalReport {
    /// `embedded` or `redis`.
    pub store: &'static str,
    /// Commits (each one write to the store, holding one or more records).
    pub commits: u64,
    /// Records written.
    pub writes: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Commits that failed.
    pub failed: u64,
    /// Records dropped (the writer's queue full).
    pub dropped: u64,
    /// Tasks, over all batches, whose first record was committed before their first byte was sent.
    pub journaled_tasks: u64,
    /// Tasks, over all batches, that went on without it (the journal unreachable or slow past its
    /// bound).
    pub not_durable_tasks: u64,
}

/// The longest one fleet task may take before it is counted as failed.
const TASK_BOUND: Duration = Duration::from_secs(60);

/// One batch's figures.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetBatch {
    /// 1 or 2.
    pub batch: u32,
    /// Tasks run (one per agent).
    pub tasks: usize,
    /// Wall time of the batch.
    pub seconds: f64,
    /// Tasks per second.
    pub tasks_per_second: f64,
    /// The slowest task.
    pub slowest_task_ms: f64,
    /// Tasks whose every claim held, on the negotiated path.
    pub negotiated: u64,
    /// Tasks sent single-shot at once because their agent was already marked.
    pub single_shot_at_once: u64,
    /// Tasks refused after they had ended, their result kept (nothing sent again).
    pub kept_after_refusal: u64,
    /// Tasks finished through the single-shot fallback after a refusal.
    pub fallbacks: u64,
    /// Claims refused.
    pub refusals: u64,
    /// Tasks that ended without a completed answer (the history-forgetter's, abandoned by design,
    /// and any that failed).
    pub not_completed: u64,
    /// Of those, tasks on an honest agent (must be zero).
    pub honest_not_completed: u64,
    /// Negotiation round trips.
    pub negotiation_round_trips: u64,
    /// Of those, spent on tasks whose claims were then refused.
    pub wasted_round_trips: u64,
    /// HTTP requests sent to agents (cards, calls, polls).
    pub requests: u64,
    /// Resident memory after the batch, KiB.
    pub rss_kib: u64,
    /// Peak resident memory so far, KiB.
    pub peak_rss_kib: u64,
    /// Open file descriptors after the batch.
    pub open_files: usize,
    /// CPU time of the batch, seconds.
    pub cpu_seconds: f64,
    /// Marks this replica received from others during the batch.
    pub shared_marks_received: u64,
    /// Cards this replica read from the shared cache during the batch.
    pub shared_cards_loaded: u64,
    /// Failed shared-cache commands during the batch.
    pub shared_cache_errors: u64,
    /// Times the shared cache came back after being degraded, during the batch.
    pub shared_cache_reconnects: u64,
    /// Tasks whose outcome says they were journaled (their first record committed before their
    /// first byte); 0 without a journal.
    pub journaled_tasks: u64,
    /// Tasks whose outcome says the journal could not be written in time.
    pub not_durable_tasks: u64,
}

/// What `a2a-bench fleet` prints.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetReport {
    /// The replica's name, when given.
    pub replica: Option<String>,
    /// Agents in the fleet.
    pub agents: usize,
    /// Of those, lying.
    pub lying: usize,
    /// Tasks in flight at once.
    pub in_flight: usize,
    /// Whether the suspect cache was shared through Redis.
    pub shared: bool,
    /// Resident memory before the first batch, KiB.
    pub rss_before_kib: u64,
    /// Open file descriptors before the first batch.
    pub open_files_before: usize,
    /// The batches.
    pub batches: Vec<FleetBatch>,
    /// (RSS after batch 1 - RSS before) / agents: what one more agent costs in memory, its cached
    /// card, marks, counters and idle connection included. KiB.
    pub memory_per_agent_kib: f64,
    /// The journal's writes, when the client had one.
    pub journal: Option<FleetJournalReport>,
    /// Agents this replica holds a suspect mark for at the end.
    pub marked_agents: usize,
    /// Of those, agents that do not lie (must be zero).
    pub honest_marked: usize,
}

/// Runs the fleet's batches through one client.
///
/// # Errors
///
/// When the client cannot be built (a bad Redis URL).
pub async fn run(options: &FleetOptions) -> Result<FleetReport, a2a_typestate_client::Error> {
    let client = client(options)?;
    if client.discovery_cache().backend_status().is_some() {
        let started = Instant::now();
        while client.discovery_cache().backend_status() != Some(BackendStatus::Connected)
            && started.elapsed() < Duration::from_secs(3)
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let negotiations: Vec<Arc<Negotiation>> = PLAN
        .iter()
        .map(|member| {
            Arc::new(
                Negotiation::depending_on(&member.declares())
                    .follow_up(FollowUp::reply("metric units, please")),
            )
        })
        .collect();
    let count = options.agents.len();
    let before = memory::resident().unwrap_or_default();
    let open_files_before = memory::open_files().unwrap_or(0);
    let mut batches = Vec::new();
    for batch in 1..=options.batches {
        batches.push(run_batch(&client, options, &negotiations, batch).await);
    }
    let journal = match (client.journal(), &options.journal) {
        (Some(journal), Some(spec)) => {
            // The states and ends are written in the background: wait for them, bounded.
            journal.flush(Duration::from_secs(30)).await;
            let stats = journal.stats();
            Some(FleetJournalReport {
                store: match spec {
                    FleetJournal::Embedded(_) => "embedded",
                    FleetJournal::Redis(..) => "redis",
                },
                commits: stats.commits,
                writes: stats.writes,
                bytes: stats.bytes,
                failed: stats.failed,
                dropped: stats.dropped,
                journaled_tasks: batches.iter().map(|b| b.journaled_tasks).sum(),
                not_durable_tasks: batches.iter().map(|b| b.not_durable_tasks).sum(),
            })
        }
        _ => None,
    };
    let marked: Vec<_> = client.discovery_cache().suspect_agents();
    let honest_marked = marked
        .iter()
        .filter(|(agent, _)| {
            options.agents.iter().any(|a| {
                !a.member.lies() && a.url.trim_end_matches('/') == agent.as_str().trim_end_matches('/')
            })
        })
        .count();
    let after_first = batches.first().map_or(before.current_kib, |b| b.rss_kib);
    Ok(FleetReport {
        replica: options.replica.clone(),
        agents: count,
        lying: options.agents.iter().filter(|a| a.member.lies()).count(),
        in_flight: options.in_flight,
        shared: options.redis.is_some(),
        rss_before_kib: before.current_kib,
        open_files_before,
        memory_per_agent_kib: if count == 0 {
            0.0
        } else {
            after_first.saturating_sub(before.current_kib) as f64 / count as f64
        },
        batches,
        journal,
        marked_agents: marked.len(),
        honest_marked,
    })
}

fn client(options: &FleetOptions) -> Result<Client, a2a_typestate_client::Error> {
    let cadence = PollCadence::new(Duration::from_millis(20), 2.0, Duration::from_millis(200))?;
    let mut builder = Client::builder()
        .poll_cadence(cadence)
        .push_arrival_bound(options.push_arrival_bound)
        .request_timeout(Duration::from_secs(30));
    if let Some(name) = &options.replica {
        builder = builder.replica_name(name.clone());
    }
    if let Some((url, prefix)) = &options.redis {
        let backend = RedisBackend::builder(url.clone()).key_prefix(prefix.clone()).build()?;
        let cache = DiscoveryCache::new(DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL).with_backend(backend)?;
        builder = builder.discovery_cache(cache);
    }
    match &options.journal {
        Some(FleetJournal::Embedded(path)) => builder = builder.journal(Journal::embedded(path).build()?),
        Some(FleetJournal::Redis(url, prefix)) => {
            builder = builder.journal(Journal::redis(url).key_prefix(prefix.clone()).build()?);
        }
        None => {}
    }
    builder.build()
}

async fn run_batch(
    client: &Client,
    options: &FleetOptions,
    negotiations: &[Arc<Negotiation>],
    batch: u32,
) -> FleetBatch {
    let count = options.agents.len();
    let before = client.metrics().snapshot();
    let cpu_before = memory::cpu_ns().unwrap_or(0);
    let started = Instant::now();
    let order = (0..count).map(|n| (n + options.offset) % count.max(1));
    let ends: Vec<(bool, bool, Duration, Durability)> = futures::stream::iter(order)
        .map(|index| async move {
            let Some(agent) = options.agents.get(index) else {
                return (false, false, Duration::ZERO, Durability::NoJournal);
            };
            let plan = PLAN.iter().position(|m| *m == agent.member).unwrap_or(0);
            let negotiation = &negotiations[plan];
            let message = Message::user(format!("fleet task {batch} for agent {index}")).with_message_id(
                format!("fleet-{}-{batch}-{index}", options.replica.as_deref().unwrap_or("solo")),
            );
            let began = Instant::now();
            let (completed, durability) =
                match tokio::time::timeout(TASK_BOUND, client.run_task(&agent.url, message, negotiation))
                    .await
                {
                    Ok(Ok(outcome)) => (
                        matches!(outcome.state(), None | Some(a2a_typestate_types::TaskState::Completed)),
                        outcome.durability,
                    ),
                    _ => (false, Durability::NoJournal),
                };
            (completed, agent.member.lies(), began.elapsed(), durability)
        })
        .buffer_unordered(options.in_flight.max(1))
        .collect()
        .await;
    let seconds = started.elapsed().as_secs_f64();
    let after = client.metrics().snapshot();
    let resident = memory::resident().unwrap_or_default();
    let delta = |f: fn(&MetricsSnapshot) -> u64| f(&after).saturating_sub(f(&before));
    let requests = |s: &MetricsSnapshot| s.requests_per_agent.values().sum::<u64>();
    let durable = |d: Durability| ends.iter().filter(|end| end.3 == d).count() as u64;
    FleetBatch {
        batch,
        tasks: ends.len(),
        seconds,
        tasks_per_second: if seconds > 0.0 { ends.len() as f64 / seconds } else { 0.0 },
        slowest_task_ms: ends.iter().map(|end| end.2.as_secs_f64() * 1e3).fold(0.0, f64::max),
        negotiated: delta(|s| s.negotiated_tasks),
        single_shot_at_once: delta(|s| s.suspect_single_shots),
        kept_after_refusal: delta(|s| s.refused_results_kept),
        fallbacks: delta(|s| s.fallbacks),
        refusals: delta(|s| s.refusals.values().sum()),
        not_completed: ends.iter().filter(|end| !end.0).count() as u64,
        honest_not_completed: ends.iter().filter(|end| !end.0 && !end.1).count() as u64,
        negotiation_round_trips: delta(|s| s.negotiation_round_trips),
        wasted_round_trips: delta(|s| s.wasted_round_trips),
        requests: requests(&after).saturating_sub(requests(&before)),
        rss_kib: resident.current_kib,
        peak_rss_kib: resident.peak_kib,
        open_files: memory::open_files().unwrap_or(0),
        cpu_seconds: memory::cpu_ns().unwrap_or(0).saturating_sub(cpu_before) as f64 / 1e9,
        shared_marks_received: delta(|s| s.shared_marks_received),
        shared_cards_loaded: delta(|s| s.shared_cards_loaded),
        shared_cache_errors: delta(|s| s.shared_cache_errors),
        shared_cache_reconnects: delta(|s| s.shared_cache_reconnects),
        journaled_tasks: durable(Durability::Journaled),
        not_durable_tasks: durable(Durability::NotDurable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_lies_about_each_lifecycle_claim_once_in_ten() {
        assert_eq!(PLAN.iter().filter(|m| m.lies()).count(), 3);
        for member in PLAN {
            assert_eq!(Member::from_label(member.label()), Some(member));
        }
    }

    #[test]
    fn served_lines_are_read_back_and_bad_lines_say_where() {
        let agents = FleetAgent::parse_lines(
            "http://127.0.0.1:1\tsilent-pusher\n\nhttp://127.0.0.1:2\thonest-poller\n",
        )
        .unwrap();
        assert_eq!(agents.len(), 2);
        assert_eq!(agents[0].member, Member::SilentPusher);
        let error = FleetAgent::parse_lines("http://127.0.0.1:1\n").unwrap_err();
        assert!(error.starts_with("line 1:"), "{error}");
        let error = FleetAgent::parse_lines("http://a\tsomething\n").unwrap_err();
        assert!(error.contains("unknown fleet member"), "{error}");
    }
}
