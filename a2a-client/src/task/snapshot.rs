//! The task as the client has seen it so far, folded from send responses, stream events and
//! `GetTask` results: what a run returns as its result.

use a2a_typestate_types::{
    Message, Part, PartContent, SendMessageResponse, StreamResponse, Task, TaskArtifactUpdateEvent,
};

/// The last known task (or direct message) of a run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot {
    task: Option<Task>,
    direct: Option<Message>,
    /// Bytes of content held: the parts of the task's artifacts and history, or of the direct
    /// message. What [`TaskBudget::result_bytes`](crate::TaskBudget::result_bytes) bounds.
    held: usize,
}

/// The bytes of content a part holds (its text, bytes, link or JSON text).
fn part_bytes(part: &Part) -> usize {
    match &part.content {
        PartContent::Text(text) | PartContent::Url(text) => text.len(),
        PartContent::Raw(bytes) => bytes.len(),
        PartContent::Data(json) => json.get().len(),
    }
}

fn parts_bytes(parts: &[Part]) -> usize {
    parts.iter().map(part_bytes).sum()
}

fn task_bytes(task: &Task) -> usize {
    let artifacts: usize = task.artifacts.iter().map(|a| parts_bytes(&a.parts)).sum();
    let history: usize = task.history.iter().map(|m| parts_bytes(&m.parts)).sum();
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
        self.held = parts_bytes(&message.parts);
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
                    self.held += parts_bytes(&message.parts);
                    match task.history.iter_mut().rev().find(|m| m.message_id == message.message_id) {
                        Some(held) => held.parts.extend(message.parts),
                        None => task.history.push(message),
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
        let added = parts_bytes(&update.artifact.parts);
        match task.artifacts.iter_mut().find(|a| &a.artifact_id == id) {
            Some(existing) if update.append => {
                self.held += added;
                existing.parts.extend(update.artifact.parts);
            }
            Some(existing) => {
                // A whole artifact again: it replaces the one held, and so does its size.
                self.held = self.held.saturating_sub(parts_bytes(&existing.parts)) + added;
                *existing = update.artifact;
            }
            None => {
                self.held += added;
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
        let mut snapshot = Snapshot::default();
        snapshot.apply_event(chunk("abc", false));
        snapshot.apply_event(chunk("de", true));
        assert_eq!(snapshot.held_bytes(), 5);
        for _ in 0..100 {
            snapshot.apply_event(chunk("abcdef", false));
        }
        assert_eq!(snapshot.held_bytes(), 6, "an artifact sent whole again replaces the one held");
    }
}
