//! The task as the client has seen it so far, folded from send responses, stream events and
//! `GetTask` results: what a run returns as its result.

use a2a_typestate_types::{Message, SendMessageResponse, StreamResponse, Task, TaskArtifactUpdateEvent};

/// The last known task (or direct message) of a run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot {
    task: Option<Task>,
    direct: Option<Message>,
}

impl Snapshot {
    pub(crate) fn task(&self) -> Option<&Task> {
        self.task.as_ref()
    }

    /// A whole task replaces what was known (a `GetTask` or send result is authoritative).
    pub(crate) fn replace(&mut self, task: Task) {
        self.task = Some(task);
    }

    pub(crate) fn apply_send(&mut self, response: &SendMessageResponse) {
        match response {
            SendMessageResponse::Task(task) => self.replace(task.clone()),
            SendMessageResponse::Message(message) => self.direct = Some(message.clone()),
        }
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
                None => self.direct = Some(message),
                Some(task) => {
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
        match task.artifacts.iter_mut().find(|a| &a.artifact_id == id) {
            Some(existing) if update.append => existing.parts.extend(update.artifact.parts),
            Some(existing) => *existing = update.artifact,
            None => task.artifacts.push(update.artifact),
        }
    }

    /// The result, moved out (what was seen is then forgotten): for a handle that ends here.
    pub(crate) fn take_response(&mut self) -> Option<SendMessageResponse> {
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
}
