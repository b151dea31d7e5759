//! What a negotiated task ended in: its result, which claims were verified, and any refusal with
//! what became of the refused task (its result kept, sent again single-shot, or left unfinished).

use std::fmt;

use a2a_typestate::{AgentCardLifecycleViolation, CapabilitySet};
use a2a_typestate_types::{Part, SendMessageResponse, Task, TaskState};
use serde_json::Value;

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
    /// A claim was refused after the task had ended (a stream without the artifact `GetTask` has,
    /// a push callback that never came): the result is that task as the client read it at its end,
    /// and nothing was sent again. The work ran once.
    KeptAfterRefusal,
    /// A claim was refused before the task ended (or before the agent accepted any task); the
    /// result is one single-shot `SendMessage` sent in its place. When the agent had accepted the
    /// refused task, this is a second run of the work
    /// ([`TaskOutcome::may_have_run_twice`]); the refused task, canceled first, is in
    /// [`TaskOutcome::refused_task`].
    Fallback,
    /// A claim was refused before the task ended and the negotiation said
    /// [`AfterRefusal::EndWithRefusal`](super::AfterRefusal::EndWithRefusal): the result is the
    /// refused task as last seen, unfinished; nothing was sent again or canceled.
    EndedWithRefusal,
}

/// The path in words: `negotiated`, `single-shot, the agent being capability-suspect (<mark>)`,
/// `refused after the task ended: its result kept, nothing sent again`, `single-shot fallback after
/// a refused claim`, or `ended with the refusal: the task unfinished, nothing sent again`.
impl fmt::Display for TaskPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Negotiated => f.write_str("negotiated"),
            Self::SingleShotBecauseSuspect(mark) => {
                write!(f, "single-shot, the agent being capability-suspect ({mark})")
            }
            Self::KeptAfterRefusal => {
                f.write_str("refused after the task ended: its result kept, nothing sent again")
            }
            Self::Fallback => f.write_str("single-shot fallback after a refused claim"),
            Self::EndedWithRefusal => {
                f.write_str("ended with the refusal: the task unfinished, nothing sent again")
            }
        }
    }
}

/// How a task the client accepted ended: a result, or a refusal together with the refused task's
/// result, the fallback's, or the unfinished task. (The third ending, an error the caller can act on, is the `Err` of
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
    /// The refusal that decided what became of the task (on [`TaskPath::KeptAfterRefusal`],
    /// [`TaskPath::Fallback`] and [`TaskPath::EndedWithRefusal`]).
    pub refusal: Option<AgentCardLifecycleViolation>,
    /// Further claims the same run contradicted (each is also marked suspect and counted).
    pub other_refusals: Vec<AgentCardLifecycleViolation>,
    /// On [`TaskPath::Fallback`], the refused task the agent had accepted, as last observed (after
    /// the cancel, what the agent answered to it): kept so nothing the agent produced is lost.
    /// `None` when the refusal came before the agent accepted any task, and on the other paths
    /// (after [`TaskPath::KeptAfterRefusal`] and [`TaskPath::EndedWithRefusal`] the refused task
    /// is the result).
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
/// refused, as in `task completed (negotiated); verified: streaming`, and when the work
/// may have run twice, `; may have run twice`.
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
        if self.may_have_run_twice() {
            f.write_str("; may have run twice")?;
        }
        Ok(())
    }
}

impl TaskOutcome {
    /// The result's task state; `None` when the agent answered with a direct message.
    pub fn state(&self) -> Option<TaskState> {
        self.result.state()
    }

    /// The answer's text: the text parts of the result's answer joined with newlines, or `None`
    /// when it holds no text ([`SendMessageResponse::text`]: the direct message's, else the task's
    /// artifacts, else the agent's messages since the client's last, else the status message).
    pub fn text(&self) -> Option<String> {
        self.result.text()
    }

    /// The values of the data parts of the result's answer, in order, each parsed
    /// ([`SendMessageResponse::data`]). Empty when there is none.
    pub fn data(&self) -> Vec<Value> {
        self.result.data()
    }

    /// The first file part (inline bytes or a link) named `name` in the result's answer
    /// ([`SendMessageResponse::file`]); read it with [`Part::as_raw`] or [`Part::as_url`].
    pub fn file(&self, name: &str) -> Option<&Part> {
        self.result.file(name)
    }

    /// `true` when the task was in the journal before its first byte was sent, so a crash during
    /// the run would not have lost it ([`Durability::Journaled`]).
    pub fn is_durable(&self) -> bool {
        self.durability == Durability::Journaled
    }

    /// `true` when a refused claim sent the message again with the single-shot fallback.
    pub fn fell_back(&self) -> bool {
        self.path == TaskPath::Fallback
    }

    /// `true` when the work may have run twice on the agent: the message was sent again
    /// ([`TaskPath::Fallback`]) after the agent had accepted the refused task, which had not ended.
    /// The refused task was asked to cancel first, which stops it but cannot undo what it did
    /// before. `false` on every other path, and on a fallback sent before the agent accepted any
    /// task (that send was the work's first run).
    pub fn may_have_run_twice(&self) -> bool {
        self.path == TaskPath::Fallback && self.refused_task.is_some()
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
        assert_eq!(negotiated.to_string(), "task completed (negotiated); verified: streaming");

        let mut fallback = outcome(TaskPath::Fallback, SendMessageResponse::Task(task));
        let violation = crate::test_support::streaming_violation();
        fallback.refusal = Some(violation.clone());
        assert_eq!(
            fallback.to_string(),
            format!(
                "task completed (single-shot fallback after a refused claim); verified: none; \
                 refused: {violation}"
            )
        );

        let direct = outcome(TaskPath::Negotiated, SendMessageResponse::Message(Message::agent("hi")));
        assert!(direct.to_string().starts_with("a direct message (negotiated); verified: none"), "{direct}");
    }

    #[test]
    fn an_outcome_reads_its_result_s_answer() {
        let task: Task = parse::from_str(
            r#"{"id":"t-1","status":{"state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"text":"status"}]}},
                "artifacts":[{"artifactId":"a","parts":[{"text":"Sunny"},{"data":{"celsius":24}},
                {"url":"https://x.test/map.png","filename":"map.png"},{"text":"24 C"}]}]}"#,
        )
        .unwrap();
        let answered = outcome(TaskPath::Negotiated, SendMessageResponse::Task(task));
        assert_eq!(answered.text().as_deref(), Some("Sunny\n24 C"), "the artifacts, not the status");
        assert_eq!(answered.data(), [serde_json::json!({"celsius": 24})]);
        assert_eq!(answered.file("map.png").and_then(Part::as_url), Some("https://x.test/map.png"));
        assert_eq!(answered.file("status"), None);

        let direct = outcome(TaskPath::Negotiated, SendMessageResponse::Message(Message::agent("hi")));
        assert_eq!(direct.text().as_deref(), Some("hi"));
        assert!(direct.data().is_empty());
    }

    #[test]
    fn only_a_fallback_sent_after_the_agent_accepted_the_refused_task_may_have_run_twice() {
        let task: Task =
            parse::from_str(r#"{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}"#)
                .unwrap();
        let refused: Task =
            parse::from_str(r#"{"id":"t-0","contextId":"c-1","status":{"state":"TASK_STATE_CANCELED"}}"#)
                .unwrap();
        let answer = SendMessageResponse::Task(task);
        let mut sent_again = outcome(TaskPath::Fallback, answer.clone());
        sent_again.refused_task = Some(refused.clone());
        assert!(sent_again.may_have_run_twice() && sent_again.fell_back());
        assert!(sent_again.to_string().ends_with("; may have run twice"), "{sent_again}");

        // Refused before the agent accepted a task: the fallback is the work's first run.
        let first_run = outcome(TaskPath::Fallback, answer.clone());
        assert!(first_run.fell_back() && !first_run.may_have_run_twice());

        for path in [TaskPath::KeptAfterRefusal, TaskPath::EndedWithRefusal, TaskPath::Negotiated] {
            let mut once = outcome(path, answer.clone());
            once.refused_task = Some(refused.clone());
            assert!(!once.may_have_run_twice() && !once.fell_back(), "{once}");
        }
    }
}
