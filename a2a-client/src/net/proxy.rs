//! Which requests go through a proxy: the one set on the builder, else the usual environment
//! variables (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`, in either case), else none.

use std::fmt;

use hyper_util::client::proxy::matcher::Matcher;

use crate::Error;

/// A proxy for the client's requests: plain http requests are sent to it whole, https ones
/// through a `CONNECT` tunnel. User info in its URL is sent as `Proxy-Authorization: Basic`.
///
/// ```
/// use a2a_typestate_client::net::Proxy;
///
/// let proxy = Proxy::all("http://user:pass@proxy.internal:3128")?.no_proxy("localhost, .internal");
/// assert!(!format!("{proxy:?}").contains("pass"));
/// assert!(Proxy::all("socks5://proxy.internal:1080").is_err());
/// # Ok::<(), a2a_typestate_client::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Proxy {
    http: Option<String>,
    https: Option<String>,
    no: Option<String>,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |url: &Option<String>| url.as_deref().map(crate::error::redact_url);
        f.debug_struct("Proxy")
            .field("http", &shown(&self.http))
            .field("https", &shown(&self.https))
            .field("no_proxy", &self.no)
            .finish()
    }
}

impl Proxy {
    /// Every request through the proxy at `url`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `url` is not an absolute `http` URL (the proxy is reached
    /// over plain http; https to the agent still runs end to end through the tunnel).
    pub fn all(url: &str) -> Result<Self, Error> {
        let url = checked(url)?;
        Ok(Self { http: Some(url.clone()), https: Some(url), no: None })
    }

    /// Plain http requests through the proxy at `url`; https ones go direct.
    ///
    /// # Errors
    /// As [`Proxy::all`].
    pub fn http(url: &str) -> Result<Self, Error> {
        Ok(Self { http: Some(checked(url)?), ..Self::default() })
    }

    /// https requests through the proxy at `url`; plain http ones go direct.
    ///
    /// # Errors
    /// As [`Proxy::all`].
    pub fn https(url: &str) -> Result<Self, Error> {
        Ok(Self { https: Some(checked(url)?), ..Self::default() })
    }

    /// Hosts reached directly, in `NO_PROXY` form: comma-separated names (a leading `.` for a whole
    /// domain), IP addresses and networks, or `*` for all.
    pub fn no_proxy(mut self, hosts: &str) -> Self {
        self.no = Some(hosts.to_owned());
        self
    }

    pub(crate) fn matcher(&self) -> Matcher {
        let mut builder = Matcher::builder();
        if let Some(url) = &self.http {
            builder = builder.http(url.clone());
        }
        if let Some(url) = &self.https {
            builder = builder.https(url.clone());
        }
        if let Some(no) = &self.no {
            builder = builder.no(no.clone());
        }
        builder.build()
    }
}

fn checked(url: &str) -> Result<String, Error> {
    let shown = crate::error::redact_url(url);
    let parsed =
        url::Url::parse(url).map_err(|e| Error::config(format!("proxy {shown} is not a url: {e}")))?;
    if parsed.scheme() != "http" || parsed.host_str().is_none() {
        return Err(Error::config(format!("proxy {shown} must be an http://host:port url")));
    }
    Ok(url.to_owned())
}

/// The proxy settings of the environment, or `None` when it names no proxy (so a request pays for
/// no lookup).
pub(crate) fn from_env() -> Option<Matcher> {
    const NAMES: [&str; 6] =
        ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"];
    NAMES.iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty())).then(Matcher::from_env)
}
