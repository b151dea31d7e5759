//! The four push-config operations (1.0 `...TaskPushNotificationConfig`, 0.3
//! `tasks/pushNotificationConfig/...`), refused with `-32003` when the agent has no push.

use serde_json::{Value, json};

use super::required_str;
use crate::script::{Protocol, PushBehaviour};
use crate::store::{PushConfig, Shared, TaskRecord, private_host};
use crate::wire::A2aError;

/// Stores `config` on the task, replacing a config with the same id.
pub(super) fn add_push_config(record: &mut TaskRecord, config: PushConfig) {
    record.push_configs.retain(|c| c.id != config.id);
    record.push_configs.push(config);
}

/// With [`Quirk::RejectsPrivateWebhookUrls`](crate::Quirk::RejectsPrivateWebhookUrls): `-32602` for
/// a webhook URL whose host is a loopback or private address (or `localhost`).
pub(super) fn guard_webhook_url(shared: &Shared, url: &str, at: &str) -> Result<(), A2aError> {
    if !shared.script.has_quirk(crate::Quirk::RejectsPrivateWebhookUrls) {
        return Ok(());
    }
    refuse_private(url, at)
}

/// As [`guard_webhook_url`], for a config sent inline, which
/// [`Quirk::NeverCallsPrivateWebhooks`](crate::Quirk::NeverCallsPrivateWebhooks) refuses too.
pub(super) fn guard_inline_webhook_url(shared: &Shared, url: &str, at: &str) -> Result<(), A2aError> {
    if shared.script.has_quirk(crate::Quirk::NeverCallsPrivateWebhooks) {
        return refuse_private(url, at);
    }
    guard_webhook_url(shared, url, at)
}

fn refuse_private(url: &str, at: &str) -> Result<(), A2aError> {
    match private_host(url) {
        Some(host) => Err(A2aError::invalid_params(format!(
            "{at}: webhook host {host} is a loopback or private address; this agent only calls public webhooks"
        ))),
        None => Ok(()),
    }
}

fn push_allowed(shared: &Shared) -> Result<(), A2aError> {
    match shared.behaviour.push {
        PushBehaviour::Unsupported | PushBehaviour::ConfigCallsUnsupported => {
            Err(A2aError::push_not_supported())
        }
        PushBehaviour::ConfigCallsUnsupportedOperation => {
            Err(A2aError::unsupported("This operation is not supported"))
        }
        _ => Ok(()),
    }
}

/// The task id and config id of a push-config request (1.0: `taskId` and `id`; 0.3: `id` and
/// `pushNotificationConfigId`).
fn push_ids<'a>(shared: &Shared, params: &'a Value) -> Result<(&'a str, Option<&'a str>), A2aError> {
    let (task_field, config_field) = match shared.protocol {
        Protocol::V1_0 => ("taskId", "id"),
        Protocol::V0_3 => ("id", "pushNotificationConfigId"),
    };
    let task_id = required_str(params, task_field)?;
    Ok((task_id, params.get(config_field).and_then(Value::as_str).filter(|s| !s.is_empty())))
}

pub(super) fn create_push_config(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    push_allowed(shared)?;
    let task_id = required_str(params, "taskId")?;
    let (raw, at) = match shared.protocol {
        Protocol::V1_0 => (params, "params"),
        Protocol::V0_3 => (
            params
                .get("pushNotificationConfig")
                .ok_or_else(|| A2aError::invalid_params("params.pushNotificationConfig is required"))?,
            "params.pushNotificationConfig",
        ),
    };
    let config = PushConfig::from_json(raw, task_id, at).map_err(A2aError::invalid_params)?;
    guard_webhook_url(shared, &config.url, &format!("{at}.url"))?;
    let mut state = shared.lock();
    let record = state.tasks.get_mut(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
    let rendered = config.to_json(shared.protocol, task_id);
    add_push_config(record, config);
    Ok(rendered)
}

pub(super) fn get_push_config(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    push_allowed(shared)?;
    let (task_id, config_id) = push_ids(shared, params)?;
    let config_id = config_id.unwrap_or(task_id);
    let state = shared.lock();
    let record = state.tasks.get(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
    record
        .push_configs
        .iter()
        .find(|c| c.id == config_id)
        .map(|c| c.to_json(shared.protocol, task_id))
        .ok_or_else(|| A2aError::invalid_params(format!("task {task_id} has no push config {config_id}")))
}

pub(super) fn list_push_configs(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    push_allowed(shared)?;
    let (task_id, _) = push_ids(shared, params)?;
    let state = shared.lock();
    let record = state.tasks.get(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
    let configs: Vec<Value> =
        record.push_configs.iter().map(|c| c.to_json(shared.protocol, task_id)).collect();
    Ok(match shared.protocol {
        Protocol::V1_0 => json!({ "configs": configs }),
        Protocol::V0_3 => Value::Array(configs),
    })
}

pub(super) fn delete_push_config(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    push_allowed(shared)?;
    let (task_id, config_id) = push_ids(shared, params)?;
    let config_id = config_id.unwrap_or(task_id).to_owned();
    let mut state = shared.lock();
    let record = state.tasks.get_mut(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
    record.push_configs.retain(|c| c.id != config_id);
    Ok(match shared.protocol {
        Protocol::V1_0 => json!({}),
        Protocol::V0_3 => Value::Null,
    })
}
