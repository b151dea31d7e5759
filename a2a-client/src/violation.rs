//! Seam for the typestate crate's `AgentCardLifecycleViolation`.
//!
//! The verifier in `a2a-typestate` decides when an agent contradicted its card; this client only carries
//! the verdict inside [`crate::Error`]. Until that type lands this struct stands in with the same three
//! facts (capability, contradiction, evidence). Switching is one place: replace this struct by
//! `pub use a2a_typestate::AgentCardLifecycleViolation as LifecycleViolation;` (or wrap it).

use std::fmt;

use crate::Capability;

/// An agent contradicted a capability its card declares: refuse the claim, never retry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifecycleViolation {
    capability: Capability,
    contradiction: String,
    evidence: String,
}

impl LifecycleViolation {
    /// A violation of `capability`: what contradicted it, and the event that shows it.
    pub fn new(
        capability: Capability,
        contradiction: impl Into<String>,
        evidence: impl Into<String>,
    ) -> Self {
        Self { capability, contradiction: contradiction.into(), evidence: evidence.into() }
    }

    /// The capability the card over-declared.
    pub fn capability(&self) -> Capability {
        self.capability
    }

    /// What the agent did that the capability cannot explain.
    pub fn contradiction(&self) -> &str {
        &self.contradiction
    }

    /// The observed event that shows it.
    pub fn evidence(&self) -> &str {
        &self.evidence
    }
}

impl fmt::Display for LifecycleViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "card declares {} but {} (evidence: {})",
            self.capability, self.contradiction, self.evidence
        )
    }
}

impl std::error::Error for LifecycleViolation {}
