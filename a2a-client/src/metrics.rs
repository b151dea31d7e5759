//! Counters a caller can read: requests per agent, negotiation round trips, refusals by capability,
//! what became of refused tasks (results kept, fallbacks, ended with the refusal) and retries.
//!
//! Counting is a relaxed atomic add (a connection finds its agent's counter once, when it opens), so
//! recording costs nothing worth measuring; [`Metrics::snapshot`] copies them out. With the feature
//! `otel`, the same recording methods also feed OpenTelemetry instruments (see the `otel` module).
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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use a2a_typestate::ClaimKind;

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
    card_claim_refusals: [AtomicU64; ClaimKind::ALL.len()],
    fallbacks: AtomicU64,
    refused_results_kept: AtomicU64,
    ended_with_refusal: AtomicU64,
    may_have_run_twice: AtomicU64,
    suspect_single_shots: AtomicU64,
    negotiation_waits: AtomicU64,
    negotiated_tasks: AtomicU64,
    suspect_marks_set: AtomicU64,
    wasted_round_trips: AtomicU64,
    legacy_card_fetches: AtomicU64,
    cards_changed: AtomicU64,
    retries: AtomicU64,
    interface_failovers: AtomicU64,
    taken_over: AtomicU64,
    breaker: BreakerCounters,
    replica: OnceLock<String>,
    shared: SharedCounters,
    /// The OpenTelemetry instruments the same counts feed, once a client installed them.
    #[cfg(feature = "otel")]
    otel: OnceLock<crate::otel::Instruments>,
}

/// Counters of the availability breaker (see [`crate::Breaker`]).
#[derive(Debug, Default)]
struct BreakerCounters {
    opened: AtomicU64,
    closed: AtomicU64,
    probes: AtomicU64,
    fail_fast: AtomicU64,
    received: AtomicU64,
}

/// Counters of a shared cache backend (see [`crate::shared`]).
#[derive(Debug, Default)]
struct SharedCounters {
    errors: AtomicU64,
    reconnects: AtomicU64,
    marks_received: AtomicU64,
    cards_loaded: AtomicU64,
    updates_dropped: AtomicU64,
    degraded: AtomicBool,
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
    /// Card claims refused because the agent contradicted them (extended card, an extension, an
    /// interface, output modes, open access), by kind (every kind listed).
    pub card_claim_refusals: BTreeMap<ClaimKind, u64>,
    /// Single-shot `SendMessage` fallbacks after a refused claim (step (c) of the refusal rules),
    /// whether `run_task` or a typed handle sent them: each one a send that starts a new task on
    /// the agent. A refused task whose result was kept sends none.
    pub fallbacks: u64,
    /// Tasks [`Client::run_task`](crate::Client::run_task) refused after they had ended: their
    /// result kept, nothing sent again ([`TaskPath::KeptAfterRefusal`](crate::negotiate::TaskPath::KeptAfterRefusal)).
    pub refused_results_kept: u64,
    /// Tasks `run_task` ended with the refusal, unfinished, as
    /// [`AfterRefusal::EndWithRefusal`](crate::negotiate::AfterRefusal::EndWithRefusal) asks.
    pub ended_with_refusal: u64,
    /// Fallbacks `run_task` sent after the agent had accepted the refused task, which had not
    /// ended: tasks whose work may have run twice on the agent
    /// ([`TaskOutcome::may_have_run_twice`](crate::negotiate::TaskOutcome::may_have_run_twice)).
    pub may_have_run_twice: u64,
    /// Tasks sent single-shot at once because the agent was capability-suspect (what a mark saves:
    /// no negotiation round trip), whether `run_task` or [`Client::task`](crate::Client::task)
    /// found the mark.
    pub suspect_single_shots: u64,
    /// Tasks `run_task` held back while another task negotiated the same claims with the same
    /// agent (single-flight negotiation, [`ClientBuilder::negotiation_wait`](crate::ClientBuilder::negotiation_wait)).
    pub negotiation_waits: u64,
    /// Tasks [`Client::run_task`](crate::Client::run_task) ran on the negotiated path to a result
    /// (every claim it depended on kept).
    pub negotiated_tasks: u64,
    /// Capability-suspect marks this client set after a refusal (one per refused capability).
    pub suspect_marks_set: u64,
    /// Negotiation round trips spent on tasks whose claims were then refused: what the refusals
    /// wasted (the rest of [`negotiation_round_trips`](Self::negotiation_round_trips) was not).
    pub wasted_round_trips: u64,
    /// Discoveries that found no `/.well-known/agent-card.json` and tried the 0.2/0.3
    /// `/.well-known/agent.json`. Kept apart from [`fallbacks`](Self::fallbacks), which counts refusals.
    pub legacy_card_fetches: u64,
    /// Cards read that differ from the agent's card read before (another `ETag`, or other bytes
    /// when it sends none): each is a new card, whose claims start unmarked.
    pub cards_changed: u64,
    /// Attempts repeated after a transport fault.
    pub retries: u64,
    /// Calls moved to the agent's next declared interface because the one in use could not be
    /// reached (a transport fallback: no refusal, no mark).
    pub interface_failovers: u64,
    /// Unfinished tasks this replica took over from replicas whose lease ran out
    /// ([`Client::take_over`](crate::Client::take_over)).
    pub tasks_taken_over: u64,
    /// Availability breakers this client opened (tasks in a row to an agent ended in a transport
    /// fault, or a probe did; see [`Breaker`](crate::Breaker)). Never a mark.
    pub breakers_opened: u64,
    /// Breakers this client closed: the agent answered a probe (or a task already under way).
    pub breakers_closed: u64,
    /// Tasks sent as the one probe of a half-open breaker.
    pub breaker_probes: u64,
    /// Tasks that failed at once, nothing sent, because the agent's breaker was open.
    pub breaker_fail_fast: u64,
    /// Breakers other replicas opened that this one applied as they were published.
    pub shared_breakers_received: u64,
    /// The replica these counters belong to ([`crate::ClientBuilder::replica_name`]), if named.
    pub replica: Option<String>,
    /// Failed or timed-out commands to the shared cache backend (each one degraded it).
    pub shared_cache_errors: u64,
    /// Times the shared cache backend came back after being degraded.
    pub shared_cache_reconnects: u64,
    /// Whether the shared cache backend is degraded now (tasks go on with the local cache).
    pub shared_cache_degraded: bool,
    /// Suspect marks other replicas shared that this one applied as they were published.
    pub shared_marks_received: u64,
    /// Cards read from the shared cache instead of fetched from the agent.
    pub shared_cards_loaded: u64,
    /// Updates the shared cache backend dropped because its queue was full while degraded.
    pub shared_updates_dropped: u64,
}

impl Metrics {
    /// Counts one request to `agent` (its base URL).
    pub fn record_request(&self, agent: &str) {
        self.request_counter(agent).fetch_add(1, Ordering::Relaxed);
    }

    /// The counter of requests to `agent`, for a connection to hold: counting through it is one
    /// atomic add, with no lookup per call.
    pub(crate) fn request_counter(&self, agent: &str) -> Arc<AtomicU64> {
        let found = self.inner.requests.read().unwrap_or_else(PoisonError::into_inner).get(agent).cloned();
        found.unwrap_or_else(|| {
            let mut map = self.inner.requests.write().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(map.entry(agent.to_owned()).or_default())
        })
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
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.refusal(capability);
        }
    }

    /// Counts one card claim refused, of `kind`.
    pub fn record_card_claim_refusal(&self, kind: ClaimKind) {
        if let Some(counter) =
            ClaimKind::ALL.iter().position(|k| *k == kind).and_then(|i| self.inner.card_claim_refusals.get(i))
        {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts one capability-suspect mark set on an agent for `capability`.
    pub fn record_suspect_mark(&self, capability: Capability) {
        self.inner.suspect_marks_set.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.suspect_mark(capability);
        }
        #[cfg(not(feature = "otel"))]
        let _ = capability;
    }

    /// Counts `count` negotiation round trips spent on a task whose claims were then refused.
    pub fn record_wasted_round_trips(&self, count: u64) {
        self.inner.wasted_round_trips.fetch_add(count, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.wasted_round_trips(count);
        }
    }

    /// Counts one task run to a result on the negotiated path.
    pub fn record_negotiated_task(&self) {
        self.inner.negotiated_tasks.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("negotiated");
        }
    }

    /// Records one operation on a connection (feature `otel`: its duration, by operation, binding,
    /// version and outcome; nothing is kept in the snapshot).
    #[cfg(feature = "otel")]
    pub(crate) fn record_call(&self, call: crate::otel::CallRecord) {
        if let Some(otel) = self.inner.otel.get() {
            otel.call(call);
        }
    }

    /// Feeds OpenTelemetry instruments made from the global meter provider from now on (the first
    /// call sticks: counters shared by several clients feed one set).
    #[cfg(feature = "otel")]
    pub(crate) fn install_otel(&self, active_marks: impl FnOnce() -> crate::otel::ActiveMarks) {
        if self.inner.otel.get().is_none() {
            let _ = self.inner.otel.set(crate::otel::Instruments::from_global(active_marks()));
        }
    }

    /// Counts one single-shot fallback after a refusal.
    pub fn record_fallback(&self) {
        self.inner.fallbacks.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("fallback");
        }
    }

    /// Counts one refused task whose result was kept because it had ended.
    pub fn record_refused_result_kept(&self) {
        self.inner.refused_results_kept.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("kept_after_refusal");
        }
    }

    /// Counts one refused, unfinished task ended with the refusal (nothing sent again).
    pub fn record_ended_with_refusal(&self) {
        self.inner.ended_with_refusal.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("ended_with_refusal");
        }
    }

    /// Counts one fallback sent after the agent had accepted the refused, unfinished task (also
    /// counted in [`fallbacks`](MetricsSnapshot::fallbacks)).
    pub fn record_may_have_run_twice(&self) {
        self.inner.may_have_run_twice.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one task sent single-shot at once to a capability-suspect agent.
    pub fn record_suspect_single_shot(&self) {
        self.inner.suspect_single_shots.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("single_shot_suspect");
        }
    }

    /// Counts one task that waited for another task's negotiation with the same agent.
    pub fn record_negotiation_waited(&self) {
        self.inner.negotiation_waits.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one discovery that went on to the legacy `/.well-known/agent.json` path.
    pub fn record_legacy_card_fetch(&self) {
        self.inner.legacy_card_fetches.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one card that differs from the one read before for its agent.
    pub fn record_card_changed(&self) {
        self.inner.cards_changed.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one retry.
    pub fn record_retry(&self) {
        self.inner.retries.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.retry();
        }
    }

    /// Counts one transition of an agent's availability breaker made here: `open` (opened), or not
    /// (closed).
    pub fn record_breaker(&self, open: bool) {
        let counter = if open { &self.inner.breaker.opened } else { &self.inner.breaker.closed };
        counter.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.breaker(if open { "open" } else { "closed" });
        }
    }

    /// Counts tasks taken over from replicas whose lease ran out.
    pub fn record_taken_over(&self, tasks: u64) {
        self.inner.taken_over.fetch_add(tasks, Ordering::Relaxed);
    }

    /// Counts one task sent as the probe of a half-open breaker.
    pub fn record_breaker_probe(&self) {
        self.inner.breaker.probes.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.breaker("probe");
        }
    }

    /// Counts one task failed at once because the agent's breaker was open.
    pub fn record_breaker_fail_fast(&self) {
        self.inner.breaker.fail_fast.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.inner.otel.get() {
            otel.task("failed_fast_unavailable");
        }
    }

    /// Counts one breaker another replica opened, applied here.
    pub fn record_shared_breaker_received(&self) {
        self.inner.breaker.received.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one call moved to the next declared interface because its interface was unreachable.
    pub fn record_interface_failover(&self) {
        self.inner.interface_failovers.fetch_add(1, Ordering::Relaxed);
    }

    /// Names the replica these counters belong to; the first name given sticks.
    pub fn set_replica(&self, name: impl Into<String>) {
        let _ = self.inner.replica.set(name.into());
    }

    /// The replica name, if one was set.
    pub fn replica_name(&self) -> Option<&str> {
        self.inner.replica.get().map(String::as_str)
    }

    /// Counts one failed or timed-out shared cache command.
    pub fn record_shared_cache_error(&self) {
        self.inner.shared.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one recovery of the shared cache backend.
    pub fn record_shared_cache_reconnect(&self) {
        self.inner.shared.reconnects.fetch_add(1, Ordering::Relaxed);
    }

    /// Records whether the shared cache backend is degraded.
    pub fn set_shared_cache_degraded(&self, degraded: bool) {
        self.inner.shared.degraded.store(degraded, Ordering::Relaxed);
    }

    /// Counts one suspect mark received from another replica.
    pub fn record_shared_mark_received(&self) {
        self.inner.shared.marks_received.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one card read from the shared cache.
    pub fn record_shared_card_loaded(&self) {
        self.inner.shared.cards_loaded.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one update the shared cache backend dropped.
    pub fn record_shared_update_dropped(&self) {
        self.inner.shared.updates_dropped.fetch_add(1, Ordering::Relaxed);
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
        let card_claim_refusals = ClaimKind::ALL
            .iter()
            .zip(&self.inner.card_claim_refusals)
            .map(|(kind, counter)| (*kind, counter.load(Ordering::Relaxed)))
            .collect();
        MetricsSnapshot {
            requests_per_agent,
            negotiation_round_trips: self.inner.negotiation_round_trips.load(Ordering::Relaxed),
            refusals,
            card_claim_refusals,
            fallbacks: self.inner.fallbacks.load(Ordering::Relaxed),
            refused_results_kept: self.inner.refused_results_kept.load(Ordering::Relaxed),
            ended_with_refusal: self.inner.ended_with_refusal.load(Ordering::Relaxed),
            may_have_run_twice: self.inner.may_have_run_twice.load(Ordering::Relaxed),
            suspect_single_shots: self.inner.suspect_single_shots.load(Ordering::Relaxed),
            negotiation_waits: self.inner.negotiation_waits.load(Ordering::Relaxed),
            negotiated_tasks: self.inner.negotiated_tasks.load(Ordering::Relaxed),
            suspect_marks_set: self.inner.suspect_marks_set.load(Ordering::Relaxed),
            wasted_round_trips: self.inner.wasted_round_trips.load(Ordering::Relaxed),
            legacy_card_fetches: self.inner.legacy_card_fetches.load(Ordering::Relaxed),
            cards_changed: self.inner.cards_changed.load(Ordering::Relaxed),
            retries: self.inner.retries.load(Ordering::Relaxed),
            interface_failovers: self.inner.interface_failovers.load(Ordering::Relaxed),
            tasks_taken_over: self.inner.taken_over.load(Ordering::Relaxed),
            breakers_opened: self.inner.breaker.opened.load(Ordering::Relaxed),
            breakers_closed: self.inner.breaker.closed.load(Ordering::Relaxed),
            breaker_probes: self.inner.breaker.probes.load(Ordering::Relaxed),
            breaker_fail_fast: self.inner.breaker.fail_fast.load(Ordering::Relaxed),
            shared_breakers_received: self.inner.breaker.received.load(Ordering::Relaxed),
            replica: self.inner.replica.get().cloned(),
            shared_cache_errors: self.inner.shared.errors.load(Ordering::Relaxed),
            shared_cache_reconnects: self.inner.shared.reconnects.load(Ordering::Relaxed),
            shared_cache_degraded: self.inner.shared.degraded.load(Ordering::Relaxed),
            shared_marks_received: self.inner.shared.marks_received.load(Ordering::Relaxed),
            shared_cards_loaded: self.inner.shared.cards_loaded.load(Ordering::Relaxed),
            shared_updates_dropped: self.inner.shared.updates_dropped.load(Ordering::Relaxed),
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
        clone.record_may_have_run_twice();
        metrics.record_refused_result_kept();
        clone.record_ended_with_refusal();
        clone.record_retry();
        clone.record_refusal(Capability::PushNotifications);
        let snapshot = metrics.snapshot();
        assert_eq!(snapshot.requests_per_agent.get("http://a"), Some(&2));
        assert_eq!(snapshot.requests_per_agent.get("http://b"), Some(&1));
        assert_eq!(snapshot.negotiation_round_trips, 1);
        assert_eq!(snapshot.fallbacks, 1);
        assert_eq!(
            (snapshot.refused_results_kept, snapshot.ended_with_refusal, snapshot.may_have_run_twice),
            (1, 1, 1)
        );
        assert_eq!(snapshot.retries, 1);
        assert_eq!(snapshot.refusals[&Capability::PushNotifications], 1);
        assert_eq!(snapshot.refusals[&Capability::Streaming], 0);
        assert_eq!(snapshot.refusals.len(), Capability::ALL.len());
    }

    #[test]
    fn the_snapshot_names_the_replica_and_shows_shared_cache_degradation() {
        let metrics = Metrics::default();
        assert_eq!(metrics.snapshot().replica, None);
        metrics.set_replica("replica-2");
        metrics.set_replica("ignored: the first name sticks");
        metrics.record_shared_cache_error();
        metrics.set_shared_cache_degraded(true);
        let snapshot = metrics.snapshot();
        assert_eq!(snapshot.replica.as_deref(), Some("replica-2"));
        assert_eq!(snapshot.shared_cache_errors, 1);
        assert!(snapshot.shared_cache_degraded);
        metrics.set_shared_cache_degraded(false);
        metrics.record_shared_cache_reconnect();
        let snapshot = metrics.snapshot();
        assert!(!snapshot.shared_cache_degraded);
        assert_eq!(snapshot.shared_cache_reconnects, 1);
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
