//! HTTP+JSON 1.0: every operation is a verb on a route under the interface URL (the tenant first
//! when there is one); the routes are written here and nowhere else.

use a2a_typestate_types::jsonrpc::Method;
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskId, TaskPushNotificationConfig,
};
use serde::Serialize;
use serde_json::Value;

use super::{Binding, Reply};
use crate::connection::{to_json, to_json_text};
use crate::transport::EventStream;
use crate::transport::rest::{self, Call, ErrorBodies, Payload, segment};
use crate::{AgentConnection, Error};

/// HTTP+JSON 1.0.
pub(in crate::connection) struct HttpJson;

impl Binding for HttpJson {
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str) {
        ("HTTP+JSON", "1.0")
    }

    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse> {
        Box::pin(async move {
            conn.rest(Method::SendMessage, "SendMessage result", send(vec!["message:send".into()], &req)?)
                .await
        })
    }

    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            conn.stream_rest("SendStreamingMessage", send(vec!["message:stream".into()], &req)?).await
        })
    }

    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let segments = vec!["tasks".into(), segment(req.id.as_str())];
            conn.rest(Method::GetTask, "GetTask result", get(segments, &req, &["id"])?).await
        })
    }

    fn list_tasks<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTasksRequest,
    ) -> Reply<'a, ListTasksResponse> {
        Box::pin(async move {
            conn.rest(Method::ListTasks, "ListTasks result", get(vec!["tasks".into()], &req, &[])?).await
        })
    }

    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let segments = vec!["tasks".into(), format!("{}:cancel", segment(req.id.as_str()))];
            conn.rest(Method::CancelTask, "CancelTask result", post(segments, &req, &["id"])?).await
        })
    }

    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let segments = vec!["tasks".into(), format!("{}:subscribe", segment(req.id.as_str()))];
            conn.stream_rest("SubscribeToTask", get(segments, &req, &["id"])?).await
        })
    }

    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value> {
        Box::pin(async move {
            let call = extended_card(&req)?.prepare(conn.endpoint())?;
            conn.endpoint().retrying(|_| rest::call(conn.endpoint(), &call)).await
        })
    }

    fn create_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        cfg: TaskPushNotificationConfig,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "CreateTaskPushNotificationConfig result";
        Box::pin(async move {
            let method = Method::CreateTaskPushNotificationConfig;
            let Some(task_id) = cfg.task_id.as_ref() else {
                return Err(Error::misuse("a push notification config needs the taskId it is for"));
            };
            let segments = push_segments(task_id, None);
            conn.rest(method, WHAT, post(segments, &cfg, &[])?).await
        })
    }

    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        Box::pin(async move {
            let segments = push_segments(&req.task_id, Some(&req.id));
            conn.rest(Method::GetTaskPushNotificationConfig, WHAT, get(segments, &req, &["taskId", "id"])?)
                .await
        })
    }

    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse> {
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        Box::pin(async move {
            let segments = push_segments(&req.task_id, None);
            conn.rest(Method::ListTaskPushNotificationConfigs, WHAT, get(segments, &req, &["taskId"])?).await
        })
    }

    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()> {
        Box::pin(async move {
            let call = Call {
                verb: http::Method::DELETE,
                segments: push_segments(&req.task_id, Some(&req.id)),
                message: Some(Payload::Fields(to_json(&req)?)),
                path_fields: &["taskId", "id"],
                errors: ErrorBodies::RpcStatus,
            };
            let call = call.prepare(conn.endpoint())?;
            conn.endpoint().retrying(|_| rest::call(conn.endpoint(), &call)).await?;
            Ok(())
        })
    }
}

/// `message:send` or `message:stream`: no field of the request goes in the path, so without a
/// tenant its JSON text is the body as it is.
fn send(segments: Vec<String>, req: &SendMessageRequest) -> Result<Call<'static>, Error> {
    if req.tenant.is_some() {
        return post(segments, req, &[]);
    }
    let body = to_json_text(req)?;
    Ok(Call {
        verb: http::Method::POST,
        segments,
        message: Some(Payload::Body(body.into())),
        path_fields: &[],
        errors: ErrorBodies::RpcStatus,
    })
}

fn post<'a, T: Serialize>(
    segments: Vec<String>,
    message: &T,
    path_fields: &'a [&'a str],
) -> Result<Call<'a>, Error> {
    Ok(Call {
        verb: http::Method::POST,
        segments,
        message: Some(Payload::Fields(to_json(message)?)),
        path_fields,
        errors: ErrorBodies::RpcStatus,
    })
}

fn get<'a, T: Serialize>(
    segments: Vec<String>,
    message: &T,
    path_fields: &'a [&'a str],
) -> Result<Call<'a>, Error> {
    Ok(Call {
        verb: http::Method::GET,
        segments,
        message: Some(Payload::Fields(to_json(message)?)),
        path_fields,
        errors: ErrorBodies::RpcStatus,
    })
}

fn extended_card(req: &GetExtendedAgentCardRequest) -> Result<Call<'static>, Error> {
    Ok(Call {
        verb: http::Method::GET,
        segments: vec!["extendedAgentCard".into()],
        message: Some(Payload::Fields(to_json(req)?)),
        path_fields: &[],
        errors: ErrorBodies::RpcStatus,
    })
}

fn push_segments(task_id: &TaskId, id: Option<&str>) -> Vec<String> {
    let mut segments =
        vec!["tasks".to_owned(), segment(task_id.as_str()), "pushNotificationConfigs".to_owned()];
    segments.extend(id.map(segment));
    segments
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::{Message, Part, Role, SendMessageConfiguration};
    use proptest::prelude::*;

    fn request() -> impl Strategy<Value = SendMessageRequest> {
        let tenant = proptest::option::of(prop_oneof![Just(String::new()), "[a-z/]{1,4}"]);
        let configuration = proptest::option::of((proptest::option::of(0i32..3), any::<bool>()).prop_map(
            |(history_length, return_immediately)| SendMessageConfiguration {
                history_length,
                return_immediately,
                ..SendMessageConfiguration::default()
            },
        ));
        (tenant, "[a-z\"]{0,4}", configuration).prop_map(|(tenant, text, configuration)| SendMessageRequest {
            tenant,
            message: Message::new("m1", Role::User, vec![Part::text(text)]),
            configuration,
            metadata: None,
        })
    }

    proptest! {
        /// The body written as it is goes to the same URL, and reads as the same JSON, as the
        /// request taken apart field by field (the tenant, when set, in the path).
        #[test]
        fn a_send_is_the_request_taken_apart_field_by_field(req in request(), interface_tenant in proptest::option::of(Just("acme"))) {
            let endpoint = crate::transport::rest::tests::endpoint("http://agent.example/rest", interface_tenant);
            let segments = || vec!["message:send".to_owned()];
            let sent = send(segments(), &req).unwrap().prepare(&endpoint).unwrap();
            let apart = post(segments(), &req, &[]).unwrap().prepare(&endpoint).unwrap();
            prop_assert_eq!(sent.request().uri(), apart.request().uri());
            let json = |body: &[u8]| serde_json::from_slice::<Value>(body).unwrap();
            prop_assert_eq!(json(sent.request().body()), json(apart.request().body()));
        }
    }
}
