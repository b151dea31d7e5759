//! Helpers shared by the transport tests: a quick client, a connection on a chosen interface, and
//! messages.
#![allow(dead_code)]

pub mod scenarios;

use std::time::Duration;

use a2a_testkit::{Capabilities, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::{AgentBaseUrl, AgentConnection, Client, RetryPolicy};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{Message, SendMessageRequest, StreamResponse};

/// A client with quick, jitter-free retries (3 attempts, 10 ms then 20 ms).
pub fn client() -> Client {
    let retry = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(50), 0.0).unwrap();
    Client::builder().retry_policy(retry).request_timeout(Duration::from_secs(20)).build().unwrap()
}

/// An honest 1.0 agent that streams and pushes.
pub async fn honest_agent() -> RunningAgent {
    agent(Script::honest()).await
}

/// A 1.0 agent that streams and pushes, playing `script`.
pub async fn agent(script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .script(script)
        .spawn()
        .await
        .unwrap()
}

/// A connection to `agent` over the interface with `binding` and `version`.
pub async fn connect_over(
    client: &Client,
    agent: &RunningAgent,
    version: ProtocolVersion,
    binding: ProtocolBinding,
) -> AgentConnection {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == version && i.binding == binding)
        .unwrap_or_else(|| panic!("the card offers no {version} {binding} interface"));
    AgentConnection::open(client, base, card, interface).unwrap()
}

/// A user message with a fresh id.
pub fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

/// The artifact texts of a stream's events.
pub fn artifact_texts(events: &[StreamResponse]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamResponse::ArtifactUpdate(update) => Some(update.artifact.parts.clone()),
            _ => None,
        })
        .flatten()
        .filter_map(|part| part.as_text().map(str::to_owned))
        .collect()
}
