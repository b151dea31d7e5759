//! What a negotiated task ended in: its result, which claims were verified, and any refusal with
//! the fallback that replaced the refused path.

use std::fmt;

use a2a_typestate::{AgentCardLifecycleViolation, CapabilitySet};
use a2a_typestate_types::{SendMessageResponse, Task, TaskState};

use crate::agent_url::AgentBaseUrl;
use crate::cache::SuspectMark;
use crate::journal::Durability;

/// Which path produced a [`TaskOutcome`]'s result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskPath {
    /// The task ran on the path the caller depends on (streaming, polling, push), and no claim the
    /// caller depends on was refused.
    Negotiated,
    /// The agent was capability-suspect (within its mark's TTL), so the client sent one single-shot
    /// `SendMessage` at once, with no negotiation round trip.
    SingleShotBecauseSuspect(SuspectMark),
    /// A claim was refused during negotiation; the result is the single-shot `SendMessage` that
    /// replaced the refused task (which was not retried).
    Fallback,
}

/// The path in words: `negotiated`, `single-shot, the agent being capability-suspect (<mark>)`, or
/// `single-shot fallback after a refused claim`.
impl fmt::Display for TaskPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Negotiated => f.write_str("negotiated"),
            Self::SingleShotBecauseSuspect(mark) => {
                write!(f, "single-shot, the agent being capability-suspect ({mark})")
            }
            Self::Fallback => f.write_str("single-shot fallback after a refused claim"),
        }
    }
}

/// How a task the client accepted ended: a result, or a refusal together with the fallback's
/// result. (The third ending, an error the caller can act on, is the `Err` of
/// [`Client::run_task`](crate::Client::run_task).)
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskOutcome {
    /// The agent.
    pub agent: AgentBaseUrl,
    /// Whether a crash during the run would have lost the task: journaled before its first byte
    /// was sent, not durable (the journal could not be written in time), or no journal.
    pub durability: Durability,
    /// Which path produced `result`.
    pub path: TaskPath,
    /// The task (or direct message) the agent answered with, at its last observed state: terminal,
    /// or paused for input when the follow-up policy had no answer.
    pub result: SendMessageResponse,
    /// The claims the first exercising transition verified (on a fallback: those verified before
    /// the refusal; empty for a suspect agent).
    pub verified: CapabilitySet,
    /// The refusal that sent the task to the fallback (on [`TaskPath::Fallback`]).
    pub refusal: Option<AgentCardLifecycleViolation>,
    /// Further claims the same run contradicted (each is also marked suspect and counted).
    pub other_refusals: Vec<AgentCardLifecycleViolation>,
    /// The refused task as last observed (its artifacts may exist, fetched with `GetTask`): kept so
    /// nothing the agent produced is lost. Never retried.
    pub refused_task: Option<Task>,
    /// Requests this run made on the negotiation path (zero on
    /// [`TaskPath::SingleShotBecauseSuspect`]).
    pub negotiation_round_trips: u64,
    /// The verifier's verdict on every claim it checked on the negotiated path, as the run left
    /// it: verified with its evidence, still pending with why, or refused (empty for a suspect
    /// agent).
    pub verdicts: Vec<(a2a_typestate::Capability, a2a_typestate::Verdict)>,
    /// Everything the verifier observed on the negotiated path, in order, with when (elapsed since
    /// the handle was created): what a report's timeline draws (empty for a suspect agent).
    pub observations: Vec<(a2a_typestate::Elapsed, a2a_typestate::Observed)>,
    /// Every attempt to register the webhook on the negotiated path, with what the agent answered
    /// (empty when push was not depended on).
    pub push_registration: Vec<crate::task::PushRegistrationAttempt>,
    /// The deviations from the 1.0 wire format read during the run (empty unless the client reads
    /// tolerantly): how the agent writes the protocol, kept apart from the claim verdicts.
    pub wire_deviations: Vec<crate::WireDeviation>,
    /// The verdicts on the card's other claims the run reached ([`a2a_typestate::card_claim`]):
    /// an interface refused before the task went to the next declared one, the extensions asked
    /// for, the output modes accepted. Each refusal is also marked suspect for its claim.
    pub card_claims: Vec<a2a_typestate::CardClaimVerdict>,
    /// The URL of the interface that carried the task, as the card writes it.
    pub interface_url: String,
    /// The declared interfaces the task could not reach before the agent answered (the connection
    /// was never opened), in the order tried; it went on on the next one. A transport fallback:
    /// never a refusal, never a mark.
    pub unreachable_interfaces: Vec<crate::task::UnreachableInterface>,
}

/// The outcome in one line: what the agent answered, on which path, what was verified and what was
/// refused, as in `task TASK_STATE_COMPLETED (negotiated); verified: streaming`.
impl fmt::Display for TaskOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.state() {
            Some(state) => write!(f, "task {state}")?,
            None => f.write_str("a direct message")?,
        }
        write!(f, " ({}); verified: {}", self.path, self.verified)?;
        for refusal in self.refusals() {
            write!(f, "; refused: {refusal}")?;
        }
        Ok(())
    }
}

impl TaskOutcome {
    /// The result's task state; `None` when the agent answered with a direct message.
    pub fn state(&self) -> Option<TaskState> {
        self.result.state()
    }

    /// `true` when the task was in the journal before its first byte was sent, so a crash during
    /// the run would not have lost it ([`Durability::Journaled`]).
    pub fn is_durable(&self) -> bool {
        self.durability == Durability::Journaled
    }

    /// `true` when a refused claim sent the task to the single-shot fallback.
    pub fn fell_back(&self) -> bool {
        self.path == TaskPath::Fallback
    }

    /// Every refusal of this run, the one that decided first.
    pub fn refusals(&self) -> impl Iterator<Item = &AgentCardLifecycleViolation> {
        self.refusal.iter().chain(&self.other_refusals)
    }
}

#[cfg(test)]
mod tests {
    use a2a_typestate::Capability;
    use a2a_typestate_types::{Message, parse};

    use super::*;

    fn outcome(path: TaskPath, result: SendMessageResponse) -> TaskOutcome {
        TaskOutcome {
            agent: AgentBaseUrl::parse("http://agent.example").unwrap(),
            durability: Durability::NoJournal,
            path,
            result,
            verified: CapabilitySet::EMPTY,
            refusal: None,
            other_refusals: Vec::new(),
            refused_task: None,
            negotiation_round_trips: 0,
            verdicts: Vec::new(),
            observations: Vec::new(),
            push_registration: Vec::new(),
            wire_deviations: Vec::new(),
            card_claims: Vec::new(),
            interface_url: "http://agent.example/rpc".to_owned(),
            unreachable_interfaces: Vec::new(),
        }
    }

    #[test]
    fn a_task_outcome_displays_its_result_path_verified_claims_and_refusals() {
        let task: Task =
            parse::from_str(r#"{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}"#)
                .unwrap();
        let mut negotiated = outcome(TaskPath::Negotiated, SendMessageResponse::Task(task.clone()));
        negotiated.verified = CapabilitySet::of(&[Capability::Streaming]);
        assert_eq!(negotiated.to_string(), "task TASK_STATE_COMPLETED (negotiated); verified: streaming");

        let mut fallback = outcome(TaskPath::Fallback, SendMessageResponse::Task(task));
        let violation = crate::test_support::streaming_violation();
        fallback.refusal = Some(violation.clone());
        assert_eq!(
            fallback.to_string(),
            format!(
                "task TASK_STATE_COMPLETED (single-shot fallback after a refused claim); verified: none; \
                 refused: {violation}"
            )
        );

        let direct = outcome(TaskPath::Negotiated, SendMessageResponse::Message(Message::agent("hi")));
        assert!(direct.to_string().starts_with("a direct message (negotiated); verified: none"), "{direct}");
    }
}
