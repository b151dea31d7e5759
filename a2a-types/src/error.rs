//! The A2A error model: codes, the JSON-RPC `error` object, `google.rpc.ErrorInfo`, and the
//! `google.rpc.Status` body of the HTTP+JSON binding.
//!
//! An A2A error is identified by its JSON-RPC code and, in 1.0, by the `reason` of the `ErrorInfo`
//! carried with it. Over HTTP+JSON several errors share status 400, so the reason is the only reliable
//! key there.
//!
//! ```
//! use a2a_typestate_types::error::{A2aErrorCode, JsonRpcError};
//! use a2a_typestate_types::parse;
//!
//! let error: JsonRpcError = parse::from_str(r#"{"code":-32004,"message":"Streaming is not supported",
//!     "data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION",
//!     "domain":"a2a-protocol.org"}]}"#).unwrap();
//! assert_eq!(error.code, A2aErrorCode::UnsupportedOperation);
//! assert_eq!(error.reason().as_deref(), Some("UNSUPPORTED_OPERATION"));
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The `domain` of every A2A `ErrorInfo`.
pub const A2A_ERROR_DOMAIN: &str = "a2a-protocol.org";

/// The `@type` URL of `google.rpc.ErrorInfo` inside an `Any`.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// A JSON-RPC error code: the A2A errors (-32001 to -32009), the standard JSON-RPC ones, or any
/// other integer, kept as received.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum A2aErrorCode {
    /// -32001 `TaskNotFoundError`: no such task, or not visible to this caller.
    TaskNotFound,
    /// -32002 `TaskNotCancelableError`: the task is in a state that cannot be canceled.
    TaskNotCancelable,
    /// -32003 `PushNotificationNotSupportedError`: the agent does not do push notifications.
    PushNotificationNotSupported,
    /// -32004 `UnsupportedOperationError`: the operation is not supported (also streaming on an agent
    /// without it, and messages to terminal tasks).
    UnsupportedOperation,
    /// -32005 `ContentTypeNotSupportedError`: a part's media type is not accepted.
    ContentTypeNotSupported,
    /// -32006 `InvalidAgentResponseError`: the agent produced a response that breaks the protocol.
    InvalidAgentResponse,
    /// -32007 `ExtendedAgentCardNotConfiguredError` (0.3: `AuthenticatedExtendedCardNotConfigured`).
    ExtendedAgentCardNotConfigured,
    /// -32008 `ExtensionSupportRequiredError`: the client did not declare a required extension.
    ExtensionSupportRequired,
    /// -32009 `VersionNotSupportedError`: the `A2A-Version` asked for is not served.
    VersionNotSupported,
    /// -32700: the request body is not JSON.
    JsonParse,
    /// -32600: the body is not a valid JSON-RPC request.
    InvalidRequest,
    /// -32601: unknown method (also what a 1.0-only server answers to 0.3 method names).
    MethodNotFound,
    /// -32602: the params do not fit the method.
    InvalidParams,
    /// -32603: the server failed.
    Internal,
    /// Any other code, kept as received.
    Other(i64),
}

/// Every named code with its number, ErrorInfo reason (A2A errors only) and v1.0.1 HTTP status.
const CODES: &[(A2aErrorCode, i64, Option<&str>, u16)] = &[
    (A2aErrorCode::TaskNotFound, -32001, Some("TASK_NOT_FOUND"), 404),
    (A2aErrorCode::TaskNotCancelable, -32002, Some("TASK_NOT_CANCELABLE"), 400),
    (A2aErrorCode::PushNotificationNotSupported, -32003, Some("PUSH_NOTIFICATION_NOT_SUPPORTED"), 400),
    (A2aErrorCode::UnsupportedOperation, -32004, Some("UNSUPPORTED_OPERATION"), 400),
    (A2aErrorCode::ContentTypeNotSupported, -32005, Some("CONTENT_TYPE_NOT_SUPPORTED"), 400),
    (A2aErrorCode::InvalidAgentResponse, -32006, Some("INVALID_AGENT_RESPONSE"), 500),
    (A2aErrorCode::ExtendedAgentCardNotConfigured, -32007, Some("EXTENDED_AGENT_CARD_NOT_CONFIGURED"), 400),
    (A2aErrorCode::ExtensionSupportRequired, -32008, Some("EXTENSION_SUPPORT_REQUIRED"), 400),
    (A2aErrorCode::VersionNotSupported, -32009, Some("VERSION_NOT_SUPPORTED"), 400),
    (A2aErrorCode::JsonParse, -32700, None, 400),
    (A2aErrorCode::InvalidRequest, -32600, None, 400),
    (A2aErrorCode::MethodNotFound, -32601, None, 404),
    (A2aErrorCode::InvalidParams, -32602, None, 400),
    (A2aErrorCode::Internal, -32603, None, 500),
];

impl A2aErrorCode {
    /// The code for a number; numbers without a name become [`A2aErrorCode::Other`].
    pub fn from_code(code: i64) -> Self {
        CODES.iter().find(|(_, n, _, _)| *n == code).map_or(Self::Other(code), |(c, _, _, _)| *c)
    }

    /// The JSON-RPC number.
    pub fn code(self) -> i64 {
        match self {
            Self::Other(code) => code,
            named => CODES.iter().find(|(c, _, _, _)| *c == named).map_or(0, |(_, n, _, _)| *n),
        }
    }

    /// The `ErrorInfo.reason` of an A2A error: its type name in UPPER_SNAKE_CASE without `Error`
    /// (`TASK_NOT_FOUND`); `None` for JSON-RPC and unknown codes.
    pub fn reason(self) -> Option<&'static str> {
        CODES.iter().find(|(c, _, _, _)| *c == self).and_then(|(_, _, r, _)| *r)
    }

    /// The A2A error with this `ErrorInfo.reason`, if it is one of the nine.
    pub fn from_reason(reason: &str) -> Option<Self> {
        CODES.iter().find(|(_, _, r, _)| *r == Some(reason)).map(|(c, _, _, _)| *c)
    }

    /// The HTTP status of this error in the HTTP+JSON binding (v1.0.1 table). The JSON-RPC codes have
    /// no REST form; they get the nearest status (400, 404 for an unknown method, 500), and unknown
    /// codes 500.
    pub fn http_status(self) -> u16 {
        CODES.iter().find(|(c, _, _, _)| *c == self).map_or(500, |(_, _, _, s)| *s)
    }

    /// `true` for the A2A-specific codes (-32001 to -32099), as opposed to JSON-RPC's own.
    pub fn is_a2a(self) -> bool {
        (-32099..=-32001).contains(&self.code())
    }
}

impl fmt::Display for A2aErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason() {
            Some(reason) => write!(f, "{} ({reason})", self.code()),
            None => write!(f, "{}", self.code()),
        }
    }
}

impl Serialize for A2aErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.code())
    }
}

impl<'de> Deserialize<'de> for A2aErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Self::from_code)
    }
}

/// The JSON-RPC `error` object: `code`, `message`, and `data` (any JSON).
///
/// In 1.0 `data` is an array of ProtoJSON `Any` values that includes a `google.rpc.ErrorInfo` for A2A
/// errors; older and other servers send an object or nothing, so `data` is kept as raw JSON and read
/// leniently by [`JsonRpcError::error_infos`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code.
    pub code: A2aErrorCode,
    /// A human-readable description, as the server wrote it.
    #[serde(default)]
    pub message: String,
    /// Details, as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl JsonRpcError {
    /// An error with no `data`.
    pub fn new(code: A2aErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// An error as a 1.0 server sends it: for A2A codes, `data` holds the matching `ErrorInfo`.
    pub fn a2a(code: A2aErrorCode, message: impl Into<String>) -> Self {
        let data = ErrorInfo::for_code(code).map(|info| Value::Array(vec![info.to_value()]));
        Self { code, message: message.into(), data }
    }

    /// The `ErrorInfo` entries in `data`, whether `data` is an array of `Any` or a single object;
    /// anything else yields none.
    pub fn error_infos(&self) -> Vec<ErrorInfo> {
        self.data.as_ref().map(error_infos_in).unwrap_or_default()
    }

    /// The reason of the first `ErrorInfo`, if there is one.
    pub fn reason(&self) -> Option<String> {
        self.error_infos().into_iter().map(|info| info.reason).find(|reason| !reason.is_empty())
    }

    /// The A2A error this is: by code when the code is known, otherwise by the `ErrorInfo` reason.
    pub fn a2a_code(&self) -> Option<A2aErrorCode> {
        if self.code.is_a2a() && !matches!(self.code, A2aErrorCode::Other(_)) {
            return Some(self.code);
        }
        self.reason().as_deref().and_then(A2aErrorCode::from_reason)
    }
}

impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent returned error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for JsonRpcError {}

/// `google.rpc.ErrorInfo`: why an error happened, as a machine-readable `reason` within a `domain`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorInfo {
    /// The `Any` type URL; [`ERROR_INFO_TYPE`].
    #[serde(rename = "@type")]
    pub type_url: String,
    /// The error type in UPPER_SNAKE_CASE, such as `TASK_NOT_FOUND`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Who defines the reason; [`A2A_ERROR_DOMAIN`] for A2A errors.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub domain: String,
    /// Extra context (`map<string, string>` in the proto; any JSON accepted).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl ErrorInfo {
    /// The `ErrorInfo` an A2A server attaches to `code`; `None` for codes without a reason.
    pub fn for_code(code: A2aErrorCode) -> Option<Self> {
        code.reason().map(|reason| Self {
            type_url: ERROR_INFO_TYPE.to_owned(),
            reason: reason.to_owned(),
            domain: A2A_ERROR_DOMAIN.to_owned(),
            metadata: Map::new(),
        })
    }

    /// The A2A error this reason names, if any.
    pub fn a2a_code(&self) -> Option<A2aErrorCode> {
        A2aErrorCode::from_reason(&self.reason)
    }

    fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("@type".to_owned(), Value::String(self.type_url.clone()));
        object.insert("reason".to_owned(), Value::String(self.reason.clone()));
        object.insert("domain".to_owned(), Value::String(self.domain.clone()));
        if !self.metadata.is_empty() {
            object.insert("metadata".to_owned(), Value::Object(self.metadata.clone()));
        }
        Value::Object(object)
    }
}

/// The `ErrorInfo` entries of a `details`/`data` value: an array of `Any` or a single `Any` object.
/// Entries with another `@type`, or that do not fit, are skipped rather than failing the error.
pub fn error_infos_in(data: &Value) -> Vec<ErrorInfo> {
    let entries: Vec<&Value> = match data {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![data],
        _ => Vec::new(),
    };
    entries
        .into_iter()
        .filter(|entry| {
            entry.get("@type").and_then(Value::as_str).is_some_and(|t| t.ends_with("google.rpc.ErrorInfo"))
        })
        .filter_map(|entry| serde_json::from_value::<ErrorInfo>(entry.clone()).ok())
        .collect()
}

/// The error body of the HTTP+JSON binding: `{"error": <google.rpc.Status>}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RestErrorBody {
    /// The status.
    pub error: RpcStatus,
}

/// `google.rpc.Status` as the HTTP+JSON binding writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RpcStatus {
    /// The HTTP status code (400, 404, ...).
    pub code: i32,
    /// The gRPC status name (`FAILED_PRECONDITION`, `NOT_FOUND`, ...).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub status: String,
    /// A human-readable description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `Any` values, among them the `ErrorInfo` that identifies the A2A error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Value>,
}

impl RpcStatus {
    /// The `ErrorInfo` entries in `details`.
    pub fn error_infos(&self) -> Vec<ErrorInfo> {
        self.details.iter().flat_map(error_infos_in).collect()
    }

    /// The reason of the first `ErrorInfo`, if there is one.
    pub fn reason(&self) -> Option<String> {
        self.error_infos().into_iter().map(|info| info.reason).find(|reason| !reason.is_empty())
    }

    /// The A2A error named by the `ErrorInfo` reason; the HTTP code alone cannot tell them apart.
    pub fn a2a_code(&self) -> Option<A2aErrorCode> {
        self.reason().as_deref().and_then(A2aErrorCode::from_reason)
    }
}

impl fmt::Display for RpcStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent returned HTTP {} {}: {}", self.code, self.status, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_a2a_code_maps_to_its_reason_and_back() {
        for code in -32009..=-32001 {
            let named = A2aErrorCode::from_code(code);
            assert!(!matches!(named, A2aErrorCode::Other(_)), "{code}");
            let reason = named.reason().unwrap();
            assert_eq!(A2aErrorCode::from_reason(reason), Some(named));
            assert_eq!(named.code(), code);
        }
    }

    #[test]
    fn unknown_codes_are_kept_as_received() {
        let code: A2aErrorCode = serde_json::from_str("-32042").unwrap();
        assert_eq!(code, A2aErrorCode::Other(-32042));
        assert_eq!(serde_json::to_string(&code).unwrap(), "-32042");
        assert!(code.is_a2a());
    }

    #[test]
    fn error_data_as_a_single_object_is_still_read() {
        let error: JsonRpcError = serde_json::from_str(
            r#"{"code":-32001,"message":"x","data":{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}}"#,
        )
        .unwrap();
        assert_eq!(error.reason().as_deref(), Some("TASK_NOT_FOUND"));
    }

    #[test]
    fn error_data_of_any_other_shape_yields_no_reason() {
        for data in [r#""oops""#, "42", r#"[1,{"reason":"NO_TYPE"}]"#, r#"{"detail":"x"}"#] {
            let error: JsonRpcError =
                serde_json::from_str(&format!(r#"{{"code":-32603,"message":"x","data":{data}}}"#)).unwrap();
            assert_eq!(error.reason(), None, "{data}");
        }
    }

    #[test]
    fn unknown_code_is_identified_by_its_reason() {
        let error = JsonRpcError {
            code: A2aErrorCode::Other(-32099),
            message: String::new(),
            data: Some(serde_json::json!([ErrorInfo::for_code(A2aErrorCode::TaskNotFound).unwrap()])),
        };
        assert_eq!(error.a2a_code(), Some(A2aErrorCode::TaskNotFound));
    }

    #[test]
    fn a2a_constructor_attaches_error_info() {
        let error = JsonRpcError::a2a(A2aErrorCode::VersionNotSupported, "no");
        let infos = error.error_infos();
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].reason, "VERSION_NOT_SUPPORTED");
        assert_eq!(infos[0].domain, A2A_ERROR_DOMAIN);
    }

    #[test]
    fn rest_error_is_identified_by_reason_not_status() {
        let body: RestErrorBody = serde_json::from_str(
            r#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{}}]}}"#,
        )
        .unwrap();
        assert_eq!(body.error.a2a_code(), Some(A2aErrorCode::VersionNotSupported));
    }
}
