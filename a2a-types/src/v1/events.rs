//! What an agent sends back: stream events, webhook bodies and `SendMessage` results.
//!
//! ```
//! use a2a_typestate_types::{parse, StreamResponse, TaskState};
//!
//! let event: StreamResponse = parse::from_str(
//!     r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#,
//! ).unwrap();
//! assert_eq!(event.task_id().map(|id| id.as_str()), Some("t1"));
//! assert_eq!(event.state(), Some(TaskState::Working));
//! ```

use serde::{Deserialize, Serialize};

use crate::Metadata;
use crate::ids::{ContextId, TaskId};
use crate::protojson::{is_default, oneof_deserialize};
use crate::v1::enums::TaskState;
use crate::v1::message::{Message, Part, wire};
use crate::v1::task::{Artifact, Task, TaskStatus};

/// A task changed state (`lf.a2a.v1.TaskStatusUpdateEvent`).
///
/// 1.0 has no `final` flag: the end of a stream is the stream closing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskStatusUpdateEvent {
    /// The task that changed.
    #[serde(alias = "task_id", skip_serializing_if = "is_default")]
    pub task_id: TaskId,
    /// The task's conversation (REQUIRED by the proto, tolerated when missing).
    #[serde(
        alias = "context_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<ContextId>,
    /// The new status.
    pub status: TaskStatus,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A task produced an artifact or a chunk of one (`lf.a2a.v1.TaskArtifactUpdateEvent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskArtifactUpdateEvent {
    /// The task that produced it.
    #[serde(alias = "task_id", skip_serializing_if = "is_default")]
    pub task_id: TaskId,
    /// The task's conversation (REQUIRED by the proto, tolerated when missing).
    #[serde(
        alias = "context_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<ContextId>,
    /// The artifact, or the chunk of it.
    pub artifact: Artifact,
    /// `true`: add these parts to the earlier artifact with the same id instead of replacing it.
    #[serde(skip_serializing_if = "is_default")]
    pub append: bool,
    /// `true`: this is the artifact's last chunk.
    #[serde(alias = "last_chunk", skip_serializing_if = "is_default")]
    pub last_chunk: bool,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// One item of a stream, and the body of a push notification (`lf.a2a.v1.StreamResponse`).
///
/// On the wire an object with exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamResponse {
    /// A snapshot of the whole task (the first item of a task stream).
    Task(Task),
    /// A direct reply with no task.
    Message(Message),
    /// The task changed state.
    StatusUpdate(TaskStatusUpdateEvent),
    /// The task produced an artifact chunk.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamResponse {
    /// The task this item is about; `None` for a message not tied to a task.
    pub fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Task(task) => Some(&task.id),
            Self::Message(message) => message.task_id.as_ref(),
            Self::StatusUpdate(event) => Some(&event.task_id),
            Self::ArtifactUpdate(event) => Some(&event.task_id),
        }
    }

    /// The conversation this item belongs to, when it says.
    pub fn context_id(&self) -> Option<&ContextId> {
        match self {
            Self::Task(task) => task.context_id.as_ref(),
            Self::Message(message) => message.context_id.as_ref(),
            Self::StatusUpdate(event) => event.context_id.as_ref(),
            Self::ArtifactUpdate(event) => event.context_id.as_ref(),
        }
    }

    /// The task state this item reports; `None` for messages and artifact chunks, which carry none.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            Self::Task(task) => Some(task.state()),
            Self::StatusUpdate(event) => Some(event.status.state),
            Self::Message(_) | Self::ArtifactUpdate(_) => None,
        }
    }

    /// The name of the member present on the wire (`task`, `message`, `statusUpdate`, `artifactUpdate`),
    /// for logs and error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Task(_) => "task",
            Self::Message(_) => "message",
            Self::StatusUpdate(_) => "statusUpdate",
            Self::ArtifactUpdate(_) => "artifactUpdate",
        }
    }
}

impl From<SendMessageResponse> for StreamResponse {
    fn from(response: SendMessageResponse) -> Self {
        match response {
            SendMessageResponse::Task(task) => Self::Task(task),
            SendMessageResponse::Message(message) => Self::Message(message),
        }
    }
}

oneof_deserialize!(
    StreamResponse,
    "payload",
    [
        (Task, "task", "task", Task),
        (Message, "message", "message", Message),
        (StatusUpdate, "statusUpdate", "status_update", TaskStatusUpdateEvent),
        (ArtifactUpdate, "artifactUpdate", "artifact_update", TaskArtifactUpdateEvent),
    ]
);

/// The result of `SendMessage` (`lf.a2a.v1.SendMessageResponse`): a task, or a direct message.
///
/// On the wire an object with exactly one of `task`, `message`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SendMessageResponse {
    /// The agent created or continued a task.
    Task(Task),
    /// The agent answered directly, without a task.
    Message(Message),
}

impl SendMessageResponse {
    /// The media types the answer came in: each part of the message, or of the task's answer
    /// ([`Task::answer_parts`]), by [`Part::implied_media_type`]; parts that do not say are left out.
    pub fn answered_media_types(&self) -> Vec<String> {
        self.answer_parts()
            .into_iter()
            .filter_map(|part| part.implied_media_type().map(str::to_owned))
            .collect()
    }

    /// The parts that answer: the message's, or the task's [`Task::answer_parts`] (its artifacts,
    /// else the agent's messages since the client's last, else its status message). What
    /// [`text`](Self::text), [`data`](Self::data) and [`file`](Self::file) read.
    pub fn answer_parts(&self) -> Vec<&Part> {
        match self {
            Self::Message(message) => message.parts.iter().collect(),
            Self::Task(task) => task.answer_parts(),
        }
    }

    /// The task this result is about; `None` for a message not tied to a task.
    pub fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Task(task) => Some(&task.id),
            Self::Message(message) => message.task_id.as_ref(),
        }
    }

    /// The task's state; `None` for a direct message.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            Self::Task(task) => Some(task.state()),
            Self::Message(_) => None,
        }
    }
}

oneof_deserialize!(
    SendMessageResponse,
    "payload",
    [(Task, "task", "task", Task), (Message, "message", "message", Message)]
);
