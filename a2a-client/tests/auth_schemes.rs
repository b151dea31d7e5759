//! Each scheme authenticates where the card says, a wrong or missing credential is an auth error
//! that names what the card asks for, and credentials reach only the agents and schemes they are for.

mod auth_common;

use a2a_testkit::{Guard, KeyLocation};
use a2a_typestate_client::auth::{ApiKey, BasicAuth, BearerToken, Credentials, Secret};
use a2a_typestate_client::{AgentBaseUrl, ErrorKind};
use a2a_typestate_types::Message;

use auth_common::*;

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
    // The card is served from another origin than the agent's interface: the user allows it.
    let client = builder()
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-skill"))))
        .allow_credential_origin(agent.base_url())
        .build()
        .unwrap();
    let connection = client.connect(&base).await.unwrap();
    let err = connection.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "the card level sends nothing");
    assert!(err.to_string().contains("no credentials were sent"), "{err}");
    completes(&connection.for_skill("admin").unwrap()).await;
    assert_eq!(connection.for_skill("nope").unwrap_err().kind(), ErrorKind::Misuse);
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

#[tokio::test]
async fn an_auth_failure_in_a_negotiated_run_is_no_refusal_and_no_suspect_mark() {
    let agent = guarded(Guard::bearer("right")).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("wrong"))));
    let err = client
        .run_task(
            &agent.base_url(),
            Message::user("hi").with_message_id("m1"),
            &a2a_typestate_client::negotiate::Negotiation::default(),
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
