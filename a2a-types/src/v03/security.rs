//! 0.3 security schemes (tagged by `type`), OAuth flows and security requirements.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One acceptable combination of schemes: scheme name to the scopes required. A list of them is a
/// choice (any one will do). 1.0 wraps the scopes as `{"schemes": {name: {"list": [...]}}}`.
pub type SecurityRequirement = BTreeMap<String, Vec<String>>;

/// One way to authenticate to a 0.3 agent, told apart by `type`.
// A card holds a handful of schemes, read once: boxing the OAuth variant would cost every caller a
// `Box` in patterns for no measurable gain.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", try_from = "SchemeRepr")]
pub enum SecurityScheme {
    /// `"type": "apiKey"`.
    #[serde(rename = "apiKey")]
    ApiKey(APIKeySecurityScheme),
    /// `"type": "http"`.
    #[serde(rename = "http")]
    Http(HTTPAuthSecurityScheme),
    /// `"type": "oauth2"`.
    #[serde(rename = "oauth2")]
    OAuth2(OAuth2SecurityScheme),
    /// `"type": "openIdConnect"`.
    #[serde(rename = "openIdConnect")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// `"type": "mutualTLS"`.
    #[serde(rename = "mutualTLS")]
    MutualTls(MutualTLSSecurityScheme),
}

/// An API key sent with every request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct APIKeySecurityScheme {
    /// For humans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where the key goes: `"header"`, `"query"` or `"cookie"` (`in` on the wire; 1.0 `location`).
    #[serde(rename = "in")]
    pub location: String,
    /// The header, query parameter or cookie name.
    pub name: String,
}

/// An HTTP `Authorization` scheme such as Bearer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HTTPAuthSecurityScheme {
    /// For humans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The scheme name, such as `Bearer`.
    pub scheme: String,
    /// A hint about the token format, such as `JWT`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_format: Option<String>,
}

/// OAuth 2.0. Unlike 1.0, a 0.3 scheme may list several flows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// For humans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The flows the agent supports.
    pub flows: OAuthFlows,
    /// Where the authorization server's metadata (RFC 8414) is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth2_metadata_url: Option<String>,
}

/// OpenID Connect discovery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// For humans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The OpenID Connect discovery URL.
    pub open_id_connect_url: String,
}

/// Mutual TLS with a client certificate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MutualTLSSecurityScheme {
    /// For humans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The OAuth flows of a 0.3 scheme: any of the four may be present (1.0 holds exactly one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlows {
    /// The authorization code flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_code: Option<AuthorizationCodeOAuthFlow>,
    /// The client credentials flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_credentials: Option<ClientCredentialsOAuthFlow>,
    /// The implicit flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit: Option<ImplicitOAuthFlow>,
    /// The resource owner password flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<PasswordOAuthFlow>,
}

/// The authorization code flow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthorizationCodeOAuthFlow {
    /// Where the user authorizes.
    pub authorization_url: String,
    /// Where the code is exchanged for a token.
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// The client credentials flow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientCredentialsOAuthFlow {
    /// Where the credentials are exchanged for a token.
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// The implicit flow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImplicitOAuthFlow {
    /// Where the user authorizes.
    pub authorization_url: String,
    /// Where tokens are refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// The resource owner password flow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PasswordOAuthFlow {
    /// Where the password is exchanged for a token.
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// Every member any 0.3 scheme may carry; [`SecurityScheme`] picks by `type`, keeping error paths.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemeRepr {
    #[serde(rename = "type")]
    scheme_type: Option<String>,
    description: Option<String>,
    #[serde(rename = "in")]
    location: Option<String>,
    name: Option<String>,
    scheme: Option<String>,
    bearer_format: Option<String>,
    flows: Option<OAuthFlows>,
    oauth2_metadata_url: Option<String>,
    open_id_connect_url: Option<String>,
}

const SCHEME_TYPES: &str = "\"apiKey\", \"http\", \"oauth2\", \"openIdConnect\", \"mutualTLS\"";

fn required<T>(value: Option<T>, field: &str, scheme_type: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing field `{field}` (required for type \"{scheme_type}\")"))
}

impl TryFrom<SchemeRepr> for SecurityScheme {
    type Error = String;

    fn try_from(r: SchemeRepr) -> Result<Self, String> {
        let description = r.description;
        Ok(match r.scheme_type.as_deref() {
            Some(t @ "apiKey") => Self::ApiKey(APIKeySecurityScheme {
                description,
                location: required(r.location, "in", t)?,
                name: required(r.name, "name", t)?,
            }),
            Some(t @ "http") => Self::Http(HTTPAuthSecurityScheme {
                description,
                scheme: required(r.scheme, "scheme", t)?,
                bearer_format: r.bearer_format,
            }),
            Some(t @ "oauth2") => Self::OAuth2(OAuth2SecurityScheme {
                description,
                flows: required(r.flows, "flows", t)?,
                oauth2_metadata_url: r.oauth2_metadata_url,
            }),
            Some(t @ "openIdConnect") => Self::OpenIdConnect(OpenIdConnectSecurityScheme {
                description,
                open_id_connect_url: required(r.open_id_connect_url, "openIdConnectUrl", t)?,
            }),
            Some("mutualTLS") => Self::MutualTls(MutualTLSSecurityScheme { description }),
            Some(other) => {
                return Err(format!(
                    "unknown security scheme type \"{other}\"; expected one of {SCHEME_TYPES}"
                ));
            }
            None => return Err(format!("missing field `type`; expected one of {SCHEME_TYPES}")),
        })
    }
}
