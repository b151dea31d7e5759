//! The verdict the refusal rules give for a truth (README, "When the SDK refuses a card";
//! `a2a_typestate::rules`, `verify`, `card_claim`): refuse only an observable over-declaration
//! reached through the declared modes, or the agent's own "not supported" to the capability's own
//! call; leave a claim open where the modes or this vantage point prevent seeing it; never refuse
//! an honest one. Written from the rules' text, not from the audit's code.

use a2a_typestate_client::audit::{CardClaimOutcome, ClaimVerdict};

use super::truth::{PushTruth, StreamingTruth};
use super::wire::{Answer, Dialect, rest_error_message};

/// A verdict, as the audit reports it for a lifecycle claim or a card claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The agent did what the card claims.
    Verified,
    /// The agent contradicted the claim, reachably through the card's declared modes.
    Refused,
    /// No call exercised the claim.
    NotExercised,
    /// A call exercised the lifecycle claim but nothing settled it.
    Unverified,
    /// The claim cannot be checked from here (the modes, the agent's refusal of the webhook).
    Unverifiable,
    /// A card claim nothing settled.
    Unsettled,
    /// The agent is more open than its card says.
    Warning,
    /// A declared interface that could not be reached.
    Unreachable,
    /// The audit reports no verdict at all on the claim.
    Absent,
}

impl Verdict {
    /// The audit's verdict on a lifecycle claim.
    pub fn of_claim(verdict: &ClaimVerdict) -> Verdict {
        match verdict {
            ClaimVerdict::Verified { .. } => Verdict::Verified,
            ClaimVerdict::Refused { .. } => Verdict::Refused,
            ClaimVerdict::NotExercised { .. } => Verdict::NotExercised,
            ClaimVerdict::Unverified { .. } => Verdict::Unverified,
            ClaimVerdict::Unverifiable { .. } => Verdict::Unverifiable,
        }
    }

    /// The audit's verdict on a card claim.
    pub fn of_card_claim(outcome: &CardClaimOutcome) -> Verdict {
        match outcome {
            CardClaimOutcome::Verified { .. } => Verdict::Verified,
            CardClaimOutcome::Refused { .. } => Verdict::Refused,
            CardClaimOutcome::Warning { .. } => Verdict::Warning,
            CardClaimOutcome::Unverifiable { .. } => Verdict::Unverifiable,
            CardClaimOutcome::Unreachable { .. } => Verdict::Unreachable,
            CardClaimOutcome::Unsettled { .. } => Verdict::Unsettled,
        }
    }
}

/// Streaming: refused when the streaming call is answered the agent's own "not supported"
/// (-32004), or when the terminal state came on a stream that carried no artifact while `GetTask`
/// returns some; verified when the stream carried the task to its terminal state with its
/// artifacts, or `GetTask` has none either, or (the agent not serving that `GetTask`) the stream
/// carried the answer to its end as messages; unverified otherwise.
pub fn streaming(truth: &StreamingTruth) -> Verdict {
    if truth.refused.as_ref().and_then(Answer::code) == Some(-32004) {
        return Verdict::Refused;
    }
    if truth.refused.is_some() || truth.terminal().is_none() {
        return Verdict::Unverified;
    }
    if truth.streamed_artifacts > 0 {
        return Verdict::Verified;
    }
    match (truth.confirmed_artifacts(), &truth.confirmation) {
        (Some(0), _) => Verdict::Verified,
        (Some(_), _) => Verdict::Refused,
        (None, Some(Answer::Error { .. } | Answer::Http { .. })) if truth.answered_in_messages => {
            Verdict::Verified
        }
        (None, _) => Verdict::Unverified,
    }
}

/// Push: verified by a callback (about any transition) within the bound of the terminal state;
/// refused by the agent's own "not supported" to a push-config call while it holds no config of
/// ours, or by silence past the bound after the terminal state once it held one; unverifiable when
/// it refused the webhook URL itself (-32602) and stayed silent; unverified otherwise.
pub fn push(truth: &PushTruth) -> Verdict {
    if truth.callbacks > 0 {
        Verdict::Verified
    } else if truth.said_unsupported() {
        Verdict::Refused
    } else if truth.refused_the_url() {
        Verdict::Unverifiable
    } else if truth.registered() && truth.terminal.is_some() {
        Verdict::Refused
    } else {
        Verdict::Unverified
    }
}

/// An interface, from a credential-less `GetTask` for a task that does not exist in its binding
/// and version: verified when answered in the binding ("task not found", or a task); refused when
/// answered outside it (JSON-RPC's "method not found", a body JSON-RPC does not produce, 405, 415)
/// or with "version not supported" (-32009); unsettled for another A2A error, an answer about
/// credentials (401, 403), a transport fault (502, 503, 504, no answer), or another HTTP+JSON
/// error status. Over HTTP+JSON 0.3, "task not found" is a 404 whose body is the agent's error
/// (`{"message": "Task not found"}`); a bare 404 says nothing.
pub fn interface(dialect: Dialect, answer: &Answer) -> Verdict {
    match answer {
        Answer::Result(_) => Verdict::Verified,
        Answer::Error { code: -32001, .. } => Verdict::Verified,
        Answer::Error { code: -32601 | -32009, .. } => Verdict::Refused,
        Answer::Error { .. } => Verdict::Unsettled,
        Answer::Http { status: 401 | 403 | 502 | 503 | 504, .. } => Verdict::Unsettled,
        Answer::Http { status: 405 | 415, .. } => Verdict::Refused,
        Answer::Http { status: 404, body } if dialect == Dialect::Rest03 => {
            let message = rest_error_message(body).unwrap_or_default().to_ascii_lowercase();
            if message.contains("task not found") { Verdict::Verified } else { Verdict::Unsettled }
        }
        Answer::Http { .. } if dialect == Dialect::Rest03 => Verdict::Unsettled,
        Answer::Http { .. } => Verdict::Refused,
        Answer::Failed(_) => Verdict::Unsettled,
    }
}

/// Open access (a card with no security requirement): refused by a 401 to a call made without
/// credentials (or a 403 carrying the agent's own A2A error); verified by a call so made that the
/// agent served (an answer in the binding, an A2A error included, or a served stream); unsettled
/// otherwise (a bare 403 may be a gateway's).
pub fn open_access(dialect: Dialect, get_task: &Answer, stream_served: bool) -> Verdict {
    match get_task {
        Answer::Http { status: 401, .. } => Verdict::Refused,
        Answer::Result(_) | Answer::Error { .. } => Verdict::Verified,
        Answer::Http { status, body }
            if dialect == Dialect::Rest03 && *status != 403 && rest_error_message(body).is_some() =>
        {
            Verdict::Verified
        }
        Answer::Http { status, .. } if (200..300).contains(status) => Verdict::Verified,
        _ if stream_served => Verdict::Verified,
        _ => Verdict::Unsettled,
    }
}

/// Output modes, from one message that used the card's declared input modes (`within_input_modes`)
/// and accepted only its declared output modes: verified when every part of the answer is in a
/// declared output mode, refused when one is not, unverifiable when such a contradiction came
/// through input outside the declared modes, unsettled when no part with a media type came back.
pub fn output_modes(declared: &[String], within_input_modes: bool, answered: &[String]) -> Verdict {
    if answered.is_empty() {
        return Verdict::Unsettled;
    }
    let covered =
        answered.iter().all(|m| declared.iter().any(|d| a2a_typestate::rules::media_type_covers(d, m)));
    match (covered, within_input_modes) {
        (true, _) => Verdict::Verified,
        (false, true) => Verdict::Refused,
        (false, false) => Verdict::Unverifiable,
    }
}

/// State-transition history: refused when the first `GetTask` relied on returns an empty history,
/// verified when it returns some, unverified when no task came back.
pub fn history(entries: &Result<usize, Answer>) -> Verdict {
    match entries {
        Ok(0) => Verdict::Refused,
        Ok(_) => Verdict::Verified,
        Err(_) => Verdict::Unverified,
    }
}
