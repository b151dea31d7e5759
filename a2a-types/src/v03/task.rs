//! 0.3 `Task`, `TaskStatus`, `TaskState` and `Artifact`.

use serde::{Deserialize, Serialize};

use super::kinded::{self, ObjectRepr};
use super::message::{Message, Part};
use crate::Metadata;
use crate::ids::{ArtifactId, ContextId, TaskId};

/// The lifecycle state of a 0.3 task, written in lowercase kebab-case (`"input-required"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// Acknowledged, not yet started.
    Submitted,
    /// In progress.
    Working,
    /// Interrupted: waits for a follow-up message from the client.
    InputRequired,
    /// Terminal: finished successfully.
    Completed,
    /// Terminal: canceled before finishing.
    Canceled,
    /// Terminal: finished with an error.
    Failed,
    /// Terminal: the agent declined the task.
    Rejected,
    /// Interrupted: waits for credentials.
    AuthRequired,
    /// The agent does not know (1.0 `TASK_STATE_UNSPECIFIED`).
    Unknown,
}

impl TaskState {
    /// `true` for the states a task never leaves: completed, canceled, failed, rejected.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Canceled | Self::Failed | Self::Rejected)
    }

    /// `true` for the states where the agent waits for the client: input-required, auth-required.
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }
}

/// A 0.3 task status: the state, an optional agent message, and when it was set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The lifecycle state.
    pub state: TaskState,
    /// What the agent said with this state (the clarifying question for input-required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the state was set, as an ISO 8601 timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A 0.3 task (`"kind": "task"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "task", rename_all = "camelCase", try_from = "ObjectRepr")]
pub struct Task {
    /// Assigned by the agent.
    pub id: TaskId,
    /// The conversation the task belongs to (required in 0.3).
    pub context_id: ContextId,
    /// The current status.
    pub status: TaskStatus,
    /// What the task produced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// The messages exchanged, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl TryFrom<ObjectRepr> for Task {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        match repr.into_object(&["task"])? {
            kinded::Object::Task(task) => Ok(task),
            _ => Err(kinded::UNREACHABLE_KIND.to_owned()),
        }
    }
}

/// An output of a 0.3 task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Artifact {
    /// Unique within the task.
    pub artifact_id: ArtifactId,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions the artifact uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}
