//! The request and response messages of the A2A 1.0 operations (the `params` and `result` of
//! JSON-RPC, the bodies and query parameters of HTTP+JSON).
//!
//! ```
//! use a2a_typestate_types::{Message, SendMessageConfiguration, SendMessageRequest};
//!
//! let request = SendMessageRequest::new(Message::user("hi").with_message_id("m1"))
//!     .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() });
//! assert_eq!(
//!     serde_json::to_string(&request).unwrap(),
//!     r#"{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true}}"#
//! );
//! ```

use serde::{Deserialize, Serialize};

use crate::Metadata;
use crate::ids::{ContextId, TaskId};
use crate::protojson::is_default;
use crate::v1::enums::TaskState;
use crate::v1::message::{Message, wire};
use crate::v1::push::TaskPushNotificationConfig;
use crate::v1::task::Task;

/// `SendMessage` and `SendStreamingMessage` parameters (`lf.a2a.v1.SendMessageRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SendMessageRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The message to send.
    pub message: Message,
    /// How the agent should answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl SendMessageRequest {
    /// A request carrying `message` with no configuration.
    pub fn new(message: Message) -> Self {
        Self { message, ..Self::default() }
    }

    /// Sets the configuration.
    #[must_use]
    pub fn with_configuration(mut self, configuration: SendMessageConfiguration) -> Self {
        self.configuration = Some(configuration);
        self
    }
}

/// How the agent should answer a message (`lf.a2a.v1.SendMessageConfiguration`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SendMessageConfiguration {
    /// Media types the client can take as output; empty means any.
    #[serde(alias = "accepted_output_modes", skip_serializing_if = "Vec::is_empty")]
    pub accepted_output_modes: Vec<String>,
    /// A webhook to register for the task this message creates.
    #[serde(alias = "task_push_notification_config", skip_serializing_if = "Option::is_none")]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// At most this many history messages in the answer; unset means the server's default, 0 none.
    #[serde(
        alias = "history_length",
        deserialize_with = "wire::int32_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// `true`: answer at once with the task in progress instead of waiting for a terminal or
    /// interrupted state (the default blocks; 0.3 called this the inverse, `blocking`).
    #[serde(alias = "return_immediately", skip_serializing_if = "is_default")]
    pub return_immediately: bool,
}

/// `GetTask` parameters (`lf.a2a.v1.GetTaskRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GetTaskRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task to fetch.
    #[serde(skip_serializing_if = "is_default")]
    pub id: TaskId,
    /// At most this many history messages; unset means the server's default, 0 none.
    #[serde(
        alias = "history_length",
        deserialize_with = "wire::int32_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
}

impl GetTaskRequest {
    /// Fetches the task with the server's default history.
    pub fn new(id: impl Into<TaskId>) -> Self {
        Self { id: id.into(), ..Self::default() }
    }
}

/// `ListTasks` parameters (`lf.a2a.v1.ListTasksRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListTasksRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Only tasks of this conversation.
    #[serde(
        alias = "context_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<ContextId>,
    /// Only tasks in this state; `Unspecified` means any.
    #[serde(skip_serializing_if = "is_default")]
    pub status: TaskState,
    /// Page size (server default 50, allowed 1 to 100).
    #[serde(
        alias = "page_size",
        deserialize_with = "wire::int32_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_size: Option<i32>,
    /// The `nextPageToken` of the previous page.
    #[serde(
        alias = "page_token",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_token: Option<String>,
    /// At most this many history messages per task.
    #[serde(
        alias = "history_length",
        deserialize_with = "wire::int32_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Only tasks whose status changed after this RFC 3339 timestamp.
    #[serde(
        alias = "status_timestamp_after",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_timestamp_after: Option<String>,
    /// `true`: include each task's artifacts (left out by default).
    #[serde(alias = "include_artifacts", skip_serializing_if = "Option::is_none")]
    pub include_artifacts: Option<bool>,
}

/// `ListTasks` result (`lf.a2a.v1.ListTasksResponse`).
///
/// All four fields are REQUIRED by the spec, so all four are always written, `nextPageToken` as `""`
/// on the last page; a missing token reads as `""`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListTasksResponse {
    /// This page of tasks, newest status first.
    pub tasks: Vec<Task>,
    /// The token for the next page; `""` on the last page.
    #[serde(alias = "next_page_token")]
    pub next_page_token: String,
    /// The page size used.
    #[serde(alias = "page_size", deserialize_with = "wire::int32")]
    pub page_size: i32,
    /// The number of tasks matching the filter, over all pages.
    #[serde(alias = "total_size", deserialize_with = "wire::int32")]
    pub total_size: i32,
}

/// `CancelTask` parameters (`lf.a2a.v1.CancelTaskRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelTaskRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task to cancel.
    #[serde(skip_serializing_if = "is_default")]
    pub id: TaskId,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `SubscribeToTask` parameters (`lf.a2a.v1.SubscribeToTaskRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SubscribeToTaskRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task to follow.
    #[serde(skip_serializing_if = "is_default")]
    pub id: TaskId,
}

/// `GetTaskPushNotificationConfig` parameters (`lf.a2a.v1.GetTaskPushNotificationConfigRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GetTaskPushNotificationConfigRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task the config belongs to.
    #[serde(alias = "task_id", skip_serializing_if = "is_default")]
    pub task_id: TaskId,
    /// The config id.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
}

/// `DeleteTaskPushNotificationConfig` parameters (`lf.a2a.v1.DeleteTaskPushNotificationConfigRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeleteTaskPushNotificationConfigRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task the config belongs to.
    #[serde(alias = "task_id", skip_serializing_if = "is_default")]
    pub task_id: TaskId,
    /// The config id.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
}

/// `ListTaskPushNotificationConfigs` parameters (`lf.a2a.v1.ListTaskPushNotificationConfigsRequest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListTaskPushNotificationConfigsRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task whose configs to list.
    #[serde(alias = "task_id", skip_serializing_if = "is_default")]
    pub task_id: TaskId,
    /// Page size; 0 means the server's default.
    #[serde(alias = "page_size", deserialize_with = "wire::int32", skip_serializing_if = "is_default")]
    pub page_size: i32,
    /// The `nextPageToken` of the previous page.
    #[serde(
        alias = "page_token",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_token: Option<String>,
}

/// `ListTaskPushNotificationConfigs` result (`lf.a2a.v1.ListTaskPushNotificationConfigsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListTaskPushNotificationConfigsResponse {
    /// The configs of the task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// The token for the next page; absent on the last page.
    #[serde(
        alias = "next_page_token",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub next_page_token: Option<String>,
}

/// `GetExtendedAgentCard` parameters (`lf.a2a.v1.GetExtendedAgentCardRequest`); JSON-RPC callers may
/// leave `params` out entirely.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GetExtendedAgentCardRequest {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}
