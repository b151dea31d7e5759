//! Agent Cards (their security schemes are in `security.rs`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::security::{requirement_from_v1, requirement_to_v1, scheme_from_v1, scheme_to_v1};
use super::{Losses, at, conversions, index, non_empty};
use crate::UnknownFields;
use crate::v1;
use crate::v03::{
    AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface, AgentProvider,
    AgentSkill,
};

conversions!(AgentCard, v1::AgentCard, card_to_v1, card_from_v1);

/// The binding a 0.3 card means when it names none.
const DEFAULT_TRANSPORT: &str = "JSONRPC";
/// The version a 0.3 card means when it names none.
const DEFAULT_VERSION: &str = "0.3";
/// The key under which a 0.3 history claim lives in 1.0 `AgentCapabilities.extra`.
const STATE_TRANSITION_HISTORY: &str = "stateTransitionHistory";

/// 1.0 card members (both spellings) that a 0.3 card's `extra` must not shadow.
const V1_CARD_NAMES: &[&str] = &[
    "supportedInterfaces",
    "supported_interfaces",
    "securityRequirements",
    "security_requirements",
    "documentation_url",
    "icon_url",
    "security_schemes",
    "default_input_modes",
    "default_output_modes",
];
/// 1.0 capability members (both spellings) that a 0.3 capabilities `extra` must not shadow.
const V1_CAPABILITY_NAMES: &[&str] =
    &["extendedAgentCard", "extended_agent_card", "push_notifications", "state_transition_history"];

/// `"0.3.0"` -> `"0.3"`; anything without a second dot-separated part stays as it is.
fn major_minor(version: &str) -> &str {
    let mut dots = version.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => version.get(..second).unwrap_or(version),
        _ => version,
    }
}

pub(super) fn card_to_v1(c: &AgentCard, path: &str, losses: &mut Losses) -> v1::AgentCard {
    let protocol_version = match c.protocol_version.as_deref() {
        None => DEFAULT_VERSION.to_owned(),
        Some(version) => {
            let short = major_minor(version);
            if short != version {
                losses.lose(
                    at(path, "protocolVersion"),
                    format!("{version:?} is written as {short:?}: 1.0 interfaces carry Major.Minor only"),
                );
            }
            short.to_owned()
        }
    };
    let interface = |url: &str, binding: &str| v1::AgentInterface {
        url: url.to_owned(),
        protocol_binding: binding.to_owned(),
        tenant: None,
        protocol_version: protocol_version.clone(),
    };
    let mut supported_interfaces =
        vec![interface(&c.url, c.preferred_transport.as_deref().unwrap_or(DEFAULT_TRANSPORT))];
    supported_interfaces.extend(c.additional_interfaces.iter().map(|i| interface(&i.url, &i.transport)));

    let mut extra = UnknownFields::new();
    for (key, value) in &c.extra {
        if V1_CARD_NAMES.contains(&key.as_str()) {
            losses.lose(
                at(path, key),
                "a 1.0 card member on a 0.3 card (a merged card?): left out, the converted value stands; \
                 read such a card as 1.0 instead",
            );
        } else {
            extra.insert(key.clone(), value.clone());
        }
    }

    let mut security_schemes = BTreeMap::new();
    let schemes_path = at(path, "securitySchemes");
    for (name, scheme) in &c.security_schemes {
        if let Some(scheme) = scheme_to_v1(scheme, &at(&schemes_path, name), losses) {
            security_schemes.insert(name.clone(), scheme);
        }
    }

    v1::AgentCard {
        name: c.name.clone(),
        description: c.description.clone(),
        supported_interfaces,
        provider: c
            .provider
            .as_ref()
            .map(|p| v1::AgentProvider { url: p.url.clone(), organization: p.organization.clone() }),
        version: c.version.clone(),
        documentation_url: c.documentation_url.clone(),
        capabilities: capabilities_to_v1(
            &c.capabilities,
            c.supports_authenticated_extended_card,
            &at(path, "capabilities"),
            losses,
        ),
        security_schemes,
        security_requirements: c.security.iter().map(requirement_to_v1).collect(),
        default_input_modes: c.default_input_modes.clone(),
        default_output_modes: c.default_output_modes.clone(),
        skills: c.skills.iter().map(skill_to_v1).collect(),
        signatures: c
            .signatures
            .iter()
            .map(|s| v1::AgentCardSignature {
                protected: s.protected.clone(),
                signature: s.signature.clone(),
                header: s.header.clone(),
            })
            .collect(),
        icon_url: c.icon_url.clone(),
        extra,
    }
}

fn capabilities_to_v1(
    c: &AgentCapabilities,
    extended_card: Option<bool>,
    path: &str,
    losses: &mut Losses,
) -> v1::AgentCapabilities {
    let mut extra = UnknownFields::new();
    for (key, value) in &c.extra {
        if V1_CAPABILITY_NAMES.contains(&key.as_str()) {
            losses
                .lose(at(path, key), "a 1.0 capability on a 0.3 card: left out, the converted value stands");
        } else {
            extra.insert(key.clone(), value.clone());
        }
    }
    // Removed in 1.0, kept where `legacy_state_transition_history()` reads it.
    if let Some(history) = c.state_transition_history {
        extra.insert_value(STATE_TRANSITION_HISTORY, &Value::Bool(history));
    }
    v1::AgentCapabilities {
        streaming: c.streaming,
        push_notifications: c.push_notifications,
        extensions: c
            .extensions
            .iter()
            .map(|e| v1::AgentExtension {
                uri: e.uri.clone(),
                description: e.description.clone().unwrap_or_default(),
                required: e.required.unwrap_or_default(),
                params: e.params.clone(),
            })
            .collect(),
        extended_agent_card: extended_card,
        extra,
    }
}

fn skill_to_v1(s: &AgentSkill) -> v1::AgentSkill {
    v1::AgentSkill {
        id: s.id.clone(),
        name: s.name.clone(),
        description: s.description.clone(),
        tags: s.tags.clone(),
        examples: s.examples.clone(),
        input_modes: s.input_modes.clone(),
        output_modes: s.output_modes.clone(),
        security_requirements: s.security.iter().map(requirement_to_v1).collect(),
    }
}

fn skill_from_v1(s: &v1::AgentSkill) -> AgentSkill {
    AgentSkill {
        id: s.id.clone(),
        name: s.name.clone(),
        description: s.description.clone(),
        tags: s.tags.clone(),
        examples: s.examples.clone(),
        input_modes: s.input_modes.clone(),
        output_modes: s.output_modes.clone(),
        security: s.security_requirements.iter().map(requirement_from_v1).collect(),
    }
}

pub(super) fn card_from_v1(c: &v1::AgentCard, path: &str, losses: &mut Losses) -> AgentCard {
    let interfaces_path = at(path, "supportedInterfaces");
    let version_of = |i: &v1::AgentInterface| {
        if i.protocol_version.is_empty() { DEFAULT_VERSION.to_owned() } else { i.protocol_version.clone() }
    };
    let protocol_version = c.supported_interfaces.first().map(version_of);
    for (n, interface) in c.supported_interfaces.iter().enumerate() {
        let path = index(&interfaces_path, n);
        if let Some(tenant) = &interface.tenant {
            losses.lose(at(&path, "tenant"), format!("tenant {tenant:?} has no 0.3 form"));
        }
        let version = version_of(interface);
        if protocol_version.as_ref().is_some_and(|first| *first != version) {
            losses.lose(
                at(&path, "protocolVersion"),
                format!(
                    "{version:?} differs from the first interface's; a 0.3 card has one protocolVersion, \
                     so this interface is listed under it"
                ),
            );
        }
    }
    let (url, preferred_transport) = match c.supported_interfaces.first() {
        Some(first) => (first.url.clone(), Some(first.protocol_binding.clone())),
        None => {
            losses.lose(interfaces_path.clone(), "empty; 0.3 requires a url, written as \"\"");
            (String::new(), None)
        }
    };

    let mut security_schemes = BTreeMap::new();
    let schemes_path = at(path, "securitySchemes");
    for (name, scheme) in &c.security_schemes {
        security_schemes.insert(name.clone(), scheme_from_v1(scheme, &at(&schemes_path, name), losses));
    }

    let mut card = AgentCard {
        name: c.name.clone(),
        description: c.description.clone(),
        url,
        preferred_transport,
        additional_interfaces: c
            .supported_interfaces
            .iter()
            .skip(1)
            .map(|i| AgentInterface { url: i.url.clone(), transport: i.protocol_binding.clone() })
            .collect(),
        protocol_version,
        version: c.version.clone(),
        provider: c
            .provider
            .as_ref()
            .map(|p| AgentProvider { organization: p.organization.clone(), url: p.url.clone() }),
        documentation_url: c.documentation_url.clone(),
        icon_url: c.icon_url.clone(),
        capabilities: capabilities_from_v1(&c.capabilities),
        security_schemes,
        security: c.security_requirements.iter().map(requirement_from_v1).collect(),
        default_input_modes: c.default_input_modes.clone(),
        default_output_modes: c.default_output_modes.clone(),
        skills: c.skills.iter().map(skill_from_v1).collect(),
        signatures: c
            .signatures
            .iter()
            .map(|s| AgentCardSignature {
                protected: s.protected.clone(),
                signature: s.signature.clone(),
                header: s.header.clone(),
            })
            .collect(),
        supports_authenticated_extended_card: c.capabilities.extended_agent_card,
        extra: UnknownFields::new(),
    };

    // Members a 1.0 card keeps in `extra` that are 0.3 fields (a merged card's `url`,
    // `protocolVersion`...) were just computed; report those whose value disagrees.
    let written = match serde_json::to_value(&card) {
        Ok(Value::Object(written)) => written,
        _ => Map::new(),
    };
    for (key, raw) in &c.extra {
        // Only members named like a 0.3 field are parsed, to compare them.
        let value = || serde_json::from_str::<Value>(raw.get()).unwrap_or_default();
        match written.get(key) {
            Some(ours) if *ours == value() => {}
            Some(ours) => losses.lose(
                at(path, key),
                format!("{} is replaced by {ours}, the value converted from the 1.0 fields", raw.get()),
            ),
            None => {
                card.extra.insert(key.clone(), raw.clone());
            }
        }
    }
    card
}

fn capabilities_from_v1(c: &v1::AgentCapabilities) -> AgentCapabilities {
    let history = c.legacy_state_transition_history();
    let extra = c
        .extra
        .iter()
        .filter(|(key, _)| {
            // A boolean history claim becomes the field again; any other value stays in `extra`.
            history.is_none()
                || !matches!(key.as_str(), "stateTransitionHistory" | "state_transition_history")
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    AgentCapabilities {
        streaming: c.streaming,
        push_notifications: c.push_notifications,
        state_transition_history: history,
        extensions: c
            .extensions
            .iter()
            .map(|e| AgentExtension {
                uri: e.uri.clone(),
                description: non_empty(&e.description),
                required: e.required.then_some(true),
                params: e.params.clone(),
            })
            .collect(),
        extra,
    }
}
