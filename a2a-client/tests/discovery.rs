//! Discovery against a tiny in-process card server: well-known paths, fallback, HTTP caching, retry.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_typestate::Deployment;
use a2a_typestate_client::{
    AgentBaseUrl, Capability, Client, DiscoveryCache, ErrorKind, ManualClock, RetryPolicy, WellKnownPath,
};
use a2a_typestate_types::v03::CardShape;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

const CARD: &str = r#"{"name":"echo","description":"echoes","version":"1.0.0",
  "supportedInterfaces":[{"url":"http://127.0.0.1:1/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;

const CARD_V03: &str = r#"{"name":"old","description":"0.3 agent","url":"http://127.0.0.1:1/rpc","version":"1",
  "protocolVersion":"0.3.0","capabilities":{"streaming":false,"stateTransitionHistory":true},
  "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;

/// What the card server serves, and what it was asked.
#[derive(Default)]
struct Scenario {
    /// `(etag, body)` at `/.well-known/agent-card.json`; absent = 404.
    card: Option<(String, String)>,
    /// `(etag, body)` at `/.well-known/agent.json`; absent = 404.
    legacy: Option<(String, String)>,
    cache_control: Option<String>,
    /// Statuses answered (once each) before serving anything.
    forced: VecDeque<u16>,
    /// How long each answer takes.
    delay: Option<Duration>,
    /// `Retry-After` sent with each forced status.
    retry_after: Option<&'static str>,
    /// `(path, If-None-Match)` of every request.
    log: Vec<(String, Option<String>)>,
}

type Shared = Arc<Mutex<Scenario>>;

async fn serve(State(scenario): State<Shared>, uri: Uri, headers: HeaderMap) -> Response {
    let delay = scenario.lock().unwrap().delay;
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    let mut s = scenario.lock().unwrap();
    let validator = headers.get(header::IF_NONE_MATCH).map(|v| v.to_str().unwrap().to_owned());
    s.log.push((uri.path().to_owned(), validator.clone()));
    if let Some(status) = s.forced.pop_front() {
        let mut response = StatusCode::from_u16(status).unwrap().into_response();
        if let Some(wait) = s.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, wait.parse().unwrap());
        }
        return response;
    }
    let document = match uri.path() {
        "/.well-known/agent-card.json" => s.card.clone(),
        "/.well-known/agent.json" => s.legacy.clone(),
        _ => None,
    };
    let Some((etag, body)) = document else { return StatusCode::NOT_FOUND.into_response() };
    let mut headers = vec![(header::ETAG, etag.clone())];
    if let Some(cache_control) = &s.cache_control {
        headers.push((header::CACHE_CONTROL, cache_control.clone()));
    }
    let mut response = if validator.as_deref() == Some(etag.as_str()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json".to_owned())], body).into_response()
    };
    for (name, value) in headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

async fn card_server(scenario: Scenario) -> (String, Shared) {
    let shared: Shared = Arc::new(Mutex::new(scenario));
    let app = axum::Router::new().fallback(serve).with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), shared)
}

fn serving(card: &str, etag: &str) -> Scenario {
    Scenario { card: Some((etag.into(), card.into())), ..Scenario::default() }
}

fn client_with_clock() -> (Client, ManualClock) {
    let (cache, clock) = DiscoveryCache::with_manual_clock(Duration::from_secs(300), Duration::from_secs(60));
    (Client::builder().discovery_cache(cache).build().unwrap(), clock)
}

fn requests(shared: &Shared) -> Vec<(String, Option<String>)> {
    shared.lock().unwrap().log.clone()
}

#[tokio::test]
async fn card_is_fetched_from_agent_card_json_and_kept_while_fresh() {
    let (base, shared) = card_server(serving(CARD, "\"v1\"")).await;
    let (client, _clock) = client_with_clock();
    let first = client.discover(&base).await.unwrap();
    let second = client.discover(&format!("{base}/")).await.unwrap();
    assert_eq!(first.json()["name"], "echo");
    assert_eq!(first.card().capabilities.streaming, Some(true));
    assert_eq!(first.shape(), CardShape::V1);
    assert_eq!(first.raw().as_ref(), CARD.as_bytes(), "the exact bytes are kept");
    assert_eq!(first.well_known_path(), WellKnownPath::AgentCard);
    assert!(first.ptr_eq(&second), "the second call was answered from the cache");
    assert_eq!(requests(&shared).len(), 1);
    assert_eq!(client.metrics().snapshot().requests_per_agent[&base], 1);
}

#[tokio::test]
async fn legacy_agent_json_is_tried_when_agent_card_json_is_absent() {
    let scenario = Scenario { legacy: Some(("\"l1\"".into(), CARD_V03.into())), ..Scenario::default() };
    let (base, shared) = card_server(scenario).await;
    let (client, _clock) = client_with_clock();
    let card = client.discover(&base).await.unwrap();
    assert_eq!(card.well_known_path(), WellKnownPath::LegacyAgent);
    assert_eq!(card.shape(), CardShape::V03);
    assert_eq!(card.card().capabilities.legacy_state_transition_history(), Some(true));
    assert!(card.source_url().ends_with("/.well-known/agent.json"));
    let paths: Vec<_> = requests(&shared).into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["/.well-known/agent-card.json", "/.well-known/agent.json"]);
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.legacy_card_fetches, 1);
    assert_eq!(metrics.fallbacks, 0, "a legacy card path is no refusal fallback");
}

#[tokio::test]
async fn no_card_on_either_path_is_a_404_status_not_a_transport_fault() {
    let (base, _shared) = card_server(Scenario::default()).await;
    let (client, _clock) = client_with_clock();
    let err = client.discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Status);
    assert_eq!(err.status(), Some(404));
    assert!(!err.is_retryable());
    assert!(err.url().is_some_and(|url| url.contains("/.well-known/")));
}

#[tokio::test]
async fn stale_card_is_revalidated_with_if_none_match_and_304_keeps_it() {
    let scenario = Scenario { cache_control: Some("max-age=60".into()), ..serving(CARD, "W/\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let (client, clock) = client_with_clock();
    let first = client.discover(&base).await.unwrap();
    clock.advance(Duration::from_secs(59));
    client.discover(&base).await.unwrap();
    assert_eq!(requests(&shared).len(), 1, "fresh for max-age");
    clock.advance(Duration::from_secs(2));
    let second = client.discover(&base).await.unwrap();
    assert!(first.ptr_eq(&second), "304 kept the cached card");
    let log = requests(&shared);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].1.as_deref(), Some("W/\"v1\""), "the weak ETag is sent back as served");
    client.discover(&base).await.unwrap();
    assert_eq!(requests(&shared).len(), 2, "304 renewed the freshness");
}

#[tokio::test]
async fn changed_card_replaces_the_cached_one() {
    let scenario = Scenario { cache_control: Some("max-age=1".into()), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let (client, clock) = client_with_clock();
    client.discover(&base).await.unwrap();
    shared.lock().unwrap().card = Some(("\"v2\"".into(), CARD.replace("\"echo\"", "\"echo2\"")));
    clock.advance(Duration::from_secs(2));
    let card = client.discover(&base).await.unwrap();
    assert_eq!(card.card().name, "echo2");
}

#[tokio::test]
async fn a_changed_no_store_card_is_a_new_card_its_marks_cleared_and_counted() {
    let scenario = Scenario { cache_control: Some("no-store".into()), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_secs(3600));
    let client = Client::builder().discovery_cache(cache.clone()).build().unwrap();
    client.discover(&base).await.unwrap();
    let agent = AgentBaseUrl::parse(&base).unwrap();
    cache.mark_suspect(&agent, Capability::Streaming, "no artifact on the stream");
    assert_eq!(
        cache.is_suspect(&agent).unwrap().card_version(),
        Some("\"v1\""),
        "the card not kept is named"
    );
    client.discover(&base).await.unwrap();
    assert!(cache.is_suspect(&agent).is_some(), "the same card again keeps its mark");
    shared.lock().unwrap().card = Some(("\"v2\"".into(), CARD.replace("\"echo\"", "\"echo2\"")));
    assert_eq!(client.discover(&base).await.unwrap().card().name, "echo2");
    assert!(cache.is_suspect(&agent).is_none(), "a changed card is a new card: its claims start unmarked");
    assert_eq!(client.metrics().snapshot().cards_changed, 1);
}

#[tokio::test]
async fn no_store_cards_are_fetched_every_time_without_a_validator() {
    let scenario = Scenario { cache_control: Some("no-store".into()), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let (client, _clock) = client_with_clock();
    client.discover(&base).await.unwrap();
    client.discover(&base).await.unwrap();
    let log = requests(&shared);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].1, None, "nothing was stored, so nothing is revalidated");
}

#[tokio::test]
async fn no_cache_cards_are_revalidated_every_time() {
    let scenario = Scenario { cache_control: Some("no-cache".into()), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let (client, _clock) = client_with_clock();
    let first = client.discover(&base).await.unwrap();
    let second = client.discover(&base).await.unwrap();
    assert!(first.ptr_eq(&second));
    let log = requests(&shared);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].1.as_deref(), Some("\"v1\""));
}

#[tokio::test]
async fn the_default_ttl_applies_without_cache_control() {
    let (base, shared) = card_server(serving(CARD, "\"v1\"")).await;
    let (client, clock) = client_with_clock();
    client.discover(&base).await.unwrap();
    clock.advance(Duration::from_secs(299));
    client.discover(&base).await.unwrap();
    assert_eq!(requests(&shared).len(), 1);
    clock.advance(Duration::from_secs(2));
    client.discover(&base).await.unwrap();
    assert_eq!(requests(&shared).len(), 2);
}

#[tokio::test]
async fn clients_sharing_a_cache_fetch_once() {
    let (base, shared) = card_server(serving(CARD, "\"v1\"")).await;
    let cache = DiscoveryCache::default();
    let a = Client::builder().discovery_cache(cache.clone()).build().unwrap();
    let b = Client::builder().discovery_cache(cache).build().unwrap();
    a.discover(&base).await.unwrap();
    b.discover(&base).await.unwrap();
    assert_eq!(requests(&shared).len(), 1);
}

#[tokio::test]
async fn the_cached_card_holds_its_claims_lifted_once_for_every_task() {
    let (base, _shared) = card_server(serving(CARD, "\"v1\"")).await;
    let client = Client::builder().build().unwrap();
    let first = client.discover(&base).await.unwrap();
    let again = client.discover(&base).await.unwrap();
    let (direct, gateway) = (first.claims(Deployment::Direct), first.claims(Deployment::Gateway));
    assert!(std::sync::Arc::ptr_eq(&direct, &again.claims(Deployment::Direct)), "lifted once, shared");
    assert!(direct.declares(Capability::Streaming), "the card declares streaming");
    assert!(!gateway.declares(Capability::Streaming), "a gateway's card lifts no claim");
}

#[tokio::test]
async fn concurrent_discoveries_of_one_agent_fetch_its_card_once() {
    let scenario = Scenario { delay: Some(Duration::from_millis(200)), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let cache = DiscoveryCache::default();
    let a = Client::builder().discovery_cache(cache.clone()).build().unwrap();
    let b = Client::builder().discovery_cache(cache).build().unwrap();
    let (first, second, third) = tokio::join!(a.discover(&base), b.discover(&base), a.discover(&base));
    let (first, second, third) = (first.unwrap(), second.unwrap(), third.unwrap());
    assert_eq!(requests(&shared).len(), 1, "one fetch while the others waited for it");
    assert!(first.ptr_eq(&second) && first.ptr_eq(&third), "every caller got the one fetched document");
}

#[tokio::test]
async fn a_503_on_the_card_is_retried_then_succeeds() {
    let scenario = Scenario { forced: VecDeque::from([503, 502]), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let retry = RetryPolicy::new(3, Duration::from_millis(5), Duration::from_millis(20), 1.0).unwrap();
    let client = Client::builder().retry_policy(retry).build().unwrap();
    let card = client.discover(&base).await.unwrap();
    assert_eq!(card.json()["name"], "echo");
    assert_eq!(requests(&shared).len(), 3);
    assert_eq!(client.metrics().snapshot().retries, 2);
}

#[tokio::test]
async fn a_503_with_retry_after_is_retried_no_sooner_than_it_asks() {
    let scenario =
        Scenario { forced: VecDeque::from([503]), retry_after: Some("1"), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let retry = RetryPolicy::new(3, Duration::from_millis(5), Duration::from_secs(2), 0.0).unwrap();
    let client = Client::builder().retry_policy(retry).build().unwrap();
    let start = std::time::Instant::now();
    client.discover(&base).await.unwrap();
    assert!(start.elapsed() >= Duration::from_secs(1), "waited {:?}, not the 5 ms backoff", start.elapsed());
    assert_eq!(requests(&shared).len(), 2);
}

#[tokio::test]
async fn a_503_asking_to_wait_past_the_largest_delay_is_returned_with_the_wait() {
    let scenario =
        Scenario { forced: VecDeque::from([503]), retry_after: Some("120"), ..serving(CARD, "\"v1\"") };
    let (base, shared) = card_server(scenario).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert_eq!((err.status(), err.retry_after()), (Some(503), Some(Duration::from_secs(120))));
    assert!(err.is_retryable(), "still a transport fault the caller may retry later");
    assert_eq!(requests(&shared).len(), 1, "not retried within the 5 s largest delay");
}

#[tokio::test]
async fn a_503_past_the_retry_budget_is_a_retryable_transport_fault() {
    let scenario = Scenario { forced: VecDeque::from([503, 503]), ..serving(CARD, "\"v1\"") };
    let (base, _shared) = card_server(scenario).await;
    let retry = RetryPolicy::new(2, Duration::from_millis(5), Duration::from_millis(5), 0.0).unwrap();
    let client = Client::builder().retry_policy(retry).build().unwrap();
    let err = client.discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert_eq!(err.status(), Some(503));
}

#[tokio::test]
async fn a_card_that_is_not_json_is_bad_input_with_a_reason() {
    let (base, _shared) = card_server(serving(r#"{"name": "echo", "#, "\"v1\"")).await;
    let (client, _clock) = client_with_clock();
    let err = client.discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(err.parse_error().is_some());
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn an_unreachable_agent_is_a_connect_fault() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::builder().retry_policy(RetryPolicy::no_retry()).build().unwrap();
    let err = client.discover(&format!("http://{addr}")).await.unwrap_err();
    assert!(err.is_connect(), "{err:?}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn a_card_of_the_wrong_shape_is_bad_input_naming_the_json_path() {
    let lying = CARD.replace(r#""streaming":true"#, r#""streaming":"yes""#);
    let (base, _shared) = card_server(serving(&lying, "\"v1\"")).await;
    let (client, _clock) = client_with_clock();
    let err = client.discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert_eq!(err.parse_error().map(|e| e.path()), Some("capabilities.streaming"));
}

/// Agno's card as served: every member it leaves unset is written `null` (skills' `tags` too).
const AGNO_CARD: &str = r#"{"additionalInterfaces":null,
  "capabilities":{"extensions":null,"pushNotifications":null,"stateTransitionHistory":null,"streaming":true},
  "defaultInputModes":["text"],"defaultOutputModes":["text"],"description":"weather","documentationUrl":null,
  "iconUrl":null,"name":"weather-agent","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
  "provider":null,"security":null,"securitySchemes":null,"signatures":null,
  "skills":[{"description":"weather","examples":null,"id":"w","inputModes":null,"name":"w",
             "outputModes":null,"security":null,"tags":null}],
  "supportsAuthenticatedExtendedCard":null,"url":"http://127.0.0.1:1/a2a/rpc","version":"3.1.10"}"#;

#[tokio::test]
async fn a_card_writing_null_for_its_unset_members_is_discovered_with_its_claims() {
    let (base, _shared) = card_server(serving(AGNO_CARD, "\"agno\"")).await;
    let (client, _clock) = client_with_clock();
    let card = client.discover(&base).await.unwrap();
    assert_eq!(card.shape(), CardShape::V03);
    assert!(card.claims(Deployment::Direct).declares(Capability::Streaming));
    assert!(!card.claims(Deployment::Direct).declares(Capability::PushNotifications));
    assert!(card.card().skills[0].tags.is_empty());
    let offered = card.offered_interfaces().unwrap();
    assert_eq!(offered[0].url, "http://127.0.0.1:1/a2a/rpc", "additionalInterfaces: null lists nothing more");
    assert_eq!(offered.len(), 1);
}
