//! Which of a card's `securityRequirements` the client meets: the first one whose every scheme it
//! holds a credential for. A skill's own requirements, when it lists any, replace the card's.

use std::sync::Arc;

use a2a_types::v1::{OAuthFlows, SecurityRequirement, SecurityScheme};
use a2a_types::AgentCard;

use super::provider::CredentialProvider;
use super::Credentials;
use crate::discovery::AgentBaseUrl;
use crate::Error;

/// One scheme of the selected requirement, with what answers it.
#[derive(Clone, Debug)]
pub(crate) struct PlannedScheme {
    pub(crate) name: String,
    pub(crate) scheme: SecurityScheme,
    pub(crate) scopes: Vec<String>,
    /// `None` for mutual TLS: the client identity answers it during the handshake.
    pub(crate) provider: Option<Arc<dyn CredentialProvider>>,
}

/// The requirement the client will meet for one agent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Selection {
    /// Empty when the card asks for nothing (or allows an empty requirement).
    pub(crate) schemes: Vec<PlannedScheme>,
    /// What the card asks for, in words, for error messages.
    pub(crate) asked: String,
}

/// A scheme in words: its name and kind, never a value.
pub(crate) fn describe(name: &str, scheme: Option<&SecurityScheme>) -> String {
    let kind = match scheme {
        None => "not defined in securitySchemes".to_owned(),
        Some(SecurityScheme::ApiKey(key)) => format!("api key in {} {}", key.location, key.name),
        Some(SecurityScheme::HttpAuth(http)) => format!("http {}", http.scheme.to_ascii_lowercase()),
        Some(SecurityScheme::OAuth2(oauth)) => match oauth.flows {
            OAuthFlows::ClientCredentials(_) => "oauth2 client credentials".to_owned(),
            OAuthFlows::AuthorizationCode(_) => "oauth2 authorization code".to_owned(),
            OAuthFlows::DeviceCode(_) => "oauth2 device code".to_owned(),
            _ => "oauth2".to_owned(),
        },
        Some(SecurityScheme::OpenIdConnect(_)) => "openid connect".to_owned(),
        Some(SecurityScheme::MutualTls(_)) => "mutual tls".to_owned(),
    };
    format!("{name} ({kind})")
}

fn describe_all(card: &AgentCard, requirements: &[SecurityRequirement]) -> String {
    requirements
        .iter()
        .map(|r| {
            r.schemes.keys().map(|n| describe(n, card.security_schemes.get(n))).collect::<Vec<_>>().join(" + ")
        })
        .collect::<Vec<_>>()
        .join("; or ")
}

/// Selects the first requirement of `requirements` the client meets.
///
/// # Errors
/// [`crate::ErrorKind::Auth`] naming every requirement when the list is not empty, holds no empty
/// requirement before a met one, and none is met.
pub(crate) fn select(
    card: &AgentCard,
    requirements: &[SecurityRequirement],
    credentials: &Credentials,
    agent: &AgentBaseUrl,
    has_client_identity: bool,
) -> Result<Selection, Error> {
    let asked = describe_all(card, requirements);
    if requirements.is_empty() {
        return Ok(Selection { schemes: Vec::new(), asked });
    }
    'requirements: for requirement in requirements {
        let mut schemes = Vec::new();
        for (name, scopes) in &requirement.schemes {
            let Some(scheme) = card.security_schemes.get(name) else { continue 'requirements };
            let provider = if matches!(scheme, SecurityScheme::MutualTls(_)) {
                if !has_client_identity {
                    continue 'requirements;
                }
                None
            } else {
                match credentials.provider_for(agent, name, scheme) {
                    Some(provider) => Some(provider),
                    None => continue 'requirements,
                }
            };
            schemes.push(PlannedScheme {
                name: name.to_string(),
                scheme: scheme.clone(),
                scopes: scopes.list.clone(),
                provider,
            });
        }
        return Ok(Selection { schemes, asked });
    }
    Err(Error::auth(
        None,
        format!("the client holds no credentials that meet the card's security requirements (it asks for: {asked})"),
    )
    .with_url(agent.as_str()))
}

/// The requirements that apply to `skill`: its own when it lists any, else the card's.
pub(crate) fn requirements_for<'a>(card: &'a AgentCard, skill: Option<&str>) -> Result<&'a [SecurityRequirement], Error> {
    let Some(skill) = skill else { return Ok(&card.security_requirements) };
    let Some(found) = card.skills.iter().find(|s| s.id == skill) else {
        return Err(Error::config(format!("the card has no skill {skill:?}")));
    };
    Ok(if found.security_requirements.is_empty() { &card.security_requirements } else { &found.security_requirements })
}
