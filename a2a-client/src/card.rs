//! A discovered card: the bytes served, the card in the 1.0 model, and the claims lifted from it,
//! once, when it was read.
//!
//! Below the discovery cache, which holds these, and discovery, which makes them; above the signature
//! check, whose verdict a card records.

use std::fmt;
use std::sync::Arc;

use a2a_typestate::{Capability, CardClaims, Deployment};
use a2a_typestate_types::AgentCard;
use a2a_typestate_types::discovery::{OfferedInterface, offered_interfaces_from_slice};
use a2a_typestate_types::parse::{self, ParseError};
use a2a_typestate_types::tolerant;
use a2a_typestate_types::v03::{CardShape, ConversionLoss};
use bytes::Bytes;
use serde_json::Value;

use crate::Error;
use crate::agent_url::WellKnownPath;
use crate::signing::{self, CardSignatureError, CardSigner, TrustStore, UnboundInterface, Verification};

/// A card as discovered: the exact bytes served, the JSON, and the card in the 1.0 model (a 0.3 card
/// converted, its losses kept), with the [`CardSigner`] when a signature was verified. Parsed once;
/// cheap to clone.
#[derive(Clone)]
pub struct DiscoveredCard {
    inner: Arc<CardDocument>,
}

#[derive(Clone)]
struct CardDocument {
    raw: Bytes,
    card: AgentCard,
    /// The interfaces the card offers, read once (the error names the path when it lists none or a
    /// bad one: reported when a connection is opened, since a card can be read without one).
    offered: Result<Vec<OfferedInterface>, ParseError>,
    /// The card's claims, lifted once when it was read, for a direct agent and for a gateway.
    direct_claims: Arc<CardClaims>,
    gateway_claims: Arc<CardClaims>,
    shape: CardShape,
    losses: Vec<ConversionLoss>,
    source_url: String,
    path: WellKnownPath,
    /// Who signed the card, when discovery verified a signature.
    signer: Option<CardSigner>,
    /// The verified card's relative interfaces, resolved against `source_url`.
    unbound: Vec<UnboundInterface>,
}

impl DiscoveredCard {
    /// Parses `raw` as served from `source_url` by `path`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::BadInput`] with the JSON path when the bytes are too large, not JSON, not
    /// an object, or not a valid 1.0 or 0.3 card.
    pub fn from_bytes(raw: Bytes, source_url: &str, path: WellKnownPath) -> Result<Self, Error> {
        let bad = |e| Error::bad_input("agent card", e).with_url(source_url);
        let (shape, converted) = a2a_typestate_types::v03::read_any_card(&raw).map_err(bad)?;
        // The card is not kept as a whole `Value` as well: one can cost many times its bytes.
        let offered = offered_interfaces_from_slice(&raw);
        let card = converted.value;
        let document = CardDocument {
            raw,
            offered,
            direct_claims: Arc::new(CardClaims::lift(&card, Deployment::Direct)),
            gateway_claims: Arc::new(CardClaims::lift(&card, Deployment::Gateway)),
            card,
            shape,
            losses: converted.losses,
            source_url: source_url.to_owned(),
            path,
            signer: None,
            unbound: Vec::new(),
        };
        Ok(Self { inner: Arc::new(document) })
    }

    /// The card with a verified signature recorded. When the signature did not cover every served
    /// field, the claims are lifted again from what it covered, so an unsigned field drives nothing.
    pub(crate) fn with_verification(self, verification: Verification) -> Self {
        let mut document = Arc::unwrap_or_clone(self.inner);
        if let Some(covered) = &verification.claims_card {
            document.direct_claims = Arc::new(CardClaims::lift(covered, Deployment::Direct));
            document.gateway_claims = Arc::new(CardClaims::lift(covered, Deployment::Gateway));
        }
        // The signature covers a relative URL's path, not the host it resolves to: say so.
        if let Ok(offered) = &document.offered {
            document.unbound = signing::unbound_interfaces(offered, &document.source_url);
        }
        for unbound in &document.unbound {
            tracing::warn!(signer = %verification.signer, "{unbound}");
        }
        document.signer = Some(verification.signer);
        Self { inner: Arc::new(document) }
    }

    /// The interfaces of a verified card whose URLs are relative, each resolved against
    /// [`source_url`](Self::source_url) as a connection resolves it: the signature covers their
    /// paths, while the host is whichever served the card. Empty for an unverified card.
    pub fn unbound_interfaces(&self) -> &[UnboundInterface] {
        &self.inner.unbound
    }

    /// Who signed the card, as the trust store names them: set when discovery verified one of its
    /// signatures (policy `VerifyIfPresent` or `Require`), `None` for an unsigned card or under
    /// [`CardSignaturePolicy::Ignore`](crate::signing::CardSignaturePolicy::Ignore).
    pub fn signer(&self) -> Option<&CardSigner> {
        self.inner.signer.as_ref()
    }

    /// Whether the served document carries any signature (verified or not).
    pub fn is_signed(&self) -> bool {
        !self.inner.card.signatures.is_empty()
    }

    /// The ways the card deviates from the card format of its version while every member stays
    /// readable: a 0.3 card without its `protocolVersion` (read as 0.3), an interface without its
    /// `protocolVersion` (read as 1.0), a media type written as its type alone (`"text"`, read as
    /// `text/*`). Reported beside the claims, never held against them.
    pub fn deviations(&self) -> Vec<tolerant::Deviation> {
        let card = &self.inner.card;
        let mut found = Vec::new();
        if self.inner.shape == CardShape::V03 {
            let named = TopLevel::of(&self.inner.raw);
            let mut missing = |path: &str, read_as: &str| {
                found.push(tolerant::Deviation {
                    path: path.to_owned(),
                    kind: tolerant::DeviationKind::MissingField,
                    found: format!("no {path} (0.3 requires it)"),
                    read_as: read_as.to_owned(),
                });
            };
            if !named.protocol_version {
                missing(
                    "protocolVersion",
                    "read as 0.3, the version of the card's shape (a url, no supportedInterfaces)",
                );
            }
            let no_modes = "read as declaring none: what is reached through a mode the card does not declare is unverifiable";
            if !named.default_input_modes {
                missing("defaultInputModes", no_modes);
            }
            if !named.default_output_modes {
                missing("defaultOutputModes", no_modes);
            }
            if !named.skills {
                missing("skills", "read as no skill");
            }
        }
        for (index, interface) in card.supported_interfaces.iter().enumerate() {
            if interface.protocol_version.trim().is_empty() {
                found.push(tolerant::Deviation {
                    path: format!("supportedInterfaces[{index}].protocolVersion"),
                    kind: tolerant::DeviationKind::MissingField,
                    found: "no protocolVersion".to_owned(),
                    read_as: "read as 1.0, the version of the member that lists it".to_owned(),
                });
            }
        }
        let mut bare = |path: String, modes: &[String]| {
            for (index, mode) in modes.iter().enumerate() {
                if !mode.contains('/') && !mode.trim().is_empty() && mode.trim() != "*" {
                    found.push(tolerant::Deviation {
                        path: format!("{path}[{index}]"),
                        kind: tolerant::DeviationKind::BareMediaType,
                        found: format!("{mode:?}"),
                        read_as: format!("not a media type (type/subtype): read as {}/*", mode.trim()),
                    });
                }
            }
        };
        bare("defaultInputModes".to_owned(), &card.default_input_modes);
        bare("defaultOutputModes".to_owned(), &card.default_output_modes);
        for (index, skill) in card.skills.iter().enumerate() {
            bare(format!("skills[{index}].inputModes"), &skill.input_modes);
            bare(format!("skills[{index}].outputModes"), &skill.output_modes);
        }
        found
    }

    /// The card in the 1.0 model (a 0.3 card converted; its `stateTransitionHistory` claim is then
    /// readable through `capabilities.legacy_state_transition_history()`).
    pub fn card(&self) -> &AgentCard {
        &self.inner.card
    }

    /// The card's claims as the verifier reads them, lifted once when the card was read and shared
    /// by every task handle on this agent (a gateway's card lifts none: see [`Deployment::Gateway`]).
    pub fn claims(&self, deployment: Deployment) -> Arc<CardClaims> {
        match deployment {
            Deployment::Direct => Arc::clone(&self.inner.direct_claims),
            Deployment::Gateway => Arc::clone(&self.inner.gateway_claims),
        }
    }

    /// What the card declares for `capability` as written (`None`: absent). A signature over the
    /// 1.0 proto fields does not cover a leftover 0.3 `stateTransitionHistory`, which then drives no
    /// claim: it reads as absent here too.
    pub fn declared(&self, capability: Capability) -> Option<bool> {
        let caps = &self.card().capabilities;
        match capability {
            Capability::Streaming => caps.streaming,
            Capability::PushNotifications => caps.push_notifications,
            Capability::StateTransitionHistory => {
                let covered = self.signer().is_none_or(|s| s.canonical_form().covers_unknown_fields());
                caps.legacy_state_transition_history().filter(|_| covered)
            }
        }
    }

    /// Whether the document was a 1.0 or a 0.3 card.
    pub fn shape(&self) -> CardShape {
        self.inner.shape
    }

    /// What the 1.0 model could not hold of a 0.3 card (empty for a 1.0 card).
    pub fn conversion_losses(&self) -> &[ConversionLoss] {
        &self.inner.losses
    }

    /// The bytes exactly as served (what a card signature is checked against).
    pub fn raw(&self) -> &Bytes {
        &self.inner.raw
    }

    /// The card as JSON, as served (1.0 or 0.3 shape), parsed from [`raw`](Self::raw) at each call:
    /// discovery keeps the bytes and the typed card, not a whole `Value`, which can cost many times
    /// the bytes it came from. An unknown member nested deeper than a `Value` is read (128 levels)
    /// makes this `Null`; signatures are checked from [`raw`](Self::raw), at any depth.
    pub fn json(&self) -> Value {
        // The bytes were read as JSON when the card was made, so they read again.
        parse::from_slice(&self.inner.raw).unwrap_or_default()
    }

    /// The interfaces the card offers, in its order of preference (1.0 `supportedInterfaces`, or the
    /// 0.3 `url`, `preferredTransport` and `additionalInterfaces`).
    ///
    /// # Errors
    /// The [`ParseError`] naming the path when the card offers none or a malformed one.
    pub fn offered_interfaces(&self) -> Result<&[OfferedInterface], &ParseError> {
        self.inner.offered.as_deref()
    }

    /// The URL the card was fetched from.
    pub fn source_url(&self) -> &str {
        &self.inner.source_url
    }

    /// Which well-known path served it.
    pub fn well_known_path(&self) -> WellKnownPath {
        self.inner.path
    }

    /// Whether two handles hold the same fetched document (not merely equal JSON).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for DiscoveredCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiscoveredCard")
            .field("source_url", &self.inner.source_url)
            .field("path", &self.inner.path)
            .field("shape", &self.inner.shape)
            .field("bytes", &self.inner.raw.len())
            .field("signer", &self.inner.signer)
            .finish_non_exhaustive()
    }
}

// Checking a card against a store takes the card, so it sits here, above the signature check.
impl TrustStore {
    /// Checks `card`'s signatures against this store, without fetching anything: a signature whose
    /// key is only reachable through a trusted `jku` fails here (discovery fetches those). The card
    /// itself is not changed: its claims are narrowed to what a signature covers only when
    /// discovery verifies it under a [`CardSignaturePolicy`](crate::signing::CardSignaturePolicy).
    ///
    /// # Errors
    /// [`CardSignatureError`] when the card has no signature, or none verifies (each failure says
    /// why).
    pub fn verify(&self, card: &DiscoveredCard) -> Result<CardSigner, CardSignatureError> {
        signing::verify_document(card.raw(), card.card(), self, &signing::FetchedJwks::new())
            .map(|v| v.signer)
    }
}

/// Which of the members a 0.3 card requires its top level names (a JSON `null` names none). Read
/// again from the served bytes only when deviations are asked for: the converted card no longer
/// tells.
#[derive(Default)]
struct TopLevel {
    protocol_version: bool,
    default_input_modes: bool,
    default_output_modes: bool,
    skills: bool,
}

impl TopLevel {
    fn of(raw: &[u8]) -> Self {
        use serde::de::IgnoredAny;
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Named {
            #[serde(default)]
            protocol_version: Option<IgnoredAny>,
            #[serde(default)]
            default_input_modes: Option<IgnoredAny>,
            #[serde(default)]
            default_output_modes: Option<IgnoredAny>,
            #[serde(default)]
            skills: Option<IgnoredAny>,
        }
        serde_json::from_slice::<Named>(raw).map_or_else(
            |_| Self::default(),
            |n| Self {
                protocol_version: n.protocol_version.is_some(),
                default_input_modes: n.default_input_modes.is_some(),
                default_output_modes: n.default_output_modes.is_some(),
                skills: n.skills.is_some(),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn a_card_in_a_dialect_is_read_and_its_deviations_listed() {
        // Microsoft Agent Framework's documented card as a2a-sdk serves it: an interface without
        // its version, `text` for a media type, and the 0.3 members a2a-sdk adds.
        let raw = br#"{"name":"msaf","description":"d","version":"1","skills":[{"id":"s","name":"s",
            "description":"","tags":[],"inputModes":["text","application/json"]}],
            "supportedInterfaces":[{"url":"http://127.0.0.1:9/","protocolBinding":"JSONRPC"}],
            "capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],
            "preferredTransport":"JSONRPC","protocolVersion":"0.3","url":"http://127.0.0.1:9/"}"#;
        let card = DiscoveredCard::from_bytes(
            Bytes::from_static(raw),
            "http://127.0.0.1:9/x",
            WellKnownPath::AgentCard,
        )
        .unwrap();
        let offered = card.offered_interfaces().unwrap();
        assert_eq!(offered.len(), 1);
        assert_eq!(offered[0].protocol_version, a2a_typestate_types::discovery::ProtocolVersion::V1_0);
        let listed: Vec<(String, &str)> =
            card.deviations().into_iter().map(|d| (d.path, d.kind.as_str())).collect();
        assert_eq!(
            listed,
            [
                ("supportedInterfaces[0].protocolVersion".to_owned(), "missing-field"),
                ("defaultInputModes[0]".to_owned(), "bare-media-type"),
                ("defaultOutputModes[0]".to_owned(), "bare-media-type"),
                ("skills[0].inputModes[0]".to_owned(), "bare-media-type"),
            ]
        );
        let claims = card.claims(Deployment::Direct);
        assert!(claims.card_claims().iter().any(|c| matches!(c, a2a_typestate::CardClaim::Interface { protocol_version, .. } if protocol_version == "1.0")));
    }

    #[test]
    fn a_0_3_card_without_its_protocol_version_is_read_as_0_3_and_listed_as_missing() {
        let read = |version: &str| {
            let raw = format!(
                r#"{{"name":"a","description":"d","url":"http://127.0.0.1:9/","version":"1",{version}
                "capabilities":{{}},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}}"#
            );
            let card = DiscoveredCard::from_bytes(
                Bytes::from(raw),
                "http://127.0.0.1:9/x",
                WellKnownPath::AgentCard,
            )
            .unwrap();
            assert_eq!(card.shape(), CardShape::V03);
            let offered = card.offered_interfaces().unwrap();
            assert_eq!(offered[0].protocol_version, a2a_typestate_types::discovery::ProtocolVersion::V0_3);
            card.deviations().into_iter().map(|d| (d.path, d.kind.as_str())).collect::<Vec<_>>()
        };
        let missing = [("protocolVersion".to_owned(), "missing-field")];
        assert_eq!(read(""), missing);
        assert_eq!(read(r#""protocolVersion":null,"#), missing);
        assert_eq!(read(r#""protocolVersion":"0.3.0","#), []);
    }

    /// PraisonAI's (`praisonaiagents` 1.7.17) stock card: a 0.3 card with none of
    /// `protocolVersion`, `defaultInputModes`, `defaultOutputModes` and `skills`.
    #[test]
    fn a_0_3_card_without_its_required_members_is_read_and_each_listed_as_missing() {
        let required = [
            ("protocolVersion", r#""protocolVersion":"0.3.0""#),
            ("defaultInputModes", r#""defaultInputModes":["text/plain"]"#),
            ("defaultOutputModes", r#""defaultOutputModes":["text/plain"]"#),
            ("skills", r#""skills":[]"#),
        ];
        // Every subset of the four left out (or written null): each left out is listed, no other.
        for left_out in 0..(1u8 << required.len()) {
            for as_null in [false, true] {
                let members: Vec<String> = required
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (name, written))| match (left_out >> i & 1 == 1, as_null) {
                        (false, _) => Some((*written).to_owned()),
                        (true, true) => Some(format!(r#""{name}":null"#)),
                        (true, false) => None,
                    })
                    .collect();
                let mut raw = String::from(
                    r#"{"name":"a","description":"d","url":"http://127.0.0.1:9/","version":"1","capabilities":{"streaming":true}"#,
                );
                for member in &members {
                    raw.push(',');
                    raw.push_str(member);
                }
                raw.push('}');
                let card = DiscoveredCard::from_bytes(
                    Bytes::from(raw.clone()),
                    "http://127.0.0.1:9/x",
                    WellKnownPath::AgentCard,
                )
                .unwrap_or_else(|e| panic!("{raw}: {e}"));
                assert_eq!(card.shape(), CardShape::V03);
                assert_eq!(card.card().capabilities.streaming, Some(true), "the claims are read: {raw}");
                let listed: Vec<String> = card.deviations().into_iter().map(|d| d.path).collect();
                let expected: Vec<String> = required
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| left_out >> i & 1 == 1)
                    .map(|(_, (name, _))| (*name).to_owned())
                    .collect();
                assert_eq!(listed, expected, "{raw}");
            }
        }
    }

    #[test]
    fn a_card_that_is_not_an_object_is_bad_input() {
        let err =
            DiscoveredCard::from_bytes(Bytes::from_static(b"[1]"), "http://a/x", WellKnownPath::AgentCard)
                .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        let err = DiscoveredCard::from_bytes(
            Bytes::from_static(b"{\"name\":"),
            "http://a/x",
            WellKnownPath::AgentCard,
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
    }
}
