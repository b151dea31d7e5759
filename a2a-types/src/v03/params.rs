//! The params of the 0.3 JSON-RPC methods.

use serde::{Deserialize, Serialize};

use super::message::Message;
use super::push::PushNotificationConfig;
use crate::Metadata;
use crate::ids::TaskId;

/// The params of `message/send` and `message/stream`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    /// The message to send.
    pub message: Message,
    /// How the agent should answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// How a 0.3 agent should answer `message/send`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    /// The output media types the client accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted_output_modes: Vec<String>,
    /// `Some(false)`: answer at once with the task; otherwise wait for a terminal or interrupted state.
    /// 1.0 inverts it as `returnImmediately`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
    /// How many of the latest history messages to return; unset means the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Where to POST updates of the task this message starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
}

/// The params of `tasks/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskQueryParams {
    /// The task.
    pub id: TaskId,
    /// How many of the latest history messages to return; unset means the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/cancel`, `tasks/resubscribe` (and the id-only form of the push config get).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskIdParams {
    /// The task.
    pub id: TaskId,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/pushNotificationConfig/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GetTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// Which of the task's configs; unset means the one whose id is the task id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/pushNotificationConfig/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/pushNotificationConfig/delete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeleteTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// Which of the task's configs.
    pub push_notification_config_id: String,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}
