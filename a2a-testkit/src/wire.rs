//! The JSON the agent writes, built with `serde_json` from the spec and the official servers'
//! transcripts, on purpose without `a2a-types`: a bug in our types must not cancel itself out in tests.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::script::Protocol;

/// Task states the scripted agents reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskState {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Canceled,
}

impl TaskState {
    pub(crate) fn wire(self, protocol: Protocol) -> &'static str {
        match (protocol, self) {
            (Protocol::V1_0, TaskState::Submitted) => "TASK_STATE_SUBMITTED",
            (Protocol::V1_0, TaskState::Working) => "TASK_STATE_WORKING",
            (Protocol::V1_0, TaskState::InputRequired) => "TASK_STATE_INPUT_REQUIRED",
            (Protocol::V1_0, TaskState::Completed) => "TASK_STATE_COMPLETED",
            (Protocol::V1_0, TaskState::Canceled) => "TASK_STATE_CANCELED",
            (Protocol::V0_3, TaskState::Submitted) => "submitted",
            (Protocol::V0_3, TaskState::Working) => "working",
            (Protocol::V0_3, TaskState::InputRequired) => "input-required",
            (Protocol::V0_3, TaskState::Completed) => "completed",
            (Protocol::V0_3, TaskState::Canceled) => "canceled",
        }
    }

    pub(crate) fn from_wire(text: &str) -> Option<TaskState> {
        [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::Completed,
            TaskState::Canceled,
        ]
        .into_iter()
        .find(|s| s.wire(Protocol::V1_0) == text || s.wire(Protocol::V0_3) == text)
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, TaskState::Completed | TaskState::Canceled)
    }

    /// Streams close at terminal and at interrupted states (NOTES 9.2).
    pub(crate) fn ends_stream(self) -> bool {
        self.is_terminal() || self == TaskState::InputRequired
    }
}

/// A text part in the protocol's shape.
pub(crate) fn text_part(protocol: Protocol, text: &str) -> Value {
    match protocol {
        Protocol::V1_0 => json!({ "text": text }),
        Protocol::V0_3 => json!({ "kind": "text", "text": text }),
    }
}

/// A message the agent sends.
pub(crate) fn agent_message(protocol: Protocol, text: &str, context_id: &str, task_id: &str) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    match protocol {
        Protocol::V1_0 => json!({
            "messageId": id, "contextId": context_id, "taskId": task_id,
            "role": "ROLE_AGENT", "parts": [text_part(protocol, text)]
        }),
        Protocol::V0_3 => json!({
            "kind": "message", "messageId": id, "contextId": context_id, "taskId": task_id,
            "role": "agent", "parts": [text_part(protocol, text)]
        }),
    }
}

/// The text of a message's text parts, joined by spaces (both versions put it in `text`).
pub(crate) fn message_text(message: &Value) -> String {
    message
        .get("parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_default()
}

/// A `TaskStatus`.
pub(crate) fn status(
    protocol: Protocol,
    state: TaskState,
    message: Option<&Value>,
    timestamp: &str,
) -> Value {
    let mut status = json!({ "state": state.wire(protocol), "timestamp": timestamp });
    if let (Some(message), Some(obj)) = (message, status.as_object_mut()) {
        obj.insert("message".to_owned(), message.clone());
    }
    status
}

/// A status-update event: `{"statusUpdate":..}` in 1.0, a `kind: status-update` object with `final` in 0.3.
pub(crate) fn status_update(
    protocol: Protocol,
    task_id: &str,
    context_id: &str,
    status: Value,
    ends_stream: bool,
) -> Value {
    match protocol {
        Protocol::V1_0 => json!({
            "statusUpdate": { "taskId": task_id, "contextId": context_id, "status": status }
        }),
        Protocol::V0_3 => json!({
            "kind": "status-update", "taskId": task_id, "contextId": context_id,
            "status": status, "final": ends_stream
        }),
    }
}

/// An artifact holding one text part.
pub(crate) fn artifact(protocol: Protocol, text: &str) -> Value {
    json!({
        "artifactId": uuid::Uuid::new_v4().to_string(),
        "name": "answer",
        "parts": [text_part(protocol, text)]
    })
}

/// An artifact-update event carrying a whole artifact (`lastChunk: true`).
pub(crate) fn artifact_update(
    protocol: Protocol,
    task_id: &str,
    context_id: &str,
    artifact: &Value,
) -> Value {
    match protocol {
        Protocol::V1_0 => json!({
            "artifactUpdate": {
                "taskId": task_id, "contextId": context_id, "artifact": artifact, "lastChunk": true
            }
        }),
        Protocol::V0_3 => json!({
            "kind": "artifact-update", "taskId": task_id, "contextId": context_id,
            "artifact": artifact, "append": false, "lastChunk": true
        }),
    }
}

/// A message as a stream item: `{"message":..}` in 1.0, the bare `kind: message` in 0.3.
pub(crate) fn wrap_message(protocol: Protocol, message: Value) -> Value {
    match protocol {
        Protocol::V1_0 => json!({ "message": message }),
        Protocol::V0_3 => message,
    }
}

/// A task as a stream item or SendMessage result: `{"task":..}` in 1.0, the bare `kind: task` in 0.3.
pub(crate) fn wrap_task(protocol: Protocol, task: Value) -> Value {
    match protocol {
        Protocol::V1_0 => json!({ "task": task }),
        Protocol::V0_3 => task,
    }
}

/// The `ErrorInfo.domain` of A2A errors (spec §10.6).
pub(crate) const A2A_ERROR_DOMAIN: &str = "a2a-protocol.org";

/// An A2A or JSON-RPC error, renderable for either binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct A2aError {
    pub(crate) code: i64,
    /// The ErrorInfo reason; `None` for the standard JSON-RPC errors.
    pub(crate) reason: Option<&'static str>,
    pub(crate) http_status: u16,
    pub(crate) grpc_status: &'static str,
    pub(crate) message: String,
}

impl A2aError {
    fn new(code: i64, reason: Option<&'static str>, http: u16, grpc: &'static str, message: String) -> Self {
        A2aError { code, reason, http_status: http, grpc_status: grpc, message }
    }

    pub(crate) fn task_not_found(id: &str) -> Self {
        Self::new(-32001, Some("TASK_NOT_FOUND"), 404, "NOT_FOUND", format!("Task not found: {id}"))
    }

    pub(crate) fn task_not_cancelable(id: &str, state: &str) -> Self {
        let message = format!("Task {id} cannot be canceled in state {state}");
        Self::new(-32002, Some("TASK_NOT_CANCELABLE"), 400, "FAILED_PRECONDITION", message)
    }

    pub(crate) fn push_not_supported() -> Self {
        let message = "Push notifications are not supported by the agent".to_owned();
        Self::new(-32003, Some("PUSH_NOTIFICATION_NOT_SUPPORTED"), 400, "FAILED_PRECONDITION", message)
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self::new(-32004, Some("UNSUPPORTED_OPERATION"), 400, "FAILED_PRECONDITION", message.into())
    }

    pub(crate) fn extension_support_required(uri: &str) -> Self {
        let message = format!("The agent requires extension {uri}, which the request did not ask for");
        Self::new(-32008, Some("EXTENSION_SUPPORT_REQUIRED"), 400, "FAILED_PRECONDITION", message)
    }

    pub(crate) fn version_not_supported(requested: &str) -> Self {
        let message =
            format!("A2A version '{requested}' is not supported by this agent. Expected version '1.0'.");
        Self::new(-32009, Some("VERSION_NOT_SUPPORTED"), 400, "FAILED_PRECONDITION", message)
    }

    pub(crate) fn parse_error(detail: &str) -> Self {
        Self::new(-32700, None, 400, "INVALID_ARGUMENT", format!("Parse error: {detail}"))
    }

    pub(crate) fn invalid_request(detail: &str) -> Self {
        Self::new(-32600, None, 400, "INVALID_ARGUMENT", format!("Invalid request: {detail}"))
    }

    pub(crate) fn method_not_found() -> Self {
        Self::new(-32601, None, 404, "NOT_FOUND", "Method not found".to_owned())
    }

    /// An internal error (`-32603`): a2a-python's answer to anything its handlers did not expect.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(-32603, None, 500, "INTERNAL", message.into())
    }

    pub(crate) fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(-32602, None, 400, "INVALID_ARGUMENT", detail.into())
    }

    fn error_info(&self) -> Option<Value> {
        self.reason.map(|reason| {
            json!({
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason, "domain": A2A_ERROR_DOMAIN, "metadata": {}
            })
        })
    }

    /// The JSON-RPC `error` member: 1.0 carries ErrorInfo in `data`; 0.3 has no `data`.
    pub(crate) fn jsonrpc_error(&self, protocol: Protocol) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let (Protocol::V1_0, Some(info), Some(obj)) = (protocol, self.error_info(), error.as_object_mut())
        {
            obj.insert("data".to_owned(), json!([info]));
        }
        error
    }

    /// The HTTP+JSON body: a `google.rpc.Status`.
    pub(crate) fn rest_status(&self) -> Value {
        let details: Vec<Value> = self.error_info().into_iter().collect();
        json!({
            "error": {
                "code": self.http_status, "status": self.grpc_status,
                "message": self.message, "details": details
            }
        })
    }
}

/// A JSON-RPC response envelope around a result.
pub(crate) fn jsonrpc_result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// A JSON-RPC response envelope around an error.
pub(crate) fn jsonrpc_failure(protocol: Protocol, id: &Value, error: &A2aError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.jsonrpc_error(protocol) })
}

/// The current time as an RFC 3339 UTC timestamp with microseconds, like the official servers.
pub(crate) fn now_timestamp() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        since.subsec_micros()
    )
}

/// Days since 1970-01-01 to a (year, month, day) date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, u32::try_from(month).unwrap_or(1), u32::try_from(day).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_match_known_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn states_round_trip_through_both_spellings() {
        assert_eq!(TaskState::from_wire("input-required"), Some(TaskState::InputRequired));
        assert_eq!(TaskState::from_wire("TASK_STATE_CANCELED"), Some(TaskState::Canceled));
        assert_eq!(TaskState::from_wire("bogus"), None);
    }
}
