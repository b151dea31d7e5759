//! The floor: what a hand-written client does with `reqwest` and `serde_json` alone.
//!
//! No discovery cache, no typed model, no verifier, no retries, no bounds beyond reqwest's: one
//! POST, the body parsed to a `serde_json::Value`, and for streams a blank-line split of the body
//! with each `data:` parsed to a `Value`. The SDK's overhead is measured against this.

use futures::StreamExt;
use serde_json::{Value, json};

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

/// One `SendMessage` round trip; returns the task's state.
///
/// # Errors
///
/// [`FloorError`] when the request fails or the answer has no `result.task.status.state`.
pub async fn send_message(
    http: &reqwest::Client,
    jsonrpc_url: &str,
    text: &str,
) -> Result<String, FloorError> {
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
    let answer: Value = serde_json::from_slice(&body)
        .map_err(|source| FloorError::Json { url: jsonrpc_url.to_owned(), source })?;
    answer["result"]["task"]["status"]["state"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| unexpected(jsonrpc_url, "task.status.state", &answer))
}

/// One `SendStreamingMessage`, read to its end; returns the number of events.
///
/// # Errors
///
/// [`FloorError`] when the request fails or an event is not a JSON-RPC result.
pub async fn send_streaming_message(
    http: &reqwest::Client,
    jsonrpc_url: &str,
    text: &str,
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
    let mut pending: Vec<u8> = Vec::new();
    let mut events = 0usize;
    while let Some(chunk) = body.next().await {
        // Search only the bytes that can complete a blank line: one byte back from the new chunk.
        let mut scan_from = pending.len().saturating_sub(1);
        pending.extend_from_slice(&chunk.map_err(http_err)?);
        let mut start = 0;
        while let Some(at) =
            pending.get(scan_from..).and_then(|rest| rest.windows(2).position(|w| w == b"\n\n"))
        {
            let end = scan_from + at;
            let frame = pending.get(start..end).unwrap_or_default();
            if let Some(data) = frame.strip_prefix(b"data: ") {
                let event: Value = serde_json::from_slice(data)
                    .map_err(|source| FloorError::Json { url: jsonrpc_url.to_owned(), source })?;
                if event.get("result").is_none() {
                    return Err(unexpected(jsonrpc_url, "(any)", &event));
                }
                events += 1;
            }
            start = end + 2;
            scan_from = start;
        }
        pending.drain(..start);
    }
    Ok(events)
}
