//! The 1.0 Agent Card: what an agent says about itself at `/.well-known/agent-card.json`.
//!
//! A card is a set of claims (streaming, push notifications, extended card...) that this SDK checks
//! against what the agent really does, so reading it must lose nothing: [`AgentCard`] and
//! [`AgentCapabilities`] keep fields they do not know in `extra` and write them back. That is how a
//! legacy `capabilities.stateTransitionHistory` (removed in 1.0, still sent by many agents) stays
//! readable through [`AgentCapabilities::legacy_state_transition_history`].
//!
//! ```
//! use a2a_typestate_types::{parse, AgentCard};
//!
//! let card: AgentCard = parse::from_str(
//!     r#"{"name":"echo","description":"echoes","version":"1.0.0",
//!         "supportedInterfaces":[
//!             {"url":"https://a.example/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
//!         "capabilities":{"streaming":true,"stateTransitionHistory":true},
//!         "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#,
//! )
//! .unwrap();
//! assert_eq!(card.capabilities.streaming, Some(true));
//! assert_eq!(card.capabilities.legacy_state_transition_history(), Some(true));
//!
//! let err = parse::from_str::<AgentCard>(r#"{"capabilities":{"streaming":"yes"}}"#).unwrap_err();
//! assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::message::wire;
use super::security::{SecurityRequirement, SecurityScheme};
use crate::protojson::is_default;
use crate::unknown::UnknownFields;

/// A self-description of an agent (`AgentCard`).
///
/// Reading follows ProtoJSON: lowerCamelCase or snake_case names, missing fields take their default,
/// `null` means the default (read through [`parse`](crate::parse); an unknown member keeps what it
/// was written as, `null` included, so the card writes back unchanged). Writing uses lowerCamelCase, always writes the fields the proto marks
/// REQUIRED (as the card signing rules of spec §8.4 expect) and leaves out other fields that hold
/// their default. Unknown fields are kept in [`extra`](Self::extra) and written back after the known
/// ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentCard {
    /// Human-readable name of the agent.
    pub name: String,
    /// What the agent does, for humans and for models choosing an agent.
    pub description: String,
    /// The endpoints the agent serves, most preferred first (spec §8.3.1).
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who runs the agent.
    pub provider: Option<AgentProvider>,
    /// The agent's own version (not the protocol version), such as `"1.0.0"`.
    pub version: String,
    /// Where the agent's documentation lives. An empty string (as the JS SDK sends) reads as `None`.
    pub documentation_url: Option<String>,
    /// The optional protocol features the agent claims to support.
    pub capabilities: AgentCapabilities,
    /// Scheme name to scheme, referred to by [`security_requirements`](Self::security_requirements).
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The alternative ways to authenticate for every operation; any one will do.
    pub security_requirements: Vec<SecurityRequirement>,
    /// Media types the agent accepts unless a skill says otherwise.
    pub default_input_modes: Vec<String>,
    /// Media types the agent produces unless a skill says otherwise.
    pub default_output_modes: Vec<String>,
    /// What the agent can do.
    pub skills: Vec<AgentSkill>,
    /// JWS signatures over the card (spec §8.4).
    pub signatures: Vec<AgentCardSignature>,
    /// An icon for the agent. An empty string reads as `None`.
    pub icon_url: Option<String>,
    /// Fields this version of the proto does not define (0.3 leftovers such as `url` or
    /// `protocolVersion`, vendor additions), kept so the card writes back unchanged.
    pub extra: UnknownFields,
}

/// The JSON names [`AgentCard`] reads, lowerCamelCase first: anything else goes to `extra`.
const CARD_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("description", "description"),
    ("supportedInterfaces", "supported_interfaces"),
    ("provider", "provider"),
    ("version", "version"),
    ("documentationUrl", "documentation_url"),
    ("capabilities", "capabilities"),
    ("securitySchemes", "security_schemes"),
    ("securityRequirements", "security_requirements"),
    ("defaultInputModes", "default_input_modes"),
    ("defaultOutputModes", "default_output_modes"),
    ("skills", "skills"),
    ("signatures", "signatures"),
    ("iconUrl", "icon_url"),
];

/// The JSON names [`AgentCapabilities`] reads: anything else goes to `extra`.
const CAPABILITY_FIELDS: &[(&str, &str)] = &[
    ("streaming", "streaming"),
    ("pushNotifications", "push_notifications"),
    ("extensions", "extensions"),
    ("extendedAgentCard", "extended_agent_card"),
];

/// The lowerCamelCase name for `key` when it is one of `fields`, in either spelling.
fn known_field(fields: &[(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    fields.iter().find(|(camel, snake)| *camel == key || *snake == key).map(|(camel, _)| *camel)
}

/// Reads an optional string where `""` means "not set", as the JS SDK writes unset optionals.
fn next_non_empty<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<String>, A::Error> {
    Ok(map.next_value::<Option<String>>()?.filter(|s| !s.is_empty()))
}

impl<'de> Deserialize<'de> for AgentCard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CardVisitor;
        impl<'de> Visitor<'de> for CardVisitor {
            type Value = AgentCard;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AgentCard object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentCard, A::Error> {
                let mut card = AgentCard::default();
                while let Some(key) = map.next_key::<String>()? {
                    match known_field(CARD_FIELDS, &key) {
                        Some("name") => card.name = map.next_value()?,
                        Some("description") => card.description = map.next_value()?,
                        Some("supportedInterfaces") => {
                            card.supported_interfaces = map.next_value()?;
                        }
                        Some("provider") => card.provider = map.next_value()?,
                        Some("version") => card.version = map.next_value()?,
                        Some("documentationUrl") => card.documentation_url = next_non_empty(&mut map)?,
                        Some("capabilities") => card.capabilities = map.next_value()?,
                        Some("securitySchemes") => card.security_schemes = map.next_value()?,
                        Some("securityRequirements") => {
                            card.security_requirements = map.next_value()?;
                        }
                        Some("defaultInputModes") => card.default_input_modes = map.next_value()?,
                        Some("defaultOutputModes") => {
                            card.default_output_modes = map.next_value()?;
                        }
                        Some("skills") => card.skills = map.next_value()?,
                        Some("signatures") => card.signatures = map.next_value()?,
                        Some("iconUrl") => card.icon_url = next_non_empty(&mut map)?,
                        _ => card.extra.read_next(key, &mut map)?,
                    }
                }
                Ok(card)
            }
        }
        // A message, read as a struct so that its members' `null`s read as their defaults
        // (`NullAsDefault`); the names are matched above, so no field list is given.
        d.deserialize_struct("AgentCard", &[], CardVisitor)
    }
}

impl Serialize for AgentCard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("description", &self.description)?;
        m.serialize_entry("supportedInterfaces", &self.supported_interfaces)?;
        if let Some(provider) = &self.provider {
            m.serialize_entry("provider", provider)?;
        }
        m.serialize_entry("version", &self.version)?;
        if let Some(url) = self.documentation_url.as_ref().filter(|u| !u.is_empty()) {
            m.serialize_entry("documentationUrl", url)?;
        }
        m.serialize_entry("capabilities", &self.capabilities)?;
        if !self.security_schemes.is_empty() {
            m.serialize_entry("securitySchemes", &self.security_schemes)?;
        }
        if !self.security_requirements.is_empty() {
            m.serialize_entry("securityRequirements", &self.security_requirements)?;
        }
        m.serialize_entry("defaultInputModes", &self.default_input_modes)?;
        m.serialize_entry("defaultOutputModes", &self.default_output_modes)?;
        m.serialize_entry("skills", &self.skills)?;
        if !self.signatures.is_empty() {
            m.serialize_entry("signatures", &self.signatures)?;
        }
        if let Some(url) = self.icon_url.as_ref().filter(|u| !u.is_empty()) {
            m.serialize_entry("iconUrl", url)?;
        }
        for (key, value) in &self.extra {
            // A known name put in `extra` by hand would write the field twice; the typed field wins.
            if known_field(CARD_FIELDS, key).is_none() {
                m.serialize_entry(key, value)?;
            }
        }
        m.end()
    }
}

/// The optional protocol features an agent claims (`AgentCapabilities`).
///
/// These are the claims the SDK verifies. `None` means the card did not say; ProtoJSON writes an
/// explicit `false` back because the proto fields are `optional`. Unknown fields, including the 0.3
/// `stateTransitionHistory`, are kept in [`extra`](Self::extra).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentCapabilities {
    /// Whether the agent supports `SendStreamingMessage` and `SubscribeToTask` (SSE).
    pub streaming: Option<bool>,
    /// Whether the agent delivers push notifications to a webhook.
    pub push_notifications: Option<bool>,
    /// Protocol extensions the agent supports.
    pub extensions: Vec<AgentExtension>,
    /// Whether an authenticated caller can fetch a richer card with `GetExtendedAgentCard`.
    pub extended_agent_card: Option<bool>,
    /// Fields the 1.0 proto does not define, kept so they stay readable and write back unchanged.
    pub extra: UnknownFields,
}

impl AgentCapabilities {
    /// The 0.3 `stateTransitionHistory` claim, if the card carries one (as `stateTransitionHistory`
    /// or `state_transition_history`) with a boolean value.
    ///
    /// The field was removed in 1.0 (#1396) but agents still send it, and an agent that claims it
    /// while dropping task history is over-declaring.
    pub fn legacy_state_transition_history(&self) -> Option<bool> {
        let key = ["stateTransitionHistory", "state_transition_history"]
            .into_iter()
            .find(|key| self.extra.contains_key(key))?;
        self.extra.bool(key)
    }
}

impl<'de> Deserialize<'de> for AgentCapabilities {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CapabilitiesVisitor;
        impl<'de> Visitor<'de> for CapabilitiesVisitor {
            type Value = AgentCapabilities;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AgentCapabilities object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentCapabilities, A::Error> {
                let mut caps = AgentCapabilities::default();
                while let Some(key) = map.next_key::<String>()? {
                    match known_field(CAPABILITY_FIELDS, &key) {
                        Some("streaming") => caps.streaming = map.next_value()?,
                        Some("pushNotifications") => caps.push_notifications = map.next_value()?,
                        Some("extensions") => caps.extensions = map.next_value()?,
                        Some("extendedAgentCard") => caps.extended_agent_card = map.next_value()?,
                        _ => caps.extra.read_next(key, &mut map)?,
                    }
                }
                Ok(caps)
            }
        }
        d.deserialize_struct("AgentCapabilities", &[], CapabilitiesVisitor)
    }
}

impl Serialize for AgentCapabilities {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(streaming) = self.streaming {
            m.serialize_entry("streaming", &streaming)?;
        }
        if let Some(push) = self.push_notifications {
            m.serialize_entry("pushNotifications", &push)?;
        }
        if !self.extensions.is_empty() {
            m.serialize_entry("extensions", &self.extensions)?;
        }
        if let Some(extended) = self.extended_agent_card {
            m.serialize_entry("extendedAgentCard", &extended)?;
        }
        for (key, value) in &self.extra {
            if known_field(CAPABILITY_FIELDS, key).is_none() {
                m.serialize_entry(key, value)?;
            }
        }
        m.end()
    }
}

/// One endpoint of the agent (`AgentInterface`): where to connect, with which binding and protocol
/// version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentInterface {
    /// The endpoint URL.
    pub url: String,
    /// The binding: `"JSONRPC"`, `"GRPC"`, `"HTTP+JSON"`, or a URI for a custom one. Kept as a string
    /// because the proto leaves it open; see [`crate::discovery`] for a typed view.
    #[serde(alias = "protocol_binding")]
    pub protocol_binding: String,
    /// The tenant to put in every request sent to this interface (spec §8.3.2 rule 4). An empty
    /// string (as the JS SDK sends) reads as `None`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "wire::non_empty")]
    pub tenant: Option<String>,
    /// The protocol version, `"Major.Minor"` such as `"1.0"`. Empty means 0.3 (spec §3.6).
    #[serde(alias = "protocol_version")]
    pub protocol_version: String,
}

/// A protocol extension the agent supports (`AgentExtension`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentExtension {
    /// The URI that identifies the extension.
    #[serde(skip_serializing_if = "is_default")]
    pub uri: String,
    /// How the agent uses the extension.
    #[serde(skip_serializing_if = "is_default")]
    pub description: String,
    /// Whether a client must understand the extension to talk to this agent.
    #[serde(skip_serializing_if = "is_default")]
    pub required: bool,
    /// Extension-specific configuration (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
}

/// Something the agent can do (`AgentSkill`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentSkill {
    /// A unique id for the skill within the card.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Keywords describing the skill.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(skip_serializing_if = "is_default")]
    pub examples: Vec<String>,
    /// Media types the skill accepts, overriding the card's defaults.
    #[serde(skip_serializing_if = "is_default", alias = "input_modes")]
    pub input_modes: Vec<String>,
    /// Media types the skill produces, overriding the card's defaults.
    #[serde(skip_serializing_if = "is_default", alias = "output_modes")]
    pub output_modes: Vec<String>,
    /// Authentication this skill needs, overriding the card's requirements.
    #[serde(skip_serializing_if = "is_default", alias = "security_requirements")]
    pub security_requirements: Vec<SecurityRequirement>,
}

/// Who runs the agent (`AgentProvider`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentProvider {
    /// The provider's website.
    pub url: String,
    /// The provider's name.
    pub organization: String,
}

/// A JWS signature over the card (`AgentCardSignature`, spec §8.4), with a detached payload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentCardSignature {
    /// The base64url JWS protected header (holds `alg` and `kid`).
    pub protected: String,
    /// The base64url signature.
    pub signature: String,
    /// The unprotected JWS header, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<Map<String, Value>>,
}
