//! Sharing what replicas learn: the backend trait behind [`DiscoveryCache`](crate::DiscoveryCache),
//! and (with the `redis` feature) a Redis backend.
//!
//! Orchestrator replicas that each run their own [`Client`](crate::Client) learn the same things
//! about the same agents: which card they serve and which of them over-declare. A backend lets them
//! share it, without putting a network round trip on a task's path:
//!
//! - **Reads are local.** `is_suspect`, `suspect_marks` and `get` read the local cache only. A card
//!   missing (or stale) locally is asked of the backend once, bounded by the backend's own timeout,
//!   before the agent is asked over HTTP; after that the card is local until its HTTP freshness ends.
//! - **Writes do not wait.** A mark, a clear or a fetched card is handed to the backend
//!   ([`CacheBackend::send`]) and written in the background; the local cache has it at once.
//! - **Marks reach the others within a bound.** Each backend documents its bound; the Redis one
//!   publishes every mark and clear (pub/sub, well under a millisecond on loopback) and re-reads every
//!   mark each resync interval (`RedisBackendBuilder::resync_interval`, 1 s by default) as a safety
//!   net.
//! - **An unreachable backend degrades, never blocks.** Tasks go on with the local cache; updates
//!   are kept (up to a bound) and written once the server is back; the state is readable with
//!   [`DiscoveryCache::backend_status`](crate::DiscoveryCache::backend_status) and counted in
//!   [`MetricsSnapshot`](crate::MetricsSnapshot).
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{AgentBaseUrl, Capability, DiscoveryCache};
//! use a2a_typestate_client::shared::{CacheUpdate, SharedMark};
//!
//! // What a backend does with a mark another replica shared: apply it to the local copy.
//! let cache = DiscoveryCache::default();
//! let agent = AgentBaseUrl::parse("http://agent.example")?;
//! let mark = SharedMark {
//!     claim: Capability::Streaming.into(),
//!     evidence: "stream ended with no artifact".into(),
//!     card_version: None,
//!     ttl: Duration::from_secs(60),
//!     marked_by: Some("replica-2".into()),
//! };
//! let update = CacheUpdate::Mark { agent: agent.clone(), mark };
//! assert!(matches!(update, CacheUpdate::Mark { .. }));
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;

use crate::agent_url::{AgentBaseUrl, WellKnownPath};
pub use crate::cache::{LocalReplica, MAX_SHARED_EVIDENCE_CHARS};
use crate::{Error, SuspectClaim};

#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;

/// A suspect mark as replicas share it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedMark {
    /// The claim the agent was caught over-declaring: a lifecycle capability or another card claim.
    pub claim: SuspectClaim,
    /// A short summary of what was observed (at most [`MAX_SHARED_EVIDENCE_CHARS`] characters).
    pub evidence: String,
    /// The version (`ETag`, or a digest) of the card the mark was made against.
    pub card_version: Option<String>,
    /// How long the mark still applies.
    pub ttl: Duration,
    /// The replica that set it, when it had a name.
    pub marked_by: Option<String>,
}

/// A fetched card as replicas share it: the bytes as served, where from, and its HTTP freshness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedCard {
    /// The card document exactly as served.
    pub raw: Bytes,
    /// The URL it was fetched from.
    pub source_url: String,
    /// Which well-known path served it.
    pub path: WellKnownPath,
    /// Its `ETag`, to revalidate it with.
    pub etag: Option<String>,
    /// How long it is still fresh (zero: revalidate before use).
    pub fresh_for: Duration,
}

/// What a cache hands its backend to share.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheUpdate {
    /// An agent was marked suspect for one claim.
    Mark {
        /// The agent.
        agent: AgentBaseUrl,
        /// The mark.
        mark: SharedMark,
    },
    /// Marks on an agent were cleared: all of them, or (after its card changed) those made against
    /// any card version other than `keep_card_version`.
    Clear {
        /// The agent.
        agent: AgentBaseUrl,
        /// The card version whose marks stay, when the clear follows a card change.
        keep_card_version: Option<String>,
    },
    /// After an interface of the agent could not be reached, another declared one answered: the
    /// next task goes there first (a route, never a mark: it says nothing about the card).
    Route {
        /// The agent.
        agent: AgentBaseUrl,
        /// The URL of the interface that answered, as the card writes it.
        interface_url: String,
        /// How long to go there first.
        ttl: Duration,
    },
    /// A card was fetched or revalidated.
    Card {
        /// The agent.
        agent: AgentBaseUrl,
        /// The card and its freshness.
        card: SharedCard,
    },
    /// An agent's availability breaker opened here: tasks in a row to it ended in a transport
    /// fault (see [`Breaker`](crate::Breaker)). Never a mark: it says nothing about the card.
    Unavailable {
        /// The agent.
        agent: AgentBaseUrl,
        /// Tasks in a row that ended in a transport fault.
        failures: u32,
        /// The last fault, in words (at most [`MAX_SHARED_EVIDENCE_CHARS`] characters).
        evidence: String,
        /// How long it stays open.
        ttl: Duration,
    },
    /// An agent's breaker closed here: the agent answered.
    Available {
        /// The agent.
        agent: AgentBaseUrl,
    },
    /// This replica's negotiation with an agent ended ([`CacheBackend::lease`]): its lease ends
    /// with the verdict, written after every update handed over before it (a refusal's mark is
    /// shared before the lease says "refused").
    LeaseEnd {
        /// The agent.
        agent: AgentBaseUrl,
        /// What the negotiation came to.
        verdict: LeaseVerdict,
    },
}

/// What [`CacheBackend::lease`] answers: the shared half of single-flight negotiation (see
/// [`ClientBuilder::negotiation_wait`](crate::ClientBuilder::negotiation_wait)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lease {
    /// This replica holds the lease now: it negotiates, the others wait.
    Held,
    /// Another replica holds it: wait, and ask again.
    Other,
    /// The last holder's negotiation ended with this verdict (no one holds it now).
    Ended(LeaseVerdict),
}

/// How a negotiation under a lease ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeaseVerdict {
    /// The claims negotiated held: the others negotiate as usual.
    Verified,
    /// A claim was refused: the agent is marked, and the mark is shared.
    Refused,
    /// No verdict (an error, a transport fault): the next replica to ask leads.
    None,
}

/// Whether a shared backend is reachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendStatus {
    /// Not connected yet since it started.
    Connecting,
    /// Connected: updates are written and others' marks arrive.
    Connected,
    /// The server is unreachable or slow: the local cache carries on alone, updates wait (bounded)
    /// and the backend reconnects on its own.
    Degraded,
}

impl fmt::Display for BackendStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::Degraded => "degraded",
        })
    }
}

/// Where replicas share cards and suspect marks. Attached with
/// [`DiscoveryCache::with_backend`](crate::DiscoveryCache::with_backend).
///
/// Nothing here may put a wait on a task's path beyond a small bound: [`send`](Self::send) returns at
/// once, and [`load_card`](Self::load_card) is bounded by the backend (and should answer `None` at
/// once while the backend is degraded).
pub trait CacheBackend: Send + Sync + fmt::Debug + 'static {
    /// Called once, when attached: start keeping `replica` in step with the other replicas.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the backend cannot start at all.
    fn start(&self, replica: LocalReplica) -> Result<(), Error>;

    /// Hands an update over for sharing; must not block nor wait on the network.
    fn send(&self, update: CacheUpdate);

    /// The shared copy of `agent`'s card, or `None` (absent, unreachable, or past the bound).
    fn load_card<'a>(&'a self, agent: &'a AgentBaseUrl) -> BoxFuture<'a, Option<SharedCard>>;

    /// Waits at most `within` until every update handed over so far is written; `true` when it is.
    fn flush(&self, within: Duration) -> BoxFuture<'_, bool>;

    /// Whether the backend is reachable now.
    fn status(&self) -> BackendStatus;

    /// Asks for `agent`'s negotiation lease, held for at most `ttl` unless ended before (with
    /// [`CacheUpdate::LeaseEnd`]): so a holder that dies holds no one up past `ttl`. `None` when
    /// the backend cannot say (unreachable, slow, or it has no leases, as by default): the replica
    /// then negotiates on its own.
    fn lease<'a>(&'a self, agent: &'a AgentBaseUrl, ttl: Duration) -> BoxFuture<'a, Option<Lease>> {
        let _ = (agent, ttl);
        Box::pin(async { None })
    }
}
