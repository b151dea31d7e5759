//! From the wire model to observations: so the client feeds the verifier in one line per event.
//!
//! ```
//! use a2a_typestate_types::{Message, StreamResponse, Task, TaskState};
//! use a2a_typestate::{Channel, ExchangeModes, Observed};
//!
//! let message = Message::user("hello").with_message_id("m1");
//! assert_eq!(ExchangeModes::of_message(&message, &[]).input, ["text/plain"]);
//!
//! let snapshot = StreamResponse::Task(Task::new("t1", TaskState::Working));
//! let observed = Observed::from_stream_response(&snapshot, Channel::Stream);
//! assert!(matches!(observed, Some(Observed::Status { state: TaskState::Working, artifacts: Some(0), .. })));
//! ```

use a2a_typestate_types::{Message, PartContent, SendMessageResponse, StreamResponse, Task};

use crate::observe::{Channel, ExchangeModes, Observed};

/// The media type a part is sent as: its `mediaType`, else `text/plain` for text,
/// `application/json` for data, `application/octet-stream` for bytes or a link.
pub fn part_media_type(part: &a2a_typestate_types::Part) -> String {
    if let Some(media_type) = part.media_type.as_deref().filter(|m| !m.is_empty()) {
        return media_type.to_owned();
    }
    match part.content {
        PartContent::Text(_) => "text/plain",
        PartContent::Data(_) => "application/json",
        PartContent::Raw(_) | PartContent::Url(_) => "application/octet-stream",
    }
    .to_owned()
}

impl ExchangeModes {
    /// The modes of sending `message` while accepting `accepted_output_modes` (the request's
    /// `configuration.acceptedOutputModes`; empty: any).
    pub fn of_message(message: &Message, accepted_output_modes: &[String]) -> Self {
        let mut input: Vec<String> = Vec::new();
        for media_type in message.parts.iter().map(part_media_type) {
            if !input.contains(&media_type) {
                input.push(media_type);
            }
        }
        Self { input, accepted_output: accepted_output_modes.to_vec() }
    }
}

impl Observed {
    /// The client sent `message` (a follow-up when it carries a `taskId`).
    pub fn message_sent(message: &Message, accepted_output_modes: &[String]) -> Self {
        Self::MessageSent {
            modes: ExchangeModes::of_message(message, accepted_output_modes),
            task_id: message.task_id.clone(),
            context_id: message.context_id.clone(),
        }
    }

    /// A whole task arrived through `via`: its status, with its artifact count.
    pub fn task(task: &Task, via: Channel) -> Self {
        Self::Status {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state,
            message: task.status.message.as_ref().map(|m| m.message_id.clone()),
            via,
            artifacts: Some(task.artifacts.len()),
        }
    }

    /// The history a `GetTask` returned, relied on to reconstruct missed states; `requested_length`
    /// is the `historyLength` the request asked for.
    pub fn history(task: &Task, requested_length: Option<u32>) -> Self {
        Self::History { requested_length, entries: task.history.len() }
    }

    /// A stream item or push-callback body arrived through `via`. `None` for a direct `Message`
    /// (not tied to a task), which says nothing about a task's lifecycle.
    pub fn from_stream_response(item: &StreamResponse, via: Channel) -> Option<Self> {
        match item {
            StreamResponse::Task(task) => Some(Self::task(task, via)),
            // A message within a task is part of its answer; a direct answer says nothing about a
            // task's lifecycle.
            StreamResponse::Message(message) => {
                message.task_id.is_some().then_some(Self::AgentMessage { via })
            }
            StreamResponse::StatusUpdate(event) => Some(Self::Status {
                task_id: event.task_id.clone(),
                context_id: event.context_id.clone(),
                state: event.status.state,
                message: event.status.message.as_ref().map(|m| m.message_id.clone()),
                via,
                artifacts: None,
            }),
            StreamResponse::ArtifactUpdate(_) => Some(Self::Artifact { via }),
        }
    }

    /// The answer to a `SendMessage`; `None` for a direct `Message`.
    pub fn from_send_response(response: &SendMessageResponse) -> Option<Self> {
        match response {
            SendMessageResponse::Task(task) => Some(Self::task(task, Channel::SendResponse)),
            SendMessageResponse::Message(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use a2a_typestate_types::{Part, TaskState};
    use serde_json::json;

    use super::*;

    #[test]
    fn parts_are_sent_as_their_media_type_or_the_default_for_their_kind() {
        let message = Message::new(
            "m1",
            a2a_typestate_types::Role::User,
            vec![
                Part::text("hi"),
                Part::data(json!({"k": 1})),
                Part::raw(vec![1, 2]).with_media_type("image/png"),
                Part::text("again"),
            ],
        );
        let modes = ExchangeModes::of_message(&message, &["text/plain".to_owned()]);
        assert_eq!(modes.input, ["text/plain", "application/json", "image/png"]);
        assert_eq!(modes.accepted_output, ["text/plain"]);
    }

    #[test]
    fn follow_up_message_is_observed_with_its_task_and_context() {
        let message = Message::user("more").with_message_id("m2").with_task_id("t1").with_context_id("c1");
        let Observed::MessageSent { task_id, context_id, .. } = Observed::message_sent(&message, &[]) else {
            panic!("expected MessageSent")
        };
        assert_eq!(task_id.map(|t| t.into_string()).as_deref(), Some("t1"));
        assert_eq!(context_id.map(|c| c.into_string()).as_deref(), Some("c1"));
    }

    #[test]
    fn stream_items_become_status_artifact_or_nothing() {
        let item: StreamResponse = a2a_typestate_types::parse::from_str(
            r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#,
        )
        .unwrap();
        let observed = Observed::from_stream_response(&item, Channel::Push);
        assert!(matches!(
            observed,
            Some(Observed::Status { state: TaskState::Completed, via: Channel::Push, artifacts: None, .. })
        ));
        let item: StreamResponse = a2a_typestate_types::parse::from_str(
            r#"{"artifactUpdate":{"taskId":"t1","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}"#,
        )
        .unwrap();
        assert_eq!(
            Observed::from_stream_response(&item, Channel::Stream),
            Some(Observed::Artifact { via: Channel::Stream })
        );
        let direct = StreamResponse::Message(Message::agent("hi").with_message_id("m"));
        assert_eq!(Observed::from_stream_response(&direct, Channel::Stream), None);
    }

    #[test]
    fn get_task_history_is_counted() {
        let task: Task = a2a_typestate_types::parse::from_str(
            r#"{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"},"history":[]}"#,
        )
        .unwrap();
        assert_eq!(Observed::history(&task, None), Observed::History { requested_length: None, entries: 0 });
    }
}
