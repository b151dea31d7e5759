//! Counters a caller can read: requests per agent, negotiation round trips, refusals by capability,
//! fallbacks and retries.
//!
//! Counting is a relaxed atomic add (per-agent counters take a read lock to find their slot), so
//! recording costs nothing worth measuring; [`Metrics::snapshot`] copies them out.
//!
//! ```
//! use a2a_typestate_client::{Capability, Metrics};
//!
//! let metrics = Metrics::default();
//! metrics.record_request("http://agent.example");
//! metrics.record_refusal(Capability::Streaming);
//! let snapshot = metrics.snapshot();
//! assert_eq!(snapshot.requests_per_agent["http://agent.example"], 1);
//! assert_eq!(snapshot.refusals[&Capability::Streaming], 1);
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use crate::Capability;

/// Shared counters; cloning is cheap and clones count into the same place.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    inner: Arc<Counters>,
}

#[derive(Debug, Default)]
struct Counters {
    requests: RwLock<HashMap<String, Arc<AtomicU64>>>,
    negotiation_round_trips: AtomicU64,
    refusals: [AtomicU64; Capability::ALL.len()],
    fallbacks: AtomicU64,
    legacy_card_fetches: AtomicU64,
    retries: AtomicU64,
}

/// The counters at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MetricsSnapshot {
    /// Requests sent, by agent base URL.
    pub requests_per_agent: BTreeMap<String, u64>,
    /// Requests made on negotiated task runs (streaming calls, follow-ups, polls, history reads, push
    /// config, reattachments): what a refusal wastes and what a suspect mark saves.
    pub negotiation_round_trips: u64,
    /// Claims refused because the agent contradicted its card, by capability (every capability listed).
    pub refusals: BTreeMap<Capability, u64>,
    /// Single-shot `SendMessage` fallbacks after a refused claim (the design note's step (c)).
    pub fallbacks: u64,
    /// Discoveries that found no `/.well-known/agent-card.json` and tried the 0.2/0.3
    /// `/.well-known/agent.json`. Kept apart from [`fallbacks`](Self::fallbacks), which counts refusals.
    pub legacy_card_fetches: u64,
    /// Attempts repeated after a transport fault.
    pub retries: u64,
}

impl Metrics {
    /// Counts one request to `agent` (its base URL).
    pub fn record_request(&self, agent: &str) {
        let found = self
            .inner
            .requests
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
            .map(|counter| counter.fetch_add(1, Ordering::Relaxed))
            .is_some();
        if !found {
            let mut map = self.inner.requests.write().unwrap_or_else(PoisonError::into_inner);
            map.entry(agent.to_owned()).or_default().fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts one negotiation round trip.
    pub fn record_negotiation_round_trip(&self) {
        self.inner.negotiation_round_trips.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one refused claim of `capability`.
    pub fn record_refusal(&self, capability: Capability) {
        if let Some(counter) = self.inner.refusals.get(capability_index(capability)) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts one single-shot fallback after a refusal.
    pub fn record_fallback(&self) {
        self.inner.fallbacks.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one discovery that went on to the legacy `/.well-known/agent.json` path.
    pub fn record_legacy_card_fetch(&self) {
        self.inner.legacy_card_fetches.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one retry.
    pub fn record_retry(&self) {
        self.inner.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// Copies the counters out.
    pub fn snapshot(&self) -> MetricsSnapshot {
        let requests_per_agent = self
            .inner
            .requests
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(agent, counter)| (agent.clone(), counter.load(Ordering::Relaxed)))
            .collect();
        let refusals = Capability::ALL
            .iter()
            .zip(&self.inner.refusals)
            .map(|(capability, counter)| (*capability, counter.load(Ordering::Relaxed)))
            .collect();
        MetricsSnapshot {
            requests_per_agent,
            negotiation_round_trips: self.inner.negotiation_round_trips.load(Ordering::Relaxed),
            refusals,
            fallbacks: self.inner.fallbacks.load(Ordering::Relaxed),
            legacy_card_fetches: self.inner.legacy_card_fetches.load(Ordering::Relaxed),
            retries: self.inner.retries.load(Ordering::Relaxed),
        }
    }
}

fn capability_index(capability: Capability) -> usize {
    Capability::ALL.iter().position(|c| *c == capability).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_count_into_the_same_counters() {
        let metrics = Metrics::default();
        let clone = metrics.clone();
        metrics.record_request("http://a");
        clone.record_request("http://a");
        clone.record_request("http://b");
        metrics.record_negotiation_round_trip();
        clone.record_fallback();
        clone.record_retry();
        clone.record_refusal(Capability::PushNotifications);
        let snapshot = metrics.snapshot();
        assert_eq!(snapshot.requests_per_agent.get("http://a"), Some(&2));
        assert_eq!(snapshot.requests_per_agent.get("http://b"), Some(&1));
        assert_eq!(snapshot.negotiation_round_trips, 1);
        assert_eq!(snapshot.fallbacks, 1);
        assert_eq!(snapshot.retries, 1);
        assert_eq!(snapshot.refusals[&Capability::PushNotifications], 1);
        assert_eq!(snapshot.refusals[&Capability::Streaming], 0);
        assert_eq!(snapshot.refusals.len(), Capability::ALL.len());
    }

    #[test]
    fn concurrent_requests_are_all_counted() {
        let metrics = Metrics::default();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| (0..1000).for_each(|_| metrics.record_request("http://a")));
            }
        });
        assert_eq!(metrics.snapshot().requests_per_agent["http://a"], 4000);
    }
}
