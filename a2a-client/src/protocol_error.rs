//! A2A errors as the agent sends them, in both bindings.
//!
//! JSON-RPC carries `{"code", "message", "data"}` where `data` should be an array of ProtoJSON `Any`
//! holding a `google.rpc.ErrorInfo`; HTTP+JSON carries `google.rpc.Status`
//! (`{"error": {"code", "status", "message", "details": [ErrorInfo]}}`). Both are read leniently: any
//! JSON in `data`, missing fields tolerated. The A2A code is recovered from the ErrorInfo `reason` when
//! the binding does not carry it, so callers can match on [`ProtocolError::code`] whatever the binding.
//!
//! ```
//! use a2a_typestate_client::ProtocolError;
//! use serde_json::json;
//!
//! let rest = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "no streaming",
//!     "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
//!                  "reason": "UNSUPPORTED_OPERATION", "domain": "a2a-protocol.org"}]}});
//! let err = ProtocolError::from_rpc_status(400, &rest);
//! assert_eq!(err.a2a_code(), Some(a2a_typestate_client::types::error::A2aErrorCode::UnsupportedOperation));
//! assert_eq!(err.code(), Some(-32004));
//! assert_eq!(err.reason(), Some("UNSUPPORTED_OPERATION"));
//! ```
// The code <-> reason table is `a2a_typestate_types::error::A2aErrorCode`'s. Reading stays lenient here (any
// entry with a `reason` counts, with or without `@type`), since this is what a caller will be shown.

use std::fmt;

use a2a_typestate_types::error::A2aErrorCode;
use serde_json::Value;

/// An A2A error answered by the agent.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError {
    code: Option<i64>,
    reason: Option<String>,
    message: String,
    http_status: Option<u16>,
    rpc_status: Option<String>,
}

impl ProtocolError {
    /// Reads a JSON-RPC `error` object (the value of the response's `error` member).
    pub fn from_jsonrpc(error: &Value) -> Self {
        let code = error.get("code").and_then(Value::as_i64);
        let message = error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
        let reason = error.get("data").and_then(find_reason).or_else(|| code.and_then(reason_for_code));
        Self { code, reason, message, http_status: None, rpc_status: None }
    }

    /// Reads an HTTP+JSON error body (`google.rpc.Status` wrapped in `error`) answered with `http_status`.
    pub fn from_rpc_status(http_status: u16, body: &Value) -> Self {
        let status = body.get("error").unwrap_or(body);
        let message = status.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
        let rpc_status = status.get("status").and_then(Value::as_str).map(str::to_owned);
        let reason = status.get("details").and_then(find_reason);
        let code = code_of(reason.as_deref(), rpc_status.as_deref());
        Self { code, reason, message, http_status: Some(http_status), rpc_status }
    }

    /// A 0.3 HTTP+JSON error answered with `http_status`: `body` is the error object (a2a-python
    /// writes `{"message"}`), `code` what the status stands for on the route called. A numeric
    /// JSON-RPC `code` in the body, when an agent sends one, is taken over the status.
    pub(crate) fn from_v03_rest(http_status: u16, body: &Value, code: i64) -> Self {
        let written = body.get("code").and_then(Value::as_i64).filter(|c| (-32768..=-32000).contains(c));
        let code = written.unwrap_or(code);
        let message = body.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
        Self {
            code: Some(code),
            reason: reason_for_code(code),
            message,
            http_status: Some(http_status),
            rpc_status: None,
        }
    }

    /// A gRPC status named `grpc_status` (`NOT_FOUND`...) whose details carried an `ErrorInfo` with
    /// `reason`, or none; the code is derived as for HTTP+JSON.
    #[cfg(feature = "grpc")]
    pub(crate) fn from_grpc(grpc_status: &str, message: &str, reason: Option<String>) -> Self {
        let code = code_of(reason.as_deref(), Some(grpc_status));
        Self {
            code,
            reason,
            message: message.to_owned(),
            http_status: None,
            rpc_status: Some(grpc_status.to_owned()),
        }
    }

    /// Whether `body` looks like an HTTP+JSON A2A error (`{"error": {...}}` with a message or details).
    pub fn is_rpc_status_body(body: &Value) -> bool {
        body.get("error")
            .is_some_and(|e| e.is_object() && (e.get("details").is_some() || e.get("message").is_some()))
    }

    /// The JSON-RPC / A2A error code (-32001..-32009 for A2A errors, -32700..-32600 standard ones).
    /// For HTTP+JSON and gRPC it is derived from the ErrorInfo reason; a status with no `ErrorInfo`
    /// at all is one of the JSON-RPC standard errors, which the spec gives no reason: an
    /// `INVALID_ARGUMENT` one is read as invalid params (-32602, the agent refusing what the request
    /// carried, such as a webhook URL). `None` when the reason is unknown, or the status says
    /// nothing more.
    pub fn code(&self) -> Option<i64> {
        self.code
    }

    /// The `google.rpc.ErrorInfo` reason, such as `UNSUPPORTED_OPERATION`.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The agent's human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status, for the HTTP+JSON binding.
    pub fn http_status(&self) -> Option<u16> {
        self.http_status
    }

    /// The `google.rpc.Code` name (`FAILED_PRECONDITION`...), for the HTTP+JSON and gRPC bindings.
    pub fn rpc_status(&self) -> Option<&str> {
        self.rpc_status.as_deref()
    }

    /// The code as the protocol's named error, when there is a code.
    pub fn a2a_code(&self) -> Option<A2aErrorCode> {
        self.code.map(A2aErrorCode::from_code)
    }

    /// Whether the agent said it does not support the operation (streaming, subscribe, extended card).
    pub fn is_unsupported_operation(&self) -> bool {
        self.a2a_code() == Some(A2aErrorCode::UnsupportedOperation)
    }

    /// Whether the agent refused the call because it did not ask for an extension the agent requires
    /// (-32008 `ExtensionSupportRequiredError`): ask for it with
    /// [`CallOptions::extension`](crate::CallOptions::extension) or
    /// [`ClientBuilder::extension`](crate::ClientBuilder::extension) (see [`crate::extensions`]).
    pub fn is_extension_support_required(&self) -> bool {
        self.a2a_code() == Some(A2aErrorCode::ExtensionSupportRequired)
    }

    /// Whether the agent said it does not support push notifications.
    pub fn is_push_notification_not_supported(&self) -> bool {
        self.a2a_code() == Some(A2aErrorCode::PushNotificationNotSupported)
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a2a error")?;
        if let Some(code) = self.code {
            write!(f, " {code}")?;
        }
        if let Some(reason) = &self.reason {
            write!(f, " {reason}")?;
        }
        match (self.http_status, &self.rpc_status) {
            (Some(status), _) => write!(f, " (http {status})")?,
            (None, Some(status)) => write!(f, " (grpc {status})")?,
            (None, None) => {}
        }
        let message = self.message.trim().trim_end_matches('.');
        if !message.is_empty() {
            write!(f, ": {message}")?;
        }
        Ok(())
    }
}

/// Finds the first ErrorInfo-like `reason` in `data`/`details`: an array of `Any`, or a single object.
fn find_reason(data: &Value) -> Option<String> {
    let reason_of = |v: &Value| v.get("reason").and_then(Value::as_str).map(str::to_owned);
    match data {
        Value::Array(items) => items.iter().find_map(reason_of),
        Value::Object(_) => reason_of(data),
        _ => None,
    }
}

fn code_for_reason(reason: &str) -> Option<i64> {
    A2aErrorCode::from_reason(reason).map(A2aErrorCode::code)
}

/// The code of an HTTP+JSON or gRPC error: its `ErrorInfo` reason's, or, with no reason at all, the
/// JSON-RPC standard error its status stands for. The spec's table puts invalid params, a parse
/// error and an invalid request all at `INVALID_ARGUMENT`; the request is this client's own, so
/// the agent is refusing what it carried: invalid params.
fn code_of(reason: Option<&str>, rpc_status: Option<&str>) -> Option<i64> {
    match reason {
        Some(reason) => code_for_reason(reason),
        None => match rpc_status? {
            "INVALID_ARGUMENT" => Some(A2aErrorCode::InvalidParams.code()),
            // No such method (gRPC's own answer for one the server does not have).
            "UNIMPLEMENTED" => Some(A2aErrorCode::MethodNotFound.code()),
            _ => None,
        },
    }
}

fn reason_for_code(code: i64) -> Option<String> {
    A2aErrorCode::from_code(code).reason().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jsonrpc_error_gives_code_and_errorinfo_reason() {
        let error = json!({"code": -32004, "message": "Streaming is not supported by the agent",
            "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UNSUPPORTED_OPERATION",
                      "domain": "a2a-protocol.org"}]});
        let err = ProtocolError::from_jsonrpc(&error);
        assert_eq!(err.code(), Some(-32004));
        assert_eq!(err.reason(), Some("UNSUPPORTED_OPERATION"));
        assert!(err.is_unsupported_operation());
        assert_eq!(err.a2a_code(), Some(A2aErrorCode::UnsupportedOperation));
        assert_eq!(err.http_status(), None);
    }

    #[test]
    fn jsonrpc_error_tolerates_any_data() {
        for data in [json!({"reason": "TASK_NOT_FOUND"}), json!("text"), json!(null), json!([1, 2])] {
            let err = ProtocolError::from_jsonrpc(&json!({"code": -32001, "message": "m", "data": data}));
            assert_eq!(err.code(), Some(-32001));
            assert_eq!(err.reason(), Some("TASK_NOT_FOUND"), "reason falls back to the code's");
        }
        let err = ProtocolError::from_jsonrpc(&json!({"code": -32601, "message": "Method not found"}));
        assert_eq!((err.code(), err.reason()), (Some(-32601), None));
    }

    #[test]
    fn rest_error_is_identified_by_reason_not_http_status() {
        let body = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "m",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                         "reason": "PUSH_NOTIFICATION_NOT_SUPPORTED"}]}});
        let err = ProtocolError::from_rpc_status(400, &body);
        assert!(err.is_push_notification_not_supported());
        assert_eq!(err.rpc_status(), Some("FAILED_PRECONDITION"));
        assert_eq!(err.http_status(), Some(400));
        assert!(ProtocolError::is_rpc_status_body(&body));
        assert!(!ProtocolError::is_rpc_status_body(&json!({"task": {}})));
    }

    #[test]
    fn a_rest_invalid_argument_without_error_info_is_invalid_params() {
        // How the HTTP+JSON binding carries -32602 (the spec gives the JSON-RPC standard errors no
        // reason): an agent refusing a loopback webhook URL, or naming a push config it does not hold.
        let body = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
            "message": "webhook host 127.0.0.1 is a loopback address", "details": []}});
        let err = ProtocolError::from_rpc_status(400, &body);
        assert_eq!(err.a2a_code(), Some(A2aErrorCode::InvalidParams));
        assert_eq!(err.reason(), None);
        // An unknown reason is still unknown, whatever the status.
        let other = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "m",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA"}]}});
        assert_eq!(ProtocolError::from_rpc_status(400, &other).code(), None);
        let precondition = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "m"}});
        assert_eq!(ProtocolError::from_rpc_status(400, &precondition).code(), None);
    }

    #[test]
    fn extension_support_required_is_recognised_on_every_binding() {
        let rpc = ProtocolError::from_jsonrpc(&json!({"code": -32008, "message": "needs urn:x"}));
        assert!(rpc.is_extension_support_required());
        assert_eq!(rpc.reason(), Some("EXTENSION_SUPPORT_REQUIRED"));
        let rest = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "needs urn:x",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                         "reason": "EXTENSION_SUPPORT_REQUIRED"}]}});
        let rest = ProtocolError::from_rpc_status(400, &rest);
        assert!(rest.is_extension_support_required());
        assert_eq!(rest.code(), Some(-32008));
    }

    #[test]
    fn display_names_code_reason_and_message() {
        let err = ProtocolError::from_jsonrpc(&json!({"code": -32009, "message": "Version not supported."}));
        assert_eq!(err.to_string(), "a2a error -32009 VERSION_NOT_SUPPORTED: Version not supported");
    }
}
