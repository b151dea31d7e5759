//! The HTTP+JSON binding's routes: which operation a method and path name, and its parameters
//! as the 1.0 request message (path segments and query values folded in).

use axum::http::Method;
use serde_json::{Map, Value, json};

use crate::ops::Op;
use crate::query::query_pairs;
use crate::wire::A2aError;

/// Maps an HTTP+JSON request to an operation and its 1.0 request message as JSON.
pub(super) fn rest_route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    body: Option<&Value>,
) -> Option<Result<(Op, Value), A2aError>> {
    let body_object = || match body {
        Some(Value::Object(map)) => Ok(map.clone()),
        _ => Err(A2aError::invalid_params("the request body must be a JSON object")),
    };
    let from_query = || {
        let mut params = Map::new();
        for (key, value) in query_pairs(query) {
            let value = match key.as_str() {
                "historyLength" | "pageSize" => {
                    value.parse::<u64>().map_or(Value::String(value), Value::from)
                }
                "includeArtifacts" => Value::Bool(value == "true"),
                _ => Value::String(value),
            };
            params.insert(key, value);
        }
        params
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let with =
        |op: Op, params: Result<Map<String, Value>, A2aError>| Some(params.map(|p| (op, Value::Object(p))));
    match (method.as_str(), segments.as_slice()) {
        ("POST", ["message:send"]) => with(Op::SendMessage, body_object()),
        ("POST", ["message:stream"]) => with(Op::SendStreamingMessage, body_object()),
        ("GET", ["extendedAgentCard"]) => with(Op::GetExtendedAgentCard, Ok(Map::new())),
        ("GET", ["tasks"]) => with(Op::ListTasks, Ok(from_query())),
        (verb, ["tasks", task]) => {
            let (id, action) = task.split_once(':').unwrap_or((task, ""));
            let mut params = if verb == "GET" { from_query() } else { body_object().unwrap_or_default() };
            params.insert("id".to_owned(), json!(decoded(id)));
            match (verb, action) {
                ("GET", "") => with(Op::GetTask, Ok(params)),
                ("POST", "cancel") => with(Op::CancelTask, Ok(params)),
                ("GET" | "POST", "subscribe") => with(Op::SubscribeToTask, Ok(params)),
                _ => None,
            }
        }
        (verb, ["tasks", task_id, "pushNotificationConfigs"]) => {
            let op = match verb {
                "POST" => Op::CreatePushConfig,
                "GET" => Op::ListPushConfigs,
                _ => return None,
            };
            let mut params = if verb == "POST" { body_object() } else { Ok(from_query()) };
            if let Ok(p) = params.as_mut() {
                p.insert("taskId".to_owned(), json!(decoded(task_id)));
            }
            with(op, params)
        }
        (verb, ["tasks", task_id, "pushNotificationConfigs", config_id]) => {
            let op = match verb {
                "GET" => Op::GetPushConfig,
                "DELETE" => Op::DeletePushConfig,
                _ => return None,
            };
            with(
                op,
                Ok(Map::from_iter([
                    ("taskId".to_owned(), json!(decoded(task_id))),
                    ("id".to_owned(), json!(decoded(config_id))),
                ])),
            )
        }
        _ => None,
    }
}

/// A path segment percent-decoded, as servers read ids (`%2E%2E` is the id `..`); a `%` not
/// followed by two hex digits is kept as it is.
fn decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes.get(at + 1..at + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[at], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_paths_map_to_operations() {
        let route = rest_route(&Method::POST, "/tasks/t1:cancel", None, None);
        assert!(matches!(route, Some(Ok((Op::CancelTask, ref p))) if p["id"] == "t1"));
        let route = rest_route(&Method::GET, "/tasks/t1", Some("historyLength=2"), None);
        assert!(matches!(route, Some(Ok((Op::GetTask, ref p))) if p["historyLength"] == 2));
        assert!(rest_route(&Method::PUT, "/tasks/t1", None, None).is_none());
    }
}
