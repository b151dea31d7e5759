//! The provider trait and the ready providers: static bearer token, API key, HTTP basic.

use std::fmt;
use std::time::Duration;

use a2a_typestate_types::v1::SecurityScheme;
use futures::future::BoxFuture;

use super::Secret;
use crate::Error;
use crate::agent_url::AgentBaseUrl;

/// The value a provider answers with; where it goes is the card's scheme's business.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credential {
    /// A token sent as `Authorization: <scheme> <token>` (`Bearer` for OAuth 2.0, OpenID Connect and
    /// an HTTP `Bearer` scheme; the scheme's own name for other HTTP schemes).
    Token(Secret),
    /// HTTP basic (RFC 7617): `Authorization: Basic base64(username:password)`.
    Basic {
        /// The user name.
        username: String,
        /// The password.
        password: Secret,
    },
    /// An API key, put in the header, query parameter or cookie the card's scheme names.
    ApiKey(Secret),
}

/// What a provider is asked for: which agent, which of its card's schemes, which scopes.
#[derive(Debug)]
pub struct CredentialRequest<'a> {
    pub(crate) agent: &'a AgentBaseUrl,
    pub(crate) scheme_name: &'a str,
    pub(crate) scheme: &'a SecurityScheme,
    pub(crate) scopes: &'a [String],
    pub(crate) http: &'a crate::net::HttpClient,
    pub(crate) timeout: Duration,
    pub(crate) scope: &'a super::scope::CredentialScope,
    pub(crate) policy: crate::url_policy::UrlPolicy,
}

impl<'a> CredentialRequest<'a> {
    /// The agent the credential is for.
    pub fn agent(&self) -> &'a AgentBaseUrl {
        self.agent
    }

    /// The scheme's name in the card's `securitySchemes`.
    pub fn scheme_name(&self) -> &'a str {
        self.scheme_name
    }

    /// The scheme as the card describes it.
    pub fn scheme(&self) -> &'a SecurityScheme {
        self.scheme
    }

    /// The scopes the card's requirement lists for this scheme (OAuth 2.0, OpenID Connect).
    pub fn scopes(&self) -> &'a [String] {
        self.scopes
    }

    /// The client's HTTP client (its proxy, root certificates and client identity), for providers
    /// that fetch tokens.
    pub fn http(&self) -> &'a crate::net::HttpClient {
        self.http
    }

    /// The client's request timeout: the bound a provider's own requests should keep.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Checks a URL a card (or a document a card pointed to) named for this credential, before a
    /// provider sends anything there: a token endpoint, an OpenID Connect discovery document, RFC
    /// 8414 metadata. `what` names it in the error. The URL must pass the client's
    /// [`UrlPolicy`](crate::url_policy::UrlPolicy), as interface URLs do, and be on the agent's
    /// origin or one the user allowed
    /// ([`ClientBuilder::allow_credential_origin`](crate::ClientBuilder::allow_credential_origin)):
    /// a card cannot send the client's secret to a server of its choosing.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the URL policy refuses the URL (or it is not a URL);
    /// [`crate::ErrorKind::Auth`] when it is on another origin, saying the credentials were
    /// withheld and how to allow that origin.
    pub fn check_card_url(&self, what: &str, url: &str) -> Result<(), Error> {
        let parsed = self.check_url(url)?;
        self.scope.check(what, &parsed)
    }

    /// Checks a URL the user chose for this credential (a provider's own token URL) against the
    /// client's [`UrlPolicy`](crate::url_policy::UrlPolicy) only: the user sent the credential
    /// there, so the origin is not checked.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the URL policy refuses the URL (or it is not a URL).
    pub fn check_url(&self, url: &str) -> Result<url::Url, Error> {
        let parsed = url::Url::parse(url)
            .map_err(|e| Error::config(format!("{} is not a url: {e}", crate::error::redact_url(url))))?;
        self.policy.check_url(&parsed)?;
        Ok(parsed)
    }
}

/// Supplies credentials for the schemes of agents' cards.
///
/// Register providers in [`Credentials`](super::Credentials): for every agent, for one agent, for
/// one scheme name, or both. A provider says which schemes it can answer ([`supports`]); the client
/// picks the first of the card's `securityRequirements` whose every scheme has a provider.
///
/// [`supports`]: CredentialProvider::supports
pub trait CredentialProvider: Send + Sync + fmt::Debug + 'static {
    /// Whether this provider can answer `scheme`.
    fn supports(&self, scheme: &SecurityScheme) -> bool;

    /// The credential to send with one request.
    ///
    /// # Errors
    /// Whatever stops the provider (a token endpoint that refuses, say): the request is not sent.
    fn credential<'a>(
        &'a self,
        request: &'a CredentialRequest<'a>,
    ) -> BoxFuture<'a, Result<Credential, Error>>;

    /// Called once when the agent answered 401 to a request carrying this provider's credential:
    /// forget cached tokens and return `true` when a fresh credential may succeed (the request is
    /// then sent once more), `false` otherwise (the default: a static credential will not change).
    fn refresh_after_rejection(&self, request: &CredentialRequest<'_>) -> bool {
        let _ = request;
        false
    }
}

fn http_scheme_is(scheme: &SecurityScheme, name: &str) -> bool {
    matches!(scheme, SecurityScheme::HttpAuth(http) if http.scheme.eq_ignore_ascii_case(name))
}

/// A fixed bearer token, for HTTP `Bearer` schemes and for OAuth 2.0 and OpenID Connect schemes (a
/// token obtained elsewhere).
///
/// ```
/// use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
///
/// let credentials = Credentials::new().with(BearerToken::new(Secret::new("token")));
/// assert!(format!("{credentials:?}").contains("BearerToken"));
/// assert!(!format!("{credentials:?}").contains("token\""));
/// ```
#[derive(Clone, Debug)]
pub struct BearerToken {
    token: Secret,
}

impl BearerToken {
    /// A provider answering `token` to every bearer-like scheme.
    pub fn new(token: impl Into<Secret>) -> Self {
        Self { token: token.into() }
    }
}

impl CredentialProvider for BearerToken {
    fn supports(&self, scheme: &SecurityScheme) -> bool {
        http_scheme_is(scheme, "bearer")
            || matches!(scheme, SecurityScheme::OAuth2(_) | SecurityScheme::OpenIdConnect(_))
    }

    fn credential<'a>(&'a self, _: &'a CredentialRequest<'a>) -> BoxFuture<'a, Result<Credential, Error>> {
        Box::pin(async move { Ok(Credential::Token(self.token.clone())) })
    }
}

/// A fixed API key, for `apiKeySecurityScheme`s: sent in the header, query parameter or cookie the
/// scheme names.
#[derive(Clone, Debug)]
pub struct ApiKey {
    key: Secret,
}

impl ApiKey {
    /// A provider answering `key` to every API key scheme.
    pub fn new(key: impl Into<Secret>) -> Self {
        Self { key: key.into() }
    }
}

impl CredentialProvider for ApiKey {
    fn supports(&self, scheme: &SecurityScheme) -> bool {
        matches!(scheme, SecurityScheme::ApiKey(_))
    }

    fn credential<'a>(&'a self, _: &'a CredentialRequest<'a>) -> BoxFuture<'a, Result<Credential, Error>> {
        Box::pin(async move { Ok(Credential::ApiKey(self.key.clone())) })
    }
}

/// HTTP basic credentials, for HTTP `Basic` schemes.
#[derive(Clone)]
pub struct BasicAuth {
    username: String,
    password: Secret,
}

impl fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BasicAuth").field("password", &self.password).finish_non_exhaustive()
    }
}

impl BasicAuth {
    /// A provider answering `username` and `password` to every HTTP basic scheme.
    pub fn new(username: impl Into<String>, password: impl Into<Secret>) -> Self {
        Self { username: username.into(), password: password.into() }
    }
}

impl CredentialProvider for BasicAuth {
    fn supports(&self, scheme: &SecurityScheme) -> bool {
        http_scheme_is(scheme, "basic")
    }

    fn credential<'a>(&'a self, _: &'a CredentialRequest<'a>) -> BoxFuture<'a, Result<Credential, Error>> {
        Box::pin(async move {
            Ok(Credential::Basic { username: self.username.clone(), password: self.password.clone() })
        })
    }
}
