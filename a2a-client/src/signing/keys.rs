//! The trust store: the keys (and `jku` URLs) the caller says may sign agent cards, each with the
//! name of who holds it.
//!
//! Keys come as JWK, JWKS or PEM (`PUBLIC KEY`, `RSA PUBLIC KEY`), or as a raw HMAC secret. Each is
//! checked when added: its kind ([`KeyKind`]) is fixed then, and a signature is only ever checked
//! with a key of the kind its algorithm needs. Secrets never appear in `Debug` output.

use std::fmt;
use std::sync::Arc;

use aws_lc_rs::signature::{self as sig, UnparsedPublicKey, VerificationAlgorithm};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

use super::algorithm::{Algorithm, KeyKind};
use crate::Error;

/// One key the caller trusts to sign cards.
#[derive(Clone)]
pub struct TrustedKey {
    key_id: String,
    issuer: Option<String>,
    kind: KeyKind,
    /// A JWK's `alg`: when set, the only algorithm this key verifies for.
    pinned: Option<Algorithm>,
    /// SPKI or PKCS#1 DER for RSA, SPKI DER or SEC1 point for EC, raw or SPKI for Ed25519, the
    /// secret for HMAC.
    material: Arc<[u8]>,
}

impl fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustedKey")
            .field("key_id", &self.key_id)
            .field("issuer", &self.issuer)
            .field("kind", &self.kind)
            .field("pinned", &self.pinned)
            .finish_non_exhaustive()
    }
}

impl PartialEq for TrustedKey {
    fn eq(&self, other: &Self) -> bool {
        self.key_id == other.key_id
            && self.issuer == other.issuer
            && self.kind == other.kind
            && self.pinned == other.pinned
            && self.material == other.material
    }
}

impl TrustedKey {
    /// The key id a signature's `kid` must equal for this key to be tried.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// Who the caller says holds this key (shown as the card's signer), if named.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The kind of key, which fixes the algorithms it can verify for.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// The one algorithm this key verifies for, when its JWK named an `alg`.
    pub fn pinned_algorithm(&self) -> Option<Algorithm> {
        self.pinned
    }

    /// Whether this key may verify a signature made with `alg`: the kinds must match, and a JWK
    /// that named its `alg` verifies for that one only.
    pub fn accepts(&self, alg: Algorithm) -> bool {
        alg.key_kind() == self.kind && self.pinned.is_none_or(|pinned| pinned == alg)
    }

    /// Checks `signature` over `message` with `alg`; false for any mismatch, including a kind
    /// mismatch (never an HMAC over a public key's bytes).
    pub(crate) fn verifies(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        if !self.accepts(alg) {
            return false;
        }
        match public_key_algorithm(alg) {
            Some(algorithm) => {
                UnparsedPublicKey::new(algorithm, &*self.material).verify(message, signature).is_ok()
            }
            None => {
                let hmac = match alg {
                    Algorithm::Hs256 => aws_lc_rs::hmac::HMAC_SHA256,
                    Algorithm::Hs384 => aws_lc_rs::hmac::HMAC_SHA384,
                    _ => aws_lc_rs::hmac::HMAC_SHA512,
                };
                let key = aws_lc_rs::hmac::Key::new(hmac, &self.material);
                aws_lc_rs::hmac::verify(&key, message, signature).is_ok()
            }
        }
    }

    /// A key from one JWK object (RFC 7517): `kty` RSA, EC, OKP (Ed25519) or oct, with a `kid`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the JWK has no `kid`, an unknown `kty` or curve, a `use`
    /// other than `sig`, `key_ops` without `verify`, an `alg` this client does not know or that
    /// does not fit the key, or key material that does not parse.
    pub fn from_jwk(jwk: &Value, issuer: Option<&str>) -> Result<Self, Error> {
        let jwk = jwk.as_object().ok_or_else(|| Error::config("a jwk must be a json object"))?;
        let key_id = text(jwk, "kid")?.ok_or_else(|| Error::config("a trusted jwk must have a kid"))?;
        let bad = |what: &str| Error::config(format!("jwk '{key_id}': {what}"));
        if let Some(usage) = text(jwk, "use")?
            && usage != "sig"
        {
            return Err(bad(&format!("use is '{usage}', not 'sig'")));
        }
        if let Some(ops) = jwk.get("key_ops") {
            let verifies = ops.as_array().is_some_and(|ops| ops.iter().any(|op| op == "verify"));
            if !verifies {
                return Err(bad("key_ops does not include 'verify'"));
            }
        }
        let kty = text(jwk, "kty")?.ok_or_else(|| bad("no kty"))?;
        let field = |name: &str| -> Result<Vec<u8>, Error> {
            let value = text(jwk, name)?.ok_or_else(|| bad(&format!("no '{name}'")))?;
            URL_SAFE_NO_PAD
                .decode(value.trim_end_matches('='))
                .map_err(|_| bad(&format!("'{name}' is not base64url")))
        };
        let (kind, material) = match kty.as_str() {
            "RSA" => (KeyKind::Rsa, rsa_public_key_der(&field("n")?, &field("e")?)),
            "EC" => {
                let crv = text(jwk, "crv")?.ok_or_else(|| bad("no crv"))?;
                let (kind, size) = match crv.as_str() {
                    "P-256" => (KeyKind::EcP256, 32),
                    "P-384" => (KeyKind::EcP384, 48),
                    "P-521" => (KeyKind::EcP521, 66),
                    other => return Err(bad(&format!("curve '{other}' is not supported"))),
                };
                let (x, y) = (field("x")?, field("y")?);
                if x.len() != size || y.len() != size {
                    return Err(bad(&format!("x and y must be {size} bytes on {crv}")));
                }
                let mut point = vec![0x04];
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                (kind, point)
            }
            "OKP" => match text(jwk, "crv")?.as_deref() {
                Some("Ed25519") => (KeyKind::Ed25519, field("x")?),
                other => return Err(bad(&format!("okp curve {other:?} is not supported (only Ed25519)"))),
            },
            "oct" => (KeyKind::Hmac, field("k")?),
            other => return Err(bad(&format!("kty '{other}' is not supported"))),
        };
        let pinned = match text(jwk, "alg")? {
            None => None,
            Some(name) => Some(
                Algorithm::from_jws_name(&name)
                    .filter(|alg| alg.key_kind() == kind)
                    .ok_or_else(|| bad(&format!("alg '{name}' does not fit {kind}")))?,
            ),
        };
        Self::checked(key_id.clone(), issuer, kind, pinned, material).map_err(|why| bad(&why))
    }

    /// A public key from PEM: `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo: RSA, P-256,
    /// P-384, P-521 or Ed25519) or `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the text is not one such PEM block, or the key is of an
    /// unsupported kind, malformed, or an RSA key under 2048 bits.
    pub fn from_pem(key_id: &str, pem: &str, issuer: Option<&str>) -> Result<Self, Error> {
        let bad = |what: &str| Error::config(format!("pem key '{key_id}': {what}"));
        let (label, der) = pem_block(pem).ok_or_else(|| bad("not a pem block"))?;
        let kind = match label.as_str() {
            "PUBLIC KEY" => {
                spki_kind(&der).ok_or_else(|| bad("not an rsa, p-256, p-384, p-521 or ed25519 public key"))?
            }
            "RSA PUBLIC KEY" => KeyKind::Rsa,
            other => {
                return Err(bad(&format!(
                    "'{other}' is not a public key (a private key does not belong here)"
                )));
            }
        };
        Self::checked(key_id.to_owned(), issuer, kind, None, der).map_err(|why| bad(&why))
    }

    /// A shared HMAC secret, usable only for HS256/HS384/HS512 and only where the trust store
    /// allows them (it does not by default). At least 32 bytes, as RFC 7518 §3.2 asks for HS256.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] for a secret shorter than 32 bytes.
    pub fn hmac_secret(key_id: &str, secret: &[u8], issuer: Option<&str>) -> Result<Self, Error> {
        Self::checked(key_id.to_owned(), issuer, KeyKind::Hmac, None, secret.to_vec())
            .map_err(|why| Error::config(format!("hmac secret '{key_id}': {why}")))
    }

    fn checked(
        key_id: String,
        issuer: Option<&str>,
        kind: KeyKind,
        pinned: Option<Algorithm>,
        material: Vec<u8>,
    ) -> Result<Self, String> {
        let probe: Option<&'static dyn VerificationAlgorithm> = match kind {
            KeyKind::Hmac if material.len() < 32 => {
                return Err("an hmac secret needs at least 32 bytes".into());
            }
            KeyKind::Hmac => None,
            KeyKind::Rsa => Some(&sig::RSA_PKCS1_2048_8192_SHA256),
            KeyKind::EcP256 => Some(&sig::ECDSA_P256_SHA256_FIXED),
            KeyKind::EcP384 => Some(&sig::ECDSA_P384_SHA384_FIXED),
            KeyKind::EcP521 => Some(&sig::ECDSA_P521_SHA512_FIXED),
            KeyKind::Ed25519 => Some(&sig::ED25519),
        };
        if let Some(algorithm) = probe {
            sig::ParsedPublicKey::new(algorithm, &material)
                .map_err(|e| format!("{kind} that does not parse ({e})"))?;
        }
        // Parsing does not bound the size; verification would refuse a short key on every use.
        if kind == KeyKind::Rsa {
            let bits = rsa_modulus_bits(&material).ok_or("an rsa key whose modulus cannot be read")?;
            if bits < 2048 {
                return Err(format!("an rsa key of {bits} bits (at least 2048 are needed)"));
            }
        }
        Ok(Self { key_id, issuer: issuer.map(str::to_owned), kind, pinned, material: material.into() })
    }
}

/// The verification algorithm of a public-key `alg`; `None` for HMAC.
fn public_key_algorithm(alg: Algorithm) -> Option<&'static dyn VerificationAlgorithm> {
    Some(match alg {
        Algorithm::Hs256 | Algorithm::Hs384 | Algorithm::Hs512 => return None,
        Algorithm::Rs256 => &sig::RSA_PKCS1_2048_8192_SHA256,
        Algorithm::Rs384 => &sig::RSA_PKCS1_2048_8192_SHA384,
        Algorithm::Rs512 => &sig::RSA_PKCS1_2048_8192_SHA512,
        Algorithm::Ps256 => &sig::RSA_PSS_2048_8192_SHA256,
        Algorithm::Ps384 => &sig::RSA_PSS_2048_8192_SHA384,
        Algorithm::Ps512 => &sig::RSA_PSS_2048_8192_SHA512,
        Algorithm::Es256 => &sig::ECDSA_P256_SHA256_FIXED,
        Algorithm::Es384 => &sig::ECDSA_P384_SHA384_FIXED,
        Algorithm::Es512 => &sig::ECDSA_P521_SHA512_FIXED,
        Algorithm::EdDsa => &sig::ED25519,
    })
}

/// A string member of a JWK, `None` when absent.
fn text(jwk: &Map<String, Value>, name: &str) -> Result<Option<String>, Error> {
    match jwk.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::config(format!("jwk member '{name}' must be a string"))),
    }
}

/// The keys of a JWKS document (`{"keys": [...]}`), each named `issuer`.
pub(crate) fn keys_of_jwks(jwks: &Value, issuer: Option<&str>) -> Result<Vec<TrustedKey>, Error> {
    let keys = jwks
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::config("a jwks must be an object with a 'keys' array"))?;
    keys.iter().map(|jwk| TrustedKey::from_jwk(jwk, issuer)).collect()
}

/// DER of the PKCS#1 `RSAPublicKey` holding modulus `n` and exponent `e` (big-endian bytes).
fn rsa_public_key_der(n: &[u8], e: &[u8]) -> Vec<u8> {
    let mut body = der_unsigned_integer(n);
    body.extend(der_unsigned_integer(e));
    der_tagged(0x30, &body)
}

fn der_unsigned_integer(bytes: &[u8]) -> Vec<u8> {
    let trimmed = match bytes.iter().position(|b| *b != 0) {
        Some(first) => &bytes[first..],
        None => &[0][..],
    };
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_some_and(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    der_tagged(0x02, &content)
}

fn der_tagged(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// The bit length of the modulus of an RSA key in PKCS#1 `RSAPublicKey` or SPKI DER.
fn rsa_modulus_bits(der: &[u8]) -> Option<usize> {
    let (0x30, outer, _) = der_element(der)? else { return None };
    let pkcs1 = match der_element(outer)? {
        (0x02, _, _) => outer,
        (0x30, _, rest) => {
            let (0x03, bits, _) = der_element(rest)? else { return None };
            let (0x30, pkcs1, _) = der_element(bits.get(1..)?)? else { return None };
            pkcs1
        }
        _ => return None,
    };
    let (0x02, modulus, _) = der_element(pkcs1)? else { return None };
    let first = modulus.iter().position(|b| *b != 0)?;
    let leading = modulus[first].leading_zeros() as usize;
    Some((modulus.len() - first) * 8 - leading)
}

/// One DER element at the start of `input`: (tag, content, rest).
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[count..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// The kind of key a SubjectPublicKeyInfo holds, from its algorithm identifier.
fn spki_kind(der: &[u8]) -> Option<KeyKind> {
    let (0x30, spki, _) = der_element(der)? else { return None };
    let (0x30, algorithm, _) = der_element(spki)? else { return None };
    let (0x06, oid, params) = der_element(algorithm)? else { return None };
    match oid {
        OID_RSA => Some(KeyKind::Rsa),
        OID_ED25519 => Some(KeyKind::Ed25519),
        OID_EC => match der_element(params)? {
            (0x06, OID_P256, _) => Some(KeyKind::EcP256),
            (0x06, OID_P384, _) => Some(KeyKind::EcP384),
            (0x06, OID_P521, _) => Some(KeyKind::EcP521),
            _ => None,
        },
        _ => None,
    }
}

/// The label and DER of the single PEM block in `text`.
fn pem_block(text: &str) -> Option<(String, Vec<u8>)> {
    let text = text.trim();
    let first = text.lines().next()?.trim();
    let label = first.strip_prefix("-----BEGIN ")?.strip_suffix("-----")?.to_owned();
    let end = format!("-----END {label}-----");
    let body: String = text
        .lines()
        .skip(1)
        .take_while(|line| line.trim() != end)
        .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
        .collect();
    if !text.trim_end().ends_with(&end) {
        return None;
    }
    STANDARD.decode(body).ok().map(|der| (label, der))
}

/// The keys and `jku` URLs the caller trusts to sign agent cards, and the algorithms it allows.
///
/// Empty by default. A signature is checked only with a key whose `kid` equals the signature's
/// `kid` and whose kind fits its `alg` ([`TrustedKey::accepts`]). A signature's `jku` header is
/// never followed unless that exact URL was added with [`TrustStore::with_trusted_jku`]; otherwise
/// its key must already be in the store.
///
/// ```
/// use a2a_client::signing::{Algorithm, TrustStore};
///
/// let jwks = serde_json::json!({"keys": [{
///     "kty": "OKP", "crv": "Ed25519", "kid": "card-key-1",
///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
/// }]});
/// let store = TrustStore::new().with_jwks(&jwks, "agents.example")?;
/// assert_eq!(store.keys().len(), 1);
/// assert!(store.allows(Algorithm::EdDsa) && !store.allows(Algorithm::Hs256));
/// # Ok::<(), a2a_client::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrustStore {
    keys: Vec<TrustedKey>,
    jku: Vec<TrustedJku>,
    /// `None`: [`Algorithm::DEFAULT_ALLOWED`].
    allowed: Option<Vec<Algorithm>>,
}

/// A JWKS URL the caller trusts to name card keys, and who it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustedJku {
    url: String,
    issuer: Option<String>,
}

impl TrustedJku {
    /// The URL, exactly as a signature's `jku` must give it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Who the caller says serves it.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }
}

impl TrustStore {
    /// An empty store that allows [`Algorithm::DEFAULT_ALLOWED`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a key.
    #[must_use]
    pub fn with_key(mut self, key: TrustedKey) -> Self {
        self.keys.push(key);
        self
    }

    /// Adds one JWK held by `issuer`.
    ///
    /// # Errors
    /// As [`TrustedKey::from_jwk`].
    pub fn with_jwk(self, jwk: &Value, issuer: &str) -> Result<Self, Error> {
        Ok(self.with_key(TrustedKey::from_jwk(jwk, Some(issuer))?))
    }

    /// Adds every key of a JWKS document, all held by `issuer`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the document is not `{"keys": [...]}` or any key fails
    /// [`TrustedKey::from_jwk`] (then none is added).
    pub fn with_jwks(mut self, jwks: &Value, issuer: &str) -> Result<Self, Error> {
        self.keys.extend(keys_of_jwks(jwks, Some(issuer))?);
        Ok(self)
    }

    /// Adds a PEM public key under `key_id`, held by `issuer`.
    ///
    /// # Errors
    /// As [`TrustedKey::from_pem`].
    pub fn with_pem(self, key_id: &str, pem: &str, issuer: &str) -> Result<Self, Error> {
        Ok(self.with_key(TrustedKey::from_pem(key_id, pem, Some(issuer))?))
    }

    /// Trusts the JWKS at `url` to name keys for signatures whose protected `jku` is exactly this
    /// URL (after URL normalisation). The JWKS is fetched during discovery, within the client's
    /// request timeout.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `url` is not an absolute http(s) URL.
    pub fn with_trusted_jku(mut self, url: &str, issuer: &str) -> Result<Self, Error> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| Error::config(format!("trusted jku '{url}' is not an absolute http(s) url")))?;
        self.jku.push(TrustedJku { url: parsed.to_string(), issuer: Some(issuer.to_owned()) });
        Ok(self)
    }

    /// Replaces the allowed algorithms (for example to add HS256 for an HMAC secret, or to allow
    /// only ES256). An algorithm outside this list fails before any key is tried.
    #[must_use]
    pub fn with_allowed_algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        self.allowed = Some(algorithms.to_vec());
        self
    }

    /// The keys, in the order they were added.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }

    /// The trusted `jku` URLs.
    pub fn trusted_jku(&self) -> &[TrustedJku] {
        &self.jku
    }

    /// Whether a signature made with `alg` may be checked at all.
    pub fn allows(&self, alg: Algorithm) -> bool {
        match &self.allowed {
            Some(allowed) => allowed.contains(&alg),
            None => Algorithm::DEFAULT_ALLOWED.contains(&alg),
        }
    }

    /// Whether the store can verify anything: at least one key or trusted `jku`.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.jku.is_empty()
    }

    /// The trusted `jku` entry for `url`, compared after URL normalisation.
    pub(crate) fn jku_entry(&self, url: &str) -> Option<&TrustedJku> {
        let normalised = reqwest::Url::parse(url).ok()?.to_string();
        self.jku.iter().find(|entry| entry.url == normalised)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::rand::SystemRandom;
    use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair};
    use serde_json::json;

    fn p256_jwk(kid: &str) -> (EcdsaKeyPair, Value) {
        let pair = EcdsaKeyPair::generate(&sig::ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
        let point = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "kid": kid,
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..]),
        });
        (pair, jwk)
    }

    #[test]
    fn an_ec_jwk_verifies_its_own_signatures_and_only_for_es256() {
        let (pair, jwk) = p256_jwk("k1");
        let key = TrustedKey::from_jwk(&jwk, Some("issuer")).unwrap();
        let signature = pair.sign(&SystemRandom::new(), b"message").unwrap();
        assert!(key.verifies(Algorithm::Es256, b"message", signature.as_ref()));
        assert!(!key.verifies(Algorithm::Es256, b"messagf", signature.as_ref()));
        assert!(!key.verifies(Algorithm::Es384, b"message", signature.as_ref()));
        assert!(!key.verifies(Algorithm::Hs256, b"message", signature.as_ref()));
    }

    #[test]
    fn a_jwk_alg_pins_the_key_to_that_algorithm() {
        let (_, mut jwk) = p256_jwk("k1");
        jwk["alg"] = json!("RS256");
        assert!(TrustedKey::from_jwk(&jwk, None).unwrap_err().to_string().contains("does not fit"));
        let mut rsa = json!({"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB", "alg": "PS256"});
        assert!(TrustedKey::from_jwk(&rsa, None).is_err(), "a 24-bit modulus is refused");
        rsa["alg"] = json!("none");
        assert!(TrustedKey::from_jwk(&rsa, None).is_err());
    }

    #[test]
    fn jwks_for_encryption_or_without_kid_are_refused() {
        let (_, mut jwk) = p256_jwk("k1");
        jwk["use"] = json!("enc");
        assert!(TrustedKey::from_jwk(&jwk, None).unwrap_err().to_string().contains("use is 'enc'"));
        let (_, mut jwk) = p256_jwk("k1");
        jwk.as_object_mut().unwrap().remove("kid");
        assert!(TrustedKey::from_jwk(&jwk, None).is_err());
    }

    #[test]
    fn short_hmac_secrets_are_refused() {
        assert!(TrustedKey::hmac_secret("h", b"short", None).is_err());
        let key = TrustedKey::hmac_secret("h", &[7; 32], None).unwrap();
        assert_eq!(key.kind(), KeyKind::Hmac);
        assert!(!format!("{key:?}").contains("7, 7"), "no secret in Debug");
    }

    #[test]
    fn pem_private_keys_are_refused_with_a_reason() {
        let pem = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let err = TrustedKey::from_pem("k", pem, None).unwrap_err();
        assert!(err.to_string().contains("not a public key"), "{err}");
    }

    #[test]
    fn rsa_der_from_jwk_components_has_minimal_positive_integers() {
        assert_eq!(
            rsa_public_key_der(&[0x00, 0x80], &[0x01, 0x00, 0x01]),
            [0x30, 0x09, 0x02, 0x02, 0x00, 0x80, 0x02, 0x03, 0x01, 0x00, 0x01]
        );
    }

    #[test]
    fn jku_urls_are_trusted_only_as_given_after_normalisation() {
        let store = TrustStore::new().with_trusted_jku("HTTPS://keys.example/jwks.json", "x").unwrap();
        assert!(store.jku_entry("https://keys.example/jwks.json").is_some());
        assert!(store.jku_entry("https://keys.example/jwks.json?x=1").is_none());
        assert!(store.jku_entry("https://evil.example/jwks.json").is_none());
        assert!(TrustStore::new().with_trusted_jku("file:///etc/passwd", "x").is_err());
    }
}
