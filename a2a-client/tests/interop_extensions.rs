//! A2A extensions against the official Python server (a2a-sdk 1.3.0, the `python-extensions` peer):
//! an extension its card declares, asked for, activated and named back in `A2A-Extensions`; a
//! required one not asked for, refused by this client before anything is sent; and the agent's own
//! -32008 when a request reaches it without the required extension.

use std::time::Duration;

use a2a_testkit::official::{
    OfficialPeer, PEER_OPTIONAL_EXTENSION, PEER_REQUIRED_EXTENSION, PeerKind, RunningPeer,
};
use a2a_typestate_client::{
    AgentBaseUrl, AgentConnection, CallOptions, Client, DiscoveredCard, ErrorKind, WellKnownPath,
};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{Message, SendMessageRequest, SendMessageResponse, TaskState};

const BINDINGS: [ProtocolBinding; 2] = [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson];

async fn peer() -> &'static RunningPeer {
    OfficialPeer::shared(PeerKind::PythonExtensions).await.unwrap_or_else(|e| panic!("{e}"))
}

fn client() -> Client {
    Client::builder().request_timeout(Duration::from_secs(30)).build().unwrap()
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

async fn connect_over(client: &Client, peer: &RunningPeer, binding: &ProtocolBinding) -> AgentConnection {
    let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && &i.binding == binding)
        .unwrap();
    AgentConnection::open(client, base, card, interface).unwrap()
}

#[tokio::test]
async fn the_card_declares_both_extensions_and_marks_one_required() {
    let peer = peer().await;
    let card = client().discover(peer.base_url()).await.unwrap();
    let declared: Vec<(String, bool)> =
        card.card().capabilities.extensions.iter().map(|e| (e.uri.clone(), e.required)).collect();
    assert_eq!(
        declared,
        [(PEER_OPTIONAL_EXTENSION.to_owned(), false), (PEER_REQUIRED_EXTENSION.to_owned(), true)]
    );
}

#[tokio::test]
async fn declared_extensions_asked_for_are_activated_and_echoed_by_the_python_sdk_agent() {
    let peer = peer().await;
    let client = client();
    for binding in &BINDINGS {
        let connection = connect_over(&client, peer, binding).await;
        let view = connection
            .with_options(CallOptions::new().extensions([PEER_REQUIRED_EXTENSION, PEER_OPTIONAL_EXTENSION]))
            .unwrap();
        let SendMessageResponse::Task(task) = view.send_message(text("hello")).await.unwrap() else {
            panic!("{binding}: expected a task")
        };
        assert_eq!(task.status.state, TaskState::Completed, "{binding}");
        let activated = view.activated_extensions();
        assert!(activated.contains(PEER_OPTIONAL_EXTENSION), "{binding}: {activated}");
        assert!(activated.contains(PEER_REQUIRED_EXTENSION), "{binding}: {activated}");
    }
}

#[tokio::test]
async fn a_required_extension_not_asked_for_is_refused_before_the_python_sdk_agent_hears_of_it() {
    let peer = peer().await;
    let client = client();
    for binding in &BINDINGS {
        let connection = connect_over(&client, peer, binding).await;
        let view = connection.with_options(CallOptions::new().extension(PEER_OPTIONAL_EXTENSION)).unwrap();
        let err = view.send_message(text("hello")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config, "{binding}: {err}");
        assert_eq!(err.required_extension(), Some(PEER_REQUIRED_EXTENSION), "{binding}");
        assert!(err.to_string().contains("capabilities.extensions[1]"), "{err}");
        assert!(view.activated_extensions().is_empty(), "{binding}: no answer was read");
    }
}

#[tokio::test]
async fn the_python_sdk_agents_own_32008_is_read_as_extension_support_required() {
    // A card whose requirement was stripped on the way (as by a proxy rewriting it): the client
    // cannot know, sends, and the agent answers -32008.
    let peer = peer().await;
    let client = client();
    let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let served = client.discover_agent(&base).await.unwrap();
    let mut json = served.json();
    json["capabilities"]["extensions"][1]["required"] = serde_json::json!(false);
    let bytes = serde_json::to_vec(&json).unwrap();
    let card =
        DiscoveredCard::from_bytes(bytes.into(), served.source_url(), WellKnownPath::AgentCard).unwrap();
    for binding in &BINDINGS {
        let interface = offered_interfaces(&card.json())
            .unwrap()
            .into_iter()
            .find(|i| i.protocol_version == ProtocolVersion::V1_0 && &i.binding == binding)
            .unwrap();
        let connection = AgentConnection::open(&client, base.clone(), card.clone(), interface).unwrap();
        let err = connection.send_message(text("hello")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol, "{binding}: {err}");
        let agent_said = err.protocol_error().unwrap();
        assert!(agent_said.is_extension_support_required(), "{binding}: {agent_said}");
        assert_eq!(agent_said.code(), Some(-32008), "{binding}");
    }
}
