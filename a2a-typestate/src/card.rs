//! Lifting claims from an Agent Card: the one place where claims come into existence.
//!
//! ```
//! use a2a_typestate::{Capability, CardClaims, Deployment};
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"],
//!     "capabilities": {"streaming": true, "stateTransitionHistory": true}}"#)?;
//! let claims = CardClaims::lift(&card, Deployment::Direct);
//! assert!(claims.declares(Capability::Streaming));
//! assert!(claims.declares(Capability::StateTransitionHistory)); // the legacy field, still carried
//!
//! // Behind a gateway the card describes the gateway: no claims at all.
//! assert!(CardClaims::lift(&card, Deployment::Gateway).declared().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Where each claim is read
//!
//! - `streaming`: `capabilities.streaming == Some(true)` (absent or `false` is no claim).
//! - `pushNotifications`: `capabilities.pushNotifications == Some(true)`.
//! - `stateTransitionHistory`: a 0.3 field, removed in 1.0 (#1396). It is read with
//!   [`AgentCapabilities::legacy_state_transition_history`](a2a_typestate_types::AgentCapabilities::legacy_state_transition_history),
//!   that is, from `capabilities.extra["stateTransitionHistory"]`. A 0.3 card reaches this crate
//!   converted to a 1.0 [`AgentCard`] whose conversion puts the 0.3 claim there; a native 1.0 card
//!   has it only when it still carries the field as a legacy leftover (the v1.0.0 sample card
//!   does). A 1.0 card without that leftover never claims history.
//!
//! The claims beyond the lifecycle (extended card, extensions, interfaces, output modes, security)
//! are lifted here too, as [`CardClaim`]s: [`card_claim`](crate::card_claim) says where each is read.
//!
//! # Gateways
//!
//! A card served by a gateway describes the gateway, not the backend that runs the task, so none
//! of its claims says anything about the task's lifecycle (the design note's "condition is
//! invalid"). Such an agent yields **no claims at all**. An agent is a gateway when either
//! - the caller says so: [`Deployment::Gateway`] (a trust setting the caller owns), or
//! - the card says so: an extension in `capabilities.extensions` with uri [`GATEWAY_EXTENSION_URI`].
//!
//! # Poll cadence
//!
//! A non-streaming agent may declare how often to poll `GetTask` with an extension in
//! `capabilities.extensions` with uri [`POLL_CADENCE_EXTENSION_URI`] and
//! `params: {"intervalMs": N}` (this SDK's convention; N a positive JSON number of milliseconds,
//! read through [`a2a_typestate_types::wire_number`]: more than a day is taken as a day, and every
//! poll loop clamps it further, see [`Bounds::card_cadence`](crate::Bounds::card_cadence)).
//! Anything else (missing params, zero, negative, a string) is treated as "no cadence declared".

use std::time::Duration;

use a2a_typestate_types::AgentCard;
use a2a_typestate_types::wire_number::{self, Unit};

use crate::capability::{Capability, CapabilitySet};
use crate::card_claim::{Access, CardClaim};

/// Extension uri marking an agent as a gateway whose card describes the gateway, not the backend.
pub const GATEWAY_EXTENSION_URI: &str = "https://a2a-rs.dev/ext/gateway/v1";

/// Extension uri declaring a `GetTask` poll cadence: `params: {"intervalMs": N}`.
pub const POLL_CADENCE_EXTENSION_URI: &str = "https://a2a-rs.dev/ext/poll-cadence/v1";

/// How the caller reaches the agent: directly, or through a gateway it knows about.
///
/// A caller-side trust setting; the card can also mark itself with [`GATEWAY_EXTENSION_URI`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deployment {
    /// The card describes the agent that runs the task.
    #[default]
    Direct,
    /// The card describes a gateway that forwards to a backend whose lifecycle may differ: no
    /// claim is lifted.
    Gateway,
}

/// What a card claims, lifted once and shared by every task handle for that agent.
///
/// There is no other constructor: claims come only from a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardClaims {
    declared: CapabilitySet,
    card_claims: Vec<CardClaim>,
    gateway: bool,
    default_input_modes: Vec<String>,
    default_output_modes: Vec<String>,
    poll_cadence: Option<Duration>,
}

impl CardClaims {
    /// Lifts the claims of `card`, reached through `deployment`.
    ///
    /// A gateway (by `deployment` or by the card's [`GATEWAY_EXTENSION_URI`] extension) yields no
    /// claims. See the module docs for where each claim is read.
    pub fn lift(card: &AgentCard, deployment: Deployment) -> Self {
        let caps = &card.capabilities;
        let gateway = deployment == Deployment::Gateway
            || caps.extensions.iter().any(|e| e.uri == GATEWAY_EXTENSION_URI);
        let mut declared = CapabilitySet::EMPTY;
        if !gateway {
            if caps.streaming == Some(true) {
                declared = declared.with(Capability::Streaming);
            }
            if caps.legacy_state_transition_history() == Some(true) {
                declared = declared.with(Capability::StateTransitionHistory);
            }
            if caps.push_notifications == Some(true) {
                declared = declared.with(Capability::PushNotifications);
            }
        }
        let poll_cadence =
            caps.extensions.iter().filter(|e| e.uri == POLL_CADENCE_EXTENSION_URI).find_map(|e| {
                // The poll-cadence extension's `intervalMs`: a positive JSON number, at most a day.
                let interval_ms = e.params.as_ref()?.get("intervalMs").filter(|v| v.is_number())?;
                wire_number::duration("intervalMs", interval_ms, Unit::Milliseconds, MAX_DECLARED_CADENCE)
                    .value()
                    .filter(|cadence| !cadence.is_zero())
            });
        let card_claims = if gateway { Vec::new() } else { lift_card_claims(card) };
        Self {
            declared,
            card_claims,
            gateway,
            default_input_modes: card.default_input_modes.clone(),
            default_output_modes: card.default_output_modes.clone(),
            poll_cadence,
        }
    }

    /// The capabilities the card declares (empty for a gateway).
    pub fn declared(&self) -> CapabilitySet {
        self.declared
    }

    /// `true` when the card declares `capability` (and the agent is not a gateway).
    pub fn declares(&self, capability: Capability) -> bool {
        self.declared.contains(capability)
    }

    /// The card's other claims (extended card, extensions, interfaces, output modes, security), in
    /// card order; empty for a gateway. [`ClaimCheck`](crate::ClaimCheck) judges each.
    pub fn card_claims(&self) -> &[CardClaim] {
        &self.card_claims
    }

    /// `true` when the agent was marked as a gateway (caller setting or card extension).
    pub fn is_gateway(&self) -> bool {
        self.gateway
    }

    /// The card's `defaultInputModes`: the media types through which a transition is reachable.
    pub fn default_input_modes(&self) -> &[String] {
        &self.default_input_modes
    }

    /// The card's `defaultOutputModes`.
    pub fn default_output_modes(&self) -> &[String] {
        &self.default_output_modes
    }

    /// The `GetTask` poll cadence the card declares with [`POLL_CADENCE_EXTENSION_URI`], if any.
    pub fn poll_cadence(&self) -> Option<Duration> {
        self.poll_cadence
    }
}

/// The longest card-declared poll cadence read as declared: a day (then clamped by
/// [`Bounds::card_cadence`](crate::Bounds::card_cadence) before use).
const MAX_DECLARED_CADENCE: Duration = Duration::from_secs(86_400);

/// Every claim `card` makes, in card order: the extended card, each extension, each interface,
/// the output modes, the security section. This SDK's own card annotations
/// ([`GATEWAY_EXTENSION_URI`], [`POLL_CADENCE_EXTENSION_URI`]) are not negotiated extensions and
/// are left out. Called by [`CardClaims::lift`], which leaves it empty for a gateway.
fn lift_card_claims(card: &AgentCard) -> Vec<CardClaim> {
    let caps = &card.capabilities;
    let mut claims = Vec::new();
    if caps.extended_agent_card == Some(true) {
        claims.push(CardClaim::ExtendedAgentCard);
    }
    claims.extend(
        caps.extensions
            .iter()
            .filter(|e| e.uri != GATEWAY_EXTENSION_URI && e.uri != POLL_CADENCE_EXTENSION_URI)
            .map(|e| CardClaim::Extension { uri: e.uri.clone() }),
    );
    // A `supportedInterfaces` entry without a version is 1.0's (a 0.3 card's are converted with
    // theirs): the claim names the version it is called in.
    claims.extend(card.supported_interfaces.iter().map(|i| CardClaim::Interface {
        url: i.url.clone(),
        protocol_binding: i.protocol_binding.clone(),
        protocol_version: if i.protocol_version.trim().is_empty() {
            "1.0".to_owned()
        } else {
            i.protocol_version.clone()
        },
    }));
    let mut declared: Vec<String> = Vec::new();
    for mode in card.default_output_modes.iter().chain(card.skills.iter().flat_map(|s| &s.output_modes)) {
        if !declared.contains(mode) {
            declared.push(mode.clone());
        }
    }
    if !declared.is_empty() {
        claims.push(CardClaim::OutputModes { declared });
    }
    if let Some(access) = access_of(card) {
        claims.push(CardClaim::Security(access));
    }
    claims
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

#[cfg(test)]
mod tests {
    use super::*;

    fn card(json: &str) -> AgentCard {
        a2a_typestate_types::parse::from_str(json).unwrap()
    }

    const CARD_ALL: &str = r#"{"name":"a","description":"d","version":"1","supportedInterfaces":[],
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
        "capabilities":{"streaming":true,"pushNotifications":true,"stateTransitionHistory":true}}"#;

    #[test]
    fn claims_are_lifted_from_the_card_capabilities() {
        let claims = CardClaims::lift(&card(CARD_ALL), Deployment::Direct);
        assert_eq!(claims.declared(), CapabilitySet::ALL);
        assert_eq!(claims.default_input_modes(), ["text/plain"]);
    }

    #[test]
    fn native_1_0_card_without_the_legacy_field_claims_no_history() {
        let json = CARD_ALL.replace(r#","stateTransitionHistory":true"#, "");
        let claims = CardClaims::lift(&card(&json), Deployment::Direct);
        assert!(!claims.declares(Capability::StateTransitionHistory));
        assert!(claims.declares(Capability::Streaming));
    }

    #[test]
    fn absent_or_false_capabilities_are_not_claims() {
        let json = CARD_ALL.replace(r#""streaming":true,"pushNotifications":true,"#, r#""streaming":false,"#);
        let claims = CardClaims::lift(&card(&json), Deployment::Direct);
        assert!(!claims.declares(Capability::Streaming));
        assert!(!claims.declares(Capability::PushNotifications));
    }

    #[test]
    fn gateway_by_caller_setting_yields_no_claims() {
        let claims = CardClaims::lift(&card(CARD_ALL), Deployment::Gateway);
        assert!(claims.is_gateway());
        assert!(claims.declared().is_empty());
    }

    #[test]
    fn gateway_by_card_extension_yields_no_claims() {
        let json = CARD_ALL.replace(
            r#""streaming":true"#,
            &format!(r#""streaming":true,"extensions":[{{"uri":"{GATEWAY_EXTENSION_URI}"}}]"#),
        );
        let claims = CardClaims::lift(&card(&json), Deployment::Direct);
        assert!(claims.is_gateway());
        assert!(claims.declared().is_empty());
    }

    #[test]
    fn poll_cadence_is_read_from_the_extension_params() {
        let json = CARD_ALL.replace(
            r#""streaming":true"#,
            &format!(
                r#""extensions":[{{"uri":"{POLL_CADENCE_EXTENSION_URI}","params":{{"intervalMs":1500}}}}]"#
            ),
        );
        let claims = CardClaims::lift(&card(&json), Deployment::Direct);
        assert_eq!(claims.poll_cadence(), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn malformed_poll_cadence_counts_as_none_declared() {
        for params in [r#"{"intervalMs":0}"#, r#"{"intervalMs":"5"}"#, r#"{}"#] {
            let json = CARD_ALL.replace(
                r#""streaming":true"#,
                &format!(r#""extensions":[{{"uri":"{POLL_CADENCE_EXTENSION_URI}","params":{params}}}]"#),
            );
            let claims = CardClaims::lift(&card(&json), Deployment::Direct);
            assert_eq!(claims.poll_cadence(), None, "{params}");
        }
    }
}
