//! Reading the 0.3 objects told apart by `kind` without losing JSON paths.
//!
//! serde's internally tagged enums buffer the object before choosing a variant, and an error inside
//! the buffered object loses its path (`status.state` would be reported at the root). Instead every
//! kinded object is read into [`ObjectRepr`], a plain struct holding every member any of the four
//! kinds may carry, and then assembled by `kind`. Errors inside a member keep their full path; a
//! missing or unknown `kind` or a missing required member is reported at the object's path.
//!
//! The price: a member that another kind defines is read with that kind's type even where it is
//! ignored, so a task carrying, say, a numeric `taskId` (a message and event member) is refused
//! instead of having it ignored. A conforming 0.3 peer never sends that; keeping exact error paths is
//! worth more. The same holds for the members of [`Part`](super::Part)'s three kinds.

use serde::Deserialize;

use super::events::{TaskArtifactUpdateEvent, TaskStatusUpdateEvent};
use super::message::{Message, Part, Role};
use super::task::{Artifact, Task, TaskStatus};
use crate::Metadata;
use crate::ids::{ContextId, MessageId, TaskId};

pub(super) use super::events::StreamResult as Object;

/// Message used where a kind already checked by [`ObjectRepr::into_object`] comes back as another.
pub(super) const UNREACHABLE_KIND: &str = "internal error: kind checked but another was built";

/// Every member of a 0.3 Task, Message, TaskStatusUpdateEvent or TaskArtifactUpdateEvent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ObjectRepr {
    kind: Option<String>,
    id: Option<TaskId>,
    context_id: Option<ContextId>,
    status: Option<TaskStatus>,
    artifacts: Option<Vec<Artifact>>,
    history: Option<Vec<Message>>,
    metadata: Option<Metadata>,
    message_id: Option<MessageId>,
    task_id: Option<TaskId>,
    role: Option<Role>,
    parts: Option<Vec<Part>>,
    extensions: Option<Vec<String>>,
    reference_task_ids: Option<Vec<TaskId>>,
    #[serde(rename = "final")]
    is_final: Option<bool>,
    artifact: Option<Artifact>,
    append: Option<bool>,
    last_chunk: Option<bool>,
}

/// Takes a required member or says which one is missing for which kind.
pub(super) fn required<T>(value: Option<T>, field: &str, kind: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing field `{field}` (required for kind \"{kind}\")"))
}

fn quoted(kinds: &[&str]) -> String {
    kinds.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ")
}

impl ObjectRepr {
    /// Builds the object its `kind` names, refusing kinds not in `allowed`.
    pub(super) fn into_object(self, allowed: &[&str]) -> Result<Object, String> {
        let kind = match self.kind.as_deref() {
            None => return Err(format!("missing field `kind`; expected {}", quoted(allowed))),
            Some(kind) if !allowed.contains(&kind) => {
                let known = ["task", "message", "status-update", "artifact-update"].contains(&kind);
                let what = if known { "unexpected" } else { "unknown" };
                return Err(format!("{what} kind \"{kind}\"; expected {}", quoted(allowed)));
            }
            Some(kind) => kind.to_owned(),
        };
        let k = kind.as_str();
        Ok(match k {
            "task" => Object::Task(Task {
                id: required(self.id, "id", k)?,
                context_id: required(self.context_id, "contextId", k)?,
                status: required(self.status, "status", k)?,
                artifacts: self.artifacts.unwrap_or_default(),
                history: self.history.unwrap_or_default(),
                metadata: self.metadata,
            }),
            "message" => Object::Message(Message {
                message_id: required(self.message_id, "messageId", k)?,
                context_id: self.context_id,
                task_id: self.task_id,
                role: required(self.role, "role", k)?,
                parts: required(self.parts, "parts", k)?,
                metadata: self.metadata,
                extensions: self.extensions.unwrap_or_default(),
                reference_task_ids: self.reference_task_ids.unwrap_or_default(),
            }),
            "status-update" => Object::StatusUpdate(TaskStatusUpdateEvent {
                task_id: required(self.task_id, "taskId", k)?,
                context_id: required(self.context_id, "contextId", k)?,
                status: required(self.status, "status", k)?,
                is_final: required(self.is_final, "final", k)?,
                metadata: self.metadata,
            }),
            "artifact-update" => Object::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: required(self.task_id, "taskId", k)?,
                context_id: required(self.context_id, "contextId", k)?,
                artifact: required(self.artifact, "artifact", k)?,
                append: self.append.unwrap_or_default(),
                last_chunk: self.last_chunk.unwrap_or_default(),
                metadata: self.metadata,
            }),
            _ => return Err(format!("unknown kind \"{kind}\"; expected {}", quoted(allowed))),
        })
    }
}
