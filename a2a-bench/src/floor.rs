//! The floors: what a hand-written client does with `reqwest` and `serde_json` alone, and the same
//! on `hyper-util` alone (no reqwest) in each wire shape the SDK speaks over HTTP: 1.0 JSON-RPC,
//! 1.0 HTTP+JSON and 0.3 JSON-RPC.
//!
//! No discovery cache, no typed model, no verifier, no retries, no bounds beyond the HTTP stack's:
//! one POST, the body parsed to a `serde_json::Value`, and for streams a blank-line split of the
//! body with each `data:` parsed to a `Value`. The SDK's overhead is measured against these; the
//! two floors side by side give what the HTTP stack alone costs. The gRPC floor is tonic's generated
//! `A2AService` client on one HTTP/2 channel, the protobuf request built by hand and the answer read
//! from the protobuf message: what gRPC costs before any SDK.

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

use crate::fixtures::Wire;

/// Why a hand-written request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FloorError {
    /// The HTTP exchange failed.
    #[error("http request to {url} failed")]
    Http {
        /// The endpoint.
        url: String,
        /// What reqwest reported.
        #[source]
        source: reqwest::Error,
    },
    /// The body (or an SSE event's data) was not JSON.
    #[error("the answer from {url} is not JSON")]
    Json {
        /// The endpoint.
        url: String,
        /// What serde_json reported.
        #[source]
        source: serde_json::Error,
    },
    /// The hyper-util exchange failed.
    #[error("http request to {url} failed (hyper-util)")]
    Hyper {
        /// The endpoint.
        url: String,
        /// What hyper or hyper-util reported.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The gRPC call failed (connection or status).
    #[error("grpc call to {url} failed: {status}")]
    Grpc {
        /// The endpoint.
        url: String,
        /// What tonic reported.
        status: String,
    },
    /// The answer was JSON but not a JSON-RPC result with the expected member.
    #[error("the answer from {url} has no result.{expected}: {answer}")]
    Unexpected {
        /// The endpoint.
        url: String,
        /// The member looked for.
        expected: &'static str,
        /// The answer, shortened to 200 characters.
        answer: String,
    },
}

/// A JSON-RPC `SendMessage` request body with a fresh message id.
pub fn send_message_body(method: &str, text: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {"message": {
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": "ROLE_USER",
            "parts": [{"text": text}]
        }}
    })
}

fn unexpected(url: &str, expected: &'static str, answer: &Value) -> FloorError {
    FloorError::Unexpected {
        url: url.to_owned(),
        expected,
        answer: answer.to_string().chars().take(200).collect(),
    }
}

/// One `SendMessage` round trip; returns the answer's `result`.
///
/// # Errors
///
/// [`FloorError`] when the request fails or the answer has no `result.task.status.state`.
pub async fn send_message(
    http: &reqwest::Client,
    jsonrpc_url: &str,
    text: &str,
) -> Result<Value, FloorError> {
    let http_err = |source| FloorError::Http { url: jsonrpc_url.to_owned(), source };
    let body = http
        .post(jsonrpc_url)
        .header("A2A-Version", "1.0")
        .json(&send_message_body("SendMessage", text))
        .send()
        .await
        .map_err(http_err)?
        .bytes()
        .await
        .map_err(http_err)?;
    answer_of(Wire::JsonRpc, jsonrpc_url, &body)
}

/// The answer of a `SendMessage` in `wire`'s shape: the JSON-RPC `result` (the whole body over
/// HTTP+JSON), which must hold a task with a state (`task.status.state`; `status.state` in 0.3).
fn answer_of(wire: Wire, url: &str, body: &[u8]) -> Result<Value, FloorError> {
    let mut answer: Value =
        serde_json::from_slice(body).map_err(|source| FloorError::Json { url: url.to_owned(), source })?;
    let (result, state, expected) = match wire {
        Wire::JsonRpc => (answer["result"].take(), "/task/status/state", "task.status.state"),
        Wire::HttpJson => (answer.take(), "/task/status/state", "task.status.state"),
        Wire::JsonRpcV03 => (answer["result"].take(), "/status/state", "status.state"),
    };
    if result.pointer(state).is_some_and(Value::is_string) {
        Ok(result)
    } else {
        Err(unexpected(url, expected, if wire == Wire::HttpJson { &result } else { &answer }))
    }
}

/// A `SendMessage` (or streaming) request in `wire`'s shape, with a fresh message id.
pub fn request_body(wire: Wire, streaming: bool, text: &str) -> Value {
    match wire {
        Wire::JsonRpc => {
            send_message_body(if streaming { "SendStreamingMessage" } else { "SendMessage" }, text)
        }
        Wire::HttpJson => json!({"message": {
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": "ROLE_USER",
            "parts": [{"text": text}]
        }}),
        Wire::JsonRpcV03 => json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": if streaming { "message/stream" } else { "message/send" },
            "params": {"message": {
                "kind": "message",
                "messageId": uuid::Uuid::new_v4().to_string(),
                "role": "user",
                "parts": [{"kind": "text", "text": text}]
            }}
        }),
    }
}

/// One `SendStreamingMessage`, read to its end; returns the number of events, each event's
/// `result` given to `on_event` as it arrives.
///
/// # Errors
///
/// [`FloorError`] when the request fails or an event is not a JSON-RPC result.
pub async fn send_streaming_message(
    http: &reqwest::Client,
    jsonrpc_url: &str,
    text: &str,
    mut on_event: impl FnMut(&Value),
) -> Result<usize, FloorError> {
    let http_err = |source| FloorError::Http { url: jsonrpc_url.to_owned(), source };
    let response = http
        .post(jsonrpc_url)
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&send_message_body("SendStreamingMessage", text))
        .send()
        .await
        .map_err(http_err)?;
    let mut body = response.bytes_stream();
    let mut frames = Frames::default();
    while let Some(chunk) = body.next().await {
        frames.push(Wire::JsonRpc, jsonrpc_url, &chunk.map_err(http_err)?, &mut on_event)?;
    }
    Ok(frames.events)
}

/// The blank-line split of an SSE body, shared by both floors.
#[derive(Default)]
struct Frames {
    pending: Vec<u8>,
    events: usize,
}

impl Frames {
    /// Adds a chunk of the body; parses every `data:` frame it completes and gives `on_event` its
    /// JSON-RPC `result` (its whole `data` over HTTP+JSON).
    fn push(
        &mut self,
        wire: Wire,
        url: &str,
        chunk: &[u8],
        on_event: &mut impl FnMut(&Value),
    ) -> Result<(), FloorError> {
        let pending = &mut self.pending;
        // Search only the bytes that can complete a blank line: one byte back from the new chunk.
        let mut scan_from = pending.len().saturating_sub(1);
        pending.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(at) =
            pending.get(scan_from..).and_then(|rest| rest.windows(2).position(|w| w == b"\n\n"))
        {
            let end = scan_from + at;
            let frame = pending.get(start..end).unwrap_or_default();
            if let Some(data) = frame.strip_prefix(b"data: ") {
                let event: Value = serde_json::from_slice(data)
                    .map_err(|source| FloorError::Json { url: url.to_owned(), source })?;
                match (wire, event.get("result")) {
                    (Wire::HttpJson, _) => on_event(&event),
                    (_, Some(result)) => on_event(result),
                    (_, None) => return Err(unexpected(url, "(any)", &event)),
                }
                self.events += 1;
            }
            start = end + 2;
            scan_from = start;
        }
        pending.drain(..start);
        Ok(())
    }
}

/// The hyper-util floor's client: plain HTTP/1.1 over `HttpConnector` (`TCP_NODELAY` and the
/// connect timeout as reqwest's), a pool that keeps every idle connection, as reqwest's does.
pub type HyperClient =
    hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

/// A [`HyperClient`] with the settings of the reqwest floor.
pub fn hyper_client() -> HyperClient {
    let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_connect_timeout(Some(std::time::Duration::from_secs(10)));
    hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new()).build(connector)
}

fn hyper_post(
    uri: &hyper::Uri,
    accept: &str,
    body: &Value,
) -> Result<hyper::Request<Full<Bytes>>, FloorError> {
    let bytes =
        serde_json::to_vec(body).map_err(|source| FloorError::Json { url: uri.to_string(), source })?;
    hyper::Request::post(uri.clone())
        .header("A2A-Version", "1.0")
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, accept)
        .body(Full::new(Bytes::from(bytes)))
        .map_err(|e| FloorError::Hyper { url: uri.to_string(), source: e.into() })
}

/// As [`send_message`], on hyper-util, in `wire`'s shape: `uri` is the JSON-RPC endpoint, or the
/// HTTP+JSON `message:send` route; returns the JSON-RPC `result` (the whole body over HTTP+JSON),
/// which must hold a task with a state.
///
/// # Errors
///
/// As [`send_message`].
pub async fn send_message_hyper(
    http: &HyperClient,
    uri: &hyper::Uri,
    url: &str,
    wire: Wire,
    text: &str,
) -> Result<Value, FloorError> {
    let hyper_err =
        |e: Box<dyn std::error::Error + Send + Sync>| FloorError::Hyper { url: url.to_owned(), source: e };
    let request = hyper_post(uri, "application/json", &request_body(wire, false, text))?;
    let response = http.request(request).await.map_err(|e| hyper_err(e.into()))?;
    let body = response.into_body().collect().await.map_err(|e| hyper_err(e.into()))?.to_bytes();
    answer_of(wire, url, &body)
}

/// As [`send_streaming_message`], on hyper-util, in `wire`'s shape (`uri` the JSON-RPC endpoint or
/// the HTTP+JSON `message:stream` route).
///
/// # Errors
///
/// As [`send_streaming_message`].
pub async fn send_streaming_message_hyper(
    http: &HyperClient,
    uri: &hyper::Uri,
    url: &str,
    wire: Wire,
    text: &str,
    mut on_event: impl FnMut(&Value),
) -> Result<usize, FloorError> {
    let hyper_err =
        |e: Box<dyn std::error::Error + Send + Sync>| FloorError::Hyper { url: url.to_owned(), source: e };
    let request = hyper_post(uri, "text/event-stream", &request_body(wire, true, text))?;
    let response = http.request(request).await.map_err(|e| hyper_err(e.into()))?;
    let mut body = response.into_body();
    let mut frames = Frames::default();
    while let Some(frame) = body.frame().await {
        if let Ok(chunk) = frame.map_err(|e| hyper_err(e.into()))?.into_data() {
            frames.push(wire, url, &chunk, &mut on_event)?;
        }
    }
    Ok(frames.events)
}

/// tonic's generated client for the gRPC floor.
pub type GrpcClient = a2a_proto::v1::a2a_service_client::A2aServiceClient<tonic::transport::Channel>;

/// Opens the gRPC floor's channel (one HTTP/2 connection, multiplexed) to `url`.
///
/// # Errors
///
/// [`FloorError::Grpc`] when `url` is not an endpoint or nothing answers there.
pub async fn grpc_client(url: &str) -> Result<GrpcClient, FloorError> {
    let grpc = |status: String| FloorError::Grpc { url: url.to_owned(), status };
    let endpoint =
        tonic::transport::Endpoint::from_shared(url.to_owned()).map_err(|e| grpc(e.to_string()))?;
    let channel = endpoint.tcp_nodelay(true).connect().await.map_err(|e| grpc(e.to_string()))?;
    Ok(GrpcClient::new(channel))
}

/// The request, with the `a2a-version` metadata a 1.0 agent requires (the gRPC form of the
/// `A2A-Version` header).
fn grpc_request(text: &str) -> tonic::Request<a2a_proto::v1::SendMessageRequest> {
    use a2a_proto::v1::{Message, Part, Role, SendMessageRequest, part::Content};
    let mut request = tonic::Request::new(SendMessageRequest {
        message: Some(Message {
            message_id: uuid::Uuid::new_v4().to_string(),
            role: Role::User.into(),
            parts: vec![Part { content: Some(Content::Text(text.to_owned())), ..Part::default() }],
            ..Message::default()
        }),
        ..SendMessageRequest::default()
    });
    request.metadata_mut().insert("a2a-version", tonic::metadata::MetadataValue::from_static("1.0"));
    request
}

/// One `SendMessage` over gRPC; returns the protobuf answer.
///
/// # Errors
///
/// [`FloorError::Grpc`] with the call's status.
pub async fn send_message_grpc(
    client: &GrpcClient,
    url: &str,
    text: &str,
) -> Result<a2a_proto::v1::SendMessageResponse, FloorError> {
    let mut client = client.clone();
    let response = client
        .send_message(grpc_request(text))
        .await
        .map_err(|status| FloorError::Grpc { url: url.to_owned(), status: status.to_string() })?;
    Ok(response.into_inner())
}

/// One `SendStreamingMessage` over gRPC, read to its end; calls `on_event` with each protobuf event
/// and returns how many there were.
///
/// # Errors
///
/// [`FloorError::Grpc`] with the call's or the stream's status.
pub async fn send_streaming_message_grpc(
    client: &GrpcClient,
    url: &str,
    text: &str,
    mut on_event: impl FnMut(&a2a_proto::v1::StreamResponse),
) -> Result<usize, FloorError> {
    let grpc = |status: tonic::Status| FloorError::Grpc { url: url.to_owned(), status: status.to_string() };
    let mut client = client.clone();
    let mut stream = client.send_streaming_message(grpc_request(text)).await.map_err(grpc)?.into_inner();
    let mut events = 0;
    while let Some(event) = stream.message().await.map_err(grpc)? {
        on_event(&event);
        events += 1;
    }
    Ok(events)
}
