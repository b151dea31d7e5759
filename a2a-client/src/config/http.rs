//! How the HTTP stack is made: the [`ClientBuilder`] methods for roots, a client identity, a proxy,
//! default headers or a stack shared with another client, beside the credentials and interceptors.

use std::fmt;
use std::sync::Arc;

use http::header::{HeaderMap, HeaderName, HeaderValue};

use super::{ClientBuilder, ClientConfig};
use crate::Error;
use crate::auth::{ClientIdentity, Credentials, Interceptor, Secret};
use crate::error::BoxError;
use crate::net::{Certificate, Headers, HttpClient, Parts, Proxy, Request, SharedService};

/// What the builder collected for the HTTP stack.
#[derive(Default)]
pub(crate) struct HttpSettings {
    roots: Vec<Certificate>,
    only_added_roots: bool,
    identity: Option<ClientIdentity>,
    proxy: Option<Proxy>,
    no_proxy: bool,
    headers: Vec<(String, Secret)>,
    /// Headers for one origin each: (its URL as given, name, value).
    origin_headers: Vec<(String, String, Secret)>,
    shared: Option<HttpClient>,
    service: Option<SharedService>,
    pub(crate) credentials: Credentials,
    pub(crate) interceptors: Vec<Arc<dyn Interceptor>>,
}

impl fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSettings")
            .field("roots", &self.roots.len())
            .field("identity", &self.identity)
            .field("proxy", &self.proxy)
            .field("default_headers", &self.headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
            .field("shared_http_client", &self.shared.is_some())
            .field("http_service", &self.service.is_some())
            .field("credentials", &self.credentials)
            .field("interceptors", &self.interceptors)
            .finish()
    }
}

/// A header the user gave, its value marked sensitive; `what` names the kind in the error (which
/// never shows the value).
fn secret_header(what: &str, name: &str, value: &Secret) -> Result<(HeaderName, HeaderValue), Error> {
    let header = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| Error::config(format!("{what} name {name:?} is not a valid header name")))?;
    let mut value = HeaderValue::from_str(value.expose())
        .map_err(|_| Error::config(format!("{what} {name} holds characters a header cannot carry")))?;
    value.set_sensitive(true);
    Ok((header, value))
}

impl HttpSettings {
    /// The headers given for one origin each, read: an origin that is not an http(s) URL, a name
    /// or a value a header cannot carry is a configuration error naming it.
    fn origin_headers(&self) -> Result<Vec<(url::Origin, HeaderName, HeaderValue)>, Error> {
        self.origin_headers
            .iter()
            .map(|(origin, name, value)| {
                let url = url::Url::parse(origin).ok().filter(|u| matches!(u.scheme(), "http" | "https"));
                let Some(url) = url else {
                    return Err(Error::config(format!(
                        "the origin of header {name:?}, {origin:?}, is not an http(s) URL"
                    )));
                };
                let (header, value) = secret_header("header", name, value)?;
                Ok((url.origin(), header, value))
            })
            .collect()
    }

    /// The HTTP stack: the shared one, or one made from these settings and `config`.
    pub(crate) fn http_client(&self, config: &ClientConfig) -> Result<HttpClient, Error> {
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let (header, value) = secret_header("default header", name, value)?;
            headers.append(header, value);
        }
        let origin_headers = self.origin_headers()?;
        if let Some(service) = &self.service {
            let customised = self.shared.is_some()
                || !self.roots.is_empty()
                || self.only_added_roots
                || self.identity.is_some()
                || self.proxy.is_some()
                || self.no_proxy;
            if customised {
                return Err(Error::config(
                    "roots, a client identity, a proxy or a shared http client cannot be set beside an http \
                     service: the service has its own (set them on the client it wraps)",
                ));
            }
            return HttpClient::with_service(
                service.clone(),
                &config.user_agent,
                Headers { all: headers, by_origin: origin_headers },
                config.url_policy,
            );
        }
        if let Some(shared) = &self.shared {
            let customised = !self.roots.is_empty()
                || self.only_added_roots
                || self.identity.is_some()
                || self.proxy.is_some()
                || self.no_proxy
                || !headers.is_empty()
                || !origin_headers.is_empty();
            if customised {
                return Err(Error::config(
                    "roots, a client identity, a proxy or default headers cannot be added to a shared http \
                     client: set them on the client it comes from",
                ));
            }
            return Ok(shared.clone());
        }
        let proxy = match (&self.proxy, self.no_proxy) {
            (_, true) => None,
            (Some(proxy), false) => Some(proxy.matcher()),
            (None, false) => crate::net::proxy::from_env(),
        };
        HttpClient::new(Parts {
            roots: &self.roots,
            only_added_roots: self.only_added_roots,
            identity: self.identity.as_ref(),
            proxy,
            connect_timeout: config.connect_timeout,
            pool_max_idle_per_host: config.pool_max_idle_per_host,
            user_agent: &config.user_agent,
            headers: Headers { all: headers, by_origin: origin_headers },
            url_policy: config.url_policy,
            resolve: &config.resolve,
        })
    }
}

impl ClientBuilder {
    /// Sets the credential providers for agents that require credentials (none by default).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.http.credentials = credentials;
        self
    }

    /// Adds an interceptor, run around every request an agent connection sends, after the auth
    /// layer (see [`crate::auth::Interceptor`]).
    pub fn interceptor(mut self, interceptor: impl Interceptor) -> Self {
        self.http.interceptors.push(Arc::new(interceptor));
        self
    }

    /// Adds a header sent with every request, card discovery included. Its value is treated as a
    /// secret: marked sensitive and never shown.
    pub fn default_header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.http.headers.push((name.into(), value.into()));
        self
    }

    /// Adds a header sent only to `origin`'s origin (its scheme, host and port), card discovery
    /// included, on every binding: a header given for one agent, which a card naming an interface
    /// or a token endpoint elsewhere must not carry there. Its value is treated as a secret.
    ///
    /// ```
    /// use a2a_typestate_client::Client;
    ///
    /// let client = Client::builder().origin_header("https://agent.example", "X-Tenant", "acme").build()?;
    /// # let _ = client;
    /// assert!(Client::builder().origin_header("agent.example", "X-Tenant", "acme").build().is_err());
    /// # Ok::<(), a2a_typestate_client::Error>(())
    /// ```
    pub fn origin_header(
        mut self,
        origin: impl Into<String>,
        name: impl Into<String>,
        value: impl Into<Secret>,
    ) -> Self {
        self.http.origin_headers.push((origin.into(), name.into(), value.into()));
        self
    }

    /// Sends requests through `proxy` (by default the environment's proxy variables apply).
    pub fn proxy(mut self, proxy: Proxy) -> Self {
        self.http.proxy = Some(proxy);
        self
    }

    /// Ignores the environment's proxy variables (and any proxy set here).
    pub fn no_proxy(mut self) -> Self {
        self.http.no_proxy = true;
        self.http.proxy = None;
        self
    }

    /// Trusts `root` besides the system's roots.
    pub fn add_root_certificate(mut self, root: Certificate) -> Self {
        self.http.roots.push(root);
        self
    }

    /// Trusts only the roots added with [`ClientBuilder::add_root_certificate`], not the system's
    /// (for a private CA).
    pub fn only_added_root_certificates(mut self) -> Self {
        self.http.only_added_roots = true;
        self
    }

    /// Presents `identity` to agents that ask for a client certificate; cards whose requirements
    /// name a mutual TLS scheme are then met.
    pub fn client_identity(mut self, identity: ClientIdentity) -> Self {
        self.http.identity = Some(identity);
        self
    }

    /// Sends through `http`, another client's stack ([`Client::http_client`](crate::Client::http_client)):
    /// its connections, roots, identity, proxy, connect timeout, user agent, default headers and
    /// redirect rules (from that client's URL policy) are then used, and cannot be set here as well.
    pub fn http_client(mut self, http: HttpClient) -> Self {
        self.http.shared = Some(http);
        self
    }

    /// Sends every HTTP request through `service` instead of the built-in hyper-util stack: both
    /// HTTP bindings (JSON-RPC and HTTP+JSON, 1.0 and 0.3), event streams, discovery, OAuth2 token
    /// and key (JWKS) fetches. The gRPC binding keeps its own tonic channel.
    ///
    /// `service` is any [`tower_service::Service`] from an `http::Request` with a [`Bytes`] body to
    /// an `http::Response` whose body is an [`http_body::Body`] of [`Bytes`] chunks; with the
    /// feature `reqwest`, `ReqwestService` (in [`crate::net`]) adapts a reqwest client.
    /// It is cloned for each request. What the service owns (TLS, proxies, pools, HTTP versions) and
    /// what this client keeps (redirects, body limits, bounds, credentials' origins) is in
    /// [`crate::net`].
    ///
    /// Roots, a client identity, a proxy and a shared [`HttpClient`] belong to the service, and
    /// [`ClientBuilder::build`](crate::ClientBuilder::build) refuses them beside it; so the
    /// connect timeout and the idle pool bound do not apply. A card that requires mutual TLS is
    /// not met over a service, whatever certificate it presents, since this client cannot see it.
    ///
    /// [`Bytes`]: bytes::Bytes
    pub fn http_service<S, B>(mut self, service: S) -> Self
    where
        S: tower_service::Service<Request, Response = http::Response<B>> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
        B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        self.http.service = Some(SharedService::new(service));
        self
    }
}
