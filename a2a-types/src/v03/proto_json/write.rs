//! 0.3 JSON-RPC params rewritten into the proto requests a 0.3 HTTP+JSON server reads.

use serde_json::Value;

use super::{ConversionLoss, Method, Object, ROLES, at, rename, take};
use crate::v03::Converted;

/// Rewrites the 0.3 JSON-RPC `params` of `method` (as the [`v03`](crate::v03) params types write
/// them) into the body of its 0.3 HTTP+JSON request: the proto's request message as ProtoJSON, with
/// what the proto cannot carry in [`Converted::losses`].
///
/// Only the POST routes have a body: `message/send` and `message/stream` (`SendMessageRequest`),
/// `tasks/cancel` (`CancelTaskRequest`) and `tasks/pushNotificationConfig/set`
/// (`CreateTaskPushNotificationConfigRequest`). The params of the other methods go into the route's
/// path and query, and come back unchanged, as does anything that is not an object.
pub fn request(method: Method, params: Value) -> Converted<Value> {
    let mut losses = Vec::new();
    let Value::Object(mut object) = params else { return Converted { value: params, losses } };
    let value = match method {
        Method::MessageSend | Method::MessageStream => send_message_request(&mut object, &mut losses),
        Method::TasksCancel => cancel_task_request(&mut object, &mut losses),
        Method::PushNotificationConfigSet => create_push_config_request(&mut object),
        _ => object,
    };
    Converted { value: Value::Object(value), losses }
}

fn send_message_request(params: &mut Object, losses: &mut Vec<ConversionLoss>) -> Object {
    let mut body = Object::new();
    if let Some(mut message) = take(params, &["message"]) {
        write_message(&mut message, "message", losses);
        body.insert("message".to_owned(), message);
    }
    let mut configuration = match take(params, &["configuration"]) {
        Some(Value::Object(configuration)) => configuration,
        _ => Object::new(),
    };
    rename(&mut configuration, &["pushNotificationConfig"], "pushNotification");
    // Left out, JSON-RPC's `blocking` is `true`; the proto's `false`.
    configuration.entry("blocking").or_insert(Value::Bool(true));
    body.insert("configuration".to_owned(), Value::Object(configuration));
    if let Some(metadata) = take(params, &["metadata"]) {
        body.insert("metadata".to_owned(), metadata);
    }
    body
}

fn write_message(value: &mut Value, path: &str, losses: &mut Vec<ConversionLoss>) {
    let Some(message) = value.as_object_mut() else { return };
    message.remove("kind");
    if let Some(Value::String(role)) = message.get("role") {
        let proto = ROLES.iter().find(|(_, name)| *name == Some(role.as_str())).map(|(proto, _)| *proto);
        if let Some(proto) = proto {
            message.insert("role".to_owned(), Value::from(proto));
        }
    }
    if let Some(Value::Array(mut parts)) = take(message, &["parts"]) {
        parts.iter_mut().for_each(write_part);
        message.insert("content".to_owned(), Value::Array(parts));
    }
    if let Some(Value::Array(ids)) = take(message, &["referenceTaskIds"])
        && !ids.is_empty()
    {
        losses.push(ConversionLoss {
            path: at(path, "referenceTaskIds"),
            what: format!(
                "{} referenced task(s): the 0.3 proto's Message has no referenceTaskIds",
                ids.len()
            ),
        });
    }
}

fn write_part(value: &mut Value) {
    let Some(part) = value.as_object_mut() else { return };
    match part.remove("kind").as_ref().and_then(Value::as_str) {
        Some("file") => {
            if let Some(file) = part.get_mut("file").and_then(Value::as_object_mut) {
                rename(file, &["uri"], "fileWithUri");
                rename(file, &["bytes"], "fileWithBytes");
            }
        }
        Some("data") => {
            if let Some(data) = take(part, &["data"]) {
                let wrapped = Object::from_iter([("data".to_owned(), data)]);
                part.insert("data".to_owned(), Value::Object(wrapped));
            }
        }
        _ => {}
    }
}

fn cancel_task_request(params: &mut Object, losses: &mut Vec<ConversionLoss>) -> Object {
    if take(params, &["metadata"]).is_some() {
        losses.push(ConversionLoss {
            path: "metadata".to_owned(),
            what: "the 0.3 proto's CancelTaskRequest has no metadata".to_owned(),
        });
    }
    let id = params.get("id").and_then(Value::as_str).unwrap_or_default();
    Object::from_iter([("name".to_owned(), Value::String(format!("tasks/{id}")))])
}

fn create_push_config_request(params: &mut Object) -> Object {
    let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or_default().to_owned();
    let config = take(params, &["pushNotificationConfig"]).unwrap_or_else(|| Value::Object(Object::new()));
    let config_id = config.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_owned);
    let mut named = Object::new();
    let mut body = Object::from_iter([("parent".to_owned(), Value::String(format!("tasks/{task_id}")))]);
    if let Some(config_id) = config_id {
        let name = format!("tasks/{task_id}/pushNotificationConfigs/{config_id}");
        named.insert("name".to_owned(), Value::String(name));
        body.insert("configId".to_owned(), Value::String(config_id));
    }
    named.insert("pushNotificationConfig".to_owned(), config);
    body.insert("config".to_owned(), Value::Object(named));
    body
}
