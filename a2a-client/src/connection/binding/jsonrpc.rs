//! JSON-RPC 1.0: every operation is a `Method` posted to the interface URL.

use a2a_typestate_types::jsonrpc::Method;
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use serde_json::Value;

use super::{Binding, Reply};
use crate::AgentConnection;
use crate::transport::{EventStream, jsonrpc};

/// JSON-RPC 1.0.
pub(in crate::connection) struct JsonRpc;

impl Binding for JsonRpc {
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str) {
        ("JSONRPC", "1.0")
    }

    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse> {
        Box::pin(async move { conn.rpc(Method::SendMessage, "SendMessage result", &req).await })
    }

    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move { conn.stream_v1(Method::SendStreamingMessage, &req).await })
    }

    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move { conn.rpc(Method::GetTask, "GetTask result", &req).await })
    }

    fn list_tasks<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTasksRequest,
    ) -> Reply<'a, ListTasksResponse> {
        Box::pin(async move { conn.rpc(Method::ListTasks, "ListTasks result", &req).await })
    }

    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move { conn.rpc(Method::CancelTask, "CancelTask result", &req).await })
    }

    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move { conn.stream_v1(Method::SubscribeToTask, &req).await })
    }

    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value> {
        Box::pin(async move {
            let request = jsonrpc::Request::new(Method::GetExtendedAgentCard.as_str(), Some(&req))?;
            let endpoint = conn.endpoint();
            endpoint
                .retrying(|_| jsonrpc::call::<Value>(endpoint, &request, "extended agent card", None))
                .await
        })
    }

    fn create_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        cfg: TaskPushNotificationConfig,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "CreateTaskPushNotificationConfig result";
        Box::pin(async move { conn.rpc(Method::CreateTaskPushNotificationConfig, WHAT, &cfg).await })
    }

    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        Box::pin(async move { conn.rpc(Method::GetTaskPushNotificationConfig, WHAT, &req).await })
    }

    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse> {
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        Box::pin(async move { conn.rpc(Method::ListTaskPushNotificationConfigs, WHAT, &req).await })
    }

    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()> {
        Box::pin(async move {
            let request =
                jsonrpc::Request::new(Method::DeleteTaskPushNotificationConfig.as_str(), Some(&req))?;
            let endpoint = conn.endpoint();
            endpoint
                .retrying(|_| {
                    jsonrpc::call::<Value>(
                        endpoint,
                        &request,
                        "DeleteTaskPushNotificationConfig result",
                        None,
                    )
                })
                .await?;
            Ok(())
        })
    }
}
