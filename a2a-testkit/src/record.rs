//! What an agent received and what it sent, so tests can assert on the traffic.

use std::time::Duration;

use serde_json::Value;

/// One HTTP request an agent received, recorded before any fault or error was applied.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The HTTP method (`GET`, `POST`, ...).
    pub http_method: String,
    /// The request path, without the query.
    pub path: String,
    /// The raw query string, if any.
    pub query: Option<String>,
    /// The A2A operation in 1.0 words (`SendMessage`, `GetTask`, ...), whatever the binding and version;
    /// `None` for card fetches and requests that are not A2A operations.
    pub operation: Option<String>,
    /// The JSON-RPC `method` exactly as sent (`message/send` for 0.3), for JSON-RPC requests.
    pub rpc_method: Option<String>,
    /// The body, if it parsed as JSON.
    pub body: Option<Value>,
    /// All request headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// When it arrived, measured from the agent's start.
    pub at: Duration,
}

impl RecordedRequest {
    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// True when this request was the A2A operation `operation` (1.0 name, for example `SendMessage`).
    pub fn is(&self, operation: &str) -> bool {
        self.operation.as_deref() == Some(operation)
    }
}

/// How the answer to one recorded request left the agent: what a client's bounds look like from
/// the agent's side (a stream it stopped reading, a send it stopped waiting for, an answer too
/// large that it read only in part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerRecord {
    /// The request's index in [`RunningAgent::requests`](crate::RunningAgent::requests).
    pub request: usize,
    /// Body bytes handed to the connection (some may still have been in its buffers when the client
    /// let go).
    pub bytes_sent: u64,
    /// When the whole answer was sent or the client let go of it, measured from the agent's start;
    /// `None` while it is still being answered: a connection the client holds.
    pub ended: Option<Duration>,
    /// Whether the whole answer was sent; false when the client let go first.
    pub complete: bool,
}

/// One push callback the agent POSTed (or tried to).
#[derive(Debug, Clone, PartialEq)]
pub struct PushDelivery {
    /// The webhook URL.
    pub url: String,
    /// The id of the push config it was sent for.
    pub config_id: String,
    /// The task it is about.
    pub task_id: String,
    /// The `Authorization` header sent, if any.
    pub authorization: Option<String>,
    /// The `X-A2A-Notification-Token` header sent, if any.
    pub notification_token: Option<String>,
    /// The body: a StreamResponse in 1.0, the Task in 0.3.
    pub body: Value,
    /// The receiver's HTTP status, or `None` when the POST failed at the transport level.
    pub response_status: Option<u16>,
    /// When it was sent, measured from the agent's start.
    pub at: Duration,
}
