//! Which URLs a card may send the client to: where card-fetch redirects may lead, and which hosts
//! interface, push, token and discovery URLs may name.
//!
//! A card is written by whoever serves it, so every URL in it (and every redirect on the way to it) is
//! checked before it is contacted:
//!
//! - card-fetch redirects are followed within the same origin only ([`CardRedirects::SameOrigin`],
//!   the default); [`CardRedirects::AnyOrigin`] opts in to others, still checked below. The card is
//!   credited to the URL it really came from ([`DiscoveredCard::source_url`](crate::DiscoveredCard::source_url)).
//! - addresses: link-local (`169.254.0.0/16`, `fe80::/10`) and cloud-metadata addresses
//!   (`169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`, `metadata.google.internal`...) are refused
//!   always; loopback and private ranges are allowed by [`AddressPolicy::Default`] (local agents and
//!   tests live there) and refused by [`AddressPolicy::Strict`], as are unspecified addresses.
//! - schemes other than http and https are refused.
//!
//! The address rules apply to every URL the client contacts for a card: interfaces, push URLs it
//! hands the agent, and the OAuth 2.0 token endpoints, RFC 8414 metadata and OpenID Connect
//! discovery documents a card's security schemes name (and the token endpoint such a document
//! names), each checked before any byte is sent. Where credentials may go besides is a second
//! rule, the credential scope (see [`crate::auth`]).
//!
//! Host names are checked as written; a name that resolves to a refused address is not caught here
//! (use a resolver or a proxy that enforces the same rule when that matters).
//!
//! ```
//! use a2a_typestate_client::url_policy::{AddressPolicy, UrlPolicy};
//!
//! let policy = UrlPolicy::default();
//! assert!(policy.check("http://127.0.0.1:8080/a2a").is_ok());
//! assert!(policy.check("http://169.254.169.254/latest/meta-data").is_err());
//! assert!(policy.check("file:///etc/passwd").is_err());
//! let strict = UrlPolicy::default().addresses(AddressPolicy::Strict);
//! assert!(strict.check("http://10.0.0.8/a2a").is_err());
//! ```

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::Error;

/// Where card-fetch redirects may lead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CardRedirects {
    /// Only to the same origin (scheme, host and port) as the URL asked for (the default).
    #[default]
    SameOrigin,
    /// To any origin the [`AddressPolicy`] allows.
    AnyOrigin,
}

/// Which hosts URLs from cards and redirects may name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressPolicy {
    /// Refuses link-local and cloud-metadata addresses; allows loopback and private ranges (the default).
    #[default]
    Default,
    /// Also refuses loopback, private (`10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`) and
    /// unspecified addresses, and `localhost`: for clients that only ever talk to public agents.
    Strict,
}

/// The URL policy of a client: card redirects and addresses. See the [module docs](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    redirects: CardRedirects,
    addresses: AddressPolicy,
}

/// Host names of cloud metadata services, refused whatever the policy.
const METADATA_HOSTS: [&str; 3] = ["metadata.google.internal", "metadata", "metadata.azure.internal"];

impl UrlPolicy {
    /// Sets where card-fetch redirects may lead.
    #[must_use]
    pub fn card_redirects(mut self, redirects: CardRedirects) -> Self {
        self.redirects = redirects;
        self
    }

    /// Sets which addresses URLs may name.
    #[must_use]
    pub fn addresses(mut self, addresses: AddressPolicy) -> Self {
        self.addresses = addresses;
        self
    }

    /// Where card-fetch redirects may lead.
    pub fn redirects(&self) -> CardRedirects {
        self.redirects
    }

    /// Which addresses URLs may name.
    pub fn address_policy(&self) -> AddressPolicy {
        self.addresses
    }

    /// Checks `url` (absolute) against the policy.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] naming the URL and the rule it breaks.
    pub fn check(&self, url: &str) -> Result<(), Error> {
        let parsed = url::Url::parse(url).map_err(|e| Error::config(format!("{url} is not a url: {e}")))?;
        self.check_url(&parsed)
    }

    /// Checks `url`, which may be relative, as resolved against `base` (a card's URL, for the
    /// interface URLs it lists).
    ///
    /// # Errors
    /// As [`UrlPolicy::check`].
    pub fn check_relative(&self, base: &str, url: &str) -> Result<(), Error> {
        let base = url::Url::parse(base).map_err(|e| Error::config(format!("{base} is not a url: {e}")))?;
        let joined = base.join(url).map_err(|e| Error::config(format!("{url} is not a url: {e}")))?;
        self.check_url(&joined)
    }

    pub(crate) fn check_url(&self, url: &url::Url) -> Result<(), Error> {
        match self.refusal(url) {
            Some(why) => Err(Error::config(format!("the url policy refuses {}: {why}", redact(url)))),
            None => Ok(()),
        }
    }

    /// Why `url` is refused, if it is.
    pub(crate) fn refusal(&self, url: &url::Url) -> Option<&'static str> {
        if !matches!(url.scheme(), "http" | "https") {
            return Some("only http and https urls are contacted");
        }
        let strict = self.addresses == AddressPolicy::Strict;
        let Some(host) = url.host_str() else { return Some("the url has no host") };
        let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        match literal.parse::<IpAddr>() {
            Ok(ip) => refused_ip(ip, strict),
            Err(_) => {
                let name = host;
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                if METADATA_HOSTS.contains(&name.as_str()) {
                    Some("a cloud metadata host")
                } else if strict && (name == "localhost" || name.ends_with(".localhost")) {
                    Some("a loopback host, refused by the strict address policy")
                } else {
                    None
                }
            }
        }
    }

    /// Why a connection to `address` is refused, if it is: the same ranges as a literal address in
    /// a URL, checked on every address a host name resolves to before it is connected to.
    pub(crate) fn refused_address(&self, address: IpAddr) -> Option<&'static str> {
        refused_ip(address, self.addresses == AddressPolicy::Strict)
    }

    /// Whether a redirect from `first` (the URL asked for) to `next` is followed.
    pub(crate) fn follows_card_redirect(&self, first: &url::Url, next: &url::Url) -> bool {
        let origin_ok = self.redirects == CardRedirects::AnyOrigin || first.origin() == next.origin();
        origin_ok && self.refusal(next).is_none()
    }
}

fn redact(url: &url::Url) -> String {
    crate::error::redact_url(url.as_str())
}

fn refused_ip(ip: IpAddr, strict: bool) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => refused_v4(v4, strict),
        IpAddr::V6(v6) => refused_v6(v6, strict),
    }
}

fn refused_v4(ip: Ipv4Addr, strict: bool) -> Option<&'static str> {
    if ip == Ipv4Addr::new(169, 254, 169, 254) || ip == Ipv4Addr::new(100, 100, 100, 200) {
        return Some("a cloud metadata address");
    }
    if ip.is_link_local() {
        return Some("a link-local address");
    }
    if strict {
        let [a, b, ..] = ip.octets();
        let shared = a == 100 && (64..128).contains(&b);
        if ip.is_loopback() {
            return Some("a loopback address, refused by the strict address policy");
        }
        if ip.is_private() || shared || ip.is_unspecified() || ip.is_broadcast() {
            return Some("a private address, refused by the strict address policy");
        }
    }
    None
}

fn refused_v6(ip: Ipv6Addr, strict: bool) -> Option<&'static str> {
    let segments = ip.segments();
    if segments == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        return Some("a cloud metadata address");
    }
    if segments[0] & 0xffc0 == 0xfe80 {
        return Some("a link-local address");
    }
    if strict {
        if ip.is_loopback() {
            return Some("a loopback address, refused by the strict address policy");
        }
        if segments[0] & 0xfe00 == 0xfc00 || ip.is_unspecified() {
            return Some("a private address, refused by the strict address policy");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn link_local_and_metadata_addresses_are_refused_by_default() {
        let policy = UrlPolicy::default();
        for refused in [
            "http://169.254.169.254/latest",
            "http://169.254.1.1:8080/",
            "http://[fe80::1]/",
            "http://[fd00:ec2::254]/",
            "http://[::ffff:169.254.169.254]/",
            "http://100.100.100.200/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "file:///etc/passwd",
            "ftp://a.example/",
        ] {
            assert!(policy.check(refused).is_err(), "{refused}");
        }
        for allowed in [
            "http://127.0.0.1:9/",
            "http://[::1]:9/",
            "http://10.1.2.3/",
            "https://a.example/",
            "http://localhost/",
        ] {
            assert!(policy.check(allowed).is_ok(), "{allowed}");
        }
    }

    #[test]
    fn the_strict_policy_refuses_loopback_and_private_ranges() {
        let strict = UrlPolicy::default().addresses(AddressPolicy::Strict);
        for refused in [
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://10.0.0.1/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://100.64.0.1/",
            "http://[fc00::1]/",
            "http://0.0.0.0/",
            "http://localhost/",
            "http://a.localhost/",
        ] {
            assert!(strict.check(refused).is_err(), "{refused}");
        }
        assert!(strict.check("https://agent.example/").is_ok());
        assert!(strict.check("http://172.32.0.1/").is_ok());
    }

    #[test]
    fn card_redirects_stay_within_the_origin_unless_opted_in() {
        let first = url("http://127.0.0.1:8000/.well-known/agent-card.json");
        let policy = UrlPolicy::default();
        assert!(policy.follows_card_redirect(&first, &url("http://127.0.0.1:8000/card.json")));
        assert!(
            !policy.follows_card_redirect(&first, &url("http://127.0.0.1:8001/card.json")),
            "another port"
        );
        let open = policy.card_redirects(CardRedirects::AnyOrigin);
        assert!(open.follows_card_redirect(&first, &url("http://127.0.0.1:8001/card.json")));
        assert!(!open.follows_card_redirect(&first, &url("http://169.254.169.254/")), "still checked");
    }

    #[test]
    fn refusals_name_the_url_without_its_secrets() {
        let err = UrlPolicy::default().check("http://user:pw@169.254.169.254/x?key=secret").unwrap_err();
        let shown = err.to_string();
        assert!(
            shown.contains("169.254.169.254") && !shown.contains("secret") && !shown.contains("pw"),
            "{shown}"
        );
    }
}
