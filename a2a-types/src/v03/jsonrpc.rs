//! The 0.3 JSON-RPC method names and their 1.0 counterparts.

use std::fmt;

/// A 0.3 JSON-RPC method.
///
/// ```
/// use a2a_types::v03::Method;
///
/// assert_eq!(Method::from_name("tasks/resubscribe"), Some(Method::TasksResubscribe));
/// assert_eq!(Method::TasksResubscribe.v1_name(), "SubscribeToTask");
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

    /// The 1.0 method that replaced this one, such as `SendMessage`.
    pub fn v1_name(self) -> &'static str {
        match self {
            Self::MessageSend => "SendMessage",
            Self::MessageStream => "SendStreamingMessage",
            Self::TasksGet => "GetTask",
            Self::TasksCancel => "CancelTask",
            Self::TasksResubscribe => "SubscribeToTask",
            Self::PushNotificationConfigSet => "CreateTaskPushNotificationConfig",
            Self::PushNotificationConfigGet => "GetTaskPushNotificationConfig",
            Self::PushNotificationConfigList => "ListTaskPushNotificationConfigs",
            Self::PushNotificationConfigDelete => "DeleteTaskPushNotificationConfig",
            Self::GetAuthenticatedExtendedCard => "GetExtendedAgentCard",
        }
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
