//! Agents that require credentials: what a [`Guard`] demands before the agent answers an A2A
//! request, the card fragment that says so, an embedded OAuth 2.0 token endpoint that expires its
//! tokens, an extended card for authenticated callers, and TLS material the tests generate
//! ([`TestPki`]) for agents served over HTTPS and mutual TLS.
//!
//! The card itself is always public. A request without the credentials gets `401` with a
//! `WWW-Authenticate` header; the card's `securitySchemes` and `securityRequirements` name the one
//! scheme the guard checks (1.0 cards only).
//!
//! ```
//! use a2a_testkit::{Guard, KeyLocation, ScriptedAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = ScriptedAgent::builder().guard(Guard::api_key(KeyLocation::Header, "X-API-Key", "k1")).spawn().await?;
//! let card: serde_json::Value = reqwest::get(agent.card_url()).await?.json().await?;
//! assert_eq!(card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["name"], "X-API-Key");
//! let denied = reqwest::Client::new().post(agent.jsonrpc_url()).body("{}").send().await?;
//! assert_eq!(denied.status(), 401);
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::{Value, json};

mod tls;

pub use tls::TestPki;
pub(crate) use tls::{ClientAuth, TlsListener};

/// Path of the embedded OAuth 2.0 token endpoint.
pub const TOKEN_PATH: &str = "/oauth/token";
/// Path of the embedded OpenID Connect discovery document.
pub const OPENID_CONFIGURATION_PATH: &str = "/.well-known/openid-configuration";
/// The scope the OAuth 2.0 scheme's requirement lists.
pub const OAUTH_SCOPE: &str = "agent.use";

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLocation {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
    /// A cookie.
    Cookie,
}

impl KeyLocation {
    fn as_str(self) -> &'static str {
        match self {
            KeyLocation::Header => "header",
            KeyLocation::Query => "query",
            KeyLocation::Cookie => "cookie",
        }
    }
}

/// The OAuth 2.0 client credentials an agent accepts at its embedded token endpoint.
#[derive(Debug, Clone)]
pub struct OAuth2Guard {
    /// The client id.
    pub client_id: String,
    /// The client secret.
    pub client_secret: String,
    /// How long an issued token is accepted.
    pub token_lifetime: Duration,
    /// The `expires_in` the token endpoint announces (may differ from the real lifetime, to test
    /// a client that learns of the expiry from a 401).
    pub announced_lifetime: Duration,
    /// The card names an OpenID Connect scheme (discovery at [`OPENID_CONFIGURATION_PATH`])
    /// instead of an OAuth 2.0 scheme with the token URL in its flow.
    pub openid_connect: bool,
}

/// What an agent requires before it answers A2A requests.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Guard {
    /// `Authorization: Bearer <token>` (scheme `bearer`).
    Bearer {
        /// The token accepted.
        token: String,
    },
    /// An API key (scheme `apiKey`).
    ApiKey {
        /// Where it goes.
        location: KeyLocation,
        /// The header, query parameter or cookie name.
        name: String,
        /// The key accepted.
        key: String,
    },
    /// HTTP basic (scheme `basic`).
    Basic {
        /// The user accepted.
        username: String,
        /// Their password.
        password: String,
    },
    /// A bearer token issued by the embedded token endpoint (scheme `oauth`).
    OAuth2(OAuth2Guard),
    /// A client certificate signed by the agent's [`TestPki`] CA (scheme `mtls`); needs
    /// [`ScriptedAgentBuilder::tls`](crate::ScriptedAgentBuilder::tls).
    MutualTls,
}

impl Guard {
    /// A bearer token guard.
    pub fn bearer(token: impl Into<String>) -> Self {
        Guard::Bearer { token: token.into() }
    }

    /// An API key guard.
    pub fn api_key(location: KeyLocation, name: impl Into<String>, key: impl Into<String>) -> Self {
        Guard::ApiKey { location, name: name.into(), key: key.into() }
    }

    /// An HTTP basic guard.
    pub fn basic(username: impl Into<String>, password: impl Into<String>) -> Self {
        Guard::Basic { username: username.into(), password: password.into() }
    }

    /// An OAuth 2.0 client credentials guard whose tokens live `token_lifetime` (and say so).
    pub fn oauth2(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        token_lifetime: Duration,
    ) -> Self {
        Guard::OAuth2(OAuth2Guard {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            token_lifetime,
            announced_lifetime: token_lifetime,
            openid_connect: false,
        })
    }

    /// The scheme name the card uses for this guard.
    pub fn scheme_name(&self) -> &'static str {
        match self {
            Guard::Bearer { .. } => "bearer",
            Guard::ApiKey { .. } => "apiKey",
            Guard::Basic { .. } => "basic",
            Guard::OAuth2(o) if o.openid_connect => "oidc",
            Guard::OAuth2(_) => "oauth",
            Guard::MutualTls => "mtls",
        }
    }
}

/// The guard, the tokens it issued and the extended card, as one agent holds them.
#[derive(Debug)]
pub(crate) struct Gate {
    pub(crate) guard: Option<Guard>,
    pub(crate) extended_card: Option<Value>,
    issued: Mutex<HashMap<String, Instant>>,
}

impl Gate {
    pub(crate) fn new(guard: Option<Guard>, extended_card: Option<Value>) -> Self {
        Self { guard, extended_card, issued: Mutex::default() }
    }

    fn issued(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.issued.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `None` when the request may proceed, else the 401 to answer.
    pub(crate) fn check(&self, headers: &HeaderMap, query: Option<&str>) -> Option<Response> {
        let guard = self.guard.as_ref()?;
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let bearer = || header("authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::trim);
        let admitted = match guard {
            Guard::Bearer { token } => bearer() == Some(token.as_str()),
            Guard::ApiKey { location, name, key } => match location {
                KeyLocation::Header => header(name) == Some(key.as_str()),
                KeyLocation::Query => crate::query::query_value(query, name).as_deref() == Some(key.as_str()),
                KeyLocation::Cookie => header("cookie").is_some_and(|cookies| {
                    cookies
                        .split(';')
                        .any(|c| c.trim().split_once('=') == Some((name.as_str(), key.as_str())))
                }),
            },
            Guard::Basic { username, password } => header("authorization")
                .and_then(|v| v.strip_prefix("Basic "))
                .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b.trim()).ok())
                .is_some_and(|decoded| decoded == format!("{username}:{password}").as_bytes()),
            Guard::OAuth2(_) => bearer().is_some_and(|token| {
                self.issued().get(token).is_some_and(|expires| Instant::now() < *expires)
            }),
            // The TLS handshake already checked the client certificate.
            Guard::MutualTls => true,
        };
        if admitted {
            return None;
        }
        let challenge = match guard {
            Guard::Basic { .. } => "Basic realm=\"a2a-testkit\"",
            Guard::ApiKey { .. } | Guard::MutualTls => "ApiKey realm=\"a2a-testkit\"",
            _ => "Bearer realm=\"a2a-testkit\"",
        };
        Some(
            (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)], "Unauthorized")
                .into_response(),
        )
    }

    /// The token endpoint and discovery document, when `path` is one of them.
    pub(crate) fn serve(
        &self,
        base_url: &str,
        path: &str,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Option<Response> {
        let Some(Guard::OAuth2(oauth)) = &self.guard else { return None };
        if path == OPENID_CONFIGURATION_PATH {
            let document = json!({
                "issuer": base_url,
                "token_endpoint": format!("{base_url}{TOKEN_PATH}"),
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]
            });
            return Some(
                ([(header::CONTENT_TYPE, "application/json")], document.to_string()).into_response(),
            );
        }
        if path != TOKEN_PATH {
            return None;
        }
        let form: HashMap<String, String> = form_pairs(body);
        let from_header = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b.trim()).ok())
            .and_then(|d| String::from_utf8(d).ok())
            .and_then(|d| d.split_once(':').map(|(i, s)| (form_decode(i), form_decode(s))));
        let from_form = form.get("client_id").cloned().zip(form.get("client_secret").cloned());
        let client = from_header.or(from_form);
        let refuse = |error: &str| {
            let body = json!({"error": error}).to_string();
            (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        };
        if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
            return Some(refuse("unsupported_grant_type"));
        }
        if client != Some((oauth.client_id.clone(), oauth.client_secret.clone())) {
            return Some(refuse("invalid_client"));
        }
        let token = format!("tk-{}", uuid::Uuid::new_v4().simple());
        self.issued().insert(token.clone(), Instant::now() + oauth.token_lifetime);
        let answer = json!({
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": oauth.announced_lifetime.as_secs(),
            "scope": form.get("scope").cloned().unwrap_or_default()
        });
        Some(([(header::CONTENT_TYPE, "application/json")], answer.to_string()).into_response())
    }
}

fn form_decode(text: &str) -> String {
    form_pairs(format!("v={text}").as_bytes()).remove("v").unwrap_or_default()
}

fn form_pairs(body: &[u8]) -> HashMap<String, String> {
    let text = String::from_utf8_lossy(body);
    let url = format!("http://form.invalid/?{text}");
    reqwest::Url::parse(&url).map(|u| u.query_pairs().into_owned().collect()).unwrap_or_default()
}

/// Adds the guard's `securitySchemes` and `securityRequirements`, and `extendedAgentCard`, to a
/// 1.0 card.
pub(crate) fn decorate_card(card: &mut Value, guard: Option<&Guard>, base_url: &str, extended: bool) {
    if extended {
        card["capabilities"]["extendedAgentCard"] = json!(true);
    }
    let Some(guard) = guard else { return };
    let scheme = match guard {
        Guard::Bearer { .. } => json!({"httpAuthSecurityScheme": {"scheme": "Bearer"}}),
        Guard::Basic { .. } => json!({"httpAuthSecurityScheme": {"scheme": "Basic"}}),
        Guard::ApiKey { location, name, .. } => {
            json!({"apiKeySecurityScheme": {"location": location.as_str(), "name": name}})
        }
        Guard::OAuth2(oauth) if oauth.openid_connect => json!({"openIdConnectSecurityScheme": {
            "openIdConnectUrl": format!("{base_url}{OPENID_CONFIGURATION_PATH}")}}),
        Guard::OAuth2(_) => json!({"oauth2SecurityScheme": {"flows": {"clientCredentials": {
            "tokenUrl": format!("{base_url}{TOKEN_PATH}"),
            "scopes": {OAUTH_SCOPE: "use the agent"}}}}}),
        Guard::MutualTls => json!({"mtlsSecurityScheme": {}}),
    };
    let name = guard.scheme_name();
    let scopes = if matches!(guard, Guard::OAuth2(_)) { json!([OAUTH_SCOPE]) } else { json!([]) };
    card["securitySchemes"] = json!({ name: scheme });
    card["securityRequirements"] = json!([{"schemes": {name: {"list": scopes}}}]);
}
