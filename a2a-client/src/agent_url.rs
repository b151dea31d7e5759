//! An agent's URLs: the address it is known by ([`AgentBaseUrl`]), the well-known paths its card is
//! asked at, and where each interface its card offers is reached, resolved against the URL that
//! served the card.
//!
//! Below discovery, the connection and the signature check, which all name these.

use std::fmt;

use a2a_typestate_types::discovery::{OfferedInterface, ProtocolBinding};

use crate::Error;

/// The card path of protocol 0.3.0 and 1.0.
pub const AGENT_CARD_PATH: &str = ".well-known/agent-card.json";
/// The card path of protocol 0.2.x, tried when the current one is absent.
pub const LEGACY_AGENT_CARD_PATH: &str = ".well-known/agent.json";

/// An agent's address, normalised (http or https, no query, fragment, user info or trailing slash):
/// the key of the discovery cache and of the per-agent counters.
///
/// Usually the agent's base URL, under which the well-known card paths are asked; or the card's
/// own URL, when its path ends in a card file ([`card_path`](Self::card_path)).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentBaseUrl(String);

impl AgentBaseUrl {
    /// Checks and normalises `url`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] when `url` is not an absolute http or https URL, or carries
    /// credentials (they belong in headers, and would end up in cache keys and logs).
    pub fn parse(url: &str) -> Result<Self, Error> {
        let mut parsed =
            url::Url::parse(url).map_err(|e| Error::misuse(format!("agent base url is not a url: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::misuse(format!(
                "agent base url must be http or https, not {}",
                parsed.scheme()
            )));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(Error::misuse("agent base url must not carry credentials"));
        }
        parsed.set_query(None);
        parsed.set_fragment(None);
        Ok(Self(parsed.as_str().trim_end_matches('/').to_owned()))
    }

    /// The normalised URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `path` (relative, no leading slash) under this base.
    pub fn join(&self, path: &str) -> String {
        format!("{}/{}", self.0, path.trim_start_matches('/'))
    }

    /// Which card file this address names, when it is a card's own URL rather than a base URL: its
    /// last path segment is `agent-card.json` ([`WellKnownPath::AgentCard`]) or `agent.json`
    /// ([`WellKnownPath::LegacyAgent`]), under `/.well-known/` or elsewhere. Discovery then fetches
    /// this URL itself.
    ///
    /// ```
    /// use a2a_typestate_client::{AgentBaseUrl, WellKnownPath};
    ///
    /// let card = AgentBaseUrl::parse("http://host/api/agent-card.json")?;
    /// assert_eq!(card.card_path(), Some(WellKnownPath::AgentCard));
    /// assert_eq!(AgentBaseUrl::parse("http://host/agents/a")?.card_path(), None);
    /// # Ok::<(), a2a_typestate_client::Error>(())
    /// ```
    pub fn card_path(&self) -> Option<WellKnownPath> {
        let parsed = url::Url::parse(&self.0).ok()?;
        match parsed.path_segments()?.next_back()? {
            "agent-card.json" => Some(WellKnownPath::AgentCard),
            "agent.json" => Some(WellKnownPath::LegacyAgent),
            _ => None,
        }
    }
}

impl fmt::Debug for AgentBaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for AgentBaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which well-known path served a card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WellKnownPath {
    /// `/.well-known/agent-card.json` (0.3.0 and 1.0).
    AgentCard,
    /// `/.well-known/agent.json` (0.2.x), reached by fallback.
    LegacyAgent,
}

impl WellKnownPath {
    /// The path, relative to the agent's base URL.
    pub fn path(self) -> &'static str {
        match self {
            WellKnownPath::AgentCard => AGENT_CARD_PATH,
            WellKnownPath::LegacyAgent => LEGACY_AGENT_CARD_PATH,
        }
    }
}

/// Where `interface` is reached, its URL resolved against `base` (the card's URL).
///
/// A gRPC interface written `host:port` (the gRPC target form, which the official Python SDK's
/// samples put in cards) names a server, not a path under the card: it is reached as
/// `scheme://host:port`, the scheme the card was fetched with, so an https card never sends its
/// calls in clear. The 1.0 card wants an absolute URL there: the connection reports the deviation
/// ([`DeviationKind::GrpcTargetUrl`](a2a_typestate_types::tolerant::DeviationKind::GrpcTargetUrl)).
pub(crate) fn interface_url(base: &url::Url, interface: &OfferedInterface) -> Result<url::Url, Error> {
    let written = interface.url.as_str();
    if let Some(authority) = written_as_grpc_target(interface) {
        let scheme = if base.scheme() == "https" { "https" } else { "http" };
        return url::Url::parse(&format!("{scheme}://{authority}")).map_err(|e| {
            Error::protocol_answer(format!("grpc interface url {written} is not a host:port: {e}"))
        });
    }
    base.join(written)
        .map_err(|e| Error::protocol_answer(format!("interface url {written} is not a url: {e}")))
}

/// `text` when it is a bare gRPC target, `host:port` or `[v6]:port`, with no scheme and no path.
/// `true` when `interface`'s URL names no host of its own, so the URL that served the card picks
/// it: a path such as `/rpc`. A gRPC `host:port` names its host.
pub(crate) fn names_no_host(interface: &OfferedInterface) -> bool {
    let relative = matches!(url::Url::parse(&interface.url), Err(url::ParseError::RelativeUrlWithoutBase));
    relative && written_as_grpc_target(interface).is_none()
}

/// The gRPC target (`host:port`) a gRPC interface's URL is written as, instead of the absolute URL
/// 1.0 wants; `None` for any other interface.
pub(crate) fn written_as_grpc_target(interface: &OfferedInterface) -> Option<&str> {
    (interface.binding == ProtocolBinding::Grpc).then(|| grpc_target(&interface.url)).flatten()
}

fn grpc_target(text: &str) -> Option<&str> {
    let (host, port) = text.rsplit_once(':')?;
    let host_ok = if let Some(v6) = host.strip_prefix('[') {
        v6.strip_suffix(']').is_some_and(|v6| v6.parse::<std::net::Ipv6Addr>().is_ok())
    } else {
        !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    let port_ok = !port.is_empty() && port.len() <= 5 && port.chars().all(|c| c.is_ascii_digit());
    (host_ok && port_ok).then_some(text)
}

/// Where an address can be reached from, as far as its URL says: what tells a card that names
/// its agent's inside address from one that names an address a client elsewhere can call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// `localhost`, `127.0.0.0/8`, `::1`: the agent's own host.
    Loopback,
    /// `0.0.0.0` or `::`: an address a server binds to, not one a client can call.
    Unspecified,
    /// A private or shared range (`10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`), or
    /// a host name without a dot (a container's or service's name): the agent's own network.
    Internal,
    /// Anything else.
    Elsewhere,
}

fn reach_of(url: &url::Url) -> Reach {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => {
            let [a, b, ..] = ip.octets();
            if ip.is_loopback() {
                Reach::Loopback
            } else if ip.is_unspecified() {
                Reach::Unspecified
            } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
                Reach::Internal
            } else {
                Reach::Elsewhere
            }
        }
        Some(url::Host::Ipv6(ip)) => {
            if ip.is_loopback() {
                Reach::Loopback
            } else if ip.is_unspecified() {
                Reach::Unspecified
            } else if ip.segments()[0] & 0xfe00 == 0xfc00 {
                Reach::Internal
            } else {
                Reach::Elsewhere
            }
        }
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                Reach::Loopback
            } else if !name.contains('.') {
                Reach::Internal
            } else {
                Reach::Elsewhere
            }
        }
        None => Reach::Elsewhere,
    }
}

/// Whether the webhook at `webhook_url` is out of reach of an agent called at `agent_url`: a
/// loopback or private webhook handed to an agent elsewhere (a public address, or another host of
/// a private network for a loopback webhook). Its silence there is the client's vantage point, not
/// evidence against the agent's push claim.
pub(crate) fn webhook_out_of_reach(agent_url: &str, webhook_url: &str) -> bool {
    let (Ok(agent), Ok(webhook)) = (url::Url::parse(agent_url), url::Url::parse(webhook_url)) else {
        return false;
    };
    matches!(
        (reach_of(&agent), reach_of(&webhook)),
        (Reach::Elsewhere, Reach::Loopback | Reach::Internal | Reach::Unspecified)
            | (Reach::Internal, Reach::Loopback | Reach::Unspecified)
    )
}

/// Why an interface the card at `card_url` names could not be reached, when its URL says so plainly:
/// the card was served from one place and names an address inside the agent's host or network (a
/// container's `localhost`, `0.0.0.0`, a private address, a service name), which a client
/// elsewhere cannot call. `None` when the URL says nothing of the kind (both local, say).
pub(crate) fn inside_address_diagnosis(card_url: &str, interface_url: &str) -> Option<String> {
    let (card, interface) = (url::Url::parse(card_url).ok()?, url::Url::parse(interface_url).ok()?);
    let (from, named) = (reach_of(&card), reach_of(&interface));
    let what = match named {
        Reach::Unspecified => "0.0.0.0 (or ::) is an address a server binds to, not one a client can call",
        Reach::Loopback if from != Reach::Loopback => {
            "a loopback address: the agent's own host, from the agent's side"
        }
        Reach::Internal if from == Reach::Elsewhere => {
            "an address inside the agent's own network (a private range or a host name without a domain)"
        }
        _ => return None,
    };
    let origin = card.origin().ascii_serialization();
    Some(format!(
        "the card served from {origin} names {}: {what}, so a client elsewhere cannot reach it; the \
         agent's operator should list the URL clients use",
        crate::error::redact_url(interface.as_str())
    ))
}

/// The base URL for `url`: a card URL under `/.well-known/` loses that suffix, anything else is kept
/// (a card at another path, such as `/api/agent-card.json`, is then fetched as it is).
pub fn base_url_of(url: &str) -> &str {
    let trimmed = url.trim_end_matches('/');
    for path in [WellKnownPath::AgentCard, WellKnownPath::LegacyAgent] {
        if let Some(base) = trimmed.strip_suffix(path.path()) {
            return base.trim_end_matches('/');
        }
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn card_urls_are_reduced_to_their_agent_base() {
        assert_eq!(base_url_of("http://a.example/.well-known/agent-card.json"), "http://a.example");
        assert_eq!(base_url_of("http://a.example/x/.well-known/agent.json"), "http://a.example/x");
        assert_eq!(base_url_of("http://a.example/x/"), "http://a.example/x");
    }

    #[test]
    fn a_card_naming_its_agents_inside_address_gets_a_plain_diagnosis() {
        let public = "https://agent.example/.well-known/agent-card.json";
        for inside in [
            "http://localhost:9999/a2a",
            "http://127.0.0.1:8000/",
            "http://[::1]:8000/",
            "http://0.0.0.0:8000/",
            "http://10.1.2.3/a2a",
            "http://192.168.0.7/a2a",
            "http://agent-backend:8080/a2a",
        ] {
            let said = inside_address_diagnosis(public, inside).unwrap_or_default();
            assert!(
                said.contains("https://agent.example") && said.contains("cannot reach"),
                "{inside}: {said}"
            );
        }
        // Nothing to say when the card names an address like the one it came from, or a public one.
        assert_eq!(inside_address_diagnosis("http://127.0.0.1:1/", "http://localhost:2/a2a"), None);
        assert_eq!(inside_address_diagnosis("http://10.0.0.1/", "http://10.0.0.2/a2a"), None);
        assert_eq!(inside_address_diagnosis(public, "https://rpc.agent.example/a2a"), None);
        // A bind address is never callable, wherever the card came from.
        assert!(inside_address_diagnosis("http://127.0.0.1:1/", "http://0.0.0.0:2/").is_some());
    }

    #[test]
    fn a_private_webhook_is_out_of_reach_of_an_agent_elsewhere() {
        assert!(webhook_out_of_reach("https://agent.example/a2a", "http://127.0.0.1:9/hook"));
        assert!(webhook_out_of_reach("https://agent.example/a2a", "http://192.168.1.5:9/hook"));
        assert!(webhook_out_of_reach("http://10.0.0.7/a2a", "http://127.0.0.1:9/hook"));
        // Within reach: the same host, the same private network, or a public webhook.
        assert!(!webhook_out_of_reach("http://127.0.0.1:8/a2a", "http://127.0.0.1:9/hook"));
        assert!(!webhook_out_of_reach("http://10.0.0.7/a2a", "http://10.0.0.9:9/hook"));
        assert!(!webhook_out_of_reach("https://agent.example/a2a", "https://hooks.example/a2a"));
    }

    #[test]
    fn base_urls_are_normalised_for_cache_keys() {
        let a = AgentBaseUrl::parse("http://agent.example/a2a/?x=1#f").unwrap();
        assert_eq!(a.as_str(), "http://agent.example/a2a");
        assert_eq!(a.join(AGENT_CARD_PATH), "http://agent.example/a2a/.well-known/agent-card.json");
        let root = AgentBaseUrl::parse("http://agent.example").unwrap();
        assert_eq!(root.join(LEGACY_AGENT_CARD_PATH), "http://agent.example/.well-known/agent.json");
    }

    #[test]
    fn base_urls_with_credentials_or_other_schemes_are_refused() {
        assert_eq!(AgentBaseUrl::parse("http://u:p@agent.example").unwrap_err().kind(), ErrorKind::Misuse);
        assert!(AgentBaseUrl::parse("ftp://agent.example").is_err());
        assert!(AgentBaseUrl::parse("agent.example").is_err());
    }
}

#[cfg(test)]
mod interface_url_tests {
    use super::grpc_target;

    #[test]
    fn only_a_bare_host_port_is_a_grpc_target() {
        assert_eq!(grpc_target("127.0.0.1:50051"), Some("127.0.0.1:50051"));
        assert_eq!(grpc_target("localhost:50051"), Some("localhost:50051"));
        assert_eq!(grpc_target("[::1]:50051"), Some("[::1]:50051"));
        for not in
            ["http://127.0.0.1:50051", "/a2a", "a2a", "host:port", "host:50051/path", ":50051", "h:123456"]
        {
            assert_eq!(grpc_target(not), None, "{not}");
        }
    }
}
