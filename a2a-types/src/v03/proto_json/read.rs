//! The proto's answers, as ProtoJSON, rewritten into the 0.3 JSON-RPC results they stand for.

use serde_json::Value;

use crate::parse::{describe, shape_error};

use super::{
    ConversionLoss, Object, ParseError, ROLES, Read, STATES, at, has, json_rpc_shaped, object_at, rename,
    take,
};

/// `SendMessageResponse`: `{"task"}` or `{"message"}` (`msg`), unwrapped.
pub(super) fn send_message_response(value: &mut Value) -> Result<Read, ParseError> {
    const MEMBERS: &[Member] = &[TASK, MESSAGE];
    if is_kinded(value, MEMBERS) {
        return Ok(json_rpc_shaped("a `kind` discriminator, no `task` or `message` member"));
    }
    one_of(value, MEMBERS, "SendMessageResponse")?;
    Ok(Read::default())
}

/// `StreamResponse`: `{"task"}`, `{"message"}`, `{"statusUpdate"}` or `{"artifactUpdate"}`, unwrapped.
pub(super) fn stream_response(value: &mut Value) -> Result<Read, ParseError> {
    const MEMBERS: &[Member] = &[TASK, MESSAGE, STATUS_UPDATE, ARTIFACT_UPDATE];
    if is_kinded(value, MEMBERS) {
        return Ok(json_rpc_shaped("a `kind` discriminator, no `statusUpdate`, `task`... member"));
    }
    one_of(value, MEMBERS, "StreamResponse")?;
    Ok(Read::default())
}

/// A bare `Task` (`tasks/get`, `tasks/cancel`).
pub(super) fn task_answer(value: &mut Value) -> Result<Read, ParseError> {
    if value.get("kind").is_some() {
        return Ok(json_rpc_shaped("a task with a `kind`"));
    }
    task(value, "")?;
    Ok(Read::default())
}

/// A `TaskPushNotificationConfig` (`tasks/pushNotificationConfig/set` and `/get`).
pub(super) fn task_push_config_answer(value: &mut Value) -> Result<Read, ParseError> {
    if let Value::Object(object) = value
        && !has(object, "name")
        && has(object, "taskId")
    {
        return Ok(json_rpc_shaped("a config with a `taskId` and no `name`"));
    }
    task_push_config(value, "")?;
    Ok(Read::default())
}

/// A `ListTaskPushNotificationConfigResponse`, made the bare array of configs JSON-RPC answers.
pub(super) fn config_list(value: &mut Value) -> Result<Read, ParseError> {
    if value.is_array() {
        return Ok(json_rpc_shaped("a bare array of configs"));
    }
    let object = object_at(value, "", "a ListTaskPushNotificationConfigResponse")?;
    let mut read = Read::default();
    if let Some(Value::String(token)) = take(object, &["nextPageToken", "next_page_token"])
        && !token.is_empty()
    {
        read.losses.push(ConversionLoss {
            path: "nextPageToken".to_owned(),
            what: format!(
                "the agent has more configs (page token {token:?}); a 0.3 JSON-RPC listing has no pages, \
                 so the later pages are not read"
            ),
        });
    }
    let mut configs = match take(object, &["configs"]) {
        Some(Value::Array(configs)) => configs,
        Some(other) => {
            return Err(shape_error("configs", format!("expected an array, found {}", describe(&other))));
        }
        None => Vec::new(),
    };
    for (i, config) in configs.iter_mut().enumerate() {
        task_push_config(config, &format!("configs[{i}]"))?;
    }
    *value = Value::Array(configs);
    Ok(read)
}

/// One member of a proto `oneof`: its JSON name, its proto field name, and how its value is read.
type Member = (&'static str, &'static str, fn(&mut Value, &str) -> Result<(), ParseError>);

const TASK: Member = ("task", "task", task);
const MESSAGE: Member = ("message", "msg", message);
const STATUS_UPDATE: Member = ("statusUpdate", "status_update", status_update);
const ARTIFACT_UPDATE: Member = ("artifactUpdate", "artifact_update", artifact_update);

/// Whether `value` is a JSON-RPC result: an object with a `kind` and none of the `members`.
fn is_kinded(value: &Value, members: &[Member]) -> bool {
    value.as_object().is_some_and(|object| {
        object.contains_key("kind")
            && !members.iter().any(|(json, proto, _)| has(object, json) || has(object, proto))
    })
}

/// Replaces `value` (a proto message whose one member is one of `members`) with that member's value,
/// read into the JSON-RPC shape.
fn one_of(value: &mut Value, members: &[Member], what: &str) -> Result<(), ParseError> {
    let object = object_at(value, "", &format!("a {what}"))?;
    for (json, proto, read) in members {
        if let Some(mut inner) = take(object, &[json, proto]) {
            read(&mut inner, json)?;
            *value = inner;
            return Ok(());
        }
    }
    let names: Vec<&str> = members.iter().map(|(json, ..)| *json).collect();
    Err(shape_error("", format!("a {what} needs one of {}; found none", names.join(", "))))
}

/// Sets the member `name` (read by `names`) to `""` when it is left out: the proto's default, where
/// the JSON-RPC shape requires the member.
fn required_string(object: &mut Object, names: &[&str], name: &str) {
    let value = take(object, names).unwrap_or_else(|| Value::String(String::new()));
    object.insert(name.to_owned(), value);
}

/// Sets the member `name` (read by `names`) to `false` when it is left out.
fn required_bool(object: &mut Object, names: &[&str], name: &str) {
    let value = take(object, names).unwrap_or(Value::Bool(false));
    object.insert(name.to_owned(), value);
}

/// Moves an optional id: `""` is the proto's "not set", which the JSON-RPC shape writes by leaving
/// the member out.
fn optional_id(object: &mut Object, names: &[&str], name: &str) {
    match take(object, names) {
        Some(Value::String(id)) if id.is_empty() => {}
        Some(id) => {
            object.insert(name.to_owned(), id);
        }
        None => {}
    }
}

/// Reads each element of the array member `from` (left out: none) with `read`, under `to`.
fn each(
    object: &mut Object,
    from: &str,
    to: &str,
    path: &str,
    read: fn(&mut Value, &str) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let Some(items) = take(object, &[from]) else { return Ok(()) };
    let Value::Array(mut items) = items else {
        return Err(shape_error(&at(path, from), format!("expected an array, found {}", describe(&items))));
    };
    for (i, item) in items.iter_mut().enumerate() {
        read(item, &format!("{}[{i}]", at(path, from)))?;
    }
    object.insert(to.to_owned(), Value::Array(items));
    Ok(())
}

fn task(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a Task")?;
    object.insert("kind".to_owned(), Value::from("task"));
    required_string(object, &["id"], "id");
    required_string(object, &["contextId", "context_id"], "contextId");
    if let Some(mut status) = take(object, &["status"]) {
        task_status(&mut status, &at(path, "status"))?;
        object.insert("status".to_owned(), status);
    }
    each(object, "artifacts", "artifacts", path, artifact)?;
    each(object, "history", "history", path, message)
}

fn task_status(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a TaskStatus")?;
    let state = enum_name(take(object, &["state"]), &STATES.map(|(proto, _)| proto), &at(path, "state"))?;
    object.insert("state".to_owned(), Value::from(STATES[state].1));
    if let Some(mut update) = take(object, &["message", "update"]) {
        message(&mut update, &at(path, "message"))?;
        object.insert("message".to_owned(), update);
    }
    Ok(())
}

/// The number of the enum value `value` names (left out: 0, the proto's default), by name or
/// number.
fn enum_name(value: Option<Value>, names: &[&str], path: &str) -> Result<usize, ParseError> {
    let unknown = |found: &str| {
        shape_error(
            path,
            format!("{found} is not a value of this 0.3 proto enum; expected one of {}", names.join(", ")),
        )
    };
    match value {
        None => Ok(0),
        Some(Value::String(name)) => {
            names.iter().position(|n| *n == name).ok_or_else(|| unknown(&format!("{name:?}")))
        }
        Some(Value::Number(number)) => number
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n < names.len())
            .ok_or_else(|| unknown(&number.to_string())),
        Some(other) => Err(unknown(&other.to_string())),
    }
}

fn message(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a Message")?;
    object.insert("kind".to_owned(), Value::from("message"));
    required_string(object, &["messageId", "message_id"], "messageId");
    optional_id(object, &["contextId", "context_id"], "contextId");
    optional_id(object, &["taskId", "task_id"], "taskId");
    let role_path = at(path, "role");
    let role = enum_name(take(object, &["role"]), &ROLES.map(|(proto, _)| proto), &role_path)?;
    let Some(role) = ROLES[role].1 else {
        return Err(shape_error(
            &role_path,
            "ROLE_UNSPECIFIED (or no role): a 0.3 message is the user's or the agent's",
        ));
    };
    object.insert("role".to_owned(), Value::from(role));
    each(object, "content", "parts", path, part)?;
    object.entry("parts").or_insert_with(|| Value::Array(Vec::new()));
    Ok(())
}

fn part(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a Part")?;
    let kind = if has(object, "text") {
        "text"
    } else if let Some(file) = object.get_mut("file").filter(|file| !file.is_null()) {
        file_part(file, &at(path, "file"))?;
        "file"
    } else if has(object, "data") {
        let mut data = take(object, &["data"]).unwrap_or_default();
        let inner = object_at(&mut data, &at(path, "data"), "a DataPart")?;
        let structure = take(inner, &["data"]).unwrap_or_else(|| Value::Object(Object::new()));
        object.insert("data".to_owned(), structure);
        "data"
    } else {
        return Err(shape_error(path, "a part needs one of text, file, data; found none"));
    };
    object.insert("kind".to_owned(), Value::from(kind));
    Ok(())
}

fn file_part(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a FilePart")?;
    rename(object, &["fileWithUri", "file_with_uri"], "uri");
    rename(object, &["fileWithBytes", "file_with_bytes"], "bytes");
    rename(object, &["mimeType", "mime_type"], "mimeType");
    Ok(())
}

fn artifact(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "an Artifact")?;
    required_string(object, &["artifactId", "artifact_id"], "artifactId");
    each(object, "parts", "parts", path, part)
}

fn status_update(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a TaskStatusUpdateEvent")?;
    object.insert("kind".to_owned(), Value::from("status-update"));
    required_string(object, &["taskId", "task_id"], "taskId");
    required_string(object, &["contextId", "context_id"], "contextId");
    if let Some(mut status) = take(object, &["status"]) {
        task_status(&mut status, &at(path, "status"))?;
        object.insert("status".to_owned(), status);
    }
    required_bool(object, &["final"], "final");
    Ok(())
}

fn artifact_update(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a TaskArtifactUpdateEvent")?;
    object.insert("kind".to_owned(), Value::from("artifact-update"));
    required_string(object, &["taskId", "task_id"], "taskId");
    required_string(object, &["contextId", "context_id"], "contextId");
    if let Some(mut inner) = take(object, &["artifact"]) {
        artifact(&mut inner, &at(path, "artifact"))?;
        object.insert("artifact".to_owned(), inner);
    }
    required_bool(object, &["append"], "append");
    required_bool(object, &["lastChunk", "last_chunk"], "lastChunk");
    Ok(())
}

/// `{"name": "tasks/{id}/pushNotificationConfigs/{configId}", "pushNotificationConfig"}` made
/// `{"taskId", "pushNotificationConfig"}`, the config's `id` taken from the name when it has none.
fn task_push_config(value: &mut Value, path: &str) -> Result<(), ParseError> {
    let object = object_at(value, path, "a TaskPushNotificationConfig")?;
    let name = match take(object, &["name"]) {
        Some(Value::String(name)) => name,
        _ => String::new(),
    };
    let Some((task_id, config_id)) = config_name(&name) else {
        let found = if name.is_empty() { "none".to_owned() } else { format!("{name:?}") };
        return Err(shape_error(
            &at(path, "name"),
            format!(
                "expected the resource name tasks/{{id}}/pushNotificationConfigs/{{configId}}, found {found}"
            ),
        ));
    };
    let (task_id, config_id) = (task_id.to_owned(), config_id.to_owned());
    let mut config = take(object, &["pushNotificationConfig", "push_notification_config"])
        .unwrap_or_else(|| Value::Object(Object::new()));
    let body = object_at(&mut config, &at(path, "pushNotificationConfig"), "a PushNotificationConfig")?;
    optional_id(body, &["id"], "id");
    optional_id(body, &["token"], "token");
    if !config_id.is_empty() {
        body.entry("id").or_insert(Value::String(config_id));
    }
    object.insert("taskId".to_owned(), Value::String(task_id));
    object.insert("pushNotificationConfig".to_owned(), config);
    Ok(())
}

/// The task and config ids of a config's resource name (the config id may be empty).
fn config_name(name: &str) -> Option<(&str, &str)> {
    let (task, config) = name.strip_prefix("tasks/")?.split_once("/pushNotificationConfigs/")?;
    (!task.is_empty() && !task.contains('/') && !config.contains('/')).then_some((task, config))
}
