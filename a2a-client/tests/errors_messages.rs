//! Errors that say what happened: what an agent served, how many attempts ran and for how long,
//! which URLs were asked, and what a contradiction or a mark is about, in words.

mod auth_common;

use std::collections::HashMap;
use std::error::Error as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_typestate::{
    Bounds, Call, Capability, CapabilitySet, CardClaims, Deployment, ExchangeModes, Observed, Verifier,
};
use a2a_typestate_client::negotiate::TaskPath;
use a2a_typestate_client::{
    AgentBaseUrl, Client, DiscoveryCache, Error, ErrorKind, RetryPolicy, TransportFault, WellKnownPath,
};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

const CARD: &str = r#"{"name":"echo","description":"echoes","version":"1.0.0",
  "supportedInterfaces":[{"url":"rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;

/// What the ad-hoc server serves at each path (`(content type, body)`; anything else is 404) and
/// every `(method, path)` it was asked.
#[derive(Clone, Default)]
struct Site {
    pages: Arc<HashMap<&'static str, (&'static str, &'static str)>>,
    asked: Arc<Mutex<Vec<(Method, String)>>>,
}

impl Site {
    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().iter().map(|(method, path)| format!("{method} {path}")).collect()
    }
}

async fn site(pages: &[(&'static str, &'static str, &'static str)]) -> (String, Site) {
    let site = Site {
        pages: Arc::new(pages.iter().map(|(path, kind, body)| (*path, (*kind, *body))).collect()),
        ..Site::default()
    };
    let shared = site.clone();
    let app = axum::Router::new().fallback(move |method: Method, uri: Uri| {
        let site = shared.clone();
        async move {
            site.asked.lock().unwrap().push((method, uri.path().to_owned()));
            let page: Response = match site.pages.get(uri.path()) {
                Some((kind, body)) => ([(header::CONTENT_TYPE, *kind)], *body).into_response(),
                None => StatusCode::NOT_FOUND.into_response(),
            };
            page
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), site)
}

/// A listener that accepts connections and never answers.
async fn silent_agent() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{addr}")
}

fn quick_retries(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts, Duration::from_millis(1), Duration::from_millis(2), 0.0).unwrap()
}

fn client(policy: RetryPolicy, request_timeout: Duration) -> Client {
    Client::builder().retry_policy(policy).request_timeout(request_timeout).build().unwrap()
}

#[tokio::test]
async fn a_card_served_as_html_is_reported_with_its_content_type() {
    let html = "<!doctype html><html><body>Sign in</body></html>";
    let (base, _site) = site(&[("/.well-known/agent-card.json", "text/html; charset=utf-8", html)]).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    let card_url = format!("{base}/.well-known/agent-card.json");
    assert_eq!(
        err.to_string(),
        format!("the agent card at {card_url} is not JSON (got text/html; charset=utf-8)")
    );
    assert_eq!(err.url(), Some(card_url.as_str()));
    assert!(err.parse_error().is_some(), "the parser's account stays readable as the source");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn a_card_served_with_no_content_type_that_is_not_json_says_so() {
    // A page without a content type: served by hand, since the helper always sends one.
    let app = axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get(|| async { Response::new(axum::body::Body::from("Not a card")) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let err = Client::builder().build().unwrap().discover(&format!("http://{addr}")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(err.to_string().ends_with("is not JSON (got no content type)"), "{err}");
}

#[tokio::test]
async fn broken_json_served_as_json_keeps_the_parsers_position() {
    let (base, _site) = site(&[("/.well-known/agent-card.json", "application/json", "{\"name\":")]).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(err.to_string().starts_with("bad input in agent card"), "{err}");
    assert!(!err.to_string().contains("not JSON"), "it is JSON, broken: {err}");
}

#[tokio::test]
async fn a_timeout_is_not_waited_for_twice_and_names_the_request_timeout() {
    let base = silent_agent().await;
    let err = client(quick_retries(3), Duration::from_millis(100)).discover(&base).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.attempts(), Some(1), "one hung agent costs one request timeout: {err}");
    assert_eq!(err.request_timeout(), Some(Duration::from_millis(100)));
    assert!(err.to_string().starts_with("transport fault: timed out"), "{err}");
    let source = err.source().map(ToString::to_string).unwrap_or_default();
    assert!(source.contains("within the request timeout of 100 ms"), "{source}");
}

#[tokio::test]
async fn a_timed_out_send_is_not_sent_again_and_says_the_work_may_have_run() {
    let silent = silent_agent().await;
    let card = serde_json::json!({
        "name": "slow", "description": "d", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
        "supportedInterfaces": [{"url": format!("{silent}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    });
    let base = auth_common::serve_card(card).await;
    let client = client(quick_retries(2), Duration::from_millis(100));
    let connection = client.connect(&base).await.unwrap();
    let err = connection.send_message(auth_common::text("hi")).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.attempts(), Some(1));
    assert!(err.may_have_run(), "{err}");
    assert!(
        err.to_string().contains("the agent may have done the work, so the message was not sent again"),
        "{err}"
    );
    assert_eq!(err.url(), Some(format!("{silent}/rpc").as_str()));
}

#[tokio::test]
async fn a_refused_connection_after_retries_names_the_attempts() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = client(quick_retries(3), Duration::from_secs(5))
        .discover(&format!("http://127.0.0.1:{port}"))
        .await
        .unwrap_err();
    assert!(err.is_connect(), "{err:?}");
    assert_eq!(err.attempts(), Some(3));
    let text = err.to_string();
    assert!(text.starts_with("transport fault: connection failed after 3 attempts in "), "{text}");
    assert!(!text.contains("request timeout"), "no timeout ran out: {text}");
}

#[tokio::test]
async fn a_single_attempt_is_not_called_several() {
    let base = silent_agent().await;
    let err = client(RetryPolicy::no_retry(), Duration::from_millis(50)).discover(&base).await.unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(err.attempts(), Some(1));
    assert!(!err.to_string().contains("attempts"), "{err}");
}

#[tokio::test]
async fn a_card_fetch_is_bounded_by_the_operation_deadline() {
    let base = silent_agent().await;
    let client = Client::builder()
        .retry_policy(quick_retries(3))
        .request_timeout(Duration::from_secs(30))
        .operation_deadline(Duration::from_millis(200))
        .build()
        .unwrap();
    let err = client.discover(&base).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.attempts(), Some(1), "the deadline cut the first 30 s attempt");
    let source = err.source().map(ToString::to_string).unwrap_or_default();
    assert_eq!(
        source,
        "the operation deadline of 200 ms passed during attempt 1 (each attempt bounded by the request timeout of 30 s)"
    );
    assert_eq!(err.url(), Some(format!("{base}/").as_str()), "the agent it was discovering");
}

#[tokio::test]
async fn an_address_ending_in_a_card_path_is_fetched_as_the_card() {
    let (base, site) = site(&[("/api/agent-card.json", "application/json", CARD)]).await;
    let given = format!("{base}/api/agent-card.json");
    let client = client(RetryPolicy::no_retry(), Duration::from_secs(5));
    let card = client.discover(&given).await.unwrap();
    assert_eq!(card.card().name, "echo");
    assert_eq!(card.source_url(), given);
    assert_eq!(card.well_known_path(), WellKnownPath::AgentCard);
    assert_eq!(site.asked(), ["GET /api/agent-card.json"], "no well-known path joined to it");
    // The agent is known by that URL.
    let agent = AgentBaseUrl::parse(&given).unwrap();
    assert!(client.discovery_cache().get(&agent).is_some());
    // Its relative interface URL resolves against the URL that served the card.
    let connection = client.connect(&given).await.unwrap();
    let _ = connection.send_message(auth_common::text("hi")).await;
    assert_eq!(site.asked().last().map(String::as_str), Some("POST /api/rpc"), "{:?}", site.asked());
}

#[tokio::test]
async fn a_well_known_card_url_given_as_the_address_is_fetched_as_it_is() {
    let (base, site) = site(&[("/.well-known/agent.json", "application/json", CARD)]).await;
    let given = format!("{base}/.well-known/agent.json");
    let card = client(RetryPolicy::no_retry(), Duration::from_secs(5)).discover(&given).await.unwrap();
    assert_eq!(card.well_known_path(), WellKnownPath::LegacyAgent);
    assert_eq!(site.asked(), ["GET /.well-known/agent.json"]);
}

#[tokio::test]
async fn a_404_on_a_base_url_says_which_urls_were_tried() {
    let (base, site) = site(&[]).await;
    let err = client(RetryPolicy::no_retry(), Duration::from_secs(5))
        .discover(&format!("{base}/agents/a"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Status);
    assert_eq!(err.status(), Some(404));
    assert_eq!(
        err.to_string(),
        format!(
            "no agent card at {base}/agents/a: {base}/agents/a/.well-known/agent-card.json answered 404, \
             then {base}/agents/a/.well-known/agent.json answered 404 (a card served elsewhere is read \
             when its own url, ending in agent-card.json, is given)"
        )
    );
    assert_eq!(site.asked().len(), 2);
}

#[tokio::test]
async fn a_404_on_a_card_url_names_that_url_and_tries_nothing_else() {
    let (base, site) = site(&[]).await;
    let given = format!("{base}/api/agent-card.json");
    let err = client(RetryPolicy::no_retry(), Duration::from_secs(5)).discover(&given).await.unwrap_err();
    assert_eq!((err.kind(), err.status()), (ErrorKind::Status, Some(404)));
    assert_eq!(err.to_string(), format!("unexpected http status 404 ({given})"));
    assert_eq!(site.asked(), ["GET /api/agent-card.json"]);
}

fn refused_streaming() -> a2a_typestate::AgentCardLifecycleViolation {
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(CARD).unwrap();
    let mut claims_card = card;
    claims_card.capabilities.streaming = Some(true);
    let claims = Arc::new(CardClaims::lift(&claims_card, Deployment::Direct));
    let mut verifier = Verifier::new(claims, CapabilitySet::of(&[Capability::Streaming]), Bounds::default());
    let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
    verifier.observe(Duration::ZERO, sent);
    let at = Duration::from_millis(10);
    verifier.observe(at, Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 });
    verifier.refusal(at).unwrap()
}

#[test]
fn a_lifecycle_violation_error_names_the_capability_and_the_contradiction() {
    let violation = refused_streaming();
    let err = Error::from(violation.clone());
    assert_eq!(err.kind(), ErrorKind::LifecycleViolation);
    assert_eq!(err.to_string(), format!("agent card lifecycle violation: {violation}"));
    assert!(
        err.to_string().contains(
            "card declares streaming but the agent answered SendStreamingMessage with error -32004 (not supported)"
        ),
        "{err}"
    );
    assert!(err.source().is_none(), "not repeated as a source");
}

#[tokio::test(start_paused = true)]
async fn a_suspect_mark_displays_its_capability_evidence_and_time_left() {
    let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_secs(3600));
    let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
    cache.mark_suspect(&agent, Capability::Streaming, "completed with no streamed artifact");
    let mark = cache.is_suspect(&agent).unwrap();
    assert_eq!(
        mark.to_string(),
        "streaming contradicted: completed with no streamed artifact (1 h 0 min left of its ttl, marked by this client)"
    );
    tokio::time::advance(Duration::from_millis(1500)).await;
    assert!(mark.to_string().contains("(59 min 59 s left of its ttl"), "rounded up: {mark}");
    tokio::time::advance(Duration::from_secs(3600)).await;
    assert!(mark.to_string().contains("(expired, "), "{mark}");
    assert!(!mark.to_string().contains("Instant"), "{mark}");
}

#[tokio::test(start_paused = true)]
async fn a_task_path_displays_in_words() {
    assert_eq!(TaskPath::Negotiated.to_string(), "negotiated");
    assert_eq!(TaskPath::Fallback.to_string(), "single-shot fallback after a refused claim");
    let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_secs(60));
    let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
    cache.mark_suspect(&agent, Capability::PushNotifications, "no callback");
    let path = TaskPath::SingleShotBecauseSuspect(cache.is_suspect(&agent).unwrap());
    assert_eq!(
        path.to_string(),
        "single-shot, the agent being capability-suspect (pushNotifications contradicted: no callback \
         (1 min 0 s left of its ttl, marked by this client))"
    );
}

#[test]
fn a_timeout_fault_kind_is_unchanged_by_its_wording() {
    let err = Error::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
    assert_eq!(err.transport_fault(), Some(TransportFault::Timeout));
    assert_eq!(err.attempts(), None, "not from a retried call");
    assert_eq!(err.to_string(), "transport fault: timed out");
}
