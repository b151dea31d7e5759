//! Interop with the official SDK servers behind their own authentication (a2a-sdk 1.3.0 with
//! Starlette's AuthenticationMiddleware, @a2a-js/sdk 1.3.0 with its userBuilder and an express
//! guard): the bearer scheme is read from their cards, the protected extended card is fetched with
//! the token and its claims lifted, both bindings authenticate, and a missing or wrong token is an
//! auth error, never a refused claim. Every test runs on each HTTP stack (`http_stack_common`).

mod http_stack_common;

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PEER_BEARER_TOKEN, PeerKind, RunningPeer};
use a2a_typestate::Deployment;
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::{AgentBaseUrl, AgentConnection, Capability, Client, ErrorKind, RetryPolicy};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{Message, SendMessageRequest, SendMessageResponse, TaskState};
use futures::StreamExt;
use http_stack_common::{HttpStack, each_stack};

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"))
}

fn client(stack: HttpStack, token: Option<&str>) -> Client {
    let retry = RetryPolicy::new(3, Duration::from_millis(50), Duration::from_millis(200), 0.0).unwrap();
    let mut credentials = Credentials::new();
    if let Some(token) = token {
        credentials = credentials.with(BearerToken::new(Secret::new(token)));
    }
    stack
        .builder()
        .retry_policy(retry)
        .request_timeout(Duration::from_secs(30))
        .credentials(credentials)
        .build()
        .unwrap()
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

async fn rest_connection(client: &Client, peer: &RunningPeer) -> AgentConnection {
    let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && i.binding == ProtocolBinding::HttpJson)
        .unwrap();
    AgentConnection::open(client, base, card, interface).unwrap().with_extended_card().await
}

async fn completes(connection: &AgentConnection, kind: PeerKind) {
    match connection.send_message(text("hello")).await.unwrap_or_else(|e| panic!("{kind}: {e}")) {
        SendMessageResponse::Task(task) => assert_eq!(task.status.state, TaskState::Completed, "{kind}"),
        other => panic!("{kind}: expected a task, got {other:?}"),
    }
}

#[tokio::test]
async fn the_token_fetches_the_protected_extended_card_and_its_larger_claims_on_both_bindings() {
    for (stack, kind) in each_stack(PeerKind::AUTHENTICATED) {
        let peer = peer(kind).await;
        let client = client(stack, Some(PEER_BEARER_TOKEN));
        let jsonrpc = client.connect(peer.base_url()).await.unwrap_or_else(|e| panic!("{kind}: {e}"));
        let rest = rest_connection(&client, peer).await;
        for connection in [&jsonrpc, &rest] {
            assert!(connection.uses_extended_card(), "{kind}: {:?}", connection.extended_card_error());
            let public = connection.public_card().unwrap().claims(Deployment::Direct);
            let extended = connection.card().claims(Deployment::Direct);
            assert!(public.declared().is_empty(), "{kind}: the public card claims nothing");
            assert!(extended.declares(Capability::Streaming), "{kind}");
            assert!(extended.declares(Capability::PushNotifications), "{kind}");
            assert!(connection.card().card().description.contains("extended card"), "{kind}");
            completes(connection, kind).await;
        }
        // The extended card's streaming claim is real.
        let mut events = jsonrpc.send_streaming_message(text("stream")).await.unwrap();
        let mut last = None;
        while let Some(event) = tokio::time::timeout(Duration::from_secs(20), events.next()).await.unwrap() {
            last = Some(event.unwrap());
        }
        assert!(last.is_some(), "{kind}: the stream carried events");
    }
}

#[tokio::test]
async fn without_a_token_connect_names_the_bearer_scheme_the_peers_card_asks_for() {
    for (stack, kind) in each_stack(PeerKind::AUTHENTICATED) {
        let peer = peer(kind).await;
        let err = client(stack, None).connect(peer.base_url()).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Auth, "{kind}: {err}");
        assert!(err.to_string().contains("bearer (http bearer)"), "{kind}: {err}");
    }
}

#[tokio::test]
async fn a_wrong_token_is_the_peers_401_as_an_auth_error_not_a_refusal_nor_a_retry() {
    for (stack, kind) in each_stack(PeerKind::AUTHENTICATED) {
        let peer = peer(kind).await;
        let client = client(stack, Some("not-the-peer-token"));
        let connection = client.connect(peer.base_url()).await.unwrap();
        assert!(!connection.uses_extended_card(), "{kind}");
        assert_eq!(
            connection.extended_card_error().map(a2a_typestate_client::Error::kind),
            Some(ErrorKind::Auth),
            "{kind}"
        );
        for connection in [connection, rest_connection(&client, peer).await] {
            let err = connection.send_message(text("hi")).await.unwrap_err();
            assert_eq!((err.kind(), err.status()), (ErrorKind::Auth, Some(401)), "{kind}: {err}");
            assert!(!err.to_string().contains("not-the-peer-token"), "{err}");
        }
        assert_eq!(client.metrics().snapshot().retries, 0, "{kind}: a 401 is not retried");
        let run = client
            .run_task(
                peer.base_url(),
                Message::user("hi").with_message_id("m-auth"),
                &a2a_typestate_client::negotiate::Negotiation::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(run.kind(), ErrorKind::Auth, "{kind}");
        let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
        assert!(client.discovery_cache().is_suspect(&base).is_none(), "{kind}: no suspect mark");
    }
}
