//! 0.3 push notification configs.

use serde::{Deserialize, Serialize};

use crate::ids::TaskId;

/// Where and how a 0.3 agent should POST task updates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PushNotificationConfig {
    /// The webhook URL.
    pub url: String,
    /// The config's id (the agent may default it to the task id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A token the agent sends back so the receiver can check the POST belongs to this task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// How a 0.3 agent authenticates its webhook POSTs: a list of schemes (1.0 keeps one).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PushNotificationAuthenticationInfo {
    /// Scheme names such as `Bearer`.
    pub schemes: Vec<String>,
    /// The credentials to send; never printed by `Debug`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

impl std::fmt::Debug for PushNotificationAuthenticationInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushNotificationAuthenticationInfo")
            .field("schemes", &self.schemes)
            .field("credentials", &self.credentials.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// A push config bound to a task: the params of `tasks/pushNotificationConfig/set` and the result of
/// its get, set and list methods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskPushNotificationConfig {
    /// The task.
    pub task_id: TaskId,
    /// The config.
    pub push_notification_config: PushNotificationConfig,
}
