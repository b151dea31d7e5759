//! The push-notification config operations of [`AgentConnection`]: create, get, list, delete.

use a2a_typestate_types::jsonrpc::Method;
use a2a_typestate_types::{
    DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, TaskId,
    TaskPushNotificationConfig, v03,
};

use super::{get, post, to_json};
use crate::transport::rest::Call;
use crate::transport::{Wire, jsonrpc, rest};
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
        const WHAT: &str = "CreateTaskPushNotificationConfig result";
        match self.wire() {
            Wire::JsonRpc => self.rpc(Method::CreateTaskPushNotificationConfig, WHAT, &cfg).await,
            #[cfg(feature = "grpc")]
            Wire::Grpc => self.grpc(Method::CreateTaskPushNotificationConfig, WHAT, &cfg).await,
            Wire::HttpJson => {
                let Some(task_id) = cfg.task_id.as_ref() else {
                    return Err(Error::misuse("a push notification config needs the taskId it is for"));
                };
                let segments = push_segments(task_id, None);
                self.rest(WHAT, post(segments, &cfg, &[])?).await
            }
            Wire::JsonRpcV03 => {
                let losses = &self.inner.losses;
                let operation = "tasks/pushNotificationConfig/set";
                let params = losses.request(operation, v03::TaskPushNotificationConfig::from_v1(&cfg))?;
                let value = self.rpc_v03(v03::Method::PushNotificationConfigSet, Some(params)).await?;
                losses.result(WHAT, value, v03::TaskPushNotificationConfig::to_v1)
            }
        }
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
        const WHAT: &str = "GetTaskPushNotificationConfig result";
        match self.wire() {
            Wire::JsonRpc => self.rpc(Method::GetTaskPushNotificationConfig, WHAT, &req).await,
            #[cfg(feature = "grpc")]
            Wire::Grpc => self.grpc(Method::GetTaskPushNotificationConfig, WHAT, &req).await,
            Wire::HttpJson => {
                let segments = push_segments(&req.task_id, Some(&req.id));
                self.rest(WHAT, get(segments, &req, &["taskId", "id"])?).await
            }
            Wire::JsonRpcV03 => {
                let params = to_json(&v03::GetTaskPushNotificationConfigParams {
                    id: req.task_id,
                    push_notification_config_id: Some(req.id).filter(|id| !id.is_empty()),
                    metadata: None,
                })?;
                let value = self.rpc_v03(v03::Method::PushNotificationConfigGet, Some(params)).await?;
                self.inner.losses.result(WHAT, value, v03::TaskPushNotificationConfig::to_v1)
            }
        }
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
        const WHAT: &str = "ListTaskPushNotificationConfigs result";
        match self.wire() {
            Wire::JsonRpc => self.rpc(Method::ListTaskPushNotificationConfigs, WHAT, &req).await,
            #[cfg(feature = "grpc")]
            Wire::Grpc => self.grpc(Method::ListTaskPushNotificationConfigs, WHAT, &req).await,
            Wire::HttpJson => {
                let segments = push_segments(&req.task_id, None);
                self.rest(WHAT, get(segments, &req, &["taskId"])?).await
            }
            Wire::JsonRpcV03 => {
                let params =
                    to_json(&v03::ListTaskPushNotificationConfigParams { id: req.task_id, metadata: None })?;
                let value = self.rpc_v03(v03::Method::PushNotificationConfigList, Some(params)).await?;
                let configs = self.inner.losses.result(
                    WHAT,
                    value,
                    |list: &Vec<v03::TaskPushNotificationConfig>| {
                        let mut losses = Vec::new();
                        let mut value = Vec::with_capacity(list.len());
                        for config in list {
                            let converted = config.to_v1();
                            losses.extend(converted.losses);
                            value.push(converted.value);
                        }
                        v03::Converted { value, losses }
                    },
                )?;
                Ok(ListTaskPushNotificationConfigsResponse { configs, next_page_token: None })
            }
        }
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
        match self.wire() {
            Wire::JsonRpc => {
                let request =
                    jsonrpc::Request::new(Method::DeleteTaskPushNotificationConfig.as_str(), Some(&req))?;
                let endpoint = self.endpoint();
                endpoint
                    .retrying(|_| {
                        jsonrpc::call::<serde_json::Value>(
                            endpoint,
                            &request,
                            "DeleteTaskPushNotificationConfig result",
                            None,
                        )
                    })
                    .await?;
            }
            Wire::HttpJson => {
                let call = Call {
                    verb: http::Method::DELETE,
                    segments: push_segments(&req.task_id, Some(&req.id)),
                    message: Some(to_json(&req)?),
                    path_fields: &["taskId", "id"],
                };
                let call = call.prepare(self.endpoint())?;
                self.endpoint().retrying(|_| rest::call(self.endpoint(), &call)).await?;
            }
            #[cfg(feature = "grpc")]
            Wire::Grpc => {
                self.grpc_value(Method::DeleteTaskPushNotificationConfig, &req).await?;
            }
            Wire::JsonRpcV03 => {
                let params = to_json(&v03::DeleteTaskPushNotificationConfigParams {
                    id: req.task_id,
                    push_notification_config_id: req.id,
                    metadata: None,
                })?;
                self.rpc_v03(v03::Method::PushNotificationConfigDelete, Some(params)).await?;
            }
        }
        Ok(())
    }
}

fn push_segments(task_id: &TaskId, id: Option<&str>) -> Vec<String> {
    let mut segments =
        vec!["tasks".to_owned(), task_id.as_str().to_owned(), "pushNotificationConfigs".to_owned()];
    segments.extend(id.map(str::to_owned));
    segments
}
