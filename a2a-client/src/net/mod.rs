//! The HTTP stack under every request the client sends: by default one hyper-util connection pool
//! over rustls (HTTP/1.1, and HTTP/2 where an https agent offers it), with the builder's roots, client
//! identity, proxy, connect timeout, user agent and default headers.
//!
//! It is hyper-util rather than reqwest because of what one call costs: with 64 calls in flight,
//! a hand-written client on each spent 32.3 µs (reqwest) and 20.7 µs (hyper-util) of CPU per call
//! (BENCHMARKS.md, figure 2). A request here is the `http` crate's own ([`Request`], the crate
//! re-exported as [`http`] for its methods, headers and URIs), handed to the pool as it
//! is.
//!
//! Redirects: a GET follows at most ten, within the agent's origin, each hop passing the URL
//! policy; card discovery follows the policy's card redirects instead
//! ([`UrlPolicy`], same origin by default). A redirect back to a URL already visited is refused
//! as a redirect loop, and an eleventh as too many (both [`ErrorKind::Protocol`](crate::ErrorKind),
//! naming the URLs). A hop to another origin drops `Authorization`,
//! `Cookie`, `Proxy-Authorization` and every header marked sensitive. Any other request, and any
//! redirect not followed, is answered as it is (a 3xx status error naming the URL): a POST is never
//! replayed to a URL the caller did not choose.
//!
//! # Bringing your own HTTP client
//!
//! [`ClientBuilder::http_service`](crate::ClientBuilder::http_service) puts a service of the user's
//! in the pool's place: a [`tower_service::Service`] from a [`Request`] to an `http::Response` whose
//! body is an [`http_body::Body`] of byte chunks. With the feature `reqwest`, `ReqwestService`
//! (below) adapts a `reqwest::Client` or a `reqwest_middleware::ClientWithMiddleware`. Everything this
//! client sends over HTTP then goes through it: both HTTP bindings (JSON-RPC and HTTP+JSON, 1.0 and
//! 0.3), event streams, card discovery, the extended card, OAuth2 token and metadata requests, and
//! the JWKS of signed cards. The gRPC binding keeps its tonic channel, which checks agents against
//! the system's roots.
//!
//! The service owns how bytes reach the agent: TLS and its roots, client certificates, proxies,
//! connection pools, HTTP versions, DNS, compression, cookies, and any middleware (retries, logs,
//! headers of its own). This client keeps, over any service:
//!
//! - **redirects**: the rules above, run by this client hop by hop. The service must answer a
//!   redirect as it is and not follow it (a reqwest client built with `redirect::Policy::none()`);
//!   the reqwest adapter refuses an answer from another URL than the one asked, naming both.
//! - **the URL policy and credentials' origins**: every URL is checked before it is handed to the
//!   service, and credentials are added only for the origin they belong to; on a hop to another
//!   origin they are dropped as above. A service that follows a redirect itself (or that sends a
//!   request elsewhere) is outside this: it must not.
//! - **body limits and the document budget**: the service hands over the body as a stream; this
//!   client reads it, bounded by the same limits and within the same budget as on its own stack.
//! - **bounds**: the request timeout, operation deadline, SSE idle bound and task deadline are this
//!   client's own timers, around the service's future and its body. (The builder's connect timeout
//!   and idle pool bound are the pool's, and do not apply to a service.) The service must not cut a
//!   long answer short with a total timeout of its own: an event stream stays open for minutes.
//! - **the user agent and default headers**, added to each request before the service sees it.
//!
//! A service's error is the client's own [`Error`] when it is one (the reqwest adapter's are),
//! else a transport fault as its chain says (a connect failure, a reset, a timeout), or
//! [`TransportFault::Other`](crate::TransportFault::Other), not retried, when nothing says which.
//!
//! ```
//! use a2a_typestate_client::Client;
//! use a2a_typestate_client::net::{Certificate, Proxy};
//!
//! let client = Client::builder().proxy(Proxy::http("http://proxy.internal:3128")?).build()?;
//! // Another client on the same connections, proxy and roots, with its own cache and policy.
//! let second = Client::builder().http_client(client.http_client().clone()).build()?;
//! assert!(Certificate::from_pem(b"not pem").is_err());
//! # drop(second);
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```
//!
//! With a reqwest client of the user's (feature `reqwest`):
//!
#![cfg_attr(feature = "reqwest", doc = "```")]
#![cfg_attr(not(feature = "reqwest"), doc = "```ignore")]
//! use a2a_typestate_client::Client;
//! use a2a_typestate_client::net::ReqwestService;
//!
//! // Redirects are the a2a client's: the reqwest client answers them as they are.
//! let reqwest = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build()?;
//! let client = Client::builder().http_service(ReqwestService::new(reqwest)).build()?;
//! # drop(client);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod body;
mod connect;
pub(crate) mod identity;
pub(crate) mod proxy;
#[cfg(feature = "reqwest")]
mod reqwest_service;
mod resolve;
mod service;
mod tls;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use futures::future::BoxFuture;
use http::header::{
    AUTHORIZATION, CONTENT_LENGTH, COOKIE, HeaderMap, HeaderName, HeaderValue, LOCATION, PROXY_AUTHORIZATION,
    USER_AGENT,
};
use http::{Method, StatusCode, Uri};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy;
use hyper_util::client::proxy::matcher::Matcher;
use url::Url;

use crate::Error;
use crate::url_policy::UrlPolicy;

pub use ::http;
pub(crate) use body::{read_bounded, read_budgeted, read_snippet};
pub use proxy::Proxy;
#[cfg(feature = "reqwest")]
pub use reqwest_service::ReqwestService;
pub(crate) use resolve::PolicyResolver;
use service::ResponseBody;
pub(crate) use service::SharedService;
pub use tls::Certificate;
pub(crate) use tls::provider;

/// A request as it is sent, and as an [`Interceptor`](crate::auth::Interceptor) sees it: method,
/// URI, headers, and the body as bytes.
pub type Request = http::Request<Bytes>;

/// Redirects a GET follows at most.
const MAX_REDIRECTS: usize = 10;

type Pool = legacy::Client<hyper_rustls::HttpsConnector<connect::Connector>, Full<Bytes>>;

/// The client's HTTP stack: a connection pool (or the user's HTTP service, see
/// [`ClientBuilder::http_service`](crate::ClientBuilder::http_service)) and the settings every request
/// gets. Cheap to clone; clones share the pool. Hand one to
/// [`ClientBuilder::http_client`](crate::ClientBuilder::http_client) to run several
/// [`Client`](crate::Client)s on the same connections.
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

struct Inner {
    stack: Stack,
    user_agent: HeaderValue,
    headers: Headers,
    /// Kept for `Proxy-Authorization` on plain http requests sent to a proxy whole.
    proxy: Option<Arc<Matcher>>,
    /// The client identity the TLS configuration presents (kept for the gRPC binding's TLS too).
    identity: Option<identity::ClientIdentity>,
    url_policy: UrlPolicy,
    /// The verifier the TLS configuration checks agents with, for the gRPC binding's own TLS
    /// (tonic's), so it checks them as this stack does.
    #[cfg(feature = "grpc")]
    verifier: Arc<dyn rustls::client::danger::ServerCertVerifier>,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("user_agent", &self.inner.user_agent)
            .field("default_headers", &self.inner.headers.all.keys().collect::<Vec<_>>())
            .field("origin_headers", &self.inner.headers.by_origin.len())
            .field(
                "stack",
                &match self.inner.stack {
                    Stack::Pool(_) => "hyper-util",
                    Stack::Service(_) => "http service",
                },
            )
            .field("proxy", &self.inner.proxy.is_some())
            .field("presents_identity", &self.presents_identity())
            .finish_non_exhaustive()
    }
}

/// What sends a request: the default pool, or the user's service. An enum, not a trait object, so
/// that a request on the pool is not boxed once more than it always was.
// The pool is large and the service a pointer; boxing the pool would add a pointer chase per request
// for no gain: one `Stack` lives in each client's `Inner`, behind its `Arc`.
#[allow(clippy::large_enum_variant)]
enum Stack {
    Pool(Pool),
    Service(SharedService),
}

impl HttpClient {
    /// Whether requests may carry headers the auth layer does not know of: default headers, or a
    /// user's own HTTP stack (its middleware may add any). Such a request may carry credentials.
    pub(crate) fn may_add_headers(&self) -> bool {
        let headers = &self.inner.headers;
        !headers.all.is_empty()
            || !headers.by_origin.is_empty()
            || matches!(self.inner.stack, Stack::Service(_))
    }

    /// Adds to `headers` the ones given for the origin of `uri`, each unless `headers` has one of
    /// that name: where a request goes decides which it carries, so a redirect or an interface on
    /// another origin gets none of them.
    pub(crate) fn add_origin_headers(&self, uri: &http::Uri, headers: &mut HeaderMap) {
        let by_origin = &self.inner.headers.by_origin;
        if by_origin.is_empty() {
            return;
        }
        let Some(origin) = uri_origin(uri) else { return };
        let present: Vec<HeaderName> = by_origin
            .iter()
            .filter(|(o, name, _)| *o == origin && headers.contains_key(name))
            .map(|(_, name, _)| name.clone())
            .collect();
        for (o, name, value) in by_origin {
            if *o == origin && !present.contains(name) {
                headers.append(name.clone(), value.clone());
            }
        }
    }
}

/// The origin (scheme, host, port) a request URI goes to; `None` for one without scheme or host.
pub(crate) fn uri_origin(uri: &http::Uri) -> Option<url::Origin> {
    let (scheme, authority) = (uri.scheme_str()?, uri.authority()?);
    Url::parse(&format!("{scheme}://{authority}/")).ok().map(|url| url.origin())
}

/// The headers the client adds to requests: to every one, and to those bound for one origin.
pub(crate) struct Headers {
    pub(crate) all: HeaderMap,
    pub(crate) by_origin: Vec<(url::Origin, HeaderName, HeaderValue)>,
}

/// What [`HttpClient::new`] is made of.
pub(crate) struct Parts<'a> {
    pub(crate) roots: &'a [Certificate],
    pub(crate) only_added_roots: bool,
    pub(crate) identity: Option<&'a identity::ClientIdentity>,
    pub(crate) proxy: Option<Matcher>,
    pub(crate) connect_timeout: Duration,
    pub(crate) pool_max_idle_per_host: Option<usize>,
    pub(crate) user_agent: &'a str,
    pub(crate) headers: Headers,
    pub(crate) url_policy: UrlPolicy,
    pub(crate) resolve: &'a [(String, std::net::IpAddr)],
}

impl HttpClient {
    pub(crate) fn new(parts: Parts<'_>) -> Result<Self, Error> {
        let (tls, verifier) = tls::client_config(parts.roots, parts.only_added_roots, parts.identity)?;
        #[cfg(not(feature = "grpc"))]
        drop(verifier);
        let mut direct = legacy::connect::HttpConnector::new_with_resolver(PolicyResolver::new(
            parts.url_policy,
            parts.resolve,
        ));
        direct.enforce_http(false);
        direct.set_nodelay(true);
        direct.set_connect_timeout(Some(parts.connect_timeout));
        let proxy = parts.proxy.map(Arc::new);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .wrap_connector(connect::Connector {
                direct,
                proxy: proxy.clone(),
                connect_timeout: parts.connect_timeout,
            });
        let mut pool = legacy::Client::builder(hyper_util::rt::TokioExecutor::new());
        pool.pool_timer(hyper_util::rt::TokioTimer::new());
        if let Some(idle) = parts.pool_max_idle_per_host {
            pool.pool_max_idle_per_host(idle);
        }
        let user_agent = HeaderValue::from_str(parts.user_agent)
            .map_err(|_| Error::config("the user agent holds characters a header cannot carry"))?;
        Ok(Self {
            inner: Arc::new(Inner {
                stack: Stack::Pool(pool.build(connector)),
                user_agent,
                headers: parts.headers,
                proxy,
                identity: parts.identity.cloned(),
                url_policy: parts.url_policy,
                #[cfg(feature = "grpc")]
                verifier,
            }),
        })
    }

    /// A stack that sends through the user's `service`, with the user agent, default headers and
    /// redirect rules every request gets: no pool, proxy or TLS settings of its own (the service
    /// has those). The gRPC binding, which has its own channel, checks agents against the system's
    /// roots.
    pub(crate) fn with_service(
        service: SharedService,
        user_agent: &str,
        headers: Headers,
        url_policy: UrlPolicy,
    ) -> Result<Self, Error> {
        #[cfg(feature = "grpc")]
        let (_, verifier) = tls::client_config(&[], false, None)?;
        let user_agent = HeaderValue::from_str(user_agent)
            .map_err(|_| Error::config("the user agent holds characters a header cannot carry"))?;
        Ok(Self {
            inner: Arc::new(Inner {
                stack: Stack::Service(service),
                user_agent,
                headers,
                proxy: None,
                identity: None,
                url_policy,
                #[cfg(feature = "grpc")]
                verifier,
            }),
        })
    }

    /// The verifier and the client identity, for the gRPC binding's TLS.
    #[cfg(feature = "grpc")]
    pub(crate) fn grpc_tls(
        &self,
    ) -> (&Arc<dyn rustls::client::danger::ServerCertVerifier>, Option<&identity::ClientIdentity>) {
        (&self.inner.verifier, self.inner.identity.as_ref())
    }

    /// Whether this client presents a client identity (mutual TLS).
    pub fn presents_identity(&self) -> bool {
        self.inner.identity.is_some()
    }

    /// Sends `request`: the user agent and default headers are added where the request has none
    /// of its own, and a GET follows redirects as the module says. The answer's head is read; its
    /// body is left to the caller.
    ///
    /// The future is boxed, one allocation per request: the exchange's state then stays off the
    /// stack of every future that awaits it (a task's run awaits many).
    ///
    /// # Errors
    /// A transport fault (connect, reset, a response head over hyper's limit as bad input).
    pub fn send(&self, mut request: Request) -> BoxFuture<'_, Result<Response, Error>> {
        Box::pin(async move {
            self.prepare(&mut request, Origin::Asked);
            if request.method() == Method::GET {
                return self.send_following(request).await;
            }
            Ok(Response::new(self.execute(request).await?, None))
        })
    }

    /// Adds the user agent and the default headers; those marked sensitive only on the origin
    /// asked for, not on a redirect hop to another.
    fn prepare(&self, request: &mut Request, origin: Origin) {
        let inner = &*self.inner;
        let uri = request.uri().clone();
        let headers = request.headers_mut();
        self.add_origin_headers(&uri, headers);
        if !headers.contains_key(USER_AGENT) {
            headers.insert(USER_AGENT, inner.user_agent.clone());
        }
        for name in inner.headers.all.keys() {
            if !headers.contains_key(name) {
                for value in inner.headers.all.get_all(name) {
                    if origin == Origin::Asked || !value.is_sensitive() {
                        headers.append(name.clone(), value.clone());
                    }
                }
            }
        }
        if let Some(matcher) = &inner.proxy
            && request.uri().scheme() == Some(&http::uri::Scheme::HTTP)
            && let Some(auth) =
                matcher.intercept(request.uri()).as_ref().and_then(|via| via.basic_auth().cloned())
        {
            request.headers_mut().insert(PROXY_AUTHORIZATION, auth);
        }
    }

    async fn execute(&self, request: Request) -> Result<http::Response<ResponseBody>, Error> {
        match &self.inner.stack {
            Stack::Pool(pool) => {
                let (head, body) = request.into_parts();
                let response = pool
                    .request(http::Request::from_parts(head, Full::new(body)))
                    .await
                    .map_err(Error::from)?;
                Ok(response.map(ResponseBody::Pool))
            }
            Stack::Service(service) => Ok(service.call(request).await?.map(ResponseBody::Service)),
        }
    }

    async fn send_following(&self, request: Request) -> Result<Response, Error> {
        let first = Url::parse(&request.uri().to_string())
            .map_err(|e| Error::misuse(format!("request uri {} is not a url: {e}", request.uri())))?;
        let mut headers = request.headers().clone();
        let mut request = request;
        let mut at = first.clone();
        let mut visited = vec![first.clone()];
        let mut hops = 0;
        loop {
            let response = self.execute(request).await?;
            let next = redirect_target(&response, &at).filter(|next| self.follows(&first, next));
            let Some(next) = next else {
                return Ok(Response::new(response, (hops > 0).then_some(at)));
            };
            // A redirect that would be followed but leads back, or on past the bound, is named for
            // what it is: the agent's redirects never end, which a bare 3xx status does not say.
            if let Some(again) = visited.iter().position(|seen| *seen == next) {
                let chain: Vec<String> = visited[again..]
                    .iter()
                    .chain([&next])
                    .map(|u| crate::error::redact_url(u.as_str()))
                    .collect();
                return Err(Error::protocol_answer(format!("redirect loop: {}", chain.join(" -> ")))
                    .with_url(first.as_str()));
            }
            if hops >= MAX_REDIRECTS {
                return Err(Error::protocol_answer(format!(
                    "more than {MAX_REDIRECTS} redirects from {}, the last to {}",
                    crate::error::redact_url(first.as_str()),
                    crate::error::redact_url(next.as_str())
                ))
                .with_url(first.as_str()));
            }
            visited.push(next.clone());
            hops += 1;
            if next.origin() != at.origin() {
                // What credentials the request carried stay with the origin they were meant for:
                // the usual three, and any header marked sensitive (API keys, secret default
                // headers).
                for name in [AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION] {
                    headers.remove(name);
                }
                let secret: Vec<_> = headers
                    .iter()
                    .filter(|(_, value)| value.is_sensitive())
                    .map(|(name, _)| name.clone())
                    .collect();
                for name in secret {
                    headers.remove(name);
                }
            }
            request = Request::new(Bytes::new());
            *request.uri_mut() = uri_of(next.as_str())?;
            *request.headers_mut() = headers.clone();
            let origin = if next.origin() == first.origin() { Origin::Asked } else { Origin::Other };
            self.prepare(&mut request, origin);
            at = next;
        }
    }

    fn follows(&self, first: &Url, next: &Url) -> bool {
        let policy = &self.inner.url_policy;
        if first.path().starts_with("/.well-known/") {
            policy.follows_card_redirect(first, next)
        } else {
            first.origin() == next.origin() && policy.refusal(next).is_none()
        }
    }
}

/// Whose origin a request goes to: the one the caller asked for, or another a redirect named.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Asked,
    Other,
}

/// Where a redirect answer points, resolved against the URL that answered.
fn redirect_target<B>(response: &http::Response<B>, at: &Url) -> Option<Url> {
    let redirect = matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308);
    if !redirect {
        return None;
    }
    let location = response.headers().get(LOCATION)?.to_str().ok()?;
    at.join(location).ok().filter(|next| matches!(next.scheme(), "http" | "https"))
}

/// A request for `url` with `method`, asking for JSON, with no body yet.
pub(crate) fn json_request(method: Method, url: &str) -> Result<Request, Error> {
    let mut request = Request::new(Bytes::new());
    *request.method_mut() = method;
    *request.uri_mut() = uri_of(url)?;
    request.headers_mut().insert(http::header::ACCEPT, HeaderValue::from_static("application/json"));
    Ok(request)
}

/// `url` as a request URI.
pub(crate) fn uri_of(url: &str) -> Result<Uri, Error> {
    url.parse::<Uri>()
        .map_err(|e| Error::misuse(format!("{} is not a request uri: {e}", crate::error::redact_url(url))))
}

/// A copy of `request`, for the one resend after a 401 (its body is bytes, so copying is cheap).
pub(crate) fn copy(request: &Request) -> Request {
    let mut copy = Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    copy
}

/// Runs `exchange` within `bound`: a timeout fault naming `url` when it runs out.
///
/// Not an `async fn`: one would keep `exchange` twice in its state, as the argument and inside
/// the timer (async fns do not reuse an argument's room once it has moved), and every attempt
/// of every call would copy and carry both halves. The timer starts when this is called.
pub(crate) fn within<'a, T, F>(
    bound: Duration,
    url: &'a str,
    exchange: F,
) -> impl std::future::Future<Output = Result<T, Error>> + 'a
where
    F: std::future::Future<Output = Result<T, Error>> + 'a,
{
    use futures::FutureExt as _;
    tokio::time::timeout(bound, exchange).map(move |outcome| match outcome {
        Ok(outcome) => outcome,
        // The retry policy adds how many attempts ran and how long they took in all.
        Err(_) => Err(Error::timeout(bound).with_url(url)),
    })
}

/// An answer: its head read, its body still on the wire.
#[derive(Debug)]
pub struct Response {
    head: http::response::Parts,
    body: ResponseBody,
    /// Boxed: set only after a redirect, and every future that holds a response carries it.
    redirected_to: Option<Box<Url>>,
}

impl Response {
    fn new(response: http::Response<ResponseBody>, redirected_to: Option<Url>) -> Self {
        let (head, body) = response.into_parts();
        Self { head, body, redirected_to: redirected_to.map(Box::new) }
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.head.status
    }

    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.head.headers
    }

    /// The URL that answered, when a redirect was followed to it.
    pub fn redirected_to(&self) -> Option<&Url> {
        self.redirected_to.as_deref()
    }

    /// The announced body length.
    pub(crate) fn content_length(&self) -> Option<u64> {
        self.head
            .headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| a2a_typestate_types::wire_number::count_text("Content-Length", v, u64::MAX).value())
    }

    /// The next chunk of the body; `None` at its end.
    pub(crate) async fn chunk(&mut self) -> Result<Option<Bytes>, Error> {
        while let Some(frame) = self.body.frame().await {
            if let Ok(data) = frame?.into_data() {
                return Ok(Some(data));
            }
        }
        Ok(None)
    }

    /// The whole body, refused as soon as it passes `limit` bytes.
    ///
    /// # Errors
    /// [`crate::ErrorKind::BadInput`] past `limit`; a transport fault when the body breaks off.
    pub async fn bytes(self, limit: usize, url: &str) -> Result<Bytes, Error> {
        read_bounded(self, limit, url).await
    }

    /// The body as a stream of chunks, read ahead by a task of its own ([`body::BodyChunks`]).
    pub(crate) fn into_stream(self) -> impl Stream<Item = Result<Bytes, Error>> + Send + 'static {
        body::BodyChunks::spawn(self)
    }
}
