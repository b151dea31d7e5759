//! The client handle: one HTTP connection pool, one checked configuration, one discovery cache and one
//! set of counters, shared by every clone.
//!
//! Here is what sits below a connection (the state, the builder's last step, discovery); the calls
//! that open a connection, a task or a run are in `front_door.rs`, above the modules that hold a
//! [`Client`], so no module imports one that imports it back.

use std::fmt;
use std::sync::Arc;

use crate::agent_url::AgentBaseUrl;
use crate::budget::DocumentBudget;
use crate::config::{ClientBuilder, ClientConfig, ClientParts};
use crate::discovery::{DiscoveredCard, Discovery};
use crate::webhook::PushReceiver;
use crate::{DiscoveryCache, Error, Metrics};

/// An A2A client. Cheap to clone; clones share the connection pool, cache and counters.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: crate::net::HttpClient,
    config: ClientConfig,
    cache: DiscoveryCache,
    metrics: Metrics,
    auth: crate::auth::ClientAuth,
    /// Room for the response bodies being read and parsed at once.
    documents: DocumentBudget,
    /// The push receiver the client's tasks share, started by the first task that needs one.
    push: tokio::sync::Mutex<Option<Arc<PushReceiver>>>,
    /// Where runs are recorded, when the builder was given a journal.
    journal: Option<crate::journal::Journal>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.config)
            .field("cache", &self.inner.cache)
            .field("credentials", &self.inner.auth.credentials)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A builder holding the documented defaults.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    fn from_parts(parts: ClientParts) -> Self {
        let ClientParts { http, config, cache, metrics, auth, journal } = parts;
        #[cfg(feature = "otel")]
        metrics.install_otel(|| cache.active_marks_reader());
        let documents = DocumentBudget::new(config.document_budget);
        let push = tokio::sync::Mutex::new(None);
        Self { inner: Arc::new(Inner { http, config, cache, metrics, auth, documents, push, journal }) }
    }

    /// Credentials, interceptors and whether a client identity is presented.
    pub(crate) fn auth(&self) -> &crate::auth::ClientAuth {
        &self.inner.auth
    }

    /// The checked configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// The discovery cache (cards and suspect marks).
    pub fn discovery_cache(&self) -> &DiscoveryCache {
        &self.inner.cache
    }

    /// The task journal, when the builder was given one ([`ClientBuilder::journal`]).
    pub fn journal(&self) -> Option<&crate::journal::Journal> {
        self.inner.journal.as_ref()
    }

    /// The counters.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// Room for the response bodies being read and parsed at once.
    pub(crate) fn documents(&self) -> &DocumentBudget {
        &self.inner.documents
    }

    /// The HTTP stack every request of this client goes through; hand it to
    /// [`ClientBuilder::http_client`] to share its connections with another client.
    pub fn http_client(&self) -> &crate::net::HttpClient {
        &self.inner.http
    }

    /// The card of the agent at `base_url`: from the cache while fresh, else fetched from its
    /// well-known path (see [`crate::discovery`]). Transport faults are retried per the retry policy.
    /// Concurrent discoveries of one agent through the same cache make one request: the later ones
    /// wait for the first and read its card.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] for a base URL that is not http(s); a transport fault once the retry
    /// budget is spent; [`crate::ErrorKind::Status`] when neither well-known path serves a card (404)
    /// or the server answers another unexpected status; [`crate::ErrorKind::BadInput`] when the card
    /// is not a JSON object or is over 8 MiB; [`crate::ErrorKind::CardSignature`] when the card's
    /// signatures do not satisfy the [`CardSignaturePolicy`](crate::signing::CardSignaturePolicy)
    /// (the card is then not cached).
    pub async fn discover(&self, base_url: &str) -> Result<DiscoveredCard, Error> {
        let agent = AgentBaseUrl::parse(base_url)?;
        self.discover_agent(&agent).await
    }

    /// As [`Client::discover`], for an already parsed base URL.
    ///
    /// # Errors
    /// As [`Client::discover`].
    pub async fn discover_agent(&self, agent: &AgentBaseUrl) -> Result<DiscoveredCard, Error> {
        let discovery = Discovery {
            http: &self.inner.http,
            budget: &self.inner.documents,
            cache: &self.inner.cache,
            metrics: &self.inner.metrics,
            request_timeout: self.inner.config.request_timeout,
            signature_policy: self.inner.config.card_signature_policy,
            trust_store: &self.inner.config.card_trust_store,
        };
        let discovery = &discovery;
        if let Some(cached) =
            self.inner.cache.get(agent).filter(|c| c.is_fresh() && discovery.satisfies_policy(c.card()))
        {
            return Ok(cached.card().clone());
        }
        // Single flight: a discovery of the same agent already under way stores the card this one
        // then reads from the cache (`Discovery::card` looks there first).
        let flight = self.inner.cache.flight(agent);
        let _turn = flight.lock().await;
        if let Some(cached) =
            self.inner.cache.get(agent).filter(|c| c.is_fresh() && discovery.satisfies_policy(c.card()))
        {
            return Ok(cached.card().clone());
        }
        // Another replica may have fetched it: one bounded read of the shared cache (none without a
        // backend, none while it is degraded). A stale shared card still serves as the validator.
        if let Some(shared) = self
            .inner
            .cache
            .load_shared(agent)
            .await
            .filter(|c| c.is_fresh() && discovery.satisfies_policy(c.card()))
        {
            return Ok(shared.card().clone());
        }
        let config = &self.inner.config;
        let (deadline, request_timeout) = (config.operation_deadline, config.request_timeout);
        // All attempts within the operation deadline, as every other retried call.
        let fetch = |_| discovery.card(agent);
        config.retry.run_within(&self.inner.metrics, deadline, request_timeout, agent.as_str(), fetch).await
    }

    /// Starts a push-notification receiver on the configured webhook address.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the address cannot be bound.
    pub async fn start_push_receiver(&self) -> Result<PushReceiver, Error> {
        PushReceiver::start(&self.inner.config).await
    }

    /// The receiver every push-dependent task of this client registers with: started by the first
    /// one, on the configured webhook address, and kept while the client lives (started again if
    /// the runtime it ran on has ended). One listener for any number of tasks: a listener per task
    /// cost a `bind` each (slower as the machine's sockets grow) and could not share a fixed
    /// webhook port between two tasks at once.
    pub(crate) async fn shared_push_receiver(&self) -> Result<Arc<PushReceiver>, Error> {
        let mut slot = self.inner.push.lock().await;
        if let Some(receiver) = slot.as_ref().filter(|r| r.is_serving()) {
            return Ok(Arc::clone(receiver));
        }
        let receiver = Arc::new(PushReceiver::start(&self.inner.config).await?);
        *slot = Some(Arc::clone(&receiver));
        Ok(receiver)
    }
}

impl ClientBuilder {
    /// Checks the configuration and builds the client.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when a timeout or TTL is zero, the SSE event limit is zero, the
    /// webhook public URL is not an absolute http(s) URL, a card signature policy other than
    /// `Ignore` has an empty trust store (nothing could ever verify), or the HTTP client cannot be
    /// built (TLS backend unavailable, a default header that is not a header, TLS settings given
    /// with an HTTP client brought from elsewhere), or an origin given to
    /// [`ClientBuilder::allow_credential_origin`] is not an http(s) URL.
    pub fn build(self) -> Result<Client, Error> {
        Ok(Client::from_parts(self.into_parts()?))
    }
}
