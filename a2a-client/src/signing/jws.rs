//! One JWS with a detached payload (RFC 7515 appendix F): read its protected header, refuse what it
//! must not ask for, and check it against the card's canonical forms with the trusted keys.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use super::algorithm::Algorithm;
use super::keys::TrustedKey;
use super::payload::{CanonicalForm, Payloads};
use super::trust::TrustStore;
use super::{SignatureFailure, SignatureFailureReason};

/// The parts of a protected header this verifier reads.
#[derive(Debug)]
pub(crate) struct Header {
    pub(crate) alg: Algorithm,
    pub(crate) kid: String,
    pub(crate) jku: Option<String>,
}

/// A signature entry as found in the card's `signatures`.
#[derive(Debug)]
pub(crate) struct SignatureEntry<'a> {
    pub(crate) index: usize,
    pub(crate) protected: &'a str,
    pub(crate) signature: &'a str,
    pub(crate) unprotected: Option<&'a Map<String, Value>>,
}

impl<'a> SignatureEntry<'a> {
    /// Entry `index` of a `signatures` array; a malformed one fails on its own.
    pub(crate) fn read(index: usize, value: &'a Value) -> Result<Self, SignatureFailure> {
        let fail =
            |why: &str| failure(index, None, None, SignatureFailureReason::MalformedHeader(why.to_owned()));
        let object = value.as_object().ok_or_else(|| fail("the signature entry is not an object"))?;
        let protected =
            object.get("protected").and_then(Value::as_str).ok_or_else(|| fail("no 'protected' string"))?;
        let signature =
            object.get("signature").and_then(Value::as_str).ok_or_else(|| fail("no 'signature' string"))?;
        let unprotected = match object.get("header") {
            None | Some(Value::Null) => None,
            Some(Value::Object(header)) => Some(header),
            Some(_) => return Err(fail("'header' is not an object")),
        };
        Ok(Self { index, protected, signature, unprotected })
    }

    /// The protected header, checked: `alg` allowed and not `none`, a `kid`, no `crit`, no
    /// `b64: false`, no name repeated in the unprotected header.
    pub(crate) fn header(&self, store: &TrustStore) -> Result<Header, SignatureFailure> {
        let malformed =
            |why: String| failure(self.index, None, None, SignatureFailureReason::MalformedHeader(why));
        let bytes = decode(self.protected).ok_or_else(|| malformed("'protected' is not base64url".into()))?;
        let header: Map<String, Value> = serde_json::from_slice(&bytes)
            .map_err(|_| malformed("'protected' is not a json object".into()))?;
        let kid = header.get("kid").and_then(Value::as_str).filter(|kid| !kid.is_empty()).map(str::to_owned);
        let alg_name = header.get("alg").and_then(Value::as_str).map(str::to_owned);
        let fail = |reason| failure(self.index, kid.clone(), alg_name.clone(), reason);
        let Some(alg_name_ref) = alg_name.as_deref() else {
            return Err(fail(SignatureFailureReason::MalformedHeader("no 'alg'".into())));
        };
        let alg = Algorithm::from_jws_name(alg_name_ref)
            .filter(|alg| store.allows(*alg))
            .ok_or_else(|| fail(SignatureFailureReason::AlgorithmNotAllowed(alg_name_ref.to_owned())))?;
        let Some(kid) = kid.clone() else {
            return Err(fail(SignatureFailureReason::MalformedHeader("no 'kid'".into())));
        };
        if header.contains_key("crit") {
            return Err(fail(SignatureFailureReason::UnsupportedHeader("'crit' extensions".into())));
        }
        if header.get("b64") == Some(&Value::Bool(false)) {
            return Err(fail(SignatureFailureReason::UnsupportedHeader(
                "an unencoded payload (b64: false)".into(),
            )));
        }
        if let Some(repeated) =
            self.unprotected.and_then(|u| u.keys().find(|name| header.contains_key(*name)))
        {
            let why = format!("'{repeated}' is in both the protected and the unprotected header");
            return Err(fail(SignatureFailureReason::MalformedHeader(why)));
        }
        // PyJWT writes an unset jku as null.
        let jku = header.get("jku").and_then(Value::as_str).map(str::to_owned);
        Ok(Header { alg, kid, jku })
    }
}

/// A signature that verified: which key, which algorithm, which form.
#[derive(Debug)]
pub(crate) struct Verified<'k> {
    pub(crate) key: &'k TrustedKey,
    pub(crate) alg: Algorithm,
    pub(crate) form: CanonicalForm,
    pub(crate) jku: Option<String>,
}

/// Checks one entry. `jku_keys` are the keys fetched from the trusted `jku` this header names
/// (or why they could not be fetched); keys of an untrusted `jku` never get here.
pub(crate) fn verify_entry<'k>(
    entry: &SignatureEntry<'_>,
    store: &'k TrustStore,
    jku_keys: Option<&'k Result<Vec<TrustedKey>, String>>,
    payloads: &Payloads,
) -> Result<Verified<'k>, SignatureFailure> {
    let header = entry.header(store)?;
    let fail = |reason| failure(entry.index, Some(header.kid.clone()), Some(header.alg.to_string()), reason);
    let fetched: &[TrustedKey] = match jku_keys {
        Some(Ok(keys)) => keys,
        _ => &[],
    };
    let with_kid: Vec<&TrustedKey> =
        store.keys().iter().chain(fetched).filter(|key| key.key_id() == header.kid).collect();
    if with_kid.is_empty() {
        if let (Some(url), Some(Err(reason))) = (&header.jku, jku_keys) {
            return Err(fail(SignatureFailureReason::JwksUnavailable {
                url: url.clone(),
                reason: reason.clone(),
            }));
        }
        let untrusted_jku = header.jku.clone().filter(|_| jku_keys.is_none());
        return Err(fail(SignatureFailureReason::NoTrustedKey { untrusted_jku }));
    }
    let usable: Vec<&TrustedKey> = with_kid.iter().copied().filter(|key| key.accepts(header.alg)).collect();
    if usable.is_empty() {
        let pinned = with_kid
            .iter()
            .find(|key| key.kind() == header.alg.key_kind())
            .and_then(|key| key.pinned_algorithm());
        if let Some(pinned) = pinned {
            return Err(fail(SignatureFailureReason::KeyPinnedToAnotherAlgorithm {
                pinned: pinned.to_string(),
            }));
        }
        let trusted = with_kid.iter().map(|key| key.kind().to_string()).collect::<Vec<_>>().join(" or ");
        let needed = header.alg.key_kind().to_string();
        return Err(fail(SignatureFailureReason::KeyKindMismatch { trusted, needed }));
    }
    let signature =
        decode(entry.signature).ok_or_else(|| fail(SignatureFailureReason::BadSignatureEncoding))?;
    for (form, payload) in &payloads.forms {
        let mut input = String::with_capacity(entry.protected.len() + 1 + payload.len() * 4 / 3 + 4);
        input.push_str(entry.protected);
        input.push('.');
        URL_SAFE_NO_PAD.encode_string(payload, &mut input);
        for key in &usable {
            if key.verifies(header.alg, input.as_bytes(), &signature) {
                let from_jku = fetched.iter().any(|fetched| std::ptr::eq(fetched, *key));
                return Ok(Verified {
                    key,
                    alg: header.alg,
                    form: *form,
                    jku: header.jku.clone().filter(|_| from_jku),
                });
            }
        }
    }
    Err(fail(SignatureFailureReason::Mismatch))
}

/// base64url without padding, as JWS writes it (trailing `=` tolerated).
fn decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()
}

fn failure(
    index: usize,
    key_id: Option<String>,
    algorithm: Option<String>,
    reason: SignatureFailureReason,
) -> SignatureFailure {
    SignatureFailure { index, key_id, algorithm, reason }
}

/// The `jku` a signature entry's protected header names, if it can be read at all.
pub(crate) fn named_jku(value: &Value) -> Option<String> {
    let protected = value.get("protected")?.as_str()?;
    let header: Map<String, Value> = serde_json::from_slice(&decode(protected)?).ok()?;
    header.get("jku")?.as_str().map(str::to_owned)
}
