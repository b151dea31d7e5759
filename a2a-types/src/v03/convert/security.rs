//! Security schemes, OAuth flows and security requirements.

use super::{Losses, at, non_empty};
use crate::v1;
use crate::v03::{
    APIKeySecurityScheme, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow, HTTPAuthSecurityScheme,
    ImplicitOAuthFlow, MutualTLSSecurityScheme, OAuth2SecurityScheme, OAuthFlows,
    OpenIdConnectSecurityScheme, PasswordOAuthFlow, SecurityRequirement, SecurityScheme,
};

pub(super) fn requirement_to_v1(r: &SecurityRequirement) -> v1::SecurityRequirement {
    v1::SecurityRequirement {
        schemes: r
            .iter()
            .map(|(name, scopes)| (name.clone(), v1::StringList { list: scopes.clone() }))
            .collect(),
    }
}

pub(super) fn requirement_from_v1(r: &v1::SecurityRequirement) -> SecurityRequirement {
    r.schemes.iter().map(|(name, scopes)| (name.clone(), scopes.list.clone())).collect()
}

/// The 1.0 scheme, or `None` (reported) for an OAuth scheme without any flow.
pub(super) fn scheme_to_v1(
    s: &SecurityScheme,
    path: &str,
    losses: &mut Losses,
) -> Option<v1::SecurityScheme> {
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

pub(super) fn scheme_from_v1(s: &v1::SecurityScheme, path: &str, losses: &mut Losses) -> SecurityScheme {
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
