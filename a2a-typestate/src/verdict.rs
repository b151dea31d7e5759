//! What the verifier answers for a claim: verified, still pending, or refused; and what to do.
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use a2a_typestate::{
//!     Advice, Bounds, Call, Capability, CapabilitySet, CardClaims, Deployment, Observed, TransportFault,
//!     Verdict, Verifier,
//! };
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"], "capabilities": {"streaming": true}}"#)?;
//! let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
//! let mut verifier = Verifier::new(claims, CapabilitySet::of(&[Capability::Streaming]), Bounds::default());
//! let fault = TransportFault::Unavailable(502);
//! verifier.observe(Duration::ZERO, Observed::TransportFault { call: Call::SendStreamingMessage, fault });
//!
//! // A 502 says nothing about the card: pending, and the advice is to retry.
//! let verdict = verifier.verdict(Capability::Streaming, Duration::from_secs(1));
//! assert!(matches!(&verdict, Some(Verdict::Pending(p)) if p.is_transport_fault()));
//! assert_eq!(verdict.map(|v| v.advice()), Some(Advice::Retry));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use a2a_typestate_types::human::HumanDuration;
use std::fmt;
use std::time::Duration;

use a2a_typestate_types::TaskState;

use crate::observe::{Call, Elapsed, TransportFault};
use crate::violation::{AgentCardLifecycleViolation, Evidence};

pub use crate::advice::Advice;

/// Why a claim is neither verified nor refused yet.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PendingReason {
    /// No transition has exercised the claim yet.
    NotExercised,
    /// The stream delivered states but not yet a terminal one.
    AwaitingTerminal,
    /// The terminal state came on the stream without an artifact; a `GetTask` decides.
    ArtifactsUnconfirmed,
    /// A push config is registered and no callback came yet. Absence is judged from the task's
    /// terminal transition: `deadline` is that transition plus the push-arrival bound, `None`
    /// while the task has not ended.
    AwaitingPushCallback {
        /// When the bound runs out, as elapsed time, once the task ended.
        deadline: Option<Elapsed>,
    },
    /// The push config was registered after the task ended: nothing was left to push.
    NothingLeftToPush,
    /// The agent refused the webhook URL on one registration path (`-32602` invalid params: a
    /// blocked or private host, say), took it on another, and no callback came within the bound.
    /// Its own refusal explains the silence, so that silence is no evidence against the card:
    /// push is unverifiable from this webhook, and verifiable from one the agent accepts.
    WebhookUrlRefused {
        /// The push-config call that refused the URL.
        call: Call,
        /// The agent's error code.
        code: i32,
    },
    /// The webhook registered is a loopback or private address while the agent is reached
    /// elsewhere: no callback came within the bound, and none could be expected. Unverifiable from
    /// this webhook; verifiable from one the agent can reach.
    WebhookOutOfReach,
    /// No callback came within the bound while the client's own webhook receiver was turning
    /// connections away (at its limits): a callback may have been lost on the client's side.
    ReceiverTurnedAway,
    /// The latest thing that happened was a transport fault: retry; it is never a refusal.
    TransportFault {
        /// The call it hit.
        call: Call,
        /// What happened.
        fault: TransportFault,
    },
    /// A transport fault cut the stream before its terminal state, so a missing artifact may have
    /// been lost in transit: this task cannot settle the streaming claim (the next one will).
    StreamInterrupted {
        /// The first fault that cut it.
        fault: TransportFault,
    },
    /// The agent answered with a protocol error that is not about this capability.
    ProtocolError {
        /// The call.
        call: Call,
        /// The A2A / JSON-RPC code.
        code: i32,
    },
    /// The observed divergence came through media types the card's `defaultInputModes` /
    /// `defaultOutputModes` do not declare (condition 3 fails): not a refusal.
    OutsideDeclaredModes {
        /// The divergence that would otherwise have refused.
        divergence: Box<AgentCardLifecycleViolation>,
    },
    /// A divergence was observed but no sent message says which media types reached it (report
    /// [`Observed::MessageSent`](crate::Observed::MessageSent)): condition 3 cannot hold.
    ModesUnknown {
        /// The divergence that would otherwise have refused.
        divergence: Box<AgentCardLifecycleViolation>,
    },
}

/// A claim that is not settled yet, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    reason: PendingReason,
}

impl Pending {
    pub(crate) fn new(reason: PendingReason) -> Self {
        Self { reason }
    }

    /// Why it is pending.
    pub fn reason(&self) -> &PendingReason {
        &self.reason
    }

    /// `true` when a transport fault is what holds it up (retry).
    pub fn is_transport_fault(&self) -> bool {
        matches!(self.reason, PendingReason::TransportFault { .. })
    }

    /// `true` when an unrelated protocol error from the agent is what holds it up.
    pub fn is_protocol_error(&self) -> bool {
        matches!(self.reason, PendingReason::ProtocolError { .. })
    }

    /// What to do now.
    pub fn advice(&self) -> Advice {
        match self.reason {
            PendingReason::TransportFault { .. } => Advice::Retry,
            PendingReason::ArtifactsUnconfirmed => Advice::ConfirmWithGetTask,
            PendingReason::ProtocolError { .. } => Advice::Abandon,
            _ => Advice::KeepObserving,
        }
    }
}

impl fmt::Display for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            PendingReason::NotExercised => f.write_str("not exercised yet"),
            PendingReason::AwaitingTerminal => f.write_str("streaming, no terminal state yet"),
            PendingReason::ArtifactsUnconfirmed => {
                f.write_str("terminal state streamed without artifacts; GetTask decides")
            }
            PendingReason::AwaitingPushCallback { deadline: Some(deadline) } => {
                write!(f, "waiting for a push callback until {}", HumanDuration(*deadline))
            }
            PendingReason::AwaitingPushCallback { deadline: None } => {
                f.write_str("waiting for a push callback; the task has not ended")
            }
            PendingReason::NothingLeftToPush => f.write_str("registered after the task ended"),
            PendingReason::WebhookUrlRefused { code, .. } => write!(
                f,
                "the agent refused this webhook URL ({code} invalid params), so no callback there says \
                 nothing about the card; verify push with a webhook URL the agent accepts"
            ),
            PendingReason::WebhookOutOfReach => f.write_str(
                "no callback, and the webhook is a loopback or private address out of the agent's \
                 reach: verify push with a webhook URL the agent can reach",
            ),
            PendingReason::ReceiverTurnedAway => f.write_str(
                "no callback, while the client's webhook receiver was turning connections away at its \
                 limits: a callback may have been lost on the client's side",
            ),
            PendingReason::TransportFault { call, fault } => write!(f, "{fault} on {call:?}, retry"),
            PendingReason::StreamInterrupted { fault } => {
                write!(f, "the stream was cut by {fault} before its terminal state; unsettled for this task")
            }
            PendingReason::ProtocolError { call, code } => write!(f, "error {code} on {call:?}"),
            PendingReason::OutsideDeclaredModes { divergence } => {
                write!(f, "not refused, reached outside the card's default modes: {divergence}")
            }
            PendingReason::ModesUnknown { divergence } => {
                write!(f, "not refused, no sent message says which modes reached it: {divergence}")
            }
        }
    }
}

/// The verifier's answer for one claim the caller depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The first transition that exercised the claim produced what it promises.
    Verified(Evidence),
    /// Not settled yet.
    Pending(Pending),
    /// All three refusal conditions held.
    Refused(AgentCardLifecycleViolation),
}

impl Verdict {
    /// What to do now.
    pub fn advice(&self) -> Advice {
        match self {
            Self::Verified(_) => Advice::Proceed,
            Self::Pending(pending) => pending.advice(),
            Self::Refused(violation) => violation.advice(),
        }
    }

    /// The violation, when refused.
    pub fn violation(&self) -> Option<&AgentCardLifecycleViolation> {
        match self {
            Self::Refused(violation) => Some(violation),
            _ => None,
        }
    }

    /// `true` when verified.
    pub fn is_verified(&self) -> bool {
        matches!(self, Self::Verified(_))
    }
}

/// The verdict in words: `verified by <evidence>`, `pending: <why>` or `refused: <violation>`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Verified(evidence) => write!(f, "verified by {evidence}"),
            Self::Pending(pending) => write!(f, "pending: {pending}"),
            Self::Refused(violation) => write!(f, "refused: {violation}"),
        }
    }
}

/// A lifecycle fault: the task's lifecycle could not be followed within the client's bounds. Not a
/// transport fault (do not retry the call), not a refusal (the card claimed nothing it broke), and
/// no mark against the agent: the client gave up waiting.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LifecycleFault {
    /// The task showed no progress past [`Bounds::unobservable`](crate::Bounds::unobservable): no
    /// new state, no new status message (question) and no artifact since `since` (the client's
    /// last message or the agent's last progress), whichever channel it was followed on: the same
    /// state polled again, the same question asked again after the answer, a stream of keep-alive
    /// comments or of identical `WORKING` events.
    NoProgress {
        /// The state the task stayed in; `None` when no state was observed at all.
        state: Option<TaskState>,
        /// When the last progress was observed.
        since: Elapsed,
        /// The bound it exceeded.
        bound: Duration,
    },
    /// The whole task took longer than [`Bounds::task_deadline`](crate::Bounds::task_deadline),
    /// though it kept showing progress.
    DeadlineExceeded {
        /// The state the task was in; `None` when no state was observed at all.
        state: Option<TaskState>,
        /// The deadline.
        deadline: Duration,
    },
}

impl LifecycleFault {
    /// What to do: [`Advice::Abandon`] (stop following the task; this is not a transport fault to
    /// retry).
    pub fn advice(&self) -> Advice {
        Advice::Abandon
    }

    /// The state the task was left in, if any was observed.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            Self::NoProgress { state, .. } | Self::DeadlineExceeded { state, .. } => *state,
        }
    }
}

struct StateWords(Option<TaskState>);

impl fmt::Display for StateWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(state) => write!(f, "task stayed {state}"),
            None => f.write_str("no task state was observed"),
        }
    }
}

impl fmt::Display for LifecycleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoProgress { state, since, bound } => write!(
                f,
                "{}: no progress (new state, question or artifact) since {}, past the {} bound",
                StateWords(*state),
                HumanDuration(*since),
                HumanDuration(*bound)
            ),
            Self::DeadlineExceeded { state, deadline } => {
                write!(
                    f,
                    "{}: the task ran past its {} deadline",
                    StateWords(*state),
                    HumanDuration(*deadline)
                )
            }
        }
    }
}

impl std::error::Error for LifecycleFault {}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Bounds, Capability, CapabilitySet, CardClaims, Channel, Deployment, Observed, Verifier};

    fn streaming_verifier() -> Verifier {
        let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(
            r#"{"name": "a", "description": "", "version": "1", "supportedInterfaces": [], "skills": [],
                "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                "capabilities": {"streaming": true}}"#,
        )
        .unwrap();
        let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
        let mut verifier =
            Verifier::new(claims, CapabilitySet::of(&[Capability::Streaming]), Bounds::default());
        let modes = crate::ExchangeModes::text();
        verifier.observe(Duration::ZERO, Observed::MessageSent { modes, task_id: None, context_id: None });
        verifier
    }

    #[test]
    fn a_verdict_displays_what_settled_it_in_words() {
        let verified = Verdict::Verified(Evidence {
            seq: 2,
            at: Duration::from_millis(1500),
            observed: Observed::Artifact { via: Channel::Stream },
        });
        assert_eq!(verified.to_string(), "verified by event #2 at 1.5 s: artifact update via Stream");

        let mut verifier = streaming_verifier();
        let fault = TransportFault::Unavailable(502);
        verifier
            .observe(Duration::ZERO, Observed::TransportFault { call: Call::SendStreamingMessage, fault });
        let pending = verifier.verdict(Capability::Streaming, Duration::from_secs(1)).unwrap();
        assert_eq!(
            pending.to_string(),
            "pending: service unavailable (http 502) on SendStreamingMessage, retry"
        );

        let at = Duration::from_millis(10);
        verifier.observe(at, Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 });
        let refused = verifier.verdict(Capability::Streaming, at).unwrap();
        let text = refused.to_string();
        assert!(text.starts_with("refused: card declares streaming but the agent answered"), "{text}");
        assert!(text.contains("-32004") && !text.ends_with('.'), "{text}");
    }
}
