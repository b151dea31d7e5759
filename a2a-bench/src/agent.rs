//! A minimal A2A agent on every binding, so that the agent is not what a client benchmark measures.
//!
//! The testkit's scripted agents play a full lifecycle, record every request and keep every task:
//! right for tests, but their cost would hide the client's, and their streams are always four
//! events long. This agent answers `SendMessage` with a completed task at once and
//! `SendStreamingMessage` with a stream of exactly [`BenchAgentConfig::stream_events`] events
//! (a `Task` snapshot, artifact chunks, a final `completed` status update), written in the shapes
//! the official Python server sends (see the wire transcripts). It keeps nothing between requests.
//!
//! One port serves the same workload four ways: A2A 1.0 over JSON-RPC ([`JSONRPC_PATH`]), HTTP+JSON
//! ([`REST_PATH`]) and gRPC (cleartext HTTP/2), all three listed on the card at
//! `/.well-known/agent-card.json`; and A2A 0.3 over JSON-RPC below [`V03_PATH`], whose own 0.3 card
//! is at `{V03_PATH}/.well-known/agent-card.json`, so [`BenchAgent::v03_base_url`] is a 0.3 agent.
//!
//! Like the official servers, the 1.0 bindings answer a version error when `A2A-Version: 1.0` (the
//! `a2a-version` metadata over gRPC) is missing, so every client measured is known to speak 1.0.

mod grpc;

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

use crate::fixtures::{self, Wire};

/// The JSON-RPC path the agent serves, as the official peers and the testkit do.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// The HTTP+JSON base path (`{REST_PATH}/message:send`, `{REST_PATH}/message:stream`).
pub const REST_PATH: &str = "/a2a/rest";

/// The base path of the agent's 0.3 face: its card and its JSON-RPC endpoint are below it.
pub const V03_PATH: &str = "/v03";

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
        let base = format!("http://{addr}");
        let state = Arc::new(AgentState {
            card: Bytes::from(card(&base).to_string()),
            card_v03: Bytes::from(card_v03(&base).to_string()),
            stream_events: config.stream_events.max(2),
        });
        let router = Router::new()
            .route("/.well-known/agent-card.json", get(serve_card))
            .route(JSONRPC_PATH, post(serve_jsonrpc))
            .route(&format!("{REST_PATH}/message:send"), post(serve_rest_send))
            .route(&format!("{REST_PATH}/message:stream"), post(serve_rest_stream))
            .route(&format!("{V03_PATH}/.well-known/agent-card.json"), get(serve_card_v03))
            .route(&format!("{V03_PATH}{JSONRPC_PATH}"), post(serve_jsonrpc_v03))
            .route_service(
                &format!("{}{{method}}", grpc::GRPC_PREFIX),
                grpc::service(config.stream_events.max(2)),
            )
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

    /// The base URL of its 0.3 face (`http://127.0.0.1:<port>/v03`), where a 0.3 card is discovered.
    pub fn v03_base_url(&self) -> String {
        format!("http://{}{V03_PATH}", self.addr)
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
    card_v03: Bytes,
    stream_events: usize,
}

fn card(base: &str) -> Value {
    json!({
        "name": "bench-agent",
        "description": "answers at once; streams a fixed number of events",
        "supportedInterfaces": [
            {"url": format!("{base}{JSONRPC_PATH}"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}{REST_PATH}"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": base, "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes text", "tags": ["bench"]}]
    })
}

fn card_v03(base: &str) -> Value {
    json!({
        "protocolVersion": "0.3.0",
        "name": "bench-agent-0.3",
        "description": "answers at once; streams a fixed number of events (A2A 0.3)",
        "url": format!("{base}{V03_PATH}{JSONRPC_PATH}"),
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes text", "tags": ["bench"]}]
    })
}

fn json_body(body: impl Into<Body>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

async fn serve_card(State(state): State<Arc<AgentState>>) -> Response {
    json_body(state.card.clone())
}

async fn serve_card_v03(State(state): State<Arc<AgentState>>) -> Response {
    json_body(state.card_v03.clone())
}

fn jsonrpc_error(id: &Value, code: i64, message: &str) -> Response {
    json_body(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string())
}

fn speaks_1_0(headers: &HeaderMap) -> bool {
    headers.get("a2a-version").and_then(|v| v.to_str().ok()) == Some("1.0")
}

/// Fresh task and context ids, never the client's: they are written into the answers unescaped.
fn fresh_ids() -> (String, String) {
    (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string())
}

/// The first text part of the request's message (1.0 and 0.3 parts both carry `text`).
fn text_of(params: &Value) -> &str {
    params["message"]["parts"][0]["text"].as_str().unwrap_or_default()
}

async fn serve_jsonrpc(State(state): State<Arc<AgentState>>, headers: HeaderMap, body: Bytes) -> Response {
    serve_jsonrpc_in(Wire::JsonRpc, &state, &headers, &body)
}

async fn serve_jsonrpc_v03(
    State(state): State<Arc<AgentState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    serve_jsonrpc_in(Wire::JsonRpcV03, &state, &headers, &body)
}

/// Either JSON-RPC face: 1.0 (`SendMessage`, version header required) or 0.3 (`message/send`).
fn serve_jsonrpc_in(wire: Wire, state: &AgentState, headers: &HeaderMap, body: &[u8]) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(body) else {
        return jsonrpc_error(&Value::Null, -32700, "parse error");
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if wire == Wire::JsonRpc && !speaks_1_0(headers) {
        return jsonrpc_error(&id, -32009, "A2A-Version 1.0 required");
    }
    let (send, stream) = match wire {
        Wire::JsonRpcV03 => ("message/send", "message/stream"),
        _ => ("SendMessage", "SendStreamingMessage"),
    };
    let (task_id, context_id) = fresh_ids();
    let id_json = id.to_string();
    match request["method"].as_str() {
        Some(method) if method == send => json_body(fixtures::render_answer(
            wire,
            &id_json,
            &task_id,
            &context_id,
            text_of(&request["params"]),
        )),
        Some(method) if method == stream => {
            sse(fixtures::render_stream(wire, &id_json, &task_id, &context_id, state.stream_events))
        }
        _ => jsonrpc_error(&id, -32601, "method not found"),
    }
}

/// The 1.0 HTTP+JSON error a missing version header gets (the official servers' `400`).
fn rest_version_error() -> Response {
    let body = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "A2A-Version 1.0 required"}});
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn serve_rest_send(headers: HeaderMap, body: Bytes) -> Response {
    if !speaks_1_0(&headers) {
        return rest_version_error();
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or_default();
    let (task_id, context_id) = fresh_ids();
    json_body(fixtures::render_answer(Wire::HttpJson, "", &task_id, &context_id, text_of(&request)))
}

async fn serve_rest_stream(State(state): State<Arc<AgentState>>, headers: HeaderMap) -> Response {
    if !speaks_1_0(&headers) {
        return rest_version_error();
    }
    let (task_id, context_id) = fresh_ids();
    sse(fixtures::render_stream(Wire::HttpJson, "", &task_id, &context_id, state.stream_events))
}

/// The frames as an SSE body, one write per event as the official servers do.
fn sse(frames: Vec<String>) -> Response {
    let frames = frames.into_iter().map(|frame| Ok::<_, std::convert::Infallible>(Bytes::from(frame)));
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-store")],
        Body::from_stream(futures::stream::iter(frames)),
    )
        .into_response()
}
