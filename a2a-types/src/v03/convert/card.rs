//! Agent Cards and security schemes.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Losses, at, conversions, index};
use crate::v1;
use crate::v03::{
    APIKeySecurityScheme, AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface,
    AgentProvider, AgentSkill, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow,
    HTTPAuthSecurityScheme, ImplicitOAuthFlow, MutualTLSSecurityScheme, OAuth2SecurityScheme, OAuthFlows,
    OpenIdConnectSecurityScheme, PasswordOAuthFlow, SecurityRequirement, SecurityScheme,
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

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
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

    let mut extra = Map::new();
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
    let mut extra = Map::new();
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
        extra.insert(STATE_TRANSITION_HISTORY.to_owned(), Value::Bool(history));
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

fn requirement_to_v1(r: &SecurityRequirement) -> v1::SecurityRequirement {
    v1::SecurityRequirement {
        schemes: r
            .iter()
            .map(|(name, scopes)| (name.clone(), v1::StringList { list: scopes.clone() }))
            .collect(),
    }
}

fn requirement_from_v1(r: &v1::SecurityRequirement) -> SecurityRequirement {
    r.schemes.iter().map(|(name, scopes)| (name.clone(), scopes.list.clone())).collect()
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

/// The 1.0 scheme, or `None` (reported) for an OAuth scheme without any flow.
fn scheme_to_v1(s: &SecurityScheme, path: &str, losses: &mut Losses) -> Option<v1::SecurityScheme> {
    let description = |d: &Option<String>| d.clone().unwrap_or_default();
    Some(match s {
        SecurityScheme::ApiKey(k) => v1::SecurityScheme::ApiKey(v1::APIKeySecurityScheme {
            description: description(&k.description),
            location: k.location.clone(),
            name: k.name.clone(),
        }),
        SecurityScheme::Http(h) => v1::SecurityScheme::HttpAuth(v1::HTTPAuthSecurityScheme {
            description: description(&h.description),
            scheme: h.scheme.clone(),
            bearer_format: h.bearer_format.clone().unwrap_or_default(),
        }),
        SecurityScheme::OAuth2(o) => v1::SecurityScheme::OAuth2(v1::OAuth2SecurityScheme {
            description: description(&o.description),
            flows: flows_to_v1(&o.flows, &at(path, "flows"), losses)?,
            oauth2_metadata_url: o.oauth2_metadata_url.clone().unwrap_or_default(),
        }),
        SecurityScheme::OpenIdConnect(o) => {
            v1::SecurityScheme::OpenIdConnect(v1::OpenIdConnectSecurityScheme {
                description: description(&o.description),
                open_id_connect_url: o.open_id_connect_url.clone(),
            })
        }
        SecurityScheme::MutualTls(m) => v1::SecurityScheme::MutualTls(v1::MutualTlsSecurityScheme {
            description: description(&m.description),
        }),
    })
}

/// The first flow present, in the order authorizationCode, clientCredentials, implicit, password (the
/// deprecated ones last); the others are reported.
fn flows_to_v1(f: &OAuthFlows, path: &str, losses: &mut Losses) -> Option<v1::OAuthFlows> {
    let mut present: Vec<(&str, v1::OAuthFlows)> = Vec::new();
    if let Some(a) = &f.authorization_code {
        present.push((
            "authorizationCode",
            v1::OAuthFlows::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                authorization_url: a.authorization_url.clone(),
                token_url: a.token_url.clone(),
                refresh_url: a.refresh_url.clone().unwrap_or_default(),
                scopes: a.scopes.clone(),
                pkce_required: false,
            }),
        ));
    }
    if let Some(c) = &f.client_credentials {
        present.push((
            "clientCredentials",
            v1::OAuthFlows::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                token_url: c.token_url.clone(),
                refresh_url: c.refresh_url.clone().unwrap_or_default(),
                scopes: c.scopes.clone(),
            }),
        ));
    }
    if let Some(i) = &f.implicit {
        present.push((
            "implicit",
            v1::OAuthFlows::Implicit(v1::ImplicitOAuthFlow {
                authorization_url: i.authorization_url.clone(),
                refresh_url: i.refresh_url.clone().unwrap_or_default(),
                scopes: i.scopes.clone(),
            }),
        ));
    }
    if let Some(p) = &f.password {
        present.push((
            "password",
            v1::OAuthFlows::Password(v1::PasswordOAuthFlow {
                token_url: p.token_url.clone(),
                refresh_url: p.refresh_url.clone().unwrap_or_default(),
                scopes: p.scopes.clone(),
            }),
        ));
    }
    let mut flows = present.into_iter();
    let Some((kept, flow)) = flows.next() else {
        losses.lose(
            path.to_owned(),
            "no flow; a 1.0 OAuth scheme needs exactly one, so the scheme is left out",
        );
        return None;
    };
    for (name, _) in flows {
        losses.lose(
            at(path, name),
            format!("1.0 holds one flow per scheme; {kept} is kept, this one left out"),
        );
    }
    Some(flow)
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
        extra: Map::new(),
    };

    // Members a 1.0 card keeps in `extra` that are 0.3 fields (a merged card's `url`,
    // `protocolVersion`...) were just computed; report those whose value disagrees.
    let written = match serde_json::to_value(&card) {
        Ok(Value::Object(written)) => written,
        _ => Map::new(),
    };
    for (key, value) in &c.extra {
        match written.get(key) {
            Some(ours) if ours == value => {}
            Some(ours) => losses.lose(
                at(path, key),
                format!("{value} is replaced by {ours}, the value converted from the 1.0 fields"),
            ),
            None => {
                card.extra.insert(key.clone(), value.clone());
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

fn scheme_from_v1(s: &v1::SecurityScheme, path: &str, losses: &mut Losses) -> SecurityScheme {
    match s {
        v1::SecurityScheme::ApiKey(k) => SecurityScheme::ApiKey(APIKeySecurityScheme {
            description: non_empty(&k.description),
            location: k.location.clone(),
            name: k.name.clone(),
        }),
        v1::SecurityScheme::HttpAuth(h) => SecurityScheme::Http(HTTPAuthSecurityScheme {
            description: non_empty(&h.description),
            scheme: h.scheme.clone(),
            bearer_format: non_empty(&h.bearer_format),
        }),
        v1::SecurityScheme::OAuth2(o) => SecurityScheme::OAuth2(OAuth2SecurityScheme {
            description: non_empty(&o.description),
            flows: flows_from_v1(&o.flows, &at(&at(path, "oauth2SecurityScheme"), "flows"), losses),
            oauth2_metadata_url: non_empty(&o.oauth2_metadata_url),
        }),
        v1::SecurityScheme::OpenIdConnect(o) => SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
            description: non_empty(&o.description),
            open_id_connect_url: o.open_id_connect_url.clone(),
        }),
        v1::SecurityScheme::MutualTls(m) => {
            SecurityScheme::MutualTls(MutualTLSSecurityScheme { description: non_empty(&m.description) })
        }
    }
}

fn flows_from_v1(f: &v1::OAuthFlows, path: &str, losses: &mut Losses) -> OAuthFlows {
    let mut flows = OAuthFlows::default();
    match f {
        v1::OAuthFlows::AuthorizationCode(a) => {
            if a.pkce_required {
                losses.lose(
                    at(&at(path, "authorizationCode"), "pkceRequired"),
                    "true has no 0.3 form: a 0.3 client may not use PKCE",
                );
            }
            flows.authorization_code = Some(AuthorizationCodeOAuthFlow {
                authorization_url: a.authorization_url.clone(),
                token_url: a.token_url.clone(),
                refresh_url: non_empty(&a.refresh_url),
                scopes: a.scopes.clone(),
            });
        }
        v1::OAuthFlows::ClientCredentials(c) => {
            flows.client_credentials = Some(ClientCredentialsOAuthFlow {
                token_url: c.token_url.clone(),
                refresh_url: non_empty(&c.refresh_url),
                scopes: c.scopes.clone(),
            });
        }
        v1::OAuthFlows::Implicit(i) => {
            flows.implicit = Some(ImplicitOAuthFlow {
                authorization_url: i.authorization_url.clone(),
                refresh_url: non_empty(&i.refresh_url),
                scopes: i.scopes.clone(),
            });
        }
        v1::OAuthFlows::Password(p) => {
            flows.password = Some(PasswordOAuthFlow {
                token_url: p.token_url.clone(),
                refresh_url: non_empty(&p.refresh_url),
                scopes: p.scopes.clone(),
            });
        }
        v1::OAuthFlows::DeviceCode(_) => {
            losses.lose(
                at(path, "deviceCode"),
                "the device code flow has no 0.3 form; the scheme is written with no flow",
            );
        }
    }
    flows
}
