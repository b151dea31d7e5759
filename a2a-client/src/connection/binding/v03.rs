//! JSON-RPC 0.3: the 0.3 method names; each request converted from the 1.0 model and each answer
//! back to it, what a conversion loses logged on the connection. 0.3 has no `ListTasks`.

use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, v03,
};
use serde_json::Value;

use super::{Binding, Reply};
use crate::connection::to_json;
use crate::transport::EventStream;
use crate::{AgentConnection, Error};

/// JSON-RPC 0.3.
pub(in crate::connection) struct JsonRpcV03;

impl Binding for JsonRpcV03 {
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str) {
        ("JSONRPC", "0.3")
    }

    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            let params = losses.request("message/send", v03::MessageSendParams::from_v1(&req))?;
            let value = conn.rpc_v03(v03::Method::MessageSend, Some(params)).await?;
            losses.result("message/send result", value, v03::SendMessageResult::to_v1)
        })
    }

    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let params =
                conn.inner.losses.request("message/stream", v03::MessageSendParams::from_v1(&req))?;
            conn.stream_v03(v03::Method::MessageStream, params).await
        })
    }

    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            let params = losses.request("tasks/get", v03::TaskQueryParams::from_v1(&req))?;
            let value = conn.rpc_v03(v03::Method::TasksGet, Some(params)).await?;
            losses.result("tasks/get result", value, v03::Task::to_v1)
        })
    }

    fn list_tasks<'a>(&self, _: &'a AgentConnection, _: ListTasksRequest) -> Reply<'a, ListTasksResponse> {
        Box::pin(async move { Err(not_in_v03("ListTasks")) })
    }

    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            let params = losses.request("tasks/cancel", v03::TaskIdParams::from_v1(&req))?;
            let value = conn.rpc_v03(v03::Method::TasksCancel, Some(params)).await?;
            losses.result("tasks/cancel result", value, v03::Task::to_v1)
        })
    }

    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let params = to_json(&v03::TaskIdParams { id: req.id, metadata: None })?;
            conn.stream_v03(v03::Method::TasksResubscribe, params).await
        })
    }

    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        _: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value> {
        Box::pin(async move { conn.rpc_v03(v03::Method::GetAuthenticatedExtendedCard, None).await })
    }

    fn create_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        cfg: TaskPushNotificationConfig,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "CreateTaskPushNotificationConfig result";
        Box::pin(async move {
            let losses = &conn.inner.losses;
            let operation = "tasks/pushNotificationConfig/set";
            let params = losses.request(operation, v03::TaskPushNotificationConfig::from_v1(&cfg))?;
            let value = conn.rpc_v03(v03::Method::PushNotificationConfigSet, Some(params)).await?;
            losses.result(WHAT, value, v03::TaskPushNotificationConfig::to_v1)
        })
    }

    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        Box::pin(async move {
            let params = to_json(&v03::GetTaskPushNotificationConfigParams {
                id: req.task_id,
                push_notification_config_id: Some(req.id).filter(|id| !id.is_empty()),
                metadata: None,
            })?;
            let value = conn.rpc_v03(v03::Method::PushNotificationConfigGet, Some(params)).await?;
            conn.inner.losses.result(WHAT, value, v03::TaskPushNotificationConfig::to_v1)
        })
    }

    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse> {
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        Box::pin(async move {
            let params =
                to_json(&v03::ListTaskPushNotificationConfigParams { id: req.task_id, metadata: None })?;
            let value = conn.rpc_v03(v03::Method::PushNotificationConfigList, Some(params)).await?;
            let configs =
                conn.inner.losses.result(WHAT, value, |list: &Vec<v03::TaskPushNotificationConfig>| {
                    let mut losses = Vec::new();
                    let mut value = Vec::with_capacity(list.len());
                    for config in list {
                        let converted = config.to_v1();
                        losses.extend(converted.losses);
                        value.push(converted.value);
                    }
                    v03::Converted { value, losses }
                })?;
            Ok(ListTaskPushNotificationConfigsResponse { configs, next_page_token: None })
        })
    }

    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()> {
        Box::pin(async move {
            let params = to_json(&v03::DeleteTaskPushNotificationConfigParams {
                id: req.task_id,
                push_notification_config_id: req.id,
                metadata: None,
            })?;
            conn.rpc_v03(v03::Method::PushNotificationConfigDelete, Some(params)).await?;
            Ok(())
        })
    }
}

fn not_in_v03(operation: &str) -> Error {
    Error::misuse(format!("{operation} does not exist in protocol 0.3, which this agent speaks"))
}
