//! gRPC (1.0, feature `grpc`): every operation is the service method of the same name, its
//! messages converted to and from the model as ProtoJSON.

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
use crate::connection::to_json_text;
use crate::transport::EventStream;
use crate::transport::grpc::{Opening, convert};

/// gRPC 1.0.
pub(in crate::connection) struct Grpc;

impl Binding for Grpc {
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str) {
        ("GRPC", "1.0")
    }

    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse> {
        Box::pin(async move { conn.grpc_send_message(&req).await })
    }

    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let request = Box::new(convert::direct::send_message_request(&req)?);
            conn.stream_grpc(Opening::SendStreamingMessage(request)).await
        })
    }

    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move { conn.grpc(Method::GetTask, "GetTask result", &req).await })
    }

    fn list_tasks<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTasksRequest,
    ) -> Reply<'a, ListTasksResponse> {
        Box::pin(async move { conn.grpc(Method::ListTasks, "ListTasks result", &req).await })
    }

    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move { conn.grpc(Method::CancelTask, "CancelTask result", &req).await })
    }

    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let text = to_json_text(&req)?;
            conn.stream_grpc(Opening::SubscribeToTask(convert::to_proto("SubscribeToTask request", &text)?))
                .await
        })
    }

    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value> {
        Box::pin(
            async move { conn.grpc(Method::GetExtendedAgentCard, "GetExtendedAgentCard result", &req).await },
        )
    }

    fn create_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        cfg: TaskPushNotificationConfig,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "CreateTaskPushNotificationConfig result";
        Box::pin(async move { conn.grpc(Method::CreateTaskPushNotificationConfig, WHAT, &cfg).await })
    }

    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        Box::pin(async move { conn.grpc(Method::GetTaskPushNotificationConfig, WHAT, &req).await })
    }

    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse> {
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        Box::pin(async move { conn.grpc(Method::ListTaskPushNotificationConfigs, WHAT, &req).await })
    }

    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()> {
        Box::pin(async move {
            let _: Value = conn
                .grpc(
                    Method::DeleteTaskPushNotificationConfig,
                    "DeleteTaskPushNotificationConfig result",
                    &req,
                )
                .await?;
            Ok(())
        })
    }
}
