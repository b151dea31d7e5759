//! A minimal A2A 1.0 JSON-RPC agent, so that the agent is not what a client benchmark measures.
//!
//! The testkit's scripted agents play a full lifecycle, record every request and keep every task:
//! right for tests, but their cost would hide the client's, and their streams are always four
//! events long. This agent answers `SendMessage` with a completed task at once and
//! `SendStreamingMessage` with a stream of exactly [`BenchAgentConfig::stream_events`] events
//! (a `Task` snapshot, artifact chunks, a final `completed` status update), written in the shapes
//! the official Python server sends (see the wire transcripts). It keeps nothing between requests.
//!
//! Like the official servers, it answers `-32009` when `A2A-Version: 1.0` is missing, so every
//! client measured is known to speak 1.0.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::fixtures;

/// The JSON-RPC path the agent serves, as the official peers and the testkit do.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// What the bench agent streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchAgentConfig {
    /// Events in every `SendStreamingMessage` answer, counting the first `Task` snapshot and the
    /// final status update (at least 2).
    pub stream_events: usize,
}

impl Default for BenchAgentConfig {
    /// 1,000 events per stream: the streaming workload.
    fn default() -> Self {
        Self { stream_events: 1_000 }
    }
}

/// Why the bench agent could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchAgentError {
    /// No loopback port could be bound.
    #[error("cannot bind a listener on {0}")]
    Bind(SocketAddr, #[source] std::io::Error),
    /// The listener's address could not be read.
    #[error("cannot read the listener's address")]
    LocalAddr(#[source] std::io::Error),
}

/// A running bench agent; stops when dropped.
#[derive(Debug)]
pub struct BenchAgent {
    addr: SocketAddr,
    server: JoinHandle<()>,
}

impl BenchAgent {
    /// Starts an agent on `127.0.0.1` with a free port.
    ///
    /// # Errors
    ///
    /// [`BenchAgentError`] when no port can be bound.
    pub async fn spawn(config: BenchAgentConfig) -> Result<Self, BenchAgentError> {
        Self::spawn_on(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
    }

    /// Starts an agent on `addr` (port 0: a free one).
    ///
    /// # Errors
    ///
    /// [`BenchAgentError`] when `addr` cannot be bound.
    pub async fn spawn_on(addr: SocketAddr, config: BenchAgentConfig) -> Result<Self, BenchAgentError> {
        let listener = TcpListener::bind(addr).await.map_err(|e| BenchAgentError::Bind(addr, e))?;
        let addr = listener.local_addr().map_err(BenchAgentError::LocalAddr)?;
        let state = Arc::new(AgentState {
            card: Bytes::from(card(&format!("http://{addr}")).to_string()),
            stream_events: config.stream_events.max(2),
        });
        let router = Router::new()
            .route("/.well-known/agent-card.json", get(serve_card))
            .route(JSONRPC_PATH, post(serve_jsonrpc))
            .with_state(state);
        let server = tokio::spawn(async move {
            // The server only ends when the task is aborted; an accept error ends the benchmark run,
            // which the client then reports as a connect failure.
            let _ = axum::serve(listener, router).await;
        });
        Ok(Self { addr, server })
    }

    /// The agent's base URL (`http://127.0.0.1:<port>`), where its card is discovered.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The JSON-RPC endpoint its card names.
    pub fn jsonrpc_url(&self) -> String {
        format!("http://{}{JSONRPC_PATH}", self.addr)
    }
}

impl Drop for BenchAgent {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[derive(Debug)]
struct AgentState {
    card: Bytes,
    stream_events: usize,
}

fn card(base: &str) -> Value {
    json!({
        "name": "bench-agent",
        "description": "answers at once; streams a fixed number of events",
        "supportedInterfaces": [
            {"url": format!("{base}{JSONRPC_PATH}"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes text", "tags": ["bench"]}]
    })
}

async fn serve_card(State(state): State<Arc<AgentState>>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], state.card.clone()).into_response()
}

fn jsonrpc_error(id: &Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn serve_jsonrpc(State(state): State<Arc<AgentState>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return jsonrpc_error(&Value::Null, -32700, "parse error");
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if headers.get("a2a-version").and_then(|v| v.to_str().ok()) != Some("1.0") {
        return jsonrpc_error(&id, -32009, "A2A-Version 1.0 required");
    }
    let message = &request["params"]["message"];
    let text = message["parts"][0]["text"].as_str().unwrap_or_default();
    let task_id = uuid::Uuid::new_v4().to_string();
    // Fresh ids, never the client's: they are written into the stream frames unescaped.
    let context_id = uuid::Uuid::new_v4().to_string();
    match request["method"].as_str() {
        Some("SendMessage") => {
            let task = json!({
                "id": task_id,
                "contextId": context_id,
                "status": {"state": "TASK_STATE_COMPLETED"},
                "artifacts": [{"artifactId": "answer", "name": "answer", "parts": [{"text": format!("echo: {text}")}]}]
            });
            let body = json!({"jsonrpc": "2.0", "id": id, "result": {"task": task}});
            ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
        }
        Some("SendStreamingMessage") => stream(&id, &task_id, &context_id, state.stream_events),
        _ => jsonrpc_error(&id, -32601, "method not found"),
    }
}

/// `events` SSE events: a submitted `Task`, `events - 2` artifact chunks, a completed status,
/// one write per event as the official servers do.
fn stream(id: &Value, task_id: &str, context_id: &str, events: usize) -> Response {
    let frames: Vec<Result<Bytes, std::convert::Infallible>> =
        fixtures::render_stream(&id.to_string(), task_id, context_id, events)
            .into_iter()
            .map(|frame| Ok(Bytes::from(frame)))
            .collect();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-store")],
        Body::from_stream(futures::stream::iter(frames)),
    )
        .into_response()
}
