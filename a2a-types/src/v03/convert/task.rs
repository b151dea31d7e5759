//! Messages, parts, tasks, statuses and artifacts.

use serde_json::{Map, Value};

use super::{Losses, at, conversions, index};
use crate::ids::ContextId;
use crate::v1;
use crate::v03::{
    Artifact, DataPart, FileContent, FilePart, FileSource, Message, Part, Role, Task, TaskState, TaskStatus,
    TextPart,
};

conversions!(Message, v1::Message, message_to_v1, message_from_v1);
conversions!(Part, v1::Part, part_to_v1, part_from_v1);
conversions!(Task, v1::Task, task_to_v1, task_from_v1);
conversions!(TaskStatus, v1::TaskStatus, status_to_v1, status_from_v1);
conversions!(Artifact, v1::Artifact, artifact_to_v1, artifact_from_v1);

impl TaskState {
    /// The 1.0 state; `unknown` is `TASK_STATE_UNSPECIFIED`. Every state has one.
    pub fn to_v1(self) -> v1::TaskState {
        match self {
            Self::Submitted => v1::TaskState::Submitted,
            Self::Working => v1::TaskState::Working,
            Self::InputRequired => v1::TaskState::InputRequired,
            Self::Completed => v1::TaskState::Completed,
            Self::Canceled => v1::TaskState::Canceled,
            Self::Failed => v1::TaskState::Failed,
            Self::Rejected => v1::TaskState::Rejected,
            Self::AuthRequired => v1::TaskState::AuthRequired,
            Self::Unknown => v1::TaskState::Unspecified,
        }
    }

    /// The 0.3 state; `TASK_STATE_UNSPECIFIED` is `unknown`. Every state has one.
    pub fn from_v1(state: v1::TaskState) -> Self {
        match state {
            v1::TaskState::Submitted => Self::Submitted,
            v1::TaskState::Working => Self::Working,
            v1::TaskState::InputRequired => Self::InputRequired,
            v1::TaskState::Completed => Self::Completed,
            v1::TaskState::Canceled => Self::Canceled,
            v1::TaskState::Failed => Self::Failed,
            v1::TaskState::Rejected => Self::Rejected,
            v1::TaskState::AuthRequired => Self::AuthRequired,
            v1::TaskState::Unspecified => Self::Unknown,
        }
    }

    /// What 1.0 infers about the end of a stream from this state: a 1.0 stream closes at terminal
    /// and interrupted states. The 0.3 `final` flag is lossless exactly when it equals this.
    pub fn ends_stream(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }
}

impl Role {
    /// The 1.0 role.
    pub fn to_v1(self) -> v1::Role {
        match self {
            Self::User => v1::Role::User,
            Self::Agent => v1::Role::Agent,
        }
    }
}

fn role_from_v1(role: v1::Role, path: &str, losses: &mut Losses) -> Role {
    match role {
        v1::Role::User => Role::User,
        v1::Role::Agent => Role::Agent,
        v1::Role::Unspecified => {
            losses.lose(path.to_owned(), "ROLE_UNSPECIFIED has no 0.3 form; written as \"user\"");
            Role::User
        }
    }
}

/// 0.3 requires a `contextId` where 1.0 makes it optional: an absent one is written as `""`.
pub(super) fn required_context(context_id: Option<&ContextId>, path: &str, losses: &mut Losses) -> ContextId {
    match context_id {
        Some(context_id) => context_id.clone(),
        None => {
            losses.lose(at(path, "contextId"), "absent, but required in 0.3; written as \"\"");
            ContextId::default()
        }
    }
}

/// An empty 0.3 `contextId` is 1.0's "not set".
pub(super) fn optional_context(context_id: &ContextId) -> Option<ContextId> {
    (!context_id.is_empty()).then(|| context_id.clone())
}

pub(super) fn message_to_v1(m: &Message, path: &str, losses: &mut Losses) -> v1::Message {
    v1::Message {
        message_id: m.message_id.clone(),
        context_id: m.context_id.clone(),
        task_id: m.task_id.clone(),
        role: m.role.to_v1(),
        parts: parts_to_v1(&m.parts, &at(path, "parts"), losses),
        metadata: m.metadata.clone(),
        extensions: m.extensions.clone(),
        reference_task_ids: m.reference_task_ids.clone(),
    }
}

pub(super) fn message_from_v1(m: &v1::Message, path: &str, losses: &mut Losses) -> Message {
    Message {
        message_id: m.message_id.clone(),
        context_id: m.context_id.clone(),
        task_id: m.task_id.clone(),
        role: role_from_v1(m.role, &at(path, "role"), losses),
        parts: parts_from_v1(&m.parts, &at(path, "parts"), losses),
        metadata: m.metadata.clone(),
        extensions: m.extensions.clone(),
        reference_task_ids: m.reference_task_ids.clone(),
    }
}

fn parts_to_v1(parts: &[Part], path: &str, losses: &mut Losses) -> Vec<v1::Part> {
    parts.iter().enumerate().map(|(i, p)| part_to_v1(p, &index(path, i), losses)).collect()
}

fn parts_from_v1(parts: &[v1::Part], path: &str, losses: &mut Losses) -> Vec<Part> {
    parts.iter().enumerate().map(|(i, p)| part_from_v1(p, &index(path, i), losses)).collect()
}

pub(super) fn part_to_v1(part: &Part, _path: &str, _losses: &mut Losses) -> v1::Part {
    match part {
        Part::Text(TextPart { text, metadata }) => v1::Part {
            content: v1::PartContent::Text(text.clone()),
            metadata: metadata.clone(),
            filename: None,
            media_type: None,
        },
        Part::File(FilePart { file, metadata }) => v1::Part {
            content: match &file.source {
                FileSource::Bytes(bytes) => v1::PartContent::Raw(bytes.clone()),
                FileSource::Uri(uri) => v1::PartContent::Url(uri.clone()),
            },
            metadata: metadata.clone(),
            filename: file.name.clone(),
            media_type: file.mime_type.clone(),
        },
        Part::Data(DataPart { data, metadata }) => v1::Part {
            content: v1::PartContent::Data(crate::JsonText::from_value(&Value::Object(data.clone()))),
            metadata: metadata.clone(),
            filename: None,
            media_type: None,
        },
    }
}

pub(super) fn part_from_v1(part: &v1::Part, path: &str, losses: &mut Losses) -> Part {
    let metadata = part.metadata.clone();
    let file =
        |source| FileContent { source, mime_type: part.media_type.clone(), name: part.filename.clone() };
    let lose_file_fields = |kind: &str, losses: &mut Losses| {
        if let Some(filename) = &part.filename {
            losses.lose(at(path, "filename"), format!("{filename:?} has no place on a 0.3 {kind} part"));
        }
        if let Some(media_type) = &part.media_type {
            losses.lose(at(path, "mediaType"), format!("{media_type:?} has no place on a 0.3 {kind} part"));
        }
    };
    match &part.content {
        v1::PartContent::Text(text) => {
            lose_file_fields("text", losses);
            Part::Text(TextPart { text: text.clone(), metadata })
        }
        v1::PartContent::Raw(bytes) => {
            Part::File(FilePart { file: file(FileSource::Bytes(bytes.clone())), metadata })
        }
        v1::PartContent::Url(url) => {
            Part::File(FilePart { file: file(FileSource::Uri(url.clone())), metadata })
        }
        v1::PartContent::Data(data) => {
            lose_file_fields("data", losses);
            // 0.3 reads data parts as objects, so the value is parsed here.
            let data = match data.value() {
                Value::Object(object) => object,
                other => {
                    losses.lose(
                        at(path, "data"),
                        "0.3 data parts hold JSON objects only; the value is wrapped as {\"value\": ...}",
                    );
                    Map::from_iter([("value".to_owned(), other)])
                }
            };
            Part::Data(DataPart { data, metadata })
        }
    }
}

pub(super) fn status_to_v1(s: &TaskStatus, path: &str, losses: &mut Losses) -> v1::TaskStatus {
    v1::TaskStatus {
        state: s.state.to_v1(),
        message: s.message.as_ref().map(|m| message_to_v1(m, &at(path, "message"), losses)),
        timestamp: s.timestamp.clone(),
    }
}

pub(super) fn status_from_v1(s: &v1::TaskStatus, path: &str, losses: &mut Losses) -> TaskStatus {
    TaskStatus {
        state: TaskState::from_v1(s.state),
        message: s.message.as_ref().map(|m| message_from_v1(m, &at(path, "message"), losses)),
        timestamp: s.timestamp.clone(),
    }
}

pub(super) fn artifact_to_v1(a: &Artifact, path: &str, losses: &mut Losses) -> v1::Artifact {
    v1::Artifact {
        artifact_id: a.artifact_id.clone(),
        name: a.name.clone(),
        description: a.description.clone(),
        parts: parts_to_v1(&a.parts, &at(path, "parts"), losses),
        metadata: a.metadata.clone(),
        extensions: a.extensions.clone(),
    }
}

pub(super) fn artifact_from_v1(a: &v1::Artifact, path: &str, losses: &mut Losses) -> Artifact {
    Artifact {
        artifact_id: a.artifact_id.clone(),
        name: a.name.clone(),
        description: a.description.clone(),
        parts: parts_from_v1(&a.parts, &at(path, "parts"), losses),
        metadata: a.metadata.clone(),
        extensions: a.extensions.clone(),
    }
}

pub(super) fn task_to_v1(t: &Task, path: &str, losses: &mut Losses) -> v1::Task {
    v1::Task {
        id: t.id.clone(),
        context_id: optional_context(&t.context_id),
        status: status_to_v1(&t.status, &at(path, "status"), losses),
        artifacts: t
            .artifacts
            .iter()
            .enumerate()
            .map(|(i, a)| artifact_to_v1(a, &index(&at(path, "artifacts"), i), losses))
            .collect(),
        history: t
            .history
            .iter()
            .enumerate()
            .map(|(i, m)| message_to_v1(m, &index(&at(path, "history"), i), losses))
            .collect(),
        metadata: t.metadata.clone(),
    }
}

pub(super) fn task_from_v1(t: &v1::Task, path: &str, losses: &mut Losses) -> Task {
    Task {
        id: t.id.clone(),
        context_id: required_context(t.context_id.as_ref(), path, losses),
        status: status_from_v1(&t.status, &at(path, "status"), losses),
        artifacts: t
            .artifacts
            .iter()
            .enumerate()
            .map(|(i, a)| artifact_from_v1(a, &index(&at(path, "artifacts"), i), losses))
            .collect(),
        history: t
            .history
            .iter()
            .enumerate()
            .map(|(i, m)| message_from_v1(m, &index(&at(path, "history"), i), losses))
            .collect(),
        metadata: t.metadata.clone(),
    }
}
