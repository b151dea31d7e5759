//! Helpers shared by the auth tests: clients with credentials, guarded agents, messages.
#![allow(dead_code)]

use std::time::Duration;

use a2a_testkit::{Guard, OAuth2Guard, RunningAgent, ScriptedAgent};
use a2a_typestate_client::auth::Credentials;
use a2a_typestate_client::{AgentBaseUrl, AgentConnection, Client, RetryPolicy};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{Message, SendMessageRequest, SendMessageResponse};

pub fn builder() -> a2a_typestate_client::ClientBuilder {
    let retry = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(50), 0.0).unwrap();
    Client::builder().retry_policy(retry).request_timeout(Duration::from_secs(20))
}

pub fn client(credentials: Credentials) -> Client {
    builder().credentials(credentials).build().unwrap()
}

pub async fn guarded(guard: Guard) -> RunningAgent {
    ScriptedAgent::builder().guard(guard).spawn().await.unwrap()
}

pub fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

pub async fn completes(connection: &AgentConnection) {
    match connection.send_message(text("hi")).await.unwrap() {
        SendMessageResponse::Task(task) => assert_eq!(task.status.state.as_str(), "TASK_STATE_COMPLETED"),
        other => panic!("expected a task, got {other:?}"),
    }
}

pub async fn over_rest(client: &Client, agent: &RunningAgent) -> AgentConnection {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && i.binding == ProtocolBinding::HttpJson)
        .unwrap();
    AgentConnection::open(client, base, card, interface).unwrap()
}

pub fn oauth_guard(lifetime: Duration, announced: Duration, openid_connect: bool) -> Guard {
    Guard::OAuth2(OAuth2Guard {
        client_id: "client-1".into(),
        client_secret: "cs-oauth-5".into(),
        token_lifetime: lifetime,
        announced_lifetime: announced,
        openid_connect,
    })
}

pub fn token_requests(agent: &RunningAgent) -> usize {
    agent.requests().iter().filter(|r| r.path == a2a_testkit::auth::TOKEN_PATH).count()
}

/// Serves `card` at `/.well-known/agent-card.json` on loopback; returns the base URL.
pub async fn serve_card(card: serde_json::Value) -> String {
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(move || async move { axum::Json(card) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}
