//! Agents that require credentials: each scheme authenticates, OAuth 2.0 tokens are cached and
//! refreshed, 401 and 403 are their own error kind, the extended card replaces the public one, and
//! a client without fitting credentials fails with an error that names what the card asks for.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_client::auth::{
    ApiKey, BasicAuth, BearerToken, ClientAuthentication, ClientIdentity, Credentials, Interceptor,
    OAuth2ClientCredentials, RequestContext, ResponseInfo, Secret,
};
use a2a_client::{AgentBaseUrl, AgentConnection, Capability, Client, ErrorKind, RetryPolicy};
use a2a_testkit::{Capabilities, Guard, KeyLocation, OAuth2Guard, RunningAgent, ScriptedAgent, TestPki};
use a2a_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_types::{Message, SendMessageRequest, SendMessageResponse};
use a2a_typestate::Deployment;
use futures::future::BoxFuture;

fn builder() -> a2a_client::ClientBuilder {
    let retry = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(50), 0.0).unwrap();
    Client::builder().retry_policy(retry).request_timeout(Duration::from_secs(20))
}

fn client(credentials: Credentials) -> Client {
    builder().credentials(credentials).build().unwrap()
}

async fn guarded(guard: Guard) -> RunningAgent {
    ScriptedAgent::builder().guard(guard).spawn().await.unwrap()
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user_text(uuid::Uuid::new_v4().to_string(), text))
}

async fn completes(connection: &AgentConnection) {
    match connection.send_message(text("hi")).await.unwrap() {
        SendMessageResponse::Task(task) => assert_eq!(task.status.state.as_str(), "TASK_STATE_COMPLETED"),
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn over_rest(client: &Client, agent: &RunningAgent) -> AgentConnection {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && i.binding == ProtocolBinding::HttpJson)
        .unwrap();
    AgentConnection::open(client, base, card, interface).unwrap()
}

#[tokio::test]
async fn a_bearer_token_authenticates_over_both_bindings() {
    let agent = guarded(Guard::bearer("tok-bearer-1")).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("tok-bearer-1"))));
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    completes(&over_rest(&client, &agent).await).await;
    let sent = agent.requests_for("SendMessage");
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|r| r.header("authorization") == Some("Bearer tok-bearer-1")));
}

#[tokio::test]
async fn api_keys_go_where_the_scheme_says() {
    for location in [KeyLocation::Header, KeyLocation::Query, KeyLocation::Cookie] {
        let agent = guarded(Guard::api_key(location, "X-Key", "key-value-7")).await;
        let client = client(Credentials::new().with(ApiKey::new(Secret::new("key-value-7"))));
        let connection = client.connect(&agent.base_url()).await.unwrap();
        completes(&connection).await;
        let sent = &agent.requests_for("SendMessage")[0];
        match location {
            KeyLocation::Header => assert_eq!(sent.header("x-key"), Some("key-value-7")),
            KeyLocation::Query => assert_eq!(sent.query.as_deref(), Some("X-Key=key-value-7")),
            KeyLocation::Cookie => assert_eq!(sent.header("cookie"), Some("X-Key=key-value-7")),
        }
        // The REST binding puts query keys beside its own query parameters.
        completes(&over_rest(&client, &agent).await).await;
    }
}

#[tokio::test]
async fn http_basic_authenticates() {
    let agent = guarded(Guard::basic("alice", "pw-basic-3")).await;
    let client = client(Credentials::new().with(BasicAuth::new("alice", Secret::new("pw-basic-3"))));
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
}

#[tokio::test]
async fn a_wrong_credential_is_an_auth_error_sent_once_never_retried() {
    let agent = guarded(Guard::bearer("right-token")).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("wrong-token-9"))));
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let err = connection.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert_eq!(err.status(), Some(401));
    assert!(!err.is_retryable() && err.transport_fault().is_none() && err.protocol_error().is_none());
    let shown = err.to_string();
    assert!(shown.contains("bearer (http bearer)"), "{shown}");
    assert!(!shown.contains("wrong-token-9") && !format!("{err:?}").contains("wrong-token-9"), "{shown}");
    assert_eq!(agent.requests_for("SendMessage").len(), 1, "a static credential is not sent again");
    let rest = over_rest(&client, &agent).await.send_message(text("hi")).await.unwrap_err();
    assert_eq!((rest.kind(), rest.status()), (ErrorKind::Auth, Some(401)));
}

#[tokio::test]
async fn without_fitting_credentials_connect_names_the_schemes_the_card_asks_for() {
    let agent = guarded(Guard::api_key(KeyLocation::Header, "X-Key", "k")).await;
    // A bearer token does not answer an API key scheme.
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("unused-token"))));
    let err = client.connect(&agent.base_url()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    let shown = err.to_string();
    assert!(shown.contains("apiKey (api key in header X-Key)"), "{shown}");
    assert!(agent.requests_for("SendMessage").is_empty());
}

#[tokio::test]
async fn credentials_for_another_agent_or_scheme_name_do_not_apply() {
    let agent = guarded(Guard::bearer("t")).await;
    let elsewhere = Credentials::new()
        .with_for_agent("http://127.0.0.2:9", BearerToken::new(Secret::new("t")))
        .unwrap()
        .with_for_scheme("otherScheme", BearerToken::new(Secret::new("t")));
    assert_eq!(client(elsewhere).connect(&agent.base_url()).await.unwrap_err().kind(), ErrorKind::Auth);
    let here = Credentials::new()
        .with_for_agent_scheme(&agent.base_url(), "bearer", BearerToken::new(Secret::new("t")))
        .unwrap();
    completes(&client(here).connect(&agent.base_url()).await.unwrap()).await;
}

fn oauth_guard(lifetime: Duration, announced: Duration, openid_connect: bool) -> Guard {
    Guard::OAuth2(OAuth2Guard {
        client_id: "client-1".into(),
        client_secret: "cs-oauth-5".into(),
        token_lifetime: lifetime,
        announced_lifetime: announced,
        openid_connect,
    })
}

fn token_requests(agent: &RunningAgent) -> usize {
    agent.requests().iter().filter(|r| r.path == a2a_testkit::auth::TOKEN_PATH).count()
}

#[tokio::test]
async fn oauth2_tokens_are_cached_and_fetched_again_before_they_expire() {
    let agent = guarded(oauth_guard(Duration::from_secs(2), Duration::from_secs(2), false)).await;
    let oauth = Arc::new(OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5")));
    let credentials = Credentials::new().with_shared(None, None, oauth.clone()).unwrap();
    let connection = client(credentials).connect(&agent.base_url()).await.unwrap();
    completes(&connection).await;
    completes(&connection).await;
    assert_eq!((oauth.tokens_fetched(), token_requests(&agent)), (1, 1), "one token for two calls");
    // A 2 s token is fetched again at half its life, before the agent would refuse it.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    completes(&connection).await;
    assert_eq!(token_requests(&agent), 2);
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "no call was refused");
    let form = agent.requests().into_iter().find(|r| r.path == a2a_testkit::auth::TOKEN_PATH).unwrap();
    assert!(form.header("authorization").is_some_and(|v| v.starts_with("Basic ")), "client_secret_basic");
}

#[tokio::test]
async fn a_token_the_agent_expired_early_is_refreshed_once_after_the_401() {
    // The endpoint says an hour; the agent forgets the token after 300 ms.
    let agent = guarded(oauth_guard(Duration::from_millis(300), Duration::from_secs(3600), false)).await;
    let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"))
        .client_authentication(ClientAuthentication::FormBody);
    let connection = client(Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
    completes(&connection).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    completes(&connection).await;
    assert_eq!(token_requests(&agent), 2, "the 401 caused one new token");
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "first call, the refused one, its resend");
}

#[tokio::test]
async fn a_refused_client_secret_is_an_auth_error_naming_the_token_endpoint_not_the_secret() {
    let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
    let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("bad-secret-4"));
    let connection = client(Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
    let err = connection.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    let shown = err.to_string();
    assert!(shown.contains("invalid_client") && shown.contains("/oauth/token"), "{shown}");
    assert!(!shown.contains("bad-secret-4") && !format!("{err:?}").contains("bad-secret-4"));
    assert!(agent.requests_for("SendMessage").is_empty(), "no request without a token");
}

#[tokio::test]
async fn openid_connect_discovery_finds_the_token_endpoint() {
    let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), true)).await;
    let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"));
    let connection = client(Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
    completes(&connection).await;
    completes(&connection).await;
    let discoveries =
        agent.requests().iter().filter(|r| r.path == a2a_testkit::auth::OPENID_CONFIGURATION_PATH).count();
    assert_eq!((discoveries, token_requests(&agent)), (1, 1));
}

async fn mtls_agent(pki: &TestPki) -> RunningAgent {
    ScriptedAgent::builder().guard(Guard::MutualTls).tls(pki.clone()).spawn().await.unwrap()
}

#[tokio::test]
async fn mutual_tls_authenticates_with_a_client_certificate_of_the_agents_ca() {
    let pki = TestPki::generate().unwrap();
    let agent = mtls_agent(&pki).await;
    assert!(agent.base_url().starts_with("https://127.0.0.1:"));
    let root = reqwest::Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let client = builder()
        .add_root_certificate(root)
        .client_identity(ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
}

#[tokio::test]
async fn mutual_tls_without_a_client_identity_fails_at_connect_and_a_foreign_one_never_gets_through() {
    let pki = TestPki::generate().unwrap();
    let agent = mtls_agent(&pki).await;
    let root = || reqwest::Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    // The TLS server asks every connection for a certificate, so without one even discovery
    // fails; with the card cached by a client that has one, connect itself names the mtls scheme.
    let shared_cache = a2a_client::DiscoveryCache::new(Duration::from_secs(60), Duration::from_secs(60));
    let with_identity = builder()
        .add_root_certificate(root())
        .client_identity(ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap())
        .discovery_cache(shared_cache.clone())
        .build()
        .unwrap();
    with_identity.discover(&agent.base_url()).await.unwrap();
    let without = builder().add_root_certificate(root()).discovery_cache(shared_cache).build().unwrap();
    let err = without.connect(&agent.base_url()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.to_string().contains("mtls (mutual tls)"), "{err}");

    let seen = agent.requests().len();
    let foreign = builder()
        .retry_policy(RetryPolicy::no_retry())
        .add_root_certificate(root())
        .client_identity(ClientIdentity::from_pem(pki.untrusted_client_identity_pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    assert!(foreign.discover(&agent.base_url()).await.is_err());
    assert_eq!(agent.requests().len(), seen, "no request passed the handshake with a foreign certificate");
}

#[tokio::test]
async fn an_agent_over_https_is_reached_with_a_custom_root_and_refused_without_it() {
    let pki = TestPki::generate().unwrap();
    let agent = ScriptedAgent::builder().tls(pki.clone()).spawn().await.unwrap();
    let root = reqwest::Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let trusting = builder().add_root_certificate(root).build().unwrap();
    completes(&trusting.connect(&agent.base_url()).await.unwrap()).await;
    let err =
        builder().retry_policy(RetryPolicy::no_retry()).build().unwrap().discover(&agent.base_url()).await;
    assert!(err.is_err(), "an unknown CA is not trusted");
}

#[tokio::test]
async fn the_extended_card_replaces_the_public_card_and_its_claims_for_the_connection() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    assert_eq!(agent.card()["capabilities"]["extendedAgentCard"], true);
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("tok-ext"))));
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert!(connection.uses_extended_card() && connection.extended_card_error().is_none());
    let public = connection.public_card().unwrap().claims(Deployment::Direct);
    let extended = connection.card().claims(Deployment::Direct);
    assert!(!public.declares(Capability::Streaming), "the public card claims no streaming");
    assert!(extended.declares(Capability::Streaming), "the extended card does, and it is lifted");
    assert!(connection.card().card().description.contains("extended card"));
    assert_eq!(agent.requests_for("GetExtendedAgentCard").len(), 1);
    assert_eq!(agent.requests_for("GetExtendedAgentCard")[0].header("authorization"), Some("Bearer tok-ext"));
    completes(&connection).await;
}

#[tokio::test]
async fn an_extended_card_refused_keeps_the_public_card_and_says_why() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let wrong = client(Credentials::new().with(BearerToken::new(Secret::new("tok-wrong"))));
    let connection = wrong.connect(&agent.base_url()).await.unwrap();
    assert!(!connection.uses_extended_card());
    assert_eq!(connection.extended_card_error().map(a2a_client::Error::kind), Some(ErrorKind::Auth));
}

#[derive(Debug, Default)]
struct Recorder {
    seen: Mutex<Vec<(u32, Option<u16>, bool)>>,
    before: AtomicU32,
}

impl Interceptor for Recorder {
    fn before<'a>(
        &'a self,
        request: &'a mut reqwest::Request,
        context: &'a RequestContext<'a>,
    ) -> BoxFuture<'a, Result<(), a2a_client::Error>> {
        self.before.fetch_add(1, Ordering::Relaxed);
        let credentials_attached = request.headers().contains_key("authorization");
        request.headers_mut().insert(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".parse().unwrap(),
        );
        request
            .headers_mut()
            .insert("x-saw-auth", if credentials_attached { "yes" } else { "no" }.parse().unwrap());
        let _ = context.agent();
        Box::pin(async { Ok(()) })
    }

    fn after(&self, response: &ResponseInfo<'_>) {
        assert!(!response.url().contains('?'));
        self.seen.lock().unwrap().push((
            response.attempt(),
            response.status(),
            response.elapsed() > Duration::ZERO,
        ));
    }
}

#[tokio::test]
async fn interceptors_run_after_the_auth_layer_and_see_status_and_timing() {
    let agent = guarded(Guard::bearer("tok-i")).await;
    let recorder = Arc::new(Recorder::default());
    #[derive(Debug)]
    struct Shared(Arc<Recorder>);
    impl Interceptor for Shared {
        fn before<'a>(
            &'a self,
            request: &'a mut reqwest::Request,
            context: &'a RequestContext<'a>,
        ) -> BoxFuture<'a, Result<(), a2a_client::Error>> {
            self.0.before(request, context)
        }
        fn after(&self, response: &ResponseInfo<'_>) {
            self.0.after(response);
        }
    }
    let client = builder()
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-i"))))
        .interceptor(Shared(recorder.clone()))
        .default_header("X-Team", Secret::new("blue"))
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.header("x-saw-auth"), Some("yes"), "the auth layer ran first");
    assert!(sent.header("traceparent").is_some());
    assert_eq!(sent.header("x-team"), Some("blue"), "default headers reach every request");
    assert_eq!(*recorder.seen.lock().unwrap(), vec![(1, Some(200), true)]);
}

#[tokio::test]
async fn an_auth_failure_in_a_negotiated_run_is_no_refusal_and_no_suspect_mark() {
    let agent = guarded(Guard::bearer("right")).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("wrong"))));
    let err = client
        .run_task(
            &agent.base_url(),
            Message::user_text("m1", "hi"),
            &a2a_client::negotiate::Negotiation::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.lifecycle_violation().is_none());
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none());
    assert!(client.metrics().snapshot().refusals.values().all(|n| *n == 0));
    assert_eq!(client.metrics().snapshot().fallbacks, 0);
    assert_eq!(client.metrics().snapshot().retries, 0);
}

#[tokio::test]
async fn a_brought_http_client_is_used_and_cannot_be_combined_with_tls_settings() {
    let agent = guarded(Guard::bearer("tok-own")).await;
    let own = reqwest::Client::builder().no_proxy().build().unwrap();
    let client = builder()
        .http_client(own.clone())
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-own"))))
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    let err = builder().http_client(own).no_proxy().build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn concurrent_requests_without_a_token_wait_for_one_token_fetch() {
    let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
    let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"));
    let connection = client(Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
    let sends = (0..8).map(|_| connection.send_message(text("hi")));
    for outcome in futures::future::join_all(sends).await {
        outcome.unwrap();
    }
    assert_eq!(token_requests(&agent), 1);
}

#[tokio::test]
async fn a_configured_proxy_carries_every_request() {
    // The "proxy" is a second agent: it answers what it is sent, so the target never sees a request.
    let target = ScriptedAgent::builder().spawn().await.unwrap();
    let proxy = ScriptedAgent::builder().spawn().await.unwrap();
    let client = builder().proxy(reqwest::Proxy::http(proxy.base_url()).unwrap()).build().unwrap();
    client.discover(&target.base_url()).await.unwrap();
    assert!(target.requests().is_empty(), "the target was reached directly");
    let through = proxy.requests();
    assert_eq!(through.len(), 1);
    assert_eq!(through[0].path, "/.well-known/agent-card.json");
    assert_eq!(through[0].header("host"), Some(target.addr().to_string().as_str()));
}

/// Serves `card` at `/.well-known/agent-card.json` on loopback; returns the base URL.
async fn serve_card(card: serde_json::Value) -> String {
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(move || async move { axum::Json(card) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_skills_own_requirements_are_met_on_a_connection_for_that_skill() {
    let agent = guarded(Guard::bearer("tok-skill")).await;
    // The card asks nothing of the agent as a whole; its "admin" skill asks for the bearer token.
    let mut card = agent.card().clone();
    card["securityRequirements"] = serde_json::json!([]);
    card["skills"] = serde_json::json!([
        {"id": "echo", "name": "echo", "description": "echoes", "tags": []},
        {"id": "admin", "name": "admin", "description": "guarded", "tags": [],
         "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]}
    ]);
    let base = serve_card(card).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("tok-skill"))));
    let connection = client.connect(&base).await.unwrap();
    let err = connection.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "the card level sends nothing");
    assert!(err.to_string().contains("no credentials were sent"), "{err}");
    completes(&connection.for_skill("admin").unwrap()).await;
    assert_eq!(connection.for_skill("nope").unwrap_err().kind(), ErrorKind::Config);
    let anonymous = builder().build().unwrap().connect(&base).await.unwrap();
    let err = anonymous.for_skill("admin").unwrap_err();
    assert!(err.kind() == ErrorKind::Auth && err.to_string().contains("bearer (http bearer)"), "{err}");
}

#[tokio::test]
async fn credentials_are_not_carried_by_a_redirect_to_another_origin() {
    let elsewhere = guarded(Guard::api_key(KeyLocation::Header, "X-Key", "redirected-key")).await;
    let agent = guarded(Guard::api_key(KeyLocation::Header, "X-Key", "redirected-key")).await;
    // A JSON-RPC endpoint that answers 307 towards the other agent.
    let target = elsewhere.jsonrpc_url();
    let app = axum::Router::new().route(
        "/rpc",
        axum::routing::post(move || {
            let target = target.clone();
            async move { (axum::http::StatusCode::TEMPORARY_REDIRECT, [("location", target)]) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let redirector = format!("http://{}/rpc", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let mut card = agent.card().clone();
    card["supportedInterfaces"] =
        serde_json::json!([{"url": redirector, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
    let base = serve_card(card).await;
    let client = client(Credentials::new().with(ApiKey::new(Secret::new("redirected-key"))));
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
    assert_eq!((err.kind(), err.status()), (ErrorKind::Status, Some(307)), "{err}");
    assert!(elsewhere.requests_for("SendMessage").is_empty(), "the key never left for another origin");
}
