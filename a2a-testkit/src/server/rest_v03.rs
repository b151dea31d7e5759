//! The 0.3 HTTP+JSON binding's routes, as a2a-python 0.3's REST app serves them (and BeeAI with it):
//! which operation a method and path name under `/v1`, and its parameters in the shape of the 0.3
//! JSON-RPC `params` (the operations read 0.3 parameters the same whichever binding carried them),
//! read from the proto request a POST's body is ([`crate::proto_v03`]). Answers are the proto's
//! messages as ProtoJSON (written in `server/mod.rs`); errors an HTTP status with `{"message"}`.

use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::ops::Op;
use crate::proto_v03;
use crate::query::query_pairs;
use crate::wire::A2aError;

/// Maps a 0.3 HTTP+JSON request (its path below the REST base) to an operation and its 0.3 params.
/// With `json_rpc_shape` ([`Quirk::V03RestInJsonRpcShape`](crate::Quirk)) a body in the 0.3
/// JSON-RPC shape is taken as the params it is; otherwise a POST's body is read as the proto request.
pub(super) fn rest_v03_route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    body: Option<&Value>,
    json_rpc_shape: bool,
) -> Option<Result<(Op, Value), A2aError>> {
    let path = path.strip_prefix("/v1")?;
    let proto = |read: &dyn Fn(&Value) -> Result<Value, A2aError>| match body {
        Some(body) if json_rpc_shape && is_json_rpc_shaped(body) => Ok(body.clone()),
        Some(body) => read(body),
        None => Err(A2aError::internal("unknown exception")),
    };
    let from_query = || {
        let mut params = Map::new();
        for (key, value) in query_pairs(query) {
            let value = match key.as_str() {
                "historyLength" => value.parse::<u64>().map_or(Value::String(value), Value::from),
                _ => Value::String(value),
            };
            params.insert(key, value);
        }
        params
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let with = |op: Op, params: Result<Value, A2aError>| Some(params.map(|p| (op, p)));
    match (method.as_str(), segments.as_slice()) {
        ("POST", ["message:send"]) => with(Op::SendMessage, proto(&proto_v03::send_params)),
        ("POST", ["message:stream"]) => with(Op::SendStreamingMessage, proto(&proto_v03::send_params)),
        ("GET", ["card"]) => with(Op::GetExtendedAgentCard, Ok(json!({}))),
        (verb, ["tasks", task]) => {
            let (id, action) = task.split_once(':').unwrap_or((task, ""));
            // A GET's params are its query; a2a-python reads no body on these routes (a cancel's
            // `CancelTaskRequest` only names the task the path names).
            let mut params = if verb == "GET" { from_query() } else { Map::new() };
            params.insert("id".to_owned(), json!(id));
            let params = Ok(Value::Object(params));
            match (verb, action) {
                ("GET", "") => with(Op::GetTask, params),
                ("POST", "cancel") => with(Op::CancelTask, params),
                // a2a-python 0.3 serves GET; later releases POST too.
                ("GET" | "POST", "subscribe") => with(Op::SubscribeToTask, params),
                _ => None,
            }
        }
        (verb, ["tasks", task_id, "pushNotificationConfigs"]) => match verb {
            "POST" => {
                let params =
                    proto(&|body| proto_v03::create_push_config_params(body, task_id)).map(|mut p| {
                        if let Some(object) = p.as_object_mut() {
                            object.insert("taskId".to_owned(), json!(task_id));
                        }
                        p
                    });
                with(Op::CreatePushConfig, params)
            }
            "GET" => with(Op::ListPushConfigs, Ok(json!({ "id": task_id }))),
            _ => None,
        },
        (verb, ["tasks", task_id, "pushNotificationConfigs", config_id]) => {
            let op = match verb {
                "GET" => Op::GetPushConfig,
                "DELETE" => Op::DeletePushConfig,
                _ => return None,
            };
            with(op, Ok(json!({ "id": task_id, "pushNotificationConfigId": config_id })))
        }
        _ => None,
    }
}

/// Whether a request body is in the 0.3 JSON-RPC shape: a message with a `kind` or `parts`, or a
/// config with a `taskId` or a bare `pushNotificationConfig`.
fn is_json_rpc_shaped(body: &Value) -> bool {
    let message = body.get("message");
    message.is_some_and(|m| m.get("kind").is_some() || m.get("parts").is_some())
        || body.get("pushNotificationConfig").is_some()
        || body.get("taskId").is_some()
}

/// An error as a2a-python's 0.3 REST app answers it: the status its table gives the error, and the
/// message alone (no code, no ErrorInfo: the client tells the errors apart by status and route).
pub(super) fn rest_v03_error(error: &A2aError) -> Response {
    let status = match error.code {
        -32700 | -32600 => StatusCode::BAD_REQUEST,
        -32601 | -32001 | -32007 => StatusCode::NOT_FOUND,
        -32602 => StatusCode::UNPROCESSABLE_ENTITY,
        -32002 => StatusCode::CONFLICT,
        -32003 | -32004 => StatusCode::NOT_IMPLEMENTED,
        -32005 => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        -32006 => StatusCode::BAD_GATEWAY,
        // 0.3 has no -32008 or -32009; the agent refuses the request.
        -32008 | -32009 => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let body = json!({ "message": error.message }).to_string();
    (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_routes_map_to_operations_with_0_3_params() {
        let route = rest_v03_route(&Method::GET, "/v1/tasks/t1", Some("historyLength=2"), None, false);
        assert!(
            matches!(route, Some(Ok((Op::GetTask, ref p))) if p["id"] == "t1" && p["historyLength"] == 2)
        );
        let route =
            rest_v03_route(&Method::GET, "/v1/tasks/t1/pushNotificationConfigs/c1", None, None, false);
        assert!(
            matches!(route, Some(Ok((Op::GetPushConfig, ref p))) if p["pushNotificationConfigId"] == "c1")
        );
        assert!(
            rest_v03_route(&Method::POST, "/message:send", None, None, false).is_none(),
            "no /v1: not 0.3"
        );
    }

    #[test]
    fn errors_take_the_status_of_a2a_python_0_3_table() {
        assert_eq!(rest_v03_error(&A2aError::task_not_found("t")).status(), StatusCode::NOT_FOUND);
        assert_eq!(rest_v03_error(&A2aError::push_not_supported()).status(), StatusCode::NOT_IMPLEMENTED);
        assert_eq!(rest_v03_error(&A2aError::task_not_cancelable("t", "x")).status(), StatusCode::CONFLICT);
    }
}
