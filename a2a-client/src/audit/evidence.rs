//! What the probe saw, said exactly: each verdict with the call or channel, the event number, what
//! was expected and what came; the wire deviations; the timeline the reports draw.

use crate::negotiate::TaskOutcome;
use crate::task::{PushRegistrationAnswer, PushRegistrationAttempt};
use crate::{AgentCardLifecycleViolation, Error};
use a2a_typestate::{
    Call, Capability, CardClaims, Channel, Contradiction, Evidence, LifecycleFault, Observed, PendingReason,
    Verdict,
};
use serde::Serialize;

use super::{ClaimVerdict, DeviationReport};
use crate::negotiate::record::TaskRecord;
use crate::text;

/// One observation of the probe, for the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// Its number among the probe's observations (what evidence cites as `event #N`).
    pub seq: usize,
    /// Milliseconds since the probe started.
    pub at_ms: u64,
    /// The channel it came on: `send`, `stream`, `poll` or `push`.
    pub channel: &'static str,
    /// What it was.
    pub what: String,
    /// The capability whose refusal rests on it, if any (its card field).
    pub refuses: Option<&'static str>,
    /// The capability whose verification rests on it, if any (its card field).
    pub verifies: Option<&'static str>,
}

/// The verdict on `capability`, from the run's result.
pub(super) fn verdict(
    capability: Capability,
    lifted: &CardClaims,
    record: &TaskRecord,
    outcome: Option<&TaskOutcome>,
    error: Option<&Error>,
) -> ClaimVerdict {
    if lifted.is_gateway() {
        return ClaimVerdict::Unverifiable { reason: "gateway: the card describes the gateway".to_owned() };
    }
    let attempts = outcome.map(|o| o.push_registration.as_slice()).unwrap_or_default();
    let refusal = outcome
        .and_then(|o| o.refusals().find(|v| v.capability() == capability))
        .or_else(|| error.and_then(Error::lifecycle_violation).filter(|v| v.capability() == capability));
    if let Some(violation) = refusal {
        return refused(violation, attempts);
    }
    let settled = outcome.and_then(|o| o.verdicts.iter().find(|(c, _)| *c == capability)).map(|(_, v)| v);
    match settled {
        Some(Verdict::Verified(evidence)) => ClaimVerdict::Verified { evidence: cite(evidence) },
        _ if record.verified.contains(capability) => {
            ClaimVerdict::Verified { evidence: "verified by the probe".to_owned() }
        }
        Some(Verdict::Refused(violation)) => refused(violation, attempts),
        Some(Verdict::Pending(pending)) => {
            if capability == Capability::PushNotifications
                && let Some(reason) = webhook_refused(attempts)
            {
                return ClaimVerdict::Unverifiable { reason };
            }
            if let PendingReason::WebhookUrlRefused { .. } = pending.reason() {
                // The agent refused the URL on one path and never called it after taking it on
                // another: the silence it announced is no lie, and no proof either.
                let tried: Vec<String> = attempts.iter().map(ToString::to_string).collect();
                return ClaimVerdict::Unverifiable {
                    reason: format!("{pending} (registration: {})", tried.join("; ")),
                };
            }
            match pending.reason() {
                PendingReason::NotExercised => {
                    ClaimVerdict::NotExercised { reason: "no call of the probe exercised it".to_owned() }
                }
                // Clause 3 of the rules: what was reached outside the card's declared modes is
                // neither a lie nor a proof.
                PendingReason::OutsideDeclaredModes { .. }
                | PendingReason::ModesUnknown { .. }
                | PendingReason::WebhookOutOfReach
                | PendingReason::ReceiverTurnedAway => {
                    ClaimVerdict::Unverifiable { reason: pending.to_string() }
                }
                _ => ClaimVerdict::Unverified { reason: pending.to_string() },
            }
        }
        // A failed run hands back no observations: whether a call exercised the claim is unknown,
        // so it is not called "not exercised".
        None => match error {
            Some(error) => ClaimVerdict::Unverified {
                reason: format!("the probe failed before the claim settled: {}", text::one_line(error)),
            },
            None => ClaimVerdict::NotExercised { reason: "no call of the probe exercised it".to_owned() },
        },
    }
}

/// Push is unverifiable when the agent refused our webhook on every path it was tried on, for a
/// reason other than "not supported" (`-32003` refuses the claim instead).
fn webhook_refused(attempts: &[PushRegistrationAttempt]) -> Option<String> {
    if attempts.is_empty() || attempts.iter().any(|a| a.answer.accepted()) {
        return None;
    }
    let url_refused = attempts.iter().any(|a| {
        matches!(&a.answer, PushRegistrationAnswer::Refused { code: Some(code), .. } if a2a_typestate_types::error::A2aErrorCode::from_code(*code) == a2a_typestate_types::error::A2aErrorCode::InvalidParams)
    });
    url_refused.then(|| {
        let tried: Vec<String> = attempts.iter().map(ToString::to_string).collect();
        format!(
            "the agent refused the webhook URL on every path ({}); the probe went on without push",
            tried.join("; ")
        )
    })
}

fn refused(violation: &AgentCardLifecycleViolation, attempts: &[PushRegistrationAttempt]) -> ClaimVerdict {
    let capability = violation.capability();
    let field = capability.card_field();
    let evidence = violation.evidence();
    let (lie, contradiction) = match violation.contradiction() {
        Contradiction::AgentSaysUnsupported { call, code } => {
            let expected = match capability {
                Capability::Streaming => "an event stream",
                Capability::PushNotifications => "the webhook config accepted",
                Capability::StateTransitionHistory => "the task's history",
            };
            let mut said = format!(
                "expected {expected}, since the card declares {field}; {} answered {code} (not supported)",
                call_name(*call)
            );
            if capability == Capability::PushNotifications && !attempts.is_empty() {
                let tried: Vec<String> = attempts.iter().map(ToString::to_string).collect();
                said.push_str(&format!("; paths tried: {}", tried.join("; ")));
            }
            (format!("{field} declared but refused"), said)
        }
        Contradiction::MethodMissing { call } => (
            format!("{field} declared but its method is missing"),
            format!(
                "expected an event stream, since the card declares {field}; {} is not there (method not found), while the same interface answers the binding's other calls",
                call_name(*call)
            ),
        ),
        Contradiction::NoArtifactStreamed { artifacts_via_get_task } => (
            format!("{field}: the stream ended without the artifact GetTask has"),
            format!(
                "expected the artifact on the stream before its terminal state; the stream reached {} with none, and GetTask returned {artifacts_via_get_task}",
                state_of(&evidence.observed)
            ),
        ),
        Contradiction::EmptyHistory => (
            format!("{field}: empty history when relied on"),
            "expected the task's messages from GetTask with historyLength; it returned none".to_owned(),
        ),
        Contradiction::NoPushCallback { waited, bound } => {
            let tried: Vec<String> = attempts.iter().map(ToString::to_string).collect();
            (
                format!("{field}: push accepted but never delivered"),
                format!(
                    "expected a callback at the webhook within {} of the task's terminal transition; none came in {} (registration: {})",
                    a2a_typestate_types::human::HumanDuration(*bound),
                    a2a_typestate_types::human::HumanDuration(*waited),
                    if tried.is_empty() { "inline".to_owned() } else { tried.join("; ") }
                ),
            )
        }
        other => (format!("{field} contradicted"), other.to_string()),
    };
    ClaimVerdict::Refused { lie, contradiction, evidence: cite(evidence) }
}

fn state_of(observed: &Observed) -> String {
    match observed {
        Observed::Status { state, .. } => state.to_string(),
        other => other.to_string(),
    }
}

/// The evidence with the call or channel it came on: `on the stream (SendStreamingMessage),
/// event #4 at 31ms: TASK_STATE_COMPLETED via Stream`.
fn cite(evidence: &Evidence) -> String {
    format!("on {}, {evidence}", where_seen(&evidence.observed))
}

fn where_seen(observed: &Observed) -> String {
    match observed {
        Observed::Status { via, .. } | Observed::Artifact { via } => channel_words(*via).to_owned(),
        Observed::History { .. } => "GetTask".to_owned(),
        Observed::PushCallback { .. } => "the webhook".to_owned(),
        Observed::PushRegistered | Observed::PushDropped => "push registration".to_owned(),
        Observed::AgentError { call, .. }
        | Observed::BindingUnderstood { call, .. }
        | Observed::TransportFault { call, .. } => call_name(*call).to_owned(),
        Observed::StreamClosed => "the stream".to_owned(),
        _ => "the probe".to_owned(),
    }
}

fn channel_words(channel: Channel) -> &'static str {
    match channel {
        Channel::SendResponse => "the SendMessage answer",
        Channel::Stream => "the stream",
        Channel::GetTask => "a GetTask poll",
        Channel::Push => "the webhook",
    }
}

fn call_name(call: Call) -> &'static str {
    match call {
        Call::SendMessage => "SendMessage",
        Call::SendStreamingMessage => "SendStreamingMessage",
        Call::SubscribeToTask => "SubscribeToTask",
        Call::GetTask => "GetTask",
        Call::CancelTask => "CancelTask",
        Call::PushNotificationConfig => "the push-config call",
    }
}

/// A lifecycle fault in words: which state was left unobservable past which bound.
pub(super) fn lifecycle_fault(fault: &LifecycleFault) -> String {
    match fault {
        LifecycleFault::NoProgress { state, bound, .. } => format!(
            "lifecycle fault: {} left unobservable past the {} bound",
            state.map_or_else(|| "the task".to_owned(), |s| format!("`{s}`")),
            a2a_typestate_types::human::HumanDuration(*bound)
        ),
        LifecycleFault::DeadlineExceeded { state, deadline } => format!(
            "lifecycle fault: the task ran past its {} deadline (last in {})",
            a2a_typestate_types::human::HumanDuration(*deadline),
            state.map_or_else(|| "no state".to_owned(), |s| s.to_string())
        ),
        other => format!("lifecycle fault: {other}"),
    }
}

/// The run's wire deviations, as reported.
pub(super) fn deviations(outcome: &TaskOutcome) -> Vec<DeviationReport> {
    outcome
        .wire_deviations
        .iter()
        .map(|d| DeviationReport {
            call: d.call.to_owned(),
            event: d.event,
            path: d.path().to_owned(),
            kind: d.kind().as_str().to_owned(),
            found: d.deviation.found.clone(),
            read_as: d.deviation.read_as.clone(),
        })
        .collect()
}

/// The run's observations, each on its channel, with the verdicts resting on them marked.
pub(super) fn timeline(outcome: &TaskOutcome) -> Vec<TimelineEntry> {
    let mut refusing = Vec::new();
    let mut verifying = Vec::new();
    for (capability, verdict) in &outcome.verdicts {
        match verdict {
            Verdict::Refused(v) => refusing.push((v.evidence().seq, capability.card_field())),
            Verdict::Verified(e) => verifying.push((e.seq, capability.card_field())),
            _ => {}
        }
    }
    for v in outcome.refusals() {
        if !refusing.iter().any(|(seq, _)| *seq == v.evidence().seq) {
            refusing.push((v.evidence().seq, v.capability().card_field()));
        }
    }
    outcome
        .observations
        .iter()
        .enumerate()
        .map(|(seq, (at, observed))| TimelineEntry {
            seq,
            at_ms: u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
            channel: channel_of(observed),
            what: observed.to_string(),
            refuses: refusing.iter().find(|(s, _)| *s == seq).map(|(_, c)| *c),
            verifies: verifying.iter().find(|(s, _)| *s == seq).map(|(_, c)| *c),
        })
        .collect()
}

fn channel_of(observed: &Observed) -> &'static str {
    let of_call = |call: &Call| match call {
        Call::SendStreamingMessage | Call::SubscribeToTask => "stream",
        Call::GetTask => "poll",
        Call::PushNotificationConfig => "push",
        _ => "send",
    };
    match observed {
        Observed::Status { via, .. } | Observed::Artifact { via } => match via {
            Channel::SendResponse => "send",
            Channel::Stream => "stream",
            Channel::GetTask => "poll",
            Channel::Push => "push",
        },
        Observed::StreamClosed => "stream",
        Observed::History { .. } => "poll",
        Observed::PushRegistered | Observed::PushDropped | Observed::PushCallback { .. } => "push",
        Observed::AgentError { call, .. }
        | Observed::BindingUnderstood { call, .. }
        | Observed::TransportFault { call, .. } => of_call(call),
        _ => "send",
    }
}
