//! HTTP+JSON 0.3: the 0.3 operations on their `/v1` routes (the 0.3 specification's, as a2a-python
//! 0.3 serves them and BeeAI with it), with the same 0.3 JSON as JSON-RPC 0.3 carries in `params`
//! and `result`: `kind` discriminators, lowercase states. The routes are written here and nowhere
//! else; what the operations send and how their answers convert is `v03.rs`'s.
//!
//! | operation | route |
//! | --- | --- |
//! | `message/send` | `POST /v1/message:send` |
//! | `message/stream` | `POST /v1/message:stream` (SSE, each `data:` a bare 0.3 result) |
//! | `tasks/get` | `GET /v1/tasks/{id}?historyLength=N` |
//! | `tasks/cancel` | `POST /v1/tasks/{id}:cancel` |
//! | `tasks/resubscribe` | `GET /v1/tasks/{id}:subscribe` (SSE) |
//! | `tasks/pushNotificationConfig/set` | `POST /v1/tasks/{id}/pushNotificationConfigs` |
//! | `tasks/pushNotificationConfig/get` | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `tasks/pushNotificationConfig/list` | `GET /v1/tasks/{id}/pushNotificationConfigs` |
//! | `tasks/pushNotificationConfig/delete` | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `agent/getAuthenticatedExtendedCard` | `GET /v1/card` |
//!
//! Errors come back as an HTTP status and `{"message"}` ([`ErrorBodies::V03`]): which A2A error a
//! status stands for is said per route below.

use a2a_typestate_types::v03::Method;
use serde_json::Value;

use super::Reply;
use super::v03::{Carrier, V03};
use crate::transport::EventStream;
use crate::transport::rest::{Call, ErrorBodies, V03Errors, segment};
use crate::{AgentConnection, Error};

/// HTTP+JSON 0.3: the `/v1` routes.
pub(in crate::connection) struct ByRoute;

/// HTTP+JSON 0.3.
pub(in crate::connection) type HttpJsonV03 = V03<ByRoute>;

impl Carrier for ByRoute {
    #[cfg(feature = "otel")]
    const BINDING: &'static str = "HTTP+JSON";

    fn call(conn: &AgentConnection, method: Method, params: Option<Value>) -> Reply<'_, Value> {
        Box::pin(async move { conn.rest_v03(route(method, params)?).await })
    }

    fn stream(conn: &AgentConnection, method: Method, params: Value) -> Reply<'_, EventStream> {
        Box::pin(async move { conn.stream_rest_v03(route(method, Some(params))?).await })
    }
}

/// The route of `method`, with `params` as its query (GET, DELETE) or body (POST) once the members
/// in the path are taken out.
fn route(method: Method, params: Option<Value>) -> Result<Call<'static>, Error> {
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
    // A POST carries a body, `{}` when the params are all in the path.
    let message = params.or_else(|| (verb == http::Method::POST).then(|| Value::Object(Default::default())));
    Ok(Call { verb, segments, message, path_fields, errors: ErrorBodies::V03(errors) })
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

/// A send: 404 names the task it continues; a 501 is about push when the send carried a push
/// config and the agent's message says so (a2a-python answers both "not supported" errors with 501
/// and a bare message), about the operation otherwise.
fn send_errors(params: Option<&Value>) -> V03Errors {
    let carries_push = params
        .and_then(|p| p.pointer("/configuration/pushNotificationConfig"))
        .is_some_and(|config| !config.is_null());
    V03Errors { carries_push, ..TASK }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn path(method: Method, params: Value) -> (http::Method, String, Option<Value>) {
        let call = route(method, Some(params)).unwrap();
        (call.verb, call.segments.join("/"), call.message)
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
        let card = route(Method::GetAuthenticatedExtendedCard, None).unwrap();
        assert_eq!(card.segments.join("/"), "v1/card");
    }

    #[test]
    fn a_route_without_its_task_id_is_a_misuse_not_a_request() {
        let err = route(Method::TasksGet, Some(json!({}))).unwrap_err();
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
}
