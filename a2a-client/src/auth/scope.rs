//! Where credentials may go: the origin (scheme, host, port) of the agent they were given for, and
//! the origins the user allowed with
//! [`ClientBuilder::allow_credential_origin`](crate::ClientBuilder::allow_credential_origin).
//!
//! Every URL a card names is a redirect the agent chose: an interface, the extended card behind it,
//! a token endpoint, an OpenID Connect discovery document. A browser scopes credentials by origin,
//! and a redirect to another origin loses `Authorization`; this is the same rule for those URLs.

use std::fmt;
use std::sync::Arc;

use url::{Origin, Url};

use crate::Error;
use crate::agent_url::AgentBaseUrl;

/// The origins one agent's credentials may be sent to.
#[derive(Clone)]
pub(crate) struct CredentialScope {
    agent: Origin,
    /// `agent` serialized (`http://127.0.0.1:43100`): a request URI spelled the same way is on it,
    /// known without parsing (every request of a connection asks).
    agent_text: Arc<str>,
    allowed: Arc<[Origin]>,
}

impl fmt::Debug for CredentialScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allowed: Vec<String> = self.allowed.iter().map(Origin::ascii_serialization).collect();
        f.debug_struct("CredentialScope")
            .field("agent", &self.agent.ascii_serialization())
            .field("allowed", &allowed)
            .finish()
    }
}

impl CredentialScope {
    /// The scope of credentials given for `agent`, widened by the user's `allowed` origins.
    pub(crate) fn new(agent: &AgentBaseUrl, allowed: Arc<[Origin]>) -> Self {
        // An agent base URL is an absolute http(s) URL by construction; an opaque origin (never
        // equal to any other) would only make the scope narrower.
        let agent = Url::parse(agent.as_str()).map_or_else(|_| Origin::new_opaque(), |u| u.origin());
        let agent_text = if agent.is_tuple() { agent.ascii_serialization().into() } else { Arc::from("") };
        Self { agent, agent_text, allowed }
    }

    /// The agent's origin, serialized (`http://127.0.0.1:43100`).
    pub(crate) fn agent_origin(&self) -> String {
        self.agent.ascii_serialization()
    }

    /// Whether `url` is on the agent's origin or an allowed one.
    pub(crate) fn admits(&self, url: &Url) -> bool {
        self.admits_origin(&url.origin())
    }

    fn admits_origin(&self, origin: &Origin) -> bool {
        origin.is_tuple() && (*origin == self.agent || self.allowed.contains(origin))
    }

    /// As [`CredentialScope::admits`], for a request URI. A URI written as the agent's origin
    /// serializes (the interface's own, as a rule) is admitted without parsing; any other spelling
    /// is parsed and compared as an origin.
    pub(crate) fn admits_uri(&self, uri: &http::Uri) -> bool {
        if let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority())
            && !self.agent_text.is_empty()
            && self
                .agent_text
                .strip_prefix(scheme)
                .and_then(|rest| rest.strip_prefix("://"))
                .is_some_and(|rest| rest == authority.as_str())
        {
            return true;
        }
        crate::net::uri_origin(uri).is_some_and(|origin| self.admits_origin(&origin))
    }

    /// Why a credential was withheld from `what` at `url`, and how to allow it; names origins,
    /// never a credential.
    pub(crate) fn withheld(&self, what: &str, url: &Url) -> String {
        let origin = url.origin().ascii_serialization();
        format!(
            "credentials withheld: {what} {} is on origin {origin}, not {}, the agent's origin they were \
             given for; to send them there, allow that origin with ClientBuilder::allow_credential_origin \
             (a2a: --allow-credential-origin {origin})",
            crate::error::redact_url(url.as_str()),
            self.agent.ascii_serialization(),
        )
    }

    /// Checks that `url`, named by `what`, may receive the credentials.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Auth`] saying the credentials were withheld, and how to allow the origin.
    pub(crate) fn check(&self, what: &str, url: &Url) -> Result<(), Error> {
        if self.admits(url) {
            return Ok(());
        }
        Err(Error::auth(None, self.withheld(what, url)).with_url(url.as_str()))
    }
}

/// The origin of `url`, for the allowed list.
///
/// # Errors
/// [`crate::ErrorKind::Config`] when `url` is not an absolute http(s) URL.
pub(crate) fn origin_of(url: &str) -> Result<Origin, Error> {
    let parsed = Url::parse(url).map_err(|e| {
        Error::config(format!("credential origin {} is not a url: {e}", crate::error::redact_url(url)))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(Error::config(format!(
            "credential origin {} must be an http or https url with a host",
            crate::error::redact_url(url)
        )));
    }
    Ok(parsed.origin())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(agent: &str, allowed: &[&str]) -> CredentialScope {
        let allowed: Vec<Origin> = allowed.iter().map(|u| origin_of(u).unwrap()).collect();
        CredentialScope::new(&AgentBaseUrl::parse(agent).unwrap(), allowed.into())
    }

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn the_agents_origin_is_scheme_host_and_port() {
        let scope = scope("http://127.0.0.1:43100/agent", &[]);
        assert!(scope.admits(&url("http://127.0.0.1:43100/a2a/rpc")));
        assert!(!scope.admits(&url("http://127.0.0.1:43101/a2a")), "another port");
        assert!(!scope.admits(&url("https://127.0.0.1:43100/a2a")), "another scheme");
        assert!(!scope.admits(&url("http://127.0.0.2:43100/a2a")), "another host");
        let default_port = self::scope("https://agent.example", &[]);
        assert!(default_port.admits(&url("https://agent.example:443/x")), "the default port is the port");
    }

    #[test]
    fn allowed_origins_widen_the_scope_by_origin_only() {
        let scope = scope("http://127.0.0.1:43100", &["http://127.0.0.1:43101/any/path?q=1"]);
        assert!(scope.admits(&url("http://127.0.0.1:43101/oauth/token")));
        assert!(!scope.admits(&url("http://127.0.0.1:43102/oauth/token")));
        assert!(scope.admits_uri(&"http://127.0.0.1:43101/a2a".parse().unwrap()));
        assert!(!scope.admits_uri(&"/a2a".parse().unwrap()), "a relative uri names no origin");
    }

    proptest::proptest! {
        /// The unparsed reading of a request URI on the agent's own spelling says what parsing it
        /// says, for every spelling of scheme, userinfo, host and port.
        #[test]
        fn a_request_uri_is_admitted_exactly_when_its_origin_is(
            agent in proptest::sample::select(vec![
                "http://127.0.0.1:43100", "https://agent.example", "http://[::1]:8080", "https://xn--bcher-kva.example:8443",
            ]),
            scheme in proptest::sample::select(vec!["http", "https", "HTTP"]),
            userinfo in proptest::sample::select(vec!["", "u@", "u:pw@"]),
            host in proptest::sample::select(vec![
                "127.0.0.1", "agent.example", "AGENT.example", "[::1]", "[0:0::1]", "xn--bcher-kva.example", "127.0.0.2",
            ]),
            port in proptest::sample::select(vec!["", ":43100", ":443", ":80", ":8080", ":8443"]),
        ) {
            let scope = scope(agent, &[]);
            let text = format!("{scheme}://{userinfo}{host}{port}/a2a");
            let Ok(uri) = text.parse::<http::Uri>() else { return Ok(()) };
            let parsed = crate::net::uri_origin(&uri).is_some_and(|o| scope.admits_origin(&o));
            proptest::prop_assert_eq!(scope.admits_uri(&uri), parsed, "{}", text);
        }
    }

    #[test]
    fn a_withheld_credential_says_where_and_how_to_allow_it() {
        let scope = scope("http://127.0.0.1:43100", &[]);
        let err = scope.check("the interface", &url("http://u:pw@127.0.0.1:43101/a2a?k=v")).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Auth);
        let shown = err.to_string();
        assert!(shown.contains("withheld") && shown.contains("http://127.0.0.1:43101"), "{shown}");
        assert!(shown.contains("allow_credential_origin") && !shown.contains("pw"), "{shown}");
    }

    #[test]
    fn allowed_origins_must_be_http_urls() {
        for bad in ["not a url", "file:///etc/passwd", "mailto:a@b.example"] {
            assert_eq!(origin_of(bad).unwrap_err().kind(), crate::ErrorKind::Config, "{bad}");
        }
    }
}
