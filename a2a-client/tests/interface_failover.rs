//! Interfaces as a client should use them: a card lists its interfaces in order of preference, and
//! real cards often name first an address the client cannot reach (a container's `localhost`, an
//! internal host, a closed port). A connection that could not be opened sent nothing, so the task
//! moves to the next declared interface: a transport fallback, never a refusal, never a mark. The
//! interface that answered is remembered for the agent (with the cache's TTL, shared with the
//! other replicas), so the next task goes there at once. A fault after the connection opened may
//! have reached the agent: the task is not sent elsewhere (it could run twice).

mod negotiation_common;
mod redis_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, DeadInterface, RunningAgent, Script, ScriptedAgent};
use a2a_typestate::{Capability, Claims, Streaming};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{
    AgentBaseUrl, Client, DiscoveryCache, Settlement, SuspectClaim, TaskBudget, TaskEntry,
};
use negotiation_common::{builder, count, text};

const EVERY_DEAD_KIND: [DeadInterface; 3] =
    [DeadInterface::Refused, DeadInterface::UnresolvableHost, DeadInterface::TlsToPlainHttp];

async fn agent_behind(dead: &'static [DeadInterface]) -> RunningAgent {
    ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest())
        .dead_interfaces_first(dead)
        .spawn()
        .await
        .unwrap()
}

fn declared_urls(agent: &RunningAgent) -> Vec<String> {
    agent.card()["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["url"].as_str().unwrap().to_owned())
        .collect()
}

fn streaming() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming])
}

/// No mark of any kind: not on a capability, not on an interface.
fn assert_unmarked(client: &Client, agent: &RunningAgent) {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(
        client.discovery_cache().suspect_marks(&base).is_empty(),
        "an unreachable interface marks nothing"
    );
    for url in declared_urls(agent) {
        assert!(client.discovery_cache().claim_mark(&base, &SuspectClaim::Interface { url }).is_none());
    }
}

#[tokio::test]
async fn an_unreachable_first_interface_moves_the_task_to_the_next_declared_one_without_a_mark() {
    for dead in EVERY_DEAD_KIND {
        let kinds: &'static [DeadInterface] = Box::leak(Box::new([dead]));
        let agent = agent_behind(kinds).await;
        let client = builder().build().unwrap();
        let declared = declared_urls(&agent);

        let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

        assert_eq!(outcome.path, TaskPath::Negotiated, "{dead:?}");
        assert!(outcome.verified.contains(Capability::Streaming), "{dead:?}: the live interface verified it");
        assert!(outcome.refusal.is_none() && outcome.card_claims.iter().all(|v| v.violation().is_none()));
        let unreachable: Vec<&str> = outcome.unreachable_interfaces.iter().map(|u| u.url.as_str()).collect();
        assert_eq!(unreachable, [declared[0].as_str()], "{dead:?}");
        assert_eq!(outcome.interface_url, declared[1], "{dead:?}: the next declared interface carried it");
        assert_eq!(count(&agent, "SendStreamingMessage"), 1, "{dead:?}: sent once, where it was answered");
        assert_eq!(client.metrics().snapshot().interface_failovers, 1, "{dead:?}");
        assert_unmarked(&client, &agent);
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn the_interface_that_answered_is_remembered_so_the_next_task_goes_there_at_once() {
    let agent = agent_behind(&[DeadInterface::Refused, DeadInterface::UnresolvableHost]).await;
    let client = builder().build().unwrap();
    let declared = declared_urls(&agent);

    let first = client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();
    let tried: Vec<&str> = first.unreachable_interfaces.iter().map(|u| u.url.as_str()).collect();
    assert_eq!(tried, [declared[0].as_str(), declared[1].as_str()], "both dead ones, in the card's order");
    assert_eq!(first.interface_url, declared[2]);

    let second = client.run_task(&agent.base_url(), text("two"), &streaming()).await.unwrap();
    assert!(second.unreachable_interfaces.is_empty(), "{:?}", second.unreachable_interfaces);
    assert_eq!(second.interface_url, declared[2]);
    assert_eq!(client.metrics().snapshot().interface_failovers, 2, "only the first task failed over");
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert_eq!(client.discovery_cache().answering_interface(&base).as_deref(), Some(declared[2].as_str()));
    assert_unmarked(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn the_remembered_interface_lasts_the_cache_ttl() {
    let agent = agent_behind(&[DeadInterface::Refused]).await;
    let (cache, clock) =
        DiscoveryCache::with_manual_clock(Duration::from_secs(60), Duration::from_secs(3600));
    let client = builder().discovery_cache(cache).build().unwrap();
    client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().answering_interface(&base).is_some());

    clock.advance(Duration::from_secs(61));

    assert_eq!(client.discovery_cache().answering_interface(&base), None);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_typed_handle_fails_over_the_same_way() {
    let agent = agent_behind(&[DeadInterface::Refused]).await;
    let client = builder().build().unwrap();
    let declared = declared_urls(&agent);

    let TaskEntry::Claimed(mut task) = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap()
    else {
        panic!("a new client holds no mark")
    };
    task.send_streaming_message(text("hello")).await.unwrap();

    assert_eq!(task.unreachable_interfaces().len(), 1);
    assert_eq!(task.connection().interface().url, declared[1]);
    assert!(matches!(task.settle_streaming(), Ok(Settlement::Verified(_))));
    assert_unmarked(&client, &agent);
    agent.shutdown().await;
}

/// A card that lists `dead` interfaces where the connection is refused, then the agent's own.
async fn agent_behind_refusing(dead: usize) -> RunningAgent {
    agent_behind(Box::leak(vec![DeadInterface::Refused; dead].into_boxed_slice())).await
}

#[tokio::test]
async fn a_card_declaring_ten_thousand_dead_interfaces_costs_at_most_the_budget() {
    const BOUND: u32 = 4;
    let budget = TaskBudget::default().with_interfaces(BOUND);
    // What the budget costs: a card whose first BOUND - 1 interfaces are refused, then the live
    // one, all within the bound.
    let within = agent_behind_refusing(BOUND as usize - 1).await;
    let client = builder().task_budget(budget).build().unwrap();
    let started = tokio::time::Instant::now();
    let outcome = client.run_task(&within.base_url(), text("hello"), &streaming()).await.unwrap();
    let budget_cost = started.elapsed();
    assert_eq!(outcome.unreachable_interfaces.len(), BOUND as usize - 1);
    within.shutdown().await;

    // Ten thousand refused interfaces before the live one: the task tries BOUND of them.
    let agent = agent_behind_refusing(10_000).await;
    let declared = declared_urls(&agent).len();
    let client = builder().task_budget(budget).build().unwrap();
    let started = tokio::time::Instant::now();
    let error = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap_err();
    let cost = started.elapsed();

    eprintln!("{BOUND} interfaces within the budget: {budget_cost:?}; {declared} declared: {cost:?}");
    assert!(error.is_connect(), "the last interface's error: {error}");
    let said = error.to_string();
    assert!(
        said.contains(&format!("{BOUND} of the {declared} interfaces")) && said.contains("task budget"),
        "the error names the interfaces tried, those declared and the bound: {said}"
    );
    assert_eq!(client.metrics().snapshot().interface_failovers, u64::from(BOUND) - 1);
    assert_eq!(count(&agent, "SendStreamingMessage"), 0, "the live interface, past the bound, is not tried");
    assert!(
        cost <= budget_cost * 4 + Duration::from_secs(2),
        "{declared} interfaces declared cost {cost:?}, the budget of {BOUND} {budget_cost:?}"
    );

    // A task handle used directly stops at the same bound.
    let TaskEntry::Claimed(mut task) = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap()
    else {
        panic!("an unreachable interface marks nothing")
    };
    assert!(task.send_streaming_message(text("hello")).await.unwrap_err().is_connect());
    assert_eq!(task.unreachable_interfaces().len(), BOUND as usize);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_fault_after_the_connection_opened_is_not_sent_to_another_interface() {
    // The first interface accepts the connection and drops it: the request may have reached an
    // agent, so sending it to the next interface could run the user's work twice.
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .dead_interfaces_first(&[DeadInterface::AcceptsThenCloses])
        .spawn()
        .await
        .unwrap();
    let client = builder().build().unwrap();

    let error = client.run_task(&agent.base_url(), text("once"), &streaming()).await.unwrap_err();

    assert!(error.transport_fault().is_some(), "{error}");
    assert!(!error.is_connect(), "the connection opened: {error}");
    assert_eq!(
        count(&agent, "SendStreamingMessage") + count(&agent, "SendMessage"),
        0,
        "never sent elsewhere"
    );
    assert_eq!(client.metrics().snapshot().interface_failovers, 0);
    assert_unmarked(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn replicas_share_the_interface_that_answered() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("interface-failover-route");
    let replica = |name: &str| {
        let backend = RedisBackend::builder(&url).key_prefix(&prefix).build().unwrap();
        let cache = DiscoveryCache::default().with_backend(backend).unwrap();
        builder().discovery_cache(cache).replica_name(name).build().unwrap()
    };
    let (a, b) = (replica("a"), replica("b"));
    let agent = agent_behind(&[DeadInterface::Refused]).await;
    let declared = declared_urls(&agent);

    a.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();
    assert!(a.discovery_cache().flush_shared(Duration::from_secs(5)).await);
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while b.discovery_cache().answering_interface(&base).is_none() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let outcome = b.run_task(&agent.base_url(), text("two"), &streaming()).await.unwrap();
    assert!(outcome.unreachable_interfaces.is_empty(), "replica b went to the live interface at once");
    assert_eq!(outcome.interface_url, declared[1]);
    assert_eq!(b.metrics().snapshot().interface_failovers, 0);
    agent.shutdown().await;
}
