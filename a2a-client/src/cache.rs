//! The discovery cache: one card per agent with its HTTP freshness, and capability-suspect marks.
//!
//! Shared by every handle (an `Arc` inside; clones see the same entries). A card is fresh until its
//! `Cache-Control: max-age` (or the default TTL) runs out; after that it is revalidated with
//! `If-None-Match`. A suspect mark records that an agent was caught contradicting a capability, so
//! other handles stop relying on that claim until the mark expires.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{AgentBaseUrl, Capability, DiscoveryCache};
//!
//! let (cache, clock) = DiscoveryCache::with_manual_clock(Duration::from_secs(300), Duration::from_secs(60));
//! let agent = AgentBaseUrl::parse("http://agent.example")?;
//! cache.mark_suspect(&agent, Capability::Streaming, "completed with no streamed artifact");
//! assert_eq!(cache.is_suspect(&agent).map(|m| m.capability()), Some(Capability::Streaming));
//! clock.advance(Duration::from_secs(61));
//! assert!(cache.is_suspect(&agent).is_none());
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::Capability;
use crate::config::{DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL};
use crate::discovery::{AgentBaseUrl, DiscoveredCard};
use crate::signing::CardSigner;

/// Where the cache reads the time: tokio's clock (pausable in tests), or a clock moved by hand.
#[derive(Clone, Debug)]
enum Clock {
    Tokio,
    Manual(ManualClock),
}

impl Clock {
    fn now(&self) -> Instant {
        match self {
            Clock::Tokio => Instant::now(),
            Clock::Manual(manual) => manual.now(),
        }
    }
}

/// A clock moved only by [`ManualClock::advance`], for tests of TTLs over real sockets (where pausing
/// tokio's clock would also fire network timeouts).
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<Mutex<Instant>>,
}

impl ManualClock {
    fn new() -> Self {
        Self { now: Arc::new(Mutex::new(Instant::now())) }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
    }

    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How long a cached card may be used without asking the server, from its response headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Freshness {
    /// `no-store`: never keep the card.
    pub(crate) no_store: bool,
    /// How long the card is fresh; zero for `no-cache` (always revalidate).
    pub(crate) lifetime: Duration,
    /// The validator to send back in `If-None-Match`.
    pub(crate) etag: Option<String>,
}

impl Freshness {
    /// Reads `Cache-Control`, `Age` and `ETag`; `default_ttl` applies when no lifetime is given.
    pub(crate) fn from_headers(headers: &reqwest::header::HeaderMap, default_ttl: Duration) -> Self {
        let text = |name| headers.get_all(name).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>();
        let mut no_store = false;
        let mut no_cache = false;
        let mut max_age = None;
        for directive in text(reqwest::header::CACHE_CONTROL).iter().flat_map(|v| v.split(',')) {
            let directive = directive.trim().to_ascii_lowercase();
            match directive.split_once('=') {
                Some(("max-age", value)) => max_age = value.trim_matches('"').parse::<u64>().ok(),
                _ if directive == "no-store" => no_store = true,
                _ if directive == "no-cache" => no_cache = true,
                _ => {}
            }
        }
        let age = text(reqwest::header::AGE).first().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
        let lifetime = match (no_cache, max_age) {
            (true, _) => Duration::ZERO,
            (false, Some(max_age)) => Duration::from_secs(max_age.saturating_sub(age)),
            (false, None) => default_ttl,
        };
        let etag = text(reqwest::header::ETAG).first().map(|v| (*v).to_owned());
        Self { no_store, lifetime, etag }
    }
}

/// A card held in the cache, with whether it may still be used without revalidation.
#[derive(Clone, Debug)]
pub struct CachedCard {
    card: DiscoveredCard,
    etag: Option<String>,
    fresh: bool,
}

impl CachedCard {
    /// The card.
    pub fn card(&self) -> &DiscoveredCard {
        &self.card
    }

    /// The `ETag` the server sent with it.
    pub fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    /// Whether the card is within its lifetime (else it must be revalidated before use).
    pub fn is_fresh(&self) -> bool {
        self.fresh
    }
}

/// A record that an agent contradicted a capability its card declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuspectMark {
    capability: Capability,
    evidence: String,
    marked_at: Instant,
    expires_at: Instant,
    signer: Option<CardSigner>,
}

impl SuspectMark {
    /// The capability the agent was caught over-declaring.
    pub fn capability(&self) -> Capability {
        self.capability
    }

    /// What was observed.
    pub fn evidence(&self) -> &str {
        &self.evidence
    }

    /// When the mark was set.
    pub fn marked_at(&self) -> Instant {
        self.marked_at
    }

    /// When the mark stops applying.
    pub fn expires_at(&self) -> Instant {
        self.expires_at
    }

    /// Who signed the card whose claim was contradicted: the verified signer of the agent's cached
    /// card when the mark was set, `None` for an unsigned or unverified card. A signed claim that
    /// proved false is evidence against its signer, not just the agent.
    pub fn signer(&self) -> Option<&CardSigner> {
        self.signer.as_ref()
    }
}

struct Entry {
    card: DiscoveredCard,
    etag: Option<String>,
    fresh_until: Instant,
}

#[derive(Default)]
struct State {
    cards: HashMap<AgentBaseUrl, Entry>,
    suspects: HashMap<AgentBaseUrl, BTreeMap<Capability, SuspectMark>>,
}

/// Cards and suspect marks by agent base URL; cheap to clone, shared by every clone.
///
/// Discoveries of one agent through the same cache are single-flight: while one fetches or
/// revalidates the card, the others wait for it and then read the cache, so a burst of tasks to a
/// new agent costs one card request, not one each.
#[derive(Clone)]
pub struct DiscoveryCache {
    state: Arc<Mutex<State>>,
    /// One gate per agent, held while its card is fetched.
    flights: Arc<Mutex<HashMap<AgentBaseUrl, Arc<tokio::sync::Mutex<()>>>>>,
    clock: Clock,
    default_ttl: Duration,
    suspect_ttl: Duration,
}

impl Default for DiscoveryCache {
    /// A cache with [`DEFAULT_DISCOVERY_TTL`] and [`DEFAULT_SUSPECT_TTL`], on tokio's clock.
    fn default() -> Self {
        Self::new(DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL)
    }
}

impl fmt::Debug for DiscoveryCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("DiscoveryCache")
            .field("cards", &state.cards.len())
            .field("suspect_agents", &state.suspects.len())
            .field("default_ttl", &self.default_ttl)
            .field("suspect_ttl", &self.suspect_ttl)
            .finish_non_exhaustive()
    }
}

impl DiscoveryCache {
    /// A cache where cards without `Cache-Control` live `default_ttl` and suspect marks `suspect_ttl`,
    /// timed by tokio's clock (so `tokio::time::pause` applies).
    pub fn new(default_ttl: Duration, suspect_ttl: Duration) -> Self {
        Self { state: Arc::default(), flights: Arc::default(), clock: Clock::Tokio, default_ttl, suspect_ttl }
    }

    /// As [`DiscoveryCache::new`], timed by a clock the caller moves.
    pub fn with_manual_clock(default_ttl: Duration, suspect_ttl: Duration) -> (Self, ManualClock) {
        let clock = ManualClock::new();
        let cache = Self { clock: Clock::Manual(clock.clone()), ..Self::new(default_ttl, suspect_ttl) };
        (cache, clock)
    }

    /// Lifetime of cards served without caching headers.
    pub fn default_ttl(&self) -> Duration {
        self.default_ttl
    }

    /// The cached card for `agent`, fresh or stale.
    pub fn get(&self, agent: &AgentBaseUrl) -> Option<CachedCard> {
        let now = self.clock.now();
        self.lock().cards.get(agent).map(|entry| CachedCard {
            card: entry.card.clone(),
            etag: entry.etag.clone(),
            fresh: now < entry.fresh_until,
        })
    }

    /// The gate a discovery of `agent` holds while it fetches, so concurrent ones wait for its card.
    pub(crate) fn flight(&self, agent: &AgentBaseUrl) -> Arc<tokio::sync::Mutex<()>> {
        let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(flights.entry(agent.clone()).or_default())
    }

    /// Forgets the card for `agent` (suspect marks stay).
    pub fn invalidate(&self, agent: &AgentBaseUrl) {
        self.lock().cards.remove(agent);
    }

    /// Stores a card fetched with `freshness`; a `no-store` card removes any older one instead.
    pub(crate) fn store(&self, agent: &AgentBaseUrl, card: DiscoveredCard, freshness: Freshness) {
        let mut state = self.lock();
        if freshness.no_store {
            state.cards.remove(agent);
            return;
        }
        let fresh_until = self.clock.now() + freshness.lifetime;
        state.cards.insert(agent.clone(), Entry { card, etag: freshness.etag, fresh_until });
    }

    /// Renews a cached card after a `304 Not Modified`; returns it, or `None` if it was evicted meanwhile.
    pub(crate) fn revalidated(&self, agent: &AgentBaseUrl, freshness: Freshness) -> Option<DiscoveredCard> {
        let now = self.clock.now();
        let mut state = self.lock();
        if freshness.no_store {
            return state.cards.remove(agent).map(|entry| entry.card);
        }
        let entry = state.cards.get_mut(agent)?;
        entry.fresh_until = now + freshness.lifetime;
        if freshness.etag.is_some() {
            entry.etag = freshness.etag;
        }
        Some(entry.card.clone())
    }

    /// Records that `agent` contradicted `capability`, for the suspect TTL; replaces an older mark for
    /// the same capability. The mark names the signer of the agent's cached card, if it was verified.
    pub fn mark_suspect(&self, agent: &AgentBaseUrl, capability: Capability, evidence: impl Into<String>) {
        let now = self.clock.now();
        let mut state = self.lock();
        let signer = state.cards.get(agent).and_then(|entry| entry.card.signer().cloned());
        let mark = SuspectMark {
            capability,
            evidence: evidence.into(),
            marked_at: now,
            expires_at: now + self.suspect_ttl,
            signer,
        };
        state.suspects.entry(agent.clone()).or_default().insert(capability, mark);
    }

    /// The most recent unexpired suspect mark on `agent`, if any.
    pub fn is_suspect(&self, agent: &AgentBaseUrl) -> Option<SuspectMark> {
        self.suspect_marks(agent).into_iter().max_by_key(|mark| mark.marked_at)
    }

    /// Every unexpired suspect mark on `agent`, by capability; expired marks are dropped.
    pub fn suspect_marks(&self, agent: &AgentBaseUrl) -> Vec<SuspectMark> {
        let now = self.clock.now();
        let mut state = self.lock();
        let Some(marks) = state.suspects.get_mut(agent) else { return Vec::new() };
        marks.retain(|_, mark| now < mark.expires_at);
        let live = marks.values().cloned().collect();
        if marks.is_empty() {
            state.suspects.remove(agent);
        }
        live
    }

    /// Removes every suspect mark on `agent` (after its card changed, for example).
    pub fn clear_suspect(&self, agent: &AgentBaseUrl) {
        self.lock().suspects.remove(agent);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    const TTL: Duration = Duration::from_secs(300);

    #[test]
    fn max_age_sets_the_lifetime_minus_age() {
        let f = Freshness::from_headers(
            &headers(&[("cache-control", "public, max-age=3600"), ("age", "600")]),
            TTL,
        );
        assert_eq!(f.lifetime, Duration::from_secs(3000));
        assert!(!f.no_store);
    }

    #[test]
    fn no_cache_means_revalidate_every_time() {
        let f = Freshness::from_headers(&headers(&[("cache-control", "no-cache, max-age=60")]), TTL);
        assert_eq!(f.lifetime, Duration::ZERO);
    }

    #[test]
    fn no_store_is_recognised_in_any_case() {
        assert!(Freshness::from_headers(&headers(&[("cache-control", "No-Store")]), TTL).no_store);
    }

    #[test]
    fn missing_cache_control_uses_the_default_ttl_and_keeps_the_etag() {
        let f = Freshness::from_headers(&headers(&[("etag", "W/\"abc\"")]), TTL);
        assert_eq!(f.lifetime, TTL);
        assert_eq!(f.etag.as_deref(), Some("W/\"abc\""));
    }

    #[test]
    fn unparsable_max_age_falls_back_to_the_default_ttl() {
        let f = Freshness::from_headers(&headers(&[("cache-control", "max-age=soon")]), TTL);
        assert_eq!(f.lifetime, TTL);
    }

    #[test]
    fn suspect_marks_expire_after_their_ttl() {
        let (cache, clock) = DiscoveryCache::with_manual_clock(TTL, Duration::from_secs(10));
        let agent = AgentBaseUrl::parse("http://a.example/").unwrap();
        cache.mark_suspect(&agent, Capability::PushNotifications, "no callback within 30s");
        clock.advance(Duration::from_secs(5));
        cache.mark_suspect(&agent, Capability::Streaming, "unsupported operation on stream");
        let mark = cache.is_suspect(&agent).unwrap();
        assert_eq!(mark.capability(), Capability::Streaming, "the most recent mark is reported");
        assert_eq!(cache.suspect_marks(&agent).len(), 2);
        clock.advance(Duration::from_secs(6));
        assert_eq!(cache.suspect_marks(&agent).len(), 1, "the push mark expired");
        clock.advance(Duration::from_secs(5));
        assert!(cache.is_suspect(&agent).is_none());
    }

    #[test]
    fn a_mark_on_an_agent_with_an_unverified_card_names_no_signer() {
        let cache = DiscoveryCache::default();
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.mark_suspect(&agent, Capability::Streaming, "no card cached");
        assert_eq!(cache.is_suspect(&agent).unwrap().signer(), None);
        let card = DiscoveredCard::from_bytes(
            bytes::Bytes::from_static(br#"{"name":"a","supportedInterfaces":[]}"#),
            "http://a.example/.well-known/agent-card.json",
            crate::WellKnownPath::AgentCard,
        )
        .unwrap();
        cache.store(&agent, card, Freshness { no_store: false, lifetime: TTL, etag: None });
        cache.mark_suspect(&agent, Capability::PushNotifications, "unsigned card cached");
        assert!(cache.suspect_marks(&agent).iter().all(|mark| mark.signer().is_none()));
    }

    #[test]
    fn suspect_marks_are_shared_by_clones_and_kept_per_agent() {
        let cache = DiscoveryCache::default();
        let a = AgentBaseUrl::parse("http://a.example").unwrap();
        let b = AgentBaseUrl::parse("http://b.example").unwrap();
        cache.clone().mark_suspect(&a, Capability::Streaming, "e");
        assert!(cache.is_suspect(&a).is_some());
        assert!(cache.is_suspect(&b).is_none());
        cache.clear_suspect(&a);
        assert!(cache.is_suspect(&a).is_none());
    }
}
