//! The wire under an [`AgentConnection`](crate::AgentConnection): one selected interface, its binding
//! and version, and the request plumbing every call shares (headers, timeouts, counting, retries,
//! bounded bodies, error bodies).
//!
//! Inside: `jsonrpc` (JSON-RPC 2.0 for 1.0 `SendMessage`... and 0.3 `message/send`...), `rest` (the
//! HTTP+JSON binding, 1.0 and 0.3), `grpc` (the 1.0 gRPC binding, feature `grpc`), `v03` (0.3 request and result conversion, so callers only see 1.0 types),
//! `stream` ([`EventStream`]), `poll` ([`TaskPoll`], [`TaskFollow`]) and `pages` ([`TaskPages`]).
//!
//! ```
//! use a2a_typestate_client::transport::{A2A_JSON_MEDIA_TYPE, A2A_VERSION_HEADER};
//! use a2a_typestate_client::{StreamEnd, TransportFault};
//!
//! assert_eq!((A2A_VERSION_HEADER, A2A_JSON_MEDIA_TYPE), ("A2A-Version", "application/a2a+json"));
//! // A stream either closed after its last event, or broke and must be reattached.
//! let broke = StreamEnd::Dropped(TransportFault::Reset);
//! assert_ne!(broke, StreamEnd::Closed);
//! ```

pub(crate) mod deviation;
pub(crate) mod event_text;
#[cfg(feature = "grpc")]
pub(crate) mod grpc;
pub(crate) mod jsonrpc;
pub(crate) mod pages;
pub(crate) mod poll;
pub(crate) mod rest;
pub(crate) mod stream;
pub(crate) mod v03;

use std::sync::Arc;
use std::time::Duration;

use a2a_typestate_types::discovery::{OfferedInterface, ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::Value;

use crate::agent_url::AgentBaseUrl;
use crate::agent_url::interface_url;
use crate::budget::DocumentBudget;
use crate::card::DiscoveredCard;
use crate::config::CallScope;
use crate::net::{Request, Response, read_budgeted};
use crate::sse::{SseEvent, SseLimits, SseStream};
use crate::{Client, Error, ProtocolError};

pub use pages::TaskPages;
pub use poll::{TaskFollow, TaskPoll};
pub(crate) use stream::Decoded;
pub use stream::{EventStream, StreamEnd};

/// The `A2A-Version` header every 1.0 request carries (both official servers refuse a request
/// without it, and the JS one refuses `1.0.0`).
pub const A2A_VERSION_HEADER: &str = "A2A-Version";
/// The media type the HTTP+JSON binding sends (v1.0.1 §11.1); `application/json` is accepted back.
pub const A2A_JSON_MEDIA_TYPE: &str = "application/a2a+json";
/// Largest non-streaming response body read: 8 MiB, as `a2a_typestate_types::parse::DEFAULT_MAX_DOCUMENT_BYTES`.
pub const MAX_RESPONSE_BYTES: usize = a2a_typestate_types::parse::DEFAULT_MAX_DOCUMENT_BYTES;

/// Which protocol is spoken at the selected interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wire {
    /// 1.0 over JSON-RPC.
    JsonRpc,
    /// 1.0 over HTTP+JSON.
    HttpJson,
    /// 0.3 over JSON-RPC.
    JsonRpcV03,
    /// 0.3 over HTTP+JSON (the `/v1` routes, `kind`-shaped bodies).
    HttpJsonV03,
    /// 1.0 over gRPC (feature `grpc`).
    #[cfg(feature = "grpc")]
    Grpc,
}

impl Wire {
    /// The wire for an offered interface, when this client speaks it.
    pub(crate) fn of(interface: &OfferedInterface) -> Option<Self> {
        match (&interface.protocol_version, &interface.binding) {
            (ProtocolVersion::V1_0, ProtocolBinding::JsonRpc) => Some(Self::JsonRpc),
            (ProtocolVersion::V1_0, ProtocolBinding::HttpJson) => Some(Self::HttpJson),
            (ProtocolVersion::V0_3, ProtocolBinding::JsonRpc) => Some(Self::JsonRpcV03),
            (ProtocolVersion::V0_3, ProtocolBinding::HttpJson) => Some(Self::HttpJsonV03),
            #[cfg(feature = "grpc")]
            (ProtocolVersion::V1_0, ProtocolBinding::Grpc) => Some(Self::Grpc),
            _ => None,
        }
    }

    fn is_v1(self) -> bool {
        matches!(self, Self::JsonRpc | Self::HttpJson)
    }

    /// Whether the wire speaks 0.3 (no `A2A-Version`, no tenant, the 0.3 extensions header).
    pub(crate) fn is_v03(self) -> bool {
        matches!(self, Self::JsonRpcV03 | Self::HttpJsonV03)
    }
}

tokio::task_local! {
    /// Set while a send runs ([`sending`]): what [`Endpoint::retrying`] reads to retry only the
    /// faults that prove the agent did not take the request.
    static SENDING: ();
}

/// Runs `send` (a `SendMessage`, or opening a `SendStreamingMessage` until its first event) as a
/// send: the calls inside it are not repeated after a fault that leaves open whether the agent
/// took the request (see [`Error::may_have_run`]).
pub(crate) async fn sending<F: std::future::Future>(send: F) -> F::Output {
    SENDING.scope((), send).await
}

/// Whether the current call runs inside [`sending`].
fn is_sending() -> bool {
    SENDING.try_with(|()| ()).is_ok()
}

/// One agent's selected interface, with what every call to it needs: what all views of a
/// connection share ([`EndpointCore`], reached through `Deref`), the card the connection goes by,
/// and the scope of the calls made through this view (the extensions asked for, the call options,
/// the extensions the agent activated).
pub(crate) struct Endpoint {
    core: Arc<EndpointCore>,
    pub(crate) card: DiscoveredCard,
    pub(crate) scope: CallScope,
}

/// What every view of one connection shares.
pub(crate) struct EndpointCore {
    pub(crate) client: Client,
    pub(crate) agent: AgentBaseUrl,
    pub(crate) interface: OfferedInterface,
    /// The interface URL, resolved against the card's URL when the card gave a relative one.
    pub(crate) url: url::Url,
    /// The same URL as a request URI, parsed once for every call to it.
    pub(crate) uri: http::Uri,
    pub(crate) wire: Wire,
    /// The credentials this connection sends, chosen from the card's security requirements.
    pub(crate) auth: crate::auth::AuthLayer,
    /// This agent's request counter in the client's metrics, found once so a call only adds to it.
    pub(crate) requests: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The HTTP/2 channel of a gRPC interface, opened on first use.
    #[cfg(feature = "grpc")]
    pub(crate) grpc: std::sync::Arc<grpc::GrpcChannel>,
}

impl std::ops::Deref for Endpoint {
    type Target = EndpointCore;

    fn deref(&self) -> &EndpointCore {
        &self.core
    }
}

impl Endpoint {
    /// Checks that `interface` is one this client speaks and resolves its URL.
    pub(crate) fn new(
        client: Client,
        agent: AgentBaseUrl,
        card: DiscoveredCard,
        interface: OfferedInterface,
    ) -> Result<Self, Error> {
        Self::for_skill(client, agent, card, interface, None)
    }

    /// As [`Endpoint::new`], meeting the security requirements of the card's skill `skill` (its own
    /// when it lists any, else the card's).
    pub(crate) fn for_skill(
        client: Client,
        agent: AgentBaseUrl,
        card: DiscoveredCard,
        interface: OfferedInterface,
        skill: Option<&str>,
    ) -> Result<Self, Error> {
        let Some(wire) = Wire::of(&interface) else {
            return Err(Error::protocol_answer(format!(
                "this client does not speak protocol {} over {} (offered at {})",
                interface.protocol_version, interface.binding, interface.url
            )));
        };
        let base = url::Url::parse(card.source_url())
            .or_else(|_| url::Url::parse(agent.as_str()))
            .map_err(|e| Error::protocol_answer(format!("agent url is not a url: {e}")))?;
        let url = interface_url(&base, &interface)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::protocol_answer(format!(
                "interface url must be http or https, not {}",
                url.scheme()
            )));
        }
        client.config().url_policy().check_url(&url)?;
        let uri = crate::net::uri_of(url.as_str())?;
        let held = client.auth();
        let requirements = crate::auth::select::requirements_for(card.card(), skill)?;
        let selection = crate::auth::select::select(
            card.card(),
            requirements,
            &held.credentials,
            &agent,
            held.has_client_identity,
        )?;
        let side = crate::auth::ClientSide {
            auth: held,
            http: client.http_client(),
            request_timeout: client.config().request_timeout(),
            url_policy: client.config().url_policy(),
        };
        let auth = crate::auth::AuthLayer::new(side, agent.clone(), selection, &url);
        let requests = client.metrics().request_counter(agent.as_str());
        let scope = CallScope::of_client(client.config());
        let core = EndpointCore {
            client,
            agent,
            interface,
            url,
            uri,
            wire,
            auth,
            requests,
            #[cfg(feature = "grpc")]
            grpc: std::sync::Arc::default(),
        };
        Ok(Self { core: Arc::new(core), card, scope })
    }

    /// The same interface, card and credentials, its calls made within `scope` (a view's).
    pub(crate) fn scoped(&self, scope: CallScope) -> Self {
        Self { core: Arc::clone(&self.core), card: self.card.clone(), scope }
    }

    /// The extensions header of this interface's protocol version.
    pub(crate) fn extensions_header(&self) -> &'static str {
        if self.wire.is_v03() {
            crate::extensions::A2A_EXTENSIONS_HEADER_V03
        } else {
            crate::extensions::A2A_EXTENSIONS_HEADER
        }
    }

    /// Records the extensions an answer's headers say the agent activated (either version's
    /// header: an agent may answer in the other's).
    fn record_activated(&self, headers: &http::HeaderMap) {
        let named = [crate::extensions::A2A_EXTENSIONS_HEADER, crate::extensions::A2A_EXTENSIONS_HEADER_V03]
            .into_iter()
            .flat_map(|name| headers.get_all(name).into_iter().map(http::HeaderValue::as_bytes));
        self.scope.activated.record(named);
    }

    /// This endpoint with `card` in place of the card it was opened from (the extended card).
    pub(crate) fn with_card(self, card: DiscoveredCard) -> Self {
        Self { card, ..self }
    }

    /// The error for a 401 or 403 answer.
    pub(crate) fn rejected(&self, status: u16, url: &str) -> Error {
        self.auth.rejected(status, url)
    }

    /// A request to `uri` accepting `accept`, with `body` (its media type and bytes) when there is
    /// one, the headers of this interface's protocol version, the extensions asked for and the
    /// call's own headers.
    pub(crate) fn request(
        &self,
        method: http::Method,
        uri: http::Uri,
        accept: &'static str,
        body: Option<(&'static str, bytes::Bytes)>,
    ) -> Request {
        use http::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
        let (content_type, bytes) =
            body.map_or((None, bytes::Bytes::new()), |(kind, bytes)| (Some(kind), bytes));
        let mut request = Request::new(bytes);
        *request.method_mut() = method;
        *request.uri_mut() = uri;
        let headers = request.headers_mut();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Some(content_type) = content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        if self.wire.is_v1() {
            headers.insert(A2A_VERSION_HEADER, HeaderValue::from_static("1.0"));
        }
        self.scope.write_headers(headers, self.extensions_header());
        // The caller's trace context, on every HTTP request to the agent (calls and streams alike).
        #[cfg(feature = "otel")]
        crate::otel::inject_trace_context(headers);
        request
    }

    /// Counts one request to this agent.
    pub(crate) fn record_request(&self) {
        self.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The tenant to send, from the selected interface (v1.0.1 §8.3.2 rule 4).
    pub(crate) fn tenant(&self) -> Option<&str> {
        self.interface.tenant.as_deref()
    }

    /// The bound of one attempt: the client's request timeout, or the call's when shorter.
    pub(crate) fn request_timeout(&self) -> Duration {
        self.scope.request_timeout(self.client.config().request_timeout())
    }

    /// Sends one request, counted against the agent, its wait bounded by the request timeout (for a
    /// stream: until the response headers arrive; the SSE idle bound takes over after).
    pub(crate) async fn send(&self, request: Request, url: &str) -> Result<Response, Error> {
        self.bounded(url, self.send_unbounded(request, url)).await
    }

    /// Sends one request, counted against the agent, with no bound of its own: for a caller that
    /// bounds the whole exchange once ([`Endpoint::bounded`]), so each attempt pays one timer.
    pub(crate) async fn send_unbounded(&self, request: Request, url: &str) -> Result<Response, Error> {
        // A copy for the one resend after a 401, when a provider can refresh (bodies here are bytes).
        let copy = self.auth.sends_credentials().then(|| crate::net::copy(&request));
        let response = self.exchange(request, url, 1).await?;
        if response.status() == http::StatusCode::UNAUTHORIZED
            && let Some(copy) = copy
            && self.auth.refresh_after_rejection()
        {
            tracing::debug!(agent = %self.agent.as_str(), "401 after a credential refresh was possible: sending once more");
            let response = self.exchange(copy, url, 2).await?;
            self.record_activated(response.headers());
            return Ok(response);
        }
        self.record_activated(response.headers());
        Ok(response)
    }

    /// One send: the auth layer and the interceptors before, the interceptors after.
    async fn exchange(&self, mut request: Request, url: &str, attempt: u32) -> Result<Response, Error> {
        use crate::auth::{Interceptor as _, RequestContext, ResponseInfo};
        let context = RequestContext { agent: &self.agent, attempt };
        if self.auth.sends_credentials() {
            self.auth.before(&mut request, &context).await?;
        }
        let interceptors = &self.client.auth().interceptors;
        for interceptor in interceptors {
            interceptor.before(&mut request, &context).await?;
        }
        self.record_request();
        let started = std::time::Instant::now();
        let outcome = self.client.http_client().send(request).await.map_err(|e| e.with_url(url));
        if !interceptors.is_empty() {
            let shown = crate::error::redact_url(url);
            let info = ResponseInfo {
                agent: &self.agent,
                url: &shown,
                status: outcome.as_ref().ok().map(|r| r.status().as_u16()),
                elapsed: started.elapsed(),
                error: outcome.as_ref().err(),
                attempt,
            };
            for interceptor in interceptors {
                interceptor.after(&info);
            }
        }
        outcome
    }

    /// Runs `exchange` within the request timeout: a timeout fault naming `url` when it runs out.
    /// (Not an `async fn` of its own: a second layer would hold `exchange` twice in debug builds.)
    pub(crate) fn bounded<'a, T: 'a>(
        &self,
        url: &'a str,
        exchange: impl std::future::Future<Output = Result<T, Error>> + 'a,
    ) -> impl std::future::Future<Output = Result<T, Error>> + 'a {
        crate::net::within(self.request_timeout(), url, exchange)
    }

    /// Reads a whole response body (at most [`MAX_RESPONSE_BYTES`], within the request timeout) as
    /// JSON; an empty body reads as `{}`.
    pub(crate) async fn read_json(&self, response: Response, url: &str) -> Result<Value, Error> {
        self.bounded(url, read_json_unbounded(response, url, self.client.documents())).await
    }

    /// Reads a whole response body (at most [`MAX_RESPONSE_BYTES`], within the request timeout)
    /// within the document budget, as bytes.
    pub(crate) async fn read_body(
        &self,
        response: Response,
        url: &str,
    ) -> Result<crate::budget::Body, Error> {
        self.bounded(url, read_budgeted(response, MAX_RESPONSE_BYTES, url, self.client.documents())).await
    }

    /// The error for an unreadable answer with a non-2xx `status`: the agent's A2A error when `agent_error`
    /// finds one in the body, else the status with the start of the body (which says why, as often
    /// as not). A body that cannot be read at all leaves just the status.
    ///
    /// Boxed: reading an error body is the rare path, and inline its state would make every call's
    /// future (which each attempt copies into its box and keeps in cache) as large as this one.
    pub(crate) fn status_answer<'a>(
        &'a self,
        response: Response,
        status: u16,
        url: &'a str,
        agent_error: impl FnOnce(&Value) -> Option<Error> + Send + 'a,
    ) -> futures::future::BoxFuture<'a, Error> {
        Box::pin(async move {
            let wait = crate::retry::retry_after(response.headers());
            let Ok(body) = self.read_body(response, url).await else {
                return Error::from_status(status, Some(url)).with_retry_after(wait);
            };
            if let Some(error) = json_body(&body.bytes, url).ok().as_ref().and_then(agent_error) {
                return error;
            }
            Error::from_status(status, Some(url)).with_body(&body.bytes, false).with_retry_after(wait)
        })
    }

    /// Runs a non-streaming call, retried on transport faults per the client's policy, all attempts
    /// together within the operation deadline ([`ClientConfig::operation_deadline`](crate::ClientConfig::operation_deadline)).
    ///
    /// Inside [`sending`] (a `SendMessage` or `SendStreamingMessage`), a fault that leaves open
    /// whether the agent took the request (a timeout, a reset, a 504, the deadline cutting an
    /// attempt) ends the call as [`Error::may_have_run`], never retried: the work may be running.
    pub(crate) async fn retrying<T, F, Fut>(&self, mut op: F) -> Result<T, Error>
    where
        F: FnMut(crate::retry::Attempt) -> Fut,
        Fut: std::future::Future<Output = Result<T, Error>>,
    {
        let config = self.client.config();
        // The final error says how many attempts ran and how long they took (see `retry`).
        let deadline = self.scope.operation_deadline(config.operation_deadline());
        let request_timeout = self.request_timeout();
        let policy = config.retry_policy();
        let (metrics, url) = (self.client.metrics(), self.agent.as_str());
        // Each attempt is boxed: the policy's timers and the retry loop then hold and move a
        // pointer, not the binding's whole call (an HTTP exchange, its body read and parse).
        if !is_sending() {
            return policy.run_within(metrics, deadline, request_timeout, url, |n| Box::pin(op(n))).await;
        }
        let attempt = |n| {
            let call = Box::pin(op(n));
            async move { call.await.map_err(Error::sent_unanswered) }
        };
        policy
            .run_within(metrics, deadline, request_timeout, url, attempt)
            .await
            .map_err(Error::sent_unanswered)
    }

    /// Opens a stream with `open` (which sends the request and checks the response is SSE), decoding
    /// each event with `decode` once its `data` is the JSON text alone, read as `reading` says
    /// ([`event_text::take_json_text`], the one place every binding's events go through). Retried on
    /// transport faults until the first event is read, never after: once an event was delivered,
    /// reattaching is the caller's decision (`resubscribe`).
    pub(crate) async fn open_stream<F, Fut, D>(
        &self,
        open: F,
        reading: event_text::EventReading,
        decode: D,
    ) -> Result<EventStream, Error>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<Response, Error>>,
        D: Fn(SseEvent) -> Result<Decoded, Error> + Send + Sync + Clone + 'static,
    {
        let limits = SseLimits::from_config(self.client.config());
        let budget = self.client.documents().clone();
        self.retrying(|_| {
            let decode = decode.clone();
            let budget = budget.clone();
            let reading = reading.clone();
            let opened = open();
            async move {
                let response = opened.await?;
                // The event's number on this stream, counted from 1 as the decoders count theirs.
                let mut number = 0_u64;
                let mut events: BoxStream<'static, Result<Decoded, Error>> =
                    SseStream::from_response(response, limits)
                        .then(move |event| {
                            let (decode, budget) = (decode.clone(), budget.clone());
                            number += u64::from(event.is_ok());
                            let event = event.and_then(|mut event| {
                                event_text::take_json_text(&mut event, number, &reading)?;
                                Ok(event)
                            });
                            // An event is parsed within the document budget, as a whole answer is:
                            // its room is held until it is typed.
                            async move {
                                let event = event?;
                                let _room = budget.reserve(event.data.len()).await;
                                decode(event)
                            }
                        })
                        .boxed();
                match events.next().await {
                    Some(Ok(first)) => Ok(EventStream::new(Some(first), events)),
                    Some(Err(error)) => Err(error),
                    None => Ok(EventStream::new(None, events)),
                }
            }
        })
        .await
    }
}

/// Reads a whole response body (at most [`MAX_RESPONSE_BYTES`]) as JSON, with no bound of its own
/// (the caller bounds the exchange); an empty body reads as `{}`.
pub(crate) async fn read_json_unbounded(
    response: Response,
    url: &str,
    budget: &DocumentBudget,
) -> Result<Value, Error> {
    // The room is held until the body is parsed.
    let body = read_budgeted(response, MAX_RESPONSE_BYTES, url, budget).await?;
    json_body(&body.bytes, url)
}

/// A response body from `url` as JSON; an empty body reads as `{}`.
pub(crate) fn json_body(body: &[u8], url: &str) -> Result<Value, Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    a2a_typestate_types::parse::from_slice_fast(body)
        .map_err(|e| Error::bad_input("response body", e).with_url(url))
}

/// Whether a response is an event stream (else it is a plain JSON answer, such as an error).
pub(crate) fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// `bytes` read straight into `T` (the whole document, a `null` member as left out: the model's
/// reading, [`NullAsDefault`](a2a_typestate_types::protojson::NullAsDefault)), or `None` when they
/// do not read: the caller reads them again through a `Value` to say what is wrong, or what the
/// agent's error was.
pub(crate) fn straight<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(a2a_typestate_types::protojson::NullAsDefault::new(&mut de)).ok()?;
    de.end().ok()?;
    Some(value)
}

/// Reads a value of `T` from JSON, naming `what` and the JSON path on failure (the path is tracked
/// only when the plain read fails: tracking it on every answer cost a third of the parse).
pub(crate) fn read<T: serde::de::DeserializeOwned>(what: &'static str, value: Value) -> Result<T, Error> {
    a2a_typestate_types::parse::from_value_fast(value).map_err(|e| Error::bad_input(what, e))
}

/// The error for a response that is neither the expected result nor an A2A error.
pub(crate) fn unexpected(what: &'static str, message: impl Into<String>) -> Error {
    Error::bad_input(what, ParseError::new(ParseErrorKind::Shape, "", message.into()))
}

/// A protocol error as an [`Error`].
pub(crate) fn protocol(error: ProtocolError, url: &str) -> Error {
    Error::protocol(error).with_url(url)
}
