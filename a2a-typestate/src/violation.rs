//! [`AgentCardLifecycleViolation`]: the typed reason a card was refused.
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use a2a_typestate::{
//!     Advice, Bounds, Capability, CapabilitySet, CardClaims, Contradiction, Deployment, ExchangeModes,
//!     Observed, Verifier,
//! };
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"], "capabilities": {"stateTransitionHistory": true}}"#)?;
//! let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
//! let mut verifier = Verifier::new(claims, CapabilitySet::ALL, Bounds::default());
//! let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
//! verifier.observe(Duration::ZERO, sent);
//! verifier.observe(Duration::from_millis(5), Observed::History { requested_length: None, entries: 0 });
//!
//! let violation = verifier.refusal(Duration::from_millis(5)).ok_or("expected a refusal")?;
//! assert_eq!(violation.capability(), Capability::StateTransitionHistory);
//! assert_eq!(violation.contradiction(), &Contradiction::EmptyHistory);
//! assert_eq!(violation.evidence().seq, 1); // which event
//! assert_eq!(violation.advice(), Advice::Abandon); // abandon, do not retry
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use a2a_typestate_types::human::HumanDuration;
use std::fmt;
use std::time::Duration;

use crate::advice::Advice;
use crate::capability::Capability;
use crate::observe::{Call, Elapsed, Observed};

/// The observation a verdict rests on: which event, when, and what it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// Its position among the task's observations (0 is the first thing observed).
    pub seq: usize,
    /// When it was observed, as elapsed time since the task handle was created.
    pub at: Elapsed,
    /// What was observed.
    pub observed: Observed,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event #{} at {}: {}", self.seq, HumanDuration(self.at), self.observed)
    }
}

/// What the agent did that its declared capability cannot explain.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Contradiction {
    /// The agent answered the call that exercises the capability with the protocol's own "not
    /// supported" error (`UnsupportedOperationError` -32004 on a streaming call,
    /// `PushNotificationNotSupportedError` -32003 on a push-config call): it contradicts its card.
    AgentSaysUnsupported {
        /// The call.
        call: Call,
        /// The error code.
        code: i32,
    },
    /// The call that exercises the capability is not there: "method not found" (-32601, gRPC
    /// `UNIMPLEMENTED`) or, over HTTP+JSON, a 404, 405 or 501 without an A2A error, where the same
    /// interface answers the binding's other calls in the protocol. A client speaking another
    /// binding hears "method not found" for every call, so only the agent's own answer elsewhere
    /// makes it evidence.
    MethodMissing {
        /// The call.
        call: Call,
    },
    /// The terminal transition arrived on the stream with no streamed artifact, while `GetTask`
    /// shows artifacts: they were only retrievable by polling.
    NoArtifactStreamed {
        /// How many artifacts `GetTask` returned.
        artifacts_via_get_task: usize,
    },
    /// `GetTask` returned an empty history when the client relied on it.
    EmptyHistory,
    /// No push callback at all arrived within the bound after the task's terminal transition
    /// (the config was registered before it).
    NoPushCallback {
        /// How long after the terminal transition the client gave up waiting.
        waited: Duration,
        /// The bound.
        bound: Duration,
    },
}

impl fmt::Display for Contradiction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AgentSaysUnsupported { call, code } => {
                write!(f, "the agent answered {call:?} with error {code} (not supported)")
            }
            Self::MethodMissing { call } => write!(
                f,
                "the agent has no {call:?} (method not found) where it answers the binding's other calls"
            ),
            Self::NoArtifactStreamed { artifacts_via_get_task } => write!(
                f,
                "the terminal transition streamed no artifact, while GetTask returns {artifacts_via_get_task}"
            ),
            Self::EmptyHistory => f.write_str("GetTask returned an empty history when it was relied on"),
            Self::NoPushCallback { waited, bound } => {
                write!(
                    f,
                    "no push callback within {} of the task's terminal transition (waited {})",
                    HumanDuration(*bound),
                    HumanDuration(*waited)
                )
            }
        }
    }
}

/// A discovered Agent Card's declared capability, contradicted by the agent's observable task
/// lifecycle: all three refusal conditions held.
///
/// Names the capability, the contradiction and the evidence (which event). It is never a
/// transport fault and never a plain protocol error: those are [`Pending`](crate::Pending) with
/// their own reasons, so callers tell them apart by type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentCardLifecycleViolation {
    capability: Capability,
    contradiction: Contradiction,
    evidence: Evidence,
}

impl AgentCardLifecycleViolation {
    pub(crate) fn new(capability: Capability, contradiction: Contradiction, evidence: Evidence) -> Self {
        Self { capability, contradiction, evidence }
    }

    /// The declared capability the agent did not honour.
    pub fn capability(&self) -> Capability {
        self.capability
    }

    /// What the agent did that the capability cannot explain.
    pub fn contradiction(&self) -> &Contradiction {
        &self.contradiction
    }

    /// The event that exercised the capability (for a missing push callback: the registration).
    pub fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// What to do now: [`Advice::Abandon`] for an empty history (a retry
    /// reproduces the same divergence), [`Advice::FallBackToSingleShot`](crate::Advice) otherwise.
    /// Either way: do not retry the task against this agent, and mark its card capability-suspect.
    pub fn advice(&self) -> Advice {
        match self.contradiction {
            Contradiction::EmptyHistory => Advice::Abandon,
            _ => Advice::FallBackToSingleShot,
        }
    }
}

impl fmt::Display for AgentCardLifecycleViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "card declares {} but {}; evidence: {}", self.capability, self.contradiction, self.evidence)
    }
}

impl std::error::Error for AgentCardLifecycleViolation {}
