//! The card's claims beyond the lifecycle, as the client acts on them: a refused claim marks the
//! agent suspect for that one claim (with the evidence, for the cache's suspect TTL, shared with
//! the other replicas), and the claim's fallback is taken: the public card for an extended card the
//! agent does not serve, the next declared interface for a retired one, no extension for one the
//! agent never activates (unless the agent demands it). An honest agent gets no mark, and neither does a transport fault or a
//! bare 403 a gateway may have sent.

mod negotiation_common;
mod redis_common;

use std::time::{Duration, Instant};

use a2a_testkit::{RETIRED_INTERFACE_PATH, RunningAgent, ScriptedAgent};
use a2a_typestate::{CardClaim, CardClaimVerdict, ClaimKind, ClaimPending};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{
    AgentBaseUrl, AgentConnection, BackendStatus, Client, DiscoveredCard, DiscoveryCache, SuspectClaim,
    SuspectMark, SuspectMarks, WellKnownPath,
};
use negotiation_common::{builder, count, text};

const ECHO: &str = "https://example.com/ext/echo/v1";
const TRAIL: &str = "https://example.com/ext/trail/v1";
const INERT: &str = "https://example.com/ext/inert/v1";
const TTL: Duration = Duration::from_secs(120);

fn cache() -> DiscoveryCache {
    DiscoveryCache::new(Duration::from_secs(300), TTL)
}

fn client() -> Client {
    builder().discovery_cache(cache()).build().unwrap()
}

fn bearer(token: &str) -> Credentials {
    Credentials::new().with(BearerToken::new(Secret::new(token.to_owned())))
}

fn base(agent: &RunningAgent) -> AgentBaseUrl {
    AgentBaseUrl::parse(&agent.base_url()).unwrap()
}

fn mark(client: &Client, agent: &RunningAgent, claim: &SuspectClaim) -> Option<SuspectMark> {
    client.discovery_cache().claim_mark(&base(agent), claim)
}

fn retired(agent: &RunningAgent) -> SuspectClaim {
    SuspectClaim::Interface { url: format!("{}{RETIRED_INTERFACE_PATH}", agent.base_url()) }
}

/// The mark lives exactly the cache's suspect TTL and says what contradicted the claim.
fn assert_marked(mark: &SuspectMark, evidence: &str) {
    assert_eq!(mark.expires_at() - mark.marked_at(), TTL, "{mark}");
    assert!(mark.evidence().contains(evidence), "{mark}");
    assert_eq!(mark.capability(), None, "a card-claim mark is no lifecycle mark");
}

fn refused_kinds(verdicts: &[CardClaimVerdict]) -> Vec<ClaimKind> {
    verdicts.iter().filter_map(|v| v.violation()).map(|v| v.claim().kind()).collect()
}

// Extended card.

#[tokio::test]
async fn extended_card_refused_is_marked_and_while_marked_the_public_card_is_used_without_asking() {
    let agent = ScriptedAgent::builder()
        .guard(a2a_testkit::Guard::bearer("tok"))
        .unserved_extended_card()
        .spawn()
        .await
        .unwrap();
    let client = builder().credentials(bearer("tok")).discovery_cache(cache()).build().unwrap();
    let first = client.connect(&agent.base_url()).await.unwrap();
    assert!(!first.uses_extended_card(), "the fallback: the public card");
    assert!(first.extended_card_verdict().unwrap().violation().is_some());
    let marked = mark(&client, &agent, &SuspectClaim::ExtendedAgentCard).expect("the refusal is marked");
    assert_marked(&marked, "-32004");
    assert!(client.discovery_cache().is_suspect(&base(&agent)).is_none(), "tasks are not sent single-shot");

    let again = client.connect(&agent.base_url()).await.unwrap();
    assert!(!again.uses_extended_card());
    assert_eq!(again.extended_card_verdict(), None, "not asked while the mark holds");
    assert_eq!(count(&agent, "GetExtendedAgentCard"), 1);
    let counted = client.metrics().snapshot().card_claim_refusals;
    assert_eq!(counted[&ClaimKind::ExtendedCard], 1, "the one refusal is counted: {counted:?}");
    assert_eq!(counted.values().sum::<u64>(), 1, "{counted:?}");
}

#[tokio::test]
async fn extended_card_served_sets_no_mark() {
    let agent = ScriptedAgent::builder()
        .guard(a2a_testkit::Guard::bearer("tok"))
        .extended_card(a2a_testkit::Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let client = builder().credentials(bearer("tok")).discovery_cache(cache()).build().unwrap();
    assert!(client.connect(&agent.base_url()).await.unwrap().uses_extended_card());
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

#[tokio::test]
async fn extended_card_refusal_with_marks_off_falls_back_without_marking() {
    let agent = ScriptedAgent::builder()
        .guard(a2a_testkit::Guard::bearer("tok"))
        .unserved_extended_card()
        .spawn()
        .await
        .unwrap();
    let client = builder().credentials(bearer("tok")).suspect_marks(SuspectMarks::Off).build().unwrap();
    assert!(!client.connect(&agent.base_url()).await.unwrap().uses_extended_card());
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

// Interfaces.

#[tokio::test]
async fn interface_that_does_not_answer_in_its_binding_is_marked_and_the_task_goes_to_the_next_one() {
    let agent = ScriptedAgent::builder().retired_interface_first().spawn().await.unwrap();
    let client = client();
    let outcome = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap();
    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.state().is_some_and(|s| s.is_terminal()), "{outcome}");
    assert_eq!(refused_kinds(&outcome.card_claims), [ClaimKind::Interfaces]);
    let violation = outcome.card_claims[0].violation().unwrap();
    assert!(
        matches!(violation.claim(), CardClaim::Interface { url, .. } if url.ends_with(RETIRED_INTERFACE_PATH))
    );
    let marked = mark(&client, &agent, &retired(&agent)).expect("the retired interface is marked");
    assert_marked(&marked, "http 404");
    assert_eq!(count(&agent, "SendMessage"), 1, "the task was sent once, on the next interface");

    // While the mark holds, connections skip the interface.
    let next = client.connect(&agent.base_url()).await.unwrap();
    assert_ne!(next.interface().url, format!("{}{RETIRED_INTERFACE_PATH}", agent.base_url()));
    let outcome = client.run_task(&agent.base_url(), text("again"), &Negotiation::default()).await.unwrap();
    assert!(outcome.card_claims.is_empty(), "{:?}", outcome.card_claims);
}

#[tokio::test]
async fn interface_checked_and_answering_in_its_binding_is_verified_and_not_marked() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert!(connection.check_interface().await.unwrap().is_verified());
    let outcome = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap();
    assert!(outcome.card_claims.is_empty());
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

#[tokio::test]
async fn interface_transport_fault_is_no_contradiction_and_sets_no_mark() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    // A card whose first interface is a closed port: connection refused, a transport fault.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let dead = format!("http://{closed}/a2a");
    let mut card = agent.card().clone();
    let working = card["supportedInterfaces"].as_array().unwrap().clone();
    let mut interfaces =
        vec![serde_json::json!({"url": dead, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"})];
    interfaces.extend(working);
    card["supportedInterfaces"] = serde_json::Value::Array(interfaces);
    let discovered = DiscoveredCard::from_bytes(
        serde_json::to_vec(&card).unwrap().into(),
        &agent.card_url(),
        WellKnownPath::AgentCard,
    )
    .unwrap();
    let first = discovered.offered_interfaces().unwrap()[0].clone();
    let client = client();
    let connection = AgentConnection::open(&client, base(&agent), discovered, first).unwrap();
    // The task goes on through the next declared interface (a transport fallback, not a verdict).
    let outcome = client.run_task_on(&connection, text("hi"), &Negotiation::default()).await.unwrap();
    let unreachable: Vec<&str> = outcome.unreachable_interfaces.iter().map(|u| u.url.as_str()).collect();
    assert_eq!(unreachable, [dead.as_str()]);
    assert!(outcome.card_claims.iter().all(|v| v.violation().is_none()), "{:?}", outcome.card_claims);
    let verdict = connection.check_interface().await.unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::TransportFault(_))), "{verdict}");
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty(), "a fault marks nothing");
}

#[tokio::test]
async fn interface_over_http_json_answering_a_bare_404_may_mean_no_such_task_and_is_not_marked() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    // An HTTP+JSON interface at a path the agent does not serve: every call answers a bare 404,
    // which over HTTP+JSON is also how a server may say "no such task".
    let mut card = agent.card().clone();
    card["supportedInterfaces"] = serde_json::json!([
        {"url": format!("{}/nowhere", agent.base_url()), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": agent.jsonrpc_url(), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    ]);
    let discovered = DiscoveredCard::from_bytes(
        serde_json::to_vec(&card).unwrap().into(),
        &agent.card_url(),
        WellKnownPath::AgentCard,
    )
    .unwrap();
    let rest = discovered.offered_interfaces().unwrap()[0].clone();
    let client = client();
    let connection = AgentConnection::open(&client, base(&agent), discovered, rest).unwrap();
    let error = client.run_task_on(&connection, text("hi"), &Negotiation::default()).await.unwrap_err();
    assert_eq!(error.status(), Some(404), "{error}");
    assert!(error.card_claim_violation().is_none(), "no refusal on an answer the rule cannot read");
    assert_eq!(connection.check_interface().await, None);
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

// Extensions.

fn asked_on_last_send(agent: &RunningAgent) -> Option<String> {
    let sends = agent.requests_for("SendMessage");
    sends.last()?.headers.iter().find(|(name, _)| name == "a2a-extensions").map(|(_, v)| v.clone())
}

#[tokio::test]
async fn extension_never_activated_is_marked_and_while_marked_is_not_asked_for() {
    let agent = ScriptedAgent::builder().extension(ECHO).inert_extension(INERT).spawn().await.unwrap();
    let client = builder().extension(ECHO).extension(INERT).discovery_cache(cache()).build().unwrap();
    let outcome = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap();
    assert_eq!(refused_kinds(&outcome.card_claims), [ClaimKind::Extensions], "{:?}", outcome.card_claims);
    let inert = SuspectClaim::Extension { uri: INERT.to_owned() };
    assert_marked(&mark(&client, &agent, &inert).expect("the inert extension is marked"), ECHO);
    assert!(mark(&client, &agent, &SuspectClaim::Extension { uri: ECHO.to_owned() }).is_none());

    // The fallback: the next connection goes on without it, and its sends do not ask for it.
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.requested_extensions(), [ECHO]);
    let outcome = client.run_task(&agent.base_url(), text("again"), &Negotiation::default()).await.unwrap();
    assert!(outcome.state().is_some_and(|s| s.is_terminal()));
    assert_eq!(asked_on_last_send(&agent).as_deref(), Some(ECHO), "the marked extension is not sent");
}

#[tokio::test]
async fn extension_required_and_never_activated_is_marked_but_still_asked_for_since_the_agent_demands_it() {
    let agent =
        ScriptedAgent::builder().extension(ECHO).inert_required_extension(TRAIL).spawn().await.unwrap();
    let client = builder().extension(ECHO).extension(TRAIL).discovery_cache(cache()).build().unwrap();
    let outcome = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap();
    assert_eq!(refused_kinds(&outcome.card_claims), [ClaimKind::Extensions]);
    assert!(mark(&client, &agent, &SuspectClaim::Extension { uri: TRAIL.to_owned() }).is_some());
    let outcome = client.run_task(&agent.base_url(), text("again"), &Negotiation::default()).await.unwrap();
    assert!(outcome.state().is_some_and(|s| s.is_terminal()), "served: the required extension was asked for");
    assert_eq!(asked_on_last_send(&agent).as_deref(), Some(format!("{ECHO},{TRAIL}").as_str()));
}

#[tokio::test]
async fn extension_activated_when_asked_is_verified_and_not_marked() {
    let agent = ScriptedAgent::builder().extension(ECHO).spawn().await.unwrap();
    let client = builder().extension(ECHO).discovery_cache(cache()).build().unwrap();
    let outcome = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap();
    assert!(!outcome.card_claims.is_empty() && outcome.card_claims.iter().all(CardClaimVerdict::is_verified));
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

// Output modes.

#[tokio::test]
async fn output_modes_contradicted_are_marked_and_the_answer_that_came_is_kept() {
    let agent = ScriptedAgent::builder().default_output_modes(["application/json"]).spawn().await.unwrap();
    let client = client();
    let negotiation = Negotiation::default().accepted_output_modes(["application/json"]);
    let outcome = client.run_task(&agent.base_url(), text("hi"), &negotiation).await.unwrap();
    assert_eq!(refused_kinds(&outcome.card_claims), [ClaimKind::OutputModes]);
    assert!(outcome.state().is_some_and(|s| s.is_terminal()), "no fallback: the answer is the result");
    assert_marked(&mark(&client, &agent, &SuspectClaim::OutputModes).expect("marked"), "text/plain");
}

#[tokio::test]
async fn output_modes_honoured_are_verified_and_not_marked() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let client = client();
    let negotiation = Negotiation::default().accepted_output_modes(["text/plain"]);
    let outcome = client.run_task(&agent.base_url(), text("hi"), &negotiation).await.unwrap();
    assert!(
        matches!(outcome.card_claims.as_slice(), [verdict] if verdict.is_verified()),
        "{:?}",
        outcome.card_claims
    );
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

// Security.

#[tokio::test]
async fn security_open_access_answered_401_is_refused_on_the_error_and_marked_and_no_credential_is_sent() {
    let agent = ScriptedAgent::builder().denies_task_reads().spawn().await.unwrap();
    let client = client();
    // Not streaming: the task is polled with GetTask, which the agent answers 401.
    let error = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap_err();
    let violation = error.card_claim_violation().unwrap_or_else(|| panic!("a verdict on the error: {error}"));
    assert_eq!(violation.claim().kind(), ClaimKind::Security);
    assert_marked(&mark(&client, &agent, &SuspectClaim::Security).expect("marked"), "http 401");
    assert!(
        agent.requests().iter().all(|r| r.headers.iter().all(|(name, _)| name != "authorization")),
        "no credential was configured, none was sent"
    );
}

#[tokio::test]
async fn security_a_401_to_a_call_carrying_a_header_the_user_added_is_no_evidence_and_marks_nothing() {
    let agent = ScriptedAgent::builder().denies_task_reads().spawn().await.unwrap();
    // A header the auth layer does not know of may be a credential the agent rightly refused.
    let client = builder()
        .default_header("Authorization", "Bearer the-users-own")
        .discovery_cache(cache())
        .build()
        .unwrap();
    let error = client.run_task(&agent.base_url(), text("hi"), &Negotiation::default()).await.unwrap_err();
    assert_eq!(error.status(), Some(401), "{error}");
    assert!(error.card_claim_violation().is_none(), "{error}");
    assert!(client.discovery_cache().suspect_marks(&base(&agent)).is_empty());
}

/// An open-access card in front of which something answers every A2A call with a bare 403.
async fn behind_a_firewall() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = serde_json::json!({
        "name": "walled", "description": "", "version": "1", "skills": [],
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    });
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(move || async move { axum::Json(card) }))
        .route("/rpc", axum::routing::post(|| async { (axum::http::StatusCode::FORBIDDEN, "Forbidden") }));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

#[tokio::test]
async fn security_a_bare_403_may_be_a_gateways_and_marks_nothing() {
    let agent = behind_a_firewall().await;
    let client = client();
    let error = client.run_task(&agent, text("hi"), &Negotiation::default()).await.unwrap_err();
    assert_eq!(error.status(), Some(403), "{error}");
    assert!(error.card_claim_violation().is_none(), "an honest agent behind a firewall is no liar");
    let connection = client.connect(&agent).await.unwrap();
    assert!(connection.security_verdict(&error).is_some_and(|v| v.violation().is_none()));
    let agent = AgentBaseUrl::parse(&agent).unwrap();
    assert!(client.discovery_cache().suspect_marks(&agent).is_empty());
}

// Shared through Redis.

/// Polls `done` every 5 ms for at most `bound`.
async fn within(bound: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < bound {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    done()
}

fn replica(url: &str, prefix: &str, name: &str) -> Client {
    let backend = RedisBackend::builder(url).key_prefix(prefix).build().unwrap();
    let cache = cache().with_backend(backend).unwrap();
    builder()
        .credentials(bearer("tok"))
        .extension(ECHO)
        .extension(INERT)
        .replica_name(name)
        .discovery_cache(cache)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_claim_marks_reach_the_other_replicas_with_their_ttl_and_a_clear_removes_them() {
    let Some((url, _server)) = redis_common::shared_server() else { return };
    let prefix = redis_common::prefix("card-claims");
    let [a, b] = [replica(&url, &prefix, "replica-a"), replica(&url, &prefix, "replica-b")];
    for client in [&a, &b] {
        let up = within(Duration::from_secs(5), || {
            client.discovery_cache().backend_status() == Some(BackendStatus::Connected)
        });
        assert!(up.await, "never connected to redis");
    }
    let liar = ScriptedAgent::builder()
        .retired_interface_first()
        .extension(ECHO)
        .inert_extension(INERT)
        .default_output_modes(["application/json"])
        .spawn()
        .await
        .unwrap();
    let negotiation = Negotiation::default().accepted_output_modes(["application/json"]);
    let outcome = a.run_task(&liar.base_url(), text("hi"), &negotiation).await.unwrap();
    let mut kinds = refused_kinds(&outcome.card_claims);
    kinds.sort();
    assert_eq!(kinds, [ClaimKind::Extensions, ClaimKind::Interfaces, ClaimKind::OutputModes]);
    let claims =
        [retired(&liar), SuspectClaim::Extension { uri: INERT.to_owned() }, SuspectClaim::OutputModes];
    let seen = within(Duration::from_millis(1500), || claims.iter().all(|c| mark(&b, &liar, c).is_some()));
    assert!(seen.await, "b sees a's card-claim marks: {:?}", b.discovery_cache().suspect_marks(&base(&liar)));
    for claim in &claims {
        let shared = mark(&b, &liar, claim).unwrap();
        assert_eq!(shared.marked_by(), Some("replica-a"));
        assert!(shared.expires_at() - shared.marked_at() <= TTL);
        assert!(shared.expires_at() - shared.marked_at() > TTL - Duration::from_secs(5));
    }
    // The extended card (judged at discovery) and open access (on a task read) too.
    let unserved = ScriptedAgent::builder()
        .guard(a2a_testkit::Guard::bearer("tok"))
        .unserved_extended_card()
        .spawn()
        .await
        .unwrap();
    assert!(!a.connect(&unserved.base_url()).await.unwrap().uses_extended_card());
    let walled = ScriptedAgent::builder().denies_task_reads().spawn().await.unwrap();
    let error = a.run_task(&walled.base_url(), text("hi"), &Negotiation::default()).await.unwrap_err();
    assert!(error.card_claim_violation().is_some(), "{error}");
    let seen = within(Duration::from_millis(1500), || {
        mark(&b, &unserved, &SuspectClaim::ExtendedAgentCard).is_some()
            && mark(&b, &walled, &SuspectClaim::Security).is_some()
    });
    assert!(seen.await, "b sees the extended-card and security marks");
    assert!(!b.connect(&unserved.base_url()).await.unwrap().uses_extended_card());
    assert_eq!(count(&unserved, "GetExtendedAgentCard"), 1, "b does not ask while a's mark holds");

    // B acts on them: it does not call the retired interface.
    let on_b = b.connect(&liar.base_url()).await.unwrap();
    assert!(!on_b.interface().url.ends_with(RETIRED_INTERFACE_PATH));
    assert_eq!(on_b.requested_extensions(), [ECHO]);

    a.discovery_cache().clear_suspect(&base(&liar));
    assert!(a.discovery_cache().flush_shared(Duration::from_secs(2)).await);
    let mut conn =
        redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> =
        redis::cmd("KEYS").arg(format!("{prefix}:suspect:*")).query_async(&mut conn).await.unwrap();
    let liars: Vec<&String> =
        keys.iter().filter(|k| k.ends_with(&format!(":{}", base(&liar).as_str()))).collect();
    assert!(liars.is_empty(), "a clear removes every mark key of the agent: {liars:?}");
    assert_eq!(keys.len(), 2, "and only that agent's: {keys:?}");
    let cleared =
        within(Duration::from_millis(1500), || b.discovery_cache().suspect_marks(&base(&liar)).is_empty());
    assert!(cleared.await);
}
