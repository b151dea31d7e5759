//! The agent's answer as a run's updates showed it, folded as they arrive, so that a command can say
//! it got an answer even when the run ended in an error after it: a stream that carried the task to
//! the end of its turn (completed, failed, a question...) answered, whatever a follow-up call (a
//! `GetTask` confirming the artifacts, say) did next.

use a2a_typestate_types::{Message, SendMessageResponse, StreamResponse, Task, TaskState};

/// What the updates of one run carried: the task as they built it, or a direct message.
#[derive(Clone, Debug, Default)]
pub struct AnswerSeen {
    task: Option<Task>,
    direct: Option<Message>,
}

impl AnswerSeen {
    /// Folds one update in: a task snapshot replaces what was known, a status update sets the
    /// state, an artifact update adds (or appends to) its artifact.
    pub fn apply(&mut self, update: &StreamResponse) {
        match update {
            StreamResponse::Task(task) => self.task = Some(task.clone()),
            StreamResponse::Message(message) => {
                if self.task.is_none() {
                    self.direct = Some(message.clone());
                }
            }
            StreamResponse::StatusUpdate(update) => {
                let task =
                    self.task.get_or_insert_with(|| Task::new(update.task_id.clone(), update.status.state));
                if task.context_id.is_none() {
                    task.context_id.clone_from(&update.context_id);
                }
                task.status = update.status.clone();
            }
            StreamResponse::ArtifactUpdate(update) => {
                let task =
                    self.task.get_or_insert_with(|| Task::new(update.task_id.clone(), TaskState::Working));
                let id = &update.artifact.artifact_id;
                match task.artifacts.iter_mut().find(|a| &a.artifact_id == id) {
                    Some(existing) if update.append => {
                        existing.parts.extend(update.artifact.parts.iter().cloned())
                    }
                    Some(existing) => *existing = update.artifact.clone(),
                    None => task.artifacts.push(update.artifact.clone()),
                }
            }
        }
    }

    /// The answer the updates carried, when they carried one: a direct message, or the task once it
    /// reached the end of a turn (a terminal state, or a question: `input-required`,
    /// `auth-required`). A task still `working` when the updates stopped is no answer.
    pub fn answer(&self) -> Option<SendMessageResponse> {
        match (&self.task, &self.direct) {
            (Some(task), _) if task.state().is_terminal() || task.state().is_interrupted() => {
                Some(SendMessageResponse::Task(task.clone()))
            }
            (Some(_), _) => None,
            (None, Some(message)) => Some(SendMessageResponse::Message(message.clone())),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use a2a_typestate_types::{
        Artifact, Part, TaskArtifactUpdateEvent, TaskId, TaskStatus, TaskStatusUpdateEvent,
    };

    use super::*;

    fn status(id: &TaskId, state: TaskState) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: id.clone(),
            status: TaskStatus::new(state),
            ..TaskStatusUpdateEvent::default()
        })
    }

    #[test]
    fn a_stream_that_reached_the_end_of_a_turn_is_an_answer_and_one_still_working_is_not() {
        let id = TaskId::new("t-1");
        let mut shown = AnswerSeen::default();
        shown.apply(&StreamResponse::Task(Task::new(id.clone(), TaskState::Submitted)));
        shown.apply(&status(&id, TaskState::Working));
        let chunk = |text: &str, append| {
            let artifact = Artifact::new("a-1", vec![Part::text(text)]);
            let update = TaskArtifactUpdateEvent {
                task_id: id.clone(),
                artifact,
                append,
                ..TaskArtifactUpdateEvent::default()
            };
            StreamResponse::ArtifactUpdate(update)
        };
        shown.apply(&chunk("echo: ", false));
        shown.apply(&chunk("hello", true));
        assert!(shown.answer().is_none(), "still working: no answer yet");
        for end in [TaskState::Completed, TaskState::InputRequired, TaskState::Failed] {
            let mut ended = shown.clone();
            ended.apply(&status(&id, end));
            let Some(SendMessageResponse::Task(task)) = ended.answer() else {
                panic!("{end:?} is an answer")
            };
            assert_eq!(task.state(), end);
            let texts: Vec<&str> = task.artifacts[0].parts.iter().filter_map(|p| p.as_text()).collect();
            assert_eq!(texts, ["echo: ", "hello"], "chunks appended in order");
        }
    }
}
