//! Every bound the client waits under, with its default, and the builder that checks them.
//!
//! The A2A specification sets no client timeouts, poll interval or backoff (NOTES section 7), so each
//! value here is a choice, documented where it is set, and changeable.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::Client;
//!
//! let client = Client::builder()
//!     .connect_timeout(Duration::from_secs(2))
//!     .sse_idle_timeout(Duration::from_secs(30))
//!     .build()?;
//! assert_eq!(client.config().sse_idle_timeout(), Duration::from_secs(30));
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::net::SocketAddr;
use std::time::Duration;

use crate::DiscoveryCache;
use crate::Error;
use crate::metrics::Metrics;
use crate::retry::RetryPolicy;
use crate::signing::{CardSignaturePolicy, TrustStore};

mod budget;
mod call;
mod http;
pub(crate) mod webhook_limits;

pub use budget::TaskBudget;
pub use call::CallOptions;
pub(crate) use call::CallScope;

// Every default, in one module below everything that applies them (the cache, SSE, the receiver).
pub use crate::defaults::*;

/// How often a non-streaming task is polled with `GetTask`: `initial`, then growing by `factor`, never
/// above `cap`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PollCadence {
    initial: Duration,
    factor: f64,
    cap: Duration,
}

impl Default for PollCadence {
    /// 500 ms, doubling, capped at 2 s.
    fn default() -> Self {
        Self { initial: DEFAULT_POLL_INITIAL, factor: DEFAULT_POLL_BACKOFF_FACTOR, cap: DEFAULT_POLL_CAP }
    }
}

impl PollCadence {
    /// A cadence starting at `initial`, multiplied by `factor` each poll, capped at `cap`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `initial` is zero, `factor` is below 1 or not finite, or
    /// `cap` is below `initial`.
    pub fn new(initial: Duration, factor: f64, cap: Duration) -> Result<Self, Error> {
        if initial.is_zero() {
            return Err(Error::config("poll initial delay must be positive"));
        }
        if !factor.is_finite() || factor < 1.0 {
            return Err(Error::config(format!("poll backoff factor must be at least 1, got {factor}")));
        }
        if cap < initial {
            return Err(Error::config("poll cap must not be below the initial poll delay"));
        }
        Ok(Self { initial, factor, cap })
    }

    /// The first poll delay.
    pub fn initial(&self) -> Duration {
        self.initial
    }

    /// The factor each delay grows by.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The longest delay.
    pub fn cap(&self) -> Duration {
        self.cap
    }

    /// The delay before poll number `poll` (0-based).
    pub fn delay(&self, poll: u32) -> Duration {
        let grown = self.initial.as_secs_f64() * self.factor.powi(i32::try_from(poll).unwrap_or(i32::MAX));
        if grown.is_finite() && grown < self.cap.as_secs_f64() {
            Duration::from_secs_f64(grown)
        } else {
            self.cap
        }
    }
}

/// Whether refusals mark agents capability-suspect, and whether a mark sends an agent straight to the
/// single-shot path (see [`crate::negotiate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SuspectMarks {
    /// A refusal marks the agent suspect for the suspect TTL, and a marked agent gets one single-shot
    /// `SendMessage` at once, with no negotiation round trip (the default, as the design note asks).
    #[default]
    On,
    /// No agent is ever marked nor skipped: every task is negotiated, a refusal is still counted and
    /// still falls back. For comparison runs that measure what the suspect marks save; marks already
    /// in a shared [`DiscoveryCache`] are ignored, not cleared.
    Off,
}

/// How answers that deviate from the 1.0 wire format are read (see [`types::tolerant`](crate::types::tolerant)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireReading {
    /// Only the 1.0 shapes (ProtoJSON names, the wrapper members): a deviating answer is an
    /// [`ErrorKind::BadInput`](crate::ErrorKind::BadInput) error naming its JSON path (the default).
    #[default]
    Strict,
    /// Deviations whose meaning is unambiguous (0.3-shaped events on a 1.0 stream, `kind` fields,
    /// lowercase state and role names, a missing `contextId`) are read into the 1.0 model, and
    /// each is recorded as a [`WireDeviation`](crate::WireDeviation) with its call, event number
    /// and JSON path ([`AgentConnection::wire_deviations`](crate::AgentConnection::wire_deviations),
    /// [`TaskOutcome::wire_deviations`](crate::negotiate::TaskOutcome::wire_deviations)). They are
    /// kept apart from claim verdicts: reading a deviation never verifies nor refuses a claim.
    Tolerant,
}

/// The checked configuration of a [`Client`](crate::Client); read it with [`Client::config`](crate::Client::config).
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) operation_deadline: Duration,
    pub(crate) sse_idle_timeout: Duration,
    pub(crate) max_sse_event_bytes: usize,
    pub(crate) poll: PollCadence,
    pub(crate) unobservable_bound: Duration,
    pub(crate) budget: TaskBudget,
    pub(crate) push_arrival_bound: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) discovery_ttl: Duration,
    pub(crate) suspect_ttl: Duration,
    pub(crate) suspect_marks: SuspectMarks,
    pub(crate) negotiation_wait: Duration,
    pub(crate) breaker: crate::Breaker,
    pub(crate) webhook_addr: SocketAddr,
    pub(crate) webhook_public_url: Option<String>,
    pub(crate) webhook_limits: webhook_limits::WebhookLimits,
    pub(crate) url_policy: crate::url_policy::UrlPolicy,
    /// Host names resolved to these addresses instead of by the system (the policy still checks).
    pub(crate) resolve: Vec<(String, std::net::IpAddr)>,
    pub(crate) user_agent: String,
    pub(crate) pool_max_idle_per_host: Option<usize>,
    pub(crate) card_signature_policy: CardSignaturePolicy,
    pub(crate) card_trust_store: TrustStore,
    pub(crate) wire_reading: WireReading,
    pub(crate) document_budget: usize,
    pub(crate) extensions: Vec<String>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            operation_deadline: DEFAULT_OPERATION_DEADLINE,
            sse_idle_timeout: DEFAULT_SSE_IDLE_TIMEOUT,
            max_sse_event_bytes: DEFAULT_MAX_SSE_EVENT_BYTES,
            poll: PollCadence::default(),
            unobservable_bound: DEFAULT_UNOBSERVABLE_BOUND,
            budget: TaskBudget::default(),
            push_arrival_bound: DEFAULT_PUSH_ARRIVAL_BOUND,
            retry: RetryPolicy::default(),
            discovery_ttl: DEFAULT_DISCOVERY_TTL,
            suspect_ttl: DEFAULT_SUSPECT_TTL,
            suspect_marks: SuspectMarks::On,
            negotiation_wait: DEFAULT_NEGOTIATION_WAIT,
            breaker: crate::Breaker::default(),
            webhook_addr: DEFAULT_WEBHOOK_ADDR,
            webhook_public_url: None,
            webhook_limits: webhook_limits::WebhookLimits::default(),
            url_policy: crate::url_policy::UrlPolicy::default(),
            resolve: Vec::new(),
            user_agent: concat!("a2a-client-rs/", env!("CARGO_PKG_VERSION")).to_owned(),
            pool_max_idle_per_host: None,
            card_signature_policy: CardSignaturePolicy::Ignore,
            card_trust_store: TrustStore::new(),
            wire_reading: WireReading::Strict,
            document_budget: DEFAULT_DOCUMENT_BUDGET,
            extensions: Vec::new(),
        }
    }
}

impl ClientConfig {
    /// How deviating answers are read ([`WireReading::Strict`] by default).
    pub fn wire_reading(&self) -> WireReading {
        self.wire_reading
    }

    /// Connect timeout ([`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }
    /// Whole-request timeout for non-streaming calls ([`DEFAULT_REQUEST_TIMEOUT`]). Applied per request,
    /// not on the HTTP client: a stream is bounded by [`ClientConfig::sse_idle_timeout`] instead, since a
    /// healthy stream may stay open far longer than any request.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }
    /// Bound on one operation's attempts all together, retries and their backoff included
    /// ([`DEFAULT_OPERATION_DEADLINE`]); each attempt is bounded by the request timeout as well.
    pub fn operation_deadline(&self) -> Duration {
        self.operation_deadline
    }
    /// Longest silence on an SSE stream ([`DEFAULT_SSE_IDLE_TIMEOUT`]).
    pub fn sse_idle_timeout(&self) -> Duration {
        self.sse_idle_timeout
    }
    /// Largest SSE event, in bytes ([`DEFAULT_MAX_SSE_EVENT_BYTES`]).
    pub fn max_sse_event_bytes(&self) -> usize {
        self.max_sse_event_bytes
    }
    /// `GetTask` poll cadence ([`PollCadence::default`]).
    pub fn poll_cadence(&self) -> PollCadence {
        self.poll
    }
    /// Bound after which a task with no observable progress is a lifecycle fault
    /// ([`DEFAULT_UNOBSERVABLE_BOUND`]).
    pub fn unobservable_bound(&self) -> Duration {
        self.unobservable_bound
    }
    /// Deadline of one whole task ([`DEFAULT_TASK_DEADLINE`]): the [task budget](TaskBudget)'s
    /// wall time.
    pub fn task_deadline(&self) -> Duration {
        self.budget.deadline()
    }
    /// What one task may cost ([`TaskBudget`]).
    pub fn task_budget(&self) -> TaskBudget {
        self.budget
    }
    /// Bound for a push callback to arrive ([`DEFAULT_PUSH_ARRIVAL_BOUND`]).
    pub fn push_arrival_bound(&self) -> Duration {
        self.push_arrival_bound
    }
    /// Retry budget for transport faults ([`RetryPolicy::default`]).
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }
    /// Card lifetime without `Cache-Control` ([`DEFAULT_DISCOVERY_TTL`]).
    pub fn discovery_ttl(&self) -> Duration {
        self.discovery_ttl
    }
    /// Lifetime of a capability-suspect mark ([`DEFAULT_SUSPECT_TTL`]).
    pub fn suspect_ttl(&self) -> Duration {
        self.suspect_ttl
    }
    /// Longest wait for another task's negotiation of the same claims ([`DEFAULT_NEGOTIATION_WAIT`]).
    pub fn negotiation_wait(&self) -> Duration {
        self.negotiation_wait
    }

    /// When an agent that does not answer is held unavailable ([`Breaker::default`](crate::Breaker)).
    pub fn availability_breaker(&self) -> crate::Breaker {
        self.breaker
    }
    /// Whether refusals mark agents suspect and marks are acted on ([`SuspectMarks::On`] by default).
    pub fn suspect_marks(&self) -> SuspectMarks {
        self.suspect_marks
    }
    /// Address the push webhook receiver binds ([`DEFAULT_WEBHOOK_ADDR`]).
    pub fn webhook_addr(&self) -> SocketAddr {
        self.webhook_addr
    }
    /// Base URL agents reach the webhook at, when it differs from the bound address (none by default).
    pub fn webhook_public_url(&self) -> Option<&str> {
        self.webhook_public_url.as_deref()
    }
    /// The bounds the push receiver works within ([`WebhookLimits::default`](crate::webhook::WebhookLimits):
    /// 64 connections, 5 s for a request head, 10 s for a body, 8 MiB bodies, 4 bodies in flight).
    pub fn webhook_limits(&self) -> webhook_limits::WebhookLimits {
        self.webhook_limits
    }
    /// Where card-fetch redirects may lead and which addresses card URLs may name
    /// ([`UrlPolicy::default`](crate::url_policy::UrlPolicy): same-origin redirects, link-local and
    /// metadata addresses refused, loopback and private ranges allowed).
    pub fn url_policy(&self) -> crate::url_policy::UrlPolicy {
        self.url_policy
    }
    /// `User-Agent` header value (`a2a-client-rs/<version>`).
    pub fn user_agent(&self) -> &str {
        &self.user_agent
    }
    /// Bytes of response bodies read and parsed at once ([`DEFAULT_DOCUMENT_BUDGET`]).
    pub fn document_budget(&self) -> usize {
        self.document_budget
    }
    /// The most idle connections kept open per host; `None` (the default) keeps every one.
    pub fn pool_max_idle_per_host(&self) -> Option<usize> {
        self.pool_max_idle_per_host
    }
    /// What discovery does with card signatures ([`CardSignaturePolicy::Ignore`] by default).
    pub fn card_signature_policy(&self) -> CardSignaturePolicy {
        self.card_signature_policy
    }
    /// The keys card signatures are checked against (empty by default).
    pub fn card_trust_store(&self) -> &TrustStore {
        &self.card_trust_store
    }
    /// The extensions every call of this client asks for (none by default; see [`crate::extensions`]).
    pub fn extensions(&self) -> &[String] {
        &self.extensions
    }
    /// The bounds the typestate verifier judges elapsed time against, from this configuration: the
    /// poll cadence's cap as the steady poll interval, the working bound, the push arrival bound.
    pub fn verifier_bounds(&self) -> a2a_typestate::Bounds {
        a2a_typestate::Bounds::default()
            .with_poll_interval(self.poll.cap())
            .with_unobservable(self.unobservable_bound)
            .with_task_deadline(self.budget.deadline())
            .with_events_kept(self.budget.events_kept())
            .with_push_arrival(self.push_arrival_bound)
    }
}

/// What a [`Client`](crate::Client) is made of, once its configuration is checked.
pub(crate) struct ClientParts {
    pub(crate) http: crate::net::HttpClient,
    pub(crate) config: ClientConfig,
    pub(crate) cache: DiscoveryCache,
    pub(crate) metrics: Metrics,
    pub(crate) auth: crate::auth::ClientAuth,
    pub(crate) journal: Option<crate::journal::Journal>,
}

/// Builds a [`Client`](crate::Client): set the bounds that differ from the defaults, then [`ClientBuilder::build`].
///
/// Values are checked in `build`, so setters chain without `?`.
#[derive(Debug, Default)]
#[must_use]
pub struct ClientBuilder {
    config: ClientConfig,
    cache: Option<DiscoveryCache>,
    metrics: Option<Metrics>,
    /// Credentials, interceptors and TLS settings: set in [`crate::auth`].
    pub(crate) http: http::HttpSettings,
    replica_name: Option<String>,
    /// Origins besides each agent's own that credentials may be sent to, as given.
    credential_origins: Vec<String>,
    journal: Option<crate::journal::Journal>,
}

impl ClientBuilder {
    /// A builder holding the documented defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the connect timeout ([`DEFAULT_CONNECT_TIMEOUT`] by default): the bound on opening a
    /// connection as a whole (the name lookup, the TCP connect, a proxy's tunnel; not gRPC's own
    /// channel). Past it nothing was sent: a connect fault, which moves a task to the card's next
    /// interface.
    pub fn connect_timeout(mut self, bound: Duration) -> Self {
        self.config.connect_timeout = bound;
        self
    }

    /// Sets the whole-request timeout of non-streaming calls ([`DEFAULT_REQUEST_TIMEOUT`] by default).
    pub fn request_timeout(mut self, bound: Duration) -> Self {
        self.config.request_timeout = bound;
        self
    }

    /// Sets the bound on one operation's attempts all together ([`DEFAULT_OPERATION_DEADLINE`] by
    /// default): a call, its retries and the waits between them end within it.
    pub fn operation_deadline(mut self, bound: Duration) -> Self {
        self.config.operation_deadline = bound;
        self
    }

    /// Sets the longest silence tolerated on an SSE stream ([`DEFAULT_SSE_IDLE_TIMEOUT`] by default).
    pub fn sse_idle_timeout(mut self, bound: Duration) -> Self {
        self.config.sse_idle_timeout = bound;
        self
    }

    /// Sets the largest SSE event in bytes ([`DEFAULT_MAX_SSE_EVENT_BYTES`] by default).
    pub fn max_sse_event_bytes(mut self, limit: usize) -> Self {
        self.config.max_sse_event_bytes = limit;
        self
    }

    /// Sets the `GetTask` poll cadence (500 ms doubling up to 2 s by default).
    pub fn poll_cadence(mut self, cadence: PollCadence) -> Self {
        self.config.poll = cadence;
        self
    }

    /// Sets the bound after which a task with no observable progress (the same state polled
    /// again, the same question after the answer, keep-alive comments, identical `working` events)
    /// is a lifecycle fault ([`DEFAULT_UNOBSERVABLE_BOUND`] by default).
    pub fn unobservable_bound(mut self, bound: Duration) -> Self {
        self.config.unobservable_bound = bound;
        self
    }

    /// Sets the deadline of one whole task ([`DEFAULT_TASK_DEADLINE`] by default): the wall time
    /// of the [task budget](TaskBudget), from discovery to the task's end, the fallback included.
    pub fn task_deadline(mut self, deadline: Duration) -> Self {
        self.config.budget = self.config.budget.with_deadline(deadline);
        self
    }

    /// Sets what one task may cost ([`TaskBudget::default`]): its wall time, the events it keeps,
    /// the bytes of its result, the interfaces it tries, the pages of a listing.
    pub fn task_budget(mut self, budget: TaskBudget) -> Self {
        self.config.budget = budget;
        self
    }

    /// Sets the bound for a push callback to arrive ([`DEFAULT_PUSH_ARRIVAL_BOUND`] by default).
    pub fn push_arrival_bound(mut self, bound: Duration) -> Self {
        self.config.push_arrival_bound = bound;
        self
    }

    /// Sets the retry budget for transport faults ([`RetryPolicy::default`]).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.config.retry = policy;
        self
    }

    /// Sets the card lifetime used when the server sends no `Cache-Control` ([`DEFAULT_DISCOVERY_TTL`]).
    pub fn discovery_ttl(mut self, ttl: Duration) -> Self {
        self.config.discovery_ttl = ttl;
        self
    }

    /// Sets how long a capability-suspect mark lasts ([`DEFAULT_SUSPECT_TTL`] by default).
    pub fn suspect_ttl(mut self, ttl: Duration) -> Self {
        self.config.suspect_ttl = ttl;
        self
    }

    /// Sets how long `run_task` waits for another task's negotiation ([`DEFAULT_NEGOTIATION_WAIT`]).
    ///
    /// Negotiation is single-flight per agent: while one task negotiates claims with an agent on
    /// whose claims no task has settled yet, the other tasks to it that depend on those claims wait
    /// for its verdict, then go single-shot at once if it was a refusal (the mark), or negotiate if
    /// the claims held, so a card that lies is refused once, not once per task in flight. Past
    /// this wait they go on as if no task had been first. Zero turns the wait off. Only with
    /// suspect marks on (a wait would gain nothing without the mark).
    pub fn negotiation_wait(mut self, wait: Duration) -> Self {
        self.config.negotiation_wait = wait;
        self
    }

    /// Sets the availability breaker ([`Breaker::default`](crate::Breaker): open after
    /// [`DEFAULT_BREAKER_FAILURES`] tasks in a row to one agent ended in a transport fault, for
    /// [`DEFAULT_BREAKER_COOL_DOWN`]).
    ///
    /// While an agent's breaker is open, `run_task` to it fails at once with an
    /// [`ErrorKind::Transport`](crate::ErrorKind) error naming the breaker and when it lets a task
    /// through ([`Error::unavailable`](crate::Error::unavailable)); nothing is sent. Past the
    /// cool-down one task probes the agent: any answer closes it. With a shared backend
    /// ([`crate::shared`]) an opened breaker reaches the other replicas as a mark does, but it is
    /// never a mark: it says nothing about the card. [`Breaker::off`](crate::Breaker::off) turns it
    /// off.
    pub fn availability_breaker(mut self, breaker: crate::Breaker) -> Self {
        self.config.breaker = breaker;
        self
    }

    /// Turns capability-suspect marks on or off ([`SuspectMarks::On`] by default). With
    /// [`SuspectMarks::Off`] no agent is marked nor skipped: every task is negotiated.
    pub fn suspect_marks(mut self, marks: SuspectMarks) -> Self {
        self.config.suspect_marks = marks;
        self
    }

    /// Sets the address the push webhook receiver binds ([`DEFAULT_WEBHOOK_ADDR`] by default).
    pub fn webhook_addr(mut self, addr: SocketAddr) -> Self {
        self.config.webhook_addr = addr;
        self
    }

    /// Sets the base URL agents should call the webhook at, for receivers behind a proxy or NAT
    /// (by default the bound address, `http://<addr>`).
    pub fn webhook_public_url(mut self, url: impl Into<String>) -> Self {
        self.config.webhook_public_url = Some(url.into());
        self
    }

    /// Sets the bounds the push receiver works within (see
    /// [`WebhookLimits`](crate::webhook::WebhookLimits) for the defaults and the memory they bound).
    pub fn webhook_limits(mut self, limits: webhook_limits::WebhookLimits) -> Self {
        self.config.webhook_limits = limits;
        self
    }

    /// Sets the URL policy: card redirects and the addresses card URLs may name (see
    /// [`url_policy`](crate::url_policy)).
    pub fn url_policy(mut self, policy: crate::url_policy::UrlPolicy) -> Self {
        self.config.url_policy = policy;
        self
    }

    /// Resolves `host` to `address` instead of asking the system's resolver (repeatable: each call
    /// adds an address; every connection to `host` then uses only these). The URL policy checks these
    /// addresses as it checks every resolved one: an override cannot take a connection past it.
    pub fn resolve(mut self, host: impl Into<String>, address: std::net::IpAddr) -> Self {
        self.config.resolve.push((host.into().to_ascii_lowercase(), address));
        self
    }

    /// Allows the credentials to be sent to `url`'s origin (scheme, host and port; the path is
    /// ignored) as well as to the origin of the agent they were given for. Repeatable.
    ///
    /// By default credentials go only to the agent's own origin: a card naming an interface, a
    /// token endpoint or an OpenID Connect discovery URL on another origin gets none (the request
    /// goes without them, or for a token endpoint is not sent, and the error says so). Allow the
    /// origins you trust with your credentials, an identity provider's say. See [`crate::auth`].
    ///
    /// ```
    /// use a2a_typestate_client::Client;
    ///
    /// let client = Client::builder()
    ///     .allow_credential_origin("https://login.example.com")
    ///     .build()?;
    /// # let _ = client;
    /// assert!(Client::builder().allow_credential_origin("file:///etc").build().is_err());
    /// # Ok::<(), a2a_typestate_client::Error>(())
    /// ```
    pub fn allow_credential_origin(mut self, url: impl Into<String>) -> Self {
        self.credential_origins.push(url.into());
        self
    }

    /// Sets the `User-Agent` header.
    pub fn user_agent(mut self, value: impl Into<String>) -> Self {
        self.config.user_agent = value.into();
        self
    }

    /// Sets how many bytes of response bodies (cards and answers) this client reads and parses at once
    /// ([`DEFAULT_DOCUMENT_BUDGET`] by default), whatever its concurrency: each read reserves its
    /// `Content-Length`, or the body limit when none is sent, and waits while the budget is spent. A
    /// budget below the body limit still reads every body, one at a time.
    pub fn document_budget(mut self, bytes: usize) -> Self {
        self.config.document_budget = bytes;
        self
    }

    /// Caps the idle connections kept open per host for reuse; connections returned beyond the cap
    /// are closed. By default there is no cap, so steady load never reconnects: a cap below the calls
    /// a caller keeps in flight to one agent makes every call past it open a connection and close it
    /// again (BENCHMARKS.md, figure 2). A cap bounds the sockets and memory a burst leaves behind
    /// (about 33 KiB per connection, figure 4); `0` keeps none, so every call opens a connection.
    pub fn pool_max_idle_per_host(mut self, connections: usize) -> Self {
        self.config.pool_max_idle_per_host = Some(connections);
        self
    }

    /// Sets what discovery does with card signatures ([`CardSignaturePolicy::Ignore`] by default, as
    /// before signing existed). Under `VerifyIfPresent` or `Require` a card that fails is never
    /// cached and drives no claim; the discovery fails with [`crate::ErrorKind::CardSignature`].
    /// See [`crate::signing`].
    pub fn card_signature_policy(mut self, policy: CardSignaturePolicy) -> Self {
        self.config.card_signature_policy = policy;
        self
    }

    /// Sets the keys (and trusted `jku` URLs) card signatures are checked against; empty by
    /// default. Setting it does not change the policy.
    pub fn card_trust_store(mut self, store: TrustStore) -> Self {
        self.config.card_trust_store = store;
        self
    }

    /// Sets how answers that deviate from the 1.0 wire format are read ([`WireReading::Strict`]
    /// by default).
    pub fn wire_reading(mut self, reading: WireReading) -> Self {
        self.config.wire_reading = reading;
        self
    }

    /// Shares a discovery cache with other clients (each client gets its own by default).
    pub fn discovery_cache(mut self, cache: DiscoveryCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Shares counters with other clients (each client gets its own by default).
    pub fn metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Names this client's replica, for an orchestrator that runs several: the name is in the metrics
    /// snapshot ([`crate::MetricsSnapshot::replica`]) and on the suspect marks it shares (none by
    /// default).
    pub fn replica_name(mut self, name: impl Into<String>) -> Self {
        self.replica_name = Some(name.into());
        self
    }

    /// Records every run of [`Client::run_task`](crate::Client::run_task) in `journal`, so that
    /// after a crash [`Client::recover`](crate::Client::recover) finds the tasks that had not ended
    /// (see [`crate::journal`]). None by default: where the file lives is the application's choice.
    pub fn journal(mut self, journal: crate::journal::Journal) -> Self {
        self.journal = Some(journal);
        self
    }

    /// Asks for the extension `uri` on every call this client makes (see [`crate::extensions`]);
    /// calls may ask for more ([`CallOptions::extension`]). None by default.
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        if !self.config.extensions.contains(&uri) {
            self.config.extensions.push(uri);
        }
        self
    }

    /// Asks for each of `uris` on every call, as [`ClientBuilder::extension`] does.
    pub fn extensions(self, uris: impl IntoIterator<Item = impl Into<String>>) -> Self {
        uris.into_iter().fold(self, |builder, uri| builder.extension(uri))
    }

    /// The checked configuration and what the client is made of: the last step of
    /// [`ClientBuilder::build`] (written beside [`Client`](crate::Client), which it makes).
    pub(crate) fn into_parts(self) -> Result<ClientParts, Error> {
        let config = self.config;
        let bounds = [
            ("connect timeout", config.connect_timeout),
            ("request timeout", config.request_timeout),
            ("operation deadline", config.operation_deadline),
            ("sse idle timeout", config.sse_idle_timeout),
            ("unobservable bound", config.unobservable_bound),
            ("task deadline", config.budget.deadline()),
            ("push arrival bound", config.push_arrival_bound),
            ("discovery ttl", config.discovery_ttl),
            ("suspect ttl", config.suspect_ttl),
        ];
        if let Some((name, _)) = bounds.iter().find(|(_, bound)| bound.is_zero()) {
            return Err(Error::config(format!("{name} must be positive")));
        }
        for uri in &config.extensions {
            crate::extensions::check_uri(uri, "client")?;
        }
        if config.max_sse_event_bytes == 0 {
            return Err(Error::config("max sse event size must be positive"));
        }
        if let Some(problem) = config.webhook_limits.problem() {
            return Err(Error::config(problem));
        }
        if let Some(url) = &config.webhook_public_url {
            let ok = url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
            if !ok {
                return Err(Error::config("webhook public url must be an absolute http or https url"));
            }
        }
        if config.card_signature_policy != CardSignaturePolicy::Ignore && config.card_trust_store.is_empty() {
            return Err(Error::config(
                "card signature policy needs a trust store with at least one key or jku",
            ));
        }
        let allowed_origins = self
            .credential_origins
            .iter()
            .map(|url| crate::auth::scope::origin_of(url))
            .collect::<Result<Vec<_>, _>>()?;
        let http = self.http.http_client(&config)?;
        let auth = crate::auth::ClientAuth {
            credentials: self.http.credentials,
            interceptors: self.http.interceptors,
            has_client_identity: http.presents_identity(),
            allowed_origins: allowed_origins.into(),
        };
        let cache =
            self.cache.unwrap_or_else(|| DiscoveryCache::new(config.discovery_ttl, config.suspect_ttl));
        let metrics = self.metrics.unwrap_or_default();
        if let Some(journal) = &self.journal {
            journal.set_owner(self.replica_name.as_deref().unwrap_or(""));
        }
        if let Some(name) = self.replica_name {
            metrics.set_replica(name.clone());
            cache.set_replica_name(name);
        }
        cache.report_to(&metrics);
        Ok(ClientParts { http, config, cache, metrics, auth, journal: self.journal })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn defaults_are_the_documented_values() {
        let config = ClientConfig::default();
        assert_eq!(config.connect_timeout(), Duration::from_secs(10));
        assert_eq!(config.request_timeout(), Duration::from_secs(120));
        assert_eq!(config.sse_idle_timeout(), Duration::from_secs(60));
        assert_eq!(config.max_sse_event_bytes(), 8 * 1024 * 1024);
        assert_eq!(config.poll_cadence().initial(), Duration::from_millis(500));
        assert_eq!(config.push_arrival_bound(), Duration::from_secs(10));
        assert_eq!(config.unobservable_bound(), Duration::from_secs(30));
        assert_eq!(config.poll_cadence().cap(), Duration::from_secs(2));
        assert_eq!(config.discovery_ttl(), Duration::from_secs(300));
        assert_eq!(config.suspect_ttl(), Duration::from_secs(3600));
        assert_eq!(config.suspect_marks(), SuspectMarks::On);
        assert_eq!(config.webhook_addr().to_string(), "127.0.0.1:0");
        assert_eq!(config.pool_max_idle_per_host(), None, "no cap: steady load never reconnects");
        assert_eq!(config.card_signature_policy(), CardSignaturePolicy::Ignore);
        assert!(config.card_trust_store().is_empty());
    }

    #[test]
    fn a_signature_policy_without_trust_store_is_a_configuration_error() {
        for policy in [CardSignaturePolicy::VerifyIfPresent, CardSignaturePolicy::Require] {
            let err = ClientBuilder::new().card_signature_policy(policy).build().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Config, "{policy:?}");
            assert!(err.to_string().contains("trust store"), "{err}");
        }
        assert!(ClientBuilder::new().card_signature_policy(CardSignaturePolicy::Ignore).build().is_ok());
    }

    #[test]
    fn idle_connections_per_host_are_configurable_down_to_none() {
        let client = ClientBuilder::new().pool_max_idle_per_host(0).build().unwrap();
        assert_eq!(client.config().pool_max_idle_per_host(), Some(0));
    }

    #[test]
    fn default_bounds_are_the_verifiers_defaults() {
        assert_eq!(ClientConfig::default().verifier_bounds(), a2a_typestate::Bounds::default());
    }

    #[test]
    fn configured_bounds_reach_the_verifier() {
        let client = ClientBuilder::new().push_arrival_bound(Duration::from_secs(3)).build().unwrap();
        assert_eq!(client.config().verifier_bounds().push_arrival(), Duration::from_secs(3));
    }

    #[test]
    fn zero_bounds_are_configuration_errors_naming_the_bound() {
        let err = ClientBuilder::new().sse_idle_timeout(Duration::ZERO).build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config);
        assert_eq!(err.to_string(), "invalid configuration: sse idle timeout must be positive");
        let err = ClientBuilder::new().max_sse_event_bytes(0).build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config);
    }

    #[test]
    fn webhook_public_url_must_be_absolute_http() {
        let err = ClientBuilder::new().webhook_public_url("not a url").build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config);
        assert!(ClientBuilder::new().webhook_public_url("https://hooks.example/a2a").build().is_ok());
    }

    #[test]
    fn poll_cadence_grows_by_its_factor_up_to_its_cap() {
        let cadence = PollCadence::new(Duration::from_millis(100), 2.0, Duration::from_millis(500)).unwrap();
        let delays: Vec<_> = (0..5).map(|n| cadence.delay(n).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 500, 500]);
        assert_eq!(cadence.delay(u32::MAX), Duration::from_millis(500));
    }

    #[test]
    fn poll_cadence_rejects_shrinking_or_zero_delays() {
        assert!(PollCadence::new(Duration::ZERO, 2.0, Duration::from_secs(1)).is_err());
        assert!(PollCadence::new(Duration::from_secs(1), 0.5, Duration::from_secs(2)).is_err());
        assert!(PollCadence::new(Duration::from_secs(1), f64::NAN, Duration::from_secs(2)).is_err());
        assert!(PollCadence::new(Duration::from_secs(2), 2.0, Duration::from_secs(1)).is_err());
    }
}
