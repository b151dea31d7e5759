//! The local cache's side of sharing: the handle a backend applies other replicas' updates through,
//! and the summary of evidence that leaves the process.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::{DiscoveryCache, Entry, SuspectClaim, SuspectMark};
use crate::Metrics;
use crate::agent_url::AgentBaseUrl;
use crate::shared::SharedMark;
use crate::wire_caps::{MAX_SHARED_TTL, instant_after};

/// How much later a mark read again may end and still be the mark already held.
const SAME_MARK_SLACK: Duration = Duration::from_millis(250);

/// Longest evidence text handed to a shared backend (a summary; the full text stays local).
pub const MAX_SHARED_EVIDENCE_CHARS: usize = 240;

pub(super) fn summary(evidence: &str) -> String {
    match evidence.char_indices().nth(MAX_SHARED_EVIDENCE_CHARS) {
        Some((cut, _)) => format!("{}…", &evidence[..cut]),
        None => evidence.to_owned(),
    }
}

/// A backend's handle on the local cache it keeps in step: it applies what other replicas shared.
/// Handed to [`CacheBackend::start`](crate::CacheBackend::start).
#[derive(Clone, Debug)]
pub struct LocalReplica {
    pub(super) cache: DiscoveryCache,
}

impl LocalReplica {
    /// A unique id of this cache, to tell its own updates from the others' when they come back.
    pub fn id(&self) -> &str {
        &self.cache.identity.id
    }

    /// The replica name, if one was set.
    pub fn name(&self) -> Option<&str> {
        self.cache.replica_name()
    }

    /// The counters shared-backend events are reported in (once a client is built on the cache).
    pub fn metrics(&self) -> Option<&Metrics> {
        self.cache.identity.metrics.get()
    }

    /// Applies a mark another replica set. Ignored (returns `false`) when it is already expired, when
    /// a mark on the same claim lasts at least as long here, or when it was made against a
    /// different card than the one cached here. A TTL past a year is taken as a year.
    pub fn apply_mark(&self, agent: &AgentBaseUrl, mark: SharedMark) -> bool {
        if mark.ttl.is_zero() {
            return false;
        }
        let cache = &self.cache;
        let now = cache.clock.now();
        // A peer's TTL is at most a year here, whatever it sent.
        let expires_at = instant_after(now, mark.ttl.min(MAX_SHARED_TTL));
        let mut state = cache.lock();
        let local_version = state.cards.get(agent).map(Entry::version);
        if let (Some(local), Some(theirs)) = (&local_version, &mark.card_version)
            && local != theirs
        {
            return false;
        }
        // The card the mark was made against is the one cached here (same version): its signer.
        let signer = state.cards.get(agent).and_then(|entry| entry.card.signer().cloned()).map(Box::new);
        let marks = state.suspects.entry(agent.clone()).or_default();
        // The same mark read again (each resync) ends a few milliseconds later than the copy held:
        // that is not a new mark.
        if marks.get(&mark.claim).is_some_and(|held| held.expires_at + SAME_MARK_SLACK >= expires_at) {
            return false;
        }
        let claim = mark.claim.clone();
        let local = SuspectMark {
            claim: mark.claim,
            evidence: mark.evidence,
            marked_at: now,
            expires_at,
            signer,
            card_version: mark.card_version,
            marked_by: mark.marked_by,
            shared: true,
        };
        marks.insert(claim, local);
        true
    }

    /// Applies a route another replica learned: `interface_url` answered for `agent` after another
    /// of its interfaces could not be reached. Kept for `ttl` (at most a year), unless a route held
    /// here lasts longer.
    pub fn apply_route(&self, agent: &AgentBaseUrl, interface_url: &str, ttl: Duration) -> bool {
        if ttl.is_zero() {
            return false;
        }
        let cache = &self.cache;
        let expires_at = instant_after(cache.clock.now(), ttl.min(MAX_SHARED_TTL));
        let mut state = cache.lock();
        if state
            .routes
            .get(agent)
            .is_some_and(|held| held.url == interface_url && held.expires_at >= expires_at)
        {
            return false;
        }
        state.routes.insert(agent.clone(), super::Route { url: interface_url.to_owned(), expires_at });
        true
    }

    /// The local cache's clock (what [`LocalReplica::drop_unshared`] compares with).
    pub fn now(&self) -> Instant {
        self.cache.clock.now()
    }

    /// After a full read of the shared marks begun at `read_started`: drops the marks that came from
    /// other replicas before then and are no longer shared (cleared while this replica was not
    /// listening). Marks this cache set itself are kept. Returns how many went.
    pub fn drop_unshared(
        &self,
        present: &HashSet<(AgentBaseUrl, SuspectClaim)>,
        read_started: Instant,
    ) -> usize {
        let mut state = self.cache.lock();
        let mut dropped = 0;
        state.suspects.retain(|agent, marks| {
            let before = marks.len();
            marks.retain(|claim, mark| {
                !mark.shared
                    || mark.marked_at >= read_started
                    || present.contains(&(agent.clone(), claim.clone()))
            });
            dropped += before - marks.len();
            !marks.is_empty()
        });
        dropped
    }

    /// Applies a clear another replica made: every mark on `agent`, or, with `keep_card_version`,
    /// those made against any other card version. Returns how many marks went.
    pub fn apply_clear(&self, agent: &AgentBaseUrl, keep_card_version: Option<&str>) -> usize {
        let mut state = self.cache.lock();
        let Some(marks) = state.suspects.get_mut(agent) else { return 0 };
        let before = marks.len();
        marks.retain(|_, mark| {
            keep_card_version.is_some_and(|keep| mark.card_version.as_deref() == Some(keep))
        });
        let cleared = before - marks.len();
        if marks.is_empty() {
            state.suspects.remove(agent);
        }
        cleared
    }

    /// The claims this cache holds an unexpired mark on, by agent: what a backend's resync need not
    /// read again (only the Redis backend resyncs).
    #[cfg(feature = "redis")]
    pub(crate) fn held_claims(&self) -> Vec<(AgentBaseUrl, SuspectClaim)> {
        self.cache
            .suspect_agents()
            .into_iter()
            .flat_map(|(agent, marks)| marks.into_iter().map(move |mark| (agent.clone(), mark.claim.clone())))
            .collect()
    }

    /// Every unexpired mark held here, for a backend that writes back what it could not share while
    /// its server was away.
    pub fn marks(&self) -> Vec<(AgentBaseUrl, SharedMark)> {
        let now = self.cache.clock.now();
        self.cache
            .suspect_agents()
            .into_iter()
            .flat_map(|(agent, marks)| {
                marks.into_iter().map(move |mark| {
                    let shared = SharedMark {
                        claim: mark.claim.clone(),
                        evidence: summary(&mark.evidence),
                        card_version: mark.card_version.clone(),
                        ttl: mark.expires_at.saturating_duration_since(now),
                        marked_by: mark.marked_by.clone(),
                    };
                    (agent.clone(), shared)
                })
            })
            .collect()
    }
}
