//! Which official-SDK peers exist, what their cards claim and what they really do.

use std::fmt;

/// One of the test agents in `scripts/peers/`, each built on an official A2A SDK.
///
/// All of them run the same echo agent (working, an artifact `echo: <text>`, completed; a first
/// message containing "clarify" stops at input-required until a follow-up on the same task).
/// They differ in what the card claims ([`card_claims`](Self::card_claims)) against what the
/// SDK's request handler really implements ([`implements`](Self::implements)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PeerKind {
    /// a2a-sdk (Python): claims streaming and push, and does both; push callbacks are POSTed.
    PythonHonest,
    /// a2a-sdk (Python): claims streaming, push and `stateTransitionHistory`, implements none.
    /// The SDK answers `SendStreamingMessage` with -32004 and push-config methods with -32003.
    PythonOverDeclaring,
    /// a2a-sdk (Python): claims push and accepts push configs, but never calls the webhook.
    PythonSilentPush,
    /// a2a-sdk (Python): the honest agent with the SDK's 0.3 compatibility switched on; answers
    /// `message/send` and the other 0.3 methods beside the 1.0 ones.
    PythonV03,
    /// a2a-sdk (Python): [`PeerKind::PythonV03`] with its card signed by the SDK's signer
    /// (RS256 `python-rsa-1`, and ES256 `python-ec-1` naming a `jku`); the per-run public keys are
    /// served at `/test/jwks.json` and `/test/rsa-public.pem`, and a 0.3 card signed over its
    /// served JSON at `/test/v03-card.json`.
    PythonSigned,
    /// a2a-sdk (Python): [`PeerKind::PythonHonest`] served over gRPC too (the SDK's `GrpcHandler`
    /// on `grpc.aio`, from the `grpc` extra): its card lists a GRPC interface first, at a second
    /// loopback port, then JSON-RPC and HTTP+JSON on the same handler.
    PythonGrpc,
    /// @a2a-js/sdk (Node): claims streaming and push, and does both.
    JsHonest,
    /// @a2a-js/sdk (Node): [`PeerKind::JsHonest`] served over gRPC too (the SDK's `grpcService`
    /// on `@grpc/grpc-js`), its card listing a GRPC interface first at a second loopback port.
    JsGrpc,
    /// @a2a-js/sdk (Node): claims streaming and push, implements neither.
    JsOverDeclaring,
    /// @a2a-js/sdk (Node): [`PeerKind::JsHonest`] with its card signed by the SDK's
    /// `generateAgentCardSignature` (ES256 `js-ec-1`, EdDSA `js-ed-1`); the per-run public keys
    /// are served at `/test/jwks.json`.
    JsSigned,
    /// a2a-sdk (Python) behind bearer authentication (Starlette's `AuthenticationMiddleware`):
    /// every A2A request needs `Authorization: Bearer` [`PEER_BEARER_TOKEN`]. The public card
    /// requires that scheme, claims nothing and declares `extendedAgentCard`; the extended card
    /// claims streaming and push, which it does.
    PythonAuthenticated,
    /// a2a-sdk (Python): [`PeerKind::PythonHonest`] whose card declares two extensions,
    /// [`PEER_OPTIONAL_EXTENSION`] and [`PEER_REQUIRED_EXTENSION`] (`required: true`). A message
    /// that does not ask for the required one is answered -32008 (`ExtensionSupportRequiredError`,
    /// raised by the agent); each declared one asked for is activated and named in the answer's
    /// `A2A-Extensions` header (a2a-sdk 1.3.0 reads the requested ones into the request context but
    /// echoes nothing itself: the peer's middleware writes the header).
    PythonExtensions,
    /// a2a-sdk (Python): [`PeerKind::PythonGrpc`] that notes the W3C trace context (`traceparent`,
    /// `tracestate`) of every A2A request, over JSON-RPC, HTTP+JSON and gRPC, and lists what it noted
    /// as JSON at [`TRACED_PEER_SEEN_PATH`].
    PythonTraced,
    /// @a2a-js/sdk (Node) behind bearer authentication (the SDK's `userBuilder` and a thin express
    /// guard), with the same public and extended cards as [`PeerKind::PythonAuthenticated`].
    JsAuthenticated,
}

/// The extension [`PeerKind::PythonExtensions`] declares and activates when asked.
pub const PEER_OPTIONAL_EXTENSION: &str = "https://a2a-typestate.example/ext/echo-note/v1";
/// The extension [`PeerKind::PythonExtensions`] declares `required: true` and refuses messages
/// without.
pub const PEER_REQUIRED_EXTENSION: &str = "https://a2a-typestate.example/ext/audit-trail/v1";

/// Where [`PeerKind::PythonTraced`] lists the trace context of each request it received: a JSON
/// array of `{"binding", "target", "traceparent", "tracestate"}`, oldest first.
pub const TRACED_PEER_SEEN_PATH: &str = "/test/traceparents";

/// The bearer token the authenticated peers accept (a test fixture, handed to every peer in the
/// environment variable `A2A_PEER_BEARER_TOKEN`, never on its command line).
pub const PEER_BEARER_TOKEN: &str = "a2a-interop-peer-token";

impl PeerKind {
    /// The peers that need no credentials, in a stable order.
    pub const ALL: [PeerKind; 8] = [
        PeerKind::PythonHonest,
        PeerKind::PythonOverDeclaring,
        PeerKind::PythonSilentPush,
        PeerKind::PythonV03,
        PeerKind::PythonSigned,
        PeerKind::JsHonest,
        PeerKind::JsOverDeclaring,
        PeerKind::JsSigned,
    ];

    /// The peers whose card prefers the gRPC binding (left out of [`PeerKind::ALL`], whose peers a
    /// client without the `grpc` feature reaches too).
    pub const GRPC: [PeerKind; 2] = [PeerKind::PythonGrpc, PeerKind::JsGrpc];

    /// The peers that note the trace context of what they receive.
    pub const TRACED: [PeerKind; 1] = [PeerKind::PythonTraced];

    /// The peers behind authentication ([`PeerKind::requires_credentials`]).
    pub const AUTHENTICATED: [PeerKind; 2] = [PeerKind::PythonAuthenticated, PeerKind::JsAuthenticated];

    /// Whether A2A requests need `Authorization: Bearer` [`PEER_BEARER_TOKEN`].
    pub fn requires_credentials(self) -> bool {
        matches!(self, PeerKind::PythonAuthenticated | PeerKind::JsAuthenticated)
    }

    /// What the extended card (`GetExtendedAgentCard`, with the token) declares, for the peers
    /// that have one.
    pub fn extended_card_claims(self) -> Option<PeerCapabilities> {
        self.requires_credentials().then_some(PeerCapabilities {
            streaming: true,
            push_notifications: true,
            state_transition_history: false,
        })
    }

    /// The name `scripts/peers/start.sh` knows this peer by, e.g. `python-honest`.
    pub fn name(self) -> &'static str {
        match self {
            PeerKind::PythonHonest => "python-honest",
            PeerKind::PythonOverDeclaring => "python-over-declaring",
            PeerKind::PythonSilentPush => "python-silent-push",
            PeerKind::PythonV03 => "python-v03",
            PeerKind::PythonSigned => "python-signed",
            PeerKind::PythonGrpc => "python-grpc",
            PeerKind::JsHonest => "js-honest",
            PeerKind::JsOverDeclaring => "js-over-declaring",
            PeerKind::JsSigned => "js-signed",
            PeerKind::JsGrpc => "js-grpc",
            PeerKind::PythonAuthenticated => "python-authenticated",
            PeerKind::PythonExtensions => "python-extensions",
            PeerKind::PythonTraced => "python-traced",
            PeerKind::JsAuthenticated => "js-authenticated",
        }
    }

    /// The official SDK this peer is written on.
    pub fn sdk(self) -> OfficialSdk {
        match self {
            PeerKind::PythonHonest
            | PeerKind::PythonOverDeclaring
            | PeerKind::PythonSilentPush
            | PeerKind::PythonV03
            | PeerKind::PythonSigned
            | PeerKind::PythonGrpc
            | PeerKind::PythonAuthenticated
            | PeerKind::PythonExtensions
            | PeerKind::PythonTraced => OfficialSdk::Python,
            PeerKind::JsHonest
            | PeerKind::JsOverDeclaring
            | PeerKind::JsSigned
            | PeerKind::JsGrpc
            | PeerKind::JsAuthenticated => OfficialSdk::Js,
        }
    }

    /// What the peer's public Agent Card declares.
    pub fn card_claims(self) -> PeerCapabilities {
        let streaming_and_push =
            PeerCapabilities { streaming: true, push_notifications: true, state_transition_history: false };
        match self {
            PeerKind::PythonOverDeclaring => {
                PeerCapabilities { state_transition_history: true, ..streaming_and_push }
            }
            PeerKind::PythonAuthenticated | PeerKind::JsAuthenticated => PeerCapabilities::default(),
            _ => streaming_and_push,
        }
    }

    /// What the peer really does. `push_notifications` means callbacks are actually delivered;
    /// `state_transition_history` is never implemented (1.0 removed it).
    pub fn implements(self) -> PeerCapabilities {
        let nothing = PeerCapabilities::default();
        match self {
            PeerKind::PythonHonest
            | PeerKind::PythonV03
            | PeerKind::PythonSigned
            | PeerKind::PythonGrpc
            | PeerKind::JsGrpc
            | PeerKind::JsHonest
            | PeerKind::JsSigned
            | PeerKind::PythonAuthenticated
            | PeerKind::JsAuthenticated
            | PeerKind::PythonExtensions
            | PeerKind::PythonTraced => {
                PeerCapabilities { streaming: true, push_notifications: true, ..nothing }
            }
            PeerKind::PythonSilentPush => PeerCapabilities { streaming: true, ..nothing },
            PeerKind::PythonOverDeclaring | PeerKind::JsOverDeclaring => nothing,
        }
    }

    /// Whether the card claims something the peer does not do.
    pub fn over_declares(self) -> bool {
        let (claims, does) = (self.card_claims(), self.implements());
        (claims.streaming && !does.streaming)
            || (claims.push_notifications && !does.push_notifications)
            || (claims.state_transition_history && !does.state_transition_history)
    }

    /// Whether the peer also answers the 0.3 JSON-RPC methods (`message/send`, ...).
    pub fn speaks_v03(self) -> bool {
        matches!(self, PeerKind::PythonV03 | PeerKind::PythonSigned)
    }

    /// Whether the peer's card is signed by its SDK (and its test keys are served at
    /// `/test/jwks.json`).
    pub fn signs_its_card(self) -> bool {
        matches!(self, PeerKind::PythonSigned | PeerKind::JsSigned)
    }
}

impl fmt::Display for PeerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An official A2A SDK that a peer runs on, at the version `scripts/peers/install.sh` pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OfficialSdk {
    /// `a2a-sdk[http-server]` on PyPI, served by uvicorn.
    Python,
    /// `@a2a-js/sdk` on npm, served by express.
    Js,
}

impl OfficialSdk {
    /// The package name in its registry.
    pub fn package(self) -> &'static str {
        match self {
            OfficialSdk::Python => "a2a-sdk",
            OfficialSdk::Js => "@a2a-js/sdk",
        }
    }

    /// The pinned version.
    pub fn version(self) -> &'static str {
        "1.3.0"
    }
}

/// The capabilities this project checks claims of, for one side of a peer (card or behaviour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PeerCapabilities {
    /// `capabilities.streaming`: SendStreamingMessage and SubscribeToTask.
    pub streaming: bool,
    /// `capabilities.pushNotifications`: push-config methods and webhook callbacks.
    pub push_notifications: bool,
    /// `capabilities.stateTransitionHistory` (0.3 only; removed in 1.0).
    pub state_transition_history: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_over_declaring_and_silent_push_peers_over_declare() {
        let liars: Vec<_> = PeerKind::ALL.into_iter().filter(|kind| kind.over_declares()).collect();
        assert_eq!(
            liars,
            [PeerKind::PythonOverDeclaring, PeerKind::PythonSilentPush, PeerKind::JsOverDeclaring]
        );
    }

    #[test]
    fn peer_names_are_unique_and_match_start_sh() {
        // Read where the harness itself finds it (the workspace's `scripts/peers/`), not compiled in:
        // the script is not part of this package.
        let layout =
            crate::official::layout::Layout::discover().expect("scripts/peers exists in this workspace");
        let start_sh = std::fs::read_to_string(layout.start_script()).expect("start.sh is readable");
        let every: Vec<PeerKind> = PeerKind::ALL
            .into_iter()
            .chain(PeerKind::GRPC)
            .chain(PeerKind::AUTHENTICATED)
            .chain(PeerKind::TRACED)
            .collect();
        for kind in &every {
            assert!(start_sh.contains(&format!("    {})", kind.name())), "start.sh lacks {kind}");
            assert_eq!(every.iter().filter(|other| other.name() == kind.name()).count(), 1);
        }
    }

    #[test]
    fn only_the_authenticated_peers_require_credentials_and_their_extended_cards_claim_more() {
        assert!(
            PeerKind::ALL
                .iter()
                .all(|kind| !kind.requires_credentials() && kind.extended_card_claims().is_none())
        );
        for kind in PeerKind::AUTHENTICATED {
            assert!(kind.requires_credentials() && !kind.over_declares());
            assert_eq!(kind.card_claims(), PeerCapabilities::default());
            assert_eq!(kind.extended_card_claims(), Some(kind.implements()));
        }
    }
}
