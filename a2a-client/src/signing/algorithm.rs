//! The JWS algorithms a card signature may name, and which kind of key each one needs.

use std::fmt;

/// A JWS `alg` this client can verify (RFC 7518 §3.1, and `EdDSA` from RFC 8037).
///
/// `none` is not here on purpose: an unsigned card is one with no `signatures`, and a signature
/// that says `none` is refused before any key is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// HMAC with SHA-256 (a shared secret; off unless allowed, see [`Algorithm::is_symmetric`]).
    Hs256,
    /// HMAC with SHA-384.
    Hs384,
    /// HMAC with SHA-512.
    Hs512,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// RSASSA-PSS with SHA-256.
    Ps256,
    /// RSASSA-PSS with SHA-384.
    Ps384,
    /// RSASSA-PSS with SHA-512.
    Ps512,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// ECDSA on P-384 with SHA-384.
    Es384,
    /// ECDSA on P-521 with SHA-512.
    Es512,
    /// Ed25519 (`EdDSA` with an Ed25519 key).
    EdDsa,
}

/// The kind of key an algorithm needs: a key of one kind never verifies for another's algorithm,
/// which is what stops an RSA public key being used as an HMAC secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyKind {
    /// A shared secret (JWK `kty: oct`).
    Hmac,
    /// An RSA public key of at least 2048 bits.
    Rsa,
    /// An EC public key on P-256.
    EcP256,
    /// An EC public key on P-384.
    EcP384,
    /// An EC public key on P-521.
    EcP521,
    /// An Ed25519 public key (JWK `kty: OKP`, `crv: Ed25519`).
    Ed25519,
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyKind::Hmac => "an hmac secret",
            KeyKind::Rsa => "an rsa key",
            KeyKind::EcP256 => "a p-256 key",
            KeyKind::EcP384 => "a p-384 key",
            KeyKind::EcP521 => "a p-521 key",
            KeyKind::Ed25519 => "an ed25519 key",
        })
    }
}

impl Algorithm {
    /// Every algorithm this client knows, asymmetric ones last.
    pub const ALL: [Algorithm; 13] = [
        Algorithm::Hs256,
        Algorithm::Hs384,
        Algorithm::Hs512,
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::Es512,
        Algorithm::EdDsa,
    ];

    /// The algorithms a trust store allows unless told otherwise: every public-key algorithm.
    /// HMAC is left out because a shared secret proves only that the card came from someone who
    /// holds the secret, which includes every verifier.
    pub const DEFAULT_ALLOWED: [Algorithm; 10] = [
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::Es512,
        Algorithm::EdDsa,
    ];

    /// The algorithm a JWS `alg` names, if this client knows it (`"none"` is never known).
    pub fn from_jws_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|alg| alg.jws_name() == name)
    }

    /// The JWS name, such as `"ES256"`.
    pub fn jws_name(self) -> &'static str {
        match self {
            Algorithm::Hs256 => "HS256",
            Algorithm::Hs384 => "HS384",
            Algorithm::Hs512 => "HS512",
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::Es512 => "ES512",
            Algorithm::EdDsa => "EdDSA",
        }
    }

    /// The only kind of key this algorithm verifies with.
    pub fn key_kind(self) -> KeyKind {
        match self {
            Algorithm::Hs256 | Algorithm::Hs384 | Algorithm::Hs512 => KeyKind::Hmac,
            Algorithm::Rs256
            | Algorithm::Rs384
            | Algorithm::Rs512
            | Algorithm::Ps256
            | Algorithm::Ps384
            | Algorithm::Ps512 => KeyKind::Rsa,
            Algorithm::Es256 => KeyKind::EcP256,
            Algorithm::Es384 => KeyKind::EcP384,
            Algorithm::Es512 => KeyKind::EcP521,
            Algorithm::EdDsa => KeyKind::Ed25519,
        }
    }

    /// Whether this is an HMAC algorithm (a shared secret rather than a public key).
    pub fn is_symmetric(self) -> bool {
        self.key_kind() == KeyKind::Hmac
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.jws_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_and_unknown_algorithms_are_not_algorithms() {
        for name in ["none", "None", "NONE", "", "HS1", "es256", "RS1"] {
            assert_eq!(Algorithm::from_jws_name(name), None, "{name}");
        }
    }

    #[test]
    fn every_algorithm_round_trips_its_jws_name() {
        for alg in Algorithm::ALL {
            assert_eq!(Algorithm::from_jws_name(alg.jws_name()), Some(alg));
        }
    }

    #[test]
    fn default_allowed_algorithms_are_all_public_key_ones() {
        assert!(Algorithm::DEFAULT_ALLOWED.iter().all(|alg| !alg.is_symmetric()));
        let asymmetric = Algorithm::ALL.iter().filter(|alg| !alg.is_symmetric()).count();
        assert_eq!(Algorithm::DEFAULT_ALLOWED.len(), asymmetric);
    }
}
