//! The trust store: the keys (and `jku` URLs) the caller says may sign agent cards, each with the
//! name of who holds it, and the algorithms it allows.

use serde_json::Value;

use super::algorithm::Algorithm;
use super::keys::{TrustedKey, keys_of_jwks};
use crate::Error;

/// The keys and `jku` URLs the caller trusts to sign agent cards, and the algorithms it allows.
///
/// Empty by default. A signature is checked only with a key whose `kid` equals the signature's
/// `kid` and whose kind fits its `alg` ([`TrustedKey::accepts`]). A signature's `jku` header is
/// never followed unless that exact URL was added with [`TrustStore::with_trusted_jku`]; otherwise
/// its key must already be in the store.
///
/// ```
/// use a2a_typestate_client::signing::{Algorithm, TrustStore};
///
/// let jwks = serde_json::json!({"keys": [{
///     "kty": "OKP", "crv": "Ed25519", "kid": "card-key-1",
///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
/// }]});
/// let store = TrustStore::new().with_jwks(&jwks, "agents.example")?;
/// assert_eq!(store.keys().len(), 1);
/// assert!(store.allows(Algorithm::EdDsa) && !store.allows(Algorithm::Hs256));
/// # Ok::<(), a2a_typestate_client::Error>(())
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
        let parsed = url::Url::parse(url)
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
        let normalised = url::Url::parse(url).ok()?.to_string();
        self.jku.iter().find(|entry| entry.url == normalised)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jku_urls_are_trusted_only_as_given_after_normalisation() {
        let store = TrustStore::new().with_trusted_jku("HTTPS://keys.example/jwks.json", "x").unwrap();
        assert!(store.jku_entry("https://keys.example/jwks.json").is_some());
        assert!(store.jku_entry("https://keys.example/jwks.json?x=1").is_none());
        assert!(store.jku_entry("https://evil.example/jwks.json").is_none());
        assert!(TrustStore::new().with_trusted_jku("file:///etc/passwd", "x").is_err());
    }
}
