//! What a card signature does not bind: an interface URL written relative to the card.
//!
//! A signature covers the card's text. An interface written `/rpc` names no host, so the same signed
//! card copied to another host verifies there too and sends the client to that host. The client
//! resolves such a URL against the URL that served the card, as it does for any card, and reports it here, so the caller can see that the host came
//! from where the card was fetched, not from the signer.

use std::fmt;

use a2a_typestate_types::discovery::OfferedInterface;

/// An interface of a signed card whose URL is relative: the signature covers its path, not its host.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnboundInterface {
    written: String,
    resolved: String,
    served_from: String,
}

impl UnboundInterface {
    /// The interface URL as the signed card writes it.
    pub fn written(&self) -> &str {
        &self.written
    }

    /// The URL the client uses: [`written`](Self::written) resolved against the serving URL.
    pub fn resolved(&self) -> &str {
        &self.resolved
    }

    /// The URL that served the card, which chose the host.
    pub fn served_from(&self) -> &str {
        &self.served_from
    }
}

impl fmt::Display for UnboundInterface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "signed interface url '{}' is relative: the signature does not name its host, resolved to {} against {}",
            self.written, self.resolved, self.served_from
        )
    }
}

/// The interfaces among `offered` whose URL names no host, each resolved against `served_from` by
/// the function a connection resolves it with. An absolute URL, a gRPC `host:port`, or one that
/// does not resolve (refused when a connection is opened) is not listed.
pub(crate) fn unbound_interfaces(offered: &[OfferedInterface], served_from: &str) -> Vec<UnboundInterface> {
    use crate::agent_url::{interface_url, names_no_host};
    let Ok(base) = url::Url::parse(served_from) else { return Vec::new() };
    offered
        .iter()
        .filter(|interface| names_no_host(interface))
        .filter_map(|interface| {
            let resolved = interface_url(&base, interface).ok()?;
            Some(UnboundInterface {
                written: interface.url.clone(),
                resolved: resolved.to_string(),
                served_from: served_from.to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};

    use super::*;

    fn interface(binding: ProtocolBinding, url: &str) -> OfferedInterface {
        OfferedInterface {
            protocol_version: ProtocolVersion::V1_0,
            binding,
            url: url.to_owned(),
            tenant: None,
        }
    }

    #[test]
    fn only_urls_naming_no_host_are_unbound_and_resolve_as_a_connection_does() {
        let offered = [
            interface(ProtocolBinding::JsonRpc, "/a2a/rpc"),
            interface(ProtocolBinding::Grpc, "127.0.0.1:50051"),
            interface(ProtocolBinding::HttpJson, "https://agent.example/a2a"),
        ];

        let unbound = unbound_interfaces(&offered, "https://cards.example/.well-known/agent-card.json");

        assert_eq!(unbound.len(), 1, "a gRPC host:port and an absolute url name their host: {unbound:?}");
        assert_eq!(unbound[0].written(), "/a2a/rpc");
        assert_eq!(unbound[0].resolved(), "https://cards.example/a2a/rpc");
    }
}
