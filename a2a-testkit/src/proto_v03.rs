//! 0.3 over HTTP+JSON as a2a-python 0.3's REST app speaks it (and BeeAI on it): the 0.3 gRPC proto's
//! messages as ProtoJSON, written here from that proto (`a2a.proto` at v0.3.0: `content`, `update`
//! with the JSON name `message`, `TASK_STATE_CANCELLED`...) and never with `a2a-types`, so that a
//! bug in the client's rewrite cannot cancel itself out.
//!
//! The agent's operations read and write the 0.3 JSON-RPC shape; this is the boundary that turns a
//! proto request into those params and their results into proto answers, as a2a-python's REST
//! handler does with its `FromProto` and `ToProto`. Requests are read as strictly as its
//! `json_format.Parse`: an unknown member (a `kind`, a message's `parts`) is a 500
//! `{"message": "unknown exception"}`, which is what a JSON-RPC-shaped body gets from it.

use serde_json::{Map, Value, json};

use crate::wire::A2aError;

type Object = Map<String, Value>;

/// The proto's task states, beside the 0.3 JSON-RPC names the agent's operations write.
const STATES: [(&str, &str); 9] = [
    ("unknown", "TASK_STATE_UNSPECIFIED"),
    ("submitted", "TASK_STATE_SUBMITTED"),
    ("working", "TASK_STATE_WORKING"),
    ("completed", "TASK_STATE_COMPLETED"),
    ("failed", "TASK_STATE_FAILED"),
    ("canceled", "TASK_STATE_CANCELLED"),
    ("input-required", "TASK_STATE_INPUT_REQUIRED"),
    ("rejected", "TASK_STATE_REJECTED"),
    ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
];

/// What a2a-python's REST app answers when the proto parse of a body fails.
fn unknown_exception() -> A2aError {
    A2aError::internal("unknown exception")
}

/// `value`'s members, each checked against `known` (JSON names and proto field names), as
/// `json_format.Parse` checks them.
fn members<'a>(value: &'a Value, known: &[&str]) -> Result<&'a Object, A2aError> {
    let object = value.as_object().ok_or_else(unknown_exception)?;
    if object.keys().all(|key| known.contains(&key.as_str())) { Ok(object) } else { Err(unknown_exception()) }
}

/// The member set under its JSON name or its proto field name (`null` is not set).
fn member<'a>(object: &'a Object, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|name| object.get(*name).filter(|v| !v.is_null()))
}

// ---------------------------------------------------------------------------------------------------
// Requests: proto in, 0.3 JSON-RPC params out
// ---------------------------------------------------------------------------------------------------

/// The `message/send` params a `SendMessageRequest` body stands for.
pub(crate) fn send_params(body: &Value) -> Result<Value, A2aError> {
    let request = members(body, &["message", "request", "configuration", "metadata"])?;
    let message = member(request, &["message", "request"]).ok_or_else(unknown_exception)?;
    let mut params = Object::new();
    params.insert("message".to_owned(), message_params(message)?);
    let configuration = member(request, &["configuration"]).cloned().unwrap_or_else(|| json!({}));
    params.insert("configuration".to_owned(), configuration_params(&configuration)?);
    if let Some(metadata) = member(request, &["metadata"]) {
        params.insert("metadata".to_owned(), metadata.clone());
    }
    Ok(Value::Object(params))
}

fn message_params(message: &Value) -> Result<Value, A2aError> {
    const KNOWN: [&str; 10] = [
        "messageId",
        "message_id",
        "contextId",
        "context_id",
        "taskId",
        "task_id",
        "role",
        "content",
        "metadata",
        "extensions",
    ];
    let object = members(message, &KNOWN)?;
    let mut params = json!({ "kind": "message" });
    let out = params.as_object_mut().ok_or_else(unknown_exception)?;
    let id = member(object, &["messageId", "message_id"]).cloned().unwrap_or_else(|| json!(""));
    out.insert("messageId".to_owned(), id);
    for (names, name) in [(["contextId", "context_id"], "contextId"), (["taskId", "task_id"], "taskId")] {
        if let Some(id) = member(object, &names).filter(|id| id.as_str() != Some("")) {
            out.insert(name.to_owned(), id.clone());
        }
    }
    let role = match member(object, &["role"]) {
        Some(role) if role == "ROLE_USER" || role == 1 => "user",
        Some(role) if role == "ROLE_AGENT" || role == 2 => "agent",
        _ => return Err(A2aError::invalid_params("message.role must be ROLE_USER or ROLE_AGENT")),
    };
    out.insert("role".to_owned(), json!(role));
    let content = member(object, &["content"]).and_then(Value::as_array).cloned().unwrap_or_default();
    let parts = content.iter().map(part_params).collect::<Result<Vec<_>, _>>()?;
    out.insert("parts".to_owned(), Value::Array(parts));
    for name in ["metadata", "extensions"] {
        if let Some(value) = member(object, &[name]) {
            out.insert(name.to_owned(), value.clone());
        }
    }
    Ok(params)
}

fn part_params(part: &Value) -> Result<Value, A2aError> {
    let object = members(part, &["text", "file", "data", "metadata"])?;
    let mut params = if let Some(text) = member(object, &["text"]) {
        json!({ "kind": "text", "text": text })
    } else if let Some(file) = member(object, &["file"]) {
        let file = members(
            file,
            &[
                "fileWithUri",
                "file_with_uri",
                "fileWithBytes",
                "file_with_bytes",
                "mimeType",
                "mime_type",
                "name",
            ],
        )?;
        let mut written = Object::new();
        for (names, name) in [
            (["fileWithUri", "file_with_uri"], "uri"),
            (["fileWithBytes", "file_with_bytes"], "bytes"),
            (["mimeType", "mime_type"], "mimeType"),
            (["name", "name"], "name"),
        ] {
            if let Some(value) = member(file, &names) {
                written.insert(name.to_owned(), value.clone());
            }
        }
        json!({ "kind": "file", "file": written })
    } else if let Some(data) = member(object, &["data"]) {
        let data = members(data, &["data"])?;
        json!({ "kind": "data", "data": member(data, &["data"]).cloned().unwrap_or_else(|| json!({})) })
    } else {
        return Err(A2aError::invalid_params("a part needs one of text, file, data"));
    };
    if let (Some(metadata), Some(out)) = (member(object, &["metadata"]), params.as_object_mut()) {
        out.insert("metadata".to_owned(), metadata.clone());
    }
    Ok(params)
}

fn configuration_params(configuration: &Value) -> Result<Value, A2aError> {
    let object = members(
        configuration,
        &[
            "acceptedOutputModes",
            "accepted_output_modes",
            "pushNotification",
            "push_notification",
            "historyLength",
            "history_length",
            "blocking",
        ],
    )?;
    let mut params = Object::new();
    if let Some(modes) = member(object, &["acceptedOutputModes", "accepted_output_modes"]) {
        params.insert("acceptedOutputModes".to_owned(), modes.clone());
    }
    if let Some(config) = member(object, &["pushNotification", "push_notification"]) {
        params.insert("pushNotificationConfig".to_owned(), push_config_params(config)?);
    }
    if let Some(length) = member(object, &["historyLength", "history_length"]) {
        params.insert("historyLength".to_owned(), length.clone());
    }
    // The proto's default is `false`: a2a-python answers at once unless `blocking` is set.
    let blocking = member(object, &["blocking"]).and_then(Value::as_bool).unwrap_or(false);
    params.insert("blocking".to_owned(), json!(blocking));
    Ok(Value::Object(params))
}

fn push_config_params(config: &Value) -> Result<Value, A2aError> {
    let object = members(config, &["id", "url", "token", "authentication"])?;
    let mut params = Object::new();
    for name in ["id", "url", "token"] {
        if let Some(value) = member(object, &[name]).filter(|v| v.as_str() != Some("")) {
            params.insert(name.to_owned(), value.clone());
        }
    }
    if let Some(authentication) = member(object, &["authentication"]) {
        members(authentication, &["schemes", "credentials"])?;
        params.insert("authentication".to_owned(), authentication.clone());
    }
    Ok(Value::Object(params))
}

/// The `tasks/pushNotificationConfig/set` params a `CreateTaskPushNotificationConfigRequest` body
/// for `task_id` (the path's) stands for. Its `parent` must name a task, as a2a-python checks.
pub(crate) fn create_push_config_params(body: &Value, task_id: &str) -> Result<Value, A2aError> {
    let request = members(body, &["parent", "configId", "config_id", "config"])?;
    let parent = member(request, &["parent"]).and_then(Value::as_str).unwrap_or_default();
    if parent.strip_prefix("tasks/").is_none_or(str::is_empty) {
        return Err(A2aError::invalid_params(format!("No task for {parent}")));
    }
    let config = member(request, &["config"]).cloned().unwrap_or_else(|| json!({}));
    let config = members(&config, &["name", "pushNotificationConfig", "push_notification_config"])?;
    let body = member(config, &["pushNotificationConfig", "push_notification_config"]).cloned();
    let config = push_config_params(&body.unwrap_or_else(|| json!({})))?;
    Ok(json!({ "taskId": task_id, "pushNotificationConfig": config }))
}

// ---------------------------------------------------------------------------------------------------
// Answers: 0.3 JSON-RPC results in, proto out
// ---------------------------------------------------------------------------------------------------

/// A `message/send` result (a task or a message) as a `SendMessageResponse`.
pub(crate) fn send_message_response(result: &Value) -> Value {
    match result.get("kind").and_then(Value::as_str) {
        Some("message") => json!({ "message": message(result) }),
        _ => json!({ "task": task(result) }),
    }
}

/// A 0.3 stream result as a `StreamResponse`.
pub(crate) fn stream_response(event: &Value) -> Value {
    match event.get("kind").and_then(Value::as_str) {
        Some("message") => json!({ "message": message(event) }),
        Some("status-update") => {
            let mut update = ids(event);
            update.insert("status".to_owned(), status(&event["status"]));
            // MessageToJson leaves a `false` out.
            if event["final"] == true {
                update.insert("final".to_owned(), json!(true));
            }
            json!({ "statusUpdate": update })
        }
        Some("artifact-update") => {
            let mut update = ids(event);
            update.insert("artifact".to_owned(), artifact(&event["artifact"]));
            for flag in ["append", "lastChunk"] {
                if event[flag] == true {
                    update.insert(flag.to_owned(), json!(true));
                }
            }
            json!({ "artifactUpdate": update })
        }
        _ => json!({ "task": task(event) }),
    }
}

/// A 0.3 push config result (`{taskId, pushNotificationConfig}`) as a `TaskPushNotificationConfig`.
pub(crate) fn task_push_config(result: &Value) -> Value {
    let task_id = result["taskId"].as_str().unwrap_or_default();
    let config = &result["pushNotificationConfig"];
    let config_id = config["id"].as_str().unwrap_or_default();
    json!({
        "name": format!("tasks/{task_id}/pushNotificationConfigs/{config_id}"),
        "pushNotificationConfig": config,
    })
}

/// A 0.3 config listing (an array) as a `ListTaskPushNotificationConfigResponse`.
pub(crate) fn config_list(result: &Value) -> Value {
    let configs: Vec<Value> = result.as_array().into_iter().flatten().map(task_push_config).collect();
    json!({ "configs": configs })
}

/// A 0.3 task as the proto's `Task`.
pub(crate) fn task(task: &Value) -> Value {
    let mut out = Object::new();
    out.insert("id".to_owned(), task["id"].clone());
    out.insert("contextId".to_owned(), task["contextId"].clone());
    out.insert("status".to_owned(), status(&task["status"]));
    for (name, write) in [("artifacts", artifact as fn(&Value) -> Value), ("history", message)] {
        let items: Vec<Value> = task[name].as_array().into_iter().flatten().map(write).collect();
        if !items.is_empty() {
            out.insert(name.to_owned(), Value::Array(items));
        }
    }
    copy(task, &mut out, "metadata");
    Value::Object(out)
}

fn ids(event: &Value) -> Object {
    Object::from_iter([
        ("taskId".to_owned(), event["taskId"].clone()),
        ("contextId".to_owned(), event["contextId"].clone()),
    ])
}

fn status(status: &Value) -> Value {
    let state = status["state"].as_str().unwrap_or("unknown");
    let state = STATES.iter().find(|(name, _)| *name == state).map_or("TASK_STATE_UNSPECIFIED", |(_, p)| p);
    let mut out = Object::from_iter([("state".to_owned(), json!(state))]);
    if status["message"].is_object() {
        out.insert("message".to_owned(), message(&status["message"]));
    }
    copy(status, &mut out, "timestamp");
    Value::Object(out)
}

fn message(message: &Value) -> Value {
    let mut out = Object::new();
    for name in ["messageId", "contextId", "taskId"] {
        copy(message, &mut out, name);
    }
    let role = if message["role"] == "agent" { "ROLE_AGENT" } else { "ROLE_USER" };
    out.insert("role".to_owned(), json!(role));
    let content: Vec<Value> = message["parts"].as_array().into_iter().flatten().map(part).collect();
    out.insert("content".to_owned(), Value::Array(content));
    copy(message, &mut out, "metadata");
    copy(message, &mut out, "extensions");
    Value::Object(out)
}

fn artifact(artifact: &Value) -> Value {
    let mut out = Object::new();
    for name in ["artifactId", "name", "description"] {
        copy(artifact, &mut out, name);
    }
    let parts: Vec<Value> = artifact["parts"].as_array().into_iter().flatten().map(part).collect();
    out.insert("parts".to_owned(), Value::Array(parts));
    copy(artifact, &mut out, "metadata");
    Value::Object(out)
}

fn part(part: &Value) -> Value {
    let mut out = match part["kind"].as_str() {
        Some("file") => {
            let file = &part["file"];
            let mut written = Object::new();
            for (from, to) in [
                ("uri", "fileWithUri"),
                ("bytes", "fileWithBytes"),
                ("mimeType", "mimeType"),
                ("name", "name"),
            ] {
                if let Some(value) = file.get(from) {
                    written.insert(to.to_owned(), value.clone());
                }
            }
            Object::from_iter([("file".to_owned(), Value::Object(written))])
        }
        Some("data") => Object::from_iter([("data".to_owned(), json!({ "data": part["data"] }))]),
        _ => Object::from_iter([("text".to_owned(), part["text"].clone())]),
    };
    copy(part, &mut out, "metadata");
    Value::Object(out)
}

/// Copies the member `name` of `from` into `out` when it is set.
fn copy(from: &Value, out: &mut Object, name: &str) {
    if let Some(value) = from.get(name).filter(|v| !v.is_null()) {
        out.insert(name.to_owned(), value.clone());
    }
}

/// One SSE event as sse-starlette writes a2a-python's `MessageToJson` output: pretty-printed over
/// several `data:` lines, each line ended with CRLF.
pub(crate) fn sse_frame(event: &Value) -> String {
    let text = serde_json::to_string_pretty(event).unwrap_or_default();
    let mut frame = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        frame.push_str("data: ");
        frame.push_str(line);
        frame.push_str("\r\n");
    }
    frame.push_str("\r\n");
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proto_send_is_read_into_0_3_params_with_the_proto_default_blocking() {
        let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}});
        let params = send_params(&body).unwrap();
        assert_eq!(params["message"]["parts"][0], json!({"kind": "text", "text": "hi"}));
        assert_eq!(params["configuration"]["blocking"], false, "left out, the proto's blocking is false");
    }

    #[test]
    fn a_json_rpc_shaped_send_is_an_unknown_exception_as_a2a_python_answers_it() {
        let body = json!({"message": {"kind": "message", "messageId": "m1", "role": "user",
            "parts": [{"kind": "text", "text": "hi"}]}});
        let error = send_params(&body).unwrap_err();
        assert_eq!((error.code, error.message.as_str()), (-32603, "unknown exception"));
    }

    #[test]
    fn results_are_written_as_the_proto_messages() {
        let task = json!({"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "canceled",
            "message": {"kind": "message", "messageId": "m", "role": "agent",
                "parts": [{"kind": "data", "data": {"k": 1}}]}}});
        let written = send_message_response(&task);
        assert_eq!(written["task"]["status"]["state"], "TASK_STATE_CANCELLED");
        assert_eq!(written["task"]["status"]["message"]["content"][0], json!({"data": {"data": {"k": 1}}}));
        let update = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": false,
            "status": {"state": "working"}});
        assert!(stream_response(&update)["statusUpdate"].get("final").is_none(), "false is left out");
        assert_eq!(sse_frame(&json!({"a": 1})), "data: {\r\ndata:   \"a\": 1\r\ndata: }\r\n\r\n");
    }
}
