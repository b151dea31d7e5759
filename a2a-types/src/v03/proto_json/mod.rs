//! 0.3 over HTTP+JSON as the servers built on the official SDKs speak it: the 0.3 gRPC proto's
//! messages written as ProtoJSON (a2a-python 0.3's REST app, and BeeAI on it; a2a-java's), rewritten
//! to and from the 0.3 JSON-RPC shape that the rest of [`v03`](super) reads and writes.
//!
//! There is one conversion path: a request is written as the JSON-RPC params it is and then rewritten
//! here into the proto request ([`request`]); an answer is rewritten here into the JSON-RPC result it
//! stands for ([`answer`], [`stream_response`]) and then read and converted to 1.0 exactly as a
//! JSON-RPC 0.3 answer is.
//!
//! ```
//! use a2a_typestate_types::v03::{self, Method, proto_json};
//! use a2a_typestate_types::{TaskState, parse};
//! use serde_json::json;
//!
//! // What a2a-python 0.3 answers to `POST /v1/message:send`.
//! let mut answer = json!({"task": {"id": "t1", "contextId": "c1", "status": {
//!     "state": "TASK_STATE_COMPLETED",
//!     "message": {"messageId": "m1", "role": "ROLE_AGENT", "content": [{"text": "Paris"}]}}}});
//! let read = proto_json::answer(Method::MessageSend, &mut answer).unwrap();
//! assert!(read.deviation.is_none() && read.losses.is_empty());
//! let result: v03::SendMessageResult = parse::from_value(answer).unwrap();
//! let v03::SendMessageResult::Task(task) = result else { panic!("a task") };
//! assert_eq!(task.to_v1().value.status.state, TaskState::Completed);
//!
//! // A 0.3 request, written for JSON-RPC, becomes the proto's `SendMessageRequest`.
//! let params = json!({"message": {"kind": "message", "messageId": "m2", "role": "user",
//!     "parts": [{"kind": "text", "text": "hello"}]}});
//! let body = proto_json::request(Method::MessageSend, params).value;
//! assert_eq!(body, json!({"message": {"messageId": "m2", "role": "ROLE_USER",
//!     "content": [{"text": "hello"}]}, "configuration": {"blocking": true}}));
//! ```
//!
//! # The two shapes
//!
//! | 0.3 JSON-RPC | 0.3 proto as ProtoJSON |
//! | --- | --- |
//! | `kind` on tasks, messages, parts and events | none: the wrapper member or the part's member says what it is |
//! | a message's `parts` | `content` (an artifact's stay `parts`) |
//! | `{"kind": "text", "text"}` | `{"text"}` |
//! | `{"kind": "file", "file": {"uri" \| "bytes", "mimeType", "name"}}` | `{"file": {"fileWithUri" \| "fileWithBytes", "mimeType", "name"}}` |
//! | `{"kind": "data", "data": {..}}` | `{"data": {"data": {..}}}` |
//! | roles `user`, `agent` | `ROLE_USER`, `ROLE_AGENT` |
//! | states `submitted` ... `auth-required`, `unknown` | `TASK_STATE_SUBMITTED` ... (`canceled` is `TASK_STATE_CANCELLED`, `unknown` is `TASK_STATE_UNSPECIFIED`) |
//! | `message/send`, `message/stream` params | `SendMessageRequest`: `configuration.pushNotificationConfig` is `pushNotification`, and `blocking` is always written (the proto's default is `false`, JSON-RPC's `true`) |
//! | `tasks/cancel` params | `CancelTaskRequest` `{"name": "tasks/{id}"}` |
//! | `tasks/pushNotificationConfig/set` params | `CreateTaskPushNotificationConfigRequest` `{"parent": "tasks/{id}", "configId", "config": {"name", "pushNotificationConfig"}}` |
//! | the send result, a bare task or message | `SendMessageResponse` `{"task"}` or `{"message"}` |
//! | a stream result | `StreamResponse` `{"task"}`, `{"message"}`, `{"statusUpdate"}` or `{"artifactUpdate"}` |
//! | `tasks/get`, `tasks/cancel` results | the bare `Task` (no `kind`) |
//! | a push config `{"taskId", "pushNotificationConfig"}` | `TaskPushNotificationConfig` `{"name": "tasks/{id}/pushNotificationConfigs/{configId}", "pushNotificationConfig"}` |
//! | the config listing, an array | `ListTaskPushNotificationConfigResponse` `{"configs", "nextPageToken"}` |
//!
//! The routes' GET and DELETE requests have no body, and the authenticated card is the 0.3 card JSON
//! on either: those are left as they are.
//!
//! # Reading
//!
//! As ProtoJSON says: a member is read by its JSON name or its proto field name (`contextId` or
//! `context_id`; a status's `message` or `update`; a response's `message` or `msg`), an enum by name
//! or number, and a member left out (or `null`) is the proto's default: `false` for `final`, `append`
//! and `lastChunk`, `""` for an id, `TASK_STATE_UNSPECIFIED` (0.3's `unknown`) for a state. Other
//! members are left in place for the 0.3 reader, which ignores them.
//!
//! An answer written in the JSON-RPC shape instead (a `kind` where the proto has a wrapper, a task
//! with a `kind`, a config with a `taskId` and no `name`, a listing that is an array) is left as it
//! is and reported as a [`Deviation`] of kind
//! [`V03JsonRpcShape`](crate::tolerant::DeviationKind::V03JsonRpcShape): the 0.3 specification only
//! asks for "JSON objects structurally equivalent to the core A2A data structures", but the official
//! SDKs write the proto's JSON (as its gRPC section's `json_name` rule has it) and answer a
//! JSON-RPC-shaped request with an error. Whether to read it is the caller's choice.
//!
//! Errors name the path on the wire: a part with none of `text`, `file`, `data` (`content[0]`), an
//! enum name the 0.3 proto does not have (`status.state`), a stream response with none of its
//! members, a config whose `name` is not `tasks/{id}/pushNotificationConfigs/{configId}`.
//!
//! A file's `fileWithBytes` is the proto's `bytes`, base64 once on the wire, which is what the 0.3
//! JSON-RPC `bytes` is too: it moves over unchanged. (a2a-python 0.3 puts the base64 text itself in
//! the proto's bytes, so its files arrive base64 twice: read here as the proto says, such a file's
//! content is that base64 text.)
//!
//! # Losses
//!
//! Reported as [`ConversionLoss`]es, each with its path in the source document:
//! - written: a message's `referenceTaskIds` and the `metadata` of `tasks/cancel` params (the 0.3
//!   proto's `Message` and `CancelTaskRequest` have no such field);
//! - read: a `nextPageToken` on a config listing (a JSON-RPC listing has no pages: the configs of
//!   later pages are not read).

use serde_json::{Map, Value};

use super::Method;
use super::convert::ConversionLoss;
use crate::parse::{ParseError, describe, shape_error};
use crate::tolerant::{Deviation, DeviationKind};

mod read;
mod write;

pub use write::request;

/// What reading an answer found besides the answer itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Read {
    /// Set when the answer was written in the 0.3 JSON-RPC shape: it was left as it is, ready for
    /// the 0.3 reader, and this says where and how it deviated.
    pub deviation: Option<Deviation>,
    /// What the JSON-RPC shape cannot carry of the answer.
    pub losses: Vec<ConversionLoss>,
}

/// Rewrites the answer to `method`, as a 0.3 HTTP+JSON server writes it (the proto's response as
/// ProtoJSON), into the 0.3 JSON-RPC result it stands for, in place. A stream's events are read with
/// [`stream_response`] instead.
///
/// # Errors
/// A [`ParseError`] at the path on the wire where the answer does not fit the proto's message: not an
/// object, a part with no content member, an enum name the proto does not have, a config name of
/// another form. The value may be partly rewritten then.
pub fn answer(method: Method, value: &mut Value) -> Result<Read, ParseError> {
    match method {
        Method::MessageSend => read::send_message_response(value),
        Method::MessageStream | Method::TasksResubscribe => stream_response(value),
        Method::TasksGet | Method::TasksCancel => read::task_answer(value),
        Method::PushNotificationConfigSet | Method::PushNotificationConfigGet => {
            read::task_push_config_answer(value)
        }
        Method::PushNotificationConfigList => read::config_list(value),
        // An `Empty` (nothing to read) and the 0.3 card JSON.
        Method::PushNotificationConfigDelete | Method::GetAuthenticatedExtendedCard => Ok(Read::default()),
    }
}

/// Rewrites one event of a 0.3 HTTP+JSON stream (the proto's `StreamResponse` as ProtoJSON) into the
/// 0.3 JSON-RPC stream result it stands for, in place.
///
/// # Errors
/// As [`answer`]; also an object with none of `task`, `message`, `statusUpdate`, `artifactUpdate`.
pub fn stream_response(value: &mut Value) -> Result<Read, ParseError> {
    read::stream_response(value)
}

/// The deviation of an answer written in the 0.3 JSON-RPC shape, `found` saying how it was told.
fn json_rpc_shaped(found: &str) -> Read {
    let deviation = Deviation {
        path: String::new(),
        kind: DeviationKind::V03JsonRpcShape,
        found: format!("the 0.3 JSON-RPC shape ({found}), not the 0.3 proto's JSON"),
        read_as: "read as the 0.3 JSON-RPC result it is".to_owned(),
    };
    Read { deviation: Some(deviation), losses: Vec::new() }
}

type Object = Map<String, Value>;

/// Removes every one of `names` (a member's JSON name, then its proto field name) from `object`;
/// the first that is set and not `null` is the member's value.
fn take(object: &mut Object, names: &[&str]) -> Option<Value> {
    let mut found = None;
    for name in names {
        if let Some(value) = object.remove(*name)
            && !value.is_null()
            && found.is_none()
        {
            found = Some(value);
        }
    }
    found
}

/// Moves the member named by any of `names` to `to`, leaving it out when it is not set.
fn rename(object: &mut Object, names: &[&str], to: &str) {
    if let Some(value) = take(object, names) {
        object.insert(to.to_owned(), value);
    }
}

/// Whether `object` has the member `name` set (present and not `null`).
fn has(object: &Object, name: &str) -> bool {
    object.get(name).is_some_and(|v| !v.is_null())
}

/// `value` as an object, or the error at `path` that it is not one.
fn object_at<'a>(value: &'a mut Value, path: &str, what: &str) -> Result<&'a mut Object, ParseError> {
    match value {
        Value::Object(object) => Ok(object),
        other => Err(shape_error(path, format!("expected {what} (an object), found {}", describe(other)))),
    }
}

/// `prefix` followed by the member `field`.
fn at(prefix: &str, field: &str) -> String {
    if prefix.is_empty() { field.to_owned() } else { format!("{prefix}.{field}") }
}

/// The 0.3 proto's task states in the order of their numbers, beside their 0.3 JSON-RPC names.
const STATES: [(&str, &str); 9] = [
    ("TASK_STATE_UNSPECIFIED", "unknown"),
    ("TASK_STATE_SUBMITTED", "submitted"),
    ("TASK_STATE_WORKING", "working"),
    ("TASK_STATE_COMPLETED", "completed"),
    ("TASK_STATE_FAILED", "failed"),
    ("TASK_STATE_CANCELLED", "canceled"),
    ("TASK_STATE_INPUT_REQUIRED", "input-required"),
    ("TASK_STATE_REJECTED", "rejected"),
    ("TASK_STATE_AUTH_REQUIRED", "auth-required"),
];

/// The 0.3 proto's roles in the order of their numbers, beside their 0.3 JSON-RPC names (the
/// unspecified role has none).
const ROLES: [(&str, Option<&str>); 3] =
    [("ROLE_UNSPECIFIED", None), ("ROLE_USER", Some("user")), ("ROLE_AGENT", Some("agent"))];

#[cfg(test)]
mod tests;
