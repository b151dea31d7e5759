//! The events a task records on the current `tracing` span as it runs: inside
//! [`Client::run_task`](crate::Client::run_task) that is the `a2a.task` span
//! ([`crate::task_span`]), which an OpenTelemetry layer (`tracing-opentelemetry`) exports with
//! these as span events: the event's name is its message, its fields are its attributes.
//!
//! | event | when | attributes |
//! |---|---|---|
//! | [`CLAIM_VERIFIED`] | a settle verified a claim | `a2a.capability`, `a2a.evidence` |
//! | [`CLAIM_REFUSED`] | a settle refused a claim | `a2a.capability`, `a2a.contradiction`, `a2a.evidence`, `a2a.advice` |
//! | [`SUSPECT_MARK_SET`] | the agent was marked capability-suspect after a refusal | `a2a.capability` |
//! | [`RESULT_KEPT`] | a claim was refused after the task ended: its result kept, nothing sent again | `a2a.task.state` (`message` for a direct answer) |
//! | [`REFUSED_TASK_CANCEL`] | before sending again, the refused, unfinished task was asked to cancel and the agent answered | `a2a.task.state` |
//! | [`FALLBACK`] | a single-shot `SendMessage` was sent after a refusal | `a2a.negotiation.round_trips` |
//! | [`ENDED_WITH_REFUSAL`] | a refused, unfinished task was left as it was ([`AfterRefusal::EndWithRefusal`](crate::negotiate::AfterRefusal::EndWithRefusal)) | `a2a.task.state` |
//! | [`SUSPECT_SINGLE_SHOT`] | a task went single-shot at once because the agent was suspect | — |
//! | [`BREAKER`] | the task opened or closed the agent's availability breaker, or was its probe | `a2a.breaker.transition` (`open`, `closed`, `probe`) |
//!
//! `a2a.capability` is the card field (`streaming`, `pushNotifications`, `stateTransitionHistory`);
//! the evidence is the observation that decided (its number, time and what was observed). No event
//! carries a URL or a credential.
//!
//! ```
//! use a2a_typestate_client::task_events;
//!
//! assert_eq!(task_events::CLAIM_REFUSED, "a2a.claim.refused");
//! ```

use a2a_typestate::{AgentCardLifecycleViolation, Capability, Evidence};
use a2a_typestate_types::TaskState;

/// A claim verified by a settle.
pub const CLAIM_VERIFIED: &str = "a2a.claim.verified";
/// A claim refused by a settle.
pub const CLAIM_REFUSED: &str = "a2a.claim.refused";
/// A capability-suspect mark set on the agent.
pub const SUSPECT_MARK_SET: &str = "a2a.suspect_mark.set";
/// The single-shot fallback sent after a refusal.
pub const FALLBACK: &str = "a2a.fallback";
/// A refused task that had ended: its result kept, nothing sent again.
pub const RESULT_KEPT: &str = "a2a.refused_task.result_kept";
/// The agent's answer to the cancel of a refused, unfinished task before the message went again.
pub const REFUSED_TASK_CANCEL: &str = "a2a.refused_task.cancel";
/// A refused, unfinished task left as it was: the run ended with the refusal.
pub const ENDED_WITH_REFUSAL: &str = "a2a.refused_task.ended_with_refusal";
/// A task sent single-shot at once to a capability-suspect agent.
pub const SUSPECT_SINGLE_SHOT: &str = "a2a.suspect.single_shot";
/// The agent's availability breaker changed because of this task ([`crate::Breaker`]).
pub const BREAKER: &str = "a2a.breaker";

pub(crate) fn claim_verified(capability: Capability, evidence: &Evidence) {
    tracing::info!(
        a2a.capability = capability.card_field(),
        a2a.evidence = %evidence,
        "{CLAIM_VERIFIED}"
    );
}

pub(crate) fn claim_refused(violation: &AgentCardLifecycleViolation) {
    tracing::info!(
        a2a.capability = violation.capability().card_field(),
        a2a.contradiction = %violation.contradiction(),
        a2a.evidence = %violation.evidence(),
        a2a.advice = ?violation.advice(),
        "{CLAIM_REFUSED}"
    );
}

pub(crate) fn suspect_mark_set(capability: Capability) {
    tracing::info!(a2a.capability = capability.card_field(), "{SUSPECT_MARK_SET}");
}

pub(crate) fn fallback(round_trips: u64) {
    tracing::info!(a2a.negotiation.round_trips = round_trips, "{FALLBACK}");
}

pub(crate) fn result_kept(state: Option<TaskState>) {
    tracing::info!(a2a.task.state = state.map_or("message", TaskState::as_str), "{RESULT_KEPT}");
}

pub(crate) fn refused_task_cancel(state: TaskState) {
    tracing::info!(a2a.task.state = state.as_str(), "{REFUSED_TASK_CANCEL}");
}

pub(crate) fn ended_with_refusal(state: TaskState) {
    tracing::info!(a2a.task.state = state.as_str(), "{ENDED_WITH_REFUSAL}");
}

pub(crate) fn suspect_single_shot() {
    tracing::info!("{SUSPECT_SINGLE_SHOT}");
}

pub(crate) fn breaker(transition: &'static str) {
    tracing::info!(a2a.breaker.transition = transition, "{BREAKER}");
}
