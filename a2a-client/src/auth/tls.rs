//! HTTP client settings for agents behind TLS, proxies or gateways: root certificates, a client
//! identity for mutual TLS, a proxy, default headers, or a `reqwest::Client` configured elsewhere.
//! The [`ClientBuilder`] methods that set them live here, beside the credentials and interceptors.

use std::fmt;
use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::{Credentials, Interceptor, Secret};
use crate::Error;
use crate::config::{ClientBuilder, ClientConfig};

/// A client certificate chain and its private key, for agents whose card asks for mutual TLS.
///
/// Its `Debug` shows nothing of the key.
#[derive(Clone)]
pub struct ClientIdentity {
    identity: reqwest::Identity,
}

impl fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientIdentity([redacted])")
    }
}

impl ClientIdentity {
    /// Reads one PEM document holding the private key (PKCS#8, PKCS#1 or SEC1) and the certificate
    /// chain, leaf first.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the PEM holds no usable key or certificate (the message
    /// never quotes the PEM).
    pub fn from_pem(pem: &[u8]) -> Result<Self, Error> {
        reqwest::Identity::from_pem(pem)
            .map(|identity| Self { identity })
            .map_err(|_| Error::config("the client identity pem holds no usable private key and certificate"))
    }

    /// As [`ClientIdentity::from_pem`], with the chain and the key in two documents.
    ///
    /// # Errors
    /// As [`ClientIdentity::from_pem`].
    pub fn from_pem_parts(certificate_chain: &[u8], private_key: &Secret) -> Result<Self, Error> {
        let mut pem = private_key.expose().as_bytes().to_vec();
        pem.push(b'\n');
        pem.extend_from_slice(certificate_chain);
        Self::from_pem(&pem)
    }
}

/// How the HTTP client is made.
#[derive(Default)]
pub(crate) struct HttpSettings {
    roots: Vec<reqwest::Certificate>,
    only_added_roots: bool,
    identity: Option<ClientIdentity>,
    proxy: Option<reqwest::Proxy>,
    no_proxy: bool,
    headers: Vec<(String, Secret)>,
    own: Option<(reqwest::Client, bool)>,
    pub(crate) credentials: Credentials,
    pub(crate) interceptors: Vec<Arc<dyn Interceptor>>,
}

impl fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSettings")
            .field("roots", &self.roots.len())
            .field("identity", &self.identity)
            .field("proxy", &self.proxy.is_some())
            .field("default_headers", &self.headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
            .field("own_http_client", &self.own.is_some())
            .field("credentials", &self.credentials)
            .field("interceptors", &self.interceptors)
            .finish()
    }
}

impl HttpSettings {
    /// The HTTP client, and whether it presents a client identity.
    pub(crate) fn http_client(&self, config: &ClientConfig) -> Result<(reqwest::Client, bool), Error> {
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                Error::config(format!("default header name {name:?} is not a valid header name"))
            })?;
            let mut value = HeaderValue::from_str(value.expose()).map_err(|_| {
                Error::config(format!("default header {name} holds characters a header cannot carry"))
            })?;
            value.set_sensitive(true);
            headers.append(header, value);
        }
        if let Some((client, identity)) = &self.own {
            let customised = !self.roots.is_empty()
                || self.identity.is_some()
                || self.proxy.is_some()
                || self.no_proxy
                || !headers.is_empty();
            if customised {
                return Err(Error::config(
                    "roots, a client identity, a proxy or default headers cannot be added to an http client \
                     brought from elsewhere: configure that client instead",
                ));
            }
            return Ok((client.clone(), *identity));
        }
        let mut builder = reqwest::Client::builder()
            .redirect(same_origin_redirects(config.url_policy))
            .connect_timeout(config.connect_timeout)
            .user_agent(config.user_agent.clone())
            .default_headers(headers);
        if let Some(idle) = config.pool_max_idle_per_host {
            builder = builder.pool_max_idle_per_host(idle);
        }
        if self.only_added_roots {
            builder = builder.tls_certs_only(self.roots.iter().cloned());
        } else {
            for root in &self.roots {
                builder = builder.add_root_certificate(root.clone());
            }
        }
        if let Some(identity) = &self.identity {
            builder = builder.identity(identity.identity.clone());
        }
        if let Some(proxy) = &self.proxy {
            builder = builder.proxy(proxy.clone());
        } else if self.no_proxy {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| Error::config_with("the http client could not be built", Box::new(e)))?;
        Ok((client, self.identity.is_some()))
    }
}

/// Most redirects reqwest would follow, less those that could carry credentials to another origin:
/// reqwest strips `Authorization` and `Cookie` on such a hop, but not an API key in a header of the
/// card's naming or in the query. Any redirect is followed only within the same origin; card
/// discovery (paths under `/.well-known/`) follows the URL policy's card redirects
/// ([`UrlPolicy`](crate::url_policy::UrlPolicy): same origin by default), and every hop must pass its
/// address rules. Any other is answered as it is (a 3xx status error naming the URL).
fn same_origin_redirects(policy: crate::url_policy::UrlPolicy) -> reqwest::redirect::Policy {
    const MAX_REDIRECTS: usize = 10;
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        let Some(first) = attempt.previous().first().cloned() else { return attempt.stop() };
        let follow = if first.path().starts_with("/.well-known/") {
            policy.follows_card_redirect(&first, attempt.url())
        } else {
            first.origin() == attempt.url().origin() && policy.refusal(attempt.url()).is_none()
        };
        if follow { attempt.follow() } else { attempt.stop() }
    })
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

    /// Sends every request through `proxy` (by default the system's proxy settings apply).
    pub fn proxy(mut self, proxy: reqwest::Proxy) -> Self {
        self.http.proxy = Some(proxy);
        self
    }

    /// Ignores the system's proxy settings (and any proxy set here).
    pub fn no_proxy(mut self) -> Self {
        self.http.no_proxy = true;
        self.http.proxy = None;
        self
    }

    /// Trusts `root` besides the built-in roots.
    pub fn add_root_certificate(mut self, root: reqwest::Certificate) -> Self {
        self.http.roots.push(root);
        self
    }

    /// Trusts only the roots added with [`ClientBuilder::add_root_certificate`], not the built-in
    /// ones (for a private CA).
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

    /// Sends through `client`, configured elsewhere (its timeouts, pool, TLS and proxy are then
    /// its own; this builder's connect timeout, user agent and pool size do not reach it).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http.own = Some((client, false));
        self
    }

    /// As [`ClientBuilder::http_client`], for a client that was given a client identity: cards
    /// whose requirements name a mutual TLS scheme then count as met.
    pub fn http_client_with_identity(mut self, client: reqwest::Client) -> Self {
        self.http.own = Some((client, true));
        self
    }
}
