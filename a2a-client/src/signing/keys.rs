//! One trusted key: read from a JWK, PEM or a raw HMAC secret, bound to one [`KeyKind`] when it is
//! read, and only ever checked with an algorithm of that kind. Secrets never appear in `Debug`.

use std::fmt;
use std::sync::Arc;

use aws_lc_rs::signature::{self as sig, UnparsedPublicKey, VerificationAlgorithm};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use super::algorithm::{Algorithm, KeyKind};
use super::der::{pem_block, rsa_modulus_bits, rsa_public_key_der, spki_kind};
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
}
