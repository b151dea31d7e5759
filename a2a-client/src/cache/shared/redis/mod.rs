//! The Redis backend: replicas share cards and suspect marks through one Redis server.
//!
//! Built on the `redis` crate's multiplexed tokio connection and its pub/sub connection, with this
//! module's own reconnect loop, so that every wait has a bound set here and a reconnect is counted.
//!
//! - A mark is one key per agent and claim (a lifecycle capability, or a card claim: an extension
//!   or an interface has a key each), set with `PX` to the mark's TTL: Redis expires it when the
//!   mark ends. It carries the claim, a short evidence summary, the version (`ETag` or digest) of
//!   the card it was made against and the replica that set it. Replicas of a version that marked
//!   capabilities only read the capability marks and skip the others; their clears leave the
//!   card-claim marks of an agent to their TTL unless the card changed (the marks then name the old
//!   card, and replicas holding the new one ignore them).
//! - Every mark and clear is also published on `{prefix}:events`; the other replicas apply it to
//!   their local cache as it arrives (p50 under 0.1 ms, p99 a few ms on loopback: BENCHMARKS.md,
//!   figure 6), and
//!   re-read every mark each [`resync_interval`](RedisBackendBuilder::resync_interval)
//!   ([`DEFAULT_RESYNC_INTERVAL`]), which also catches what was published while they were away. So
//!   a mark set by one replica is seen by a connected other within one resync interval at worst.
//! - Negotiation is single-flight across replicas: a replica about to negotiate with an agent takes
//!   its lease (`{prefix}:lease:{agent}`, `PX` the negotiation wait, so a holder that dies holds no
//!   one up past it); the others ask again every few milliseconds and, when it ends, read its
//!   verdict: a refusal (whose mark was shared before the lease ended) sends them single-shot at
//!   once, a verification lets them negotiate, no verdict lets the next one lead.
//! - A fetched card is stored with its `ETag` and freshness; another replica that misses it locally
//!   reads it (one `GET`, bounded by [`op_timeout`](RedisBackendBuilder::op_timeout)) instead of
//!   fetching it from the agent, and keeps it locally for the rest of its freshness. A task whose
//!   card is cached locally sends Redis nothing but, before a negotiation whose claims no task of
//!   this replica settled lately, one lease request (below).
//! - Down or slow: every command is bounded by the op timeout ([`DEFAULT_OP_TIMEOUT`]); after a
//!   failure the backend is [`Degraded`](BackendStatus::Degraded), card reads answer `None` at once,
//!   updates wait in a bounded queue ([`DEFAULT_QUEUE_LIMIT`], oldest dropped and counted beyond it),
//!   and both connections retry with a backoff capped at [`DEFAULT_RECONNECT_BACKOFF_MAX`]. Once
//!   back, the queue is written and the marks re-read.
//! - A key `{prefix}:epoch` names the server's data generation. A replica that finds it changed
//!   (the server restarted without its data) writes back every unexpired mark it holds, its own and
//!   those it received, so what was shared survives the restart. While it is unchanged, a full
//!   re-read drops the received marks the server no longer has (cleared while this replica was not
//!   listening). A clear made while the server was away can be undone by another replica's write-back
//!   of the same mark; such a mark ends with its TTL, and replicas that fetched the new card ignore it
//!   (it names the old card's version).
//!
//! ```no_run
//! use a2a_typestate_client::shared::redis::RedisBackend;
//! use a2a_typestate_client::{Client, DiscoveryCache};
//!
//! # async fn demo() -> Result<(), a2a_typestate_client::Error> {
//! let backend = RedisBackend::builder("redis://127.0.0.1:6379/").key_prefix("orchestrator").build()?;
//! let cache = DiscoveryCache::default().with_backend(backend)?;
//! let client = Client::builder().replica_name("replica-1").discovery_cache(cache).build()?;
//! # let _ = client;
//! # Ok(()) }
//! ```

mod tasks;
mod wire;

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use redis::aio::MultiplexedConnection;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::Error;
use crate::agent_url::AgentBaseUrl;
use crate::shared::{BackendStatus, CacheBackend, CacheUpdate, Lease, LocalReplica, SharedCard};
use wire::Keys;

/// Default bound on one Redis command (and on a card read on a task's path): 100 ms.
pub const DEFAULT_OP_TIMEOUT: Duration = Duration::from_millis(100);
/// Default bound on opening a connection: 500 ms.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// Default interval between full re-reads of the shared marks: 1 s.
pub const DEFAULT_RESYNC_INTERVAL: Duration = Duration::from_secs(1);
/// Default longest wait between reconnect attempts (the backoff starts at 50 ms and doubles): 1 s.
pub const DEFAULT_RECONNECT_BACKOFF_MAX: Duration = Duration::from_secs(1);
/// Default number of updates kept while the server is unreachable: 4,096.
pub const DEFAULT_QUEUE_LIMIT: usize = 4096;
/// Default key prefix: `a2a`.
pub const DEFAULT_KEY_PREFIX: &str = "a2a";
/// How long a shared card is kept past its freshness, as a validator for revalidation: 5 min.
pub const STALE_CARD_GRACE: Duration = Duration::from_secs(300);

/// Builds a [`RedisBackend`]; every bound has a default (the `DEFAULT_*` constants of this module).
#[derive(Clone, Debug)]
#[must_use]
pub struct RedisBackendBuilder {
    url: String,
    options: Options,
}

#[derive(Clone, Debug)]
struct Options {
    key_prefix: String,
    op_timeout: Duration,
    connect_timeout: Duration,
    resync_interval: Duration,
    reconnect_backoff_max: Duration,
    queue_limit: usize,
}

impl RedisBackendBuilder {
    /// Sets the prefix of every key and of the events channel ([`DEFAULT_KEY_PREFIX`]): replicas
    /// share what is under the same prefix.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.key_prefix = prefix.into();
        self
    }

    /// Sets the bound on one command ([`DEFAULT_OP_TIMEOUT`]).
    pub fn op_timeout(mut self, bound: Duration) -> Self {
        self.options.op_timeout = bound;
        self
    }

    /// Sets the bound on opening a connection ([`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, bound: Duration) -> Self {
        self.options.connect_timeout = bound;
        self
    }

    /// Sets how often every shared mark is re-read ([`DEFAULT_RESYNC_INTERVAL`]): the worst-case delay
    /// for a connected replica to see another's mark when its pub/sub message was missed.
    pub fn resync_interval(mut self, interval: Duration) -> Self {
        self.options.resync_interval = interval;
        self
    }

    /// Sets the longest wait between reconnect attempts ([`DEFAULT_RECONNECT_BACKOFF_MAX`]).
    pub fn reconnect_backoff_max(mut self, bound: Duration) -> Self {
        self.options.reconnect_backoff_max = bound;
        self
    }

    /// Sets how many updates wait while the server is unreachable ([`DEFAULT_QUEUE_LIMIT`]).
    pub fn queue_limit(mut self, limit: usize) -> Self {
        self.options.queue_limit = limit;
        self
    }

    /// Checks the URL and the bounds; connects nothing yet (that starts when the backend is attached).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the URL is not a Redis URL, a bound is zero or the key prefix
    /// is empty.
    pub fn build(self) -> Result<RedisBackend, Error> {
        let options = self.options;
        let bounds = [
            ("redis op timeout", options.op_timeout),
            ("redis connect timeout", options.connect_timeout),
            ("redis resync interval", options.resync_interval),
            ("redis reconnect backoff", options.reconnect_backoff_max),
        ];
        if let Some((name, _)) = bounds.iter().find(|(_, bound)| bound.is_zero()) {
            return Err(Error::config(format!("{name} must be positive")));
        }
        if options.queue_limit == 0 || options.key_prefix.is_empty() {
            return Err(Error::config("redis queue limit and key prefix must not be empty"));
        }
        let client = redis::Client::open(self.url.as_str())
            .map_err(|e| Error::config_with("not a redis url", Box::new(e)))?;
        let stop = CancellationToken::new();
        let inner = Inner {
            client,
            keys: Keys::new(&options.key_prefix),
            options,
            conn: Mutex::new(None),
            status: AtomicU8::new(CONNECTING),
            queue: Mutex::new(VecDeque::new()),
            wake: tokio::sync::Notify::new(),
            progress: tokio::sync::watch::channel(Progress::default()).0,
            replica: OnceLock::new(),
            epoch: Mutex::new(None),
            stop: stop.clone(),
        };
        Ok(RedisBackend { inner: Arc::new(inner), _stop: stop.drop_guard() })
    }
}

/// A [`CacheBackend`] on a Redis server (see the [module docs](self)). Dropping it (with the last
/// clone of the cache it is attached to) stops its background tasks.
pub struct RedisBackend {
    inner: Arc<Inner>,
    _stop: DropGuard,
}

impl fmt::Debug for RedisBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBackend")
            .field("server", &self.inner.client.get_connection_info().addr().to_string())
            .field("key_prefix", &self.inner.options.key_prefix)
            .field("status", &self.inner.status())
            .finish_non_exhaustive()
    }
}

impl RedisBackend {
    /// A builder for a backend on the server at `url` (`redis://host:port/db`).
    pub fn builder(url: impl Into<String>) -> RedisBackendBuilder {
        let options = Options {
            key_prefix: DEFAULT_KEY_PREFIX.to_owned(),
            op_timeout: DEFAULT_OP_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            resync_interval: DEFAULT_RESYNC_INTERVAL,
            reconnect_backoff_max: DEFAULT_RECONNECT_BACKOFF_MAX,
            queue_limit: DEFAULT_QUEUE_LIMIT,
        };
        RedisBackendBuilder { url: url.into(), options }
    }
}

const CONNECTING: u8 = 0;
const CONNECTED: u8 = 1;
const DEGRADED: u8 = 2;

/// Updates handed over and updates done with (written, expired before they could be, or dropped).
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    handed: u64,
    done: u64,
}

struct Queued {
    update: CacheUpdate,
    at: std::time::Instant,
}

struct Inner {
    client: redis::Client,
    keys: Keys,
    options: Options,
    /// The command connection, shared by the writer, the resync and card reads; `None` after a
    /// failure until the next connect.
    conn: Mutex<Option<MultiplexedConnection>>,
    status: AtomicU8,
    queue: Mutex<VecDeque<Queued>>,
    wake: tokio::sync::Notify,
    progress: tokio::sync::watch::Sender<Progress>,
    replica: OnceLock<LocalReplica>,
    /// The server's data generation last seen (see `tasks::Inner::check_epoch`).
    epoch: Mutex<Option<String>>,
    stop: CancellationToken,
}

impl Inner {
    fn status(&self) -> BackendStatus {
        match self.status.load(Ordering::Relaxed) {
            CONNECTED => BackendStatus::Connected,
            DEGRADED => BackendStatus::Degraded,
            _ => BackendStatus::Connecting,
        }
    }

    fn cached_conn(&self) -> Option<MultiplexedConnection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl CacheBackend for RedisBackend {
    fn start(&self, replica: LocalReplica) -> Result<(), Error> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| Error::config("the redis cache backend must be attached inside a tokio runtime"))?;
        if self.inner.replica.set(replica).is_err() {
            return Err(Error::config("the redis cache backend is already attached to a cache"));
        }
        runtime.spawn(tasks::write_loop(Arc::clone(&self.inner)));
        runtime.spawn(tasks::subscribe_loop(Arc::clone(&self.inner)));
        Ok(())
    }

    fn send(&self, update: CacheUpdate) {
        self.inner.enqueue(update);
    }

    fn load_card<'a>(&'a self, agent: &'a AgentBaseUrl) -> BoxFuture<'a, Option<SharedCard>> {
        Box::pin(tasks::load_card(&self.inner, agent))
    }

    fn flush(&self, within: Duration) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let target = self.inner.progress.borrow().handed;
            let mut watch = self.inner.progress.subscribe();
            tokio::time::timeout(within, watch.wait_for(|p| p.done >= target)).await.is_ok_and(|r| r.is_ok())
        })
    }

    fn status(&self) -> BackendStatus {
        self.inner.status()
    }

    fn lease<'a>(&'a self, agent: &'a AgentBaseUrl, ttl: Duration) -> BoxFuture<'a, Option<Lease>> {
        Box::pin(tasks::lease(&self.inner, agent, ttl))
    }
}

impl Inner {
    /// Queues an update for the writer; beyond the queue limit the oldest are dropped (and counted).
    fn enqueue(&self, update: CacheUpdate) {
        let inner = self;
        let dropped = {
            let mut queue = inner.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.push_back(Queued { update, at: std::time::Instant::now() });
            let over = queue.len().saturating_sub(inner.options.queue_limit);
            queue.drain(..over).count()
        };
        inner.progress.send_modify(|p| {
            p.handed += 1;
            p.done += dropped as u64;
        });
        if dropped > 0 {
            if let Some(metrics) = inner.replica.get().and_then(LocalReplica::metrics) {
                (0..dropped).for_each(|_| metrics.record_shared_update_dropped());
            }
            tracing::warn!(dropped, "shared cache queue full: oldest updates dropped");
        }
        inner.wake.notify_one();
    }
}
