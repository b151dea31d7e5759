//! 0.3 streaming events and the result unions of `message/send` and `message/stream`.

use serde::{Deserialize, Serialize};

use super::kinded::ObjectRepr;
use super::message::Message;
use super::task::{Artifact, Task, TaskStatus};
use crate::Metadata;
use crate::ids::{ContextId, TaskId};

/// A change of a 0.3 task's status (`"kind": "status-update"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "status-update", rename_all = "camelCase", try_from = "ObjectRepr")]
pub struct TaskStatusUpdateEvent {
    /// The task that changed.
    pub task_id: TaskId,
    /// Its conversation.
    pub context_id: ContextId,
    /// The new status.
    pub status: TaskStatus,
    /// `final` on the wire: the agent says this is the last event of the stream. 1.0 has no such
    /// field (a stream ends when the binding closes it); see the [`super`] docs for how it converts.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl TryFrom<ObjectRepr> for TaskStatusUpdateEvent {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        match repr.into_object(&["status-update"])? {
            StreamResult::StatusUpdate(event) => Ok(event),
            _ => Err(super::kinded::UNREACHABLE_KIND.to_owned()),
        }
    }
}

/// A new or extended artifact of a 0.3 task (`"kind": "artifact-update"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "artifact-update", rename_all = "camelCase", try_from = "ObjectRepr")]
pub struct TaskArtifactUpdateEvent {
    /// The task the artifact belongs to.
    pub task_id: TaskId,
    /// Its conversation.
    pub context_id: ContextId,
    /// The artifact, or the chunk of it this event carries.
    pub artifact: Artifact,
    /// `true`: append these parts to the artifact with the same id sent before.
    pub append: bool,
    /// `true`: this is the artifact's last chunk.
    pub last_chunk: bool,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl TryFrom<ObjectRepr> for TaskArtifactUpdateEvent {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        match repr.into_object(&["artifact-update"])? {
            StreamResult::ArtifactUpdate(event) => Ok(event),
            _ => Err(super::kinded::UNREACHABLE_KIND.to_owned()),
        }
    }
}

/// One `result` of a 0.3 `message/stream` or `tasks/resubscribe` stream, told apart by `kind`.
///
/// Each variant writes its own `kind`, so this serializes as the bare object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "ObjectRepr")]
pub enum StreamResult {
    /// `"kind": "task"`: a task snapshot.
    Task(Task),
    /// `"kind": "message"`: a direct reply without a task.
    Message(Message),
    /// `"kind": "status-update"`.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `"kind": "artifact-update"`.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl TryFrom<ObjectRepr> for StreamResult {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        repr.into_object(&["task", "message", "status-update", "artifact-update"])
    }
}

impl StreamResult {
    /// The task this result is about, when it names one (a message may not).
    pub fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Task(task) => Some(&task.id),
            Self::Message(message) => message.task_id.as_ref(),
            Self::StatusUpdate(event) => Some(&event.task_id),
            Self::ArtifactUpdate(event) => Some(&event.task_id),
        }
    }
}

/// The `result` of a 0.3 `message/send`: a task or a direct message, told apart by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "ObjectRepr")]
pub enum SendMessageResult {
    /// `"kind": "task"`.
    Task(Task),
    /// `"kind": "message"`.
    Message(Message),
}

impl TryFrom<ObjectRepr> for SendMessageResult {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        match repr.into_object(&["task", "message"])? {
            StreamResult::Task(task) => Ok(Self::Task(task)),
            StreamResult::Message(message) => Ok(Self::Message(message)),
            _ => Err(super::kinded::UNREACHABLE_KIND.to_owned()),
        }
    }
}
