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
//! credentials. They are judged one claim at a time by a [`ClaimCheck`], from the answers to the
//! calls that exercised it, under the same rules.
//!
//! # The refusal rules
//!
//! A card claim is refused only when **all** hold:
//! 1. the card declares it ([`CardClaims::card_claims`]; a gateway's card declares none) **and** the
//!    caller's path depends on it (the `depends` of [`ClaimCheck::new`]);
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
//!    - [`CardClaim::OutputModes`]: a call that accepted only output modes the card declares was
//!      answered with a part in a media type none of them matches;
//!    - [`CardClaim::Security`] with [`Access::Open`]: a call sent without credentials was answered
//!      401 (a demand for credentials, whoever sent it), or 403 carrying the agent's own A2A error.
//!      A bare 403 is no contradiction: a gateway or web firewall in front of an honest agent
//!      answers that for reasons that have nothing to do with credentials (an address range, a
//!      rule, a rate). With [`Access::Required`], a call sent without credentials that succeeds is a
//!      [`CardClaimVerdict::Warning`], never a refusal: an agent more open than its card is
//!      under-declaring, which is safe for the caller (and worth telling its operator).
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
//! the client acts on none but the extended card yet (its fallback is the public card).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use a2a_typestate_types::AgentCard;
use a2a_typestate_types::error::A2aErrorCode;

use crate::advice::Advice;
use crate::card::{CardClaims, GATEWAY_EXTENSION_URI, POLL_CADENCE_EXTENSION_URI};
use crate::observe::TransportFault;

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
        /// The declared protocol version (`1.0`; empty means 0.3).
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

    /// Every claim `card` makes, in card order: the extended card, each extension, each interface,
    /// the output modes, the security section. This SDK's own card annotations
    /// ([`GATEWAY_EXTENSION_URI`], [`POLL_CADENCE_EXTENSION_URI`]) are not negotiated extensions and
    /// are left out. Called by [`CardClaims::lift`], which empties it for a gateway.
    pub(crate) fn lift_all(card: &AgentCard) -> Vec<CardClaim> {
        let caps = &card.capabilities;
        let mut claims = Vec::new();
        if caps.extended_agent_card == Some(true) {
            claims.push(Self::ExtendedAgentCard);
        }
        claims.extend(
            caps.extensions
                .iter()
                .filter(|e| e.uri != GATEWAY_EXTENSION_URI && e.uri != POLL_CADENCE_EXTENSION_URI)
                .map(|e| Self::Extension { uri: e.uri.clone() }),
        );
        claims.extend(card.supported_interfaces.iter().map(|i| Self::Interface {
            url: i.url.clone(),
            protocol_binding: i.protocol_binding.clone(),
            protocol_version: i.protocol_version.clone(),
        }));
        let mut declared: Vec<String> = Vec::new();
        for mode in card.default_output_modes.iter().chain(card.skills.iter().flat_map(|s| &s.output_modes)) {
            if !declared.contains(mode) {
                declared.push(mode.clone());
            }
        }
        if !declared.is_empty() {
            claims.push(Self::OutputModes { declared });
        }
        if let Some(access) = access_of(card) {
            claims.push(Self::Security(access));
        }
        claims
    }
}

/// What the card says about unauthenticated callers, or `None` when it does not say: schemes
/// listed with no requirement naming them. A skill with its own requirements means some calls may
/// need credentials, so such a card claims no open access.
fn access_of(card: &AgentCard) -> Option<Access> {
    let requirements = &card.security_requirements;
    let skill_requires =
        card.skills.iter().any(|s| s.security_requirements.iter().any(|r| !r.schemes.is_empty()));
    let anonymous_alternative = requirements.iter().any(|r| r.schemes.is_empty());
    if !requirements.is_empty() && !anonymous_alternative {
        Some(Access::Required)
    } else if skill_requires || (requirements.is_empty() && !card.security_schemes.is_empty()) {
        None
    } else {
        Some(Access::Open)
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

/// One answer that may exercise a card claim; what a [`ClaimCheck`] judges. Plain data: the client
/// makes the call and says what came.
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
        asked: Vec<String>,
        /// The extension URIs the answer named.
        activated: Vec<String>,
    },
    /// A call to the interface at `url` was answered.
    Interface {
        /// The interface's URL.
        url: String,
        /// What came.
        answer: InterfaceAnswer,
    },
    /// A call with `acceptedOutputModes: accepted` was answered with parts in the media types
    /// `answered` (`text/plain` for a text part, `application/json` for a data part).
    Output {
        /// The `acceptedOutputModes` the call sent (empty: any).
        accepted: Vec<String>,
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
                write!(f, "asked for [{}], the answer activated [{}]", asked.join(", "), activated.join(", "))
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
            Self::Output { accepted, answered } => {
                write!(f, "accepted [{}], answered in [{}]", accepted.join(", "), answered.join(", "))
            }
            Self::Access { credentials_sent, status, agent_error } => {
                let how = if *credentials_sent { "with" } else { "without" };
                let body = if *agent_error { " with an A2A error" } else { "" };
                write!(f, "a call {how} credentials answered http {status}{body}")
            }
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
}

impl fmt::Display for ClaimPending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotExercised => f.write_str("not exercised yet"),
            Self::TransportFault(fault) => write!(f, "{fault}, retry"),
            Self::Inconclusive(evidence) => write!(f, "inconclusive: {evidence}"),
        }
    }
}

/// What a [`ClaimCheck`] answers.
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
        self.depends && self.card.card_claims().contains(&self.claim)
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
                    let violation = CardClaimViolation { claim: self.claim.clone(), evidence: evidence() };
                    return Some(CardClaimVerdict::Refused(violation));
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
            (CardClaim::OutputModes { declared }, ClaimAnswer::Output { accepted, answered }) => {
                read_output(declared, accepted, answered)
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
    let within_card = accepted.iter().all(|mode| declared.iter().any(|d| mode_matches(d, mode)));
    if accepted.is_empty() || !within_card {
        return Reading::Inconclusive;
    }
    if answered.iter().all(|mode| accepted.iter().any(|a| mode_matches(a, mode))) {
        Reading::Honoured
    } else {
        Reading::Contradicted
    }
}

/// Whether `mode` falls under `pattern`: equal ignoring case and parameters, or `*/*`, or
/// `type/*` or a bare `type` (cards in the wild write `"text"`) for the same type.
fn mode_matches(pattern: &str, mode: &str) -> bool {
    let essence = |m: &str| m.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let (pattern, mode) = (essence(pattern), essence(mode));
    if pattern == "*/*" || pattern == "*" || pattern == mode {
        return true;
    }
    let kind = pattern.strip_suffix("/*").unwrap_or(&pattern);
    !kind.contains('/') && mode.split_once('/').is_some_and(|(mode_kind, _)| mode_kind == kind)
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
    fn media_types_match_exactly_by_wildcard_or_by_type() {
        assert!(mode_matches("text/plain", "Text/Plain; charset=utf-8"));
        assert!(mode_matches("*/*", "image/png"));
        assert!(mode_matches("text/*", "text/markdown"));
        assert!(!mode_matches("text/*", "application/json"));
        assert!(!mode_matches("text/plain", "text/html"));
        assert!(mode_matches("text", "text/plain"));
        assert!(!mode_matches("text", "image/png"));
        assert!(!mode_matches("application/json", "*/*"));
    }

    #[test]
    fn versions_compare_by_major_and_minor_and_empty_is_0_3() {
        assert!(same_version("1.0", "1.0.2"));
        assert!(same_version("", "0.3.0"));
        assert!(!same_version("1.0", "0.3"));
        assert!(!same_version("1.1", "1.0"));
    }

    #[test]
    fn claim_kinds_parse_from_their_names_and_reject_others() {
        for kind in ClaimKind::ALL {
            assert_eq!(kind.name().parse::<ClaimKind>(), Ok(kind));
        }
        let error = "streaming".parse::<ClaimKind>().unwrap_err();
        assert!(error.to_string().contains("extended-card, extensions, interfaces, output-modes, security"));
    }
}
