//! Plain-HTTP helpers for the wire tests: reqwest and `serde_json::Value`, never our client crate.
#![allow(dead_code, missing_docs)]

use std::time::Duration;

use a2a_testkit::RunningAgent;
use futures::StreamExt;
use serde_json::{Value, json};

thread_local! {
    // One client per test (each test runs on its own thread and runtime); building one is not free.
    static HTTP: reqwest::Client =
        reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap();
}

pub fn http() -> reqwest::Client {
    HTTP.with(Clone::clone)
}

/// A 1.0 user message with one text part.
pub fn user_message(text: &str) -> Value {
    json!({ "messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "parts": [{ "text": text }] })
}

/// A 0.3 user message with one text part.
pub fn user_message_v03(text: &str) -> Value {
    json!({
        "kind": "message", "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "user", "parts": [{ "kind": "text", "text": text }]
    })
}

/// Posts a JSON-RPC request with `A2A-Version: 1.0` and returns the whole response body.
pub async fn rpc(agent: &RunningAgent, method: &str, params: Value) -> Value {
    rpc_raw(agent, method, params, Some("1.0")).await.json().await.unwrap()
}

/// Posts a JSON-RPC request with the given version header (none when `None`).
pub async fn rpc_raw(
    agent: &RunningAgent,
    method: &str,
    params: Value,
    version: Option<&str>,
) -> reqwest::Response {
    let mut request = http()
        .post(agent.jsonrpc_url())
        .json(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }));
    if let Some(version) = version {
        request = request.header("A2A-Version", version);
    }
    request.send().await.unwrap()
}

/// What an SSE body carried: the parsed `data:` payloads, whether it ended with a transport error,
/// and any bytes after the last complete event.
#[derive(Debug)]
pub struct SseRead {
    pub events: Vec<Value>,
    pub transport_error: bool,
    pub leftover: String,
}

pub async fn read_sse(response: reqwest::Response) -> SseRead {
    let mut buffer = String::new();
    let mut events = Vec::new();
    let mut transport_error = false;
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(bytes) => buffer.push_str(&String::from_utf8_lossy(&bytes)),
            Err(_) => {
                transport_error = true;
                break;
            }
        }
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            for line in frame.lines() {
                if let Some(data) = line.strip_prefix("data: ") {
                    events.push(serde_json::from_str(data).unwrap());
                }
            }
        }
    }
    SseRead { events, transport_error, leftover: buffer }
}

/// The StreamResponse member an item carries (`task`, `statusUpdate`, `artifactUpdate`, `message`).
pub fn kind_of(item: &Value) -> &'static str {
    ["task", "statusUpdate", "artifactUpdate", "message"]
        .into_iter()
        .find(|k| item.get(*k).is_some())
        .unwrap_or("unknown")
}

/// The state an item reports (task snapshot or status update).
pub fn state_of(item: &Value) -> Option<&str> {
    item.get("task").or_else(|| item.get("statusUpdate")).and_then(|x| x["status"]["state"].as_str())
}

/// Polls `check` for up to two seconds; true once it held.
pub async fn eventually(check: impl Fn() -> bool) -> bool {
    for _ in 0..200 {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    check()
}

/// Sends `text` with `returnImmediately` and returns the task as first answered.
pub async fn send_returning_immediately(agent: &RunningAgent, text: &str) -> Value {
    let params = json!({ "message": user_message(text), "configuration": { "returnImmediately": true } });
    rpc(agent, "SendMessage", params).await["result"]["task"].clone()
}

/// Polls `GetTask` for up to about two seconds; true once the task is in `state`.
pub async fn eventually_state(agent: &RunningAgent, id: &str, state: &str) -> bool {
    for _ in 0..100 {
        if rpc(agent, "GetTask", json!({ "id": id })).await["result"]["status"]["state"] == state {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}
