//! HTTP+JSON 0.3: the 0.3 operations on their `/v1` routes (the 0.3 specification's, as a2a-python
//! 0.3 serves them and BeeAI with it), their bodies the 0.3 gRPC proto's messages as ProtoJSON, as
//! those servers read and write them (`{"message": {"role": "ROLE_USER", "content": [..]}}`, answers
//! `{"task": {..}}`). The routes are written here and nowhere else; what the operations send and how
//! their answers convert is `v03.rs`'s, in the 0.3 JSON-RPC shape, which
//! [`proto_json`](a2a_typestate_types::v03::proto_json) rewrites to and from the proto's: one
//! conversion path for both 0.3 bindings. An answer already in the JSON-RPC shape is read under
//! tolerant reading (a wire deviation) and refused as bad input otherwise.
//!
//! | operation | route | body | answer |
//! | --- | --- | --- | --- |
//! | `message/send` | `POST /v1/message:send` | `SendMessageRequest` | `SendMessageResponse` |
//! | `message/stream` | `POST /v1/message:stream` | `SendMessageRequest` | SSE, each `data:` a `StreamResponse` |
//! | `tasks/get` | `GET /v1/tasks/{id}?historyLength=N` | | `Task` |
//! | `tasks/cancel` | `POST /v1/tasks/{id}:cancel` | `CancelTaskRequest` | `Task` |
//! | `tasks/resubscribe` | `GET /v1/tasks/{id}:subscribe` | | SSE, as `message/stream` |
//! | `tasks/pushNotificationConfig/set` | `POST /v1/tasks/{id}/pushNotificationConfigs` | `CreateTaskPushNotificationConfigRequest` | `TaskPushNotificationConfig` |
//! | `tasks/pushNotificationConfig/get` | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` | | `TaskPushNotificationConfig` |
//! | `tasks/pushNotificationConfig/list` | `GET /v1/tasks/{id}/pushNotificationConfigs` | | `ListTaskPushNotificationConfigResponse` |
//! | `tasks/pushNotificationConfig/delete` | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` | | `Empty` |
//! | `agent/getAuthenticatedExtendedCard` | `GET /v1/card` | | the 0.3 card JSON |
//!
//! Errors come back as an HTTP status and `{"message"}` ([`ErrorBodies::V03`]): which A2A error a
//! status stands for is said per route below.

use a2a_typestate_types::error::A2aErrorCode;
use a2a_typestate_types::v03::{Method, proto_json};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Reply;
use super::v03::{Carrier, V03};
use crate::connection::to_json;
use crate::transport::EventStream;
use crate::transport::jsonrpc::Tolerate;
use crate::transport::rest::{Call, ErrorBodies, Payload, V03Errors, segment};
use crate::transport::v03::{LossLog, accept_read};
use crate::{AgentConnection, Error};

/// HTTP+JSON 0.3: the `/v1` routes.
pub(in crate::connection) struct ByRoute;

/// HTTP+JSON 0.3.
pub(in crate::connection) type HttpJsonV03 = V03<ByRoute>;

impl Carrier for ByRoute {
    #[cfg(feature = "otel")]
    const BINDING: &'static str = "HTTP+JSON";
    const RESULT_PATH: &'static str = "";

    fn call<'a, P: Serialize + Sync, W: DeserializeOwned + Send + 'a>(
        conn: &'a AgentConnection,
        method: Method,
        what: &'static str,
        params: Option<&'a P>,
        tolerate: Option<Tolerate<'a>>,
    ) -> Reply<'a, W> {
        Box::pin(async move {
            // The route takes the params apart (ids in the path, the rest its query or proto body).
            let params = params.map(to_json).transpose()?;
            let mut value = conn.rest_v03(route(method, params, &conn.inner.losses)?).await?;
            let answer = "0.3 HTTP+JSON answer";
            let read = proto_json::answer(method, &mut value).map_err(|e| Error::bad_input(answer, e))?;
            let deviations = conn.tolerant().then_some(&conn.inner.deviations);
            accept_read(&conn.inner.losses, deviations, method.v1_name(), None, answer, read)?;
            if let Some(tolerate) = tolerate {
                tolerate(&mut value);
            }
            crate::transport::read(what, value)
        })
    }

    fn stream(conn: &AgentConnection, method: Method, params: Value) -> Reply<'_, EventStream> {
        Box::pin(async move {
            let call = route(method, Some(params), &conn.inner.losses)?;
            conn.stream_rest_v03(method.v1_name(), call).await
        })
    }
}

/// The route of `method`: its path from the ids in `params` (the 0.3 JSON-RPC params), the rest of
/// them its query (GET, DELETE); a POST's body is the proto request they stand for
/// ([`proto_json::request`]), what it cannot carry recorded in `losses`.
fn route(method: Method, params: Option<Value>, losses: &LossLog) -> Result<Call<'static>, Error> {
    let member = |name: &str| -> Result<String, Error> {
        params
            .as_ref()
            .and_then(|p| p.get(name))
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| Error::misuse(format!("{} needs `{name}` for its route", method.as_str())))
    };
    let task = |suffix: &str| -> Result<Vec<String>, Error> {
        Ok(vec!["v1".to_owned(), "tasks".to_owned(), format!("{}{suffix}", segment(&member("id")?))])
    };
    let push_configs = |task_id: String| {
        vec!["v1".to_owned(), "tasks".to_owned(), segment(&task_id), "pushNotificationConfigs".to_owned()]
    };
    let (verb, segments, path_fields, errors): (_, _, &'static [&'static str], _) = match method {
        Method::MessageSend => (http::Method::POST, v1(&["message:send"]), &[], send_errors(params.as_ref())),
        Method::MessageStream => {
            (http::Method::POST, v1(&["message:stream"]), &[], send_errors(params.as_ref()))
        }
        Method::TasksGet => (http::Method::GET, task("")?, &["id"], TASK),
        Method::TasksCancel => (http::Method::POST, task(":cancel")?, &["id"], TASK),
        Method::TasksResubscribe => (http::Method::GET, task(":subscribe")?, &["id"], TASK),
        Method::PushNotificationConfigSet => {
            (http::Method::POST, push_configs(member("taskId")?), &[], PUSH_CONFIG)
        }
        Method::PushNotificationConfigList => {
            (http::Method::GET, push_configs(member("id")?), &["id"], PUSH_CONFIG)
        }
        Method::PushNotificationConfigGet => {
            // Unset, the config is the one named after the task (a2a-sdk's default id).
            let config = member("pushNotificationConfigId").or_else(|_| member("id"))?;
            let mut segments = push_configs(member("id")?);
            segments.push(segment(&config));
            (http::Method::GET, segments, &["id", "pushNotificationConfigId"], PUSH_CONFIG)
        }
        Method::PushNotificationConfigDelete => {
            let mut segments = push_configs(member("id")?);
            segments.push(segment(&member("pushNotificationConfigId")?));
            (http::Method::DELETE, segments, &["id", "pushNotificationConfigId"], PUSH_CONFIG)
        }
        Method::GetAuthenticatedExtendedCard => (http::Method::GET, v1(&["card"]), &[], CARD),
    };
    if verb != http::Method::POST {
        return Ok(Call {
            verb,
            segments,
            message: params.map(Payload::Fields),
            path_fields,
            errors: ErrorBodies::V03(errors),
        });
    }
    let params = params.unwrap_or_else(|| Value::Object(Default::default()));
    let body = proto_json::request(method, params);
    losses.record(method.as_str(), "0.3 -> 0.3 proto", &body.losses);
    Ok(Call {
        verb,
        segments,
        message: Some(Payload::Fields(body.value)),
        path_fields: &[],
        errors: ErrorBodies::V03(errors),
    })
}

fn v1(segments: &[&str]) -> Vec<String> {
    std::iter::once("v1").chain(segments.iter().copied()).map(str::to_owned).collect()
}

/// A task's routes: 404 is "task not found", 501 "not supported" (streaming, resubscribe).
const TASK: V03Errors = V03Errors { not_found: -32001, not_supported: -32004, carries_push: false };

/// The push-config routes: 501 is "push notifications not supported".
const PUSH_CONFIG: V03Errors = V03Errors { not_found: -32001, not_supported: -32003, carries_push: false };

/// The authenticated card: 404 is "not configured" (a2a-python's table).
const CARD: V03Errors = V03Errors { not_found: -32007, not_supported: -32004, carries_push: false };

/// A send: 404 names the task it continues, or, when the message continues none, the route itself
/// (no such method); a 501 is about push when the send carried a push config and the agent's
/// message says so (a2a-python answers both "not supported" errors with 501 and a bare message),
/// about the operation otherwise.
fn send_errors(params: Option<&Value>) -> V03Errors {
    let carries_push = params
        .and_then(|p| p.pointer("/configuration/pushNotificationConfig"))
        .is_some_and(|config| !config.is_null());
    let continues_task = params
        .and_then(|p| p.pointer("/message/taskId"))
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty());
    let not_found = if continues_task { TASK.not_found } else { A2aErrorCode::MethodNotFound.code() };
    V03Errors { carries_push, not_found, ..TASK }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn path(method: Method, params: Value) -> (http::Method, String, Option<Value>) {
        let call = route(method, Some(params), &LossLog::default()).unwrap();
        let message = match call.message {
            Some(Payload::Fields(message)) => Some(message),
            Some(Payload::Body(_)) => panic!("0.3 messages are taken apart"),
            None => None,
        };
        (call.verb, call.segments.join("/"), message)
    }

    #[test]
    fn each_0_3_operation_has_its_v1_route() {
        let id = json!({"id": "t1", "historyLength": 2});
        assert_eq!(path(Method::TasksGet, id.clone()).1, "v1/tasks/t1");
        assert_eq!(path(Method::TasksCancel, id.clone()).1, "v1/tasks/t1:cancel");
        assert_eq!(path(Method::TasksResubscribe, id.clone()).0, http::Method::GET);
        let set = json!({"taskId": "t1", "pushNotificationConfig": {"url": "https://h"}});
        assert_eq!(path(Method::PushNotificationConfigSet, set).1, "v1/tasks/t1/pushNotificationConfigs");
        let get = json!({"id": "t1", "pushNotificationConfigId": "c1"});
        assert_eq!(
            path(Method::PushNotificationConfigGet, get.clone()).1,
            "v1/tasks/t1/pushNotificationConfigs/c1"
        );
        assert_eq!(path(Method::PushNotificationConfigDelete, get).0, http::Method::DELETE);
        let unnamed = json!({"id": "t1"});
        assert_eq!(
            path(Method::PushNotificationConfigGet, unnamed).1,
            "v1/tasks/t1/pushNotificationConfigs/t1",
            "unset, the config is the task's own"
        );
        let card = route(Method::GetAuthenticatedExtendedCard, None, &LossLog::default()).unwrap();
        assert_eq!(card.segments.join("/"), "v1/card");
    }

    #[test]
    fn a_post_carries_the_proto_request_its_params_stand_for() {
        let (_, _, cancel) = path(Method::TasksCancel, json!({"id": "t1"}));
        assert_eq!(cancel, Some(json!({"name": "tasks/t1"})));
        let send = json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": []}});
        let (_, _, body) = path(Method::MessageSend, send);
        let body = body.unwrap();
        assert_eq!(
            (&body["message"]["role"], &body["configuration"]["blocking"]),
            (&json!("ROLE_USER"), &json!(true))
        );
        let losses = LossLog::default();
        let cancel = json!({"id": "t1", "metadata": {"a": 1}});
        route(Method::TasksCancel, Some(cancel), &losses).unwrap();
        assert_eq!(losses.count(), 1, "the proto's cancel has no metadata");
    }

    #[test]
    fn a_route_without_its_task_id_is_a_misuse_not_a_request() {
        let err = route(Method::TasksGet, Some(json!({})), &LossLog::default()).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Misuse);
        assert!(err.to_string().contains("`id`"), "{err}");
    }

    #[test]
    fn a_501_is_read_by_the_route_it_answers() {
        let send = send_errors(Some(&json!({"message": {}})));
        assert_eq!(send.code(501, "Streaming is not supported"), Some(-32004));
        let with_push =
            send_errors(Some(&json!({"configuration": {"pushNotificationConfig": {"url": "u"}}})));
        assert_eq!(with_push.code(501, "Push Notification is not supported"), Some(-32003));
        assert_eq!(with_push.code(501, "Streaming is not supported"), Some(-32004));
        assert_eq!(PUSH_CONFIG.code(501, "not supported"), Some(-32003));
        assert_eq!(TASK.code(404, "Task not found"), Some(-32001));
        assert_eq!(CARD.code(404, "Authenticated card not supported"), Some(-32007));
        assert_eq!(TASK.code(409, "cannot cancel"), Some(-32002));
        assert_eq!(TASK.code(405, "Method Not Allowed"), None, "the framework's, not the agent's");
    }

    #[test]
    fn a_404_to_a_send_names_the_task_it_continues_or_else_the_route() {
        let continuing = send_errors(Some(&json!({"message": {"taskId": "t1", "parts": []}})));
        assert_eq!(continuing.code(404, "Task not found"), Some(-32001));
        for first in [json!({"message": {"parts": []}}), json!({"message": {"taskId": ""}}), json!({})] {
            assert_eq!(send_errors(Some(&first)).code(404, "Not Found"), Some(-32601), "{first}");
        }
        assert_eq!(send_errors(None).code(404, "Not Found"), Some(-32601));
    }
}
