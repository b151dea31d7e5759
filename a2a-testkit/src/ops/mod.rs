//! The A2A operations, independent of the binding (JSON-RPC or HTTP+JSON) they arrived on.
//!
//! Parameters are the 1.0 request messages as JSON; 0.3 JSON-RPC parameters are read in their own
//! shapes where they differ (`pushNotificationConfig`, `blocking`, the push-config ids).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use crate::lifecycle::{self, Turn};
use crate::script::{Clarify, Protocol, PushBehaviour};
use crate::store::{HistoryView, Published, PushConfig, Shared, TaskRecord};
use crate::wire::{self, A2aError, TaskState};

pub(crate) mod misaddress;
mod push;

use push::{add_push_config, create_push_config, delete_push_config, get_push_config, list_push_configs};

/// The A2A operations, named as in 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    ListTasks,
    CancelTask,
    SubscribeToTask,
    CreatePushConfig,
    GetPushConfig,
    ListPushConfigs,
    DeletePushConfig,
    GetExtendedAgentCard,
}

impl Op {
    /// The 1.0 name (also the 1.0 JSON-RPC method).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::SendMessage => "SendMessage",
            Op::SendStreamingMessage => "SendStreamingMessage",
            Op::GetTask => "GetTask",
            Op::ListTasks => "ListTasks",
            Op::CancelTask => "CancelTask",
            Op::SubscribeToTask => "SubscribeToTask",
            Op::CreatePushConfig => "CreateTaskPushNotificationConfig",
            Op::GetPushConfig => "GetTaskPushNotificationConfig",
            Op::ListPushConfigs => "ListTaskPushNotificationConfigs",
            Op::DeletePushConfig => "DeleteTaskPushNotificationConfig",
            Op::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    fn v03_name(self) -> Option<&'static str> {
        Some(match self {
            Op::SendMessage => "message/send",
            Op::SendStreamingMessage => "message/stream",
            Op::GetTask => "tasks/get",
            Op::CancelTask => "tasks/cancel",
            Op::SubscribeToTask => "tasks/resubscribe",
            Op::CreatePushConfig => "tasks/pushNotificationConfig/set",
            Op::GetPushConfig => "tasks/pushNotificationConfig/get",
            Op::ListPushConfigs => "tasks/pushNotificationConfig/list",
            Op::DeletePushConfig => "tasks/pushNotificationConfig/delete",
            Op::GetExtendedAgentCard => "agent/getAuthenticatedExtendedCard",
            Op::ListTasks => return None,
        })
    }

    const ALL: [Op; 11] = [
        Op::SendMessage,
        Op::SendStreamingMessage,
        Op::GetTask,
        Op::ListTasks,
        Op::CancelTask,
        Op::SubscribeToTask,
        Op::CreatePushConfig,
        Op::GetPushConfig,
        Op::ListPushConfigs,
        Op::DeletePushConfig,
        Op::GetExtendedAgentCard,
    ];

    /// The operation a JSON-RPC method names in `protocol` (a 1.0 agent does not know 0.3 names).
    pub(crate) fn from_jsonrpc(protocol: Protocol, method: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| match protocol {
            Protocol::V1_0 => op.name() == method,
            Protocol::V0_3 => op.v03_name() == Some(method),
        })
    }
}

/// What an operation produced.
#[derive(Debug)]
pub(crate) enum Outcome {
    Json(Value),
    Stream(StreamPlan),
    Error(A2aError),
}

/// The events a stream will carry: an optional first item, then whatever the task publishes.
#[derive(Debug)]
pub(crate) struct StreamPlan {
    pub(crate) first: Option<Arc<Published>>,
    pub(crate) events: broadcast::Receiver<Arc<Published>>,
    /// Every event after the first names another task ([`crate::Misaddress::StreamEventsAfterFirst`]).
    pub(crate) misaddress_after_first: bool,
}

/// Runs one operation.
pub(crate) async fn execute(shared: &Arc<Shared>, op: Op, params: Value) -> Outcome {
    let result = match op {
        Op::SendMessage => send(shared, &params, false).await,
        Op::SendStreamingMessage => send(shared, &params, true).await,
        Op::GetTask => get(shared, &params).map(Outcome::Json),
        Op::ListTasks => list(shared, &params).map(Outcome::Json),
        Op::CancelTask => match required_str(&params, "id") {
            Ok(id) => lifecycle::cancel(shared, id).await.map(Outcome::Json),
            Err(e) => Err(e),
        },
        Op::SubscribeToTask => subscribe(shared, &params).map(Outcome::Stream),
        Op::CreatePushConfig => create_push_config(shared, &params).map(Outcome::Json),
        Op::GetPushConfig => get_push_config(shared, &params).map(Outcome::Json),
        Op::ListPushConfigs => list_push_configs(shared, &params).map(Outcome::Json),
        Op::DeletePushConfig => delete_push_config(shared, &params).map(Outcome::Json),
        Op::GetExtendedAgentCard => match &shared.gate.extended_card {
            Some(card) => Ok(Outcome::Json(card.clone())),
            None => Err(A2aError::unsupported("This agent has no extended agent card")),
        },
    };
    misaddress::outcome(&shared.script, op, &params, result.unwrap_or_else(Outcome::Error))
}

fn required_str<'a>(params: &'a Value, field: &str) -> Result<&'a str, A2aError> {
    params
        .get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| A2aError::invalid_params(format!("params.{field} is required and must be a string")))
}

/// How an agent that does not stream answers a streaming call.
fn streaming_refused(shared: &Shared) -> A2aError {
    if shared.script.has_quirk(crate::Quirk::NoStreamingMethods) {
        return A2aError::method_not_found();
    }
    A2aError::unsupported("Streaming is not supported by the agent")
}

async fn send(shared: &Arc<Shared>, params: &Value, streaming: bool) -> Result<Outcome, A2aError> {
    let protocol = shared.protocol;
    let message = params
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| A2aError::invalid_params("params.message is required and must be an object"))?;
    if message.get("parts").and_then(Value::as_array).is_none_or(|parts| parts.is_empty()) {
        return Err(A2aError::invalid_params("params.message.parts must hold at least one part"));
    }
    if streaming && !shared.behaviour.streams {
        return Err(streaming_refused(shared));
    }
    let configuration = params.get("configuration");
    let push_field = match protocol {
        Protocol::V1_0 => "taskPushNotificationConfig",
        Protocol::V0_3 => "pushNotificationConfig",
    };
    let inline_push = configuration.and_then(|c| c.get(push_field)).filter(|c| !c.is_null());
    if inline_push.is_some() && shared.behaviour.push == PushBehaviour::Unsupported {
        return Err(A2aError::push_not_supported());
    }
    // A handler without push that does not look at the inline config at all.
    let inline_push = inline_push.filter(|_| {
        !matches!(
            shared.behaviour.push,
            PushBehaviour::ConfigCallsUnsupported | PushBehaviour::ConfigCallsUnsupportedOperation
        )
    });
    let inline_push = match inline_push {
        // The config id defaults to the task id, which is only known once the task exists.
        Some(config) => {
            let at = format!("params.configuration.{push_field}");
            let config = PushConfig::from_json(config, "", &at).map_err(A2aError::invalid_params)?;
            push::guard_inline_webhook_url(shared, &config.url, &format!("{at}.url"))?;
            Some(config)
        }
        None => None,
    };
    // Accepted, then forgotten.
    let inline_push = inline_push.filter(|_| !shared.script.has_quirk(crate::Quirk::DropsInlinePushConfig));
    let view = HistoryView::from_param(configuration.and_then(|c| c.get("historyLength")));
    let returns_immediately = match protocol {
        Protocol::V1_0 => configuration.and_then(|c| c.get("returnImmediately")).and_then(Value::as_bool),
        Protocol::V0_3 => configuration.and_then(|c| c.get("blocking")).and_then(Value::as_bool).map(|b| !b),
    }
    .unwrap_or(false);
    let text = wire::message_text(message);

    let (task_id, turn, mut events, snapshot) = {
        let mut state = shared.lock();
        let now = state.tick();
        let existing = message.get("taskId").and_then(Value::as_str).filter(|s| !s.is_empty());
        let (record, turn) = match existing {
            Some(task_id) => {
                let record = state.tasks.get_mut(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
                continue_task(protocol, record, message)?;
                // Only a reply that contains the word asks again; `Always` asks on new tasks only.
                let asks_for_input = matches!(&shared.script.clarify,
                    Clarify::WhenMessageContains(word) if text.to_lowercase().contains(&word.to_lowercase()));
                (record, Turn::FollowUp { asks_for_input })
            }
            None => {
                *state.executions.entry(text.clone()).or_default() += 1;
                let record = new_task(protocol, message);
                let asks_for_input = match &shared.script.clarify {
                    Clarify::Never => false,
                    Clarify::Always => true,
                    Clarify::WhenMessageContains(word) => text.to_lowercase().contains(&word.to_lowercase()),
                };
                let id = record.id.clone();
                let record = state.tasks.entry(id).or_insert(record);
                (record, Turn::Opening { asks_for_input })
            }
        };
        record.updated = now;
        if let Some(mut config) = inline_push {
            if config.id.is_empty() {
                config.id.clone_from(&record.id);
            }
            add_push_config(record, config);
        }
        let snapshot = record.render(protocol, &shared.behaviour, view, true);
        (record.id.clone(), turn, record.events.subscribe(), snapshot)
    };
    tokio::spawn(lifecycle::run_turn(Arc::clone(shared), task_id.clone(), turn, text));

    if streaming {
        return Ok(Outcome::Stream(StreamPlan { first: None, events, misaddress_after_first: false }));
    }
    if returns_immediately {
        return Ok(Outcome::Json(wire::wrap_task(protocol, snapshot)));
    }
    loop {
        match events.recv().await {
            Ok(event) if event.ends_stream => break,
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
    let state = shared.lock();
    let record = state.tasks.get(&task_id).ok_or_else(|| A2aError::task_not_found(&task_id))?;
    Ok(Outcome::Json(wire::wrap_task(protocol, record.render(protocol, &shared.behaviour, view, true))))
}

/// Stores `count` completed tasks, each answering one user message, as if each had been sent and
/// had run to its end; returns their ids, oldest first.
pub(crate) fn store_completed(shared: &Shared, count: usize) -> Vec<String> {
    let protocol = shared.protocol;
    let mut state = shared.lock();
    let mut ids = Vec::with_capacity(count);
    for n in 0..count {
        let text = format!("stored task {n}");
        let message = match protocol {
            Protocol::V1_0 => {
                json!({"messageId": format!("stored-{n}"), "role": "ROLE_USER", "parts": [{"text": text}]})
            }
            Protocol::V0_3 => {
                json!({"messageId": format!("stored-{n}"), "role": "user", "parts": [{"kind": "text", "text": text}]})
            }
        };
        let mut record = new_task(protocol, &message);
        record.state = TaskState::Completed;
        record.updated = state.tick();
        ids.push(record.id.clone());
        state.tasks.insert(record.id.clone(), record);
    }
    ids
}

/// A new task in SUBMITTED, holding the user's message in its history.
fn new_task(protocol: Protocol, message: &Value) -> TaskRecord {
    let id = uuid::Uuid::new_v4().to_string();
    let context_id = message
        .get("contextId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
    let (events, _) = broadcast::channel(64);
    TaskRecord {
        history: vec![stamped(protocol, message, &context_id, &id)],
        id,
        context_id,
        state: TaskState::Submitted,
        status_message: None,
        timestamp: wire::now_timestamp(),
        artifacts: Vec::new(),
        push_configs: Vec::new(),
        events,
        updated: 0,
    }
}

/// Accepts a reply to an input-required task.
fn continue_task(protocol: Protocol, record: &mut TaskRecord, message: &Value) -> Result<(), A2aError> {
    let state = record.state.wire(protocol);
    if record.state.is_terminal() {
        return Err(A2aError::unsupported(format!("Task {} is in terminal state: {state}", record.id)));
    }
    if record.state != TaskState::InputRequired {
        return Err(A2aError::unsupported(format!(
            "Task {} is {state} and does not expect input",
            record.id
        )));
    }
    if let Some(context) = message.get("contextId").and_then(Value::as_str).filter(|s| !s.is_empty())
        && context != record.context_id
    {
        return Err(A2aError::invalid_params(format!(
            "params.message.contextId {context} does not match task {} (context {})",
            record.id, record.context_id
        )));
    }
    let stamped = stamped(protocol, message, &record.context_id, &record.id);
    record.history.push(stamped);
    Ok(())
}

/// The client's message with the task and context ids the server assigned.
fn stamped(protocol: Protocol, message: &Value, context_id: &str, task_id: &str) -> Value {
    let mut message = message.as_object().cloned().unwrap_or_else(Map::new);
    message.insert("contextId".to_owned(), json!(context_id));
    message.insert("taskId".to_owned(), json!(task_id));
    if protocol == Protocol::V0_3 {
        message.insert("kind".to_owned(), json!("message"));
    }
    Value::Object(message)
}

fn get(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    let id = required_str(params, "id")?;
    let view = HistoryView::from_param(params.get("historyLength"));
    let state = shared.lock();
    let record = state.tasks.get(id).ok_or_else(|| A2aError::task_not_found(id))?;
    Ok(record.render(shared.protocol, &shared.behaviour, view, true))
}

fn list(shared: &Shared, params: &Value) -> Result<Value, A2aError> {
    let page_size = match params.get("pageSize").and_then(Value::as_u64) {
        None | Some(0) => 50,
        Some(n @ 1..=100) => usize::try_from(n).unwrap_or(50),
        Some(n) => return Err(A2aError::invalid_params(format!("params.pageSize {n} is outside 1..=100"))),
    };
    let offset = match params.get("pageToken").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        None => 0,
        Some(token) => token.parse::<usize>().map_err(|_| {
            A2aError::invalid_params(format!("params.pageToken {token:?} is not a token we issued"))
        })?,
    };
    let context = params.get("contextId").and_then(Value::as_str).filter(|s| !s.is_empty());
    let status = match params.get("status").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        None => None,
        Some(text) => Some(TaskState::from_wire(text).ok_or_else(|| {
            A2aError::invalid_params(format!("params.status {text:?} is not a task state"))
        })?),
    };
    let view = HistoryView::from_param(params.get("historyLength"));
    let with_artifacts = params.get("includeArtifacts").and_then(Value::as_bool).unwrap_or(false);

    let state = shared.lock();
    let mut matching: Vec<&TaskRecord> = state
        .tasks
        .values()
        .filter(|t| context.is_none_or(|c| t.context_id == c))
        .filter(|t| status.is_none_or(|s| t.state == s))
        .collect();
    matching.sort_by_key(|t| std::cmp::Reverse(t.updated));
    let total = matching.len();
    let overfull = shared.script.has_quirk(crate::Quirk::OverfullEndlessPages);
    let tasks: Vec<Value> = matching
        .iter()
        .skip(offset)
        .take(if overfull { usize::MAX } else { page_size })
        .map(|t| t.render(shared.protocol, &shared.behaviour, view, with_artifacts))
        .collect();
    let end = offset.saturating_add(page_size);
    let mut next = if end < total { end.to_string() } else { String::new() };
    if shared.script.has_quirk(crate::Quirk::RepeatsPageToken) && offset > 0 {
        next = offset.to_string();
    }
    if overfull {
        next = end.to_string();
    }
    Ok(json!({ "tasks": tasks, "nextPageToken": next, "pageSize": page_size, "totalSize": total }))
}

fn subscribe(shared: &Shared, params: &Value) -> Result<StreamPlan, A2aError> {
    if !shared.behaviour.streams {
        return Err(streaming_refused(shared));
    }
    let id = required_str(params, "id")?;
    let state = shared.lock();
    let record = state.tasks.get(id).ok_or_else(|| A2aError::task_not_found(id))?;
    if record.state.is_terminal() {
        let state = record.state.wire(shared.protocol);
        return Err(A2aError::unsupported(format!("Task {id} is in terminal state: {state}")));
    }
    let snapshot = Published {
        body: wire::wrap_task(
            shared.protocol,
            record.render(shared.protocol, &shared.behaviour, HistoryView::All, true),
        ),
        ends_stream: false,
        on_stream: true,
        times: 1,
    };
    Ok(StreamPlan {
        first: Some(Arc::new(snapshot)),
        events: record.events.subscribe(),
        misaddress_after_first: false,
    })
}
