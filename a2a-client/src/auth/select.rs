//! Which of a card's `securityRequirements` the client meets: the first one whose every scheme it
//! holds a credential for. A skill's own requirements, when it lists any, replace the card's.

use std::sync::Arc;

use a2a_typestate_types::AgentCard;
use a2a_typestate_types::v1::{OAuthFlows, SecurityRequirement, SecurityScheme};

use super::Credentials;
use super::provider::CredentialProvider;
#[cfg(test)]
use super::provider::CredentialRequest;
use crate::Error;
use crate::agent_url::AgentBaseUrl;

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
            r.schemes
                .keys()
                .map(|n| describe(n, card.security_schemes.get(n)))
                .collect::<Vec<_>>()
                .join(" + ")
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
pub(crate) fn requirements_for<'a>(
    card: &'a AgentCard,
    skill: Option<&str>,
) -> Result<&'a [SecurityRequirement], Error> {
    let Some(skill) = skill else { return Ok(&card.security_requirements) };
    let Some(found) = card.skills.iter().find(|s| s.id == skill) else {
        return Err(Error::misuse(format!("the card has no skill {skill:?}")));
    };
    Ok(if found.security_requirements.is_empty() {
        &card.security_requirements
    } else {
        &found.security_requirements
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::auth::{ApiKey, BasicAuth, BearerToken, Secret};

    fn card() -> AgentCard {
        let json = r#"{"name":"a","description":"d","version":"1","capabilities":{},
            "defaultInputModes":[],"defaultOutputModes":[],"supportedInterfaces":[],
            "securitySchemes":{
                "bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}},
                "key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}},
                "basic":{"httpAuthSecurityScheme":{"scheme":"basic"}},
                "mtls":{"mtlsSecurityScheme":{}}},
            "securityRequirements":[
                {"schemes":{"bearer":{"list":[]},"key":{"list":[]}}},
                {"schemes":{"basic":{}}}],
            "skills":[
                {"id":"open","name":"open","description":"","tags":[]},
                {"id":"admin","name":"admin","description":"","tags":[],
                 "securityRequirements":[{"schemes":{"mtls":{}}}]},
                {"id":"public","name":"public","description":"","tags":[],
                 "securityRequirements":[{"schemes":{"undefinedScheme":{}}},{}]}]}"#;
        a2a_typestate_types::parse::from_slice(json.as_bytes()).unwrap()
    }

    fn agent() -> AgentBaseUrl {
        AgentBaseUrl::parse("http://agent.example").unwrap()
    }

    fn names(selection: &Selection) -> Vec<&str> {
        selection.schemes.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn the_first_requirement_met_in_full_is_selected() {
        let card = card();
        let both =
            Credentials::new().with(BearerToken::new(Secret::new("t"))).with(ApiKey::new(Secret::new("k")));
        let selected = select(&card, &card.security_requirements, &both, &agent(), false).unwrap();
        assert_eq!(names(&selected), ["bearer", "key"]);
        // A bearer token alone does not meet the first requirement (it also needs the key).
        let bearer_and_basic = Credentials::new()
            .with(BearerToken::new(Secret::new("t")))
            .with(BasicAuth::new("u", Secret::new("p")));
        let selected =
            select(&card, &card.security_requirements, &bearer_and_basic, &agent(), false).unwrap();
        assert_eq!(names(&selected), ["basic"]);
    }

    #[test]
    fn nothing_met_is_an_auth_error_naming_every_requirement() {
        let card = card();
        let only_bearer = Credentials::new().with(BearerToken::new(Secret::new("t")));
        let err = select(&card, &card.security_requirements, &only_bearer, &agent(), false).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Auth);
        assert_eq!(
            err.to_string(),
            "not authorized: the client holds no credentials that meet the card's security requirements \
             (it asks for: bearer (http bearer) + key (api key in header X-Key); or basic (http basic)) \
             (http://agent.example/)"
        );
    }

    #[test]
    fn a_skill_with_requirements_of_its_own_replaces_the_cards() {
        let card = card();
        assert_eq!(requirements_for(&card, Some("open")).unwrap(), card.security_requirements.as_slice());
        let admin = requirements_for(&card, Some("admin")).unwrap();
        let basic = Credentials::new().with(BasicAuth::new("u", Secret::new("p")));
        assert!(select(&card, admin, &basic, &agent(), false).is_err(), "admin asks for mutual tls only");
        let selected = select(&card, admin, &Credentials::new(), &agent(), true).unwrap();
        assert_eq!(names(&selected), ["mtls"]);
        assert!(selected.schemes[0].provider.is_none(), "the handshake answers mtls");
        assert_eq!(requirements_for(&card, Some("nope")).unwrap_err().kind(), ErrorKind::Misuse);
    }

    #[test]
    fn an_empty_requirement_reached_first_needs_no_credentials_and_undefined_schemes_never_match() {
        let card = card();
        let public = requirements_for(&card, Some("public")).unwrap();
        let selected = select(&card, public, &Credentials::new(), &agent(), false).unwrap();
        assert!(selected.schemes.is_empty());
        assert!(select(&card, &[], &Credentials::new(), &agent(), false).unwrap().schemes.is_empty());
    }

    #[test]
    fn the_most_specific_credential_answers() {
        let card = card();
        let scheme = &card.security_schemes["bearer"];
        let here = agent();
        let credentials = Credentials::new()
            .with(BearerToken::new(Secret::new("any")))
            .with_for_scheme("bearer", BearerToken::new(Secret::new("scheme")))
            .with_for_agent("http://agent.example", BearerToken::new(Secret::new("agent")))
            .unwrap()
            .with_for_agent_scheme("http://other.example", "bearer", BearerToken::new(Secret::new("other")))
            .unwrap();
        let chosen = credentials.provider_for(&here, "bearer", scheme).unwrap();
        assert!(format!("{chosen:?}").contains("BearerToken"));
        let elsewhere = AgentBaseUrl::parse("http://other.example").unwrap();
        let request = |agent: &AgentBaseUrl| {
            let http = crate::Client::builder().build().unwrap().http_client().clone();
            let provider = credentials.provider_for(agent, "bearer", scheme).unwrap();
            let scope = crate::auth::scope::CredentialScope::new(agent, Vec::new().into());
            let request = CredentialRequest {
                agent,
                scheme_name: "bearer",
                scheme,
                scopes: &[],
                http: &http,
                timeout: std::time::Duration::from_secs(1),
                scope: &scope,
                policy: crate::url_policy::UrlPolicy::default(),
            };
            futures::executor::block_on(provider.credential(&request)).unwrap()
        };
        use crate::auth::Credential;
        assert_eq!(request(&here), Credential::Token(Secret::new("agent")));
        assert_eq!(request(&elsewhere), Credential::Token(Secret::new("other")));
        let third = AgentBaseUrl::parse("http://third.example").unwrap();
        assert_eq!(request(&third), Credential::Token(Secret::new("scheme")));
    }
}
