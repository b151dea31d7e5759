//! How a task answers an agent that asks for input, and how much history it asks for: the task's
//! session applies both on every handle, so they sit beside it; [`crate::negotiate`] re-exports them
//! with the rest of what a caller asks of a run.

use std::fmt;
use std::sync::Arc;

use a2a_typestate_types::{ContextId, Message, TaskId, TaskState};

/// How many messages of history the client asks for when it relies on the agent's history: 100.
pub const DEFAULT_HISTORY_LENGTH: u32 = 100;

/// How many follow-up messages one task may take before the client stops answering: 8. Bounds the
/// conversation with an agent that keeps asking.
pub const DEFAULT_MAX_FOLLOW_UPS: u32 = 8;

/// The agent paused the task and asks the client for something (`INPUT_REQUIRED`, or
/// `AUTH_REQUIRED`): what a [`FollowUp`] policy answers.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    /// The paused task.
    pub task_id: TaskId,
    /// Its context: the follow-up carries it with the task id (spec §3.4.3).
    pub context_id: Option<ContextId>,
    /// `INPUT_REQUIRED` or `AUTH_REQUIRED`.
    pub state: TaskState,
    /// What the agent said with the state (its question), if anything.
    pub question: Option<Message>,
}

type Answer = dyn Fn(&InputRequest) -> Option<Message> + Send + Sync;

/// How the client answers an agent that asks for input. The answer's `taskId` and `contextId` are
/// set by the client to the paused task's, so a policy only writes the content.
///
/// ```
/// use a2a_typestate_client::Message;
/// use a2a_typestate_client::negotiate::FollowUp;
///
/// // Always answer with the same text (the design note's observed run needs one clarification).
/// let policy = FollowUp::reply("use metric units");
/// // Or decide from the agent's question.
/// let policy = FollowUp::with(|request| {
///     let asked = request.question.as_ref().and_then(Message::text).unwrap_or_default();
///     (!asked.is_empty()).then(|| Message::user("yes"))
/// });
/// # let _ = policy;
/// ```
#[derive(Clone, Default)]
pub struct FollowUp {
    answer: Option<Arc<Answer>>,
}

impl FollowUp {
    /// Never answers: a task that asks for input ends the run with the paused task as its result.
    pub fn none() -> Self {
        Self { answer: None }
    }

    /// Answers every request with a text message holding `text`.
    pub fn reply(text: impl Into<String>) -> Self {
        let text = text.into();
        Self::with(move |_| Some(Message::user(text.clone())))
    }

    /// Answers with what `answer` returns; `None` stops answering (the paused task is the result).
    pub fn with(answer: impl Fn(&InputRequest) -> Option<Message> + Send + Sync + 'static) -> Self {
        Self { answer: Some(Arc::new(answer)) }
    }

    /// The follow-up message for `request`, with its task and context ids set, or `None` (the
    /// send gives it a random id when the policy wrote none).
    pub(crate) fn answer(&self, request: &InputRequest) -> Option<Message> {
        let answer = self.answer.as_ref()?;
        let mut message = answer(request)?;
        message.task_id = Some(request.task_id.clone());
        message.context_id = request.context_id.clone();
        Some(message)
    }
}

/// What one task has left to answer with: its policy and the rest of its budget. Both follow-up
/// loops, a tracked task's turns (`run_task`) and the single-shot send, take their answers here.
pub(crate) struct FollowUps {
    policy: FollowUp,
    left: u32,
}

impl FollowUps {
    pub(crate) fn new(policy: FollowUp, budget: u32) -> Self {
        Self { policy, left: budget }
    }

    /// The answer to `request`, counted against the budget; `None` once the budget is spent (the
    /// policy is not asked then) or when the policy gives none.
    pub(crate) fn answer(&mut self, request: &InputRequest) -> Option<Message> {
        if self.left == 0 {
            return None;
        }
        let answer = self.policy.answer(request)?;
        self.left -= 1;
        Some(answer)
    }
}

impl fmt::Debug for FollowUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FollowUp").field("answers", &self.answer.is_some()).finish()
    }
}
