//! The task lifecycle a scripted agent plays, and the push callbacks it really POSTs.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::record::PushDelivery;
use crate::script::PushBehaviour;
use crate::store::{HistoryView, Published, PushConfig, Shared, TaskRecord};
use crate::wire::{self, A2aError, TaskState};

/// The question an agent asks when it wants clarification (the official peers' wording).
pub(crate) const CLARIFY_QUESTION: &str = "Please clarify: what exactly do you need?";

/// Which part of a task's life a turn plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turn {
    /// A new task: submitted, working, then input-required or the answer.
    Opening { asks_for_input: bool },
    /// A reply to input-required: working, then the answer, or input-required again when the reply
    /// itself asks for clarification.
    FollowUp { asks_for_input: bool },
}

/// One change to a task.
#[derive(Debug, Clone)]
enum Step {
    Snapshot,
    Status(TaskState, Option<String>),
    /// The current status again, message and all.
    Repeat,
    Artifact(String),
    /// One chunk of the answer as an agent message (chunks of one answer share `id`).
    AnswerChunk {
        id: String,
        text: String,
    },
}

/// Plays one turn of a task's lifecycle, publishing each event to streams and push configs.
pub(crate) async fn run_turn(shared: Arc<Shared>, task_id: String, turn: Turn, request_text: String) {
    let step_delay = shared.script.step_delay;
    if let Some(stall) = shared.script.stall {
        return stall_turn(&shared, &task_id, turn, stall).await;
    }
    let working_delay = step_delay.saturating_add(shared.behaviour.extra_working);
    let mut steps: Vec<(Step, Duration)> = Vec::new();
    let asks = match turn {
        Turn::Opening { asks_for_input } => {
            steps.push((Step::Snapshot, step_delay));
            asks_for_input
        }
        Turn::FollowUp { asks_for_input } => asks_for_input,
    };
    steps.push((Step::Status(TaskState::Working, None), working_delay));
    if asks {
        steps.push((
            Step::Status(TaskState::InputRequired, Some(CLARIFY_QUESTION.to_owned())),
            Duration::ZERO,
        ));
    } else if shared.script.only_streams().is_some()
        && !shared.script.has_quirk(crate::Quirk::AnswersInMessages)
    {
        // The answer in chunks, as status messages: the stream alone carries it.
        steps.push((Step::Status(TaskState::Working, Some("echo:".to_owned())), step_delay));
        steps.push((Step::Status(TaskState::Working, Some(request_text)), step_delay));
        steps.push((Step::Status(TaskState::Completed, Some("done".to_owned())), Duration::ZERO));
    } else {
        let answer = format!("echo: {request_text}");
        if shared.script.has_quirk(crate::Quirk::AnswersInMessages) {
            let id = uuid::Uuid::new_v4().to_string();
            let words: Vec<&str> = answer.split_inclusive(' ').collect();
            for chunk in words.chunks(words.len().div_ceil(3).max(1)) {
                steps.push((Step::AnswerChunk { id: id.clone(), text: chunk.concat() }, Duration::ZERO));
            }
        } else {
            steps.push((Step::Artifact(answer), step_delay));
        }
        steps.push((Step::Status(TaskState::Completed, Some("done".to_owned())), Duration::ZERO));
    }
    for (step, pause) in steps {
        if !emit(&shared, &task_id, step).await {
            return;
        }
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

/// Applies one step unless the task already ended (a cancel wins); returns false when it had ended.
/// A turn that never finishes, as [`Stall`](crate::Stall) says.
async fn stall_turn(shared: &Arc<Shared>, task_id: &str, turn: Turn, stall: crate::Stall) {
    use crate::Stall;
    let opening = matches!(turn, Turn::Opening { .. });
    match stall {
        Stall::Submitted => {
            if opening {
                emit(shared, task_id, Step::Snapshot).await;
            }
        }
        Stall::CommentsOnly => {}
        Stall::SameQuestion => {
            if opening {
                emit(shared, task_id, Step::Snapshot).await;
                emit(
                    shared,
                    task_id,
                    Step::Status(TaskState::InputRequired, Some(CLARIFY_QUESTION.to_owned())),
                )
                .await;
            } else {
                // The same question, the same message: the answer changed nothing.
                emit(shared, task_id, Step::Repeat).await;
            }
        }
        Stall::NoQuestion => {
            if opening {
                emit(shared, task_id, Step::Snapshot).await;
            }
            emit(shared, task_id, Step::Status(TaskState::InputRequired, None)).await;
        }
        Stall::WorkingForever => {
            if opening {
                emit(shared, task_id, Step::Snapshot).await;
            }
            // Bounded by the agent's lifetime: the loop ends when the task or the agent is gone.
            while emit(shared, task_id, Step::Status(TaskState::Working, None)).await {
                tokio::time::sleep(shared.script.step_delay).await;
            }
        }
    }
}

async fn emit(shared: &Arc<Shared>, task_id: &str, step: Step) -> bool {
    let deliveries = {
        let mut state = shared.lock();
        let now = state.tick();
        let Some(record) = state.tasks.get_mut(task_id) else { return false };
        if record.state.is_terminal() {
            return false;
        }
        record.updated = now;
        let published = apply(shared, record, step);
        prepare_push(shared, record, &published)
    };
    deliver_all(shared, deliveries).await;
    true
}

/// Mutates the record for `step` and sends the event to every open stream.
fn apply(shared: &Shared, record: &mut TaskRecord, step: Step) -> Arc<Published> {
    let protocol = shared.protocol;
    let published = match step {
        Step::Snapshot => Published {
            body: wire::wrap_task(
                protocol,
                record.render(protocol, &shared.behaviour, HistoryView::All, true),
            ),
            ends_stream: false,
            on_stream: true,
            times: 1,
        },
        Step::Repeat => {
            let status =
                wire::status(protocol, record.state, record.status_message.as_ref(), &record.timestamp);
            Published {
                body: wire::status_update(
                    protocol,
                    &record.id,
                    &record.context_id,
                    status,
                    record.state.ends_stream(),
                ),
                ends_stream: record.state.ends_stream(),
                on_stream: true,
                times: 1,
            }
        }
        Step::Status(state, text) => {
            let times = if state == TaskState::Working && text.is_none() {
                1 + shared.script.repeated_working
            } else {
                1
            };
            record.state = state;
            record.timestamp = wire::now_timestamp();
            record.status_message =
                text.map(|t| wire::agent_message(protocol, &t, &record.context_id, &record.id));
            if state == TaskState::InputRequired {
                // Interrupted-state messages move into history, like the official servers do.
                record.history.extend(record.status_message.clone());
            }
            let status = wire::status(protocol, state, record.status_message.as_ref(), &record.timestamp);
            Published {
                body: wire::status_update(
                    protocol,
                    &record.id,
                    &record.context_id,
                    status,
                    state.ends_stream(),
                ),
                ends_stream: state.ends_stream(),
                on_stream: true,
                times,
            }
        }
        Step::AnswerChunk { id, text } => {
            let mut message = wire::agent_message(protocol, &text, &record.context_id, &record.id);
            message["messageId"] = serde_json::json!(id);
            // The task's history holds the answer as one message, its chunks joined.
            match record.history.iter_mut().rev().find(|m| m["messageId"] == message["messageId"]) {
                Some(held) => {
                    let joined = format!("{}{text}", wire::message_text(held));
                    *held = wire::agent_message(protocol, &joined, &record.context_id, &record.id);
                    held["messageId"] = serde_json::json!(id);
                }
                None => record.history.push(message.clone()),
            }
            Published {
                body: wire::wrap_message(protocol, message),
                ends_stream: false,
                on_stream: true,
                times: 1,
            }
        }
        Step::Artifact(text) => {
            let artifact = wire::artifact(protocol, &text);
            record.artifacts.push(artifact.clone());
            Published {
                body: wire::artifact_update(protocol, &record.id, &record.context_id, &artifact),
                ends_stream: false,
                on_stream: shared.behaviour.artifact_on_stream,
                times: 1,
            }
        }
    };
    let published = Arc::new(published);
    // No receiver is fine: nobody is streaming this task.
    let _ = record.events.send(Arc::clone(&published));
    published
}

/// Cancels a task that has not ended yet and returns it.
pub(crate) async fn cancel(shared: &Arc<Shared>, task_id: &str) -> Result<Value, A2aError> {
    let (task, deliveries) = {
        let mut state = shared.lock();
        let now = state.tick();
        let Some(record) = state.tasks.get_mut(task_id) else {
            return Err(A2aError::task_not_found(task_id));
        };
        if record.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(task_id, record.state.wire(shared.protocol)));
        }
        record.updated = now;
        let published = apply(shared, record, Step::Status(TaskState::Canceled, None));
        let deliveries = prepare_push(shared, record, &published);
        (record.render(shared.protocol, &shared.behaviour, HistoryView::All, true), deliveries)
    };
    let for_push = Arc::clone(shared);
    tokio::spawn(async move { deliver_all(&for_push, deliveries).await });
    Ok(task)
}

/// A callback to POST.
#[derive(Debug)]
pub(crate) struct Delivery {
    task_id: String,
    config: PushConfig,
    body: Value,
}

/// The callbacks one event causes: the StreamResponse in 1.0, the whole Task in 0.3.
fn prepare_push(shared: &Shared, record: &TaskRecord, published: &Published) -> Vec<Delivery> {
    if matches!(
        shared.behaviour.push,
        PushBehaviour::Unsupported
            | PushBehaviour::Silent
            | PushBehaviour::ConfigCallsUnsupported
            | PushBehaviour::ConfigCallsUnsupportedOperation
    ) {
        return Vec::new();
    }
    // Its stated policy: a private webhook is taken on the create call, and never called.
    let never_private = shared.script.has_quirk(crate::Quirk::NeverCallsPrivateWebhooks);
    if shared.script.push_timing == crate::PushTiming::TerminalOnly && !record.state.is_terminal() {
        return Vec::new();
    }
    let body = match shared.protocol {
        crate::script::Protocol::V1_0 => published.body.clone(),
        crate::script::Protocol::V0_3 => {
            record.render(shared.protocol, &shared.behaviour, HistoryView::All, true)
        }
    };
    record
        .push_configs
        .iter()
        .filter(|config| !(never_private && crate::store::private_host(&config.url).is_some()))
        .map(|config| Delivery { task_id: record.id.clone(), config: config.clone(), body: body.clone() })
        .collect()
}

/// POSTs the callbacks one after the other, so the receiver sees them in event order.
pub(crate) async fn deliver_all(shared: &Arc<Shared>, deliveries: Vec<Delivery>) {
    for delivery in deliveries {
        deliver(shared, delivery).await;
    }
}

async fn deliver(shared: &Shared, delivery: Delivery) {
    let Delivery { task_id, config, body } = delivery;
    let forged = shared.behaviour.push == PushBehaviour::WrongCredentials;
    let authorization = match (&config.scheme, forged) {
        (Some(scheme), false) => Some(format!("{scheme} {}", config.credentials.as_deref().unwrap_or(""))),
        (scheme, true) => Some(format!("{} forged-credentials", scheme.as_deref().unwrap_or("Bearer"))),
        (None, false) => None,
    };
    let notification_token = if forged { Some("forged-token".to_owned()) } else { config.token.clone() };
    let mut request = shared.http.post(&config.url).json(&body);
    if let Some(value) = &authorization {
        request = request.header("Authorization", value);
    }
    if let Some(value) = &notification_token {
        request = request.header("X-A2A-Notification-Token", value);
    }
    let at = shared.started.elapsed();
    let response_status = request.send().await.ok().map(|r| r.status().as_u16());
    shared.lock().pushes.push(PushDelivery {
        url: config.url,
        config_id: config.id,
        task_id,
        authorization,
        notification_token,
        body,
        response_status,
        at,
    });
}
