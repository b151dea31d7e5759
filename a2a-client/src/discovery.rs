//! Fetching an agent's card from its well-known path, through the shared [`DiscoveryCache`].
//!
//! `/.well-known/agent-card.json` (0.3.0 and 1.0) is asked first; on 404 or 410 the 0.2.x path
//! `/.well-known/agent.json` is tried (counted as a fallback). A fresh cached card is returned without a
//! request; a stale one is revalidated with `If-None-Match`, and `304 Not Modified` keeps it.
//! `Cache-Control: max-age` sets the lifetime, `no-cache` forces revalidation, `no-store` keeps nothing;
//! without those headers the client's discovery TTL applies.
//!
//! The well-known path is joined to the base URL's path, as the official SDK clients do, so
//! `http://host/agents/a` is asked at `http://host/agents/a/.well-known/agent-card.json`.
//!
//! An address whose path ends in a card file (`agent-card.json` or `agent.json`, such as
//! `http://host/.well-known/agent-card.json` or a framework's own `http://host/api/agent-card.json`)
//! is the card's own URL: it is fetched as it is, with no well-known path joined and no fallback.
//! The agent is then known by that URL (in the cache and the counters), and the card's relative
//! interface URLs resolve against it, as against any URL that served a card.
//!
//! ```no_run
//! # async fn demo() -> Result<(), a2a_typestate_client::Error> {
//! let client = a2a_typestate_client::Client::builder().build()?;
//! let card = client.discover("https://agent.example").await?;
//! println!("{} from {}", card.card().name, card.source_url());
//! # Ok(()) }
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{CardClaims, Deployment};
use a2a_typestate_types::AgentCard;
use a2a_typestate_types::discovery::{OfferedInterface, offered_interfaces_from_slice};
use a2a_typestate_types::parse::{self, ParseError, ParseErrorKind};
use a2a_typestate_types::v03::{CardShape, ConversionLoss};
use bytes::Bytes;
use http::StatusCode;
use http::header::{HeaderValue, IF_NONE_MATCH};
use serde_json::Value;

use crate::budget::DocumentBudget;
use crate::cache::{DiscoveryCache, Freshness};
use crate::net::{HttpClient, Response, within};
use crate::signing::{self, CardSignaturePolicy, CardSigner, TrustStore, UnboundInterface, Verification};
use crate::{Error, Metrics};

pub use crate::agent_url::{AGENT_CARD_PATH, AgentBaseUrl, LEGACY_AGENT_CARD_PATH, WellKnownPath};

/// Largest card accepted: `a2a_typestate_types::parse::DEFAULT_MAX_DOCUMENT_BYTES` (8 MiB).
pub const MAX_CARD_BYTES: usize = parse::DEFAULT_MAX_DOCUMENT_BYTES;

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
    /// [`CardSignaturePolicy::Ignore`].
    pub fn signer(&self) -> Option<&CardSigner> {
        self.inner.signer.as_ref()
    }

    /// Whether the served document carries any signature (verified or not).
    pub fn is_signed(&self) -> bool {
        !self.inner.card.signatures.is_empty()
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

/// What one discovery needs besides the agent: the HTTP client, the cache, counters and bounds.
pub(crate) struct Discovery<'a> {
    pub(crate) http: &'a HttpClient,
    pub(crate) budget: &'a DocumentBudget,
    pub(crate) cache: &'a DiscoveryCache,
    pub(crate) metrics: &'a Metrics,
    pub(crate) request_timeout: Duration,
    pub(crate) signature_policy: CardSignaturePolicy,
    pub(crate) trust_store: &'a TrustStore,
}

/// The error for an answer that is not a card: its status, with the wait it asks for.
fn status_error(response: &Response, url: &str) -> Error {
    let wait = crate::retry::retry_after(response.headers());
    Error::from_status(response.status().as_u16(), Some(url)).with_retry_after(wait)
}

/// What one well-known path answered: a card, or another status to act on.
enum Fetched {
    Card(ReadCard),
    Answer(StatusCode, Response),
}

/// A card as read, before its signatures are checked.
struct ReadCard {
    card: DiscoveredCard,
    freshness: Freshness,
    url: String,
}

impl Discovery<'_> {
    /// Whether a cached card satisfies this client's signature policy. A card cached under
    /// `Ignore` (by a client sharing the cache) that is signed, or that `Require` needs signed,
    /// is fetched and verified again rather than trusted unverified.
    pub(crate) fn satisfies_policy(&self, card: &DiscoveredCard) -> bool {
        match self.signature_policy {
            CardSignaturePolicy::Ignore => true,
            CardSignaturePolicy::VerifyIfPresent => card.signer().is_some() || !card.is_signed(),
            _ => card.signer().is_some(),
        }
    }

    /// The agent's card: from the cache while fresh, else fetched or revalidated.
    pub(crate) async fn card(&self, agent: &AgentBaseUrl) -> Result<DiscoveredCard, Error> {
        let cached = self.cache.get(agent).filter(|c| self.satisfies_policy(c.card()));
        if let Some(cached) = cached.as_ref().filter(|c| c.is_fresh()) {
            return Ok(cached.card().clone());
        }
        // A card's own URL is asked as it is; a base URL at each well-known path in turn.
        let given = agent.card_path();
        let candidates: Vec<(WellKnownPath, String)> = match given {
            Some(path) => vec![(path, agent.as_str().to_owned())],
            None => [WellKnownPath::AgentCard, WellKnownPath::LegacyAgent]
                .into_iter()
                .map(|path| (path, agent.join(path.path())))
                .collect(),
        };
        let mut tried = Vec::new();
        for (path, url) in candidates {
            // Only the path that served the cached card can confirm it is unchanged.
            let validator = cached
                .as_ref()
                .filter(|c| c.card().well_known_path() == path)
                .and_then(|c| c.etag().map(str::to_owned));
            let (status, response) = match self.fetch(agent, path, &url, validator.as_deref()).await? {
                Fetched::Card(read) => return self.admit(agent, read).await,
                Fetched::Answer(status, response) => (status, response),
            };
            match status {
                StatusCode::NOT_MODIFIED if validator.is_some() => {
                    let freshness = Freshness::from_headers(response.headers(), self.cache.default_ttl());
                    if let Some(card) =
                        self.cache.revalidated(agent, freshness).filter(|c| self.satisfies_policy(c))
                    {
                        return Ok(card);
                    }
                    // Evicted while we asked: fetch it whole.
                    return Box::pin(self.fetch_whole(agent, path, &url)).await;
                }
                StatusCode::NOT_FOUND | StatusCode::GONE if given.is_some() => {
                    return Err(Error::from_status(status.as_u16(), Some(&url)));
                }
                StatusCode::NOT_FOUND | StatusCode::GONE => {
                    if path == WellKnownPath::AgentCard {
                        self.metrics.record_legacy_card_fetch();
                    }
                    tried.push((url, status.as_u16()));
                }
                _ => return Err(status_error(&response, &url)),
            }
        }
        // Both well-known paths answered 404 or 410: say what was asked, so a card served
        // elsewhere can be given by its own URL.
        Err(Error::no_card(agent.as_str(), tried))
    }

    /// Fetches `url` (serving `path`) without a validator.
    async fn fetch_whole(
        &self,
        agent: &AgentBaseUrl,
        path: WellKnownPath,
        url: &str,
    ) -> Result<DiscoveredCard, Error> {
        match self.fetch(agent, path, url, None).await? {
            Fetched::Card(read) => self.admit(agent, read).await,
            Fetched::Answer(_, response) => Err(status_error(&response, url)),
        }
    }

    /// One request for the card at `url` (served as `path`; conditional on `validator`, an ETag,
    /// when given), counted against the agent: the card when the answer is OK, else the answer.
    /// One bound for the whole exchange, the card's body included (boxed: discovery is off the hot
    /// path, and its state would otherwise sit in every caller's future).
    async fn fetch(
        &self,
        agent: &AgentBaseUrl,
        path: WellKnownPath,
        url: &str,
        validator: Option<&str>,
    ) -> Result<Fetched, Error> {
        let mut request = crate::net::json_request(http::Method::GET, url)?;
        if let Some(etag) = validator.and_then(|etag| HeaderValue::from_str(etag).ok()) {
            request.headers_mut().insert(IF_NONE_MATCH, etag);
        }
        self.metrics.record_request(agent.as_str());
        Box::pin(within(self.request_timeout, url, async {
            let response = self.http.send(request).await.map_err(|e| e.with_url(url))?;
            let status = response.status();
            if status == StatusCode::OK {
                return self.read_card(path, response, url).await.map(Fetched::Card);
            }
            Ok(Fetched::Answer(status, response))
        }))
        .await
    }

    /// Reads the card an OK answer carries, within the document budget.
    async fn read_card(
        &self,
        path: WellKnownPath,
        response: Response,
        requested: &str,
    ) -> Result<ReadCard, Error> {
        let freshness = Freshness::from_headers(response.headers(), self.cache.default_ttl());
        // Credited to the URL that really served it, after any redirect the URL policy allowed.
        let url = response.redirected_to().map_or_else(|| requested.to_owned(), url::Url::to_string);
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let raw = crate::net::read_budgeted(response, MAX_CARD_BYTES, &url, self.budget).await?.bytes;
        let card = DiscoveredCard::from_bytes(raw, &url, path)
            .map_err(|e| not_json(e, content_type.as_deref(), &url).unwrap_or_else(|e| e.with_url(&url)))?;
        Ok(ReadCard { card, freshness, url })
    }

    /// Checks a read card's signatures (each key fetch bounded on its own) and caches it.
    async fn admit(&self, agent: &AgentBaseUrl, read: ReadCard) -> Result<DiscoveredCard, Error> {
        let ReadCard { card, freshness, url } = read;
        // Checked before the cache sees it: a card that fails is never stored.
        let card = self.check_signatures(card).await.map_err(|e| e.with_url(&url))?;
        self.cache.store(agent, card.clone(), freshness);
        Ok(card)
    }

    /// Applies the signature policy to a freshly read card.
    async fn check_signatures(&self, card: DiscoveredCard) -> Result<DiscoveredCard, Error> {
        check_card_signatures(self.http, self.signature_policy, self.trust_store, self.request_timeout, card)
            .await
    }
}

/// Applies `policy` to a card as read (a discovered card, or the extended card an agent answers
/// with): the same rule for both, so `Require` covers every card whose claims are used.
pub(crate) async fn check_card_signatures(
    http: &HttpClient,
    policy: CardSignaturePolicy,
    trust_store: &TrustStore,
    timeout: Duration,
    card: DiscoveredCard,
) -> Result<DiscoveredCard, Error> {
    if policy == CardSignaturePolicy::Ignore {
        return Ok(card);
    }
    if !card.is_signed() {
        return match policy {
            CardSignaturePolicy::VerifyIfPresent => Ok(card),
            _ => Err(Error::card_signature(signing::CardSignatureError::unsigned())),
        };
    }
    // Read from the served bytes, not a `Value`: a member nested deeper than a `Value` is read
    // must not hide the signatures or the bytes they cover.
    let fetched = signing::fetch_trusted_jwks(http, trust_store, card.raw(), timeout).await;
    let verification = signing::verify_document(card.raw(), card.card(), trust_store, &fetched)
        .map_err(Error::card_signature)?;
    Ok(card.with_verification(verification))
}

/// A card that did not parse as JSON, served with a content type that is not JSON (an HTML page, a
/// login form): said as such, with the content type, instead of the parser's "expected value at
/// line 1 column 1". `Err` gives the error back when it is about something else (a JSON card of
/// the wrong shape, or broken JSON served as JSON, whose position is worth reading).
fn not_json(error: Error, content_type: Option<&str>, url: &str) -> Result<Error, Error> {
    let is_json_type = content_type.is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        essence == "application/json" || essence.ends_with("+json")
    });
    match error.parse_error() {
        Some(problem) if problem.kind() == ParseErrorKind::Syntax && !is_json_type => {
            Ok(Error::not_json("agent card", url, content_type, problem.clone()))
        }
        _ => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn base_urls_are_normalised_for_cache_keys() {
        let a = AgentBaseUrl::parse("http://agent.example/a2a/?x=1#f").unwrap();
        assert_eq!(a.as_str(), "http://agent.example/a2a");
        assert_eq!(a.join(AGENT_CARD_PATH), "http://agent.example/a2a/.well-known/agent-card.json");
        let root = AgentBaseUrl::parse("http://agent.example").unwrap();
        assert_eq!(root.join(LEGACY_AGENT_CARD_PATH), "http://agent.example/.well-known/agent.json");
    }

    #[test]
    fn base_urls_with_credentials_or_other_schemes_are_refused() {
        assert_eq!(AgentBaseUrl::parse("http://u:p@agent.example").unwrap_err().kind(), ErrorKind::Misuse);
        assert!(AgentBaseUrl::parse("ftp://agent.example").is_err());
        assert!(AgentBaseUrl::parse("agent.example").is_err());
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
