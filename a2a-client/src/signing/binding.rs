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

/// The relative interfaces among `offered`, each resolved against `served_from` as a connection
/// resolves it. An absolute URL, or one that does not resolve (refused when a connection is opened),
/// is not listed.
pub(crate) fn unbound_interfaces(offered: &[OfferedInterface], served_from: &str) -> Vec<UnboundInterface> {
    let Ok(base) = url::Url::parse(served_from) else { return Vec::new() };
    offered
        .iter()
        .filter(|interface| {
            matches!(url::Url::parse(&interface.url), Err(url::ParseError::RelativeUrlWithoutBase))
        })
        .filter_map(|interface| {
            let resolved = base.join(&interface.url).ok()?;
            Some(UnboundInterface {
                written: interface.url.clone(),
                resolved: resolved.to_string(),
                served_from: served_from.to_owned(),
            })
        })
        .collect()
}
