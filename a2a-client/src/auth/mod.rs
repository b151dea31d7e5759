//! Agents that require credentials: the card's security schemes, providers that answer them,
//! interceptors, TLS settings (roots, client identity, proxy), and [`Secret`].
//!
//! [`Client::connect`](crate::Client::connect) reads the card's `securityRequirements` and picks the
//! first one whose every scheme the client holds a credential for ([`Credentials`]); an empty list,
//! or an empty requirement reached first, means none is needed. When none is met, `connect` fails
//! with [`ErrorKind::Auth`](crate::ErrorKind::Auth) naming what the card asks for. Each request then
//! carries the credentials where the schemes say: `Authorization` for HTTP, OAuth 2.0 and OpenID
//! Connect schemes, the named header, query parameter or cookie for API keys, the client identity in
//! the TLS handshake for mutual TLS. A 401 or 403 is [`ErrorKind::Auth`](crate::ErrorKind::Auth):
//! never retried as a transport fault, never a refused claim, never a suspect mark; after a 401 a
//! provider that can refresh (OAuth 2.0) gets one chance and the request is sent once more.
//!
//! When the card declares `capabilities.extendedAgentCard` and credentials were selected, `connect`
//! fetches `GetExtendedAgentCard` with them and the connection uses that card (and its claims) in
//! place of the public one ([`AgentConnection::public_card`](crate::AgentConnection::public_card)
//! keeps the other).
//!
//! # Where credentials go
//!
//! Credentials are bound to the origin (scheme, host and port) of the agent they were given for:
//! the URL passed to [`Client::connect`](crate::Client::connect) (or `task`, `run_task`...). Every
//! URL the card names is a redirect the agent chose, so one on another origin gets nothing:
//!
//! - an **interface** (and the **extended card** behind it): requests go without credentials; the
//!   agent's 401 is [`ErrorKind::Auth`](crate::ErrorKind::Auth) saying they were withheld because
//!   the origin differs, and how to allow it; the extended card is not asked for
//!   ([`AgentConnection::extended_card_error`](crate::AgentConnection::extended_card_error) says why);
//! - a **token endpoint**, RFC 8414 **metadata** or **OpenID Connect discovery** URL, or the
//!   `token_endpoint` such a document names: nothing is sent there, and the request that needed
//!   the token fails with [`ErrorKind::Auth`](crate::ErrorKind::Auth) saying so.
//!
//! Allow the origins you trust with the credentials, an identity provider's say, with
//! [`ClientBuilder::allow_credential_origin`](crate::ClientBuilder::allow_credential_origin)
//! (`a2a`: `--allow-credential-origin URL`); it applies to every provider of the client. A token
//! URL you set yourself ([`OAuth2ClientCredentials::token_url`]) is yours and needs no allowing.
//! OAuth 2.0 tokens are cached per agent origin: a token fetched for one origin is never sent to
//! another. Token and discovery URLs also pass the client's [URL policy](crate::url_policy), as
//! interface URLs do, before any byte is sent; providers of your own apply both rules with
//! [`CredentialRequest::check_card_url`]. Not scoped: the mutual-TLS client identity, presented in
//! every TLS handshake, and [`default_header`](crate::ClientBuilder::default_header)s, sent with
//! every request the client makes (but dropped on a redirect to another origin). A header meant for
//! one agent is an [`origin_header`](crate::ClientBuilder::origin_header): only that origin gets it.
//!
//! ```
//! use a2a_typestate_client::Client;
//! use a2a_typestate_client::auth::{Credentials, OAuth2ClientCredentials, Secret};
//!
//! // The agent's card names its identity provider's token endpoint: allow that origin.
//! let client = Client::builder()
//!     .credentials(Credentials::new().with(OAuth2ClientCredentials::new("id", Secret::new("s"))))
//!     .allow_credential_origin("https://login.example.com")
//!     .build()?;
//! # let _ = client;
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```
//!
//! ```
//! use a2a_typestate_client::Client;
//! use a2a_typestate_client::auth::{ApiKey, BearerToken, Credentials, OAuth2ClientCredentials, Secret};
//!
//! let credentials = Credentials::new()
//!     // Any agent's bearer-like scheme.
//!     .with(BearerToken::new(Secret::new("token")))
//!     // Only the scheme the cards call "apiKey".
//!     .with_for_scheme("apiKey", ApiKey::new(Secret::new("key")))
//!     // Only one agent.
//!     .with_for_agent("https://agent.example", OAuth2ClientCredentials::new("id", Secret::new("s")))?;
//! let client = Client::builder().credentials(credentials).build()?;
//! # let _ = client;
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

mod apply;
mod intercept;
mod oauth2;
mod provider;
pub(crate) mod scope;
pub(crate) mod select;

use std::fmt;
use std::sync::Arc;

use a2a_typestate_types::v1::SecurityScheme;

pub use crate::net::identity::ClientIdentity;
pub use crate::secret::Secret;
pub(crate) use apply::{AuthLayer, ClientSide};
pub use intercept::{Interceptor, RequestContext, ResponseInfo};
pub use oauth2::{ClientAuthentication, DEFAULT_REFRESH_MARGIN, OAuth2ClientCredentials};
pub use provider::{ApiKey, BasicAuth, BearerToken, Credential, CredentialProvider, CredentialRequest};

use crate::Error;
use crate::agent_url::AgentBaseUrl;

struct Entry {
    agent: Option<AgentBaseUrl>,
    scheme: Option<String>,
    provider: Arc<dyn CredentialProvider>,
}

/// Credential providers, each for every agent or one, and for every scheme it supports or one
/// scheme name. The most specific entry that supports a scheme answers it: agent and name, then
/// agent, then name, then neither; among equals, the first added.
#[derive(Clone, Default)]
pub struct Credentials {
    entries: Vec<Arc<Entry>>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for entry in &self.entries {
            list.entry(&format_args!(
                "{} {} {:?}",
                entry.agent.as_ref().map_or("any agent", AgentBaseUrl::as_str),
                entry.scheme.as_deref().unwrap_or("any scheme"),
                entry.provider
            ));
        }
        list.finish()
    }
}

impl Credentials {
    /// No credentials.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(
        mut self,
        agent: Option<AgentBaseUrl>,
        scheme: Option<String>,
        provider: Arc<dyn CredentialProvider>,
    ) -> Self {
        self.entries.push(Arc::new(Entry { agent, scheme, provider }));
        self
    }

    /// `provider` for every agent and every scheme it supports.
    #[must_use]
    pub fn with(self, provider: impl CredentialProvider) -> Self {
        self.push(None, None, Arc::new(provider))
    }

    /// `provider` for every agent, only for the scheme cards name `scheme`.
    #[must_use]
    pub fn with_for_scheme(self, scheme: impl Into<String>, provider: impl CredentialProvider) -> Self {
        self.push(None, Some(scheme.into()), Arc::new(provider))
    }

    /// `provider` for the agent at `agent` only, every scheme it supports.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `agent` is not an http(s) URL.
    pub fn with_for_agent(self, agent: &str, provider: impl CredentialProvider) -> Result<Self, Error> {
        let agent = AgentBaseUrl::parse(agent)?;
        Ok(self.push(Some(agent), None, Arc::new(provider)))
    }

    /// `provider` for the agent at `agent`, only for its scheme `scheme`.
    ///
    /// # Errors
    /// As [`Credentials::with_for_agent`].
    pub fn with_for_agent_scheme(
        self,
        agent: &str,
        scheme: impl Into<String>,
        provider: impl CredentialProvider,
    ) -> Result<Self, Error> {
        let agent = AgentBaseUrl::parse(agent)?;
        Ok(self.push(Some(agent), Some(scheme.into()), Arc::new(provider)))
    }

    /// A provider already shared elsewhere (to read its counters, say), with the same scoping as
    /// the other `with` methods: `agent` and `scheme` narrow it when given.
    ///
    /// # Errors
    /// As [`Credentials::with_for_agent`] when `agent` is given.
    pub fn with_shared(
        self,
        agent: Option<&str>,
        scheme: Option<&str>,
        provider: Arc<dyn CredentialProvider>,
    ) -> Result<Self, Error> {
        let agent = agent.map(AgentBaseUrl::parse).transpose()?;
        Ok(self.push(agent, scheme.map(str::to_owned), provider))
    }

    /// Whether no provider was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The provider that answers `scheme` (named `name` in the card) for `agent`.
    pub(crate) fn provider_for(
        &self,
        agent: &AgentBaseUrl,
        name: &str,
        scheme: &SecurityScheme,
    ) -> Option<Arc<dyn CredentialProvider>> {
        let rank = |entry: &Entry| -> Option<u8> {
            let agent_fits = entry.agent.as_ref().map(|a| a == agent);
            let scheme_fits = entry.scheme.as_deref().map(|s| s == name);
            if agent_fits == Some(false) || scheme_fits == Some(false) || !entry.provider.supports(scheme) {
                return None;
            }
            Some(match (agent_fits.is_some(), scheme_fits.is_some()) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            })
        };
        self.entries
            .iter()
            .filter_map(|entry| rank(entry).map(|r| (r, entry)))
            .min_by_key(|(r, _)| *r)
            .map(|(_, entry)| Arc::clone(&entry.provider))
    }
}

/// What a client holds for agents that require credentials.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClientAuth {
    pub(crate) credentials: Credentials,
    pub(crate) interceptors: Vec<Arc<dyn Interceptor>>,
    pub(crate) has_client_identity: bool,
    /// Origins besides each agent's own that its credentials may go to.
    pub(crate) allowed_origins: Arc<[url::Origin]>,
}
