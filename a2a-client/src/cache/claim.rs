//! What a suspect mark names: the one claim of the card the agent contradicted, a lifecycle
//! capability or another card claim. The local cache keys its marks by it, shared marks carry it,
//! and the Redis backend writes it as a name and, for an extension or an interface, a subject.

use std::fmt;

use a2a_typestate::{CardClaim, ClaimKind};

use crate::Capability;

/// The claim a [`SuspectMark`](crate::SuspectMark) says the agent contradicted.
///
/// A lifecycle capability mark sends the agent's next tasks single-shot at once
/// ([`DiscoveryCache::is_suspect`](crate::DiscoveryCache::is_suspect)); a card-claim mark only
/// stops the client relying on that one claim while it holds: the public card instead of the
/// extended one, the next declared interface, no extension, no claim of open access.
///
/// ```
/// use a2a_typestate_client::{Capability, SuspectClaim};
///
/// let interface = SuspectClaim::Interface { url: "http://agent.example/a2a".into() };
/// assert_eq!(interface.to_string(), "interface http://agent.example/a2a");
/// assert_eq!(SuspectClaim::from(Capability::Streaming).capability(), Some(Capability::Streaming));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SuspectClaim {
    /// A lifecycle capability: streaming, state-transition history, push notifications.
    Capability(Capability),
    /// `capabilities.extendedAgentCard`.
    ExtendedAgentCard,
    /// One entry of `capabilities.extensions`.
    Extension {
        /// The extension's URI.
        uri: String,
    },
    /// One entry of `supportedInterfaces`.
    Interface {
        /// The endpoint URL as the card wrote it.
        url: String,
    },
    /// `defaultOutputModes` and the skills' `outputModes`.
    OutputModes,
    /// The security section's claim about callers without credentials.
    Security,
}

impl SuspectClaim {
    /// The lifecycle capability, when the mark is about one.
    pub fn capability(&self) -> Option<Capability> {
        match self {
            Self::Capability(capability) => Some(*capability),
            _ => None,
        }
    }

    /// The kind of card claim, when the mark is about one.
    pub fn claim_kind(&self) -> Option<ClaimKind> {
        match self {
            Self::Capability(_) => None,
            Self::ExtendedAgentCard => Some(ClaimKind::ExtendedCard),
            Self::Extension { .. } => Some(ClaimKind::Extensions),
            Self::Interface { .. } => Some(ClaimKind::Interfaces),
            Self::OutputModes => Some(ClaimKind::OutputModes),
            Self::Security => Some(ClaimKind::Security),
        }
    }

    /// The name it is shared under (and shown): the capability's card field (`streaming`, as
    /// before card claims were marked), or the claim kind's name (`extended-card`, `interfaces`).
    pub(crate) fn wire_name(&self) -> &'static str {
        match (self, self.claim_kind()) {
            (Self::Capability(capability), _) => capability.card_field(),
            (_, Some(kind)) => kind.name(),
            (_, None) => "",
        }
    }

    /// What the claim is about within its kind: an extension's URI, an interface's URL.
    pub(crate) fn subject(&self) -> Option<&str> {
        match self {
            Self::Extension { uri } => Some(uri),
            Self::Interface { url } => Some(url),
            _ => None,
        }
    }

    /// Back from a shared name and subject; `None` for a name this version does not know (a newer
    /// replica's), or a kind that needs a subject and has none.
    pub(crate) fn from_wire(name: &str, subject: Option<String>) -> Option<Self> {
        if let Some(capability) = Capability::ALL.into_iter().find(|c| c.card_field() == name) {
            return Some(Self::Capability(capability));
        }
        match name.parse::<ClaimKind>().ok()? {
            ClaimKind::ExtendedCard => Some(Self::ExtendedAgentCard),
            ClaimKind::Extensions => subject.map(|uri| Self::Extension { uri }),
            ClaimKind::Interfaces => subject.map(|url| Self::Interface { url }),
            ClaimKind::OutputModes => Some(Self::OutputModes),
            ClaimKind::Security => Some(Self::Security),
        }
    }
}

impl From<Capability> for SuspectClaim {
    fn from(capability: Capability) -> Self {
        Self::Capability(capability)
    }
}

impl From<&CardClaim> for SuspectClaim {
    fn from(claim: &CardClaim) -> Self {
        match claim {
            CardClaim::ExtendedAgentCard => Self::ExtendedAgentCard,
            CardClaim::Extension { uri } => Self::Extension { uri: uri.clone() },
            CardClaim::Interface { url, .. } => Self::Interface { url: url.clone() },
            CardClaim::OutputModes { .. } => Self::OutputModes,
            CardClaim::Security(_) => Self::Security,
        }
    }
}

impl fmt::Display for SuspectClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Capability(capability) => write!(f, "{capability}"),
            Self::Extension { uri } => write!(f, "extension {uri}"),
            Self::Interface { url } => write!(f, "interface {url}"),
            other => f.write_str(other.wire_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_claim_reads_back_from_its_wire_name_and_subject() {
        let claims = [
            SuspectClaim::Capability(Capability::Streaming),
            SuspectClaim::Capability(Capability::StateTransitionHistory),
            SuspectClaim::Capability(Capability::PushNotifications),
            SuspectClaim::ExtendedAgentCard,
            SuspectClaim::Extension { uri: "urn:x".into() },
            SuspectClaim::Interface { url: "http://a/x".into() },
            SuspectClaim::OutputModes,
            SuspectClaim::Security,
        ];
        for claim in claims {
            let back = SuspectClaim::from_wire(claim.wire_name(), claim.subject().map(str::to_owned));
            assert_eq!(back.as_ref(), Some(&claim));
        }
    }

    #[test]
    fn an_unknown_name_or_a_missing_subject_reads_as_nothing() {
        assert_eq!(SuspectClaim::from_wire("skills", None), None);
        assert_eq!(SuspectClaim::from_wire("interfaces", None), None);
        assert_eq!(SuspectClaim::from_wire("extensions", None), None);
    }
}
