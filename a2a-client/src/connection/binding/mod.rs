//! One binding per wire: what each spec operation comes to on JSON-RPC 1.0, HTTP+JSON 1.0, gRPC,
//! JSON-RPC 0.3 and HTTP+JSON 0.3 (the two 0.3 ones share their operations, `v03.rs`, and differ
//! in how each travels). Each implementation owns its method names or routes, how it writes a request and
//! how it reads the answer (tolerantly, when the client asks). [`AgentConnection`] does what is the
//! same on every wire before it hands a call to its binding: the tenant, the webhook URL check, the
//! retries and deadlines (through its endpoint) and the deviation log.
//!
//! A new binding is one more implementation here and one more arm in `AgentConnection::binding`,
//! the only place a connection matches on its wire.

use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use futures::future::BoxFuture;
use serde_json::Value;

use crate::transport::EventStream;
use crate::{AgentConnection, Error};

#[cfg(feature = "grpc")]
mod grpc;
mod http_json;
mod http_json_v03;
mod jsonrpc;
mod v03;

#[cfg(feature = "grpc")]
pub(super) use grpc::Grpc;
pub(super) use http_json::HttpJson;
pub(super) use http_json_v03::HttpJsonV03;
pub(super) use jsonrpc::JsonRpc;
pub(super) use v03::JsonRpcV03;

/// The answer to one operation on a connection.
pub(super) type Reply<'a, T> = BoxFuture<'a, Result<T, Error>>;

/// The A2A operations as one wire carries them, named as in the spec. Each takes the connection
/// (its endpoint, loss and deviation logs) and the request with its tenant already filled.
pub(super) trait Binding: Sync {
    /// The binding and protocol version as the card names them (`"JSONRPC"`, `"1.0"`): how the
    /// client's metrics label a call.
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str);
    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse>;
    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream>;
    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task>;
    fn list_tasks<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTasksRequest,
    ) -> Reply<'a, ListTasksResponse>;
    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task>;
    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream>;
    /// `GetExtendedAgentCard`'s answer as the document the agent wrote (1.0 or 0.3 shape): the
    /// connection reads it as a card of its own (its bytes, its claims, its signatures), whichever
    /// wire it came over.
    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value>;
    fn create_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        cfg: TaskPushNotificationConfig,
    ) -> Reply<'a, TaskPushNotificationConfig>;
    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig>;
    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse>;
    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()>;
}
