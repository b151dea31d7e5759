//! Push notification configuration: where an agent POSTs task updates, and with which credentials.
//!
//! ```
//! use a2a_typestate_types::TaskPushNotificationConfig;
//!
//! let config = TaskPushNotificationConfig::new("https://client.example/hook").with_bearer("s3cret");
//! let json = serde_json::to_string(&config).unwrap();
//! assert_eq!(json, r#"{"url":"https://client.example/hook","authentication":{"scheme":"Bearer","credentials":"s3cret"}}"#);
//! // Debug output never shows the secret.
//! assert!(!format!("{config:?}").contains("s3cret"));
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::TaskId;
use crate::v1::message::wire;

/// A webhook registration for one task (`lf.a2a.v1.TaskPushNotificationConfig`).
///
/// In 1.0 this one object is the `CreateTaskPushNotificationConfig` request, its response, and the
/// `configuration.taskPushNotificationConfig` of `SendMessage` (with `taskId` left empty there).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskPushNotificationConfig {
    /// The tenant, for agents that host several.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The config's id; a2a-sdk defaults it to the task id.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The task to report on; empty inside `SendMessage`, where the task does not exist yet.
    #[serde(
        alias = "task_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_id: Option<TaskId>,
    /// The webhook the agent POSTs `StreamResponse` bodies to.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// An opaque token the client can use to check a notification belongs to this config.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Credentials the agent must send in `Authorization` when calling the webhook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

impl TaskPushNotificationConfig {
    /// A config for the given webhook URL, nothing else set.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), ..Self::default() }
    }

    /// Sets the task to report on.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<TaskId>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }

    /// Sets the config id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets the opaque token.
    #[must_use]
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Asks the agent to send `Authorization: Bearer <credentials>`.
    #[must_use]
    pub fn with_bearer(mut self, credentials: impl Into<String>) -> Self {
        self.authentication = Some(AuthenticationInfo::bearer(credentials));
        self
    }
}

impl fmt::Debug for TaskPushNotificationConfig {
    // The token is a secret: logs show whether it is set, never its value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPushNotificationConfig")
            .field("tenant", &self.tenant)
            .field("id", &self.id)
            .field("task_id", &self.task_id)
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("authentication", &self.authentication)
            .finish()
    }
}

/// How the agent authenticates to the webhook (`lf.a2a.v1.AuthenticationInfo`).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthenticationInfo {
    /// An IANA HTTP authentication scheme such as `Bearer` or `Basic` (case-insensitive).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub scheme: String,
    /// The credentials to send with the scheme.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

impl AuthenticationInfo {
    /// `Bearer` with the given credentials.
    pub fn bearer(credentials: impl Into<String>) -> Self {
        Self { scheme: "Bearer".to_owned(), credentials: Some(credentials.into()) }
    }

    /// The `Authorization` header value the agent should send: `<scheme> <credentials>`.
    pub fn authorization_header(&self) -> String {
        match &self.credentials {
            Some(credentials) => format!("{} {credentials}", self.scheme),
            None => self.scheme.clone(),
        }
    }
}

impl fmt::Debug for AuthenticationInfo {
    // Credentials are secrets: logs show whether they are set, never their value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthenticationInfo")
            .field("scheme", &self.scheme)
            .field("credentials", &self.credentials.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}
