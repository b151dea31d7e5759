//! Fetching an agent's card from its well-known path, through the shared [`DiscoveryCache`].
//!
//! `/.well-known/agent-card.json` (0.3.0 and 1.0) is asked first; on 404 or 410 the 0.2.x path
//! `/.well-known/agent.json` is tried (counted as a fallback). A fresh cached card is returned without a
//! request; a stale one is revalidated with `If-None-Match`, and `304 Not Modified` keeps it.
//! `Cache-Control: max-age` sets the lifetime, `no-cache` forces revalidation, `no-store` keeps nothing;
//! without those headers the client's discovery TTL applies. `max-age` and `Age` are read as at most
//! 2^31 seconds (RFC 9111 §1.2.2); a negative one, or one that is no number, is ignored.
//! `Retry-After` on a 503 is read as at most a day ([`Error::retry_after`](crate::Error::retry_after)).
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

use std::time::Duration;

use a2a_typestate_types::parse::{self, ParseErrorKind};
use http::StatusCode;
use http::header::{HeaderValue, IF_NONE_MATCH};

use crate::budget::DocumentBudget;
use crate::cache::{DiscoveryCache, Freshness};
use crate::net::{HttpClient, Response, within};
use crate::signing::{self, CardSignaturePolicy, TrustStore};
use crate::{Error, Metrics};

pub use crate::agent_url::{
    AGENT_CARD_PATH, AgentBaseUrl, LEGACY_AGENT_CARD_PATH, WellKnownPath, base_url_of,
};
pub use crate::card::DiscoveredCard;

/// Largest card accepted:
/// [`types::parse::DEFAULT_MAX_DOCUMENT_BYTES`](crate::types::parse::DEFAULT_MAX_DOCUMENT_BYTES) (8 MiB).
pub const MAX_CARD_BYTES: usize = parse::DEFAULT_MAX_DOCUMENT_BYTES;

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

/// The error for an answer that is not a card: its status, with the wait it asks for and the
/// start of its body.
fn status_error(response: &Response, url: &str, head: &Head) -> Error {
    let wait = crate::retry::retry_after(response.headers());
    Error::from_status(response.status().as_u16(), Some(url))
        .with_body(&head.0, head.1)
        .with_retry_after(wait)
}

/// The first bytes of an error answer's body, and whether it went on past them.
type Head = (Vec<u8>, bool);

/// What one well-known path answered: a card, or another status to act on (with the start of its
/// body when the status is an error).
enum Fetched {
    Card(ReadCard),
    Answer(StatusCode, Response, Head),
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
            let (status, response, head) = match self.fetch(agent, path, &url, validator.as_deref()).await? {
                Fetched::Card(read) => return self.admit(agent, read).await,
                Fetched::Answer(status, response, head) => (status, response, head),
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
                    return Err(Error::from_status(status.as_u16(), Some(&url)).with_body(&head.0, head.1));
                }
                StatusCode::NOT_FOUND | StatusCode::GONE => {
                    if path == WellKnownPath::AgentCard {
                        self.metrics.record_legacy_card_fetch();
                    }
                    tried.push((url, status.as_u16()));
                }
                _ => return Err(status_error(&response, &url, &head)),
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
            Fetched::Answer(_, response, head) => Err(status_error(&response, url, &head)),
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
            let mut response = self.http.send(request).await.map_err(|e| e.with_url(url))?;
            let status = response.status();
            if status == StatusCode::OK {
                return self.read_card(path, response, url).await.map(Fetched::Card);
            }
            let head = if status.is_client_error() || status.is_server_error() {
                crate::net::read_snippet(&mut response).await
            } else {
                (Vec::new(), false)
            };
            Ok(Fetched::Answer(status, response, head))
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

/// The distinct protocol versions among `written` (each interface's `protocolVersion`), best first:
/// 1.0, 0.3, then the others as written; an empty one is skipped.
pub fn protocol_versions<'a>(written: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    use a2a_typestate_types::discovery::ProtocolVersion;
    let mut versions: Vec<ProtocolVersion> = Vec::new();
    for version in written.into_iter().filter(|v| !v.is_empty()).map(ProtocolVersion::parse) {
        if !versions.contains(&version) {
            versions.push(version);
        }
    }
    versions.sort_by_key(|v| match v {
        ProtocolVersion::V1_0 => 0,
        ProtocolVersion::V0_3 => 1,
        ProtocolVersion::Other(_) => 2,
    });
    versions.iter().map(|v| v.as_str().to_owned()).collect()
}
