//! Replicas sharing what they learn through a real redis-server: three clients with separate local
//! caches and one Redis, against scripted agents that lie. After the first refusal on any replica
//! the others send that agent single-shot at once; marks expire with their TTL in Redis and on every
//! replica; a changed card clears its mark; a killed server loses no task, and sharing resumes after
//! a restart.

mod negotiation_common;
mod redis_common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{AgentBaseUrl, BackendStatus, Capability, Client, DiscoveryCache, ErrorKind};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use negotiation_common::{builder, count, ms, spawn, text};
use redis::AsyncCommands;

/// The longest a mark may take to reach a connected replica: one resync interval (the backend's
/// default, 1 s) plus scheduling slack. Pub/sub normally delivers in milliseconds (printed).
const SHARING_BOUND: Duration = Duration::from_millis(1500);

fn replica(url: &str, prefix: &str, name: &str, suspect_ttl: Duration) -> Client {
    let backend =
        RedisBackend::builder(url).key_prefix(prefix).reconnect_backoff_max(ms(200)).build().unwrap();
    let cache = DiscoveryCache::new(Duration::from_secs(300), suspect_ttl).with_backend(backend).unwrap();
    builder().replica_name(name).discovery_cache(cache).build().unwrap()
}

fn replicas(url: &str, prefix: &str, suspect_ttl: Duration) -> [Client; 3] {
    ["replica-a", "replica-b", "replica-c"].map(|name| replica(url, prefix, name, suspect_ttl))
}

/// Polls `done` every 5 ms for at most `bound`; how long it took, or `None`.
async fn within(bound: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < bound {
        if done() {
            return Some(started.elapsed());
        }
        tokio::time::sleep(ms(5)).await;
    }
    done().then(|| started.elapsed())
}

async fn connected(clients: &[Client]) {
    for client in clients {
        let up = within(Duration::from_secs(5), || {
            client.discovery_cache().backend_status() == Some(BackendStatus::Connected)
        })
        .await;
        assert!(up.is_some(), "{:?} never connected to redis", client.metrics().snapshot().replica);
    }
}

fn base(agent: &RunningAgent) -> AgentBaseUrl {
    AgentBaseUrl::parse(&agent.base_url()).unwrap()
}

async fn redis_conn(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap()
}

fn mark_key(prefix: &str, capability: Capability, agent: &AgentBaseUrl) -> String {
    format!("{prefix}:suspect:{}:{}", capability.card_field(), agent.as_str())
}

fn streaming() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming])
}

fn history() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_first_refusal_on_any_replica_the_others_send_that_agent_single_shot_at_once() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("first-refusal");
    let refuser = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let forgetter =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::EmptyHistory)).await;
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let [a, b, c] = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&[a.clone(), b.clone(), c.clone()]).await;

    // Replica A meets the refuser first; B meets the forgetter first.
    let first = a.run_task(&refuser.base_url(), text("one"), &streaming()).await.unwrap();
    assert_eq!(first.path, TaskPath::Fallback);
    let marked_at = Instant::now();
    let seen = within(SHARING_BOUND, || {
        b.discovery_cache().is_suspect(&base(&refuser)).is_some()
            && c.discovery_cache().is_suspect(&base(&refuser)).is_some()
    })
    .await;
    let seen =
        seen.unwrap_or_else(|| panic!("replicas b and c did not see a's mark within {SHARING_BOUND:?}"));
    eprintln!("a's mark seen on b and c {seen:?} after its task returned ({:?} since)", marked_at.elapsed());
    // A caller relying on the history it cannot get abandons the task (a definite error), marked.
    let forgot = b.run_task(&forgetter.base_url(), text("two"), &history()).await.unwrap_err();
    assert_eq!(forgot.kind(), ErrorKind::LifecycleViolation);
    within(SHARING_BOUND, || {
        a.discovery_cache().is_suspect(&base(&forgetter)).is_some()
            && c.discovery_cache().is_suspect(&base(&forgetter)).is_some()
    })
    .await
    .expect("a and c see b's mark");

    let streams_before = count(&refuser, "SendStreamingMessage");
    let forgetter_streams_before = count(&forgetter, "SendStreamingMessage");
    for (client, n) in [(&b, 1), (&c, 2)] {
        let outcome =
            client.run_task(&refuser.base_url(), text(&format!("r{n}")), &streaming()).await.unwrap();
        let TaskPath::SingleShotBecauseSuspect(mark) = &outcome.path else { panic!("{:?}", outcome.path) };
        assert_eq!(mark.capability(), Some(Capability::Streaming));
        assert_eq!(mark.marked_by(), Some("replica-a"), "the mark says which replica set it");
        assert!(mark.card_version().is_some(), "the mark names the card it was made against");
        assert_eq!(outcome.negotiation_round_trips, 0);
    }
    for client in [&a, &c] {
        let outcome = client.run_task(&forgetter.base_url(), text("f"), &history()).await.unwrap();
        assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)), "{:?}", outcome.path);
        assert_eq!(outcome.negotiation_round_trips, 0);
    }
    assert_eq!(
        count(&refuser, "SendStreamingMessage"),
        streams_before,
        "nobody negotiated with the refuser again"
    );
    assert_eq!(count(&forgetter, "SendStreamingMessage"), forgetter_streams_before);

    // An honest agent is not caught up in it: every replica negotiates with it.
    for client in [&a, &b, &c] {
        let outcome = client.run_task(&honest.base_url(), text("h"), &streaming()).await.unwrap();
        assert_eq!(outcome.path, TaskPath::Negotiated);
        assert!(outcome.negotiation_round_trips > 0);
    }
    // Across the three replicas, one refusal per lying agent: the waste was paid once.
    let refusals: u64 =
        [&a, &b, &c].iter().map(|c| c.metrics().snapshot().refusals.values().sum::<u64>()).sum();
    assert_eq!(refusals, 2);
    let received: u64 = [&a, &b, &c].iter().map(|c| c.metrics().snapshot().shared_marks_received).sum();
    assert!(received >= 2, "marks arrived by pub/sub: {received}");

    // The marks are Redis keys with the capability, the evidence summary and the card version.
    let mut conn = redis_conn(&url).await;
    let stored: String = conn.get(mark_key(&prefix, Capability::Streaming, &base(&refuser))).await.unwrap();
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["capability"], "streaming");
    assert_eq!(stored["marked_by"], "replica-a");
    assert!(stored["evidence"].as_str().is_some_and(|e| !e.is_empty() && e.chars().count() <= 241));
    assert!(stored["card_version"].as_str().is_some_and(|v| !v.is_empty()));
    for agent in [refuser, forgetter, honest] {
        agent.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_read_by_one_replica_is_read_from_redis_by_the_others_with_its_etag() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("cards");
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let [a, b, _c] = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&[a.clone(), b.clone()]).await;
    let card = a.discover(&agent.base_url()).await.unwrap();
    assert!(a.discovery_cache().flush_shared(Duration::from_secs(2)).await);
    let fetches = agent.requests().len();

    let shared = b.discover(&agent.base_url()).await.unwrap();

    assert_eq!(shared.raw(), card.raw());
    assert_eq!(agent.requests().len(), fetches, "b read the card from redis, not from the agent");
    assert_eq!(b.metrics().snapshot().shared_cards_loaded, 1);
    let cached = b.discovery_cache().get(&base(&agent)).unwrap();
    assert!(cached.is_fresh());
    assert_eq!(cached.etag(), a.discovery_cache().get(&base(&agent)).unwrap().etag());
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspect_mark_expires_with_its_ttl_in_redis_and_on_every_replica() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("ttl");
    let refuser = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let ttl = ms(1200);
    let [a, b, c] = replicas(&url, &prefix, ttl);
    connected(&[a.clone(), b.clone(), c.clone()]).await;
    a.run_task(&refuser.base_url(), text("one"), &streaming()).await.unwrap();
    within(SHARING_BOUND, || b.discovery_cache().is_suspect(&base(&refuser)).is_some())
        .await
        .expect("b sees it");
    let mut conn = redis_conn(&url).await;
    let key = mark_key(&prefix, Capability::Streaming, &base(&refuser));
    let pttl: i64 = conn.pttl(&key).await.unwrap();
    assert!(pttl > 0 && pttl <= 1200, "the mark's key expires with the mark: PTTL {pttl} ms");

    tokio::time::sleep(ttl + ms(200)).await;

    let exists: bool = conn.exists(&key).await.unwrap();
    assert!(!exists, "redis expired the mark");
    for client in [&a, &b, &c] {
        assert!(client.discovery_cache().is_suspect(&base(&refuser)).is_none());
    }
    let again = c.run_task(&refuser.base_url(), text("two"), &streaming()).await.unwrap();
    assert_eq!(again.path, TaskPath::Fallback, "negotiated again after the ttl, and refused again");
    assert!(again.negotiation_round_trips > 0);
    refuser.shutdown().await;
}

/// A card server whose card can be replaced: `ETag` per version, `no-cache` (every discovery
/// revalidates), `304` on a matching `If-None-Match`.
#[derive(Clone)]
struct SwitchableCard {
    card: Arc<Mutex<(String, serde_json::Value)>>,
}

impl SwitchableCard {
    async fn serve(card: serde_json::Value) -> (Self, String) {
        let this = Self { card: Arc::new(Mutex::new(("\"v1\"".to_owned(), card))) };
        let state = this.clone();
        let app = axum::Router::new().route(
            "/.well-known/agent-card.json",
            axum::routing::get(move |headers: HeaderMap| {
                let state = state.clone();
                async move { state.answer(&headers) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (this, format!("http://{addr}"))
    }

    fn answer(&self, headers: &HeaderMap) -> Response {
        let (etag, card) = self.card.lock().unwrap().clone();
        let cache = [(header::ETAG, etag.clone()), (header::CACHE_CONTROL, "no-cache".to_owned())];
        if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
            return (StatusCode::NOT_MODIFIED, cache).into_response();
        }
        (cache, axum::Json(card)).into_response()
    }

    fn replace(&self, etag: &str, card: serde_json::Value) {
        *self.card.lock().unwrap() = (etag.to_owned(), card);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_card_clears_its_mark_on_every_replica_and_in_redis() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("changed-card");
    let model = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let (server, agent_url) = SwitchableCard::serve(model.card().clone()).await;
    let agent = AgentBaseUrl::parse(&agent_url).unwrap();
    let [a, b, c] = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&[a.clone(), b.clone(), c.clone()]).await;
    for client in [&a, &b, &c] {
        client.discover(&agent_url).await.unwrap();
    }
    a.discovery_cache().mark_suspect(&agent, Capability::Streaming, "stream ended with no artifact");
    within(SHARING_BOUND, || {
        b.discovery_cache().is_suspect(&agent).is_some() && c.discovery_cache().is_suspect(&agent).is_some()
    })
    .await
    .expect("b and c see the mark");
    assert_eq!(b.discovery_cache().is_suspect(&agent).unwrap().card_version(), Some("\"v1\""));
    a.discover(&agent_url).await.unwrap();
    assert!(a.discovery_cache().is_suspect(&agent).is_some(), "an unchanged card (304) keeps the mark");

    let mut changed = model.card().clone();
    changed["description"] = serde_json::Value::from("now without the lie");
    server.replace("\"v2\"", changed);
    a.discover(&agent_url).await.unwrap();

    assert!(a.discovery_cache().is_suspect(&agent).is_none(), "the new card cleared a's mark");
    let cleared = within(SHARING_BOUND, || {
        b.discovery_cache().is_suspect(&agent).is_none() && c.discovery_cache().is_suspect(&agent).is_none()
    })
    .await;
    assert!(cleared.is_some(), "b and c dropped the mark made against the old card");
    assert!(a.discovery_cache().flush_shared(Duration::from_secs(2)).await);
    let exists: bool =
        redis_conn(&url).await.exists(mark_key(&prefix, Capability::Streaming, &agent)).await.unwrap();
    assert!(!exists, "the mark's key is gone from redis");
    model.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_mid_run_loses_no_task_and_sharing_resumes_after_a_restart() {
    let Some(mut server) = redis_common::own_server() else { return };
    let url = server.url();
    let prefix = redis_common::prefix("killed");
    let refuser = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let forgetter =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::EmptyHistory)).await;
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let clients = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&clients).await;
    let [a, b, c] = clients.clone();
    a.run_task(&refuser.base_url(), text("before"), &streaming()).await.unwrap();
    within(SHARING_BOUND, || c.discovery_cache().is_suspect(&base(&refuser)).is_some())
        .await
        .expect("shared");

    server.kill();

    // Every replica keeps running tasks; each must end (ok or a definite error) well inside the
    // bound, and none may wait on the dead server.
    let targets = [(&refuser, streaming()), (&honest, streaming()), (&forgetter, history())];
    let mut ended = 0;
    let mut slowest = Duration::ZERO;
    for round in 0..4 {
        for client in &clients {
            for (agent, negotiation) in &targets {
                // The forgetter is left to replica a while the server is down (its mark must wait).
                if agent.base_url() == forgetter.base_url()
                    && client.metrics().snapshot().replica.as_deref() != Some("replica-a")
                {
                    continue;
                }
                let started = Instant::now();
                let agent_url = agent.base_url();
                let run = client.run_task(&agent_url, text(&format!("down {round}")), negotiation);
                let outcome = tokio::time::timeout(Duration::from_secs(10), run).await;
                let outcome = outcome.unwrap_or_else(|_| panic!("a task waited past 10 s with redis down"));
                let definite = match &outcome {
                    Ok(_) => true,
                    Err(error) => error.kind() == ErrorKind::LifecycleViolation,
                };
                assert!(definite, "{outcome:?}");
                slowest = slowest.max(started.elapsed());
                ended += 1;
            }
        }
    }
    assert_eq!(ended, 4 * (3 * 2 + 1), "every task sent ended");
    eprintln!("slowest task with redis down: {slowest:?}");
    for client in &clients {
        assert_eq!(client.discovery_cache().backend_status(), Some(BackendStatus::Degraded));
        let snapshot = client.metrics().snapshot();
        assert!(snapshot.shared_cache_degraded && snapshot.shared_cache_errors > 0, "{snapshot:?}");
    }
    assert!(a.discovery_cache().is_suspect(&base(&forgetter)).is_some(), "a learned locally meanwhile");
    assert!(b.discovery_cache().is_suspect(&base(&forgetter)).is_none(), "and could not share it yet");
    assert!(b.discovery_cache().is_suspect(&base(&refuser)).is_some(), "what was shared before stays");

    server.restart();

    let resumed = within(Duration::from_secs(5), || {
        b.discovery_cache().is_suspect(&base(&forgetter)).is_some()
            && c.discovery_cache().is_suspect(&base(&forgetter)).is_some()
    })
    .await;
    let resumed = resumed.expect("the mark a set while redis was down reached b and c after the restart");
    eprintln!("sharing resumed {resumed:?} after the restart");
    for client in &clients {
        assert_eq!(client.discovery_cache().backend_status(), Some(BackendStatus::Connected));
        let snapshot = client.metrics().snapshot();
        assert!(!snapshot.shared_cache_degraded && snapshot.shared_cache_reconnects >= 1, "{snapshot:?}");
    }
    let outcome = b.run_task(&forgetter.base_url(), text("after"), &history()).await.unwrap();
    assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)), "{:?}", outcome.path);
    assert_eq!(count(&forgetter, "SendStreamingMessage"), 1, "only a ever negotiated with the forgetter");

    // The restarted server had none of the marks shared before the kill; the replicas wrote back
    // what they held, and nobody forgot the refuser over the next resyncs.
    let key = mark_key(&prefix, Capability::Streaming, &base(&refuser));
    let mut conn = redis_conn(&url).await;
    let mut back = false;
    for _ in 0..60 {
        back = conn.exists(&key).await.unwrap();
        if back {
            break;
        }
        tokio::time::sleep(ms(50)).await;
    }
    assert!(back, "the refuser's mark is in redis again after the restart");
    tokio::time::sleep(ms(2500)).await;
    for client in &clients {
        assert!(
            client.discovery_cache().is_suspect(&base(&refuser)).is_some(),
            "a mark was lost in the restart"
        );
    }
    for agent in [refuser, forgetter, honest] {
        agent.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_never_holds_a_task_up() {
    // Nothing listens on the port: the backend stays degraded and tasks run on the local cache.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("redis://127.0.0.1:{port}/");
    let refuser = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = replica(&url, "a2a-test-unreachable", "lonely", Duration::from_secs(3600));
    let started = Instant::now();
    let first = client.run_task(&refuser.base_url(), text("one"), &streaming()).await.unwrap();
    let second = client.run_task(&refuser.base_url(), text("two"), &streaming()).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(first.path, TaskPath::Fallback);
    assert!(matches!(second.path, TaskPath::SingleShotBecauseSuspect(_)), "the local cache still works");
    assert!(!client.discovery_cache().flush_shared(ms(300)).await, "nothing could be written");
    assert_ne!(client.discovery_cache().backend_status(), Some(BackendStatus::Connected));
    refuser.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_received_mark_cleared_behind_a_replicas_back_is_dropped_at_its_next_resync() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("missed-clear");
    let [a, b, _c] = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&[a.clone(), b.clone()]).await;
    let agent = AgentBaseUrl::parse("http://127.0.0.1:9/missed").unwrap();
    a.discovery_cache().mark_suspect(&agent, Capability::PushNotifications, "no callback within 2s");
    within(SHARING_BOUND, || b.discovery_cache().is_suspect(&agent).is_some()).await.expect("b sees it");

    // Deleted with no event published: what a replica that missed the clear is left with.
    let _: () =
        redis_conn(&url).await.del(mark_key(&prefix, Capability::PushNotifications, &agent)).await.unwrap();

    let dropped =
        within(Duration::from_millis(2500), || b.discovery_cache().is_suspect(&agent).is_none()).await;
    assert!(dropped.is_some(), "b still holds a mark the server no longer has");
    assert!(a.discovery_cache().is_suspect(&agent).is_some(), "a keeps the mark it set itself");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_server_costs_a_task_at_most_the_op_timeout() {
    let Some(server) = redis_common::own_server_with(&["--enable-debug-command", "local"]) else { return };
    let url = server.url();
    let prefix = redis_common::prefix("stalled");
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let [a, b, _c] = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&[a.clone(), b.clone()]).await;
    a.discover(&agent.base_url()).await.unwrap();
    assert!(a.discovery_cache().flush_shared(Duration::from_secs(2)).await);
    let (agent_url, negotiation) = (agent.base_url(), streaming());
    let quick = b.run_task(&agent_url, text("warm"), &negotiation);
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), quick).await.unwrap().unwrap();
    let connected_task = started.elapsed();
    b.discovery_cache().invalidate(&base(&agent));

    // The server stops answering for 3 s (it does not close the connections).
    let stall = tokio::spawn({
        let url = url.clone();
        async move {
            let mut conn = redis_conn(&url).await;
            let _: redis::RedisResult<()> =
                redis::cmd("DEBUG").arg("SLEEP").arg(3).query_async(&mut conn).await;
        }
    });
    tokio::time::sleep(ms(100)).await;
    let started = Instant::now();
    a.discovery_cache().mark_suspect(&base(&agent), Capability::Streaming, "marked while the server stalls");
    let marking = started.elapsed();
    let started = Instant::now();
    let run = b.run_task(&agent_url, text("stalled"), &negotiation);
    let outcome = tokio::time::timeout(Duration::from_secs(10), run).await.unwrap().unwrap();
    let stalled_task = started.elapsed();
    eprintln!(
        "task with redis answering: {connected_task:?}; with redis stalled: {stalled_task:?}; mark_suspect: {marking:?}"
    );

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(marking < ms(20), "marking waits on nothing: {marking:?}");
    assert!(
        stalled_task < connected_task + ms(600),
        "the card read from redis waited past its bound: {stalled_task:?} (with redis answering {connected_task:?})"
    );
    assert_eq!(b.discovery_cache().backend_status(), Some(BackendStatus::Degraded));
    assert!(b.metrics().snapshot().shared_cache_errors > 0);
    stall.await.unwrap();
    let back = within(Duration::from_secs(5), || {
        b.discovery_cache().backend_status() == Some(BackendStatus::Connected)
            && b.discovery_cache().is_suspect(&base(&agent)).is_some()
    })
    .await;
    assert!(back.is_some(), "after the stall b reconnected and got the mark a set during it");
    agent.shutdown().await;
    drop(server);
}

/// Four tasks from each of three replicas, all at once, to one agent; each task's outcome.
async fn at_once_from_every_replica(clients: &[Client], agent: &RunningAgent) -> Vec<TaskPath> {
    let mut runs = Vec::new();
    for (r, client) in clients.iter().enumerate() {
        for n in 0..4 {
            let (client, url) = (client.clone(), agent.base_url());
            runs.push(tokio::spawn(async move {
                client.run_task(&url, text(&format!("replica {r} task {n}")), &streaming()).await
            }));
        }
    }
    let mut paths = Vec::new();
    for run in runs {
        let outcome = run.await.unwrap().expect("every task ends in an outcome");
        assert!(outcome.text().is_some(), "every task has its answer: {outcome}");
        paths.push(outcome.path);
    }
    paths
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_negotiating_with_a_lying_agent_at_once_are_refused_once_and_the_rest_go_single_shot() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("single-flight");
    // The lie shows at the stream's end: the first negotiation takes the whole task.
    let script = Script::honest().with(Lie::StreamWithoutArtifact).step_delay(ms(50));
    let liar = spawn(Capabilities::none().with_streaming(), script).await;
    let clients = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&clients).await;

    let paths = at_once_from_every_replica(&clients, &liar).await;

    let refusals: u64 = clients.iter().map(|c| c.metrics().snapshot().refusals.values().sum::<u64>()).sum();
    assert_eq!(refusals, 1, "one refusal across the replicas: {paths:?}");
    assert_eq!(count(&liar, "SendStreamingMessage"), 1, "one negotiation reached the agent");
    let single_shot = paths.iter().filter(|p| matches!(p, TaskPath::SingleShotBecauseSuspect(_))).count();
    assert_eq!(single_shot, paths.len() - 1, "{paths:?}");
    assert_eq!(liar.executions(), paths.len() as u64, "each task's work ran once");
    liar.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_negotiating_with_an_honest_agent_at_once_all_negotiate_and_none_marks_it() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("single-flight-honest");
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest().step_delay(ms(50))).await;
    let clients = replicas(&url, &prefix, Duration::from_secs(3600));
    connected(&clients).await;

    let paths = at_once_from_every_replica(&clients, &honest).await;

    assert!(paths.iter().all(|p| *p == TaskPath::Negotiated), "{paths:?}");
    assert!(clients.iter().all(|c| c.discovery_cache().suspect_agents().is_empty()));
    assert_eq!(count(&honest, "SendStreamingMessage"), paths.len(), "each task checks what it relies on");
    honest.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_whose_holder_died_holds_no_replica_up_past_its_bound() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("dead-holder");
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let backend = RedisBackend::builder(&url).key_prefix(&prefix).build().unwrap();
    let cache = DiscoveryCache::default().with_backend(backend).unwrap();
    let client = builder().negotiation_wait(ms(300)).discovery_cache(cache).build().unwrap();
    connected(std::slice::from_ref(&client)).await;
    // A replica that took the lease and died: its key lives out the bound it was taken for.
    let mut conn = redis_conn(&url).await;
    let lease = format!("{prefix}:lease:{}", base(&agent).as_str());
    redis::cmd("SET")
        .arg(&lease)
        .arg("a-dead-replica")
        .arg("PX")
        .arg(300)
        .query_async::<()>(&mut conn)
        .await
        .unwrap();
    let started = Instant::now();

    let outcome = client.run_task(&agent.base_url(), text("after the dead"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome}");
    assert!(outcome.verified.contains(Capability::Streaming));
    let took = started.elapsed();
    assert!(took >= ms(250), "a live lease was respected: {took:?}");
    assert!(took < Duration::from_secs(5), "and no longer than its bound: {took:?}");
    agent.shutdown().await;
}
