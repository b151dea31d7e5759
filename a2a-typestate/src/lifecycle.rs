//! The task lifecycle: a state machine over [`TaskState`] that accepts what the spec allows.
//!
//! ```
//! use a2a_typestate_types::{ContextId, TaskId, TaskState};
//! use a2a_typestate::{Lifecycle, TaskEnd, TransitionRule};
//!
//! let (task, ctx) = (TaskId::new("t1"), ContextId::new("c1"));
//! let mut lifecycle = Lifecycle::new();
//! lifecycle.advance(&task, Some(&ctx), TaskState::Working)?;
//! lifecycle.advance(&task, Some(&ctx), TaskState::InputRequired)?;
//! assert_eq!(lifecycle.end(), Some(TaskEnd::Interrupted(TaskState::InputRequired)));
//!
//! // Back to working only after the client answered with the same taskId and contextId.
//! let early = lifecycle.advance(&task, Some(&ctx), TaskState::Working).unwrap_err();
//! assert_eq!(early.rule, TransitionRule::InputRequiredNeedsFollowUp);
//! lifecycle.follow_up(&task, &ctx)?;
//! lifecycle.advance(&task, Some(&ctx), TaskState::Working)?;
//! lifecycle.advance(&task, Some(&ctx), TaskState::Completed)?;
//! assert!(lifecycle.is_finished()); // from the state alone, no `final` flag
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! States are the 1.0 names; a 0.3 task reaches this machine already converted by `a2a_typestate_types::v03`
//! (`"input-required"` becomes [`TaskState::InputRequired`], `"unknown"` becomes
//! [`TaskState::Unspecified`]).
//!
//! | from | accepted next states |
//! | --- | --- |
//! | (no state yet) | any state but `UNSPECIFIED` (a blocking `SendMessage` may return any of them) |
//! | `SUBMITTED` | any state but `UNSPECIFIED` |
//! | `WORKING` | `WORKING` and every later state; not `SUBMITTED` |
//! | `INPUT_REQUIRED` | after a follow-up message with the same `taskId` and `contextId`: any state but `SUBMITTED`; before it: only `INPUT_REQUIRED`, `CANCELED`, `FAILED`, `REJECTED` |
//! | `AUTH_REQUIRED` | any state but `SUBMITTED` (credentials may arrive out of band, spec §7.6) |
//! | terminal (`COMPLETED`, `FAILED`, `CANCELED`, `REJECTED`) | only the same state again (a final `Task` snapshot may be resent) |
//!
//! `UNSPECIFIED` is never accepted. The end of a task is recognised from the state alone
//! ([`Lifecycle::end`]), without the 0.3 `final` flag: 1.0 removed it, and a 0.3 `final: true`
//! always accompanies a terminal or interrupted state anyway.

use std::fmt;

use a2a_typestate_types::{ContextId, TaskId, TaskState};

/// Where a task stands, as far as the client has observed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lifecycle {
    state: Option<TaskState>,
    task_id: Option<TaskId>,
    context_id: Option<ContextId>,
    follow_up_sent: bool,
    transitions: u32,
}

/// How a task's current turn ended: what a stream's close or a blocking send's return means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEnd {
    /// `COMPLETED`, `FAILED`, `CANCELED` or `REJECTED`: the task never changes again.
    Terminal(TaskState),
    /// `INPUT_REQUIRED` or `AUTH_REQUIRED`: the agent waits for the client.
    Interrupted(TaskState),
}

/// What an accepted status did to the lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The task entered a new state (or its first one).
    Entered(TaskState),
    /// The same state was reported again (progress updates, a resent final snapshot).
    Repeated(TaskState),
    /// A push delivery older than what is already known (push is at-least-once and unordered):
    /// recorded for the verifier, ignored by the lifecycle.
    Stale(TaskState),
}

/// Why a reported transition is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransitionRule {
    /// `TASK_STATE_UNSPECIFIED` (0.3 `unknown`) is not a state a task can be in.
    UnspecifiedState,
    /// A terminal state is final.
    TerminalIsFinal,
    /// A task never goes back to `SUBMITTED` once it started.
    NoReturnToSubmitted,
    /// `INPUT_REQUIRED` is left for `WORKING` (or `COMPLETED`, ...) only after the client sent the
    /// requested input as a follow-up message.
    InputRequiredNeedsFollowUp,
    /// The update names another task than the one this lifecycle follows.
    OtherTask,
    /// The update names another context than the task's.
    OtherContext,
}

impl TransitionRule {
    /// `true` when the update belongs to another task or context (rather than breaking the order
    /// of states).
    pub fn is_about_identity(self) -> bool {
        matches!(self, Self::OtherTask | Self::OtherContext)
    }

    fn explain(self) -> &'static str {
        match self {
            Self::UnspecifiedState => "unspecified (TASK_STATE_UNSPECIFIED) is not a task state",
            Self::TerminalIsFinal => "a terminal state is final",
            Self::NoReturnToSubmitted => "a started task never returns to submitted",
            Self::InputRequiredNeedsFollowUp => {
                "input-required is left only after a follow-up message with the same taskId and contextId"
            }
            Self::OtherTask => "the update belongs to another task",
            Self::OtherContext => "the update belongs to another context",
        }
    }
}

/// A status the lifecycle refused, with the rule it broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransitionError {
    /// The state before (`None`: no state observed yet).
    pub from: Option<TaskState>,
    /// The state reported.
    pub to: TaskState,
    /// The rule it broke.
    pub rule: TransitionRule,
}

impl fmt::Display for TransitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from {
            Some(from) => write!(f, "transition {from} -> {} not allowed: {}", self.to, self.rule.explain()),
            None => write!(f, "first state {} not allowed: {}", self.to, self.rule.explain()),
        }
    }
}

impl std::error::Error for TransitionError {}

/// Why a follow-up message cannot be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FollowUpError {
    /// No task exists yet: there is nothing to follow up (send a first message instead).
    NoTask,
    /// The task is terminal; the agent would answer `UnsupportedOperationError`.
    TaskIsTerminal(TaskState),
    /// The message's `taskId` differs from the task's.
    OtherTask {
        /// The task's id.
        expected: TaskId,
        /// The id the message carries.
        found: TaskId,
    },
    /// The message names the task but no `contextId`: a follow-up carries both (spec §3.4.3).
    MissingContextId,
    /// The message's `contextId` differs from the task's (the agent must reject it, spec §3.4.3),
    /// or the task's context is not known yet.
    OtherContext {
        /// The task's context, if known.
        expected: Option<ContextId>,
        /// The context the message carries.
        found: ContextId,
    },
}

impl fmt::Display for FollowUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoTask => f.write_str("no task to follow up: no task id observed yet"),
            Self::MissingContextId => f.write_str("follow-up names the task but carries no contextId"),
            Self::TaskIsTerminal(state) => write!(f, "task is {state}, which accepts no further message"),
            Self::OtherTask { expected, found } => {
                write!(f, "follow-up names task {found:?}, the task is {expected:?}")
            }
            Self::OtherContext { expected: Some(expected), found } => {
                write!(f, "follow-up names context {found:?}, the task's context is {expected:?}")
            }
            Self::OtherContext { expected: None, found } => {
                write!(f, "follow-up names context {found:?}, the task's context is not known")
            }
        }
    }
}

impl std::error::Error for FollowUpError {}

impl Lifecycle {
    /// A lifecycle with no state yet (before the first response).
    pub fn new() -> Self {
        Self::default()
    }

    /// The current state, if any was observed.
    pub fn state(&self) -> Option<TaskState> {
        self.state
    }

    /// The task id, once the agent assigned one.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    /// The context id, once known.
    pub fn context_id(&self) -> Option<&ContextId> {
        self.context_id.as_ref()
    }

    /// How many states were entered so far (repeats not counted).
    pub fn transitions(&self) -> u32 {
        self.transitions
    }

    /// How the current turn ended, if it did: terminal, or interrupted waiting for the client.
    pub fn end(&self) -> Option<TaskEnd> {
        let state = self.state?;
        if state.is_terminal() {
            Some(TaskEnd::Terminal(state))
        } else if state.is_interrupted() {
            Some(TaskEnd::Interrupted(state))
        } else {
            None
        }
    }

    /// `true` once a terminal state was reached: the task is over.
    pub fn is_finished(&self) -> bool {
        matches!(self.end(), Some(TaskEnd::Terminal(_)))
    }

    /// Applies a status reported for `task_id` (and `context_id` when the update carries one).
    ///
    /// # Errors
    ///
    /// A [`TransitionError`] naming the rule when the spec does not allow the transition or the
    /// update belongs to another task or context; the lifecycle is then unchanged.
    pub fn advance(
        &mut self,
        task_id: &TaskId,
        context_id: Option<&ContextId>,
        to: TaskState,
    ) -> Result<Step, TransitionError> {
        let reject = |rule| Err(TransitionError { from: self.state, to, rule });
        if self.task_id.as_ref().is_some_and(|known| known != task_id) {
            return reject(TransitionRule::OtherTask);
        }
        if let (Some(known), Some(given)) = (&self.context_id, context_id)
            && known != given
            && !given.is_empty()
        {
            return reject(TransitionRule::OtherContext);
        }
        if let Some(rule) = self.refusal(to) {
            return reject(rule);
        }
        if self.task_id.is_none() {
            self.task_id = Some(task_id.clone());
        }
        if self.context_id.is_none()
            && let Some(given) = context_id.filter(|c| !c.is_empty())
        {
            self.context_id = Some(given.clone());
        }
        if self.state == Some(to) {
            return Ok(Step::Repeated(to));
        }
        if to == TaskState::Working || to.is_terminal() || to.is_interrupted() {
            // Leaving input-required consumes the follow-up; a new input-required needs a new one.
            self.follow_up_sent = false;
        }
        self.state = Some(to);
        self.transitions += 1;
        Ok(Step::Entered(to))
    }

    fn refusal(&self, to: TaskState) -> Option<TransitionRule> {
        use TaskState::*;
        if to == Unspecified {
            return Some(TransitionRule::UnspecifiedState);
        }
        let from = self.state?;
        if from == to {
            return None;
        }
        if from.is_terminal() {
            return Some(TransitionRule::TerminalIsFinal);
        }
        if to == Submitted {
            return Some(TransitionRule::NoReturnToSubmitted);
        }
        if from == InputRequired && !self.follow_up_sent && !matches!(to, Canceled | Failed | Rejected) {
            return Some(TransitionRule::InputRequiredNeedsFollowUp);
        }
        None
    }

    /// Records a follow-up message the client sends to this task (the answer to `INPUT_REQUIRED`,
    /// credentials for `AUTH_REQUIRED`, or a refinement while it works).
    ///
    /// The message must carry the task's `taskId` and `contextId` (spec §3.4.3).
    ///
    /// # Errors
    ///
    /// [`FollowUpError`] when there is no task yet, the task is terminal, or an id differs.
    pub fn follow_up(&mut self, task_id: &TaskId, context_id: &ContextId) -> Result<(), FollowUpError> {
        let (Some(known_task), Some(state)) = (&self.task_id, self.state) else {
            return Err(FollowUpError::NoTask);
        };
        if state.is_terminal() {
            return Err(FollowUpError::TaskIsTerminal(state));
        }
        if known_task != task_id {
            return Err(FollowUpError::OtherTask { expected: known_task.clone(), found: task_id.clone() });
        }
        if self.context_id.as_ref() != Some(context_id) {
            return Err(FollowUpError::OtherContext {
                expected: self.context_id.clone(),
                found: context_id.clone(),
            });
        }
        self.follow_up_sent = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskState::*;

    fn ids() -> (TaskId, ContextId) {
        (TaskId::new("t1"), ContextId::new("c1"))
    }

    fn at(states: &[TaskState]) -> Lifecycle {
        let (task, ctx) = ids();
        let mut lifecycle = Lifecycle::new();
        for &s in states {
            lifecycle.advance(&task, Some(&ctx), s).unwrap();
        }
        lifecycle
    }

    fn try_to(lifecycle: &mut Lifecycle, to: TaskState) -> Result<Step, TransitionError> {
        let (task, ctx) = ids();
        lifecycle.advance(&task, Some(&ctx), to)
    }

    #[test]
    fn happy_path_submitted_working_completed_is_accepted_and_ends_the_task() {
        let lifecycle = at(&[Submitted, Working, Working, Completed]);
        assert_eq!(lifecycle.end(), Some(TaskEnd::Terminal(Completed)));
        assert!(lifecycle.is_finished());
        assert_eq!(lifecycle.transitions(), 3);
    }

    #[test]
    fn input_required_to_working_is_accepted_after_a_follow_up_with_the_same_ids() {
        let mut lifecycle = at(&[Submitted, Working, InputRequired]);
        assert_eq!(lifecycle.end(), Some(TaskEnd::Interrupted(InputRequired)));
        let (task, ctx) = ids();
        lifecycle.follow_up(&task, &ctx).unwrap();
        assert_eq!(try_to(&mut lifecycle, Working), Ok(Step::Entered(Working)));
        assert_eq!(try_to(&mut lifecycle, Completed), Ok(Step::Entered(Completed)));
    }

    #[test]
    fn input_required_to_working_without_a_follow_up_is_rejected_with_the_rule() {
        let mut lifecycle = at(&[Working, InputRequired]);
        let err = try_to(&mut lifecycle, Working).unwrap_err();
        assert_eq!(err.rule, TransitionRule::InputRequiredNeedsFollowUp);
        assert_eq!(
            err.to_string(),
            "transition input-required -> working not allowed: input-required is left only \
             after a follow-up message with the same taskId and contextId"
        );
        assert_eq!(lifecycle.state(), Some(InputRequired), "a rejected transition changes nothing");
    }

    #[test]
    fn each_input_required_needs_its_own_follow_up() {
        let (task, ctx) = ids();
        let mut lifecycle = at(&[Working, InputRequired]);
        lifecycle.follow_up(&task, &ctx).unwrap();
        try_to(&mut lifecycle, Working).unwrap();
        try_to(&mut lifecycle, InputRequired).unwrap();
        assert_eq!(
            try_to(&mut lifecycle, Working).unwrap_err().rule,
            TransitionRule::InputRequiredNeedsFollowUp
        );
    }

    #[test]
    fn input_required_may_still_be_canceled_failed_or_rejected_without_input() {
        for end in [Canceled, Failed, Rejected] {
            let mut lifecycle = at(&[Working, InputRequired]);
            assert_eq!(try_to(&mut lifecycle, end), Ok(Step::Entered(end)));
        }
    }

    #[test]
    fn follow_up_with_another_context_is_refused() {
        let mut lifecycle = at(&[Working, InputRequired]);
        let err = lifecycle.follow_up(&TaskId::new("t1"), &ContextId::new("other")).unwrap_err();
        assert!(matches!(err, FollowUpError::OtherContext { .. }), "{err}");
        let err = lifecycle.follow_up(&TaskId::new("t2"), &ContextId::new("c1")).unwrap_err();
        assert!(matches!(err, FollowUpError::OtherTask { .. }), "{err}");
    }

    #[test]
    fn follow_up_to_a_terminal_task_or_before_any_task_is_refused() {
        let (task, ctx) = ids();
        assert_eq!(Lifecycle::new().follow_up(&task, &ctx), Err(FollowUpError::NoTask));
        let mut done = at(&[Completed]);
        assert_eq!(done.follow_up(&task, &ctx), Err(FollowUpError::TaskIsTerminal(Completed)));
    }

    #[test]
    fn auth_required_may_resume_without_a_follow_up() {
        let mut lifecycle = at(&[Working, AuthRequired]);
        assert_eq!(lifecycle.end(), Some(TaskEnd::Interrupted(AuthRequired)));
        assert_eq!(try_to(&mut lifecycle, Working), Ok(Step::Entered(Working)));
    }

    #[test]
    fn terminal_states_stay_terminal() {
        for end in [Completed, Failed, Canceled, Rejected] {
            for next in [Submitted, Working, InputRequired, AuthRequired, Completed, Failed] {
                let mut lifecycle = at(&[Working, end]);
                let result = try_to(&mut lifecycle, next);
                if next == end {
                    assert_eq!(result, Ok(Step::Repeated(end)), "a resent final snapshot is fine");
                } else {
                    assert_eq!(result.unwrap_err().rule, TransitionRule::TerminalIsFinal, "{end} -> {next}");
                }
                assert_eq!(lifecycle.state(), Some(end));
            }
        }
    }

    #[test]
    fn working_never_returns_to_submitted() {
        let mut lifecycle = at(&[Submitted, Working]);
        assert_eq!(try_to(&mut lifecycle, Submitted).unwrap_err().rule, TransitionRule::NoReturnToSubmitted);
    }

    #[test]
    fn unspecified_state_is_never_accepted() {
        assert_eq!(
            try_to(&mut Lifecycle::new(), Unspecified).unwrap_err().rule,
            TransitionRule::UnspecifiedState
        );
        assert_eq!(
            try_to(&mut at(&[Working]), Unspecified).unwrap_err().to_string(),
            "transition working -> unspecified not allowed: unspecified (TASK_STATE_UNSPECIFIED) is not a task state"
        );
    }

    #[test]
    fn a_blocking_send_may_report_any_first_state() {
        for first in [Submitted, Working, InputRequired, AuthRequired, Completed, Failed, Canceled, Rejected]
        {
            assert_eq!(try_to(&mut Lifecycle::new(), first), Ok(Step::Entered(first)));
        }
    }

    #[test]
    fn updates_for_another_task_or_context_are_rejected() {
        let mut lifecycle = at(&[Working]);
        let err = lifecycle.advance(&TaskId::new("t2"), None, Completed).unwrap_err();
        assert_eq!(err.rule, TransitionRule::OtherTask);
        let err = lifecycle.advance(&TaskId::new("t1"), Some(&ContextId::new("c2")), Completed).unwrap_err();
        assert_eq!(err.rule, TransitionRule::OtherContext);
    }

    #[test]
    fn end_is_recognised_without_a_final_flag() {
        assert_eq!(at(&[Working]).end(), None);
        assert_eq!(at(&[Working, Failed]).end(), Some(TaskEnd::Terminal(Failed)));
        assert_eq!(at(&[AuthRequired]).end(), Some(TaskEnd::Interrupted(AuthRequired)));
    }
}
