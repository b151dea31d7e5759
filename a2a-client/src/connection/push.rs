//! The push-notification config operations of [`AgentConnection`]: create, get, list, delete.

use a2a_typestate_types::{
    DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig,
};

use crate::{AgentConnection, Error};

impl AgentConnection {
    /// Registers a webhook for a task (`CreateTaskPushNotificationConfig`; 0.3
    /// `tasks/pushNotificationConfig/set`); returns the config as the agent stored it.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; -32003 when the agent does not support push.
    pub async fn create_task_push_notification_config(
        &self,
        mut cfg: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, Error> {
        self.tenant(&mut cfg.tenant);
        self.check_push_url(Some(&cfg))?;
        self.check_required_extensions()?;
        self.measured(
            a2a_typestate_types::jsonrpc::Method::CreateTaskPushNotificationConfig,
            self.binding().create_task_push_notification_config(self, cfg),
        )
        .await
    }

    /// One webhook registration of a task.
    ///
    /// # Errors
    /// As [`AgentConnection::create_task_push_notification_config`].
    pub async fn get_task_push_notification_config(
        &self,
        mut req: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.measured(
            a2a_typestate_types::jsonrpc::Method::GetTaskPushNotificationConfig,
            self.binding().get_task_push_notification_config(self, req),
        )
        .await
    }

    /// Every webhook registration of a task.
    ///
    /// # Errors
    /// As [`AgentConnection::create_task_push_notification_config`].
    pub async fn list_task_push_notification_configs(
        &self,
        mut req: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.measured(
            a2a_typestate_types::jsonrpc::Method::ListTaskPushNotificationConfigs,
            self.binding().list_task_push_notification_configs(self, req),
        )
        .await
    }

    /// Removes a webhook registration (idempotent on the agent's side).
    ///
    /// # Errors
    /// As [`AgentConnection::create_task_push_notification_config`].
    pub async fn delete_task_push_notification_config(
        &self,
        mut req: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.measured(
            a2a_typestate_types::jsonrpc::Method::DeleteTaskPushNotificationConfig,
            self.binding().delete_task_push_notification_config(self, req),
        )
        .await
    }
}
