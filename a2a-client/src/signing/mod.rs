//! Signed Agent Cards (spec §8.4): checking who made a card's claims before they are believed.
//!
//! A card may carry `signatures`: JWS (RFC 7515) with a detached payload, the payload being the card
//! canonicalised with JCS (RFC 8785, [`jcs`]) without its `signatures`. This module checks them
//! against a [`TrustStore`] the caller fills (JWK, JWKS, PEM, trusted `jku` URLs); the
//! [`CardSignaturePolicy`] set on [`ClientBuilder`](crate::ClientBuilder) decides what discovery does
//! with the answer.
//!
//! ```
//! use a2a_typestate_client::signing::{CardSignaturePolicy, TrustStore};
//! use a2a_typestate_client::{Client, DiscoveredCard, ErrorKind, WellKnownPath};
//!
//! let jwks = serde_json::json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "card-key-1",
//!     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]});
//! let store = TrustStore::new().with_jwks(&jwks, "agents.example")?;
//!
//! // A card with no signature: fine under VerifyIfPresent, refused under Require.
//! let card = DiscoveredCard::from_bytes(
//!     br#"{"name":"echo","supportedInterfaces":[]}"#.to_vec().into(),
//!     "https://agents.example/.well-known/agent-card.json",
//!     WellKnownPath::AgentCard,
//! )?;
//! let refused = store.verify(&card).unwrap_err();
//! assert!(refused.is_unsigned());
//!
//! // Discovery applies the policy: a card that fails is never cached and drives no claim.
//! let client = Client::builder()
//!     .card_signature_policy(CardSignaturePolicy::Require)
//!     .card_trust_store(store)
//!     .build()?;
//! assert_eq!(client.config().card_signature_policy(), CardSignaturePolicy::Require);
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```
//!
//! # What is checked
//!
//! - The protected header must name an `alg` the trust store allows (never `none`; by default
//!   every RS*, PS*, ES* and EdDSA, no HMAC) and a `kid`; `crit` and `b64: false` are refused.
//! - Only keys whose `kid` matches and whose kind fits the algorithm are tried: an RSA public key
//!   is never used as an HMAC secret, an EC key never for RSA, a JWK's own `alg` pins it.
//! - A `jku` in the header is followed only when that exact URL is trusted
//!   ([`TrustStore::with_trusted_jku`]); otherwise the key must already be in the store.
//! - The signature is checked against the card's [`CanonicalForm`]s in turn; the one that
//!   matched is reported. When it is not [`CanonicalForm::ServedDocument`], fields outside the
//!   1.0 proto were not covered, and the card's claims are lifted without them.
//! - One verified signature is enough (several allow key rotation); the first that verifies,
//!   in card order, names the [`CardSigner`]. At most [`MAX_SIGNATURES_CHECKED`] are looked at.
//! - A trusted `jku` is fetched within the client's request timeout, at most [`MAX_JWKS_BYTES`],
//!   and must answer itself (no redirect). Revoking a key means removing it from the store (or
//!   from the trusted JWKS): nothing here caches a key beyond one discovery.
//! - A signed card's relative interface URL names no host: it is resolved against the URL that
//!   served the card and reported ([`UnboundInterface`], `DiscoveredCard::unbound_interfaces`),
//!   since the signature holds on any host that serves the same text.

mod algorithm;
mod binding;
mod der;
pub mod jcs;
mod jcs_text;
mod jws;
mod keys;
mod payload;
mod trust;

use std::collections::HashMap;
use std::time::Duration;

use a2a_typestate_types::AgentCard;
use serde_json::Value;

pub use crate::error::card_signature::{CardSignatureError, SignatureFailure, SignatureFailureReason};
pub use algorithm::{Algorithm, KeyKind};
pub use binding::UnboundInterface;
pub(crate) use binding::unbound_interfaces;
pub use keys::TrustedKey;
pub use payload::CanonicalForm;
pub use trust::{TrustStore, TrustedJku};

use jws::SignatureEntry;
use payload::Payloads;

/// What discovery does with a card's signatures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CardSignaturePolicy {
    /// Signatures are not read (the default: it is what the client did before signing existed,
    /// and without a trust store the caller chose there is nothing to verify against).
    #[default]
    Ignore,
    /// An unsigned card is accepted as before; a signed card must have one signature that
    /// verifies against the trust store, or discovery fails.
    VerifyIfPresent,
    /// Every card must carry a signature that verifies against the trust store.
    Require,
}

/// Who signed a card, as the trust store names them: the result of a verified signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CardSigner {
    key_id: String,
    issuer: Option<String>,
    algorithm: Algorithm,
    signature_index: usize,
    form: CanonicalForm,
    jku: Option<String>,
}

impl CardSigner {
    /// The `kid` of the key that verified.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// Who holds that key, as the caller named them in the trust store.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The algorithm of the signature.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The signature's position in the card's `signatures`.
    pub fn signature_index(&self) -> usize {
        self.signature_index
    }

    /// Which canonical form of the card the signature covers.
    pub fn canonical_form(&self) -> CanonicalForm {
        self.form
    }

    /// The trusted `jku` the key came from, when it was not in the store itself.
    pub fn jku(&self) -> Option<&str> {
        self.jku.as_deref()
    }
}

impl std::fmt::Display for CardSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.issuer {
            Some(issuer) => write!(f, "{issuer} (kid '{}', {})", self.key_id, self.algorithm),
            None => write!(f, "kid '{}' ({})", self.key_id, self.algorithm),
        }
    }
}

/// Keys fetched from trusted `jku` URLs for one card, by the URL as the header wrote it.
pub(crate) type FetchedJwks = HashMap<String, Result<Vec<TrustedKey>, String>>;

/// A verified card: its signer, and the card its claims are lifted from when the signature did
/// not cover every served field.
#[derive(Debug)]
pub(crate) struct Verification {
    pub(crate) signer: CardSigner,
    pub(crate) claims_card: Option<AgentCard>,
}

/// The served document's top-level `signatures` (the last, if given twice, as a card reads it),
/// read without parsing the rest: an unknown member nested deeper than a `Value` can be read does
/// not hide them.
fn signatures_of(raw: &[u8]) -> Vec<Value> {
    let members: Result<std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>, _> =
        serde_json::from_slice(raw);
    members
        .ok()
        .and_then(|members| members.get("signatures").and_then(|raw| serde_json::from_str(raw.get()).ok()))
        .and_then(|signatures: Value| match signatures {
            Value::Array(entries) => Some(entries),
            _ => None,
        })
        .unwrap_or_default()
}

/// Checks the signatures of `raw` (the document as served) with the store's keys and those
/// `fetched` from trusted `jku`s.
pub(crate) fn verify_document(
    raw: &[u8],
    card: &AgentCard,
    store: &TrustStore,
    fetched: &FetchedJwks,
) -> Result<Verification, CardSignatureError> {
    let entries = signatures_of(raw);
    if entries.is_empty() {
        return Err(CardSignatureError::unsigned());
    }
    let payloads = Payloads::of(raw, card);
    // Each signature can cost a public-key operation per canonical form: a card cannot make
    // discovery do more than this many.
    let entries = &entries[..entries.len().min(MAX_SIGNATURES_CHECKED)];
    let not_fetched = Err("not fetched (only discovery fetches a trusted jku)".to_owned());
    let mut failures = Vec::with_capacity(entries.len());
    for (index, value) in entries.iter().enumerate() {
        let entry = match SignatureEntry::read(index, value) {
            Ok(entry) => entry,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        let payloads = match &payloads {
            Ok(payloads) => payloads,
            Err(why) => {
                failures.push(SignatureFailure {
                    index,
                    key_id: None,
                    algorithm: None,
                    reason: SignatureFailureReason::NotCanonicalizable(why.clone()),
                });
                continue;
            }
        };
        let jku_keys = jws::named_jku(value)
            .filter(|url| store.jku_entry(url).is_some())
            .map(|url| fetched.get(&url).unwrap_or(&not_fetched));
        match jws::verify_entry(&entry, store, jku_keys, payloads) {
            Ok(verified) => {
                let signer = CardSigner {
                    key_id: verified.key.key_id().to_owned(),
                    issuer: verified.key.issuer().map(str::to_owned),
                    algorithm: verified.alg,
                    signature_index: index,
                    form: verified.form,
                    jku: verified.jku,
                };
                let claims_card =
                    (!verified.form.covers_unknown_fields()).then(|| payload::covered_view(card));
                return Ok(Verification { signer, claims_card });
            }
            Err(failure) => failures.push(failure),
        }
    }
    Err(CardSignatureError::none_verified(failures))
}

/// Most signatures checked on one card, in card order (16): later ones are not looked at, so a card
/// cannot make discovery spend unbounded CPU on signature checks.
pub const MAX_SIGNATURES_CHECKED: usize = 16;

/// Largest JWKS document read from a trusted `jku`: 1 MiB.
pub const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// Most distinct trusted `jku` URLs fetched for one card.
pub const MAX_JKU_PER_CARD: usize = 4;

/// Fetches the JWKS of every trusted `jku` the signatures of `raw` (the document as served) name (at most
/// [`MAX_JKU_PER_CARD`], each within `timeout` and [`MAX_JWKS_BYTES`], from the first
/// [`MAX_SIGNATURES_CHECKED`] signatures). Untrusted ones are never asked; a trusted one that
/// redirects is refused.
pub(crate) async fn fetch_trusted_jwks(
    http: &crate::net::HttpClient,
    store: &TrustStore,
    raw: &[u8],
    timeout: Duration,
) -> FetchedJwks {
    let mut fetched = FetchedJwks::new();
    let entries = signatures_of(raw);
    for url in entries.iter().take(MAX_SIGNATURES_CHECKED).filter_map(jws::named_jku) {
        if fetched.len() >= MAX_JKU_PER_CARD || fetched.contains_key(&url) {
            continue;
        }
        let Some(trusted) = store.jku_entry(&url) else { continue };
        let outcome = fetch_jwks(http, trusted.url(), timeout)
            .await
            .and_then(|jwks| keys::keys_of_jwks(&jwks, trusted.issuer()).map_err(|e| e.to_string()));
        fetched.insert(url, outcome);
    }
    fetched
}

async fn fetch_jwks(http: &crate::net::HttpClient, url: &str, timeout: Duration) -> Result<Value, String> {
    let request = crate::net::json_request(http::Method::GET, url).map_err(|e| e.to_string())?;
    let body = crate::net::within(timeout, url, async {
        let response = http.send(request).await.map_err(|e| e.with_url(url))?;
        if !response.status().is_success() {
            return Ok(Err(format!("http {}", response.status().as_u16())));
        }
        // The trusted URL itself must answer: a redirect would let another URL choose the keys.
        if let Some(elsewhere) = response.redirected_to() {
            return Ok(Err(format!("redirected to {elsewhere}, which is not the trusted url")));
        }
        crate::net::read_bounded(response, MAX_JWKS_BYTES, url).await.map(Ok)
    })
    .await
    .map_err(|e| e.to_string())??;
    serde_json::from_slice(&body).map_err(|e| format!("not json: {e}"))
}
