//! The task as the client has seen it so far, folded from send responses, stream events and
//! `GetTask` results: what a run returns as its result.

use std::mem::size_of;

use a2a_typestate_types::{
    Artifact, Message, Part, PartContent, SendMessageResponse, StreamResponse, Task, TaskArtifactUpdateEvent,
};

/// The last known task (or direct message) of a run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot {
    task: Option<Task>,
    direct: Option<Message>,
    /// Bytes held: the task's artifacts and history, or the direct message, each counted as the
    /// memory it takes (see [`part_bytes`]). What
    /// [`TaskBudget::result_bytes`](crate::TaskBudget::result_bytes) bounds.
    held: usize,
}

/// The memory a part takes: the part itself, its content (text, bytes, link or JSON text), its
/// names and its metadata. Counting the part and not only its content is what bounds an endless
/// stream of one-byte chunks: each costs a whole part, not the one byte it carries.
fn part_bytes(part: &Part) -> usize {
    let content = match &part.content {
        PartContent::Text(text) | PartContent::Url(text) => text.len(),
        PartContent::Raw(bytes) => bytes.len(),
        PartContent::Data(json) => json.get().len(),
    };
    let names =
        part.filename.as_ref().map_or(0, String::len) + part.media_type.as_ref().map_or(0, String::len);
    let metadata =
        part.metadata.as_ref().map_or(0, |m| m.iter().map(|(key, text)| key.len() + text.get().len()).sum());
    size_of::<Part>() + content + names + metadata
}

fn parts_bytes(parts: &[Part]) -> usize {
    parts.iter().map(part_bytes).sum()
}

fn artifact_bytes(artifact: &Artifact) -> usize {
    size_of::<Artifact>() + parts_bytes(&artifact.parts)
}

fn message_bytes(message: &Message) -> usize {
    size_of::<Message>() + parts_bytes(&message.parts)
}

fn task_bytes(task: &Task) -> usize {
    let artifacts: usize = task.artifacts.iter().map(artifact_bytes).sum();
    let history: usize = task.history.iter().map(message_bytes).sum();
    artifacts + history
}

impl Snapshot {
    pub(crate) fn task(&self) -> Option<&Task> {
        self.task.as_ref()
    }

    /// The bytes of content held so far (artifacts and history, or the direct message).
    pub(crate) fn held_bytes(&self) -> usize {
        self.held
    }

    /// A whole task replaces what was known (a `GetTask` or send result is authoritative).
    pub(crate) fn replace(&mut self, task: Task) {
        self.held = task_bytes(&task);
        self.task = Some(task);
    }

    pub(crate) fn apply_send(&mut self, response: &SendMessageResponse) {
        match response {
            SendMessageResponse::Task(task) => self.replace(task.clone()),
            SendMessageResponse::Message(message) => self.set_direct(message.clone()),
        }
    }

    fn set_direct(&mut self, message: Message) {
        self.held = message_bytes(&message);
        self.direct = Some(message);
    }

    /// Folds an event in, taking it: an artifact's parts are moved into the task, not copied (a
    /// streamed result is held once).
    pub(crate) fn apply_event(&mut self, event: StreamResponse) {
        match event {
            StreamResponse::Task(task) => self.replace(task),
            // A message within a task joins its history, where the task keeps what was said;
            // events repeating a message's id are chunks of that one message (Agno streams its
            // answer so), their parts appended.
            StreamResponse::Message(message) => match &mut self.task {
                None => self.set_direct(message),
                Some(task) => {
                    match task.history.iter_mut().rev().find(|m| m.message_id == message.message_id) {
                        Some(held) => {
                            self.held += parts_bytes(&message.parts);
                            held.parts.extend(message.parts);
                        }
                        None => {
                            self.held += message_bytes(&message);
                            task.history.push(message);
                        }
                    }
                }
            },
            StreamResponse::StatusUpdate(update) => {
                let task =
                    self.task.get_or_insert_with(|| Task::new(update.task_id.clone(), update.status.state));
                if task.context_id.is_none() {
                    task.context_id = update.context_id;
                }
                task.status = update.status;
            }
            StreamResponse::ArtifactUpdate(update) => self.apply_artifact(update),
        }
    }

    fn apply_artifact(&mut self, update: TaskArtifactUpdateEvent) {
        let task = self.task.get_or_insert_with(|| {
            Task::new(update.task_id.clone(), a2a_typestate_types::TaskState::Working)
        });
        let id = &update.artifact.artifact_id;
        match task.artifacts.iter_mut().find(|a| &a.artifact_id == id) {
            Some(existing) if update.append => {
                self.held += parts_bytes(&update.artifact.parts);
                existing.parts.extend(update.artifact.parts);
            }
            Some(existing) => {
                // A whole artifact again: it replaces the one held, and so does its size.
                let added = artifact_bytes(&update.artifact);
                self.held = self.held.saturating_sub(artifact_bytes(existing)) + added;
                *existing = update.artifact;
            }
            None => {
                self.held += artifact_bytes(&update.artifact);
                task.artifacts.push(update.artifact);
            }
        }
    }

    /// The result, moved out (what was seen is then forgotten): for a handle that ends here.
    pub(crate) fn take_response(&mut self) -> Option<SendMessageResponse> {
        self.held = 0;
        match (self.task.take(), self.direct.take()) {
            (Some(task), _) => Some(SendMessageResponse::Task(task)),
            (None, Some(message)) => Some(SendMessageResponse::Message(message)),
            (None, None) => None,
        }
    }

    /// The result: the task when there is one, else the direct message.
    pub(crate) fn response(&self) -> Option<SendMessageResponse> {
        match (&self.task, &self.direct) {
            (Some(task), _) => Some(SendMessageResponse::Task(task.clone())),
            (None, Some(message)) => Some(SendMessageResponse::Message(message.clone())),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use a2a_typestate_types::{Artifact, Part, TaskState, TaskStatus, TaskStatusUpdateEvent};

    use super::*;

    #[test]
    fn stream_events_fold_into_the_task_with_appended_artifact_chunks() {
        let mut snapshot = Snapshot::default();
        snapshot.apply_event(StreamResponse::Task(Task::new("t1", TaskState::Submitted)));
        let chunk = |text: &str, append| {
            StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: "t1".into(),
                artifact: Artifact::new("a1", vec![Part::text(text)]),
                append,
                ..Default::default()
            })
        };
        snapshot.apply_event(chunk("one", false));
        snapshot.apply_event(chunk("two", true));
        snapshot.apply_event(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t1".into(),
            status: TaskStatus::new(TaskState::Completed),
            ..Default::default()
        }));
        let Some(SendMessageResponse::Task(task)) = snapshot.response() else {
            panic!("a task was streamed")
        };
        assert_eq!(task.state(), TaskState::Completed);
        assert_eq!(task.artifacts.len(), 1);
        assert_eq!(task.artifacts[0].parts.len(), 2);
    }

    #[test]
    fn what_is_held_counts_appended_chunks_once_and_a_whole_artifact_again_as_itself() {
        let chunk = |text: &str, append| {
            StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: "t".into(),
                artifact: Artifact::new("a", vec![Part::text(text)]),
                append,
                ..Default::default()
            })
        };
        let (artifact, part) = (size_of::<Artifact>(), size_of::<Part>());
        let mut snapshot = Snapshot::default();
        snapshot.apply_event(chunk("abc", false));
        snapshot.apply_event(chunk("de", true));
        assert_eq!(snapshot.held_bytes(), artifact + 2 * part + 5);
        for _ in 0..100 {
            snapshot.apply_event(chunk("abcdef", false));
        }
        assert_eq!(
            snapshot.held_bytes(),
            artifact + part + 6,
            "an artifact sent whole again replaces the one held"
        );
    }

    #[test]
    fn tiny_chunks_are_held_at_what_each_part_costs_not_the_bytes_it_carries() {
        let mut snapshot = Snapshot::default();
        for n in 0..1_000 {
            snapshot.apply_event(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: "t".into(),
                artifact: Artifact::new("a", vec![Part::text("x")]),
                append: n > 0,
                ..Default::default()
            }));
        }
        // What the parts really take: a thousand parts, not a thousand bytes.
        assert!(snapshot.held_bytes() >= 1_000 * size_of::<Part>(), "{}", snapshot.held_bytes());
    }
}
