//! How one task ended, as a record a report can count and serialize: completed, completed single-shot because
//! the agent was suspect, completed before a claim was refused (its result kept), completed through
//! the fallback, or failed with a reason. Every result of
//! [`Client::run_task`](crate::Client::run_task) maps to exactly one of them, so no task is lost
//! from the totals.
//!
//! ```
//! use a2a_typestate_client::negotiate::record::{Ending, TaskRecord};
//!
//! // An error is a failure with its reason, never a lost task.
//! let error = a2a_typestate_client::Client::builder().request_timeout(std::time::Duration::ZERO).build().unwrap_err();
//! let failed = TaskRecord::from_result(&Err(error));
//! assert!(matches!(&failed.ending, Ending::Failed(reason) if reason.contains("request timeout")));
//! assert!(!failed.was_refused());
//! ```

use crate::negotiate::{TaskOutcome, TaskPath};
use crate::{AgentCardLifecycleViolation, Error};
use a2a_typestate::{Capability, CapabilitySet, CardClaim, CardClaimViolation, ClaimKind};
use a2a_typestate_types::TaskState;
use serde::Serialize;

use crate::text;

mod answer;

pub use answer::AnswerSeen;

/// The five endings a task can have.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "ending", content = "reason", rename_all = "camelCase")]
pub enum Ending {
    /// Completed on the path the caller depends on.
    Completed,
    /// Completed by one single-shot `SendMessage`, sent at once because the agent was suspect.
    CompletedSingleShot,
    /// A claim was refused after the task had completed: its result was kept and nothing was sent
    /// again (the work ran once).
    CompletedBeforeRefusal,
    /// A claim was refused before the task ended (or before the agent accepted one); the
    /// single-shot fallback completed it.
    CompletedViaFallback,
    /// Did not complete; the reason says why (an error, or the state the task ended in).
    Failed(String),
}

/// A refused claim: which capability, what the agent did, and the event that showed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedClaim {
    /// The capability (written as its card field, `streaming`, ...).
    #[serde(serialize_with = "capability_field")]
    pub capability: Capability,
    /// What the agent did that the claim cannot explain.
    pub contradiction: String,
    /// The observation the refusal rests on.
    pub evidence: String,
}

impl From<&AgentCardLifecycleViolation> for RefusedClaim {
    fn from(violation: &AgentCardLifecycleViolation) -> Self {
        Self {
            capability: violation.capability(),
            contradiction: violation.contradiction().to_string(),
            evidence: violation.evidence().to_string(),
        }
    }
}

/// A refused card claim beyond the lifecycle: which one, the answer that contradicted it, and the
/// fallback the client took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedCardClaim {
    /// Its kind (`extended-card`, `interfaces`, ...).
    #[serde(serialize_with = "kind_name")]
    pub kind: ClaimKind,
    /// The claim in words (`interface http://... (JSONRPC, version 1.0)`).
    pub claim: String,
    /// The answer the refusal rests on.
    pub evidence: String,
    /// What the client did instead.
    pub fallback: String,
}

impl From<&CardClaimViolation> for RefusedCardClaim {
    fn from(violation: &CardClaimViolation) -> Self {
        let fallback = match violation.claim() {
            CardClaim::ExtendedAgentCard => "used the public card",
            CardClaim::Interface { .. } => "sent the task to the next declared interface",
            CardClaim::Extension { .. } => "goes on without the extension",
            CardClaim::OutputModes { .. } => "kept the answer as it came (no fallback)",
            CardClaim::Security(_) => "none: the call was refused",
        };
        Self {
            kind: violation.claim().kind(),
            claim: violation.claim().to_string(),
            evidence: violation.evidence().to_string(),
            fallback: fallback.to_owned(),
        }
    }
}

fn kind_name<S: serde::Serializer>(kind: &ClaimKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

/// One task's ending and what it taught about the agent's claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    /// How it ended.
    pub ending: Ending,
    /// Claims its run verified.
    pub verified: CapabilitySet,
    /// Claims its run refused (the deciding one first).
    pub refusals: Vec<RefusedClaim>,
    /// The card's other claims its run refused (extended card, interfaces, ...), each with the
    /// fallback taken.
    pub card_claim_refusals: Vec<RefusedCardClaim>,
    /// Requests made on the negotiation path.
    pub negotiation_round_trips: u64,
}

impl TaskRecord {
    /// A task that ended without an outcome from the client (a bound of the caller's passed, say):
    /// a failure with its reason, nothing verified or refused.
    pub fn failed(reason: &str) -> Self {
        Self {
            ending: Ending::Failed(reason.to_owned()),
            verified: CapabilitySet::EMPTY,
            refusals: Vec::new(),
            card_claim_refusals: Vec::new(),
            negotiation_round_trips: 0,
        }
    }

    /// Classifies what `run_task` returned.
    pub fn from_result(result: &Result<TaskOutcome, Error>) -> Self {
        match result {
            Ok(outcome) => Self::from_outcome(outcome),
            Err(err) => Self {
                ending: Ending::Failed(match err.lifecycle_violation() {
                    // The evidence goes with the refusal; the reason says what happened to the task.
                    Some(v) => format!("abandoned: {} refused, {}", v.capability(), v.contradiction()),
                    None => text::one_line(err),
                }),
                verified: CapabilitySet::EMPTY,
                refusals: err.refusals().map(RefusedClaim::from).collect(),
                card_claim_refusals: err
                    .card_claim_violation()
                    .map(RefusedCardClaim::from)
                    .into_iter()
                    .collect(),
                // An abandoned task's waste travels with its error; an error before any negotiation
                // (no card, bad URL) made none.
                negotiation_round_trips: err.negotiation_round_trips().unwrap_or(0),
            },
        }
    }

    fn from_outcome(outcome: &TaskOutcome) -> Self {
        let state = outcome.state();
        // A direct message (no task) is a complete answer too.
        let completed = matches!(state, None | Some(TaskState::Completed));
        let ending = match (&outcome.path, completed) {
            (TaskPath::Negotiated, true) => Ending::Completed,
            (TaskPath::SingleShotBecauseSuspect(_), true) => Ending::CompletedSingleShot,
            (TaskPath::KeptAfterRefusal, true) => Ending::CompletedBeforeRefusal,
            (TaskPath::Fallback, true) => Ending::CompletedViaFallback,
            (_, true) => Ending::Completed,
            (path, false) => {
                let how = match path {
                    TaskPath::Fallback => "the fallback ended",
                    TaskPath::SingleShotBecauseSuspect(_) => "the single-shot send ended",
                    TaskPath::KeptAfterRefusal => "the refused task had ended",
                    TaskPath::EndedWithRefusal => "ended with the refusal, the task left",
                    _ => "the task ended",
                };
                let state = state.map_or("without a state", TaskState::as_str);
                Ending::Failed(format!("{how} in {state}"))
            }
        };
        Self {
            ending,
            verified: outcome.verified,
            refusals: outcome.refusals().map(RefusedClaim::from).collect(),
            card_claim_refusals: outcome
                .card_claims
                .iter()
                .filter_map(|verdict| verdict.violation())
                .map(RefusedCardClaim::from)
                .collect(),
            negotiation_round_trips: outcome.negotiation_round_trips,
        }
    }

    /// True when a claim was refused during this task's run: its negotiation round trips were wasted.
    pub fn was_refused(&self) -> bool {
        !self.refusals.is_empty()
    }
}

/// Writes a capability as its card field name.
pub fn capability_field<S: serde::Serializer>(capability: &Capability, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(capability.card_field())
}

/// Writes a capability set as a list of card field names.
pub fn capability_fields<S: serde::Serializer>(set: &CapabilitySet, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(set.iter().map(Capability::card_field))
}

/// A capability set for people: `streaming, pushNotifications`, or `none`.
pub fn card_fields(set: CapabilitySet) -> String {
    if set.is_empty() {
        return "none".to_owned();
    }
    set.iter().map(Capability::card_field).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_error_is_a_failure_with_its_reason_and_no_round_trips_claimed() {
        // A port nobody listens on: the discovery fails with a transport error naming the URL.
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let once = crate::RetryPolicy::new(
            1,
            std::time::Duration::from_millis(1),
            std::time::Duration::from_millis(1),
            1.0,
        )
        .unwrap();
        let client = crate::Client::builder().retry_policy(once).build().unwrap();
        let err: Error = client.discover(&url).await.unwrap_err();
        let record = TaskRecord::from_result(&Err(err));
        let Ending::Failed(reason) = &record.ending else { panic!("an error is a failure: {record:?}") };
        assert!(reason.contains("connection") && reason.contains(&url), "{reason}");
        assert!(!record.was_refused());
        assert_eq!(record.negotiation_round_trips, 0);
    }

    #[test]
    fn capability_sets_read_as_card_fields() {
        assert_eq!(card_fields(CapabilitySet::EMPTY), "none");
        let set = CapabilitySet::of(&[Capability::PushNotifications, Capability::Streaming]);
        assert_eq!(card_fields(set), "streaming, pushNotifications");
    }
}
