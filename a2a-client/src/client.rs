//! The client handle: one HTTP connection pool, one checked configuration, one discovery cache and one
//! set of counters, shared by every clone.

use std::fmt;
use std::sync::Arc;

use crate::config::{ClientBuilder, ClientConfig};
use crate::discovery::{AgentBaseUrl, DiscoveredCard, Discovery};
use crate::webhook::PushReceiver;
use crate::{DiscoveryCache, Error, Metrics};

/// An A2A client. Cheap to clone; clones share the connection pool, cache and counters.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    config: ClientConfig,
    cache: DiscoveryCache,
    metrics: Metrics,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.config)
            .field("cache", &self.inner.cache)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A builder holding the documented defaults.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    pub(crate) fn from_parts(
        http: reqwest::Client,
        config: ClientConfig,
        cache: DiscoveryCache,
        metrics: Metrics,
    ) -> Self {
        Self { inner: Arc::new(Inner { http, config, cache, metrics }) }
    }

    /// The checked configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// The discovery cache (cards and suspect marks).
    pub fn discovery_cache(&self) -> &DiscoveryCache {
        &self.inner.cache
    }

    /// The counters.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// The underlying HTTP client, for the transports.
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// The card of the agent at `base_url`: from the cache while fresh, else fetched from its
    /// well-known path (see [`crate::discovery`]). Transport faults are retried per the retry policy.
    /// Concurrent discoveries of one agent through the same cache make one request: the later ones
    /// wait for the first and read its card.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] for a base URL that is not http(s); a transport fault once the retry
    /// budget is spent; [`crate::ErrorKind::Status`] when neither well-known path serves a card (404)
    /// or the server answers another unexpected status; [`crate::ErrorKind::BadInput`] when the card
    /// is not a JSON object or is over 8 MiB.
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
            http: self.http(),
            cache: &self.inner.cache,
            metrics: &self.inner.metrics,
            request_timeout: self.inner.config.request_timeout,
        };
        let discovery = &discovery;
        if let Some(cached) = self.inner.cache.get(agent).filter(|c| c.is_fresh()) {
            return Ok(cached.card().clone());
        }
        // Single flight: a discovery of the same agent already under way stores the card this one
        // then reads from the cache (`Discovery::card` looks there first).
        let flight = self.inner.cache.flight(agent);
        let _turn = flight.lock().await;
        if let Some(cached) = self.inner.cache.get(agent).filter(|c| c.is_fresh()) {
            return Ok(cached.card().clone());
        }
        // Another replica may have fetched it: one bounded read of the shared cache (none without a
        // backend, none while it is degraded). A stale shared card still serves as the validator.
        if let Some(shared) = self.inner.cache.load_shared(agent).await.filter(|c| c.is_fresh()) {
            return Ok(shared.card().clone());
        }
        self.inner.config.retry.run_counted(&self.inner.metrics, |_| discovery.card(agent)).await
    }

    /// Starts a push-notification receiver on the configured webhook address.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the address cannot be bound.
    pub async fn start_push_receiver(&self) -> Result<PushReceiver, Error> {
        PushReceiver::start(&self.inner.config).await
    }
}
