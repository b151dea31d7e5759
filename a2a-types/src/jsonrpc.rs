//! JSON-RPC 2.0 envelopes and the A2A 1.0 method names.
//!
//! ```
//! use a2a_typestate_types::jsonrpc::{JsonRpcRequest, JsonRpcResponse, Method};
//! use a2a_typestate_types::{parse, GetTaskRequest, Task, TaskState};
//!
//! let request = JsonRpcRequest::new(4, Method::GetTask, GetTaskRequest::new("t1"));
//! assert_eq!(
//!     serde_json::to_string(&request).unwrap(),
//!     r#"{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{"id":"t1"}}"#
//! );
//!
//! let response: JsonRpcResponse<Task> = parse::from_str(
//!     r#"{"result":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}},"id":4,"jsonrpc":"2.0"}"#,
//! ).unwrap();
//! assert_eq!(response.into_result().unwrap().state(), TaskState::Completed);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::JsonRpcError;

/// A JSON-RPC id: a number, a string, or `null` (used in errors about unreadable requests).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum JsonRpcId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
    /// `null`.
    Null,
}

impl From<i64> for JsonRpcId {
    fn from(id: i64) -> Self {
        Self::Number(id)
    }
}

impl From<i32> for JsonRpcId {
    fn from(id: i32) -> Self {
        Self::Number(i64::from(id))
    }
}

impl From<&str> for JsonRpcId {
    fn from(id: &str) -> Self {
        Self::String(id.to_owned())
    }
}

impl From<String> for JsonRpcId {
    fn from(id: String) -> Self {
        Self::String(id)
    }
}

impl fmt::Display for JsonRpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "\"{s}\""),
            Self::Null => f.write_str("null"),
        }
    }
}

impl Serialize for JsonRpcId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => s.serialize_i64(*n),
            Self::String(text) => s.serialize_str(text),
            Self::Null => s.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for JsonRpcId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = JsonRpcId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC id (an integer, a string or null)")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<JsonRpcId, E> {
                i64::try_from(n)
                    .map(JsonRpcId::Number)
                    .map_err(|_| E::custom(format!("JSON-RPC id {n} is too large")))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::String(s.to_owned()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::Null)
            }
        }
        d.deserialize_any(V)
    }
}

/// The `"jsonrpc": "2.0"` member: written always, and refused on input when it says anything else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Version2;

impl Serialize for Version2 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for Version2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "2.0" {
            Ok(Self)
        } else {
            Err(serde::de::Error::custom(format!("expected \"2.0\", found \"{text}\"")))
        }
    }
}

/// The A2A 1.0 JSON-RPC methods (the gRPC RPC names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `SendMessage`: params [`SendMessageRequest`](crate::SendMessageRequest), result
    /// [`SendMessageResponse`](crate::SendMessageResponse).
    SendMessage,
    /// `SendStreamingMessage`: SSE stream of [`StreamResponse`](crate::StreamResponse).
    SendStreamingMessage,
    /// `GetTask`: result [`Task`](crate::Task).
    GetTask,
    /// `ListTasks`: result [`ListTasksResponse`](crate::ListTasksResponse).
    ListTasks,
    /// `CancelTask`: result [`Task`](crate::Task).
    CancelTask,
    /// `SubscribeToTask`: SSE stream, starting with the current task.
    SubscribeToTask,
    /// `CreateTaskPushNotificationConfig`: params and result
    /// [`TaskPushNotificationConfig`](crate::TaskPushNotificationConfig).
    CreateTaskPushNotificationConfig,
    /// `GetTaskPushNotificationConfig`.
    GetTaskPushNotificationConfig,
    /// `ListTaskPushNotificationConfigs`.
    ListTaskPushNotificationConfigs,
    /// `DeleteTaskPushNotificationConfig` (result: empty).
    DeleteTaskPushNotificationConfig,
    /// `GetExtendedAgentCard`: result `AgentCard`.
    GetExtendedAgentCard,
}

impl Method {
    /// Every method, in the order of the spec's operation table.
    pub const ALL: [Method; 11] = [
        Self::SendMessage,
        Self::SendStreamingMessage,
        Self::GetTask,
        Self::ListTasks,
        Self::CancelTask,
        Self::SubscribeToTask,
        Self::CreateTaskPushNotificationConfig,
        Self::GetTaskPushNotificationConfig,
        Self::ListTaskPushNotificationConfigs,
        Self::DeleteTaskPushNotificationConfig,
        Self::GetExtendedAgentCard,
    ];

    /// The method name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SendMessage => "SendMessage",
            Self::SendStreamingMessage => "SendStreamingMessage",
            Self::GetTask => "GetTask",
            Self::ListTasks => "ListTasks",
            Self::CancelTask => "CancelTask",
            Self::SubscribeToTask => "SubscribeToTask",
            Self::CreateTaskPushNotificationConfig => "CreateTaskPushNotificationConfig",
            Self::GetTaskPushNotificationConfig => "GetTaskPushNotificationConfig",
            Self::ListTaskPushNotificationConfigs => "ListTaskPushNotificationConfigs",
            Self::DeleteTaskPushNotificationConfig => "DeleteTaskPushNotificationConfig",
            Self::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    /// `true` for the methods answered with an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, Self::SendStreamingMessage | Self::SubscribeToTask)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A method name that is not one of the A2A 1.0 methods (a 0.3 name such as `message/send`, say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMethod(pub String);

impl fmt::Display for UnknownMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown A2A 1.0 method \"{}\"", self.0)
    }
}

impl std::error::Error for UnknownMethod {}

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(name: &str) -> Result<Self, UnknownMethod> {
        Self::ALL.into_iter().find(|m| m.as_str() == name).ok_or_else(|| UnknownMethod(name.to_owned()))
    }
}

/// A JSON-RPC request: `{"jsonrpc":"2.0","id":..,"method":..,"params":..}`.
///
/// `method` is kept as text so that requests with unknown (say 0.3) methods can still be read and
/// answered with -32601; [`JsonRpcRequest::method`] gives the typed name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P> {
    /// Always `"2.0"`.
    pub jsonrpc: Version2,
    /// The id the response will echo; `None` for a notification (A2A does not use them).
    #[serde(default, deserialize_with = "present_id", skip_serializing_if = "Option::is_none")]
    pub id: Option<JsonRpcId>,
    /// The method name.
    pub method: String,
    /// The parameters; `GetExtendedAgentCard` may have none.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

fn none<P>() -> Option<P> {
    None
}

fn present_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<JsonRpcId>, D::Error> {
    JsonRpcId::deserialize(d).map(Some)
}

impl<P> JsonRpcRequest<P> {
    /// A request for `method` with `params`.
    pub fn new(id: impl Into<JsonRpcId>, method: Method, params: P) -> Self {
        Self {
            jsonrpc: Version2,
            id: Some(id.into()),
            method: method.as_str().to_owned(),
            params: Some(params),
        }
    }

    /// A request for `method` with no `params` member.
    pub fn without_params(id: impl Into<JsonRpcId>, method: Method) -> Self {
        Self { jsonrpc: Version2, id: Some(id.into()), method: method.as_str().to_owned(), params: None }
    }

    /// The A2A 1.0 method named.
    ///
    /// # Errors
    /// [`UnknownMethod`] when the name is not an A2A 1.0 method.
    pub fn method(&self) -> Result<Method, UnknownMethod> {
        self.method.parse()
    }
}

/// A successful JSON-RPC response: `{"jsonrpc":"2.0","id":..,"result":..}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcSuccess<R> {
    /// Always `"2.0"`.
    pub jsonrpc: Version2,
    /// The request's id.
    pub id: JsonRpcId,
    /// The result.
    pub result: R,
}

/// A failed JSON-RPC response: `{"jsonrpc":"2.0","id":..,"error":{..}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: Version2,
    /// The request's id, or `null` when the request could not be read.
    #[serde(default = "null_id")]
    pub id: JsonRpcId,
    /// The error.
    pub error: JsonRpcError,
}

fn null_id() -> JsonRpcId {
    JsonRpcId::Null
}

/// A JSON-RPC response: a result or an error, never both (a body with both or neither is refused).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcResponse<R> {
    /// The call succeeded.
    Success(JsonRpcSuccess<R>),
    /// The call failed.
    Error(JsonRpcErrorResponse),
}

impl<R> JsonRpcResponse<R> {
    /// A success response.
    pub fn success(id: impl Into<JsonRpcId>, result: R) -> Self {
        Self::Success(JsonRpcSuccess { jsonrpc: Version2, id: id.into(), result })
    }

    /// An error response.
    pub fn error(id: impl Into<JsonRpcId>, error: JsonRpcError) -> Self {
        Self::Error(JsonRpcErrorResponse { jsonrpc: Version2, id: id.into(), error })
    }

    /// The id the response echoes.
    pub fn id(&self) -> &JsonRpcId {
        match self {
            Self::Success(success) => &success.id,
            Self::Error(error) => &error.id,
        }
    }

    /// The result, or the error the agent returned.
    ///
    /// # Errors
    /// The [`JsonRpcError`] of an error response.
    pub fn into_result(self) -> Result<R, JsonRpcError> {
        match self {
            Self::Success(success) => Ok(success.result),
            Self::Error(error) => Err(error.error),
        }
    }
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "R: Deserialize<'de>"))]
struct ResponseRepr<R> {
    jsonrpc: Version2,
    #[serde(default = "null_id")]
    id: JsonRpcId,
    #[serde(default = "none", deserialize_with = "present")]
    result: Option<R>,
    #[serde(default)]
    error: Option<JsonRpcError>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl<'de, R: Deserialize<'de>> Deserialize<'de> for JsonRpcResponse<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let repr = ResponseRepr::<R>::deserialize(d)?;
        match (repr.result, repr.error) {
            (Some(result), None) => {
                Ok(Self::Success(JsonRpcSuccess { jsonrpc: repr.jsonrpc, id: repr.id, result }))
            }
            (None, Some(error)) => {
                Ok(Self::Error(JsonRpcErrorResponse { jsonrpc: repr.jsonrpc, id: repr.id, error }))
            }
            (Some(_), Some(_)) => Err(serde::de::Error::custom(
                "a JSON-RPC response must have exactly one of result, error; found result and error",
            )),
            (None, None) => Err(serde::de::Error::custom(
                "a JSON-RPC response must have exactly one of result, error; found none",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn method_names_round_trip() {
        for method in Method::ALL {
            assert_eq!(method.as_str().parse::<Method>(), Ok(method));
        }
        assert!("message/send".parse::<Method>().is_err());
    }

    #[test]
    fn request_without_params_omits_the_member() {
        let request: JsonRpcRequest<()> = JsonRpcRequest::without_params("x", Method::GetExtendedAgentCard);
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"jsonrpc":"2.0","id":"x","method":"GetExtendedAgentCard"}"#
        );
    }

    #[test]
    fn wrong_jsonrpc_version_is_refused() {
        let err = parse::from_str::<JsonRpcRequest<serde_json::Value>>(
            r#"{"jsonrpc":"1.0","id":1,"method":"GetTask"}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), "jsonrpc");
    }

    #[test]
    fn response_with_both_result_and_error_is_refused() {
        let err = parse::from_str::<JsonRpcResponse<serde_json::Value>>(
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"x"}}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("found result and error"), "{err}");
    }

    #[test]
    fn response_with_neither_is_refused() {
        let err =
            parse::from_str::<JsonRpcResponse<serde_json::Value>>(r#"{"jsonrpc":"2.0","id":1}"#).unwrap_err();
        assert!(err.to_string().contains("found none"), "{err}");
    }

    #[test]
    fn null_result_counts_as_present() {
        let response: JsonRpcResponse<serde_json::Value> =
            parse::from_str(r#"{"jsonrpc":"2.0","id":1,"result":null}"#).unwrap();
        assert_eq!(response.into_result().unwrap(), serde_json::Value::Null);
    }

    #[test]
    fn error_in_result_names_its_path() {
        let err = parse::from_str::<JsonRpcResponse<crate::Task>>(
            r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t","status":{"state":"done"}}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), "result.status.state");
    }
}
