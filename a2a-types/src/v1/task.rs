//! `Task`, its `TaskStatus`, and the `Artifact`s it produces.
//!
//! ```
//! use a2a_typestate_types::{parse, Task, TaskState};
//!
//! let task: Task = parse::from_str(
//!     r#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"history":[]}"#,
//! ).unwrap();
//! assert_eq!(task.state(), TaskState::Working);
//! assert!(!task.is_terminal());
//! ```

use serde::{Deserialize, Serialize};

use crate::Metadata;
use crate::ids::{ArtifactId, ContextId, TaskId};
use crate::protojson::is_default;
use crate::v1::enums::TaskState;
use crate::v1::message::{Message, Part, wire};

/// A unit of work the agent tracks (`lf.a2a.v1.Task`); its id is assigned by the agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Task {
    /// The agent-assigned id.
    #[serde(skip_serializing_if = "is_default")]
    pub id: TaskId,
    /// The conversation the task belongs to (not REQUIRED in 1.0.0).
    #[serde(
        alias = "context_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<ContextId>,
    /// Where the task is now.
    pub status: TaskStatus,
    /// What the task has produced so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// Earlier messages, oldest first; trimmed or omitted according to `historyLength`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Task {
    /// A task in `state` with nothing else set.
    pub fn new(id: impl Into<TaskId>, state: TaskState) -> Self {
        Self { id: id.into(), status: TaskStatus::new(state), ..Self::default() }
    }

    /// Sets the conversation the task belongs to.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<ContextId>) -> Self {
        self.context_id = Some(context_id.into());
        self
    }

    /// The current state (`status.state`).
    pub fn state(&self) -> TaskState {
        self.status.state
    }

    /// `true` once the task can never change again.
    pub fn is_terminal(&self) -> bool {
        self.status.state.is_terminal()
    }

    /// The artifact with the given id, if the task has one.
    pub fn artifact(&self, artifact_id: &ArtifactId) -> Option<&Artifact> {
        self.artifacts.iter().find(|a| &a.artifact_id == artifact_id)
    }

    /// The parts that answer the task, wherever the agent put them: its artifacts' parts when it
    /// has artifacts; else those of the agent's messages in its history since the client's last
    /// message (agents that stream their answer as messages); else the status message's (agents
    /// that answer in `status.message`). Empty when the agent answered nothing yet.
    pub fn answer_parts(&self) -> Vec<&super::message::Part> {
        use super::enums::Role;
        if !self.artifacts.is_empty() {
            return self.artifacts.iter().flat_map(|a| &a.parts).collect();
        }
        let since = self.history.iter().rposition(|m| m.role == Role::User).map_or(0, |at| at + 1);
        let said: Vec<&super::message::Part> =
            self.history[since..].iter().filter(|m| m.role == Role::Agent).flat_map(|m| &m.parts).collect();
        if !said.is_empty() {
            return said;
        }
        self.status.message.iter().flat_map(|m| &m.parts).collect()
    }
}

/// A task's state with the message and time that came with it (`lf.a2a.v1.TaskStatus`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskStatus {
    /// The lifecycle state.
    #[serde(skip_serializing_if = "is_default")]
    pub state: TaskState,
    /// What the agent said with this state, such as the question of an input-required task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the state was entered, as an RFC 3339 timestamp (kept as text; not interpreted here).
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// A status in `state`, with no message or timestamp.
    pub fn new(state: TaskState) -> Self {
        Self { state, message: None, timestamp: None }
    }
}

/// Something a task produced, made of parts (`lf.a2a.v1.Artifact`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Artifact {
    /// Unique within the task; streaming chunks with `append` reuse it.
    #[serde(alias = "artifact_id", skip_serializing_if = "is_default")]
    pub artifact_id: ArtifactId,
    /// A human-readable name.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A human-readable description.
    #[serde(deserialize_with = "wire::non_empty", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content; the protocol requires at least one part (not enforced when reading).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions that shaped this artifact.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

impl Artifact {
    /// An artifact with the given id and parts.
    pub fn new(artifact_id: impl Into<ArtifactId>, parts: Vec<Part>) -> Self {
        Self { artifact_id: artifact_id.into(), parts, ..Self::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::message::{Message, Part};

    #[test]
    fn the_answer_is_read_where_the_agent_put_it() {
        let mut task = Task::new("t", TaskState::Completed);
        assert!(task.answer_parts().is_empty());
        // In the status message (BeeAI), the history holding only the client's message.
        task.status.message = Some(Message::agent("from the status"));
        task.history = vec![Message::user("question")];
        assert_eq!(task.answer_parts(), [&Part::text("from the status")]);
        // Streamed as messages (Agno): the agent's messages since the client's last one win.
        task.history =
            vec![Message::agent("old answer"), Message::user("again"), Message::agent("new answer")];
        assert_eq!(task.answer_parts(), [&Part::text("new answer")]);
        // Artifacts win over both.
        task.artifacts = vec![Artifact { parts: vec![Part::text("artifact")], ..Artifact::default() }];
        assert_eq!(task.answer_parts(), [&Part::text("artifact")]);
    }
}
