//! The discovery cache: one card per agent with its HTTP freshness, and suspect marks.
//!
//! Shared by every handle (an `Arc` inside; clones see the same entries). A card is fresh until its
//! `Cache-Control: max-age` (or the default TTL) runs out; after that it is revalidated with
//! `If-None-Match`. A suspect mark records that an agent was caught contradicting a claim of its
//! card (a lifecycle capability, or another card claim: [`SuspectClaim`]), so
//! other handles stop relying on that claim until the mark expires.
//!
//! Every read is local. With a shared backend attached ([`DiscoveryCache::with_backend`], for example
//! the Redis one in [`crate::shared`]), marks, clears and cards are also handed to it without waiting,
//! and marks other replicas set arrive in this cache's local copy (see [`crate::shared`] for the
//! bound). A mark carries the version of the card it was made against (its `ETag`, or a digest of its
//! bytes when the server sent none): when a different card is stored for the agent, the marks made
//! against the old one are cleared, here and in the backend.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{AgentBaseUrl, Capability, DiscoveryCache};
//!
//! // Marks live 50 ms here (an hour by default).
//! let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_millis(50));
//! let agent = AgentBaseUrl::parse("http://agent.example")?;
//! cache.mark_suspect(&agent, Capability::Streaming, "completed with no streamed artifact");
//! assert_eq!(cache.is_suspect(&agent).and_then(|m| m.capability()), Some(Capability::Streaming));
//! std::thread::sleep(Duration::from_millis(60));
//! assert!(cache.is_suspect(&agent).is_none());
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::agent_url::AgentBaseUrl;
use crate::card::DiscoveredCard;
use crate::defaults::{DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL};
use crate::shared::{BackendStatus, CacheBackend, CacheUpdate, SharedCard, SharedMark};
use crate::signing::CardSigner;
use crate::wire_caps::{MAX_DELTA_SECONDS, MAX_SHARED_TTL, instant_after, logged};
use crate::{Capability, Error, Metrics};
use a2a_typestate_types::wire_number::{self, Unit};

mod availability;
mod claim;
mod flight;
mod replica;
// The backend interface the cache writes through: the cache hands each backend a handle on
// itself (`LocalReplica`), so the two are one module; the crate root re-exports it as `shared`.
pub mod shared;

pub use availability::Breaker;
pub(crate) use availability::{Change as AvailabilityChange, Gate};
pub use claim::SuspectClaim;
pub(crate) use flight::Turn;
use replica::summary;
pub use replica::{LocalReplica, MAX_SHARED_EVIDENCE_CHARS};

/// Where the cache reads the time: tokio's clock (pausable in tests), or a clock moved by hand.
#[derive(Clone, Debug)]
enum Clock {
    Tokio,
    #[cfg(any(test, feature = "test-util"))]
    Manual(ManualClock),
}

impl Clock {
    fn now(&self) -> Instant {
        match self {
            Clock::Tokio => Instant::now(),
            #[cfg(any(test, feature = "test-util"))]
            Clock::Manual(manual) => manual.now(),
        }
    }
}

/// A clock moved only by [`ManualClock::advance`], for tests of TTLs over real sockets (where pausing
/// tokio's clock would also fire network timeouts). Behind the `test-util` feature: not part of the
/// stable API.
#[cfg(any(test, feature = "test-util"))]
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<Mutex<Instant>>,
}

#[cfg(any(test, feature = "test-util"))]
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
    pub(crate) fn from_headers(headers: &http::header::HeaderMap, default_ttl: Duration) -> Self {
        let text = |name| headers.get_all(name).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>();
        let mut no_store = false;
        let mut no_cache = false;
        let mut max_age = None;
        for directive in text(http::header::CACHE_CONTROL).iter().flat_map(|v| v.split(',')) {
            let directive = directive.trim().to_ascii_lowercase();
            match directive.split_once('=') {
                Some(("max-age", value)) => {
                    max_age = delta_seconds("Cache-Control max-age", value.trim_matches('"'))
                }
                _ if directive == "no-store" => no_store = true,
                _ if directive == "no-cache" => no_cache = true,
                _ => {}
            }
        }
        let age = text(http::header::AGE).first().and_then(|v| delta_seconds("Age", v)).unwrap_or_default();
        let lifetime = match (no_cache, max_age) {
            (true, _) => Duration::ZERO,
            (false, Some(max_age)) => max_age.saturating_sub(age),
            (false, None) => default_ttl,
        };
        let etag = text(http::header::ETAG).first().map(|v| (*v).to_owned());
        Self { no_store, lifetime, etag }
    }
}

/// A `max-age` or `Age` value: at most 2^31 seconds, as RFC 9111 §1.2.2 has a cache take any
/// larger one; a negative one, or one that is no number, is ignored (as if absent).
fn delta_seconds(field: &'static str, text: &str) -> Option<Duration> {
    let reading = wire_number::duration_text(field, text, Unit::Seconds, MAX_DELTA_SECONDS);
    logged(reading, "the directive is ignored")
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

/// A record that an agent contradicted a claim its card makes: a lifecycle capability or another
/// card claim ([`SuspectClaim`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuspectMark {
    claim: SuspectClaim,
    evidence: String,
    marked_at: Instant,
    expires_at: Instant,
    /// Boxed: most marks have none, and a mark travels inside `TaskPath` and `TaskEntry`.
    signer: Option<Box<CardSigner>>,
    card_version: Option<String>,
    marked_by: Option<String>,
    /// Set when the mark came from a shared backend (another replica) rather than from this cache.
    shared: bool,
}

impl SuspectMark {
    /// The claim the agent was caught over-declaring.
    pub fn claim(&self) -> &SuspectClaim {
        &self.claim
    }

    /// The lifecycle capability the agent was caught over-declaring, when the mark is about one
    /// (`None` for a mark on another card claim).
    pub fn capability(&self) -> Option<Capability> {
        self.claim.capability()
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
        self.signer.as_deref()
    }

    /// The version of the card the mark was made against: its `ETag`, or the digest `fnv64:<hex>` of
    /// its bytes when it had none; `None` when no card of the agent had been read at the time. A
    /// different card read for the agent is a new card: it clears the mark.
    pub fn card_version(&self) -> Option<&str> {
        self.card_version.as_deref()
    }

    /// The replica that set the mark, when the cache that set it had a replica name.
    pub fn marked_by(&self) -> Option<&str> {
        self.marked_by.as_deref()
    }
}

/// The mark in words: the claim, what was observed, the time left of its TTL (in whole seconds,
/// as people write it) and who set it, as in
/// `streaming contradicted: <evidence> (1 h 0 min left of its ttl, marked by replica-a)`.
///
/// The time left is read from tokio's clock (a mark set on the `test-util` feature's `ManualClock`
/// shows at most its TTL): never an `Instant` in its debug form.
impl fmt::Display for SuspectMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = Instant::now().max(self.marked_at);
        let left = self.expires_at.saturating_duration_since(now);
        write!(f, "{} contradicted: {} (", self.claim, self.evidence)?;
        if left.is_zero() {
            f.write_str("expired")?;
        } else {
            // Rounded up to the second: a live mark never reads "0 s left".
            let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            write!(
                f,
                "{} left of its ttl",
                a2a_typestate_types::human::HumanDuration(Duration::from_secs(secs))
            )?;
        }
        match (&self.marked_by, self.shared) {
            (Some(name), _) => write!(f, ", marked by {name}")?,
            (None, true) => f.write_str(", marked by another replica")?,
            (None, false) => f.write_str(", marked by this client")?,
        }
        f.write_str(")")
    }
}

struct Entry {
    card: DiscoveredCard,
    etag: Option<String>,
    fresh_until: Instant,
}

impl Entry {
    fn version(&self) -> String {
        card_version(self.etag.as_deref(), &self.card)
    }
}

/// The version a mark is tied to: the card's `ETag`, or a digest of its bytes.
fn card_version(etag: Option<&str>, card: &DiscoveredCard) -> String {
    match etag {
        Some(etag) => etag.to_owned(),
        None => format!("fnv64:{:016x}", fnv64(card.raw())),
    }
}

/// FNV-1a over `bytes`: stable across processes, enough to tell two card documents apart.
fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Where a stored card came from: fetched by this replica (shared onwards) or read from the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CardSource {
    Fetched,
    Shared,
}

/// Who this cache is to the others: a unique id (so its own updates coming back are ignored), a
/// replica name and the counters degradation is reported in.
#[derive(Debug)]
struct Identity {
    id: String,
    name: OnceLock<String>,
    metrics: OnceLock<Metrics>,
}

#[derive(Default)]
struct State {
    cards: HashMap<AgentBaseUrl, Entry>,
    suspects: HashMap<AgentBaseUrl, BTreeMap<SuspectClaim, SuspectMark>>,
    /// The version of the card last read for each agent, kept when the card itself is not (a
    /// `no-store` card), so that marks are tied to the card they were made against and a changed card
    /// is told apart from it.
    versions: HashMap<AgentBaseUrl, String>,
    /// The interface that answered after another of the agent's interfaces could not be reached.
    routes: HashMap<AgentBaseUrl, Route>,
    /// Each agent's availability breaker, while it counts faults or is open (`availability.rs`).
    availability: HashMap<AgentBaseUrl, availability::Availability>,
}

/// An interface known to answer, until `expires_at`.
#[derive(Clone, Debug)]
struct Route {
    url: String,
    expires_at: Instant,
}

impl State {
    /// Records that `version` is the agent's card now. When it differs from the version read before,
    /// the card changed: it is a new card, so the marks made against any other version are dropped.
    /// Returns the marks dropped, `None` when the card did not change.
    fn read_version(&mut self, agent: &AgentBaseUrl, version: &str) -> Option<usize> {
        let before = self.versions.insert(agent.clone(), version.to_owned());
        let changed = before.as_deref().is_some_and(|before| before != version);
        let cleared = self.suspects.get_mut(agent).map_or(0, |marks| {
            let before = marks.len();
            marks.retain(|_, mark| mark.card_version.as_deref().is_none_or(|v| v == version));
            before - marks.len()
        });
        if self.suspects.get(agent).is_some_and(BTreeMap::is_empty) {
            self.suspects.remove(agent);
        }
        (changed || cleared > 0).then_some(cleared)
    }
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
    /// The negotiation under way per agent, which other tasks wait for (`flight.rs`).
    negotiations: Arc<flight::Flights>,
    clock: Clock,
    default_ttl: Duration,
    suspect_ttl: Duration,
    identity: Arc<Identity>,
    backend: Arc<OnceLock<Arc<dyn CacheBackend>>>,
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
            .field("replica", &self.identity.name.get())
            .field("backend", &self.backend.get())
            .finish_non_exhaustive()
    }
}

impl DiscoveryCache {
    /// A cache where cards without `Cache-Control` live `default_ttl` and suspect marks `suspect_ttl`,
    /// timed by tokio's clock (so `tokio::time::pause` applies).
    pub fn new(default_ttl: Duration, suspect_ttl: Duration) -> Self {
        let identity = Identity {
            id: uuid::Uuid::new_v4().simple().to_string(),
            name: OnceLock::new(),
            metrics: OnceLock::new(),
        };
        Self {
            state: Arc::default(),
            flights: Arc::default(),
            negotiations: Arc::default(),
            clock: Clock::Tokio,
            default_ttl,
            suspect_ttl,
            identity: Arc::new(identity),
            backend: Arc::default(),
        }
    }

    /// Attaches a shared backend (one per cache): from now on marks, clears and fetched cards are
    /// handed to it, and it keeps this cache's local copy in step with the other replicas. Reads stay
    /// local. Must be called inside a tokio runtime when the backend runs background tasks (the Redis
    /// one does).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when a backend is already attached, or the backend cannot start
    /// (no tokio runtime, for the Redis backend). An unreachable server is not an error: the backend
    /// starts degraded and connects when it can.
    pub fn with_backend(self, backend: impl CacheBackend) -> Result<Self, Error> {
        let backend: Arc<dyn CacheBackend> = Arc::new(backend);
        if self.backend.set(Arc::clone(&backend)).is_err() {
            return Err(Error::config("this discovery cache already has a shared backend"));
        }
        // The replica's view holds no backend, so the backend's tasks do not keep themselves alive:
        // dropping the last clone of this cache drops the backend and stops them.
        let view = Self { backend: Arc::default(), ..self.clone() };
        backend.start(LocalReplica { cache: view })?;
        Ok(self)
    }

    /// Names this cache's replica (in suspect marks it sets and in the metrics snapshot). The first
    /// name given sticks; [`crate::ClientBuilder::replica_name`] sets it.
    pub fn set_replica_name(&self, name: impl Into<String>) {
        let _ = self.identity.name.set(name.into());
    }

    /// The replica name, if one was set.
    pub fn replica_name(&self) -> Option<&str> {
        self.identity.name.get().map(String::as_str)
    }

    /// Whether the shared backend is reachable now; `None` without one.
    pub fn backend_status(&self) -> Option<BackendStatus> {
        self.backend.get().map(|backend| backend.status())
    }

    /// Waits at most `within` until every update handed to the shared backend so far is written;
    /// `true` when they are (and at once without a backend).
    pub async fn flush_shared(&self, within: Duration) -> bool {
        match self.backend.get() {
            Some(backend) => backend.flush(within).await,
            None => true,
        }
    }

    /// Counts shared-backend events into `metrics` (the first client built on this cache sets it).
    pub(crate) fn report_to(&self, metrics: &Metrics) {
        let _ = self.identity.metrics.set(metrics.clone());
    }

    /// The backend's copy of `agent`'s card, stored here when found (fresh or stale: a stale one still
    /// gives discovery a validator). Bounded by the backend's own timeout; `None` without a backend.
    pub(crate) async fn load_shared(&self, agent: &AgentBaseUrl) -> Option<CachedCard> {
        let backend = self.backend.get()?;
        let shared = backend.load_card(agent).await?;
        if shared.fresh_for.is_zero() && self.get(agent).is_some() {
            // A stale shared copy is only worth having as a validator when there is none here.
            return None;
        }
        let card = match DiscoveredCard::from_bytes(shared.raw, &shared.source_url, shared.path) {
            Ok(card) => card,
            Err(error) => {
                tracing::warn!(agent = %agent, %error, "shared card does not parse; ignored");
                return None;
            }
        };
        let fresh_until = instant_after(self.clock.now(), shared.fresh_for.min(MAX_SHARED_TTL));
        self.put(agent, card, shared.etag, fresh_until, CardSource::Shared);
        self.get(agent)
    }

    fn send(&self, update: CacheUpdate) {
        if let Some(backend) = self.backend.get() {
            backend.send(update);
        }
    }

    /// As [`DiscoveryCache::new`], timed by a clock the caller moves (feature `test-util`).
    #[cfg(any(test, feature = "test-util"))]
    #[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
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
        if freshness.no_store {
            // Not kept, but still the agent's card now: a changed one clears the marks of the old.
            let version = card_version(freshness.etag.as_deref(), &card);
            let changed = {
                let mut state = self.lock();
                state.cards.remove(agent);
                state.read_version(agent, &version)
            };
            self.report_change(agent, &version, changed);
            return;
        }
        let fresh_until = instant_after(self.clock.now(), freshness.lifetime);
        self.put(agent, card, freshness.etag, fresh_until, CardSource::Fetched);
    }

    /// Stores a card; marks made against another version of it are cleared (and the clear shared).
    fn put(
        &self,
        agent: &AgentBaseUrl,
        card: DiscoveredCard,
        etag: Option<String>,
        fresh_until: Instant,
        source: CardSource,
    ) {
        let entry = Entry { card, etag, fresh_until };
        let version = entry.version();
        let shared = (source == CardSource::Fetched).then(|| self.shared_card(&entry));
        let changed = {
            let mut state = self.lock();
            state.cards.insert(agent.clone(), entry);
            state.read_version(agent, &version)
        };
        self.report_change(agent, &version, changed);
        if let Some(card) = shared {
            self.send(CacheUpdate::Card { agent: agent.clone(), card });
        }
    }

    /// Says that `agent`'s card changed (counted in the metrics, logged) and shares the clear of the
    /// marks made against its old version.
    fn report_change(&self, agent: &AgentBaseUrl, version: &str, changed: Option<usize>) {
        let Some(cleared) = changed else { return };
        tracing::info!(agent = %agent, card_version = %version, cleared, "card changed: a new card, its claims unmarked");
        if let Some(metrics) = self.identity.metrics.get() {
            metrics.record_card_changed();
        }
        self.send(CacheUpdate::Clear { agent: agent.clone(), keep_card_version: Some(version.to_owned()) });
    }

    fn shared_card(&self, entry: &Entry) -> SharedCard {
        SharedCard {
            raw: entry.card.raw().clone(),
            source_url: entry.card.source_url().to_owned(),
            path: entry.card.well_known_path(),
            etag: entry.etag.clone(),
            fresh_for: entry.fresh_until.saturating_duration_since(self.clock.now()),
        }
    }

    /// Renews a cached card after a `304 Not Modified`; returns it, or `None` if it was evicted meanwhile.
    pub(crate) fn revalidated(&self, agent: &AgentBaseUrl, freshness: Freshness) -> Option<DiscoveredCard> {
        let now = self.clock.now();
        let mut state = self.lock();
        if freshness.no_store {
            return state.cards.remove(agent).map(|entry| entry.card);
        }
        let entry = state.cards.get_mut(agent)?;
        let before = entry.version();
        entry.fresh_until = instant_after(now, freshness.lifetime);
        if freshness.etag.is_some() {
            entry.etag = freshness.etag;
        }
        let card = entry.card.clone();
        let shared = self.shared_card(entry);
        // The same card (304): a new validator names it from now on, marks included; no change.
        let version = entry.version();
        if version != before {
            for mark in state.suspects.get_mut(agent).into_iter().flat_map(BTreeMap::values_mut) {
                if mark.card_version.as_deref() == Some(before.as_str()) {
                    mark.card_version = Some(version.clone());
                }
            }
        }
        state.versions.insert(agent.clone(), version);
        drop(state);
        self.send(CacheUpdate::Card { agent: agent.clone(), card: shared });
        Some(card)
    }

    /// Records that `agent` contradicted `claim` (a [`Capability`] or another [`SuspectClaim`]), for
    /// the suspect TTL; replaces an older mark on the same claim. The mark names the signer of the
    /// agent's cached card, if it was verified.
    pub fn mark_suspect(
        &self,
        agent: &AgentBaseUrl,
        claim: impl Into<SuspectClaim>,
        evidence: impl Into<String>,
    ) {
        let claim = claim.into();
        let now = self.clock.now();
        let mut state = self.lock();
        let signer = state.cards.get(agent).and_then(|entry| entry.card.signer().cloned()).map(Box::new);
        let card_version =
            state.cards.get(agent).map(Entry::version).or_else(|| state.versions.get(agent).cloned());
        let mark = SuspectMark {
            claim: claim.clone(),
            evidence: evidence.into(),
            marked_at: now,
            expires_at: instant_after(now, self.suspect_ttl),
            signer,
            card_version,
            marked_by: self.identity.name.get().cloned(),
            shared: false,
        };
        // Without a backend there is nothing to build for sharing.
        let shared = self.backend.get().is_some().then(|| SharedMark {
            claim: claim.clone(),
            evidence: summary(&mark.evidence),
            card_version: mark.card_version.clone(),
            ttl: self.suspect_ttl,
            marked_by: mark.marked_by.clone(),
        });
        state.suspects.entry(agent.clone()).or_default().insert(claim, mark);
        drop(state);
        if let Some(mark) = shared {
            self.send(CacheUpdate::Mark { agent: agent.clone(), mark });
        }
    }

    /// Puts back a mark kept outside the process (the task journal, after a restart), as a mark
    /// another replica shared is applied: not when one held here lasts longer, nor when it names
    /// another card than the one cached here. Not handed to the shared backend.
    pub(crate) fn restore_mark(&self, agent: &AgentBaseUrl, mark: SharedMark) -> bool {
        let view = Self { backend: Arc::default(), ..self.clone() };
        LocalReplica { cache: view }.apply_mark(agent, mark)
    }

    /// A reader of the unexpired suspect marks, by capability, for the OpenTelemetry gauge: it holds
    /// the cache weakly, and reads nothing once the cache is gone.
    #[cfg(feature = "otel")]
    pub(crate) fn active_marks_reader(&self) -> crate::otel::ActiveMarks {
        let state = Arc::downgrade(&self.state);
        let clock = self.clock.clone();
        Box::new(move || {
            let Some(state) = state.upgrade() else { return Vec::new() };
            let now = clock.now();
            let state = state.lock().unwrap_or_else(PoisonError::into_inner);
            Capability::ALL
                .iter()
                .map(|capability| {
                    let claim = SuspectClaim::Capability(*capability);
                    let live = state
                        .suspects
                        .values()
                        .filter_map(|marks| marks.get(&claim))
                        .filter(|mark| now < mark.expires_at)
                        .count();
                    (*capability, live as u64)
                })
                .collect()
        })
    }

    /// The most recent unexpired mark on a lifecycle capability of `agent`, if any: the agent is
    /// capability-suspect, and its tasks go single-shot at once. Marks on other card claims are
    /// read with [`DiscoveryCache::claim_mark`].
    pub fn is_suspect(&self, agent: &AgentBaseUrl) -> Option<SuspectMark> {
        self.suspect_marks(agent)
            .into_iter()
            .filter(|mark| mark.capability().is_some())
            .max_by_key(|mark| mark.marked_at)
    }

    /// The unexpired mark on `claim` of `agent`, if any: while it holds, the client does not rely
    /// on that claim (it takes the claim's fallback at once).
    pub fn claim_mark(&self, agent: &AgentBaseUrl, claim: &SuspectClaim) -> Option<SuspectMark> {
        self.suspect_marks(agent).into_iter().find(|mark| &mark.claim == claim)
    }

    /// Every unexpired suspect mark on `agent`, capabilities and card claims, in [`SuspectClaim`]
    /// order; expired marks are dropped.
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
        self.send(CacheUpdate::Clear { agent: agent.clone(), keep_card_version: None });
    }

    /// Every agent with an unexpired suspect mark, and its marks.
    pub fn suspect_agents(&self) -> Vec<(AgentBaseUrl, Vec<SuspectMark>)> {
        let agents: Vec<AgentBaseUrl> = self.lock().suspects.keys().cloned().collect();
        agents
            .into_iter()
            .map(|agent| {
                let marks = self.suspect_marks(&agent);
                (agent, marks)
            })
            .filter(|(_, marks)| !marks.is_empty())
            .collect()
    }

    /// The interface of `agent` that answered after another of its declared interfaces could not be
    /// reached (a transport failover), while that lasts (the cache's default TTL, shared with the
    /// other replicas): discovery opens it first, so the next task does not wait out the dead one
    /// again. `None` when no failover was seen or it expired.
    pub fn answering_interface(&self, agent: &AgentBaseUrl) -> Option<String> {
        let now = self.clock.now();
        let mut state = self.lock();
        match state.routes.get(agent) {
            Some(route) if route.expires_at > now => Some(route.url.clone()),
            Some(_) => {
                state.routes.remove(agent);
                None
            }
            None => None,
        }
    }

    /// Records that `url`, one of `agent`'s declared interfaces, answered after another could not
    /// be reached; shared with the other replicas.
    pub(crate) fn remember_answering_interface(&self, agent: &AgentBaseUrl, url: &str) {
        let ttl = self.default_ttl;
        let route = Route { url: url.to_owned(), expires_at: instant_after(self.clock.now(), ttl) };
        self.lock().routes.insert(agent.clone(), route);
        self.send(CacheUpdate::Route { agent: agent.clone(), interface_url: url.to_owned(), ttl });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header::{HeaderMap, HeaderValue};

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
        assert_eq!(mark.capability(), Some(Capability::Streaming), "the most recent mark is reported");
        assert_eq!(cache.suspect_marks(&agent).len(), 2);
        clock.advance(Duration::from_secs(6));
        assert_eq!(cache.suspect_marks(&agent).len(), 1, "the push mark expired");
        clock.advance(Duration::from_secs(5));
        assert!(cache.is_suspect(&agent).is_none());
    }

    fn card(description: &str) -> DiscoveredCard {
        let json = format!(
            r#"{{"name":"a","description":"{description}","version":"1","supportedInterfaces":[{{"url":"http://a.example",
            "protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],"capabilities":{{"streaming":true}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
        );
        DiscoveredCard::from_bytes(
            bytes::Bytes::from(json),
            "http://a.example/x",
            crate::agent_url::WellKnownPath::AgentCard,
        )
        .unwrap()
    }

    fn fetched(etag: Option<&str>) -> Freshness {
        Freshness { no_store: false, lifetime: TTL, etag: etag.map(str::to_owned) }
    }

    #[test]
    fn a_mark_names_the_card_it_was_made_against_and_a_different_card_clears_it() {
        let cache = DiscoveryCache::default();
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), fetched(Some("\"v1\"")));
        cache.mark_suspect(&agent, Capability::Streaming, "e");
        assert_eq!(cache.is_suspect(&agent).unwrap().card_version(), Some("\"v1\""));
        cache.store(&agent, card("one"), fetched(Some("\"v1\"")));
        assert!(cache.is_suspect(&agent).is_some(), "the same card keeps the mark");
        cache.store(&agent, card("two"), fetched(Some("\"v2\"")));
        assert!(cache.is_suspect(&agent).is_none(), "a new ETag clears it");
    }

    #[test]
    fn without_an_etag_the_card_bytes_are_its_version() {
        let cache = DiscoveryCache::default();
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), fetched(None));
        cache.mark_suspect(&agent, Capability::Streaming, "e");
        let version = cache.is_suspect(&agent).unwrap().card_version().unwrap().to_owned();
        assert!(version.starts_with("fnv64:"), "{version}");
        cache.store(&agent, card("one"), fetched(None));
        assert!(cache.is_suspect(&agent).is_some());
        cache.store(&agent, card("changed"), fetched(None));
        assert!(cache.is_suspect(&agent).is_none());
    }

    fn not_kept(etag: Option<&str>) -> Freshness {
        Freshness { no_store: true, lifetime: TTL, etag: etag.map(str::to_owned) }
    }

    #[test]
    fn a_changed_no_store_card_is_a_new_card_and_clears_the_marks_made_against_the_old() {
        let cache = DiscoveryCache::default();
        let metrics = Metrics::default();
        cache.report_to(&metrics);
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), not_kept(None));
        cache.mark_suspect(&agent, Capability::Streaming, "e");
        let version = cache.is_suspect(&agent).unwrap().card_version().map(str::to_owned);
        assert!(version.is_some_and(|v| v.starts_with("fnv64:")), "the mark names the card not kept");
        cache.store(&agent, card("one"), not_kept(None));
        assert!(cache.is_suspect(&agent).is_some(), "the same no-store card keeps the mark");
        assert_eq!(metrics.snapshot().cards_changed, 0);
        cache.store(&agent, card("two"), not_kept(None));
        assert!(cache.is_suspect(&agent).is_none(), "another no-store card is a new card");
        assert_eq!(metrics.snapshot().cards_changed, 1);
    }

    #[test]
    fn a_changed_card_is_counted_once_whether_or_not_it_had_marks() {
        let cache = DiscoveryCache::default();
        let metrics = Metrics::default();
        cache.report_to(&metrics);
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), fetched(Some("\"v1\"")));
        cache.store(&agent, card("one"), fetched(Some("\"v1\"")));
        assert_eq!(metrics.snapshot().cards_changed, 0, "the first card and the same card again");
        cache.store(&agent, card("two"), fetched(Some("\"v2\"")));
        assert_eq!(metrics.snapshot().cards_changed, 1, "a new card without marks is still a change");
    }

    #[test]
    fn a_revalidated_card_with_a_new_validator_keeps_its_marks() {
        let cache = DiscoveryCache::default();
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), fetched(Some("\"v1\"")));
        cache.mark_suspect(&agent, Capability::Streaming, "e");
        assert!(cache.revalidated(&agent, fetched(Some("\"v1b\""))).is_some());
        assert_eq!(cache.is_suspect(&agent).unwrap().card_version(), Some("\"v1b\""), "304: the same card");
        cache.store(&agent, card("one"), fetched(Some("\"v1b\"")));
        assert!(cache.is_suspect(&agent).is_some());
    }

    #[test]
    fn a_shared_mark_is_applied_unless_it_was_made_against_another_card_or_is_outlasted() {
        let cache = DiscoveryCache::default();
        let replica = LocalReplica { cache: cache.clone() };
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        cache.store(&agent, card("one"), fetched(Some("\"v2\"")));
        let mark = |version: &str, ttl| SharedMark {
            claim: Capability::Streaming.into(),
            evidence: "e".into(),
            card_version: Some(version.to_owned()),
            ttl,
            marked_by: Some("other".into()),
        };
        assert!(!replica.apply_mark(&agent, mark("\"v1\"", TTL)), "made against an older card");
        assert!(cache.is_suspect(&agent).is_none());
        assert!(replica.apply_mark(&agent, mark("\"v2\"", TTL)));
        assert_eq!(cache.is_suspect(&agent).unwrap().marked_by(), Some("other"));
        assert!(!replica.apply_mark(&agent, mark("\"v2\"", Duration::from_secs(1))), "a longer mark is kept");
        assert_eq!(replica.apply_clear(&agent, Some("\"v2\"")), 0, "marks on the kept version stay");
        assert_eq!(replica.apply_clear(&agent, None), 1);
        assert!(cache.is_suspect(&agent).is_none());
    }

    #[test]
    fn shared_evidence_is_a_bounded_summary() {
        let long = "x".repeat(MAX_SHARED_EVIDENCE_CHARS * 2);
        assert_eq!(summary(&long).chars().count(), MAX_SHARED_EVIDENCE_CHARS + 1);
        assert_eq!(summary("short"), "short");
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
            crate::agent_url::WellKnownPath::AgentCard,
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
