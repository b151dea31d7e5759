//! No number from the wire panics the process: each one a token endpoint, a card server, an agent
//! or a shared-cache peer sends, and that becomes a duration, goes through one checked reader and
//! is capped (a token lifetime at a year, `max-age` at 2^31 s, `Retry-After` at a day, a peer's TTL
//! at a year) or ignored, as documented. Each through its real path: the token fetch, discovery,
//! the retry loop, the card's claims, the replica a shared backend feeds.

mod auth_common;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_typestate::Deployment;
use a2a_typestate_client::auth::{Credentials, OAuth2ClientCredentials, Secret};
use a2a_typestate_client::shared::{CacheUpdate, LocalReplica, SharedCard, SharedMark};
use a2a_typestate_client::{
    AgentBaseUrl, BackendStatus, CacheBackend, Capability, Client, DiscoveryCache, RetryPolicy, WellKnownPath,
};
use auth_common::{builder, completes, guarded, oauth_guard};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;

const YEAR: Duration = Duration::from_secs(365 * 86_400);
const DAY: Duration = Duration::from_secs(86_400);
const DELTA_SECONDS_CAP: Duration = Duration::from_secs(1 << 31);

/// The numbers of the issue, as the JSON text a hostile peer writes.
const HOSTILE: [&str; 13] = [
    "0",
    "-1",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e400",
    "-0.0",
    r#""1e19""#,
    r#""abc""#,
    r#""""#,
    r#"" 5 ""#,
    "true",
    "null",
];

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A token endpoint in front of the agent's own: it gets a real token from the agent and hands it
/// on with `expires_in` set to the JSON text in `expires_in`. Counts the tokens it hands out.
struct TokenFront {
    agent_token_url: String,
    expires_in: Mutex<String>,
    issued: AtomicUsize,
}

async fn front_token(State(front): State<Arc<TokenFront>>, headers: HeaderMap, body: String) -> Response {
    let mut ask = reqwest::Client::new().post(&front.agent_token_url).body(body);
    for name in [header::AUTHORIZATION, header::CONTENT_TYPE] {
        if let Some(value) = headers.get(&name) {
            ask = ask.header(name.as_str(), value.to_str().unwrap());
        }
    }
    let answer: serde_json::Value = ask.send().await.unwrap().json().await.unwrap();
    let token = answer["access_token"].as_str().unwrap().to_owned();
    front.issued.fetch_add(1, Ordering::SeqCst);
    let expires_in = front.expires_in.lock().unwrap().clone();
    let body = format!(r#"{{"access_token":{token:?},"token_type":"Bearer","expires_in":{expires_in}}}"#);
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The tokens fetched for two calls made at once after each other, per `expires_in`: a lifetime
/// of zero is refreshed for each call; negative, not a number, or absent is no lifetime (the token
/// is kept); past a year is a year (kept); `1e400` as a JSON number is an unreadable answer.
#[tokio::test]
async fn a_token_lifetime_from_the_wire_never_panics_and_is_read_as_documented() {
    let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
    let front = Arc::new(TokenFront {
        agent_token_url: format!("{}{}", agent.base_url(), a2a_testkit::auth::TOKEN_PATH),
        expires_in: Mutex::new(String::new()),
        issued: AtomicUsize::new(0),
    });
    let token_url = serve(
        axum::Router::new().route("/token", axum::routing::post(front_token)).with_state(front.clone()),
    )
    .await;
    for expires_in in HOSTILE {
        *front.expires_in.lock().unwrap() = expires_in.to_owned();
        front.issued.store(0, Ordering::SeqCst);
        let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"))
            .token_url(format!("{token_url}/token"));
        let client = builder().credentials(Credentials::new().with(oauth)).build().unwrap();
        let connection = client.connect(&agent.base_url()).await.unwrap();
        if expires_in == "1e400" {
            let err = connection.send_message(auth_common::text("hi")).await.unwrap_err();
            assert!(err.to_string().contains("token endpoint answer"), "{expires_in}: {err}");
            continue;
        }
        completes(&connection).await;
        completes(&connection).await;
        let expected = if matches!(expires_in, "0" | "-0.0") { 2 } else { 1 };
        assert_eq!(
            front.issued.load(Ordering::SeqCst),
            expected,
            "tokens fetched with expires_in {expires_in}"
        );
    }
}

/// A told lifetime is kept to: a one-second token (half its life, under twice the refresh margin)
/// is not used a second later.
#[tokio::test]
async fn a_token_is_not_used_past_the_lifetime_it_was_given() {
    let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
    let front = Arc::new(TokenFront {
        agent_token_url: format!("{}{}", agent.base_url(), a2a_testkit::auth::TOKEN_PATH),
        expires_in: Mutex::new(r#""1""#.to_owned()),
        issued: AtomicUsize::new(0),
    });
    let token_url = serve(
        axum::Router::new().route("/token", axum::routing::post(front_token)).with_state(front.clone()),
    )
    .await;
    let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"))
        .token_url(format!("{token_url}/token"));
    let client = builder().credentials(Credentials::new().with(oauth)).build().unwrap();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    completes(&connection).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    completes(&connection).await;
    assert_eq!(front.issued.load(Ordering::SeqCst), 2);
}

const CARD: &str = r#"{"name":"echo","description":"echoes","version":"1.0.0",
  "supportedInterfaces":[{"url":"http://127.0.0.1:1/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;

/// A card server: the card with an ETag, the headers given, and 304 to a matching If-None-Match;
/// or each status in `forced` first, with `Retry-After` when one is given.
#[derive(Default)]
struct CardServer {
    card: String,
    headers: Vec<(header::HeaderName, String)>,
    forced: VecDeque<u16>,
    retry_after: Option<String>,
    requests: usize,
}

type Shared = Arc<Mutex<CardServer>>;

async fn card(State(server): State<Shared>, headers: HeaderMap) -> Response {
    let mut s = server.lock().unwrap();
    s.requests += 1;
    if let Some(status) = s.forced.pop_front() {
        let mut response = StatusCode::from_u16(status).unwrap().into_response();
        if let Some(wait) = &s.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, wait.parse().unwrap());
        }
        return response;
    }
    let revalidated = headers.get(header::IF_NONE_MATCH).is_some_and(|v| v == "\"v1\"");
    let mut response = if revalidated {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], s.card.clone()).into_response()
    };
    response.headers_mut().insert(header::ETAG, "\"v1\"".parse().unwrap());
    for (name, value) in &s.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

async fn card_server(server: CardServer) -> (String, Shared) {
    let shared: Shared = Arc::new(Mutex::new(server));
    let base = serve(axum::Router::new().fallback(card).with_state(shared.clone())).await;
    (base, shared)
}

fn requests(shared: &Shared) -> usize {
    shared.lock().unwrap().requests
}

/// `max-age` and `Age` are read as at most 2^31 seconds (RFC 9111 §1.2.2); a negative one, or one
/// that is no number, is ignored (the cache's default lifetime, 300 s here). Fresh for that long,
/// then revalidated (the 304 renews it with the same headers), never a panic.
#[tokio::test]
async fn a_card_max_age_from_the_wire_never_panics_and_is_capped_at_2_pow_31_seconds() {
    let default_ttl = Duration::from_secs(300);
    let table: [(&str, Option<&str>, Duration); 11] = [
        ("18446744073709551615", None, DELTA_SECONDS_CAP),
        ("18446744073709551616", None, DELTA_SECONDS_CAP),
        ("9223372036854775808", None, DELTA_SECONDS_CAP),
        ("1e400", None, DELTA_SECONDS_CAP),
        ("1e19", None, DELTA_SECONDS_CAP),
        ("-1", None, default_ttl),
        ("abc", None, default_ttl),
        ("", None, default_ttl),
        ("60", Some("18446744073709551615"), Duration::ZERO),
        ("18446744073709551615", Some("18446744073709551615"), Duration::ZERO),
        ("60", Some("-1"), Duration::from_secs(60)),
    ];
    for (max_age, age, lifetime) in table {
        let mut headers = vec![(header::CACHE_CONTROL, format!("max-age={max_age}"))];
        headers.extend(age.map(|age| (header::AGE, age.to_owned())));
        let (base, shared) =
            card_server(CardServer { card: CARD.into(), headers, ..CardServer::default() }).await;
        let (cache, clock) = DiscoveryCache::with_manual_clock(default_ttl, Duration::from_secs(60));
        let client = Client::builder().discovery_cache(cache).build().unwrap();
        let case = format!("max-age={max_age} age={age:?}");
        client.discover(&base).await.unwrap();
        if lifetime.is_zero() {
            client.discover(&base).await.unwrap();
            assert_eq!(requests(&shared), 2, "{case}: stale at once");
            continue;
        }
        clock.advance(lifetime - Duration::from_secs(1));
        client.discover(&base).await.unwrap();
        assert_eq!(requests(&shared), 1, "{case}: fresh for its lifetime");
        clock.advance(Duration::from_secs(2));
        client.discover(&base).await.unwrap();
        assert_eq!(requests(&shared), 2, "{case}: revalidated past it");
        client.discover(&base).await.unwrap();
        assert_eq!(requests(&shared), 2, "{case}: the 304 made it fresh again");
    }
}

/// `Retry-After` is read as at most a day: past the policy's largest delay, so the error is
/// returned at once, with the wait it asked for capped; one that is no number is not read (the
/// policy's own backoff, all attempts).
#[tokio::test]
async fn a_retry_after_from_the_wire_never_panics_and_past_the_largest_delay_ends_the_retries() {
    let table: [(&str, Option<Duration>, usize); 9] = [
        ("18446744073709551615", Some(DAY), 1),
        ("18446744073709551616", Some(DAY), 1),
        ("9223372036854775808", Some(DAY), 1),
        ("1e400", Some(DAY), 1),
        ("0", Some(Duration::ZERO), 3),
        ("-1", None, 3),
        ("abc", None, 3),
        ("", None, 3),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None, 3),
    ];
    for (retry_after, read, attempts) in table {
        let server = CardServer {
            card: CARD.into(),
            forced: [503; 3].into(),
            retry_after: Some(retry_after.to_owned()),
            ..CardServer::default()
        };
        let (base, shared) = card_server(server).await;
        let retry = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(50), 0.0).unwrap();
        let client = Client::builder().retry_policy(retry).build().unwrap();
        let err = client.discover(&base).await.unwrap_err();
        assert_eq!(err.status(), Some(503), "{retry_after}");
        assert_eq!(err.retry_after(), read, "Retry-After: {retry_after}");
        assert_eq!(requests(&shared), attempts, "Retry-After: {retry_after}");
    }
}

/// The card's poll-cadence `intervalMs` is a positive JSON number of milliseconds, at most a day;
/// anything else declares no cadence.
#[tokio::test]
async fn a_card_poll_cadence_from_the_wire_never_panics_and_is_read_within_a_day() {
    let table: [(&str, Option<Duration>); 12] = [
        ("1500", Some(Duration::from_millis(1_500))),
        ("1.5e3", Some(Duration::from_millis(1_500))),
        ("0", None),
        ("-0.0", None),
        ("-1", None),
        ("9223372036854775808", Some(DAY)),
        ("18446744073709551615", Some(DAY)),
        ("18446744073709551616", Some(DAY)),
        (r#""1500""#, None),
        (r#""abc""#, None),
        ("true", None),
        ("null", None),
    ];
    for (interval_ms, cadence) in table {
        let card = CARD.replace(
            r#""capabilities":{"streaming":true}"#,
            &format!(
                r#""capabilities":{{"extensions":[{{"uri":"{}","params":{{"intervalMs":{interval_ms}}}}}]}}"#,
                a2a_typestate::POLL_CADENCE_EXTENSION_URI
            ),
        );
        let (base, _shared) = card_server(CardServer { card, ..CardServer::default() }).await;
        let discovered = Client::builder().build().unwrap().discover(&base).await.unwrap();
        assert_eq!(discovered.claims(Deployment::Direct).poll_cadence(), cadence, "intervalMs {interval_ms}");
    }
}

/// A backend that hands its replica out, and serves one card with the freshness it is given.
#[derive(Debug)]
struct HostilePeer {
    replica: Arc<Mutex<Option<LocalReplica>>>,
    fresh_for: Duration,
}

impl CacheBackend for HostilePeer {
    fn start(&self, replica: LocalReplica) -> Result<(), a2a_typestate_client::Error> {
        *self.replica.lock().unwrap() = Some(replica);
        Ok(())
    }

    fn send(&self, _update: CacheUpdate) {}

    fn load_card<'a>(&'a self, agent: &'a AgentBaseUrl) -> BoxFuture<'a, Option<SharedCard>> {
        let card = SharedCard {
            raw: CARD.as_bytes().to_vec().into(),
            source_url: format!("{agent}.well-known/agent-card.json"),
            path: WellKnownPath::AgentCard,
            etag: Some("\"v1\"".into()),
            fresh_for: self.fresh_for,
        };
        Box::pin(async move { Some(card) })
    }

    fn flush(&self, _within: Duration) -> BoxFuture<'_, bool> {
        Box::pin(async { true })
    }

    fn status(&self) -> BackendStatus {
        BackendStatus::Connected
    }
}

/// A peer's TTL (a mark, a route, a breaker, a card's freshness), however long, is held at most a
/// year here.
#[tokio::test]
async fn a_ttl_from_a_shared_cache_peer_never_panics_and_is_held_at_most_a_year() {
    for ttl in [Duration::MAX, Duration::from_secs(u64::MAX), Duration::from_millis(u64::MAX), YEAR * 2] {
        let replica = Arc::new(Mutex::new(None));
        let peer = HostilePeer { replica: replica.clone(), fresh_for: ttl };
        let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_secs(60))
            .with_backend(peer)
            .unwrap();
        let replica = replica.lock().unwrap().clone().unwrap();
        let (base, shared) = card_server(CardServer { card: CARD.into(), ..CardServer::default() }).await;
        let agent = AgentBaseUrl::parse(&base).unwrap();
        let mark = SharedMark {
            claim: Capability::Streaming.into(),
            evidence: "peer".into(),
            card_version: None,
            ttl,
            marked_by: Some("peer".into()),
        };
        let now = tokio::time::Instant::now();
        assert!(replica.apply_mark(&agent, mark), "{ttl:?}");
        let held = cache.suspect_marks(&agent)[0].expires_at().saturating_duration_since(now);
        assert!(held <= YEAR + Duration::from_secs(1) && held >= YEAR - Duration::from_secs(60), "{held:?}");
        assert!(replica.apply_route(&agent, &format!("{base}/a2a/jsonrpc"), ttl));
        assert!(replica.apply_unavailable(&agent, 3, "peer", ttl, None));
        let open = cache.unavailable(&agent).unwrap().reopens_in();
        assert!(open <= YEAR && open >= YEAR - Duration::from_secs(60), "{open:?}");
        assert!(replica.apply_available(&agent));
        // The shared card is fresh for at most a year: taken without asking the card server.
        let client = Client::builder().discovery_cache(cache.clone()).build().unwrap();
        client.discover(&base).await.unwrap();
        assert_eq!(requests(&shared), 0, "{ttl:?}: the peer's card is used");
    }
}
