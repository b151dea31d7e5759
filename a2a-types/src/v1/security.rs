//! How an agent wants callers to authenticate: `SecurityScheme`, its OAuth flows, and the
//! `SecurityRequirement`s that name schemes and scopes.
//!
//! `SecurityScheme` and `OAuthFlows` are proto `oneof` wrappers: on the wire each is an object with
//! exactly one member (`{"httpAuthSecurityScheme": {"scheme": "Bearer"}}`). In Rust they are enums, so a
//! scheme with no member or two members cannot be built; reading one is an error naming the field.
//!
//! ```
//! use a2a_typestate_types::{parse, HTTPAuthSecurityScheme, SecurityScheme};
//!
//! let scheme: SecurityScheme =
//!     parse::from_str(r#"{"httpAuthSecurityScheme":{"scheme":"Bearer","bearerFormat":"JWT"}}"#).unwrap();
//! let SecurityScheme::HttpAuth(HTTPAuthSecurityScheme { scheme, bearer_format, .. }) = scheme else {
//!     panic!("expected HTTP auth")
//! };
//! assert_eq!((scheme.as_str(), bearer_format.as_str()), ("Bearer", "JWT"));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::protojson::{is_default, oneof_deserialize};

/// One way to authenticate to the agent (`SecurityScheme`, a oneof named `scheme`).
///
/// Cards name schemes in `securitySchemes` and refer to them by that name from
/// [`SecurityRequirement`]s.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum SecurityScheme {
    /// `apiKeySecurityScheme`: a static key in a header, query parameter or cookie.
    #[serde(rename = "apiKeySecurityScheme")]
    ApiKey(APIKeySecurityScheme),
    /// `httpAuthSecurityScheme`: an HTTP `Authorization` scheme such as Bearer or Basic.
    #[serde(rename = "httpAuthSecurityScheme")]
    HttpAuth(HTTPAuthSecurityScheme),
    /// `oauth2SecurityScheme`: OAuth 2.0 with one flow.
    #[serde(rename = "oauth2SecurityScheme")]
    OAuth2(OAuth2SecurityScheme),
    /// `openIdConnectSecurityScheme`: OpenID Connect discovery.
    #[serde(rename = "openIdConnectSecurityScheme")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// `mtlsSecurityScheme`: mutual TLS with a client certificate.
    #[serde(rename = "mtlsSecurityScheme")]
    MutualTls(MutualTlsSecurityScheme),
}

oneof_deserialize!(
    SecurityScheme,
    "scheme",
    [
        (ApiKey, "apiKeySecurityScheme", "api_key_security_scheme", APIKeySecurityScheme),
        (HttpAuth, "httpAuthSecurityScheme", "http_auth_security_scheme", HTTPAuthSecurityScheme),
        (OAuth2, "oauth2SecurityScheme", "oauth2_security_scheme", OAuth2SecurityScheme),
        (
            OpenIdConnect,
            "openIdConnectSecurityScheme",
            "open_id_connect_security_scheme",
            OpenIdConnectSecurityScheme
        ),
        (MutualTls, "mtlsSecurityScheme", "mtls_security_scheme", MutualTlsSecurityScheme),
    ]
);

/// An API key sent with every request (`APIKeySecurityScheme`).
///
/// 0.3 cards called `location` `in`; the `v03` module maps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct APIKeySecurityScheme {
    /// What the key is for, for humans.
    #[serde(skip_serializing_if = "is_default")]
    pub description: String,
    /// Where the key goes: `"query"`, `"header"` or `"cookie"`.
    pub location: String,
    /// The header, query parameter or cookie name.
    pub name: String,
}

/// HTTP authentication (`HTTPAuthSecurityScheme`), RFC 7235.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HTTPAuthSecurityScheme {
    /// What the scheme is for, for humans.
    #[serde(skip_serializing_if = "is_default")]
    pub description: String,
    /// The IANA scheme name used in `Authorization`, such as `Bearer`.
    pub scheme: String,
    /// A hint of the bearer token format, such as `JWT`.
    #[serde(skip_serializing_if = "is_default", alias = "bearer_format")]
    pub bearer_format: String,
}

/// OAuth 2.0 (`OAuth2SecurityScheme`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// What the scheme is for, for humans.
    #[serde(default, skip_serializing_if = "is_default")]
    pub description: String,
    /// The one flow the agent supports.
    pub flows: OAuthFlows,
    /// RFC 8414 authorization server metadata URL.
    #[serde(default, skip_serializing_if = "is_default", alias = "oauth2_metadata_url")]
    pub oauth2_metadata_url: String,
}

/// OpenID Connect (`OpenIdConnectSecurityScheme`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenIdConnectSecurityScheme {
    /// What the scheme is for, for humans.
    #[serde(skip_serializing_if = "is_default")]
    pub description: String,
    /// The OpenID Connect discovery URL.
    #[serde(alias = "open_id_connect_url")]
    pub open_id_connect_url: String,
}

/// Mutual TLS (`MutualTlsSecurityScheme`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MutualTlsSecurityScheme {
    /// What the scheme is for, for humans.
    #[serde(skip_serializing_if = "is_default")]
    pub description: String,
}

/// The OAuth 2.0 flow an [`OAuth2SecurityScheme`] uses (`OAuthFlows`, a oneof named `flow`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum OAuthFlows {
    /// `authorizationCode`: the authorization code flow.
    #[serde(rename = "authorizationCode")]
    AuthorizationCode(AuthorizationCodeOAuthFlow),
    /// `clientCredentials`: the client credentials flow.
    #[serde(rename = "clientCredentials")]
    ClientCredentials(ClientCredentialsOAuthFlow),
    /// `deviceCode`: the device authorization flow (RFC 8628).
    #[serde(rename = "deviceCode")]
    DeviceCode(DeviceCodeOAuthFlow),
    /// `implicit`: deprecated in the proto (OAuth 2.0 Security BCP); still read.
    #[serde(rename = "implicit")]
    Implicit(ImplicitOAuthFlow),
    /// `password`: deprecated in the proto (OAuth 2.0 Security BCP); still read.
    #[serde(rename = "password")]
    Password(PasswordOAuthFlow),
}

oneof_deserialize!(
    OAuthFlows,
    "flow",
    [
        (AuthorizationCode, "authorizationCode", "authorization_code", AuthorizationCodeOAuthFlow),
        (ClientCredentials, "clientCredentials", "client_credentials", ClientCredentialsOAuthFlow),
        (DeviceCode, "deviceCode", "device_code", DeviceCodeOAuthFlow),
        (Implicit, "implicit", "implicit", ImplicitOAuthFlow),
        (Password, "password", "password", PasswordOAuthFlow),
    ]
);

/// The authorization code flow (`AuthorizationCodeOAuthFlow`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthorizationCodeOAuthFlow {
    /// Where the user authorizes.
    #[serde(alias = "authorization_url")]
    pub authorization_url: String,
    /// Where the code is exchanged for a token.
    #[serde(alias = "token_url")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(skip_serializing_if = "is_default", alias = "refresh_url")]
    pub refresh_url: String,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
    /// Whether the agent requires PKCE (RFC 7636).
    #[serde(skip_serializing_if = "is_default", alias = "pkce_required")]
    pub pkce_required: bool,
}

/// The client credentials flow (`ClientCredentialsOAuthFlow`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientCredentialsOAuthFlow {
    /// Where credentials are exchanged for a token.
    #[serde(alias = "token_url")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(skip_serializing_if = "is_default", alias = "refresh_url")]
    pub refresh_url: String,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// The device authorization flow (`DeviceCodeOAuthFlow`), RFC 8628.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceCodeOAuthFlow {
    /// Where the device asks for a user code.
    #[serde(alias = "device_authorization_url")]
    pub device_authorization_url: String,
    /// Where the device code is exchanged for a token.
    #[serde(alias = "token_url")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(skip_serializing_if = "is_default", alias = "refresh_url")]
    pub refresh_url: String,
    /// Scope name to description.
    pub scopes: BTreeMap<String, String>,
}

/// The implicit flow (`ImplicitOAuthFlow`), deprecated in the proto but still read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImplicitOAuthFlow {
    /// Where the user authorizes.
    #[serde(skip_serializing_if = "is_default", alias = "authorization_url")]
    pub authorization_url: String,
    /// Where tokens are refreshed.
    #[serde(skip_serializing_if = "is_default", alias = "refresh_url")]
    pub refresh_url: String,
    /// Scope name to description.
    #[serde(skip_serializing_if = "is_default")]
    pub scopes: BTreeMap<String, String>,
}

/// The resource owner password flow (`PasswordOAuthFlow`), deprecated in the proto but still read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PasswordOAuthFlow {
    /// Where the password is exchanged for a token.
    #[serde(skip_serializing_if = "is_default", alias = "token_url")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[serde(skip_serializing_if = "is_default", alias = "refresh_url")]
    pub refresh_url: String,
    /// Scope name to description.
    #[serde(skip_serializing_if = "is_default")]
    pub scopes: BTreeMap<String, String>,
}

/// One acceptable combination of schemes (`SecurityRequirement`): a caller satisfies it by
/// authenticating with every scheme named, with the scopes listed. A list of requirements is a
/// choice: any one of them will do.
///
/// Wire form: `{"schemes": {"oauth": {"list": ["read"]}}}` (the ProtoJSON form of
/// `map<string, StringList>`; 0.3 wrote `{"oauth": ["read"]}`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecurityRequirement {
    /// Scheme name (a key of the card's `securitySchemes`) to the scopes required.
    #[serde(skip_serializing_if = "is_default")]
    pub schemes: BTreeMap<String, StringList>,
}

/// A list of strings (`StringList`); proto maps cannot hold repeated values directly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StringList {
    /// The strings, such as OAuth scopes.
    #[serde(skip_serializing_if = "is_default")]
    pub list: Vec<String>,
}
