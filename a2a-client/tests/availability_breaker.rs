//! The availability breaker, on every binding, alone and shared through Redis: an agent whose
//! tasks keep ending in a transport fault is held unavailable for a cool-down, tasks to it fail at
//! once with a transport error naming the breaker and sending nothing, one probe past the cool-down
//! decides, and nothing of it is ever a mark on the card.
//!
//! The agent under test answers its first operations `503 Service Unavailable` (the card stays
//! readable, as behind a gateway whose backend is down), then recovers: how many it refuses is
//! counted on the agent, so each test knows what reached it.

mod negotiation_common;
mod redis_common;

use std::time::{Duration, Instant};

use a2a_testkit::{Binding, Capabilities, Fault, Protocol, RunningAgent, Script, ScriptedAgent, Times};
use a2a_typestate::{Claims, Streaming};
use a2a_typestate_client::negotiate::{Negotiation, TaskOutcome};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{
    AgentBaseUrl, BackendStatus, Breaker, Client, DiscoveryCache, Error, ErrorKind, RetryPolicy, TaskEntry,
    TransportFault,
};
use negotiation_common::{builder, ms, text};

/// Tasks in a row that open the breaker in these tests.
const OPENS_AFTER: u32 = 3;
/// The cool-down: long enough that the fail-fast tasks below fall inside it.
const COOL_DOWN: Duration = Duration::from_millis(600);

/// An agent speaking `binding` first that answers its first `refused` operations 503.
async fn down_for(binding: Binding, refused: u32) -> RunningAgent {
    let rest = Binding::ALL.into_iter().filter(|b| *b != binding);
    ScriptedAgent::builder()
        .protocol(Protocol::V1_0)
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with_fault(Fault::ServiceUnavailable(Times::First(refused))))
        .bindings(std::iter::once(binding).chain(rest))
        .spawn()
        .await
        .unwrap()
}

/// A client (a replica when `shared` names a Redis and a key prefix) whose sends are not retried,
/// so each task costs the agent one operation, and whose breaker opens after [`OPENS_AFTER`].
fn client(shared: Option<(&str, &str, &str)>) -> Client {
    let builder = builder()
        .retry_policy(RetryPolicy::no_retry())
        .availability_breaker(Breaker::after(OPENS_AFTER).cool_down(COOL_DOWN));
    let Some((url, prefix, name)) = shared else { return builder.build().unwrap() };
    let backend =
        RedisBackend::builder(url).key_prefix(prefix).reconnect_backoff_max(ms(200)).build().unwrap();
    let cache = DiscoveryCache::default().with_backend(backend).unwrap();
    builder.replica_name(name).discovery_cache(cache).build().unwrap()
}

/// Operations the agent received (card fetches left out).
fn operations(agent: &RunningAgent) -> usize {
    agent.requests().iter().filter(|r| r.operation.is_some()).count()
}

async fn task(client: &Client, agent: &RunningAgent) -> Result<TaskOutcome, Error> {
    client.run_task(&agent.base_url(), text("hello"), &Negotiation::default()).await
}

/// Polls `done` every 5 ms for at most `bound`.
async fn within(bound: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < bound {
        if done() {
            return true;
        }
        tokio::time::sleep(ms(5)).await;
    }
    done()
}

/// Nothing the breaker did is a mark: no claim of the card is suspect, and a typed handle that
/// depends on streaming is still handed out as claimed.
async fn assert_no_mark(client: &Client, agent: &RunningAgent) {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().suspect_marks(&base).is_empty(), "a breaker is never a mark");
    assert_eq!(client.metrics().snapshot().suspect_marks_set, 0);
    let entry = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap();
    assert!(matches!(entry, TaskEntry::Claimed(_)), "the card's claims stand");
}

/// The fail-fast error: a transport error that names the breaker and when a task may go again,
/// and sent nothing.
fn assert_fails_fast(error: &Error, sent_before: usize, agent: &RunningAgent) {
    assert_eq!(error.kind(), ErrorKind::Transport, "{error}");
    let held = error.unavailable().unwrap_or_else(|| panic!("not the breaker: {error}"));
    assert!(held.reopens_in() <= COOL_DOWN, "{held:?}");
    assert!(held.failures() >= OPENS_AFTER, "{held:?}");
    let message = error.to_string();
    assert!(message.contains("availability breaker is open"), "{message}");
    assert!(message.contains("probes it in"), "{message}");
    assert!(message.contains(&agent.base_url()), "{message}");
    assert!(!error.is_retryable(), "{message}");
    assert_eq!(operations(agent), sent_before, "nothing was sent");
}

async fn opens_after_faults_in_a_row_fails_fast_and_one_probe_closes_it(binding: Binding) {
    let agent = down_for(binding, OPENS_AFTER).await;
    let client = client(None);
    for n in 0..OPENS_AFTER {
        let error = task(&client, &agent).await.unwrap_err();
        assert!(
            matches!(error.transport_fault(), Some(TransportFault::Unavailable(503))),
            "{binding:?} task {n}: {error}"
        );
    }
    assert_eq!(operations(&agent), OPENS_AFTER as usize, "{binding:?}: one operation per task");

    let error = task(&client, &agent).await.unwrap_err();
    assert_fails_fast(&error, OPENS_AFTER as usize, &agent);
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.breakers_opened, metrics.breaker_fail_fast), (1, 1), "{binding:?}");
    assert_no_mark(&client, &agent).await;

    tokio::time::sleep(COOL_DOWN).await;
    let probe = task(&client, &agent).await.unwrap_or_else(|e| panic!("{binding:?}: the probe: {e}"));
    assert!(probe.state().is_some_and(|s| s.is_terminal()), "{binding:?}");
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.breaker_probes, metrics.breakers_closed), (1, 1), "{binding:?}");
    assert!(client.discovery_cache().unavailable(&probe.agent).is_none());
    task(&client, &agent).await.unwrap_or_else(|e| panic!("{binding:?}: closed again: {e}"));
    assert_eq!(agent.executions(), 2, "{binding:?}: the probe and the task after it ran, nothing else");
    agent.shutdown().await;
}

async fn opened_on_one_replica_fails_fast_on_another_that_sent_nothing(binding: Binding) {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix(&format!("breaker-{binding:?}"));
    let agent = down_for(binding, OPENS_AFTER).await;
    let first = client(Some((&url, &prefix, "replica-a")));
    let second = client(Some((&url, &prefix, "replica-b")));
    for replica in [&first, &second] {
        let up = within(Duration::from_secs(5), || {
            replica.discovery_cache().backend_status() == Some(BackendStatus::Connected)
        })
        .await;
        assert!(up, "never connected to redis");
    }
    for _ in 0..OPENS_AFTER {
        task(&first, &agent).await.unwrap_err();
    }
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(
        within(Duration::from_millis(1500), || second.discovery_cache().unavailable(&base).is_some()).await,
        "{binding:?}: the breaker reached the other replica"
    );

    let error = task(&second, &agent).await.unwrap_err();
    assert_fails_fast(&error, OPENS_AFTER as usize, &agent);
    assert_eq!(error.unavailable().and_then(|u| u.opened_by()), Some("replica-a"), "{error}");
    let metrics = second.metrics().snapshot();
    assert_eq!(metrics.shared_breakers_received, 1, "{binding:?}");
    assert_eq!(metrics.requests_per_agent.values().sum::<u64>(), 0, "{binding:?}: replica-b sent nothing");
    assert_no_mark(&second, &agent).await;
    assert_no_mark(&first, &agent).await;

    // Past the cool-down the second replica probes; the agent answers, and the first hears of it.
    tokio::time::sleep(COOL_DOWN).await;
    task(&second, &agent).await.unwrap_or_else(|e| panic!("{binding:?}: the probe: {e}"));
    assert!(
        within(Duration::from_millis(1500), || first.discovery_cache().unavailable(&base).is_none()).await,
        "{binding:?}: the close reached the replica that opened it"
    );
    task(&first, &agent).await.unwrap_or_else(|e| panic!("{binding:?}: closed everywhere: {e}"));
    agent.shutdown().await;
}

/// One test per rule and binding.
macro_rules! per_binding {
    ($($rule:ident),* $(,)?) => {
        mod over_jsonrpc {
            $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $rule() { super::$rule(a2a_testkit::Binding::JsonRpc).await } )*
        }
        mod over_http_json {
            $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $rule() { super::$rule(a2a_testkit::Binding::HttpJson).await } )*
        }
        mod over_grpc {
            $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $rule() { super::$rule(a2a_testkit::Binding::Grpc).await } )*
        }
    };
}

per_binding!(
    opens_after_faults_in_a_row_fails_fast_and_one_probe_closes_it,
    opened_on_one_replica_fails_fast_on_another_that_sent_nothing,
);

#[tokio::test]
async fn an_agent_that_cannot_be_reached_at_all_opens_it_without_a_mark() {
    // Discovery itself fails: nothing listens on the port.
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let client = client(None);
    for _ in 0..OPENS_AFTER {
        let error = client.run_task(&url, text("hello"), &Negotiation::default()).await.unwrap_err();
        assert!(error.is_connect(), "{error}");
    }
    let error = client.run_task(&url, text("hello"), &Negotiation::default()).await.unwrap_err();
    assert!(error.unavailable().is_some(), "{error}");
    assert!(client.discovery_cache().suspect_agents().is_empty(), "a breaker is never a mark");
}

#[tokio::test]
async fn off_lets_every_task_wait_out_its_own_fault() {
    let agent = down_for(Binding::JsonRpc, 6).await;
    let client =
        builder().retry_policy(RetryPolicy::no_retry()).availability_breaker(Breaker::off()).build().unwrap();
    for _ in 0..6 {
        let error = task(&client, &agent).await.unwrap_err();
        assert!(error.transport_fault().is_some(), "{error}");
    }
    assert_eq!(operations(&agent), 6, "every task reached the agent");
    agent.shutdown().await;
}
