//! The auth layer: an [`Interceptor`] that asks each scheme's provider for its credential and puts
//! it where the card's scheme says, on requests to the origins the credential scope admits, and the
//! one resend after a 401 and a refresh.

use std::time::Duration;

use a2a_typestate_types::v1::SecurityScheme;
use base64::Engine as _;
use futures::future::BoxFuture;
use http::header::{AUTHORIZATION, COOKIE, HeaderName, HeaderValue};
use url::Url;

use super::intercept::{Interceptor, RequestContext};
use super::provider::{Credential, CredentialRequest};
use super::scope::CredentialScope;
use super::select::{PlannedScheme, Selection, describe};
use crate::Error;
use crate::agent_url::AgentBaseUrl;
use crate::url_policy::UrlPolicy;

/// What a connection's credentials take from the client that opens it.
pub(crate) struct ClientSide<'a> {
    pub(crate) auth: &'a super::ClientAuth,
    pub(crate) http: &'a crate::net::HttpClient,
    pub(crate) request_timeout: Duration,
    pub(crate) url_policy: UrlPolicy,
}

/// The credentials of one connection, attached to each of its requests.
#[derive(Debug)]
pub(crate) struct AuthLayer {
    pub(crate) agent: AgentBaseUrl,
    pub(crate) selection: Selection,
    pub(crate) http: crate::net::HttpClient,
    pub(crate) timeout: Duration,
    /// The origins the credentials may go to.
    pub(crate) scope: CredentialScope,
    /// The client's URL policy, for the URLs providers contact (token and discovery endpoints).
    pub(crate) policy: UrlPolicy,
    /// Why nothing is sent, when the interface is on an origin outside the scope.
    pub(crate) withheld: Option<String>,
}

impl AuthLayer {
    /// The credentials of a connection to `agent` through the interface at `interface`: withheld
    /// when that interface is on another origin than the agent's and the user allowed none such.
    pub(crate) fn new(
        client: ClientSide<'_>,
        agent: AgentBaseUrl,
        selection: Selection,
        interface: &Url,
    ) -> Self {
        let scope = CredentialScope::new(&agent, client.auth.allowed_origins.clone());
        let carries_any = selection.schemes.iter().any(|p| p.provider.is_some());
        let withheld = (carries_any && !scope.admits(interface)).then(|| {
            let reason = scope.withheld("the card's interface", interface);
            tracing::warn!(agent = %agent.as_str(), %reason, "sending no credentials to this interface");
            reason
        });
        Self {
            agent,
            selection,
            http: client.http.clone(),
            timeout: client.request_timeout,
            scope,
            policy: client.url_policy,
            withheld,
        }
    }

    /// The error saying the credentials were withheld from `url`, the interface, when they were.
    pub(crate) fn withheld_error(&self, url: &str) -> Option<Error> {
        self.withheld.as_ref().map(|why| Error::auth(None, why.clone()).with_url(url))
    }

    /// Whether any credential is sent at all (none when they are withheld from the interface).
    pub(crate) fn sends_credentials(&self) -> bool {
        !self.selection.schemes.is_empty() && self.withheld.is_none()
    }

    fn request_for<'a>(&'a self, planned: &'a PlannedScheme) -> CredentialRequest<'a> {
        CredentialRequest {
            agent: &self.agent,
            scheme_name: &planned.name,
            scheme: &planned.scheme,
            scopes: &planned.scopes,
            http: &self.http,
            timeout: self.timeout,
            scope: &self.scope,
            policy: self.policy,
        }
    }

    /// After a 401: asks each provider to refresh; whether a resend may succeed.
    pub(crate) fn refresh_after_rejection(&self) -> bool {
        let mut refreshed = false;
        for planned in &self.selection.schemes {
            if let Some(provider) = &planned.provider {
                refreshed |= provider.refresh_after_rejection(&self.request_for(planned));
            }
        }
        refreshed
    }

    /// The error for a 401 or 403 answer: what was sent (scheme names only) and what the card asks.
    pub(crate) fn rejected(&self, status: u16, url: &str) -> Error {
        let what = if status == 401 { "rejected the credentials" } else { "refused access" };
        let sent = if let Some(withheld) = &self.withheld {
            format!("no credentials were sent: {withheld}")
        } else if self.selection.schemes.is_empty() {
            "no credentials were sent".to_owned()
        } else {
            let names: Vec<String> =
                self.selection.schemes.iter().map(|p| describe(&p.name, Some(&p.scheme))).collect();
            format!("sent: {}", names.join(" + "))
        };
        let asked = if self.selection.asked.is_empty() {
            "the card asks for none".to_owned()
        } else {
            format!("the card asks for: {}", self.selection.asked)
        };
        Error::auth(Some(status), format!("the agent {what} with http {status} ({sent}; {asked})"))
            .with_url(url)
    }
}

impl Interceptor for AuthLayer {
    fn before<'a>(
        &'a self,
        request: &'a mut crate::net::Request,
        _context: &'a RequestContext<'a>,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            // Every request is checked, not only the interface: whatever URL a connection ends up
            // sending to, credentials go only where the scope admits.
            if self.withheld.is_some() || !self.scope.admits_uri(request.uri()) {
                return Ok(());
            }
            for planned in &self.selection.schemes {
                let Some(provider) = &planned.provider else { continue };
                let credential = provider.credential(&self.request_for(planned)).await?;
                place(request, planned, credential)?;
            }
            Ok(())
        })
    }
}

/// `Basic base64(user:password)`, marked sensitive.
pub(crate) fn basic_value(username: &str, password: &str) -> Result<HeaderValue, Error> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"));
    sensitive(&format!("Basic {encoded}"))
}

fn sensitive(value: &str) -> Result<HeaderValue, Error> {
    let mut value = HeaderValue::from_str(value)
        .map_err(|_| Error::config("a credential holds characters an http header cannot carry"))?;
    value.set_sensitive(true);
    Ok(value)
}

fn mismatch(planned: &PlannedScheme) -> Error {
    Error::config(format!(
        "the credential supplied for {} does not fit that kind of scheme",
        describe(&planned.name, Some(&planned.scheme))
    ))
}

/// Adds `name=value` to the request's query, form-encoded, after any pairs it has.
fn append_query_pair(request: &mut crate::net::Request, name: &str, value: &str) -> Result<(), Error> {
    let uri = request.uri();
    let pair: String = url::form_urlencoded::Serializer::new(String::new()).append_pair(name, value).finish();
    let path = uri.path();
    let joined = match uri.query().filter(|q| !q.is_empty()) {
        Some(query) => format!("{path}?{query}&{pair}"),
        None => format!("{path}?{pair}"),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(
        joined.parse().map_err(|_| Error::config("an api key cannot be carried in the request's query"))?,
    );
    *request.uri_mut() = http::Uri::from_parts(parts)
        .map_err(|_| Error::config("an api key cannot be carried in the request's query"))?;
    Ok(())
}

/// Puts `credential` where `planned`'s scheme says.
fn place(
    request: &mut crate::net::Request,
    planned: &PlannedScheme,
    credential: Credential,
) -> Result<(), Error> {
    match (&planned.scheme, credential) {
        (SecurityScheme::ApiKey(key), Credential::ApiKey(secret)) => match key
            .location
            .to_ascii_lowercase()
            .as_str()
        {
            "header" => {
                let name = HeaderName::from_bytes(key.name.as_bytes()).map_err(|_| {
                    Error::config(format!("api key header name {:?} is not a valid header name", key.name))
                })?;
                request.headers_mut().insert(name, sensitive(secret.expose())?);
                Ok(())
            }
            "query" => append_query_pair(request, &key.name, secret.expose()),
            "cookie" => {
                let pair = format!("{}={}", key.name, secret.expose());
                let joined = match request.headers().get(COOKIE).and_then(|v| v.to_str().ok()) {
                    Some(existing) if !existing.is_empty() => format!("{existing}; {pair}"),
                    _ => pair,
                };
                request.headers_mut().insert(COOKIE, sensitive(&joined)?);
                Ok(())
            }
            other => Err(Error::config(format!(
                "api key scheme {} puts its key in {other:?}, not header, query or cookie",
                planned.name
            ))),
        },
        (SecurityScheme::HttpAuth(http), Credential::Basic { username, password })
            if http.scheme.eq_ignore_ascii_case("basic") =>
        {
            request.headers_mut().insert(AUTHORIZATION, basic_value(&username, password.expose())?);
            Ok(())
        }
        (SecurityScheme::HttpAuth(http), Credential::Token(token)) => {
            let scheme =
                if http.scheme.eq_ignore_ascii_case("bearer") { "Bearer" } else { http.scheme.as_str() };
            request.headers_mut().insert(AUTHORIZATION, sensitive(&format!("{scheme} {}", token.expose()))?);
            Ok(())
        }
        (SecurityScheme::OAuth2(_) | SecurityScheme::OpenIdConnect(_), Credential::Token(token)) => {
            request.headers_mut().insert(AUTHORIZATION, sensitive(&format!("Bearer {}", token.expose()))?);
            Ok(())
        }
        _ => Err(mismatch(planned)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::v1::{APIKeySecurityScheme, HTTPAuthSecurityScheme};

    use crate::auth::Secret;

    fn planned(scheme: SecurityScheme) -> PlannedScheme {
        PlannedScheme { name: "s".into(), scheme, scopes: Vec::new(), provider: None }
    }

    fn key_in(location: &str) -> PlannedScheme {
        planned(SecurityScheme::ApiKey(APIKeySecurityScheme {
            location: location.into(),
            name: "k".into(),
            ..Default::default()
        }))
    }

    fn request(url: &str) -> crate::net::Request {
        let mut request = crate::net::Request::new(bytes::Bytes::new());
        *request.method_mut() = http::Method::POST;
        *request.uri_mut() = url.parse().unwrap();
        request
    }

    #[test]
    fn api_keys_join_existing_queries_and_cookies_and_headers_are_sensitive() {
        let mut req = request("http://a.example/rest/tasks?historyLength=1");
        place(&mut req, &key_in("query"), Credential::ApiKey(Secret::new("v 1"))).unwrap();
        assert_eq!(req.uri().query(), Some("historyLength=1&k=v+1"));
        req.headers_mut().insert(COOKIE, HeaderValue::from_static("session=abc"));
        place(&mut req, &key_in("cookie"), Credential::ApiKey(Secret::new("v2"))).unwrap();
        assert_eq!(req.headers()[COOKIE], "session=abc; k=v2");
        place(&mut req, &key_in("Header"), Credential::ApiKey(Secret::new("v3"))).unwrap();
        assert_eq!(req.headers()["k"], "v3");
        assert!(req.headers()["k"].is_sensitive() && req.headers()[COOKIE].is_sensitive());
        assert!(place(&mut req, &key_in("body"), Credential::ApiKey(Secret::new("v"))).is_err());
    }

    #[test]
    fn http_schemes_write_authorization_in_their_own_words() {
        let http = |scheme: &str| {
            planned(SecurityScheme::HttpAuth(HTTPAuthSecurityScheme {
                scheme: scheme.into(),
                ..Default::default()
            }))
        };
        let mut req = request("http://a.example/");
        let basic = Credential::Basic { username: "aladdin".into(), password: Secret::new("opensesame") };
        place(&mut req, &http("Basic"), basic).unwrap();
        assert_eq!(req.headers()[AUTHORIZATION], "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "RFC 7617's example");
        place(&mut req, &http("bearer"), Credential::Token(Secret::new("t"))).unwrap();
        assert_eq!(req.headers()[AUTHORIZATION], "Bearer t");
        place(&mut req, &http("DPoP"), Credential::Token(Secret::new("t"))).unwrap();
        assert_eq!(req.headers()[AUTHORIZATION], "DPoP t");
        let err = place(&mut req, &key_in("header"), Credential::Token(Secret::new("secret-t"))).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Config);
        assert!(!err.to_string().contains("secret-t"));
    }
}
