//! Judging one card claim beyond the lifecycle from the answers that exercised it, under the
//! refusal rules [`card_claim`](crate::card_claim) states.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_typestate::{CardClaim, CardClaims, ClaimAnswer, ClaimCheck, Deployment, InterfaceAnswer};
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a",
//!     "description": "", "version": "1", "skills": [], "capabilities": {},
//!     "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!     "supportedInterfaces": [{"url": "http://a.example/rpc", "protocolBinding": "JSONRPC",
//!     "protocolVersion": "1.0"}]}"#)?;
//! let claim = CardClaim::Interface {
//!     url: "http://a.example/rpc".into(),
//!     protocol_binding: "JSONRPC".into(),
//!     protocol_version: "1.0".into(),
//! };
//! let mut check = ClaimCheck::new(Arc::new(CardClaims::lift(&card, Deployment::Direct)), claim, true);
//! check.observe(ClaimAnswer::Interface {
//!     url: "http://a.example/rpc".into(),
//!     answer: InterfaceAnswer::OtherBinding { detail: "http 404".into() },
//! });
//! assert!(check.verdict().and_then(|v| v.violation().cloned()).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use a2a_typestate_types::error::A2aErrorCode;

use crate::card::CardClaims;
use crate::card_claim::{
    Access, CardClaim, CardClaimVerdict, CardClaimViolation, ClaimAnswer, ClaimEvidence, ClaimPending,
    ExtendedCardAnswer, InterfaceAnswer,
};
use crate::observe::TransportFault;
use crate::rules::{self, Reachability, media_type_covers};

/// Judges one card claim from the answers to the calls that exercised it. No I/O, no clock.
#[derive(Clone, Debug)]
pub struct ClaimCheck {
    card: Arc<CardClaims>,
    claim: CardClaim,
    depends: bool,
    answers: Vec<ClaimAnswer>,
}

/// What one answer says about a claim.
enum Reading {
    /// Not about this claim: skipped.
    Unrelated,
    Fault(TransportFault),
    Inconclusive,
    Honoured,
    MoreOpen,
    Contradicted,
}

impl ClaimCheck {
    /// A check of `claim` against the agent whose card gave `card`, for a caller whose path
    /// depends on it (`depends`) or not.
    pub fn new(card: Arc<CardClaims>, claim: CardClaim, depends: bool) -> Self {
        Self { card, claim, depends, answers: Vec::new() }
    }

    /// The claim checked.
    pub fn claim(&self) -> &CardClaim {
        &self.claim
    }

    /// `true` when the claim is checked: the card declares it and the caller depends on it.
    pub fn is_checked(&self) -> bool {
        rules::checked(&self.card, self.card.card_claims().contains(&self.claim), self.depends)
    }

    /// Records an answer and returns its sequence number, the one [`ClaimEvidence`] cites.
    pub fn observe(&mut self, answer: ClaimAnswer) -> usize {
        self.answers.push(answer);
        self.answers.len() - 1
    }

    /// Every answer recorded, in order.
    pub fn answers(&self) -> &[ClaimAnswer] {
        &self.answers
    }

    /// The verdict, or `None` when the claim is not checked (not declared, not depended on, or the
    /// agent is a gateway).
    pub fn verdict(&self) -> Option<CardClaimVerdict> {
        if !self.is_checked() {
            return None;
        }
        let mut pending = ClaimPending::NotExercised;
        for (seq, answer) in self.answers.iter().enumerate() {
            let evidence = || ClaimEvidence { seq, answer: answer.clone() };
            match self.read(answer) {
                Reading::Unrelated => {}
                Reading::Fault(fault) => pending = ClaimPending::TransportFault(fault),
                Reading::Inconclusive => pending = ClaimPending::Inconclusive(evidence()),
                Reading::Honoured => return Some(CardClaimVerdict::Verified(evidence())),
                Reading::MoreOpen => return Some(CardClaimVerdict::Warning(evidence())),
                Reading::Contradicted => {
                    return Some(match rules::reachable(&self.card, answer.reach()) {
                        Reachability::Declared => {
                            CardClaimVerdict::Refused(CardClaimViolation::new(self.claim.clone(), evidence()))
                        }
                        Reachability::OutsideDeclaredModes | Reachability::ModesUnknown => {
                            CardClaimVerdict::Pending(ClaimPending::OutsideDeclaredModes(evidence()))
                        }
                    });
                }
            }
        }
        Some(CardClaimVerdict::Pending(pending))
    }

    fn read(&self, answer: &ClaimAnswer) -> Reading {
        match (&self.claim, answer) {
            (_, ClaimAnswer::TransportFault(fault)) => Reading::Fault(*fault),
            (CardClaim::ExtendedAgentCard, ClaimAnswer::ExtendedCard(answer)) => read_extended_card(answer),
            (CardClaim::Extension { uri }, ClaimAnswer::Extensions { asked, activated }) => {
                if !asked.contains(uri) {
                    Reading::Unrelated
                } else if activated.contains(uri) {
                    Reading::Honoured
                } else if activated.is_empty() {
                    // An answer naming no extension at all may come from an agent that activates
                    // but cannot echo (a2a-sdk 1.3.0 has no way to): no evidence either way.
                    Reading::Inconclusive
                } else {
                    Reading::Contradicted
                }
            }
            (
                CardClaim::Interface { url, protocol_version, .. },
                ClaimAnswer::Interface { url: called, answer },
            ) => {
                if called != url {
                    return Reading::Unrelated;
                }
                read_interface(protocol_version, answer)
            }
            (CardClaim::OutputModes { declared }, ClaimAnswer::Output { modes, answered }) => {
                read_output(declared, &modes.accepted_output, answered)
            }
            (CardClaim::Security(access), ClaimAnswer::Access { credentials_sent, status, agent_error }) => {
                read_access(*access, *credentials_sent, *status, *agent_error)
            }
            _ => Reading::Unrelated,
        }
    }
}

fn read_extended_card(answer: &ExtendedCardAnswer) -> Reading {
    match answer {
        ExtendedCardAnswer::Served => Reading::Honoured,
        ExtendedCardAnswer::AgentError { code } => match A2aErrorCode::from_code(i64::from(*code)) {
            A2aErrorCode::UnsupportedOperation | A2aErrorCode::ExtendedAgentCardNotConfigured => {
                Reading::Contradicted
            }
            _ => Reading::Inconclusive,
        },
        ExtendedCardAnswer::Denied { .. } => Reading::Inconclusive,
    }
}

fn read_interface(declared_version: &str, answer: &InterfaceAnswer) -> Reading {
    match answer {
        InterfaceAnswer::Served { protocol_version: None } => Reading::Honoured,
        InterfaceAnswer::Served { protocol_version: Some(version) } => {
            if same_version(declared_version, version) { Reading::Honoured } else { Reading::Contradicted }
        }
        InterfaceAnswer::OtherBinding { .. } => Reading::Contradicted,
        InterfaceAnswer::AgentError { code } => {
            if A2aErrorCode::from_code(i64::from(*code)) == A2aErrorCode::VersionNotSupported {
                Reading::Contradicted
            } else {
                Reading::Inconclusive
            }
        }
    }
}

/// Versions compare by `Major.Minor` (`1.0` and `1.0.2` are the same); empty means 0.3.
fn same_version(declared: &str, answered: &str) -> bool {
    fn major_minor(version: &str) -> (&str, &str) {
        let version = if version.trim().is_empty() { "0.3" } else { version.trim() };
        let mut parts = version.split('.');
        (parts.next().unwrap_or(""), parts.next().unwrap_or("0"))
    }
    major_minor(declared) == major_minor(answered)
}

fn read_output(declared: &[String], accepted: &[String], answered: &[String]) -> Reading {
    // The caller depends on the card's modes only when it asked for some of them and nothing else.
    let within_card = accepted.iter().all(|mode| declared.iter().any(|d| media_type_covers(d, mode)));
    if accepted.is_empty() || !within_card {
        return Reading::Inconclusive;
    }
    if answered.iter().all(|mode| accepted.iter().any(|a| media_type_covers(a, mode))) {
        Reading::Honoured
    } else {
        Reading::Contradicted
    }
}

fn read_access(access: Access, credentials_sent: bool, status: u16, agent_error: bool) -> Reading {
    // Only a call without credentials tests what the card says about callers without them.
    if credentials_sent {
        return Reading::Unrelated;
    }
    // A 401 demands credentials whoever sends it; a 403 is about credentials only when the agent
    // itself says so: a bare one may be a gateway's or a firewall's, and an honest agent must not
    // be called a liar for what stands in front of it.
    if access == Access::Open && status == 403 && !agent_error {
        return Reading::Inconclusive;
    }
    let denied = matches!(status, 401 | 403);
    let served = (200..300).contains(&status);
    match access {
        Access::Open if denied => Reading::Contradicted,
        Access::Open if served => Reading::Honoured,
        Access::Required if denied => Reading::Honoured,
        Access::Required if served => Reading::MoreOpen,
        _ => Reading::Inconclusive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_major_and_minor_and_empty_is_0_3() {
        assert!(same_version("1.0", "1.0.2"));
        assert!(same_version("", "0.3.0"));
        assert!(!same_version("1.0", "0.3"));
        assert!(!same_version("1.1", "1.0"));
    }
}
