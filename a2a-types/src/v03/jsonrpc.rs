//! The 0.3 JSON-RPC method names and their 1.0 counterparts.

use std::fmt;

use crate::jsonrpc::{self, JsonRpcId, JsonRpcRequest, Version2};

/// A 0.3 JSON-RPC method.
///
/// ```
/// use a2a_typestate_types::v03::Method;
///
/// assert_eq!(Method::from_name("tasks/resubscribe"), Some(Method::TasksResubscribe));
/// assert_eq!(Method::TasksResubscribe.v1_name(), "SubscribeToTask");
///
/// let request = Method::TasksGet.request(7, a2a_typestate_types::v03::TaskQueryParams {
///     id: "t1".into(),
///     history_length: None,
///     metadata: None,
/// });
/// assert_eq!(
///     serde_json::to_string(&request).unwrap(),
///     r#"{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t1"}}"#
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `message/send`, params [`MessageSendParams`](super::MessageSendParams).
    MessageSend,
    /// `message/stream`, params [`MessageSendParams`](super::MessageSendParams); answered with SSE.
    MessageStream,
    /// `tasks/get`, params [`TaskQueryParams`](super::TaskQueryParams).
    TasksGet,
    /// `tasks/cancel`, params [`TaskIdParams`](super::TaskIdParams).
    TasksCancel,
    /// `tasks/resubscribe`, params [`TaskIdParams`](super::TaskIdParams); answered with SSE.
    TasksResubscribe,
    /// `tasks/pushNotificationConfig/set`, params
    /// [`TaskPushNotificationConfig`](super::TaskPushNotificationConfig).
    PushNotificationConfigSet,
    /// `tasks/pushNotificationConfig/get`, params
    /// [`GetTaskPushNotificationConfigParams`](super::GetTaskPushNotificationConfigParams).
    PushNotificationConfigGet,
    /// `tasks/pushNotificationConfig/list`, params
    /// [`ListTaskPushNotificationConfigParams`](super::ListTaskPushNotificationConfigParams).
    PushNotificationConfigList,
    /// `tasks/pushNotificationConfig/delete`, params
    /// [`DeleteTaskPushNotificationConfigParams`](super::DeleteTaskPushNotificationConfigParams).
    PushNotificationConfigDelete,
    /// `agent/getAuthenticatedExtendedCard`, no params.
    GetAuthenticatedExtendedCard,
}

impl Method {
    /// Every 0.3 method, in the order of the 0.3 specification.
    pub const ALL: [Self; 10] = [
        Self::MessageSend,
        Self::MessageStream,
        Self::TasksGet,
        Self::TasksCancel,
        Self::TasksResubscribe,
        Self::PushNotificationConfigSet,
        Self::PushNotificationConfigGet,
        Self::PushNotificationConfigList,
        Self::PushNotificationConfigDelete,
        Self::GetAuthenticatedExtendedCard,
    ];

    /// The 0.3 wire name, such as `message/send`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MessageSend => "message/send",
            Self::MessageStream => "message/stream",
            Self::TasksGet => "tasks/get",
            Self::TasksCancel => "tasks/cancel",
            Self::TasksResubscribe => "tasks/resubscribe",
            Self::PushNotificationConfigSet => "tasks/pushNotificationConfig/set",
            Self::PushNotificationConfigGet => "tasks/pushNotificationConfig/get",
            Self::PushNotificationConfigList => "tasks/pushNotificationConfig/list",
            Self::PushNotificationConfigDelete => "tasks/pushNotificationConfig/delete",
            Self::GetAuthenticatedExtendedCard => "agent/getAuthenticatedExtendedCard",
        }
    }

    /// The 1.0 method that replaced this one.
    pub fn to_v1(self) -> jsonrpc::Method {
        use jsonrpc::Method as V1;
        match self {
            Self::MessageSend => V1::SendMessage,
            Self::MessageStream => V1::SendStreamingMessage,
            Self::TasksGet => V1::GetTask,
            Self::TasksCancel => V1::CancelTask,
            Self::TasksResubscribe => V1::SubscribeToTask,
            Self::PushNotificationConfigSet => V1::CreateTaskPushNotificationConfig,
            Self::PushNotificationConfigGet => V1::GetTaskPushNotificationConfig,
            Self::PushNotificationConfigList => V1::ListTaskPushNotificationConfigs,
            Self::PushNotificationConfigDelete => V1::DeleteTaskPushNotificationConfig,
            Self::GetAuthenticatedExtendedCard => V1::GetExtendedAgentCard,
        }
    }

    /// The 0.3 method a 1.0 method replaced; `None` for `ListTasks`, new in 1.0.
    pub fn from_v1(method: jsonrpc::Method) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.to_v1() == method)
    }

    /// The name of the 1.0 method that replaced this one, such as `SendMessage`.
    pub fn v1_name(self) -> &'static str {
        self.to_v1().as_str()
    }

    /// The 0.3 method with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The 0.3 method that a 1.0 method name replaced; `None` for `ListTasks` (new in 1.0) and
    /// unknown names.
    pub fn from_v1_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.v1_name() == name)
    }

    /// A 0.3 JSON-RPC request for this method (send it without an `A2A-Version` header, which a 1.0
    /// server reads as 0.3).
    pub fn request<P>(self, id: impl Into<JsonRpcId>, params: P) -> JsonRpcRequest<P> {
        JsonRpcRequest {
            jsonrpc: Version2,
            id: Some(id.into()),
            method: self.as_str().to_owned(),
            params: Some(params),
        }
    }

    /// A 0.3 JSON-RPC request with no `params` member (`agent/getAuthenticatedExtendedCard`).
    pub fn request_without_params(self, id: impl Into<JsonRpcId>) -> JsonRpcRequest<()> {
        JsonRpcRequest {
            jsonrpc: Version2,
            id: Some(id.into()),
            method: self.as_str().to_owned(),
            params: None,
        }
    }

    /// `true` for the methods answered with a stream of events.
    pub fn is_streaming(self) -> bool {
        matches!(self, Self::MessageStream | Self::TasksResubscribe)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
