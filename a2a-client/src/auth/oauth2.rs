//! OAuth 2.0 client credentials (RFC 6749 §4.4), with the token endpoint taken from the card's
//! flow, from RFC 8414 metadata, or from OpenID Connect discovery; tokens cached per token endpoint
//! and scopes, and fetched again shortly before they expire or after the agent answers 401.
//! A token's `expires_in` (a number, or a string holding one) is read as at most a year; a longer
//! one is taken as a year, and a negative one, or one that is no number, as no lifetime given.
//!
//! Written here rather than taken from the `oauth2` crate: its HTTP integration is built on reqwest,
//! while this client runs on its own HTTP stack (whose proxy, roots and client identity must reach the
//! token endpoint too), and the exchange itself is one form POST.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use a2a_typestate_types::v1::{OAuthFlows, SecurityScheme};
use a2a_typestate_types::wire_number::{self, Unit};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use super::Secret;
use super::provider::{Credential, CredentialProvider, CredentialRequest};
use crate::Error;
use crate::wire_caps::{MAX_TOKEN_LIFETIME, logged};

/// Default margin before a token's expiry at which it is fetched again: 30 s.
pub const DEFAULT_REFRESH_MARGIN: Duration = Duration::from_secs(30);
/// Largest token or discovery answer read: 64 KiB.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// How the client authenticates to the token endpoint (RFC 6749 §2.3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientAuthentication {
    /// HTTP basic with the client id and secret (`client_secret_basic`, the default).
    #[default]
    BasicHeader,
    /// `client_id` and `client_secret` in the form body (`client_secret_post`).
    FormBody,
}

/// The OAuth 2.0 client credentials grant, for `oauth2SecurityScheme`s with a `clientCredentials`
/// flow and for `openIdConnectSecurityScheme`s.
///
/// A token is used until shortly before the `expires_in` its endpoint announced (see
/// [`refresh_margin`](Self::refresh_margin)). That lifetime is read as at most a year: a longer one
/// (`1e19`, `18446744073709551615`) is taken as a year. A negative one, or one that is no number,
/// counts as no lifetime given: the token is used until an agent refuses it.
///
/// ```
/// use std::time::Duration;
/// use a2a_typestate_client::auth::{Credentials, OAuth2ClientCredentials, Secret};
///
/// let oauth = OAuth2ClientCredentials::new("my-client", Secret::new("client-secret"))
///     .scopes(["tasks.read"])
///     .refresh_margin(Duration::from_secs(60));
/// let credentials = Credentials::new().with(oauth);
/// assert!(!format!("{credentials:?}").contains("client-secret"));
/// ```
pub struct OAuth2ClientCredentials {
    client_id: String,
    client_secret: Secret,
    token_url: Option<String>,
    scopes: Option<Vec<String>>,
    refresh_margin: Duration,
    authentication: ClientAuthentication,
    /// Token endpoint and scopes to the cached token. One lock: concurrent requests that find no
    /// token wait for one fetch.
    tokens: tokio::sync::Mutex<HashMap<String, CachedToken>>,
    /// Discovery or metadata URL to the token endpoint it named.
    endpoints: std::sync::Mutex<HashMap<String, String>>,
    fetched: std::sync::atomic::AtomicU64,
    /// Set when an agent rejected a token: the next credential is fetched anew.
    stale: std::sync::atomic::AtomicBool,
}

struct CachedToken {
    token: Secret,
    /// When to fetch a new one (expiry less the margin); `None`: until the agent rejects it.
    refresh_at: Option<Instant>,
}

impl fmt::Debug for OAuth2ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth2ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("token_url", &self.token_url)
            .field("scopes", &self.scopes)
            .field("refresh_margin", &self.refresh_margin)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<Value>,
}

impl OAuth2ClientCredentials {
    /// A client `client_id` with `client_secret`; the token endpoint and scopes come from the card
    /// unless set here.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<Secret>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            token_url: None,
            scopes: None,
            refresh_margin: DEFAULT_REFRESH_MARGIN,
            authentication: ClientAuthentication::default(),
            tokens: tokio::sync::Mutex::default(),
            endpoints: std::sync::Mutex::default(),
            fetched: std::sync::atomic::AtomicU64::new(0),
            stale: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Uses `url` as the token endpoint whatever the card says.
    #[must_use]
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.token_url = Some(url.into());
        self
    }

    /// Asks for `scopes` instead of the scopes the card's requirement lists.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Fetches a new token this long before the current one expires ([`DEFAULT_REFRESH_MARGIN`]); a
    /// token that lives less than twice the margin is fetched again at half its life.
    #[must_use]
    pub fn refresh_margin(mut self, margin: Duration) -> Self {
        self.refresh_margin = margin;
        self
    }

    /// How the client authenticates to the token endpoint ([`ClientAuthentication::BasicHeader`]).
    #[must_use]
    pub fn client_authentication(mut self, how: ClientAuthentication) -> Self {
        self.authentication = how;
        self
    }

    /// How many tokens were fetched so far.
    pub fn tokens_fetched(&self) -> u64 {
        self.fetched.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn scopes_for<'a>(&'a self, request: &'a CredentialRequest<'a>) -> &'a [String] {
        self.scopes.as_deref().unwrap_or(request.scopes())
    }

    /// The token endpoint for the request's scheme, checked before anything is sent to it: the
    /// user's own token URL against the URL policy; one the card names (or a document it points
    /// to names) against the policy and the credential scope.
    async fn token_endpoint(&self, request: &CredentialRequest<'_>) -> Result<String, Error> {
        if let Some(url) = &self.token_url {
            request.check_url(url)?;
            return Ok(url.clone());
        }
        match request.scheme() {
            SecurityScheme::OAuth2(oauth) => {
                if let OAuthFlows::ClientCredentials(flow) = &oauth.flows
                    && !flow.token_url.is_empty()
                {
                    request.check_card_url("the card's token endpoint", &flow.token_url)?;
                    return Ok(flow.token_url.clone());
                }
                if !oauth.oauth2_metadata_url.is_empty() {
                    return self.discovered_endpoint(request, &oauth.oauth2_metadata_url).await;
                }
                Err(Error::config(format!(
                    "security scheme {} has no client credentials flow with a token url",
                    request.scheme_name()
                )))
            }
            SecurityScheme::OpenIdConnect(oidc) => {
                self.discovered_endpoint(request, &oidc.open_id_connect_url).await
            }
            _ => Err(Error::config(format!(
                "security scheme {} is not an oauth2 or openid connect scheme",
                request.scheme_name()
            ))),
        }
    }

    /// The `token_endpoint` of an OpenID Connect discovery document or RFC 8414 metadata. Both the
    /// document's URL and the endpoint it names are checked, the endpoint each time it is used
    /// (the same document may serve agents on different origins).
    async fn discovered_endpoint(&self, request: &CredentialRequest<'_>, url: &str) -> Result<String, Error> {
        request.check_card_url("the card's discovery document", url)?;
        let known = self.endpoints.lock().map_err(|_| poisoned())?.get(url).cloned();
        if let Some(known) = known {
            request.check_card_url("the token endpoint the discovery document names", &known)?;
            return Ok(known);
        }
        let get = crate::net::json_request(http::Method::GET, url)?;
        let answer = crate::net::within(request.timeout(), url, async {
            let response = request.http().send(get).await.map_err(|e| e.with_url(url))?;
            let status = response.status().as_u16();
            if !response.status().is_success() {
                return Err(Error::from_status(status, Some(url)));
            }
            read_small_json(response, url).await
        })
        .await?;
        let Some(endpoint) = answer.get("token_endpoint").and_then(Value::as_str) else {
            return Err(Error::config("the discovery document names no token_endpoint").with_url(url));
        };
        let endpoint = endpoint.to_owned();
        request.check_card_url("the token endpoint the discovery document names", &endpoint)?;
        self.endpoints.lock().map_err(|_| poisoned())?.insert(url.to_owned(), endpoint.clone());
        Ok(endpoint)
    }

    async fn fetch(&self, request: &CredentialRequest<'_>, url: &str) -> Result<CachedToken, Error> {
        let scopes = self.scopes_for(request).join(" ");
        let mut form = vec![("grant_type", "client_credentials")];
        if !scopes.is_empty() {
            form.push(("scope", scopes.as_str()));
        }
        if self.authentication == ClientAuthentication::FormBody {
            form.push(("client_id", self.client_id.as_str()));
            form.push(("client_secret", self.client_secret.expose()));
        }
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut post = crate::net::json_request(http::Method::POST, url)?;
        *post.body_mut() = body.into();
        let headers = post.headers_mut();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        if self.authentication == ClientAuthentication::BasicHeader {
            headers.insert(
                http::header::AUTHORIZATION,
                super::apply::basic_value(
                    &form_encode(&self.client_id),
                    &form_encode(self.client_secret.expose()),
                )?,
            );
        }
        let answer = crate::net::within(request.timeout(), url, async {
            let response = request.http().send(post).await.map_err(|e| e.with_url(url))?;
            let status = response.status().as_u16();
            let body = read_small_json(response, url).await;
            if !(200..300).contains(&status) {
                let code = body.ok().and_then(|b| b.get("error").and_then(Value::as_str).map(str::to_owned));
                let code = code.map(|c| format!(" ({})", printable(&c))).unwrap_or_default();
                return Err(Error::auth(
                    Some(status),
                    format!("the token endpoint refused the client credentials with http {status}{code}"),
                )
                .with_url(url));
            }
            body
        })
        .await?;
        let answer: TokenAnswer = serde_json::from_value(answer).map_err(|_| {
            Error::auth(None, "the token endpoint answered without an access_token").with_url(url)
        })?;
        if let Some(kind) = &answer.token_type
            && !kind.eq_ignore_ascii_case("bearer")
        {
            return Err(Error::auth(
                None,
                format!("the token endpoint issued a {} token, not a bearer token", printable(kind)),
            )
            .with_url(url));
        }
        // `expires_in` as a number or a numeric string, at most a year; negative or not a number is
        // no lifetime given (the token is used until the agent refuses it).
        let lifetime = answer.expires_in.as_ref().filter(|v| !v.is_null()).and_then(|v| {
            let reading = wire_number::duration("expires_in", v, Unit::Seconds, MAX_TOKEN_LIFETIME);
            logged(reading, "no token lifetime given")
        });
        let refresh_at = lifetime.map(|life| {
            let early = if life >= self.refresh_margin.saturating_mul(2) {
                life - self.refresh_margin
            } else {
                life / 2
            };
            wire_number::instant_after(Instant::now(), early)
        });
        self.fetched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::debug!(token_url = %crate::error::redact_url(url), "fetched an oauth2 access token");
        Ok(CachedToken { token: Secret::new(answer.access_token), refresh_at })
    }

    /// The agent's origin, the token endpoint and the scopes: a token fetched for one agent's
    /// origin is never sent to another.
    fn cache_key(&self, request: &CredentialRequest<'_>, url: &str) -> String {
        format!("{} {url} {}", request.scope.agent_origin(), self.scopes_for(request).join(" "))
    }
}

impl CredentialProvider for OAuth2ClientCredentials {
    fn supports(&self, scheme: &SecurityScheme) -> bool {
        match scheme {
            SecurityScheme::OAuth2(oauth) => {
                matches!(oauth.flows, OAuthFlows::ClientCredentials(_))
                    || !oauth.oauth2_metadata_url.is_empty()
                    || self.token_url.is_some()
            }
            SecurityScheme::OpenIdConnect(_) => true,
            _ => false,
        }
    }

    fn credential<'a>(
        &'a self,
        request: &'a CredentialRequest<'a>,
    ) -> BoxFuture<'a, Result<Credential, Error>> {
        Box::pin(async move {
            let url = self.token_endpoint(request).await?;
            let key = self.cache_key(request, &url);
            let mut tokens = self.tokens.lock().await;
            if self.stale.swap(false, std::sync::atomic::Ordering::AcqRel) {
                tokens.clear();
            }
            if let Some(cached) = tokens.get(&key)
                && cached.refresh_at.is_none_or(|at| Instant::now() < at)
            {
                return Ok(Credential::Token(cached.token.clone()));
            }
            let fresh = self.fetch(request, &url).await?;
            let token = fresh.token.clone();
            tokens.insert(key, fresh);
            Ok(Credential::Token(token))
        })
    }

    fn refresh_after_rejection(&self, request: &CredentialRequest<'_>) -> bool {
        // The cached token was rejected: the next credential forgets every cached token (the key
        // needs the endpoint, which may need a discovery round trip; there are few entries) and
        // fetches a fresh one, under the cache's lock so that concurrent rejections fetch once each.
        let _ = request;
        self.stale.store(true, std::sync::atomic::Ordering::Release);
        true
    }
}

/// `application/x-www-form-urlencoded` encoding of one value (RFC 6749 §2.3.1 asks it of the
/// client id and secret before they go into the basic header).
fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// A server-sent word, cut short and without control characters, for an error message.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(64).collect()
}

fn poisoned() -> Error {
    Error::config("oauth2 client state is unusable after a panic")
}

async fn read_small_json(response: crate::net::Response, url: &str) -> Result<Value, Error> {
    let body = crate::net::read_bounded(response, MAX_ANSWER_BYTES, url).await?;
    a2a_typestate_types::parse::from_slice(&body)
        .map_err(|e| Error::bad_input("token endpoint answer", e).with_url(url))
}
