//! Feature `otel`, against the official Python server (a2a-sdk 1.3.0, the `python-traced` peer, which
//! notes the `traceparent` of every A2A request it receives): a trace the caller started reaches the
//! server as the same trace id over JSON-RPC, HTTP+JSON (calls and SSE streams) and gRPC.

mod otel_common;

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PeerKind, RunningPeer, TRACED_PEER_SEEN_PATH};
use a2a_typestate_client::{AgentBaseUrl, AgentConnection, Client};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{Message, SendMessageRequest, SendMessageResponse, TaskState};
use otel_common::{Traces, trace_id, trace_id_of};
use serde::Deserialize;
use tracing::Instrument as _;

async fn peer() -> &'static RunningPeer {
    OfficialPeer::shared(PeerKind::PythonTraced).await.unwrap_or_else(|e| panic!("{e}"))
}

#[derive(Debug, Deserialize)]
struct Seen {
    binding: String,
    target: String,
    traceparent: Option<String>,
}

/// What the peer noted, every request since it started.
async fn seen(peer: &RunningPeer) -> Vec<Seen> {
    let url = format!("{}{TRACED_PEER_SEEN_PATH}", peer.base_url());
    reqwest::get(url).await.unwrap().error_for_status().unwrap().json().await.unwrap()
}

async fn connect(client: &Client, peer: &RunningPeer, binding: &ProtocolBinding) -> AgentConnection {
    let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && &i.binding == binding)
        .unwrap_or_else(|| panic!("the peer offers no {binding} interface"));
    AgentConnection::open(client, base, card, interface).unwrap()
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

async fn the_callers_trace_id_reaches_the_python_server_over(binding: ProtocolBinding, label: &str) {
    let peer = peer().await;
    let _traces = Traces::install();
    let client = Client::builder().request_timeout(Duration::from_secs(30)).build().unwrap();
    let caller = tracing::info_span!("caller", binding = label);
    let expected = trace_id(&caller).to_string();
    async {
        let connection = connect(&client, peer, &binding).await;
        let answer = connection
            .send_message(text("traced"))
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", peer.stderr_tail()));
        let SendMessageResponse::Task(task) = answer else { panic!("a task") };
        assert_eq!(task.state(), TaskState::Completed);
        let mut stream = connection.send_streaming_message(text("traced stream")).await.unwrap();
        while let Some(event) = futures::StreamExt::next(&mut stream).await {
            event.unwrap();
        }
    }
    .instrument(caller)
    .await;
    let ours: Vec<Seen> = seen(peer)
        .await
        .into_iter()
        .filter(|s| s.traceparent.as_deref().is_some_and(|t| trace_id_of(t) == expected))
        .collect();
    // The send and the stream, each carrying the caller's trace, on the binding used and no other.
    assert!(ours.len() >= 2, "{label}: the server saw the caller's trace on {ours:?}");
    assert!(ours.iter().all(|s| s.binding == label), "{label}: {ours:?}");
    if label != "JSONRPC" {
        // Over HTTP+JSON and gRPC the route names the call: the stream carried it too.
        assert!(
            ours.iter().any(|s| s.target.contains("stream") || s.target.contains("Streaming")),
            "{ours:?}"
        );
    }
}

#[tokio::test]
async fn the_callers_trace_id_reaches_the_python_server_over_json_rpc() {
    the_callers_trace_id_reaches_the_python_server_over(ProtocolBinding::JsonRpc, "JSONRPC").await;
}

#[tokio::test]
async fn the_callers_trace_id_reaches_the_python_server_over_http_json() {
    the_callers_trace_id_reaches_the_python_server_over(ProtocolBinding::HttpJson, "HTTP+JSON").await;
}

#[tokio::test]
async fn the_callers_trace_id_reaches_the_python_server_over_grpc() {
    the_callers_trace_id_reaches_the_python_server_over(ProtocolBinding::Grpc, "GRPC").await;
}
