//! Why a card's signatures did not satisfy the policy: which signature failed, and why.
//!
//! These sit with the crate's errors, below [`crate::signing`], so that [`crate::Error`] can carry
//! them without its module reaching up into the signature check; `signing` re-exports them.

use std::fmt;

/// The card's signatures did not satisfy [`CardSignaturePolicy`](crate::signing::CardSignaturePolicy):
/// either it has none and the policy requires one, or none of them verified. Read through
/// [`crate::Error::card_signature_error`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardSignatureError {
    failures: Vec<SignatureFailure>,
}

impl CardSignatureError {
    pub(crate) fn unsigned() -> Self {
        Self { failures: Vec::new() }
    }

    pub(crate) fn none_verified(failures: Vec<SignatureFailure>) -> Self {
        Self { failures }
    }

    /// Whether the card carried no signature at all (under [`CardSignaturePolicy::Require`](crate::signing::CardSignaturePolicy::Require)).
    pub fn is_unsigned(&self) -> bool {
        self.failures.is_empty()
    }

    /// One entry per signature on the card, in card order, each saying why it did not verify.
    pub fn failures(&self) -> &[SignatureFailure] {
        &self.failures
    }
}

impl fmt::Display for CardSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.failures.is_empty() {
            return f.write_str("the card has no signature and the policy requires one");
        }
        f.write_str("no signature verified: ")?;
        for (n, failure) in self.failures.iter().enumerate() {
            if n > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{failure}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CardSignatureError {}

/// Why one signature (`signatures[index]`) did not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureFailure {
    pub(crate) index: usize,
    pub(crate) key_id: Option<String>,
    pub(crate) algorithm: Option<String>,
    pub(crate) reason: SignatureFailureReason,
}

impl SignatureFailure {
    /// The signature's position in the card's `signatures`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The `kid` of its protected header, when it could be read.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// The `alg` of its protected header as written, when it could be read.
    pub fn algorithm(&self) -> Option<&str> {
        self.algorithm.as_deref()
    }

    /// Why it failed.
    pub fn reason(&self) -> &SignatureFailureReason {
        &self.reason
    }
}

impl fmt::Display for SignatureFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "signature {}", self.index)?;
        match (&self.key_id, &self.algorithm) {
            (Some(kid), Some(alg)) => write!(f, " (kid '{kid}', alg {alg})")?,
            (Some(kid), None) => write!(f, " (kid '{kid}')")?,
            (None, Some(alg)) => write!(f, " (alg {alg})")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.reason)
    }
}

/// What was wrong with one signature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureFailureReason {
    /// The protected header is not base64url JSON, or lacks `alg` or `kid` (spec §8.4.2 requires
    /// both).
    MalformedHeader(String),
    /// `alg` is `none`, unknown, or not allowed by the trust store.
    AlgorithmNotAllowed(String),
    /// The header asks for something this verifier does not do: `crit` extensions or an
    /// unencoded payload (`b64: false`).
    UnsupportedHeader(String),
    /// No trusted key has this `kid` (and any `jku` named was not trusted).
    NoTrustedKey {
        /// The `jku` the header named, when it was not a trusted one.
        untrusted_jku: Option<String>,
    },
    /// Keys with this `kid` exist, but none of the kind `alg` needs: an RSA key offered for an
    /// HMAC algorithm, say, which is exactly the algorithm confusion this refuses.
    KeyKindMismatch {
        /// What the trusted keys with this `kid` are.
        trusted: String,
        /// What the algorithm needs.
        needed: String,
    },
    /// The trusted key with this `kid` is of the right kind, but its JWK's `alg` names another
    /// algorithm (RS256 pinned, PS256 used, say).
    KeyPinnedToAnotherAlgorithm {
        /// The algorithm the key's JWK names.
        pinned: String,
    },
    /// The trusted `jku` could not be fetched or read.
    JwksUnavailable {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The `signature` value is not base64url.
    BadSignatureEncoding,
    /// The card has no canonical form (too deep, for example), so nothing can match.
    NotCanonicalizable(JcsError),
    /// The signature does not match the card under any canonical form with any trusted key of
    /// this `kid`: the card was changed after signing, or another key signed it.
    Mismatch,
}

impl fmt::Display for SignatureFailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureFailureReason::MalformedHeader(why) => write!(f, "malformed protected header: {why}"),
            SignatureFailureReason::AlgorithmNotAllowed(alg) => write!(f, "algorithm '{alg}' is not allowed"),
            SignatureFailureReason::UnsupportedHeader(why) => write!(f, "unsupported header: {why}"),
            SignatureFailureReason::NoTrustedKey { untrusted_jku: None } => {
                f.write_str("no trusted key has this kid")
            }
            SignatureFailureReason::NoTrustedKey { untrusted_jku: Some(url) } => {
                write!(f, "no trusted key has this kid, and jku {url} is not trusted")
            }
            SignatureFailureReason::KeyKindMismatch { trusted, needed } => {
                write!(f, "the trusted key is {trusted}, but the algorithm needs {needed}")
            }
            SignatureFailureReason::KeyPinnedToAnotherAlgorithm { pinned } => {
                write!(f, "the trusted key's jwk allows only {pinned}")
            }
            SignatureFailureReason::JwksUnavailable { url, reason } => {
                write!(f, "trusted jku {url} could not be read: {reason}")
            }
            SignatureFailureReason::BadSignatureEncoding => f.write_str("signature is not base64url"),
            SignatureFailureReason::NotCanonicalizable(why) => write!(f, "card has no canonical form: {why}"),
            SignatureFailureReason::Mismatch => f.write_str(
                "signature does not match the card (changed after signing, or signed by another key)",
            ),
        }
    }
}

/// Deepest nesting of arrays and objects [`canonicalize`](crate::signing::jcs::canonicalize) accepts in a `Value`, as deep as
/// `serde_json` parses one by default: a value built by hand deeper than this is refused instead of
/// exhausting the stack. A document read from its text has no such limit ([`canonicalize_str`](crate::signing::jcs::canonicalize_str)).
pub const MAX_DEPTH: usize = 128;

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JcsError {
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    #[error("json nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// A number that is not finite (only reachable through a hand-built `serde_json::Number`).
    #[error("json number {0} is not finite")]
    NotFinite(String),
    /// The text given to [`canonicalize_str`](crate::signing::jcs::canonicalize_str) is not one JSON value (says what and where).
    #[error("not json: {0}")]
    NotJson(String),
}
