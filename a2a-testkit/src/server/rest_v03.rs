//! The 0.3 HTTP+JSON binding's routes, as a2a-python 0.3's REST app serves them (and BeeAI with it):
//! which operation a method and path name under `/v1`, and its parameters in the shape of the 0.3
//! JSON-RPC `params` (the operations read 0.3 parameters the same whichever binding carried them).
//! Bodies are 0.3 JSON (`kind` discriminators, lowercase states); errors an HTTP status with
//! `{"message"}`.

use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::ops::Op;
use crate::query::query_pairs;
use crate::wire::A2aError;

/// Maps a 0.3 HTTP+JSON request (its path below the REST base) to an operation and its 0.3 params.
pub(super) fn rest_v03_route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    body: Option<&Value>,
) -> Option<Result<(Op, Value), A2aError>> {
    let path = path.strip_prefix("/v1")?;
    let body_object = || match body {
        Some(Value::Object(map)) => Ok(map.clone()),
        _ => Err(A2aError::invalid_params("the request body must be a JSON object")),
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
    let with =
        |op: Op, params: Result<Map<String, Value>, A2aError>| Some(params.map(|p| (op, Value::Object(p))));
    match (method.as_str(), segments.as_slice()) {
        ("POST", ["message:send"]) => with(Op::SendMessage, body_object()),
        ("POST", ["message:stream"]) => with(Op::SendStreamingMessage, body_object()),
        ("GET", ["card"]) => with(Op::GetExtendedAgentCard, Ok(Map::new())),
        (verb, ["tasks", task]) => {
            let (id, action) = task.split_once(':').unwrap_or((task, ""));
            let mut params = if verb == "GET" { from_query() } else { body_object().unwrap_or_default() };
            params.insert("id".to_owned(), json!(id));
            match (verb, action) {
                ("GET", "") => with(Op::GetTask, Ok(params)),
                ("POST", "cancel") => with(Op::CancelTask, Ok(params)),
                // a2a-python 0.3 serves GET; later releases POST too.
                ("GET" | "POST", "subscribe") => with(Op::SubscribeToTask, Ok(params)),
                _ => None,
            }
        }
        (verb, ["tasks", task_id, "pushNotificationConfigs"]) => match verb {
            "POST" => {
                let params = body_object().map(|mut p| {
                    p.insert("taskId".to_owned(), json!(task_id));
                    p
                });
                with(Op::CreatePushConfig, params)
            }
            "GET" => with(Op::ListPushConfigs, Ok(Map::from_iter([("id".to_owned(), json!(task_id))]))),
            _ => None,
        },
        (verb, ["tasks", task_id, "pushNotificationConfigs", config_id]) => {
            let op = match verb {
                "GET" => Op::GetPushConfig,
                "DELETE" => Op::DeletePushConfig,
                _ => return None,
            };
            let params = Map::from_iter([
                ("id".to_owned(), json!(task_id)),
                ("pushNotificationConfigId".to_owned(), json!(config_id)),
            ]);
            with(op, Ok(params))
        }
        _ => None,
    }
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
        let route = rest_v03_route(&Method::GET, "/v1/tasks/t1", Some("historyLength=2"), None);
        assert!(
            matches!(route, Some(Ok((Op::GetTask, ref p))) if p["id"] == "t1" && p["historyLength"] == 2)
        );
        let route = rest_v03_route(&Method::GET, "/v1/tasks/t1/pushNotificationConfigs/c1", None, None);
        assert!(
            matches!(route, Some(Ok((Op::GetPushConfig, ref p))) if p["pushNotificationConfigId"] == "c1")
        );
        assert!(rest_v03_route(&Method::POST, "/message:send", None, None).is_none(), "no /v1: not 0.3");
    }

    #[test]
    fn errors_take_the_status_of_a2a_python_0_3_table() {
        assert_eq!(rest_v03_error(&A2aError::task_not_found("t")).status(), StatusCode::NOT_FOUND);
        assert_eq!(rest_v03_error(&A2aError::push_not_supported()).status(), StatusCode::NOT_IMPLEMENTED);
        assert_eq!(rest_v03_error(&A2aError::task_not_cancelable("t", "x")).status(), StatusCode::CONFLICT);
    }
}
