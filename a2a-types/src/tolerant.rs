//! Tolerant reading: the deviations real agents send, read into the 1.0 model where their meaning is
//! unambiguous, each one recorded with its JSON path.
//!
//! The strict parsers elsewhere in this crate stay the default. A caller that would rather read an
//! agent's answer than refuse it (an auditor, a fleet client) first passes the JSON through
//! [`stream_response`] or [`task`]: the value is rewritten in place into the 1.0 shape, and what was
//! rewritten comes back as [`Deviation`]s, so nothing is accepted silently.
//!
//! ```
//! use a2a_typestate_types::{StreamResponse, TaskState, parse, tolerant};
//! use serde_json::json;
//!
//! // A 0.3-shaped status update (a `kind` discriminator, no `statusUpdate` wrapper) with a 1.0
//! // state name, as some agent frameworks write after the first event of a 1.0 stream.
//! let mut event = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
//!     "status": {"state": "TASK_STATE_COMPLETED"}, "final": true});
//! let deviations = tolerant::stream_response(&mut event);
//! let read: StreamResponse = parse::from_value(event).unwrap();
//! assert_eq!(read.state(), Some(TaskState::Completed));
//! let paths: Vec<&str> = deviations.iter().map(|d| d.path.as_str()).collect();
//! assert_eq!(paths, ["kind", "final"]);
//! ```
//!
//! What is read, and how:
//!
//! | on the wire | read as | [`DeviationKind`] |
//! | --- | --- | --- |
//! | a top-level object with `kind` `task`, `message`, `status-update` or `artifact-update` and no 1.0 member | that member (`task`, `message`, `statusUpdate`, `artifactUpdate`) | [`Unwrapped`](DeviationKind::Unwrapped) |
//! | `final` on a status update (removed in 1.0) | ignored: the stream's end is its close | [`RemovedField`](DeviationKind::RemovedField) |
//! | `kind` on a task, message or part | ignored (a part's content is known from its member) | [`KindField`](DeviationKind::KindField) |
//! | a 0.3 file part (`kind: file`, `file.uri` / `file.bytes`) | `url` / `raw`, `mediaType`, `filename` | [`KindField`](DeviationKind::KindField) |
//! | a lowercase 0.3 state (`working`, `input-required`, `cancelled`) | its `TASK_STATE_*` name | [`LowercaseEnum`](DeviationKind::LowercaseEnum) |
//! | a lowercase 0.3 role (`agent`, `user`) | `ROLE_AGENT`, `ROLE_USER` | [`LowercaseEnum`](DeviationKind::LowercaseEnum) |
//! | a status or artifact update without `contextId` (REQUIRED) | no context | [`MissingField`](DeviationKind::MissingField) |
//! | a 0.3 message or part inside a result without its `kind`, its members naming one alone ([`v03_missing_inner_kinds`]) | that message or part | [`MissingField`](DeviationKind::MissingField) |
//! | a 0.3 task, status update or artifact update without `contextId` ([`v03_missing_context`]) | no context | [`MissingField`](DeviationKind::MissingField) |
//! | a 0.3 result (an answer or a stream event) without its `kind`, its members naming one object alone ([`v03_missing_kind`]) | that object | [`MissingField`](DeviationKind::MissingField) |
//! | a gRPC interface URL written `host:port` (a client reads this one from the card) | `scheme://host:port`, the card's scheme | [`GrpcTargetUrl`](DeviationKind::GrpcTargetUrl) |
//! | a media type written as its type alone (`"text"`; a client reads this one from the card) | `type/*` | [`BareMediaType`](DeviationKind::BareMediaType) |
//! | a 0.3 HTTP+JSON answer in the 0.3 JSON-RPC shape, not the 0.3 proto's JSON (read by [`v03::proto_json`](crate::v03::proto_json)) | the JSON-RPC result it is | [`V03JsonRpcShape`](DeviationKind::V03JsonRpcShape) |
//! | an event of a JSON-RPC stream that is the result alone, without the JSON-RPC response around it ([`bare_stream_event`]; a client reads this one around the document) | the result | [`MissingEnvelope`](DeviationKind::MissingEnvelope) |
//! | an SSE event's `data` starting with record separators (0x1E), as a JSON text sequence (RFC 7464) frames each text (a client reads this one before any JSON: it is not in a document's value) | the JSON after them; a separator anywhere else stays bad input | [`JsonTextSequence`](DeviationKind::JsonTextSequence) |
//!
//! Anything else is left as it is, for the strict parser to accept or refuse. A member written `null`
//! is not in the table: ProtoJSON allows it, and every parser reads it as the member left out
//! ([`NullAsDefault`](crate::protojson::NullAsDefault)), so it is no deviation.

use std::fmt;

use serde_json::{Map, Value};

/// What kind of deviation from the 1.0 wire format was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviationKind {
    /// A 0.3-shaped object (a `kind` discriminator instead of the 1.0 wrapper member).
    Unwrapped,
    /// A 0.3 `kind` field inside a 1.0 object.
    KindField,
    /// A field 1.0 removed.
    RemovedField,
    /// An enum written with its 0.3 lowercase name.
    LowercaseEnum,
    /// A field the protocol requires is missing: 1.0's `contextId` on an update, or the 0.3
    /// `kind` of a result whose members name the object alone ([`v03_missing_kind`]).
    MissingField,
    /// A gRPC interface URL written as the gRPC target (`host:port`), not the absolute URL 1.0 wants.
    GrpcTargetUrl,
    /// A media type written as its type alone (`"text"`), not `type/subtype`: read as `type/*`.
    BareMediaType,
    /// A 0.3 HTTP+JSON answer in the 0.3 JSON-RPC shape (`kind` discriminators, lowercase states,
    /// `parts`) instead of the 0.3 proto's JSON that the official SDKs' servers write: read as the
    /// JSON-RPC result it is ([`v03::proto_json`](crate::v03::proto_json)).
    V03JsonRpcShape,
    /// An SSE event's JSON written as an element of a JSON text sequence (RFC 7464): one or more
    /// record separators (0x1E) before the JSON text, at the start of the event's `data`. Read as
    /// the JSON after them.
    JsonTextSequence,
    /// An event of a JSON-RPC stream written as the result alone, without the JSON-RPC response
    /// around it (no `jsonrpc`, `result` or `error`): read as that result
    /// ([`bare_stream_event`]).
    MissingEnvelope,
}

impl DeviationKind {
    /// A short name for reports: `unwrapped-0.3-object`, `kind-field`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unwrapped => "unwrapped-0.3-object",
            Self::KindField => "kind-field",
            Self::RemovedField => "removed-field",
            Self::LowercaseEnum => "lowercase-enum",
            Self::MissingField => "missing-field",
            Self::GrpcTargetUrl => "grpc-target-url",
            Self::BareMediaType => "bare-media-type",
            Self::V03JsonRpcShape => "0.3-json-rpc-shape",
            Self::JsonTextSequence => "json-text-sequence-rs",
            Self::MissingEnvelope => "missing-json-rpc-envelope",
        }
    }
}

/// One deviation from the 1.0 wire format, read anyway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deviation {
    /// The JSON path of the deviating value within the document read (`status.state`,
    /// `artifactUpdate.artifact.parts[0].kind`; empty for the document itself).
    pub path: String,
    /// What kind of deviation it is.
    pub kind: DeviationKind,
    /// What the agent sent (the value, shortened).
    pub found: String,
    /// What 1.0 expects there, and how it was read.
    pub read_as: String,
}

impl Deviation {
    fn new(path: &str, kind: DeviationKind, found: impl Into<String>, read_as: impl Into<String>) -> Self {
        Self { path: path.to_owned(), kind, found: found.into(), read_as: read_as.into() }
    }

    /// This deviation with `prefix` put in front of its path (for a document nested in another,
    /// such as a JSON-RPC `result`).
    #[must_use]
    pub fn within(mut self, prefix: &str) -> Self {
        self.path = join(prefix, &self.path);
        self
    }
}

impl fmt::Display for Deviation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() { "document" } else { &self.path };
        write!(f, "{at}: found {}, {}", self.found, self.read_as)
    }
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ if path.starts_with('[') => format!("{prefix}{path}"),
        _ => format!("{prefix}.{path}"),
    }
}

fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 { format!("{}...", text.chars().take(57).collect::<String>()) } else { text }
}

/// Whether the JSON document in `bytes` may hold a deviation that the rewrites here would read and
/// record, judged from its bytes alone and never wrong in one direction: `false` only when the
/// document has no `"kind"` and no `"final"` member name, written plainly or with escapes. Every
/// rewrite needs one of those two, but for a 0.3 enum name, which the strict parser refuses, and a
/// missing `contextId`, which the strict parser reads as absent (look at the value read).
///
/// A client reads a document with neither straight into its type, without the `Value` a rewrite
/// needs (which costs up to 32 times the document's bytes).
///
/// ```
/// use a2a_typestate_types::tolerant::may_deviate;
///
/// assert!(!may_deviate(br#"{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}"#));
/// assert!(may_deviate(br#"{"kind":"task","id":"t1"}"#));
/// assert!(may_deviate(br#"{"statusUpdate":{"\u0066inal":true}}"#));
/// ```
pub fn may_deviate(bytes: &[u8]) -> bool {
    const MARKS: [&[u8]; 3] = [b"\"kind\"", b"\"final\"", b"\\u00"];
    MARKS.iter().any(|mark| bytes.windows(mark.len()).any(|window| window == *mark))
}

/// Rewrites one stream item (or push body) into the 1.0 `StreamResponse` shape where its meaning is
/// unambiguous; returns what was rewritten, paths relative to the item.
pub fn stream_response(value: &mut Value) -> Vec<Deviation> {
    let mut found = Vec::new();
    let Some(object) = value.as_object_mut() else { return found };
    const MEMBERS: [&str; 4] = ["task", "message", "statusUpdate", "artifactUpdate"];
    let has_member = MEMBERS.iter().any(|m| object.contains_key(*m))
        || ["status_update", "artifact_update"].iter().any(|m| object.contains_key(*m));
    if !has_member {
        let member = match object.get("kind").and_then(Value::as_str) {
            Some("task") => Some("task"),
            Some("message") => Some("message"),
            Some("status-update") => Some("statusUpdate"),
            Some("artifact-update") => Some("artifactUpdate"),
            _ => None,
        };
        if let Some(member) = member {
            let kind = object.remove("kind").unwrap_or(Value::Null);
            found.push(Deviation::new(
                "kind",
                DeviationKind::Unwrapped,
                format!("a 0.3-shaped object with \"kind\": {}", shown(&kind)),
                format!("read as the 1.0 `{member}` member"),
            ));
            let inner = std::mem::take(object);
            object.insert(member.to_owned(), Value::Object(inner));
            // The paths inside are reported where they are on the wire: at the top level.
            let inner = object.get_mut(member).and_then(Value::as_object_mut);
            if let Some(inner) = inner {
                member_body(member, inner, "", &mut found);
            }
            return found;
        }
    }
    for member in MEMBERS {
        if let Some(inner) = object.get_mut(member).and_then(Value::as_object_mut) {
            member_body(member, inner, member, &mut found);
        }
    }
    found
}

/// Rewrites a `Task` (a `GetTask` result) into the 1.0 shape; returns what was rewritten.
pub fn task(value: &mut Value) -> Vec<Deviation> {
    let mut found = Vec::new();
    if let Some(object) = value.as_object_mut() {
        task_body(object, "", &mut found);
    }
    found
}

/// Rewrites a `SendMessage` result (`{"task":..}` or `{"message":..}`, or a bare 0.3-shaped one)
/// into the 1.0 shape; returns what was rewritten.
pub fn send_message_response(value: &mut Value) -> Vec<Deviation> {
    stream_response(value)
}

fn member_body(member: &str, object: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    match member {
        "task" => task_body(object, at, found),
        "message" => message_body(object, at, found),
        "statusUpdate" => {
            if let Some(flag) = object.remove("final") {
                found.push(Deviation::new(
                    &join(at, "final"),
                    DeviationKind::RemovedField,
                    format!("the 0.3 `final` flag ({})", shown(&flag)),
                    "removed in 1.0: ignored, the stream's end is its close",
                ));
            }
            missing_context(object, at, found);
            if let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) {
                status_body(status, &join(at, "status"), found);
            }
        }
        "artifactUpdate" => {
            missing_context(object, at, found);
            if let Some(artifact) = object.get_mut("artifact").and_then(Value::as_object_mut) {
                parts(artifact, &join(at, "artifact"), found);
            }
        }
        _ => {}
    }
    if member != "task" && member != "message" {
        kind_field(object, at, found);
    }
}

fn missing_context(object: &Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    let missing = object
        .get("contextId")
        .or_else(|| object.get("context_id"))
        .is_none_or(|c| c.is_null() || c.as_str().is_some_and(str::is_empty));
    if missing {
        found.push(Deviation::new(
            &join(at, "contextId"),
            DeviationKind::MissingField,
            "no contextId",
            "REQUIRED in 1.0: read without a context",
        ));
    }
}

fn kind_field(object: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    if let Some(kind) = object.remove("kind") {
        found.push(Deviation::new(
            &join(at, "kind"),
            DeviationKind::KindField,
            format!("the 0.3 discriminator \"kind\": {}", shown(&kind)),
            "1.0 has no `kind` fields: ignored",
        ));
    }
}

fn task_body(object: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    kind_field(object, at, found);
    if let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) {
        status_body(status, &join(at, "status"), found);
    }
    if let Some(history) = object.get_mut("history").and_then(Value::as_array_mut) {
        for (i, message) in history.iter_mut().enumerate() {
            if let Some(message) = message.as_object_mut() {
                message_body(message, &join(at, &format!("history[{i}]")), found);
            }
        }
    }
    if let Some(artifacts) = object.get_mut("artifacts").and_then(Value::as_array_mut) {
        for (i, artifact) in artifacts.iter_mut().enumerate() {
            if let Some(artifact) = artifact.as_object_mut() {
                parts(artifact, &join(at, &format!("artifacts[{i}]")), found);
            }
        }
    }
}

fn status_body(status: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    if let Some(state) = status.get_mut("state") {
        let named = state.as_str().and_then(v03_state);
        if let (Some(name), Some(old)) = (named, state.as_str().map(str::to_owned)) {
            found.push(Deviation::new(
                &join(at, "state"),
                DeviationKind::LowercaseEnum,
                format!("the 0.3 state name {old:?}"),
                format!("read as {name}"),
            ));
            *state = Value::String(name.to_owned());
        }
    }
    if let Some(message) = status.get_mut("message").and_then(Value::as_object_mut) {
        message_body(message, &join(at, "message"), found);
    }
}

fn message_body(message: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    kind_field(message, at, found);
    if let Some(role) = message.get_mut("role") {
        let named = match role.as_str() {
            Some("agent") => Some("ROLE_AGENT"),
            Some("user") => Some("ROLE_USER"),
            _ => None,
        };
        if let (Some(name), Some(old)) = (named, role.as_str().map(str::to_owned)) {
            found.push(Deviation::new(
                &join(at, "role"),
                DeviationKind::LowercaseEnum,
                format!("the 0.3 role name {old:?}"),
                format!("read as {name}"),
            ));
            *role = Value::String(name.to_owned());
        }
    }
    parts(message, at, found);
}

fn parts(object: &mut Map<String, Value>, at: &str, found: &mut Vec<Deviation>) {
    let Some(parts) = object.get_mut("parts").and_then(Value::as_array_mut) else { return };
    for (i, part) in parts.iter_mut().enumerate() {
        let Some(part) = part.as_object_mut() else { continue };
        let path = join(at, &format!("parts[{i}]"));
        let is_file = part.get("kind").and_then(Value::as_str) == Some("file");
        kind_field(part, &path, found);
        if is_file && let Some(Value::Object(file)) = part.remove("file") {
            for (from, to) in
                [("uri", "url"), ("bytes", "raw"), ("mimeType", "mediaType"), ("name", "filename")]
            {
                if let Some(value) = file.get(from) {
                    part.insert(to.to_owned(), value.clone());
                }
            }
            found.push(Deviation::new(
                &join(&path, "file"),
                DeviationKind::KindField,
                "a 0.3 file part (`file.uri` / `file.bytes`)",
                "read as the 1.0 `url` / `raw` members with `mediaType` and `filename`",
            ));
        }
    }
}

/// The `TASK_STATE_*` name of a 0.3 state name.
fn v03_state(name: &str) -> Option<&'static str> {
    Some(match name {
        "submitted" => "TASK_STATE_SUBMITTED",
        "working" => "TASK_STATE_WORKING",
        "input-required" => "TASK_STATE_INPUT_REQUIRED",
        "completed" => "TASK_STATE_COMPLETED",
        "canceled" | "cancelled" => "TASK_STATE_CANCELED",
        "failed" => "TASK_STATE_FAILED",
        "rejected" => "TASK_STATE_REJECTED",
        "auth-required" => "TASK_STATE_AUTH_REQUIRED",
        "unknown" => "TASK_STATE_UNSPECIFIED",
        _ => return None,
    })
}

/// Puts back the `kind` discriminator a 0.3 result (a `message/send`, `tasks/get` or
/// `tasks/cancel` result, or a stream event) left out, when its members name one object alone: a
/// task (`id`, `contextId` and `status`), a message (`messageId`, `role` and `parts`), a status
/// update (`taskId`, `status` and `final`) or an artifact update (`taskId` and `artifact`). Returns
/// the deviation, its path `kind`; `None` when the value has a `kind`, is no object, or its members
/// name no object or more than one (it is left as it is, for the strict parser to refuse).
///
/// ```
/// use a2a_typestate_types::tolerant::{DeviationKind, v03_missing_kind};
/// use serde_json::json;
///
/// // VoltAgent (`@voltagent/a2a-server` 2.0.3) answers with tasks that have no `kind`.
/// let mut result = json!({"id": "t1", "contextId": "c1", "status": {"state": "completed"}});
/// let deviation = v03_missing_kind(&mut result).unwrap();
/// assert_eq!((deviation.kind, deviation.path.as_str()), (DeviationKind::MissingField, "kind"));
/// assert_eq!(result["kind"], "task");
/// assert!(v03_missing_kind(&mut json!({"id": "t1", "taskId": "t1", "status": {}})).is_none());
/// ```
pub fn v03_missing_kind(value: &mut Value) -> Option<Deviation> {
    let object = value.as_object_mut()?;
    if object.contains_key("kind") {
        return None;
    }
    let has = |members: &[&str]| members.iter().all(|m| object.contains_key(*m));
    let named: Vec<(&str, &str)> = [
        ("task", has(&["id", "contextId", "status"]), "`id`, `contextId` and `status`"),
        ("message", has(&["messageId", "role", "parts"]), "`messageId`, `role` and `parts`"),
        ("status-update", has(&["taskId", "status", "final"]), "`taskId`, `status` and `final`"),
        ("artifact-update", has(&["taskId", "artifact"]), "`taskId` and `artifact`"),
    ]
    .into_iter()
    .filter(|(_, named, _)| *named)
    .map(|(kind, _, members)| (kind, members))
    .collect();
    let [(kind, members)] = named[..] else { return None };
    object.insert("kind".to_owned(), Value::from(kind));
    Some(Deviation::new(
        "kind",
        DeviationKind::MissingField,
        "a 0.3 result without its \"kind\" discriminator",
        format!("read as \"kind\": \"{kind}\", the only 0.3 object with {members}"),
    ))
}

/// Puts back the `kind` of the messages and parts inside a 0.3 result (with its own `kind`) that
/// left it out, where the members name one alone: a message (`messageId`, `role` and `parts`) in a
/// task's history or a status, a part with exactly one of `text`, `file` and `data`. Only those
/// places are read (a data part's content is the agent's own and never touched). Returns one
/// deviation per `kind` put back, each at its path (`artifact.parts[0].kind`).
///
/// ```
/// use a2a_typestate_types::tolerant::v03_missing_inner_kinds;
/// use serde_json::json;
///
/// // PraisonAI (`praisonaiagents` 1.7.17) writes parts and history messages without `kind`.
/// let mut event = json!({"kind": "artifact-update", "taskId": "t1", "contextId": "c1",
///     "artifact": {"artifactId": "a1", "parts": [{"text": "sunny"}]}});
/// let found = v03_missing_inner_kinds(&mut event);
/// assert_eq!(found[0].path, "artifact.parts[0].kind");
/// assert_eq!(event["artifact"]["parts"][0]["kind"], "text");
/// ```
pub fn v03_missing_inner_kinds(value: &mut Value) -> Vec<Deviation> {
    let mut found = Vec::new();
    let Some(object) = value.as_object_mut() else { return found };
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default().to_owned();
    match kind.as_str() {
        "task" => {
            if let Some(message) = object.get_mut("status").and_then(|s| s.get_mut("message")) {
                inner_message(message, "status.message", &mut found);
            }
            if let Some(history) = object.get_mut("history").and_then(Value::as_array_mut) {
                for (index, message) in history.iter_mut().enumerate() {
                    inner_message(message, &format!("history[{index}]"), &mut found);
                }
            }
            if let Some(artifacts) = object.get_mut("artifacts").and_then(Value::as_array_mut) {
                for (index, artifact) in artifacts.iter_mut().enumerate() {
                    inner_parts(artifact, &format!("artifacts[{index}]"), &mut found);
                }
            }
        }
        "message" => inner_parts(value, "", &mut found),
        "status-update" => {
            if let Some(message) = object.get_mut("status").and_then(|s| s.get_mut("message")) {
                inner_message(message, "status.message", &mut found);
            }
        }
        "artifact-update" => {
            if let Some(artifact) = object.get_mut("artifact") {
                inner_parts(artifact, "artifact", &mut found);
            }
        }
        _ => {}
    }
    found
}

fn inner_message(message: &mut Value, at: &str, found: &mut Vec<Deviation>) {
    let Some(object) = message.as_object_mut() else { return };
    let named = ["messageId", "role", "parts"].iter().all(|m| object.contains_key(*m));
    if !object.contains_key("kind") && named {
        object.insert("kind".to_owned(), Value::from("message"));
        found.push(Deviation::new(
            &join(at, "kind"),
            DeviationKind::MissingField,
            "a 0.3 message without its \"kind\"",
            "read as \"kind\": \"message\", the only 0.3 object with `messageId`, `role` and `parts`",
        ));
    }
    inner_parts(message, at, found);
}

fn inner_parts(holder: &mut Value, at: &str, found: &mut Vec<Deviation>) {
    let Some(parts) = holder.get_mut("parts").and_then(Value::as_array_mut) else { return };
    for (index, part) in parts.iter_mut().enumerate() {
        let Some(object) = part.as_object_mut() else { continue };
        if object.contains_key("kind") {
            continue;
        }
        let named: Vec<&str> =
            ["text", "file", "data"].into_iter().filter(|m| object.contains_key(*m)).collect();
        let [kind] = named[..] else { continue };
        object.insert("kind".to_owned(), Value::from(kind));
        found.push(Deviation::new(
            &join(&join(at, &format!("parts[{index}]")), "kind"),
            DeviationKind::MissingField,
            "a 0.3 part without its \"kind\"",
            format!("read as \"kind\": \"{kind}\", the only member it has of text, file and data"),
        ));
    }
}

/// Reads a 0.3 task, status update or artifact update (with its `kind`) that has no `contextId`
/// (REQUIRED in 0.3 too) as one without a context, as 1.0's reading does: an empty `contextId` is
/// put in, and the deviation returned (its path `contextId`); `None` when it has one or is no such
/// object. Put back a missing `kind` first ([`v03_missing_kind`]).
///
/// ```
/// use a2a_typestate_types::tolerant::{DeviationKind, v03_missing_context};
/// use serde_json::json;
///
/// // PraisonAI (`praisonaiagents` 1.7.17) streams status updates with no context.
/// let mut event = json!({"kind": "status-update", "taskId": "t1", "status": {"state": "working"}, "final": false});
/// let deviation = v03_missing_context(&mut event).unwrap();
/// assert_eq!((deviation.kind, deviation.path.as_str()), (DeviationKind::MissingField, "contextId"));
/// assert_eq!(event["contextId"], "");
/// ```
pub fn v03_missing_context(value: &mut Value) -> Option<Deviation> {
    let object = value.as_object_mut()?;
    let kind = object.get("kind").and_then(Value::as_str)?;
    if !matches!(kind, "task" | "status-update" | "artifact-update") {
        return None;
    }
    let mut found = Vec::new();
    missing_context(object, "", &mut found);
    let deviation = found.pop()?;
    object.insert("contextId".to_owned(), Value::from(""));
    Some(Deviation { read_as: "REQUIRED in 0.3: read without a context".to_owned(), ..deviation })
}

/// Whether an event of a JSON-RPC stream is the result alone, written without the JSON-RPC
/// response around it (PraisonAI's `praisonaiagents` 1.7.17 streams so): an object with some
/// member and none of `jsonrpc`, `result` and `error`. Returns the deviation (its path empty:
/// the whole event) and leaves the value as it is, the result to read; `None` for a response, an
/// empty object or anything that is not an object.
///
/// ```
/// use a2a_typestate_types::tolerant::{DeviationKind, bare_stream_event};
/// use serde_json::json;
///
/// let event = json!({"taskId": "t1", "status": {"state": "working"}, "final": false});
/// assert_eq!(bare_stream_event(&event).unwrap().kind, DeviationKind::MissingEnvelope);
/// assert!(bare_stream_event(&json!({"jsonrpc": "2.0", "id": "1", "result": {}})).is_none());
/// assert!(bare_stream_event(&json!({})).is_none());
/// // A bare task: its own `id` is no envelope.
/// assert!(bare_stream_event(&json!({"id": "t1", "contextId": "c1", "status": {}})).is_some());
/// ```
pub fn bare_stream_event(value: &Value) -> Option<Deviation> {
    let object = value.as_object()?;
    // Not `id`: a bare task has one of its own.
    let enveloped = ["jsonrpc", "result", "error"].iter().any(|m| object.contains_key(*m));
    (!enveloped && !object.is_empty()).then(|| {
        Deviation::new(
            "",
            DeviationKind::MissingEnvelope,
            "a stream event without its JSON-RPC response (no jsonrpc, result or error)",
            "read as the response's result",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PartContent, Role, StreamResponse, Task, TaskState, parse};
    use serde_json::json;

    #[test]
    fn a_wrapped_1_0_event_has_no_deviation_and_is_unchanged() {
        let mut event = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"}}});
        let before = event.clone();
        assert!(stream_response(&mut event).is_empty());
        assert_eq!(event, before);
    }

    #[test]
    fn an_unwrapped_artifact_update_is_read_with_its_part_kinds_noted() {
        let mut event = json!({"kind": "artifact-update", "taskId": "t", "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "hi"}]}, "lastChunk": true});
        let deviations = stream_response(&mut event);
        let read: StreamResponse = parse::from_value(event).unwrap();
        let StreamResponse::ArtifactUpdate(update) = read else { panic!("an artifact update") };
        assert_eq!(update.artifact.parts[0].content, PartContent::Text("hi".into()));
        let paths: Vec<&str> = deviations.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["kind", "artifact.parts[0].kind"]);
    }

    #[test]
    fn lowercase_states_and_roles_are_read_and_each_named_with_its_path() {
        let mut value = json!({"id": "t", "status": {"state": "input-required",
            "message": {"messageId": "m", "role": "agent", "parts": [{"text": "which?"}]}}});
        let deviations = task(&mut value);
        let read: Task = parse::from_value(value).unwrap();
        assert_eq!(read.status.state, TaskState::InputRequired);
        assert_eq!(read.status.message.map(|m| m.role), Some(Role::Agent));
        let paths: Vec<&str> = deviations.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["status.state", "status.message.role"]);
        assert!(deviations.iter().all(|d| d.kind == DeviationKind::LowercaseEnum));
    }

    #[test]
    fn a_missing_context_id_on_an_update_is_a_deviation_at_its_path() {
        let mut event = json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}});
        let deviations = stream_response(&mut event);
        assert_eq!(deviations.len(), 1);
        assert_eq!(deviations[0].path, "statusUpdate.contextId");
        assert_eq!(deviations[0].kind, DeviationKind::MissingField);
    }

    #[test]
    fn a_0_3_file_part_becomes_a_url_part() {
        let mut event = json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [
            {"kind": "file", "file": {"uri": "https://x/y.png", "mimeType": "image/png", "name": "y.png"}}]}});
        let deviations = stream_response(&mut event);
        let read: StreamResponse = parse::from_value(event).unwrap();
        let StreamResponse::Message(message) = read else { panic!("a message") };
        assert_eq!(message.parts[0].content, PartContent::Url("https://x/y.png".into()));
        assert_eq!(message.parts[0].media_type.as_deref(), Some("image/png"));
        assert_eq!(deviations.len(), 2, "{deviations:?}");
    }

    #[test]
    fn an_unknown_kind_or_a_non_object_is_left_for_the_strict_parser() {
        let mut odd = json!({"kind": "mystery", "x": 1});
        assert!(stream_response(&mut odd).is_empty());
        assert!(parse::from_value::<StreamResponse>(odd).is_err());
        let mut list = json!([1]);
        assert!(stream_response(&mut list).is_empty());
    }

    /// The rule a fast reader relies on: a document the rewrites change either has a mark
    /// `may_deviate` sees, or is refused by the strict parser, or lacks a context id on an update.
    #[test]
    fn every_document_a_rewrite_changes_is_marked_refused_strictly_or_missing_its_context() {
        let deviating = [
            json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}),
            json!({"statusUpdate": {"taskId": "t", "contextId": "c", "final": true, "status": {"state": "TASK_STATE_WORKING"}}}),
            json!({"task": {"id": "t", "kind": "task", "status": {"state": "TASK_STATE_WORKING"}}}),
            json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"kind": "text", "text": "x"}]}}),
            json!({"message": {"messageId": "m", "role": "agent", "parts": [{"text": "x"}]}}),
            json!({"task": {"id": "t", "status": {"state": "input-required"}}}),
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}),
            json!({"artifactUpdate": {"taskId": "t", "contextId": "", "artifact": {"artifactId": "a", "parts": []}}}),
        ];
        for document in deviating {
            let bytes = serde_json::to_vec(&document).unwrap();
            let mut rewritten = document.clone();
            assert!(!stream_response(&mut rewritten).is_empty(), "{document}");
            let strict = parse::from_slice::<StreamResponse>(&bytes);
            let without_context = match &strict {
                Ok(StreamResponse::StatusUpdate(u)) => {
                    u.context_id.as_ref().is_none_or(|c| c.as_str().is_empty())
                }
                Ok(StreamResponse::ArtifactUpdate(u)) => {
                    u.context_id.as_ref().is_none_or(|c| c.as_str().is_empty())
                }
                _ => false,
            };
            assert!(may_deviate(&bytes) || strict.is_err() || without_context, "{document}");
        }
        let clean = br#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"data":[0,0]}]}]}}"#;
        assert!(!may_deviate(clean));
        let mut value: serde_json::Value = serde_json::from_slice(clean).unwrap();
        assert!(stream_response(&mut value).is_empty(), "nothing to rewrite in a clean document");
    }

    #[test]
    fn a_deviation_inside_a_json_rpc_result_names_the_whole_path() {
        let d = Deviation::new("status.state", DeviationKind::LowercaseEnum, "x", "y").within("result");
        assert_eq!(d.path, "result.status.state");
        assert_eq!(Deviation::new("", DeviationKind::Unwrapped, "x", "y").within("result").path, "result");
    }
}
