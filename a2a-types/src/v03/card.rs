//! The 0.3 Agent Card: one `url` with a `preferredTransport`, `additionalInterfaces`, a card-level
//! `protocolVersion`, and the `capabilities.stateTransitionHistory` claim 1.0 removed.
//!
//! [`AgentCard`] and [`AgentCapabilities`] keep unknown fields in `extra` (a card is a set of claims
//! to check, so reading it loses nothing). Their `Deserialize` is written by hand rather than with
//! `#[serde(flatten)]`, which would buffer the object and lose the JSON path of errors inside it.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::security::{SecurityRequirement, SecurityScheme};
use crate::unknown::UnknownFields;

/// A 0.3 Agent Card, as served at `/.well-known/agent-card.json` (0.3.0) or `/.well-known/agent.json`
/// (0.2.x).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentCard {
    /// Human-readable name of the agent.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The preferred endpoint.
    pub url: String,
    /// The binding served at [`url`](Self::url): `"JSONRPC"` (the default when absent), `"GRPC"` or
    /// `"HTTP+JSON"`.
    pub preferred_transport: Option<String>,
    /// Further endpoints, in order of preference after `url`.
    pub additional_interfaces: Vec<AgentInterface>,
    /// The protocol version the card's endpoints speak, such as `"0.3.0"`. Required by the 0.3
    /// schema, but absent from 0.2.x cards, so read as optional.
    pub protocol_version: Option<String>,
    /// The agent's own version.
    pub version: String,
    /// Who runs the agent.
    pub provider: Option<AgentProvider>,
    /// Where the agent's documentation lives.
    pub documentation_url: Option<String>,
    /// An icon for the agent.
    pub icon_url: Option<String>,
    /// The optional features the agent claims.
    pub capabilities: AgentCapabilities,
    /// Scheme name to scheme, referred to by [`security`](Self::security).
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The alternative ways to authenticate; any one will do.
    pub security: Vec<SecurityRequirement>,
    /// Media types the agent accepts unless a skill says otherwise.
    pub default_input_modes: Vec<String>,
    /// Media types the agent produces unless a skill says otherwise.
    pub default_output_modes: Vec<String>,
    /// What the agent can do.
    pub skills: Vec<AgentSkill>,
    /// JWS signatures over the card.
    pub signatures: Vec<AgentCardSignature>,
    /// Whether `agent/getAuthenticatedExtendedCard` gives a richer card (1.0:
    /// `capabilities.extendedAgentCard`).
    pub supports_authenticated_extended_card: Option<bool>,
    /// Fields the 0.3 schema does not define, kept and written back.
    pub extra: UnknownFields,
}

/// The optional features a 0.3 agent claims.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentCapabilities {
    /// Whether the agent supports `message/stream` and `tasks/resubscribe`.
    pub streaming: Option<bool>,
    /// Whether the agent delivers push notifications.
    pub push_notifications: Option<bool>,
    /// Whether the agent keeps every status a task went through (removed in 1.0).
    pub state_transition_history: Option<bool>,
    /// Protocol extensions the agent supports.
    pub extensions: Vec<AgentExtension>,
    /// Fields the 0.3 schema does not define, kept and written back.
    pub extra: UnknownFields,
}

/// A further endpoint of a 0.3 agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentInterface {
    /// The endpoint URL.
    pub url: String,
    /// The binding: `"JSONRPC"`, `"GRPC"` or `"HTTP+JSON"` (1.0: `protocolBinding`).
    pub transport: String,
}

/// Who runs the agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentProvider {
    /// The provider's name.
    pub organization: String,
    /// The provider's website.
    pub url: String,
}

/// A protocol extension the agent supports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentExtension {
    /// The URI that identifies the extension.
    pub uri: String,
    /// How the agent uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a client must understand it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Extension-specific configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
}

/// Something a 0.3 agent can do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentSkill {
    /// Unique within the card.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Media types the skill accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_modes: Vec<String>,
    /// Media types the skill produces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_modes: Vec<String>,
    /// Authentication this skill needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security: Vec<SecurityRequirement>,
}

/// A JWS signature over the card.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentCardSignature {
    /// The base64url protected header.
    pub protected: String,
    /// The base64url signature.
    pub signature: String,
    /// The unprotected header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Map<String, Value>>,
}

/// The JSON names [`AgentCard`] reads; anything else goes to `extra`.
const CARD_FIELDS: &[&str] = &[
    "name",
    "description",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "protocolVersion",
    "version",
    "provider",
    "documentationUrl",
    "iconUrl",
    "capabilities",
    "securitySchemes",
    "security",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "signatures",
    "supportsAuthenticatedExtendedCard",
];

/// The JSON names [`AgentCapabilities`] reads; anything else goes to `extra`.
const CAPABILITY_FIELDS: &[&str] =
    &["streaming", "pushNotifications", "stateTransitionHistory", "extensions"];

fn present<T, E: serde::de::Error>(value: Option<T>, field: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(field))
}

impl<'de> Deserialize<'de> for AgentCard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CardVisitor;
        impl<'de> Visitor<'de> for CardVisitor {
            type Value = AgentCard;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 0.3 AgentCard object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentCard, A::Error> {
                let (mut name, mut description, mut url, mut version) = (None, None, None, None);
                let (mut capabilities, mut input_modes, mut output_modes, mut skills) =
                    (None, None, None, None);
                let mut card = AgentCard {
                    name: String::new(),
                    description: String::new(),
                    url: String::new(),
                    preferred_transport: None,
                    additional_interfaces: Vec::new(),
                    protocol_version: None,
                    version: String::new(),
                    provider: None,
                    documentation_url: None,
                    icon_url: None,
                    capabilities: AgentCapabilities::default(),
                    security_schemes: BTreeMap::new(),
                    security: Vec::new(),
                    default_input_modes: Vec::new(),
                    default_output_modes: Vec::new(),
                    skills: Vec::new(),
                    signatures: Vec::new(),
                    supports_authenticated_extended_card: None,
                    extra: UnknownFields::new(),
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "name" => name = map.next_value()?,
                        "description" => description = map.next_value()?,
                        "url" => url = map.next_value()?,
                        "preferredTransport" => card.preferred_transport = map.next_value()?,
                        "additionalInterfaces" => card.additional_interfaces = map.next_value()?,
                        "protocolVersion" => card.protocol_version = map.next_value()?,
                        "version" => version = map.next_value()?,
                        "provider" => card.provider = map.next_value()?,
                        "documentationUrl" => card.documentation_url = map.next_value()?,
                        "iconUrl" => card.icon_url = map.next_value()?,
                        "capabilities" => capabilities = map.next_value()?,
                        "securitySchemes" => card.security_schemes = map.next_value()?,
                        "security" => card.security = map.next_value()?,
                        "defaultInputModes" => input_modes = map.next_value()?,
                        "defaultOutputModes" => output_modes = map.next_value()?,
                        "skills" => skills = map.next_value()?,
                        "signatures" => card.signatures = map.next_value()?,
                        "supportsAuthenticatedExtendedCard" => {
                            card.supports_authenticated_extended_card = map.next_value()?;
                        }
                        _ => card.extra.read_next(key, &mut map)?,
                    }
                }
                card.name = present(name, "name")?;
                card.description = present(description, "description")?;
                card.url = present(url, "url")?;
                card.version = present(version, "version")?;
                card.capabilities = present(capabilities, "capabilities")?;
                // Required, but a card that leaves them out still says what it claims: read as
                // declaring no mode and no skill (a reader lists the omission beside the claims,
                // and nothing reached through an undeclared mode can verify or refuse one).
                card.default_input_modes = input_modes.unwrap_or_default();
                card.default_output_modes = output_modes.unwrap_or_default();
                card.skills = skills.unwrap_or_default();
                Ok(card)
            }
        }
        // A message, read as a struct so that its members' `null`s read as left out
        // (`NullAsDefault`): a required one is then missing; the names are matched above.
        d.deserialize_struct("AgentCard", &[], CardVisitor)
    }
}

impl Serialize for AgentCard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("description", &self.description)?;
        m.serialize_entry("url", &self.url)?;
        if let Some(transport) = &self.preferred_transport {
            m.serialize_entry("preferredTransport", transport)?;
        }
        if !self.additional_interfaces.is_empty() {
            m.serialize_entry("additionalInterfaces", &self.additional_interfaces)?;
        }
        if let Some(protocol_version) = &self.protocol_version {
            m.serialize_entry("protocolVersion", protocol_version)?;
        }
        m.serialize_entry("version", &self.version)?;
        if let Some(provider) = &self.provider {
            m.serialize_entry("provider", provider)?;
        }
        if let Some(url) = &self.documentation_url {
            m.serialize_entry("documentationUrl", url)?;
        }
        if let Some(url) = &self.icon_url {
            m.serialize_entry("iconUrl", url)?;
        }
        m.serialize_entry("capabilities", &self.capabilities)?;
        if !self.security_schemes.is_empty() {
            m.serialize_entry("securitySchemes", &self.security_schemes)?;
        }
        if !self.security.is_empty() {
            m.serialize_entry("security", &self.security)?;
        }
        m.serialize_entry("defaultInputModes", &self.default_input_modes)?;
        m.serialize_entry("defaultOutputModes", &self.default_output_modes)?;
        m.serialize_entry("skills", &self.skills)?;
        if !self.signatures.is_empty() {
            m.serialize_entry("signatures", &self.signatures)?;
        }
        if let Some(extended) = self.supports_authenticated_extended_card {
            m.serialize_entry("supportsAuthenticatedExtendedCard", &extended)?;
        }
        for (key, value) in &self.extra {
            // A known name put in `extra` by hand would write the field twice; the typed field wins.
            if !CARD_FIELDS.contains(&key.as_str()) {
                m.serialize_entry(key, value)?;
            }
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for AgentCapabilities {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CapabilitiesVisitor;
        impl<'de> Visitor<'de> for CapabilitiesVisitor {
            type Value = AgentCapabilities;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 0.3 AgentCapabilities object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentCapabilities, A::Error> {
                let mut caps = AgentCapabilities::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "streaming" => caps.streaming = map.next_value()?,
                        "pushNotifications" => caps.push_notifications = map.next_value()?,
                        "stateTransitionHistory" => caps.state_transition_history = map.next_value()?,
                        "extensions" => caps.extensions = map.next_value()?,
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
        if let Some(history) = self.state_transition_history {
            m.serialize_entry("stateTransitionHistory", &history)?;
        }
        if !self.extensions.is_empty() {
            m.serialize_entry("extensions", &self.extensions)?;
        }
        for (key, value) in &self.extra {
            if !CAPABILITY_FIELDS.contains(&key.as_str()) {
                m.serialize_entry(key, value)?;
            }
        }
        m.end()
    }
}
