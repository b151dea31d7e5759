//! The card's other claims: extended card, extensions, interfaces, output modes and security.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_typestate::{CardClaim, CardClaims, ClaimAnswer, ClaimCheck, Deployment, ExtendedCardAnswer};
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a",
//!     "description": "", "version": "1", "supportedInterfaces": [], "skills": [],
//!     "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!     "capabilities": {"extendedAgentCard": true}}"#)?;
//! let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
//! assert!(claims.card_claims().contains(&CardClaim::ExtendedAgentCard));
//!
//! // The caller asks for the extended card (it depends on it); the agent says it has none.
//! let mut check = ClaimCheck::new(claims, CardClaim::ExtendedAgentCard, true);
//! check.observe(ClaimAnswer::ExtendedCard(ExtendedCardAnswer::AgentError { code: -32004 }));
//! let verdict = check.verdict().ok_or("the claim is checked")?;
//! assert!(verdict.violation().is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The lifecycle claims ([`Capability`](crate::Capability)) are about how one task behaves and are
//! judged by the [`Verifier`](crate::Verifier) over that task's observations. The claims here are
//! about the agent as a whole: which card, which extensions, which endpoints, which outputs, which
//! credentials. They are judged one claim at a time by a [`ClaimCheck`](crate::ClaimCheck), from
//! the answers to the calls that exercised it, under the same rules.
//!
//! # The refusal rules
//!
//! A card claim is refused only when **all** hold:
//! 1. the card declares it ([`CardClaims::card_claims`](crate::CardClaims::card_claims); a gateway's
//!    card declares none) **and** the caller's path depends on it (the `depends` of
//!    [`ClaimCheck::new`](crate::ClaimCheck::new));
//! 2. the **first** answer that exercises it contradicts it:
//!    - [`CardClaim::ExtendedAgentCard`]: `GetExtendedAgentCard` is answered with the agent's own
//!      "not supported" (`UnsupportedOperationError` -32004) or "not configured"
//!      (`ExtendedAgentCardNotConfiguredError` -32007). A 401 or 403 is no contradiction: the
//!      extended card is for authenticated callers, and a wrong credential is the caller's;
//!    - [`CardClaim::Extension`]: a call that asked for the extension was answered, and the answer
//!      names other activated extensions but not this one. An answer that names none is no
//!      evidence: some servers activate extensions without echoing them;
//!    - [`CardClaim::Interface`]: the interface answered, but not in its declared binding (no such
//!      endpoint, or a body that binding does not produce), or rejected its declared protocol
//!      version (`VersionNotSupportedError` -32009), or named another version;
//!    - [`CardClaim::OutputModes`]: a message that accepted only output modes the card declares
//!      was answered with a part in a media type none of them covers;
//!    - [`CardClaim::Security`] with [`Access::Open`]: a call sent without credentials was answered
//!      401 (a demand for credentials, whoever sent it), or 403 carrying the agent's own A2A error.
//!      A bare 403 is no contradiction: a gateway or web firewall in front of an honest agent
//!      answers that for reasons that have nothing to do with credentials (an address range, a
//!      rule, a rate). With [`Access::Required`], a call sent without credentials that succeeds is a
//!      [`CardClaimVerdict::Warning`], never a refusal: an agent more open than its card is
//!      under-declaring, which is safe for the caller (and worth telling its operator);
//! 3. the answer was reachable through the card's declared modes ([`crate::rules`]): an output
//!    answer counts only when the message used input media types the card's `defaultInputModes`
//!    declare (a text probe to an agent that takes only `application/json` proves nothing about
//!    its outputs: [`ClaimPending::OutsideDeclaredModes`]); every other answer here is the agent's
//!    own to the claim's own call and counts whatever the modes.
//!
//! What never refuses: a transport fault (reset, timeout, 502/503/504: retry); an agent doing more
//! than it declares (activating an extension it did not declare, answering a mode the caller
//! accepted but the card does not list, serving calls its card says need credentials); anything
//! about a gateway. Once the first exercising answer settled a claim, later answers do not change it.
//!
//! # Where each claim is checked
//!
//! The extended card and security claims belong to discovery: the extended card is judged when it
//! is read (the client's `AgentConnection::extended_card_verdict`), security on the first call made
//! without credentials. An interface is judged when it is first called; extensions and output modes
//! on the first answer to a call that asked for them, during a task. `a2a audit` checks all five;
//! the client records each refusal as a suspect mark on the claim and takes the claim's fallback
//! (the public card, the next declared interface, no extension), as `docs/architecture.md` says.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::advice::Advice;
use crate::observe::{ExchangeModes, Reach, TransportFault};

/// One claim an Agent Card makes about the agent beyond the task lifecycle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CardClaim {
    /// `capabilities.extendedAgentCard: true` (0.3: `supportsAuthenticatedExtendedCard`):
    /// `GetExtendedAgentCard` serves a card.
    ExtendedAgentCard,
    /// An entry of `capabilities.extensions`: the agent activates it when asked.
    Extension {
        /// The extension's URI.
        uri: String,
    },
    /// An entry of `supportedInterfaces`: the URL answers in that binding and protocol version.
    Interface {
        /// The endpoint URL.
        url: String,
        /// The declared binding (`JSONRPC`, `HTTP+JSON`, `GRPC`, ...).
        protocol_binding: String,
        /// The declared protocol version (`1.0`, `0.3`; an entry that names none is read as 1.0).
        protocol_version: String,
    },
    /// `defaultOutputModes` and the skills' `outputModes`: asked for these only, the agent answers
    /// in them.
    OutputModes {
        /// Every media type the card declares as output, defaults first, without repeats.
        declared: Vec<String>,
    },
    /// `securityRequirements` (and `securitySchemes`): what the agent asks of a caller.
    Security(Access),
}

/// What a card's security section says about unauthenticated callers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// No requirement, no scheme and no skill requirement, or an empty requirement among the
    /// alternatives: calls without credentials are served.
    Open,
    /// Every alternative names a scheme: calls without credentials are refused.
    Required,
}

/// The five kinds of card claim: what `a2a audit --claims` picks and what a suspect mark names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaimKind {
    /// [`CardClaim::ExtendedAgentCard`].
    ExtendedCard,
    /// [`CardClaim::Extension`].
    Extensions,
    /// [`CardClaim::Interface`].
    Interfaces,
    /// [`CardClaim::OutputModes`].
    OutputModes,
    /// [`CardClaim::Security`].
    Security,
}

impl ClaimKind {
    /// Every kind, in a fixed order.
    pub const ALL: [ClaimKind; 5] =
        [Self::ExtendedCard, Self::Extensions, Self::Interfaces, Self::OutputModes, Self::Security];

    /// Its name in reports and on the command line (`extended-card`, `output-modes`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::ExtendedCard => "extended-card",
            Self::Extensions => "extensions",
            Self::Interfaces => "interfaces",
            Self::OutputModes => "output-modes",
            Self::Security => "security",
        }
    }
}

impl fmt::Display for ClaimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`ClaimKind`]: says which, and what would have been accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownClaimKind(pub String);

impl fmt::Display for UnknownClaimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = ClaimKind::ALL.iter().map(|k| k.name()).collect();
        write!(f, "unknown claim `{}` (expected one of: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownClaimKind {}

impl FromStr for ClaimKind {
    type Err = UnknownClaimKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|k| k.name() == s.trim()).ok_or_else(|| UnknownClaimKind(s.to_owned()))
    }
}

impl CardClaim {
    /// Which of the five kinds it is.
    pub fn kind(&self) -> ClaimKind {
        match self {
            Self::ExtendedAgentCard => ClaimKind::ExtendedCard,
            Self::Extension { .. } => ClaimKind::Extensions,
            Self::Interface { .. } => ClaimKind::Interfaces,
            Self::OutputModes { .. } => ClaimKind::OutputModes,
            Self::Security(_) => ClaimKind::Security,
        }
    }
}

impl fmt::Display for CardClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ExtendedAgentCard => f.write_str("an extended agent card"),
            Self::Extension { uri } => write!(f, "extension {uri}"),
            Self::Interface { url, protocol_binding, protocol_version } => {
                let version = if protocol_version.is_empty() { "0.3" } else { protocol_version };
                write!(f, "interface {url} ({protocol_binding}, version {version})")
            }
            Self::OutputModes { declared } => write!(f, "output modes {}", declared.join(", ")),
            Self::Security(Access::Open) => f.write_str("open access (no security requirement)"),
            Self::Security(Access::Required) => f.write_str("credentials required"),
        }
    }
}

/// How `GetExtendedAgentCard` was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtendedCardAnswer {
    /// A card was served.
    Served,
    /// The agent answered with a protocol error.
    AgentError {
        /// The A2A / JSON-RPC code.
        code: i32,
    },
    /// HTTP 401 or 403: the caller is not allowed to read it.
    Denied {
        /// The HTTP status.
        status: u16,
    },
}

/// How a call to a declared interface, made in its declared binding and version, was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterfaceAnswer {
    /// Answered in the binding; `protocol_version` is the version the answer names, if it names one.
    Served {
        /// The version named by the answer (the `A2A-Version` response header, say).
        protocol_version: Option<String>,
    },
    /// Answered, but not in the declared binding: no such endpoint (404, 405, a JSON-RPC
    /// "method not found"), or a body that binding does not produce.
    OtherBinding {
        /// What came, in a few words (`http 404`, `text/html body`).
        detail: String,
    },
    /// Answered with a protocol error: `VersionNotSupportedError` (-32009) contradicts the declared
    /// version; any other code says nothing about the interface.
    AgentError {
        /// The A2A / JSON-RPC code.
        code: i32,
    },
}

/// One answer that may exercise a card claim; what a [`ClaimCheck`](crate::ClaimCheck) judges.
/// Plain data: the client makes the call and says what came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimAnswer {
    /// A call failed below the protocol: never evidence about the card.
    TransportFault(TransportFault),
    /// `GetExtendedAgentCard` was answered.
    ExtendedCard(ExtendedCardAnswer),
    /// A call that asked for the extensions `asked` was answered, naming `activated` as activated
    /// (the `A2A-Extensions` response header or gRPC metadata).
    Extensions {
        /// The extension URIs the call asked for.
        asked: ExtensionSet,
        /// The extension URIs the answer named.
        activated: ExtensionSet,
    },
    /// A call to the interface at `url` was answered.
    Interface {
        /// The interface's URL.
        url: String,
        /// What came.
        answer: InterfaceAnswer,
    },
    /// A message sent with `modes` (its parts' media types and its `acceptedOutputModes`) was
    /// answered with parts in the media types `answered` (`text/plain` for a text part,
    /// `application/json` for a data part).
    Output {
        /// What the message sent and accepted: clause 3 reads its input media types, the output
        /// rule its `acceptedOutputModes` (empty: any).
        modes: ExchangeModes,
        /// The media types of the answer's parts.
        answered: Vec<String>,
    },
    /// A call was answered with HTTP `status`: 401 or 403 when it was refused for its
    /// credentials, 200 for any A2A answer (a result or a protocol error: the call got past
    /// authentication).
    Access {
        /// Whether the call carried credentials.
        credentials_sent: bool,
        /// The HTTP status of the answer.
        status: u16,
        /// Whether a 401 or 403 carried the agent's own A2A error (a JSON-RPC error, an A2A error
        /// body). A bare 403 without one may come from a gateway in front of the agent.
        agent_error: bool,
    },
}

impl fmt::Display for ClaimAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TransportFault(fault) => write!(f, "{fault}"),
            Self::ExtendedCard(ExtendedCardAnswer::Served) => {
                f.write_str("GetExtendedAgentCard served a card")
            }
            Self::ExtendedCard(ExtendedCardAnswer::AgentError { code }) => {
                write!(f, "GetExtendedAgentCard answered error {code}")
            }
            Self::ExtendedCard(ExtendedCardAnswer::Denied { status }) => {
                write!(f, "GetExtendedAgentCard answered http {status}")
            }
            Self::Extensions { asked, activated } => {
                let list = |set: &ExtensionSet| set.iter().collect::<Vec<_>>().join(", ");
                write!(f, "asked for [{}], the answer activated [{}]", list(asked), list(activated))
            }
            Self::Interface { url, answer: InterfaceAnswer::Served { protocol_version } } => {
                match protocol_version {
                    Some(version) => write!(f, "{url} answered in its binding, version {version}"),
                    None => write!(f, "{url} answered in its binding"),
                }
            }
            Self::Interface { url, answer: InterfaceAnswer::OtherBinding { detail } } => {
                write!(f, "{url} answered outside its binding: {detail}")
            }
            Self::Interface { url, answer: InterfaceAnswer::AgentError { code } } => {
                write!(f, "{url} answered error {code}")
            }
            Self::Output { modes, answered } => write!(
                f,
                "sent [{}] accepting [{}], answered in [{}]",
                modes.input.join(", "),
                modes.accepted_output.join(", "),
                answered.join(", ")
            ),
            Self::Access { credentials_sent, status, agent_error } => {
                let how = if *credentials_sent { "with" } else { "without" };
                let body = if *agent_error { " with an A2A error" } else { "" };
                write!(f, "a call {how} credentials answered http {status}{body}")
            }
        }
    }
}

/// A set of extension URIs, shared rather than copied (one answer is read against every
/// extension the card declares, so its cost must not grow with their number twice) and looked up
/// in logarithmic time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtensionSet(Arc<BTreeSet<String>>);

impl ExtensionSet {
    /// Whether `uri` is in the set.
    pub fn contains(&self, uri: &str) -> bool {
        self.0.contains(uri)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The URIs, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

impl FromIterator<String> for ExtensionSet {
    fn from_iter<I: IntoIterator<Item = String>>(uris: I) -> Self {
        Self(Arc::new(uris.into_iter().collect()))
    }
}

impl From<Vec<String>> for ExtensionSet {
    fn from(uris: Vec<String>) -> Self {
        uris.into_iter().collect()
    }
}

impl ClaimAnswer {
    /// How the answer was reached, for clause 3 of the refusal rules ([`crate::rules`]): an
    /// answer about a message's output depends on what the message sent; every other answer is the
    /// agent's own to the claim's own call (or header) and counts whatever the modes.
    pub fn reach(&self) -> Reach<'_> {
        match self {
            Self::Output { modes, .. } => Reach::Exchange(Some(modes)),
            _ => Reach::OwnCall,
        }
    }
}

/// The answer a card-claim verdict rests on: which one, and what it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimEvidence {
    /// Its position among the check's answers (0 is the first).
    pub seq: usize,
    /// What came.
    pub answer: ClaimAnswer,
}

impl fmt::Display for ClaimEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "answer #{}: {}", self.seq, self.answer)
    }
}

/// A card claim contradicted by the agent's answer: every refusal condition held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardClaimViolation {
    claim: CardClaim,
    evidence: ClaimEvidence,
}

impl CardClaimViolation {
    /// A violation of `claim`, resting on `evidence`: made by a [`ClaimCheck`](crate::ClaimCheck)
    /// once every refusal condition held.
    pub(crate) fn new(claim: CardClaim, evidence: ClaimEvidence) -> Self {
        Self { claim, evidence }
    }

    /// The claim the agent did not honour.
    pub fn claim(&self) -> &CardClaim {
        &self.claim
    }

    /// The answer that contradicted it.
    pub fn evidence(&self) -> &ClaimEvidence {
        &self.evidence
    }

    /// What to do now: fall back (another declared interface, the public card, no extension, only
    /// the media types the agent does answer in); for open access, which has no fallback without
    /// credentials, abandon. Either way mark the agent suspect for this claim's kind.
    pub fn advice(&self) -> Advice {
        match self.claim {
            CardClaim::Security(_) => Advice::Abandon,
            _ => Advice::FallBackToSingleShot,
        }
    }
}

impl fmt::Display for CardClaimViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "card declares {} but {}", self.claim, self.evidence)
    }
}

impl std::error::Error for CardClaimViolation {}

/// Why a card claim is neither verified nor refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimPending {
    /// No answer has exercised it yet.
    NotExercised,
    /// The latest answer was a transport fault: retry; it is never a refusal.
    TransportFault(TransportFault),
    /// The latest answer said nothing about the claim (an unrelated protocol error, a 401 or 403
    /// on the extended card, a call that accepted modes the card does not declare).
    Inconclusive(ClaimEvidence),
    /// The answer contradicted the claim, but the message that reached it used media types the
    /// card's default modes do not declare (clause 3 fails): unverifiable from that exchange.
    OutsideDeclaredModes(ClaimEvidence),
}

impl fmt::Display for ClaimPending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotExercised => f.write_str("not exercised yet"),
            Self::TransportFault(fault) => write!(f, "{fault}, retry"),
            Self::Inconclusive(evidence) => write!(f, "inconclusive: {evidence}"),
            Self::OutsideDeclaredModes(evidence) => {
                write!(f, "unverifiable: reached outside the card's declared modes, {evidence}")
            }
        }
    }
}

/// What a [`ClaimCheck`](crate::ClaimCheck) answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardClaimVerdict {
    /// The first answer that exercised the claim honoured it.
    Verified(ClaimEvidence),
    /// Not settled yet.
    Pending(ClaimPending),
    /// The agent is more open than its card says (a call without credentials was served while the
    /// card requires them): no refusal, but worth telling.
    Warning(ClaimEvidence),
    /// Every refusal condition held.
    Refused(CardClaimViolation),
}

impl CardClaimVerdict {
    /// The violation, when refused.
    pub fn violation(&self) -> Option<&CardClaimViolation> {
        match self {
            Self::Refused(violation) => Some(violation),
            _ => None,
        }
    }

    /// `true` when verified.
    pub fn is_verified(&self) -> bool {
        matches!(self, Self::Verified(_))
    }

    /// What to do now.
    pub fn advice(&self) -> Advice {
        match self {
            Self::Verified(_) | Self::Warning(_) => Advice::Proceed,
            Self::Pending(ClaimPending::TransportFault(_)) => Advice::Retry,
            Self::Pending(_) => Advice::KeepObserving,
            Self::Refused(violation) => violation.advice(),
        }
    }
}

impl fmt::Display for CardClaimVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Verified(evidence) => write!(f, "verified by {evidence}"),
            Self::Pending(pending) => write!(f, "pending: {pending}"),
            Self::Warning(evidence) => write!(f, "warning: more open than declared, {evidence}"),
            Self::Refused(violation) => write!(f, "refused: {violation}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_kinds_parse_from_their_names_and_reject_others() {
        for kind in ClaimKind::ALL {
            assert_eq!(kind.name().parse::<ClaimKind>(), Ok(kind));
        }
        let error = "streaming".parse::<ClaimKind>().unwrap_err();
        assert!(error.to_string().contains("extended-card, extensions, interfaces, output-modes, security"));
    }
}
