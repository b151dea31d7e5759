//! The truth about a corpus agent, established by raw HTTP ([`super::wire`]) the way each
//! framework's `TRUTH.md` describes: what the streaming call carried, whether the push
//! registration was kept and a callback ever came, what a credential-less `GetTask` was answered,
//! in which media types the agent answered. Each is observed now, from the agent running.

use std::time::Duration;

use a2a_testkit::WebhookReceiver;
use serde_json::Value;

use super::wire::{
    Answer, Content, Event, Interface, Outgoing, Streamed, Wire, answer_parts_of_task, is_terminal, is_users,
    media_type_of, mentions, parts_of, state_of_event, text_of,
};

/// How long a push callback may take after the task's terminal state: the audit's bound too.
pub const PUSH_BOUND: Duration = Duration::from_secs(3);
/// How long a task started with `returnImmediately` may take to reach a terminal state.
const TASK_BOUND: Duration = Duration::from_secs(30);

/// The message a caller that keeps to the card sends: a part in a media type the card's
/// `defaultInputModes` declare (text when they cover `text/plain`, else data when they cover
/// `application/json`), and whether one was found (else text, outside the declared modes).
pub fn declared_content(card: &Value) -> (Content, bool) {
    let modes = strings(&card["defaultInputModes"]);
    let covers =
        |media_type: &str| modes.iter().any(|m| a2a_typestate::rules::media_type_covers(m, media_type));
    if covers("text/plain") {
        (Content::Text, true)
    } else if covers("application/json") {
        (Content::Data, true)
    } else {
        (Content::Text, false)
    }
}

/// The strings of a JSON array (none when it is not one).
pub fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
}

/// What one streaming call through the declared modes showed.
#[derive(Clone, Debug, Default)]
pub struct StreamingTruth {
    /// The call's answer when it was not a stream.
    pub refused: Option<Answer>,
    /// The states the stream reported, in order.
    pub states: Vec<String>,
    /// Artifacts the stream carried (artifact updates, and artifacts on task snapshots).
    pub streamed_artifacts: usize,
    /// The stream carried the agent's answer as messages or a status message.
    pub answered_in_messages: bool,
    /// The answer's parts as the stream carried them (artifacts first, else the agent's messages,
    /// else the last status message).
    pub answer_parts: Vec<Value>,
    /// The task streamed.
    pub task_id: Option<String>,
    /// `GetTask` for that task after the terminal state (when the stream carried no artifact, or
    /// no answer at all).
    pub confirmation: Option<Answer>,
    /// How reading the stream ended.
    pub ended: String,
    /// The number of events.
    pub events: usize,
    /// Events whose data started with record separators (0x1E), as a JSON text sequence frames
    /// each text (RFC 7464).
    pub record_separated: usize,
    /// Events whose data was no JSON.
    pub unreadable: usize,
}

impl StreamingTruth {
    /// The first terminal state on the stream.
    pub fn terminal(&self) -> Option<&str> {
        self.states.iter().map(String::as_str).find(|s| is_terminal(Some(s)))
    }

    /// Artifacts the confirming `GetTask` returned, when it returned a task.
    pub fn confirmed_artifacts(&self) -> Option<usize> {
        let task = self.confirmation.as_ref()?.result()?;
        let task = match Event::of(task) {
            Event::Task(task) => task,
            _ => return None,
        };
        Some(task["artifacts"].as_array().map_or(0, Vec::len))
    }

    /// The answer's media types (each once): the stream's parts, else the confirming task's.
    pub fn answered_media_types(&self) -> Vec<String> {
        let parts = if self.answer_parts.is_empty() {
            match self.confirmation.as_ref().and_then(Answer::result).map(Event::of) {
                Some(Event::Task(task)) => answer_parts_of_task(task),
                _ => Vec::new(),
            }
        } else {
            self.answer_parts.clone()
        };
        let mut media_types: Vec<String> = parts.iter().filter_map(media_type_of).collect();
        media_types.sort();
        media_types.dedup();
        media_types
    }

    /// The answer's text, for messages.
    pub fn answer_text(&self) -> String {
        text_of(&self.answer_parts)
    }
}

/// Streams one message of `content`, accepting the card's output modes, and reads the task to
/// its end; confirms with `GetTask` when the stream reached a terminal state.
pub async fn streaming(wire: &Wire, content: Content, accepted: &[String]) -> StreamingTruth {
    let streamed: Streamed = wire.stream(&Outgoing::new(content, accepted)).await;
    let mut truth = StreamingTruth {
        refused: streamed.refused.clone(),
        ended: streamed.ended.clone(),
        events: streamed.events.len(),
        record_separated: streamed.record_separated,
        unreadable: streamed.unreadable,
        ..Default::default()
    };
    let mut artifact_parts = Vec::new();
    let mut message_parts = Vec::new();
    let mut status_parts = Vec::new();
    for value in &streamed.events {
        let event = Event::of(value);
        if truth.task_id.is_none() {
            truth.task_id = event.task_id();
        }
        if let Some(state) = state_of_event(value) {
            truth.states.push(state);
        }
        match event {
            Event::Task(task) => {
                let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
                truth.streamed_artifacts = truth.streamed_artifacts.max(artifacts.len());
                artifact_parts.extend(artifacts.iter().flat_map(parts_of));
                let said = parts_of(&task["status"]["message"]);
                truth.answered_in_messages |= !said.is_empty();
                if !said.is_empty() {
                    status_parts = said;
                }
            }
            Event::Status(status) => {
                let said = parts_of(&status["status"]["message"]);
                truth.answered_in_messages |= !said.is_empty();
                if !said.is_empty() {
                    status_parts = said;
                }
            }
            Event::Artifact(update) => {
                truth.streamed_artifacts += 1;
                artifact_parts.extend(parts_of(&update["artifact"]));
            }
            Event::Message(message) if !is_users(message) => {
                truth.answered_in_messages = true;
                message_parts.extend(parts_of(message));
            }
            Event::Message(_) | Event::Other(_) => {}
        }
    }
    truth.answer_parts = if !artifact_parts.is_empty() {
        artifact_parts
    } else if !message_parts.is_empty() {
        message_parts
    } else {
        status_parts
    };
    if truth.terminal().is_some()
        && let Some(id) = &truth.task_id
    {
        truth.confirmation = Some(wire.get_task(id).await);
    }
    truth
}

/// What registering a webhook for one task, both ways, and waiting for it showed.
#[derive(Clone, Debug)]
pub struct PushTruth {
    /// The send that carried the config inline (`returnImmediately`).
    pub inline: Answer,
    /// The task that send created (when it answered with one).
    pub task_id: Option<String>,
    /// `GetTaskPushNotificationConfig` for that task afterwards.
    pub get: Option<Answer>,
    /// The agent returned our config: it kept the inline registration.
    pub kept_inline: bool,
    /// The capability's own call, made when the inline config was not kept.
    pub create: Option<Answer>,
    /// The task's terminal state, as `GetTask` reported it.
    pub terminal: Option<String>,
    /// Callbacks that reached the webhook within [`PUSH_BOUND`] of that terminal state.
    pub callbacks: usize,
}

impl PushTruth {
    /// The agent holds a config of ours: kept inline, or accepted by the create call.
    pub fn registered(&self) -> bool {
        self.kept_inline || self.create.as_ref().is_some_and(|a| a.result().is_some())
    }

    /// The agent said "not supported" to a push-config call while holding no config of ours:
    /// -32003 (`PushNotificationNotSupportedError`) or -32004 (`UnsupportedOperationError`) over
    /// JSON-RPC, 501 over HTTP+JSON.
    pub fn said_unsupported(&self) -> bool {
        let unsupported = |a: &Answer| {
            matches!(a.code(), Some(-32003 | -32004)) || matches!(a, Answer::Http { status: 501, .. })
        };
        !self.kept_inline
            && (self.get.as_ref().is_some_and(unsupported) || self.create.as_ref().is_some_and(unsupported))
    }

    /// The agent refused the webhook URL itself (-32602) on the create call.
    pub fn refused_the_url(&self) -> bool {
        self.create.as_ref().and_then(Answer::code) == Some(-32602)
    }
}

/// Registers a webhook (a listener started here) for one task as a client does: inline in a send
/// that returns at once, then, when `GetTaskPushNotificationConfig` does not return it, with the
/// create call; waits for the task's terminal state and [`PUSH_BOUND`] more for callbacks.
pub async fn push(wire: &Wire, content: Content, accepted: &[String]) -> PushTruth {
    let webhook = WebhookReceiver::spawn().await.expect("a webhook receiver on 127.0.0.1");
    let (url, token) = (webhook.url("/truth"), format!("truth-{}", uuid::Uuid::new_v4()));
    let mut outgoing = Outgoing::new(content, accepted);
    outgoing.push = Some((url.clone(), token.clone()));
    outgoing.return_immediately = true;
    let inline = wire.send(&outgoing).await;
    let mut task_id = inline.result().and_then(|r| Event::of(r).task_id());
    if task_id.is_none() {
        // Refused inline: a task to register on, from a send without the config.
        outgoing.push = None;
        task_id = wire.send(&outgoing).await.result().and_then(|r| Event::of(r).task_id());
    }
    let mut truth = PushTruth {
        inline,
        task_id: task_id.clone(),
        get: None,
        kept_inline: false,
        create: None,
        terminal: None,
        callbacks: 0,
    };
    let Some(task_id) = task_id else { return truth };
    let get = wire.get_push_config(&task_id).await;
    truth.kept_inline = get.result().is_some_and(|config| mentions(config, &url));
    truth.get = Some(get);
    if !truth.kept_inline {
        truth.create = Some(wire.create_push_config(&task_id, &url, &token).await);
    }
    truth.terminal = wait_for_terminal(wire, &task_id).await;
    if truth.terminal.is_some() {
        truth.callbacks = webhook.wait_for(1, PUSH_BOUND).await.len();
    }
    truth
}

/// Polls `GetTask` until the task is in a terminal state (`None` after [`TASK_BOUND`]).
async fn wait_for_terminal(wire: &Wire, task_id: &str) -> Option<String> {
    let deadline = tokio::time::Instant::now() + TASK_BOUND;
    while tokio::time::Instant::now() < deadline {
        if let Some(state) = wire.get_task(task_id).await.result().and_then(state_of_event)
            && is_terminal(Some(&state))
        {
            return Some(state);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    None
}

/// A credential-less `GetTask` for a task that does not exist, in the interface's own binding
/// and version: what the interface and security claims are judged by.
pub async fn get_unknown_task(interface: &Interface) -> Answer {
    let wire = Wire::new(interface.clone());
    wire.get_task(&format!("truth-no-such-task-{}", uuid::Uuid::new_v4())).await
}

/// The history a `GetTask` relied on returned: `Ok(entries)`, or the answer that was no task.
pub async fn history(wire: &Wire, content: Content, accepted: &[String]) -> Result<usize, Answer> {
    let sent = wire.send(&Outgoing::new(content, accepted)).await;
    let Some(task_id) = sent.result().and_then(|r| Event::of(r).task_id()) else { return Err(sent) };
    let got = wire.get_task(&task_id).await;
    match got.result().map(Event::of) {
        Some(Event::Task(task)) => Ok(task["history"].as_array().map_or(0, Vec::len)),
        _ => Err(got),
    }
}
