//! Push notification configs and request params.

use super::task::{message_from_v1, message_to_v1};
use super::{Losses, at, conversions};
use crate::ids::TaskId;
use crate::v1;
use crate::v03::{
    MessageSendConfiguration, MessageSendParams, PushNotificationAuthenticationInfo, PushNotificationConfig,
    TaskIdParams, TaskPushNotificationConfig, TaskQueryParams,
};

conversions!(PushNotificationConfig, v1::TaskPushNotificationConfig, config_to_v1, config_from_v1);
conversions!(
    TaskPushNotificationConfig,
    v1::TaskPushNotificationConfig,
    task_config_to_v1,
    task_config_from_v1
);
conversions!(MessageSendParams, v1::SendMessageRequest, send_params_to_v1, send_params_from_v1);
conversions!(
    MessageSendConfiguration,
    v1::SendMessageConfiguration,
    send_configuration_to_v1,
    send_configuration_from_v1
);
conversions!(TaskQueryParams, v1::GetTaskRequest, query_to_v1, query_from_v1);
conversions!(TaskIdParams, v1::CancelTaskRequest, id_params_to_v1, id_params_from_v1);

fn tenant_lost(tenant: Option<&String>, path: &str, losses: &mut Losses) {
    if let Some(tenant) = tenant {
        losses.lose(at(path, "tenant"), format!("tenant {tenant:?} has no 0.3 form"));
    }
}

fn authentication_to_v1(
    auth: &PushNotificationAuthenticationInfo,
    path: &str,
    losses: &mut Losses,
) -> Option<v1::AuthenticationInfo> {
    let Some((scheme, rest)) = auth.schemes.split_first() else {
        losses.lose(
            at(path, "schemes"),
            "empty; 1.0 authentication needs exactly one scheme, so the authentication (and its \
             credentials) is left out",
        );
        return None;
    };
    if !rest.is_empty() {
        losses.lose(
            at(path, "schemes"),
            format!("1.0 holds one scheme; {scheme:?} is kept, {rest:?} are left out"),
        );
    }
    Some(v1::AuthenticationInfo { scheme: scheme.clone(), credentials: auth.credentials.clone() })
}

pub(super) fn config_to_v1(
    c: &PushNotificationConfig,
    path: &str,
    losses: &mut Losses,
) -> v1::TaskPushNotificationConfig {
    v1::TaskPushNotificationConfig {
        tenant: None,
        id: c.id.clone(),
        task_id: None,
        url: c.url.clone(),
        token: c.token.clone(),
        authentication: c
            .authentication
            .as_ref()
            .and_then(|a| authentication_to_v1(a, &at(path, "authentication"), losses)),
    }
}

/// The config part of a 1.0 config; its `taskId` is the caller's to handle.
fn config_body_from_v1(
    c: &v1::TaskPushNotificationConfig,
    path: &str,
    losses: &mut Losses,
) -> PushNotificationConfig {
    tenant_lost(c.tenant.as_ref(), path, losses);
    PushNotificationConfig {
        url: c.url.clone(),
        id: c.id.clone(),
        token: c.token.clone(),
        authentication: c.authentication.as_ref().map(|a| PushNotificationAuthenticationInfo {
            schemes: vec![a.scheme.clone()],
            credentials: a.credentials.clone(),
        }),
    }
}

pub(super) fn config_from_v1(
    c: &v1::TaskPushNotificationConfig,
    path: &str,
    losses: &mut Losses,
) -> PushNotificationConfig {
    if let Some(task_id) = &c.task_id {
        losses.lose(
            at(path, "taskId"),
            format!("task {task_id:?} has no place in a bare 0.3 PushNotificationConfig; use TaskPushNotificationConfig"),
        );
    }
    config_body_from_v1(c, path, losses)
}

pub(super) fn task_config_to_v1(
    c: &TaskPushNotificationConfig,
    path: &str,
    losses: &mut Losses,
) -> v1::TaskPushNotificationConfig {
    let mut config = config_to_v1(&c.push_notification_config, &at(path, "pushNotificationConfig"), losses);
    config.task_id = Some(c.task_id.clone());
    config
}

pub(super) fn task_config_from_v1(
    c: &v1::TaskPushNotificationConfig,
    path: &str,
    losses: &mut Losses,
) -> TaskPushNotificationConfig {
    let task_id = c.task_id.clone().unwrap_or_else(|| {
        losses.lose(at(path, "taskId"), "absent, but required in 0.3; written as \"\"");
        TaskId::default()
    });
    TaskPushNotificationConfig { task_id, push_notification_config: config_body_from_v1(c, path, losses) }
}

pub(super) fn send_configuration_to_v1(
    c: &MessageSendConfiguration,
    path: &str,
    losses: &mut Losses,
) -> v1::SendMessageConfiguration {
    v1::SendMessageConfiguration {
        accepted_output_modes: c.accepted_output_modes.clone(),
        task_push_notification_config: c
            .push_notification_config
            .as_ref()
            .map(|p| config_to_v1(p, &at(path, "pushNotificationConfig"), losses)),
        history_length: c.history_length,
        return_immediately: c.blocking == Some(false),
    }
}

pub(super) fn send_configuration_from_v1(
    c: &v1::SendMessageConfiguration,
    path: &str,
    losses: &mut Losses,
) -> MessageSendConfiguration {
    MessageSendConfiguration {
        accepted_output_modes: c.accepted_output_modes.clone(),
        blocking: c.return_immediately.then_some(false),
        history_length: c.history_length,
        push_notification_config: c
            .task_push_notification_config
            .as_ref()
            .map(|p| config_from_v1(p, &at(path, "taskPushNotificationConfig"), losses)),
    }
}

pub(super) fn send_params_to_v1(
    p: &MessageSendParams,
    path: &str,
    losses: &mut Losses,
) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        tenant: None,
        message: message_to_v1(&p.message, &at(path, "message"), losses),
        configuration: p
            .configuration
            .as_ref()
            .map(|c| send_configuration_to_v1(c, &at(path, "configuration"), losses)),
        metadata: p.metadata.clone(),
    }
}

pub(super) fn send_params_from_v1(
    r: &v1::SendMessageRequest,
    path: &str,
    losses: &mut Losses,
) -> MessageSendParams {
    tenant_lost(r.tenant.as_ref(), path, losses);
    MessageSendParams {
        message: message_from_v1(&r.message, &at(path, "message"), losses),
        configuration: r
            .configuration
            .as_ref()
            .map(|c| send_configuration_from_v1(c, &at(path, "configuration"), losses)),
        metadata: r.metadata.clone(),
    }
}

pub(super) fn query_to_v1(q: &TaskQueryParams, path: &str, losses: &mut Losses) -> v1::GetTaskRequest {
    if q.metadata.is_some() {
        losses.lose(at(path, "metadata"), "1.0 GetTaskRequest has no metadata");
    }
    v1::GetTaskRequest { tenant: None, id: q.id.clone(), history_length: q.history_length }
}

pub(super) fn query_from_v1(r: &v1::GetTaskRequest, path: &str, losses: &mut Losses) -> TaskQueryParams {
    tenant_lost(r.tenant.as_ref(), path, losses);
    TaskQueryParams { id: r.id.clone(), history_length: r.history_length, metadata: None }
}

pub(super) fn id_params_to_v1(p: &TaskIdParams, _path: &str, _losses: &mut Losses) -> v1::CancelTaskRequest {
    v1::CancelTaskRequest { tenant: None, id: p.id.clone(), metadata: p.metadata.clone() }
}

pub(super) fn id_params_from_v1(r: &v1::CancelTaskRequest, path: &str, losses: &mut Losses) -> TaskIdParams {
    tenant_lost(r.tenant.as_ref(), path, losses);
    TaskIdParams { id: r.id.clone(), metadata: r.metadata.clone() }
}

impl TaskIdParams {
    /// The 1.0 `SubscribeToTask` request for `tasks/resubscribe`; `losses` names `metadata`, which
    /// that request cannot carry.
    pub fn to_v1_subscribe(&self) -> super::Converted<v1::SubscribeToTaskRequest> {
        let mut losses = Losses::default();
        if self.metadata.is_some() {
            losses.lose("metadata".to_owned(), "1.0 SubscribeToTaskRequest has no metadata");
        }
        losses.finish(v1::SubscribeToTaskRequest { tenant: None, id: self.id.clone() })
    }
}
