//! What the watch remembers: per agent, each claim's current verdict and since when, and a bounded
//! history of audits and card changes, written through to an embedded file (or, with `--redis`, to
//! the Redis the replicas share: [`super::replicas`]) so a restart keeps it.
//!
//! The file is a [`redb`] database: pure Rust (no C library to build), one file, transactions that
//! survive a crash, and ordered keys, so an agent's entries are one range to read or trim. Each entry
//! is stored as JSON under the key `(agent URL, sequence number)`.
//!
//! Bounds: an agent keeps at most [`Retention::keep`] entries, none older than [`Retention::max_age`]
//! (both in memory and in the file), a refusal's stored evidence is cut to [`EVIDENCE_MAX_BYTES`],
//! and only the newest [`EVIDENCE_IN_MEMORY`] refusals of an agent keep theirs in memory, so memory
//! stays flat over a long run once the history is full.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_typestate::Deployment;
use redb::{Database, TableDefinition};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The entries of every agent, keyed by (agent URL, sequence number), as JSON.
const ENTRIES: TableDefinition<'_, (&str, u64), &[u8]> = TableDefinition::new("entries");

/// The store's page cache: redb's default (1 GiB) would let the cache grow with the file.
const STORE_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// The most bytes of one refusal's evidence (the refused claims, the probe's timeline) kept.
pub(super) const EVIDENCE_MAX_BYTES: usize = 256 * 1024;
/// The refusals per agent whose evidence stays in memory (the newest); older entries keep their
/// verdicts, and their evidence stays in the file until the entry is trimmed there.
pub(super) const EVIDENCE_IN_MEMORY: usize = 10;

/// Milliseconds since the Unix epoch, now.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// How much history is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Entries kept per agent.
    pub keep: usize,
    /// The oldest entry kept.
    pub max_age: Duration,
}

/// What one audit said of one claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ClaimSeen {
    /// The claim's name as the audit reports it (a card field such as `streaming`).
    pub(super) claim: String,
    /// `verified`, `refused`, `notExercised`, `unverified` or `unverifiable`.
    pub(super) verdict: String,
    /// The evidence or reason the audit gave.
    pub(super) detail: String,
}

/// One thing that happened to an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub(super) enum Entry {
    /// An audit ended (or was abandoned).
    #[serde(rename_all = "camelCase")]
    Audit {
        at_ms: u64,
        duration_ms: u64,
        /// What the card is called (absent when no card was read).
        name: Option<String>,
        claims: Vec<ClaimSeen>,
        /// Why the agent could not be audited.
        error: Option<String>,
        /// The refused claims and the probe's timeline, when a claim was refused.
        evidence: Option<Value>,
    },
    /// The card changed (or was first read).
    #[serde(rename_all = "camelCase")]
    Card { at_ms: u64, etag: Option<String>, digest: String, first: bool },
}

impl Entry {
    pub(super) fn at_ms(&self) -> u64 {
        match self {
            Entry::Audit { at_ms, .. } | Entry::Card { at_ms, .. } => *at_ms,
        }
    }
}

/// A claim's verdict now, and since when it has held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Current {
    pub(super) verdict: String,
    pub(super) detail: String,
    pub(super) since_ms: u64,
}

/// Bucket bounds of the audit duration histogram, in seconds.
pub(super) const DURATION_BUCKETS: [f64; 10] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0];

/// The counters `/metrics` reports for one agent (since the watch started).
#[derive(Clone, Debug, Default)]
pub(super) struct Counters {
    /// Verdicts given, by (claim, verdict).
    pub(super) verdicts: BTreeMap<(String, String), u64>,
    /// Audits ended, whatever they found.
    pub(super) audits: u64,
    /// Errors by kind: `not_audited`, `timeout`, `card_fetch`.
    pub(super) errors: BTreeMap<&'static str, u64>,
    /// Card changes seen (the first read not counted).
    pub(super) card_changes: u64,
    /// Audit durations: count per bucket of [`DURATION_BUCKETS`] (not cumulative), then the sum.
    pub(super) duration_buckets: [u64; DURATION_BUCKETS.len() + 1],
    pub(super) duration_sum: f64,
}

/// A suspect mark the replicas share in Redis, as last read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SharedMarkSeen {
    /// What was contradicted: a capability's card field, or a card claim's kind with its subject
    /// (`interfaces http://agent/a2a`).
    pub(super) capability: String,
    pub(super) evidence: String,
    pub(super) marked_by: Option<String>,
    /// Milliseconds left before it expires, when Redis said.
    pub(super) ttl_ms: Option<u64>,
}

/// An availability breaker the replicas share in Redis, open as last read: the agent answered
/// nothing for a run of tasks (never a mark: it says nothing about the card).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SharedBreakerSeen {
    pub(super) failures: u64,
    pub(super) evidence: String,
    pub(super) opened_by: Option<String>,
    /// Milliseconds left before a replica probes the agent again, when Redis said.
    pub(super) ttl_ms: Option<u64>,
}

/// The orchestrator replicas as their Redis journal shows them, as last read: those whose lease
/// is alive, and the last takeovers of a dead replica's tasks, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ReplicasSeen {
    pub(super) alive: Vec<String>,
    pub(super) takeovers: Vec<TakeoverSeen>,
}

/// One takeover: `to` took `tasks` unfinished tasks of `from`, whose lease had run out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TakeoverSeen {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) tasks: u64,
    pub(super) at_ms: u64,
}

/// One watched agent.
#[derive(Debug)]
pub(super) struct AgentState {
    pub(super) url: String,
    pub(super) deployment: Deployment,
    /// The card's name, or the URL before a card was read.
    pub(super) label: String,
    pub(super) current: BTreeMap<String, Current>,
    pub(super) last_audit_ms: Option<u64>,
    pub(super) last_error: Option<String>,
    /// Entries with their sequence numbers, oldest first.
    pub(super) history: VecDeque<(u64, Entry)>,
    next_seq: u64,
    pub(super) counters: Counters,
    pub(super) shared_marks: Vec<SharedMarkSeen>,
    /// The replicas' open availability breaker on this agent, if any.
    pub(super) shared_breaker: Option<SharedBreakerSeen>,
}

impl AgentState {
    fn new(url: &str, deployment: Deployment) -> Self {
        Self {
            url: url.to_owned(),
            deployment,
            label: url.to_owned(),
            current: BTreeMap::new(),
            last_audit_ms: None,
            last_error: None,
            history: VecDeque::new(),
            next_seq: 0,
            counters: Counters::default(),
            shared_marks: Vec::new(),
            shared_breaker: None,
        }
    }

    /// Updates the current verdicts and label from `entry` (also when replaying the file).
    fn apply(&mut self, entry: &Entry) {
        if let Entry::Audit { at_ms, name, claims, error, .. } = entry {
            self.last_audit_ms = Some(*at_ms);
            self.last_error.clone_from(error);
            if let Some(name) = name.as_ref().filter(|n| !n.trim().is_empty()) {
                self.label.clone_from(name);
            }
            // An audit that could not run says nothing about the claims: they keep their verdicts.
            if error.is_none() || !claims.is_empty() {
                let mut next = BTreeMap::new();
                for seen in claims {
                    let since_ms = match self.current.get(&seen.claim) {
                        Some(current) if current.verdict == seen.verdict => current.since_ms,
                        _ => *at_ms,
                    };
                    next.insert(
                        seen.claim.clone(),
                        Current { verdict: seen.verdict.clone(), detail: seen.detail.clone(), since_ms },
                    );
                }
                self.current = next;
            }
        }
    }

    /// The claims refused now: the marks a client would hold against this agent.
    pub(super) fn refused_now(&self) -> usize {
        self.current.values().filter(|c| c.verdict == "refused").count()
    }
}

/// Every watched agent, and the file they are kept in.
#[derive(Debug)]
pub(super) struct Fleet {
    pub(super) agents: Vec<AgentState>,
    retention: Retention,
    disk: Option<Database>,
    /// Bumped at every change, for the page's live updates.
    pub(super) version: u64,
    /// Each entry written, for the Redis history: (agent URL, entry as JSON), sent to its writer.
    to_redis: Option<tokio::sync::mpsc::Sender<(String, Vec<u8>)>>,
    /// Why the history could not be written, last time it could not (the watch goes on in memory).
    pub(super) store_error: Option<String>,
    /// The replicas' journal, read from Redis (`--redis`).
    pub(super) replicas: ReplicasSeen,
}

impl Fleet {
    /// The agents, with what `store` (when given) holds of them.
    ///
    /// # Errors
    /// A message naming the file when it cannot be opened or read.
    pub(super) fn open(
        agents: &[(String, Deployment)],
        retention: Retention,
        store: Option<&Path>,
    ) -> Result<Self, String> {
        let disk = match store {
            Some(path) => Some(
                redb::Builder::new()
                    .set_cache_size(STORE_CACHE_BYTES)
                    .create(path)
                    .map_err(|e| format!("cannot open the history store {}: {e}", path.display()))?,
            ),
            None => None,
        };
        let mut fleet = Self {
            agents: agents.iter().map(|(url, deployment)| AgentState::new(url, *deployment)).collect(),
            retention,
            disk,
            version: 0,
            to_redis: None,
            store_error: None,
            replicas: ReplicasSeen::default(),
        };
        if let (Some(db), Some(path)) = (&fleet.disk, store) {
            let read =
                |e: &dyn std::fmt::Display| format!("cannot read the history store {}: {e}", path.display());
            let txn = db.begin_read().map_err(|e| read(&e))?;
            match txn.open_table(ENTRIES) {
                Ok(table) => {
                    for agent in &mut fleet.agents {
                        for row in table
                            .range((agent.url.as_str(), 0)..=(agent.url.as_str(), u64::MAX))
                            .map_err(|e| read(&e))?
                        {
                            let (key, value) = row.map_err(|e| read(&e))?;
                            let seq = key.value().1;
                            // An entry this version cannot read is skipped, not fatal: the file may
                            // come from a newer watch.
                            if let Ok(entry) = serde_json::from_slice::<Entry>(value.value()) {
                                agent.apply(&entry);
                                agent.history.push_back((seq, entry));
                            }
                            agent.next_seq = seq + 1;
                        }
                    }
                }
                Err(redb::TableError::TableDoesNotExist(_)) => {}
                Err(e) => return Err(read(&e)),
            }
        }
        let now = now_ms();
        for index in 0..fleet.agents.len() {
            fleet.trim(index, now);
        }
        Ok(fleet)
    }

    /// Sends every entry recorded from now on to `writer` as well (the Redis history).
    pub(super) fn write_to(&mut self, writer: tokio::sync::mpsc::Sender<(String, Vec<u8>)>) {
        self.to_redis = Some(writer);
    }

    /// Puts `entries` (oldest first, read back from Redis) in agent `index`'s history.
    pub(super) fn load(&mut self, index: usize, entries: Vec<Entry>) {
        let Some(agent) = self.agents.get_mut(index) else { return };
        for entry in entries {
            agent.apply(&entry);
            agent.history.push_back((agent.next_seq, entry));
            agent.next_seq += 1;
        }
        self.trim(index, now_ms());
    }

    /// Adds `entry` to agent `index`'s history, applies it, trims the history, and writes both to
    /// the file.
    pub(super) fn record(&mut self, index: usize, entry: Entry) {
        let Some(agent) = self.agents.get_mut(index) else { return };
        agent.apply(&entry);
        let seq = agent.next_seq;
        agent.next_seq += 1;
        let bytes = serde_json::to_vec(&entry).unwrap_or_default();
        agent.history.push_back((seq, entry));
        let url = agent.url.clone();
        let dropped = self.trim(index, now_ms());
        if let Some(db) = &self.disk {
            let written = write(db, &url, seq, &bytes, &dropped);
            self.store_error = written.err().map(|e| format!("the history store could not be written: {e}"));
        }
        if let Some(writer) = &self.to_redis
            && writer.try_send((url, bytes)).is_err()
        {
            self.store_error =
                Some("history writes to Redis fell behind: some entries were not kept there".to_owned());
        }
        self.version += 1;
    }

    /// Drops agent `index`'s entries past the retention, and the in-memory evidence of all but its
    /// newest refusals; returns the sequence numbers dropped.
    fn trim(&mut self, index: usize, now: u64) -> Vec<u64> {
        let Some(agent) = self.agents.get_mut(index) else { return Vec::new() };
        let mut refusals = 0;
        for (_, entry) in agent.history.iter_mut().rev() {
            if let Entry::Audit { evidence: evidence @ Some(_), .. } = entry {
                refusals += 1;
                if refusals > EVIDENCE_IN_MEMORY {
                    *evidence = None;
                }
            }
        }
        let oldest =
            now.saturating_sub(u64::try_from(self.retention.max_age.as_millis()).unwrap_or(u64::MAX));
        let mut dropped = Vec::new();
        while let Some((seq, entry)) = agent.history.front() {
            if agent.history.len() > self.retention.keep || entry.at_ms() < oldest {
                dropped.push(*seq);
                agent.history.pop_front();
            } else {
                break;
            }
        }
        dropped
    }

    /// Counts one audit of agent `index` in its counters.
    pub(super) fn count_audit(
        &mut self,
        index: usize,
        duration: Duration,
        claims: &[ClaimSeen],
        error: Option<&'static str>,
    ) {
        let Some(agent) = self.agents.get_mut(index) else { return };
        let counters = &mut agent.counters;
        counters.audits += 1;
        for seen in claims {
            *counters.verdicts.entry((seen.claim.clone(), seen.verdict.clone())).or_default() += 1;
        }
        if let Some(kind) = error {
            *counters.errors.entry(kind).or_default() += 1;
        }
        let seconds = duration.as_secs_f64();
        let bucket =
            DURATION_BUCKETS.iter().position(|bound| seconds <= *bound).unwrap_or(DURATION_BUCKETS.len());
        counters.duration_buckets[bucket] += 1;
        counters.duration_sum += seconds;
    }

    /// Counts a card that could not be fetched.
    pub(super) fn count_card_error(&mut self, index: usize) {
        if let Some(agent) = self.agents.get_mut(index) {
            *agent.counters.errors.entry("card_fetch").or_default() += 1;
            self.version += 1;
        }
    }

    /// Replaces every agent's shared marks and open breakers (read from Redis).
    pub(super) fn set_shared(
        &mut self,
        mut marks: BTreeMap<String, Vec<SharedMarkSeen>>,
        mut breakers: BTreeMap<String, SharedBreakerSeen>,
        replicas: ReplicasSeen,
    ) {
        if replicas != self.replicas {
            self.replicas = replicas;
            self.version += 1;
        }
        for agent in &mut self.agents {
            let now = marks.remove(agent_key(&agent.url)).unwrap_or_default();
            let breaker = breakers.remove(agent_key(&agent.url));
            if now != agent.shared_marks || breaker != agent.shared_breaker {
                agent.shared_marks = now;
                agent.shared_breaker = breaker;
                self.version += 1;
            }
        }
    }
}

/// Writes entry `seq` of `url` and removes `dropped`, in one transaction.
fn write(db: &Database, url: &str, seq: u64, bytes: &[u8], dropped: &[u64]) -> Result<(), Box<redb::Error>> {
    let txn = db.begin_write().map_err(|e| Box::new(e.into()))?;
    {
        let mut table = txn.open_table(ENTRIES).map_err(|e| Box::new(e.into()))?;
        table.insert((url, seq), bytes).map_err(|e| Box::new(e.into()))?;
        for old in dropped {
            table.remove((url, *old)).map_err(|e| Box::new(e.into()))?;
        }
    }
    txn.commit().map_err(|e| Box::new(e.into()))?;
    Ok(())
}

/// How the replicas name an agent in Redis: its base URL without a trailing slash.
pub(super) fn agent_key(url: &str) -> &str {
    url.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(at_ms: u64, verdict: &str) -> Entry {
        Entry::Audit {
            at_ms,
            duration_ms: 5,
            name: Some("weather".into()),
            claims: vec![ClaimSeen {
                claim: "streaming".into(),
                verdict: verdict.into(),
                detail: "d".into(),
            }],
            error: None,
            evidence: None,
        }
    }

    fn retention(keep: usize) -> Retention {
        Retention { keep, max_age: Duration::from_secs(3600) }
    }

    #[test]
    fn a_verdict_holds_since_the_first_audit_that_gave_it() {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet = Fleet::open(&agents, retention(10), None).unwrap();
        let t = now_ms();
        fleet.record(0, audit(t, "verified"));
        fleet.record(0, audit(t + 1, "verified"));
        assert_eq!(fleet.agents[0].current["streaming"].since_ms, t);
        fleet.record(0, audit(t + 2, "refused"));
        assert_eq!(fleet.agents[0].current["streaming"].since_ms, t + 2);
        assert_eq!(fleet.agents[0].label, "weather");
    }

    #[test]
    fn history_keeps_at_most_the_retained_count_and_age() {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet = Fleet::open(&agents, retention(3), None).unwrap();
        let t = now_ms();
        // Two hours old: past the one-hour age.
        fleet.record(0, audit(t - 7_200_000, "verified"));
        assert!(fleet.agents[0].history.is_empty());
        for i in 0..10 {
            fleet.record(0, audit(t + i, "verified"));
        }
        assert_eq!(fleet.agents[0].history.len(), 3);
        assert_eq!(fleet.agents[0].history.front().map(|(_, e)| e.at_ms()), Some(t + 7));
    }

    #[test]
    fn only_the_newest_refusals_keep_their_evidence_in_memory() {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet = Fleet::open(&agents, retention(100), None).unwrap();
        let t = now_ms();
        for i in 0..30 {
            let mut entry = audit(t + i, "refused");
            if let Entry::Audit { evidence, .. } = &mut entry {
                *evidence = Some(serde_json::json!({"refused": [i]}));
            }
            fleet.record(0, entry);
        }
        let kept: Vec<u64> = fleet.agents[0]
            .history
            .iter()
            .filter(|(_, e)| matches!(e, Entry::Audit { evidence: Some(_), .. }))
            .map(|(_, e)| e.at_ms() - t)
            .collect();
        assert_eq!(kept, (20..30).collect::<Vec<u64>>());
        assert_eq!(fleet.agents[0].history.len(), 30);
    }

    #[test]
    fn the_store_file_gives_back_the_history_and_since_after_a_restart() {
        let dir = std::env::temp_dir().join(format!("a2a-watch-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("history.redb");
        let _ = std::fs::remove_file(&path);
        let agents =
            [("http://a".to_owned(), Deployment::Direct), ("http://b".to_owned(), Deployment::Direct)];
        let t = now_ms();
        {
            let mut fleet = Fleet::open(&agents, retention(2), Some(&path)).unwrap();
            fleet.record(0, audit(t, "refused"));
            fleet.record(0, audit(t + 1, "refused"));
            fleet.record(0, audit(t + 2, "refused"));
            fleet.record(1, audit(t, "verified"));
            assert!(fleet.store_error.is_none(), "{:?}", fleet.store_error);
        }
        let fleet = Fleet::open(&agents, retention(2), Some(&path)).unwrap();
        let a = &fleet.agents[0];
        assert_eq!(a.history.iter().map(|(_, e)| e.at_ms()).collect::<Vec<_>>(), [t + 1, t + 2]);
        // The oldest entry kept says since when; the trimmed one is gone from the file too.
        assert_eq!(a.current["streaming"].since_ms, t + 1);
        assert_eq!(fleet.agents[1].current["streaming"].verdict, "verified");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
