//! 0.3, over JSON-RPC or HTTP+JSON: each request converted from the 1.0 model and each answer back
//! to it, what a conversion loses logged on the connection. 0.3 has no `ListTasks`.
//!
//! The operations are written once, here ([`V03`]); how each reaches the agent is its
//! [`Carrier`]'s: JSON-RPC 0.3 by method name (below), HTTP+JSON 0.3 by route
//! (`http_json_v03.rs`). The 0.3 JSON of the requests and answers is the same on both.

use std::marker::PhantomData;

use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, v03,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Binding, Reply};
use crate::connection::to_json;
use crate::transport::EventStream;
use crate::transport::jsonrpc::Tolerate;
use crate::{AgentConnection, Error};

/// How a 0.3 operation (named by its JSON-RPC method) reaches the agent, with its 0.3 params.
pub(in crate::connection) trait Carrier: Send + Sync + 'static {
    /// The card's name for the binding (`"JSONRPC"`), for the client's metrics.
    #[cfg(feature = "otel")]
    const BINDING: &'static str;

    /// Where a 0.3 result is in the answer, for the paths of deviations: `result` for JSON-RPC.
    const RESULT_PATH: &'static str;

    /// One call, retried on transport faults; its 0.3 result read as `W` (`what` names it in
    /// errors), rewritten by `tolerate` first when given.
    fn call<'a, P: Serialize + Sync, W: DeserializeOwned + Send + 'a>(
        conn: &'a AgentConnection,
        method: v03::Method,
        what: &'static str,
        params: Option<&'a P>,
        tolerate: Option<Tolerate<'a>>,
    ) -> Reply<'a, W>;

    /// One stream of 0.3 results, converted to 1.0 events as they come.
    fn stream(conn: &AgentConnection, method: v03::Method, params: Value) -> Reply<'_, EventStream>;
}

/// The 0.3 operations over the carrier `C`.
pub(in crate::connection) struct V03<C>(PhantomData<C>);

impl<C> V03<C> {
    /// The binding (a constant, so that a `&'static` one can be handed out).
    pub(in crate::connection) const BINDING: Self = Self(PhantomData);
}

/// A call whose 0.3 result is a task or a message. Under tolerant reading, the `kind` it left out is
/// put back when its members name the object alone, and recorded
/// ([`crate::transport::v03::missing_kind`]).
async fn kinded<C: Carrier, P: Serialize + Sync, W: DeserializeOwned + Send>(
    conn: &AgentConnection,
    method: v03::Method,
    what: &'static str,
    params: &P,
) -> Result<W, Error> {
    let deviations = &conn.inner.deviations;
    let tolerate = |value: &mut Value| {
        crate::transport::v03::missing_kind(Some(deviations), method.v1_name(), None, C::RESULT_PATH, value);
    };
    let tolerate: Option<Tolerate<'_>> = conn.tolerant().then_some(&tolerate);
    C::call(conn, method, what, Some(params), tolerate).await
}

/// JSON-RPC 0.3: the 0.3 method names.
pub(in crate::connection) struct ByMethod;

/// JSON-RPC 0.3.
pub(in crate::connection) type JsonRpcV03 = V03<ByMethod>;

impl Carrier for ByMethod {
    #[cfg(feature = "otel")]
    const BINDING: &'static str = "JSONRPC";
    const RESULT_PATH: &'static str = "result";

    fn call<'a, P: Serialize + Sync, W: DeserializeOwned + Send + 'a>(
        conn: &'a AgentConnection,
        method: v03::Method,
        what: &'static str,
        params: Option<&'a P>,
        tolerate: Option<Tolerate<'a>>,
    ) -> Reply<'a, W> {
        Box::pin(conn.rpc_v03(method, what, params, tolerate))
    }

    fn stream(conn: &AgentConnection, method: v03::Method, params: Value) -> Reply<'_, EventStream> {
        Box::pin(conn.stream_v03(method, params))
    }
}

impl<C: Carrier> Binding for V03<C> {
    #[cfg(feature = "otel")]
    fn label(&self) -> (&'static str, &'static str) {
        (C::BINDING, "0.3")
    }

    fn send_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, SendMessageResponse> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            const WHAT: &str = "message/send result";
            let params = losses.request("message/send", v03::MessageSendParams::from_v1(&req));
            let wire =
                kinded::<C, _, v03::SendMessageResult>(conn, v03::Method::MessageSend, WHAT, &params).await?;
            Ok(losses.result(WHAT, &wire, v03::SendMessageResult::to_v1))
        })
    }

    fn send_streaming_message<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SendMessageRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let params = conn.inner.losses.request("message/stream", v03::MessageSendParams::from_v1(&req));
            C::stream(conn, v03::Method::MessageStream, to_json(&params)?).await
        })
    }

    fn get_task<'a>(&self, conn: &'a AgentConnection, req: GetTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            const WHAT: &str = "tasks/get result";
            let params = losses.request("tasks/get", v03::TaskQueryParams::from_v1(&req));
            let wire = kinded::<C, _, v03::Task>(conn, v03::Method::TasksGet, WHAT, &params).await?;
            Ok(losses.result(WHAT, &wire, v03::Task::to_v1))
        })
    }

    fn list_tasks<'a>(&self, _: &'a AgentConnection, _: ListTasksRequest) -> Reply<'a, ListTasksResponse> {
        Box::pin(async move { Err(not_in_v03("ListTasks")) })
    }

    fn cancel_task<'a>(&self, conn: &'a AgentConnection, req: CancelTaskRequest) -> Reply<'a, Task> {
        Box::pin(async move {
            let losses = &conn.inner.losses;
            const WHAT: &str = "tasks/cancel result";
            let params = losses.request("tasks/cancel", v03::TaskIdParams::from_v1(&req));
            let wire = kinded::<C, _, v03::Task>(conn, v03::Method::TasksCancel, WHAT, &params).await?;
            Ok(losses.result(WHAT, &wire, v03::Task::to_v1))
        })
    }

    fn subscribe_to_task<'a>(
        &self,
        conn: &'a AgentConnection,
        req: SubscribeToTaskRequest,
    ) -> Reply<'a, EventStream> {
        Box::pin(async move {
            let params = to_json(&v03::TaskIdParams { id: req.id, metadata: None })?;
            C::stream(conn, v03::Method::TasksResubscribe, params).await
        })
    }

    fn get_extended_agent_card<'a>(
        &self,
        conn: &'a AgentConnection,
        _: GetExtendedAgentCardRequest,
    ) -> Reply<'a, Value> {
        const WHAT: &str = "agent/getAuthenticatedExtendedCard result";
        Box::pin(async move {
            C::call(conn, v03::Method::GetAuthenticatedExtendedCard, WHAT, None::<&Value>, None).await
        })
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
            let params = losses.request(operation, v03::TaskPushNotificationConfig::from_v1(&cfg));
            let method = v03::Method::PushNotificationConfigSet;
            let wire: v03::TaskPushNotificationConfig =
                C::call(conn, method, WHAT, Some(&params), None).await?;
            Ok(losses.result(WHAT, &wire, v03::TaskPushNotificationConfig::to_v1))
        })
    }

    fn get_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Reply<'a, TaskPushNotificationConfig> {
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        Box::pin(async move {
            let params = v03::GetTaskPushNotificationConfigParams {
                id: req.task_id,
                push_notification_config_id: Some(req.id).filter(|id| !id.is_empty()),
                metadata: None,
            };
            let method = v03::Method::PushNotificationConfigGet;
            let wire: v03::TaskPushNotificationConfig =
                C::call(conn, method, WHAT, Some(&params), None).await?;
            Ok(conn.inner.losses.result(WHAT, &wire, v03::TaskPushNotificationConfig::to_v1))
        })
    }

    fn list_task_push_notification_configs<'a>(
        &self,
        conn: &'a AgentConnection,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Reply<'a, ListTaskPushNotificationConfigsResponse> {
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        Box::pin(async move {
            let params = v03::ListTaskPushNotificationConfigParams { id: req.task_id, metadata: None };
            let method = v03::Method::PushNotificationConfigList;
            let wire: Vec<v03::TaskPushNotificationConfig> =
                C::call(conn, method, WHAT, Some(&params), None).await?;
            let configs = conn.inner.losses.result(WHAT, &wire, crate::transport::v03::configs_to_v1);
            Ok(ListTaskPushNotificationConfigsResponse { configs, next_page_token: None })
        })
    }

    fn delete_task_push_notification_config<'a>(
        &self,
        conn: &'a AgentConnection,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Reply<'a, ()> {
        Box::pin(async move {
            const WHAT: &str = "tasks/pushNotificationConfig/delete result";
            let params = v03::DeleteTaskPushNotificationConfigParams {
                id: req.task_id,
                push_notification_config_id: req.id,
                metadata: None,
            };
            let method = v03::Method::PushNotificationConfigDelete;
            let _: Value = C::call(conn, method, WHAT, Some(&params), None).await?;
            Ok(())
        })
    }
}

fn not_in_v03(operation: &str) -> Error {
    Error::misuse(format!("{operation} does not exist in protocol 0.3, which this agent speaks"))
}
