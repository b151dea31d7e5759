//! The backend's background work: the writer (queue to Redis), the subscriber (others' events into
//! the local cache, with a periodic full re-read), card reads, and the connection both share.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use redis::AsyncConnectionConfig;
use redis::aio::MultiplexedConnection;

use super::wire::{Event, StoredCard, StoredMark, StoredUnavailable, px};
use super::{CONNECTED, DEGRADED, Inner, Queued, STALE_CARD_GRACE};
use crate::SuspectClaim;
use crate::agent_url::AgentBaseUrl;
use crate::shared::{CacheUpdate, Lease, LeaseVerdict, LocalReplica, SharedCard};
use crate::wire_caps::shared_ttl_ms;

/// The first wait before a reconnect attempt; doubled up to the configured cap.
const BACKOFF_START: Duration = Duration::from_millis(50);
/// How long the epoch key outlives the last resync that touched it.
const EPOCH_TTL: Duration = Duration::from_secs(24 * 3600);
/// Most keys one resync reads (a bound on its loop, far above any fleet's marks).
const RESYNC_MAX_KEYS: usize = 100_000;

/// Why one Redis step failed.
#[derive(Debug)]
enum Fault {
    Timeout(&'static str),
    Redis(redis::RedisError),
    SubscriptionClosed,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Timeout(what) => write!(f, "{what} timed out"),
            Self::Redis(e) => write!(f, "{e}"),
            Self::SubscriptionClosed => f.write_str("redis subscription closed"),
        }
    }
}

impl From<redis::RedisError> for Fault {
    fn from(e: redis::RedisError) -> Self {
        Self::Redis(e)
    }
}

async fn bounded<T>(
    limit: Duration,
    what: &'static str,
    future: impl Future<Output = redis::RedisResult<T>>,
) -> Result<T, Fault> {
    tokio::time::timeout(limit, future).await.map_err(|_| Fault::Timeout(what))?.map_err(Fault::from)
}

impl Inner {
    fn replica(&self) -> Option<&LocalReplica> {
        self.replica.get()
    }

    /// Records a failure: the connection is dropped (the next step reconnects) and, on the way from
    /// healthy to degraded, a warning is logged.
    fn degrade(&self, fault: &Fault) {
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = None;
        if let Some(metrics) = self.replica().and_then(LocalReplica::metrics) {
            metrics.record_shared_cache_error();
            metrics.set_shared_cache_degraded(true);
        }
        let was = self.status.swap(DEGRADED, Ordering::Relaxed);
        if was != DEGRADED {
            tracing::warn!(error = %fault, "shared cache degraded: going on with the local cache");
        } else {
            tracing::debug!(error = %fault, "shared cache still unreachable");
        }
    }

    /// Records a success; on the way back from degraded, counts a reconnect and logs it.
    fn healthy(&self) {
        let was = self.status.swap(CONNECTED, Ordering::Relaxed);
        if was == CONNECTED {
            return;
        }
        if let Some(metrics) = self.replica().and_then(LocalReplica::metrics) {
            metrics.set_shared_cache_degraded(false);
            if was == DEGRADED {
                metrics.record_shared_cache_reconnect();
            }
        }
        if was == DEGRADED {
            tracing::info!("shared cache reconnected: sharing resumes");
        }
    }

    /// The command connection, opened (bounded) when there is none.
    async fn connection(&self) -> Result<MultiplexedConnection, Fault> {
        if let Some(conn) = self.cached_conn() {
            return Ok(conn);
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.options.connect_timeout))
            .set_response_timeout(Some(self.options.op_timeout));
        let limit = self.options.connect_timeout + self.options.op_timeout;
        let conn = bounded(
            limit,
            "redis connect",
            self.client.get_multiplexed_async_connection_with_config(&config),
        )
        .await?;
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn.clone());
        Ok(conn)
    }

    /// Sleeps `wait` unless stopped first; `false` when stopped.
    async fn pause(&self, wait: Duration) -> bool {
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            () = self.stop.cancelled() => false,
        }
    }

    fn next_backoff(&self, backoff: Duration) -> Duration {
        (backoff * 2).min(self.options.reconnect_backoff_max)
    }

    /// One transaction that stores `value` under `key` for `ttl` and tells the other replicas.
    fn set_and_publish(&self, key: &str, value: &str, ttl: Duration, event: &Event) -> redis::Pipeline {
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("SET")
            .arg(key)
            .arg(value)
            .arg("PX")
            .arg(px(ttl))
            .ignore()
            .cmd("PUBLISH")
            .arg(self.keys.channel())
            .arg(serde_json::to_string(event).unwrap_or_default())
            .ignore();
        pipe
    }

    /// Writes one update: a mark with its TTL, a clear, or a card.
    async fn write(&self, queued: &Queued) -> Result<(), Fault> {
        let mut conn = self.connection().await?;
        let origin = self.replica().map(|r| r.id().to_owned()).unwrap_or_default();
        let limit = self.options.op_timeout;
        let elapsed = queued.at.elapsed();
        match &queued.update {
            CacheUpdate::Mark { agent, mark } => {
                let ttl = mark.ttl.saturating_sub(elapsed);
                if ttl.is_zero() {
                    return Ok(());
                }
                let stored = StoredMark::new(agent, mark);
                let value = serde_json::to_string(&stored).unwrap_or_default();
                let event = Event::Mark { origin, mark: stored, ttl_ms: px(ttl) };
                let pipe = self.set_and_publish(&self.keys.mark(&mark.claim, agent), &value, ttl, &event);
                bounded(limit, "redis mark write", pipe.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::Clear { agent, keep_card_version } => {
                // A card-claim mark's key names a subject digest, so the agent's keys are found by
                // pattern, and each is read to check it is this agent's.
                let keys = self.scan(&mut conn, &self.keys.agent_marks_pattern(agent)).await?.0;
                let values: Vec<Option<String>> = if keys.is_empty() {
                    Vec::new()
                } else {
                    bounded(limit, "redis mark read", redis::cmd("MGET").arg(&keys).query_async(&mut conn))
                        .await?
                };
                let doomed: Vec<String> = keys
                    .into_iter()
                    .zip(values)
                    .filter_map(|(key, value)| {
                        let stored: StoredMark = serde_json::from_str(&value?).ok()?;
                        let kept = keep_card_version
                            .as_deref()
                            .is_some_and(|keep| stored.card_version.as_deref() == Some(keep));
                        (stored.agent == agent.as_str() && !kept).then_some(key)
                    })
                    .collect();
                let event = Event::Clear {
                    origin,
                    agent: agent.as_str().to_owned(),
                    keep_card_version: keep_card_version.clone(),
                };
                let mut pipe = redis::pipe();
                pipe.atomic();
                if !doomed.is_empty() {
                    pipe.cmd("DEL").arg(&doomed).ignore();
                }
                pipe.cmd("PUBLISH")
                    .arg(self.keys.channel())
                    .arg(serde_json::to_string(&event).unwrap_or_default())
                    .ignore();
                bounded(limit, "redis clear", pipe.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::Route { agent, interface_url, ttl } => {
                let ttl = ttl.saturating_sub(elapsed);
                if ttl.is_zero() {
                    return Ok(());
                }
                let event = Event::Route {
                    origin,
                    agent: agent.as_str().to_owned(),
                    interface_url: interface_url.clone(),
                    ttl_ms: px(ttl),
                };
                let pipe = self.set_and_publish(&self.keys.route(agent), interface_url, ttl, &event);
                bounded(limit, "redis route write", pipe.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::Unavailable { agent, failures, evidence, ttl } => {
                let ttl = ttl.saturating_sub(elapsed);
                if ttl.is_zero() {
                    return Ok(());
                }
                let by = self.replica().and_then(|r| r.name().map(str::to_owned));
                let stored = StoredUnavailable {
                    agent: agent.as_str().to_owned(),
                    failures: *failures,
                    evidence: evidence.clone(),
                    by: by.clone(),
                };
                let event = Event::Unavailable {
                    origin,
                    agent: agent.as_str().to_owned(),
                    failures: *failures,
                    evidence: evidence.clone(),
                    by,
                    ttl_ms: px(ttl),
                };
                let value = serde_json::to_string(&stored).unwrap_or_default();
                let pipe = self.set_and_publish(&self.keys.unavailable(agent), &value, ttl, &event);
                bounded(limit, "redis breaker write", pipe.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::Available { agent } => {
                let event = Event::Available { origin, agent: agent.as_str().to_owned() };
                let mut pipe = redis::pipe();
                pipe.atomic()
                    .cmd("DEL")
                    .arg(self.keys.unavailable(agent))
                    .ignore()
                    .cmd("PUBLISH")
                    .arg(self.keys.channel())
                    .arg(serde_json::to_string(&event).unwrap_or_default())
                    .ignore();
                bounded(limit, "redis breaker clear", pipe.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::LeaseEnd { agent, verdict } => {
                let ended = match verdict {
                    LeaseVerdict::Verified => "done:verified",
                    LeaseVerdict::Refused => "done:refused",
                    _ => "done:none",
                };
                let command = redis::cmd("EVAL")
                    .arg(END_LEASE)
                    .arg(1)
                    .arg(self.keys.lease(agent))
                    .arg(&origin)
                    .arg(ended)
                    .arg(px(LEASE_VERDICT_TTL))
                    .to_owned();
                bounded(limit, "redis lease end", command.query_async::<()>(&mut conn)).await
            }
            CacheUpdate::Card { agent, card } => {
                let fresh_for = card.fresh_for.saturating_sub(elapsed);
                let card = SharedCard { fresh_for, ..card.clone() };
                let value = serde_json::to_string(&StoredCard::new(&card)).unwrap_or_default();
                let command = redis::cmd("SET")
                    .arg(self.keys.card(agent))
                    .arg(value)
                    .arg("PX")
                    .arg(px(fresh_for.saturating_add(STALE_CARD_GRACE)))
                    .to_owned();
                bounded(limit, "redis card write", command.query_async::<()>(&mut conn)).await
            }
        }
    }

    /// Reads the server's data generation (creating it when absent); `true` when it differs from the
    /// one this replica saw last, that is the server lost what was shared. The first look is `false`.
    async fn check_epoch(&self) -> Result<bool, Fault> {
        let mut conn = self.connection().await?;
        let limit = self.options.op_timeout;
        let key = self.keys.epoch();
        let fresh = uuid::Uuid::new_v4().simple().to_string();
        let ttl = EPOCH_TTL.as_secs();
        // Created when absent, kept alive by every resync, gone a day after the last replica left.
        let mut pipe = redis::pipe();
        pipe.cmd("SET").arg(&key).arg(&fresh).arg("NX").arg("EX").arg(ttl).ignore();
        pipe.cmd("EXPIRE").arg(&key).arg(ttl).ignore();
        pipe.cmd("GET").arg(&key);
        let (current,): (Option<String>,) =
            bounded(limit, "redis epoch", pipe.query_async(&mut conn)).await?;
        let mut seen = self.epoch.lock().unwrap_or_else(PoisonError::into_inner);
        let lost = seen.is_some() && *seen != current;
        *seen = current;
        Ok(lost)
    }

    /// Hands every unexpired mark held here back to the writer, after the server lost its data.
    fn write_back(&self) -> usize {
        let Some(replica) = self.replica() else { return 0 };
        let marks = replica.marks();
        let count = marks.len();
        for (agent, mark) in marks {
            self.enqueue(CacheUpdate::Mark { agent, mark });
        }
        count
    }

    /// Checks the server's generation, then re-reads every shared mark into the local cache (writing
    /// back what it holds instead of dropping anything when the server lost its data); returns how
    /// many marks were new here.
    async fn resync(&self) -> Result<usize, Fault> {
        if self.check_epoch().await? {
            let written = self.write_back();
            tracing::info!(
                written,
                "the shared cache server lost its data: writing back the marks held here"
            );
            return self.read_marks(false).await;
        }
        self.read_marks(true).await
    }

    /// The keys matching `pattern`, at most [`RESYNC_MAX_KEYS`]; `true` when the scan went through
    /// the whole key space (else the bound cut it).
    async fn scan(
        &self,
        conn: &mut MultiplexedConnection,
        pattern: &str,
    ) -> Result<(Vec<String>, bool), Fault> {
        let limit = self.options.op_timeout;
        let mut keys: Vec<String> = Vec::new();
        let mut cursor = 0_u64;
        loop {
            let scan =
                redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000).to_owned();
            let (next, batch): (u64, Vec<String>) =
                bounded(limit, "redis scan", scan.query_async(conn)).await?;
            keys.extend(batch);
            cursor = next;
            if cursor == 0 {
                return Ok((keys, true));
            }
            if keys.len() >= RESYNC_MAX_KEYS {
                return Ok((keys, false));
            }
        }
    }

    /// Reads the shared marks this cache does not hold into it; with `drop_missing`, received marks
    /// the server no longer has are dropped. Returns how many marks were new here.
    ///
    /// A mark held here came by its published event or was set here, so only the keys of marks not
    /// held are read: a resync costs a `SCAN` per thousand keys and the marks this replica missed,
    /// not a `GET` and a `PTTL` of every shared mark each second in every replica (figure 9 of
    /// BENCHMARKS.md: 4.4 Redis commands per task with ten replicas before). A mark refreshed
    /// elsewhere whose event was missed is read again once the copy here expires.
    async fn read_marks(&self, drop_missing: bool) -> Result<usize, Fault> {
        let Some(replica) = self.replica() else { return Ok(0) };
        let read_started = replica.now();
        let mut conn = self.connection().await?;
        let (keys, complete) = self.scan(&mut conn, &self.keys.marks_pattern()).await?;
        let held: HashMap<String, (AgentBaseUrl, SuspectClaim)> = replica
            .held_claims()
            .into_iter()
            .map(|(agent, claim)| (self.keys.mark(&claim, &agent), (agent, claim)))
            .collect();
        let mut present = HashSet::new();
        let mut missed = Vec::new();
        for key in keys {
            match held.get(&key) {
                Some(found) => {
                    present.insert(found.clone());
                }
                None => missed.push(key),
            }
        }
        let mut fresh = 0;
        if !missed.is_empty() {
            fresh = self.read_missed(&mut conn, &missed, replica, &mut present).await?;
        }
        // Only a complete read says which marks are gone.
        let dropped =
            if complete && drop_missing { replica.drop_unshared(&present, read_started) } else { 0 };
        if dropped > 0 {
            tracing::debug!(dropped, "suspect marks cleared while this replica was not listening dropped");
        }
        Ok(fresh)
    }

    /// Reads the marks under `keys` into the local cache, adding each to `present`. Returns how many
    /// were new here.
    async fn read_missed(
        &self,
        conn: &mut MultiplexedConnection,
        keys: &[String],
        replica: &LocalReplica,
        present: &mut HashSet<(AgentBaseUrl, SuspectClaim)>,
    ) -> Result<usize, Fault> {
        let mut pipe = redis::pipe();
        for key in keys {
            pipe.cmd("GET").arg(key).cmd("PTTL").arg(key);
        }
        let values: Vec<(Option<String>, i64)> =
            bounded(self.options.op_timeout, "redis marks read", pipe.query_async(conn)).await?;
        let mut fresh = 0;
        for (value, ttl_ms) in values {
            let ttl = shared_ttl_ms("PTTL", ttl_ms);
            let parsed = value.and_then(|v| serde_json::from_str::<StoredMark>(&v).ok());
            let Some((agent, mark)) = parsed.and_then(|stored| stored.into_mark(ttl)) else { continue };
            present.insert((agent.clone(), mark.claim.clone()));
            if replica.apply_mark(&agent, mark) {
                fresh += 1;
            }
        }
        Ok(fresh)
    }

    /// Applies one published event, unless this replica published it.
    fn apply_event(&self, payload: &[u8]) {
        let Some(replica) = self.replica() else { return };
        let Ok(event) = serde_json::from_slice::<Event>(payload) else {
            tracing::debug!("unreadable shared cache event ignored");
            return;
        };
        match event {
            Event::Mark { origin, mark, ttl_ms } if origin != replica.id() => {
                let Some((agent, mark)) = mark.into_mark(shared_ttl_ms("ttl_ms", ttl_ms)) else { return };
                let claim = mark.claim.clone();
                if replica.apply_mark(&agent, mark) {
                    if let Some(metrics) = replica.metrics() {
                        metrics.record_shared_mark_received();
                    }
                    tracing::debug!(agent = %agent, %claim, "suspect mark shared by another replica");
                }
            }
            Event::Clear { origin, agent, keep_card_version } if origin != replica.id() => {
                if let Ok(agent) = AgentBaseUrl::parse(&agent) {
                    let cleared = replica.apply_clear(&agent, keep_card_version.as_deref());
                    tracing::debug!(agent = %agent, cleared, "suspect marks cleared by another replica");
                }
            }
            Event::Route { origin, agent, interface_url, ttl_ms } if origin != replica.id() => {
                if let Ok(agent) = AgentBaseUrl::parse(&agent)
                    && replica.apply_route(&agent, &interface_url, shared_ttl_ms("ttl_ms", ttl_ms))
                {
                    tracing::debug!(agent = %agent, %interface_url, "answering interface shared by another replica");
                }
            }
            Event::Unavailable { origin, agent, failures, evidence, by, ttl_ms }
                if origin != replica.id() =>
            {
                if let Ok(agent) = AgentBaseUrl::parse(&agent)
                    && replica.apply_unavailable(
                        &agent,
                        failures,
                        &evidence,
                        shared_ttl_ms("ttl_ms", ttl_ms),
                        by,
                    )
                {
                    if let Some(metrics) = replica.metrics() {
                        metrics.record_shared_breaker_received();
                    }
                    tracing::debug!(agent = %agent, "availability breaker opened by another replica");
                }
            }
            Event::Available { origin, agent } if origin != replica.id() => {
                if let Ok(agent) = AgentBaseUrl::parse(&agent)
                    && replica.apply_available(&agent)
                {
                    tracing::debug!(agent = %agent, "availability breaker closed by another replica");
                }
            }
            _ => {}
        }
    }
}

/// Writes queued updates in order; on a failure the update stays at the head and the loop backs off.
pub(super) async fn write_loop(inner: Arc<Inner>) {
    let mut backoff = BACKOFF_START;
    loop {
        let head = {
            let queue = inner.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.front().map(|q| Queued { update: q.update.clone(), at: q.at })
        };
        let Some(queued) = head else {
            tokio::select! {
                () = inner.wake.notified() => continue,
                () = inner.stop.cancelled() => return,
            }
        };
        match inner.write(&queued).await {
            Ok(()) => {
                inner.healthy();
                backoff = BACKOFF_START;
                let popped = {
                    let mut queue = inner.queue.lock().unwrap_or_else(PoisonError::into_inner);
                    // The head may have been dropped for room meanwhile; pop only what was written.
                    let same = queue.front().is_some_and(|q| q.at == queued.at && q.update == queued.update);
                    same && queue.pop_front().is_some()
                };
                if popped {
                    inner.progress.send_modify(|p| p.done += 1);
                }
            }
            Err(fault) => {
                inner.degrade(&fault);
                if !inner.pause(backoff).await {
                    return;
                }
                backoff = inner.next_backoff(backoff);
            }
        }
    }
}

/// Subscribes to the events channel and applies what arrives; re-reads every mark on (re)connect and
/// each resync interval. Any failure drops the subscription, and it is made again after a backoff.
pub(super) async fn subscribe_loop(inner: Arc<Inner>) {
    let mut backoff = BACKOFF_START;
    loop {
        match subscribed(&inner).await {
            Ok(stream) => {
                backoff = BACKOFF_START;
                if !listen(&inner, stream).await {
                    return;
                }
            }
            Err(fault) => inner.degrade(&fault),
        }
        if !inner.pause(backoff).await {
            return;
        }
        backoff = inner.next_backoff(backoff);
    }
}

async fn subscribed(inner: &Inner) -> Result<redis::aio::PubSubStream, Fault> {
    let limit = inner.options.connect_timeout + inner.options.op_timeout;
    let mut pubsub = bounded(limit, "redis subscribe connect", inner.client.get_async_pubsub()).await?;
    bounded(inner.options.op_timeout, "redis subscribe", pubsub.subscribe(inner.keys.channel())).await?;
    // Subscribed first, then read: nothing published from here on is missed.
    let fresh = inner.resync().await?;
    inner.healthy();
    if fresh > 0 {
        tracing::debug!(fresh, "shared suspect marks read on subscribe");
    }
    Ok(pubsub.into_on_message())
}

/// Applies events until the subscription or a resync fails (`true`: resubscribe) or the backend
/// stops (`false`).
async fn listen(inner: &Inner, mut stream: redis::aio::PubSubStream) -> bool {
    let mut resync = tokio::time::interval(inner.options.resync_interval);
    resync.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    resync.tick().await;
    loop {
        tokio::select! {
            message = stream.next() => match message {
                Some(message) => inner.apply_event(message.get_payload_bytes()),
                None => {
                    inner.degrade(&Fault::SubscriptionClosed);
                    return true;
                }
            },
            _ = resync.tick() => match inner.resync().await {
                Ok(_) => inner.healthy(),
                Err(fault) => {
                    inner.degrade(&fault);
                    return true;
                }
            },
            () = inner.stop.cancelled() => return false,
        }
    }
}

/// The shared card of `agent`: `None` at once while degraded or not yet connected, else one `GET`
/// bounded by the op timeout.
/// Takes the lease when no one holds it (or its last holder ended with no verdict), else says who
/// holds it or how it ended. The value is the holder's replica id, or `done:` and the verdict.
const TAKE_LEASE: &str = r"
local held = redis.call('GET', KEYS[1])
if (not held) or held == 'done:none' or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'held'
end
return held
";

/// Ends the lease only if this replica holds it: the verdict stays readable for `ARGV[3]` ms.
const END_LEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
";

/// How long a lease's verdict stays readable after it ended: long enough for every waiter to read
/// it (they ask every few milliseconds); after that a refusal is carried by the mark itself.
const LEASE_VERDICT_TTL: Duration = Duration::from_secs(30);

pub(super) async fn lease(inner: &Inner, agent: &AgentBaseUrl, ttl: Duration) -> Option<Lease> {
    if inner.status.load(Ordering::Relaxed) != CONNECTED {
        return None;
    }
    let mut conn = inner.cached_conn()?;
    let holder = inner.replica()?.id().to_owned();
    let take = redis::cmd("EVAL")
        .arg(TAKE_LEASE)
        .arg(1)
        .arg(inner.keys.lease(agent))
        .arg(&holder)
        .arg(px(ttl))
        .to_owned();
    match bounded(inner.options.op_timeout, "redis lease", take.query_async::<String>(&mut conn)).await {
        Ok(answer) => Some(match answer.as_str() {
            "held" => Lease::Held,
            "done:verified" => Lease::Ended(LeaseVerdict::Verified),
            "done:refused" => Lease::Ended(LeaseVerdict::Refused),
            _ => Lease::Other,
        }),
        Err(fault) => {
            inner.degrade(&fault);
            None
        }
    }
}

pub(super) async fn load_card(inner: &Inner, agent: &AgentBaseUrl) -> Option<SharedCard> {
    if inner.status.load(Ordering::Relaxed) != CONNECTED {
        return None;
    }
    let mut conn = inner.cached_conn()?;
    let get = redis::cmd("GET").arg(inner.keys.card(agent)).to_owned();
    match bounded(inner.options.op_timeout, "redis card read", get.query_async::<Option<String>>(&mut conn))
        .await
    {
        Ok(value) => {
            let card = value
                .and_then(|v| serde_json::from_str::<StoredCard>(&v).ok())
                .and_then(StoredCard::into_card);
            if card.is_some()
                && let Some(metrics) = inner.replica().and_then(LocalReplica::metrics)
            {
                metrics.record_shared_card_loaded();
            }
            card
        }
        Err(fault) => {
            inner.degrade(&fault);
            None
        }
    }
}
