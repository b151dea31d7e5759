//! [`CallOptions`]: what some calls of a connection need beyond the client's configuration (extra
//! headers, a shorter timeout, a history length, extensions), without building another client.

use std::fmt;
use std::time::Duration;

use http::header::{HeaderMap, HeaderName, HeaderValue};

use super::ClientConfig;
use crate::Error;
use crate::auth::Secret;
use crate::extensions::{self, ActivationLog};

/// Options for the calls made through one view of a connection
/// ([`AgentConnection::with_options`](crate::AgentConnection::with_options)).
///
/// - **headers**: sent on each request of those calls, to the call's own endpoint only. Their
///   values are treated as secrets (marked sensitive, never shown), so a redirect to another origin
///   drops them, as it drops `Authorization`, `Cookie` and `Proxy-Authorization`; a header the
///   client's own credentials set ([`crate::auth`]) keeps the credentials' value. Headers the
///   client writes itself (`Content-Type`, `Accept`, `A2A-Version`, the extensions header...) cannot
///   be set here.
/// - **timeout**: bounds each call as a whole, retries included: each attempt gets the shorter of
///   it and the client's request timeout, all attempts together the shorter of it and the client's
///   operation deadline. For a stream it bounds the opening, until the first event; the SSE idle
///   bound applies after.
/// - **history length**: the `historyLength` of `SendMessage`, `SendStreamingMessage`, `GetTask`
///   and `ListTasks` requests that leave it unset.
/// - **extensions**: asked for besides the client's ([`ClientBuilder::extension`](crate::ClientBuilder::extension);
///   see [`crate::extensions`]).
///
/// Nothing is checked until the options are given to a connection, which reports what it cannot
/// use as an [`ErrorKind::Config`](crate::ErrorKind::Config) error.
///
/// ```
/// use std::time::Duration;
/// use a2a_typestate_client::CallOptions;
///
/// let options = CallOptions::new()
///     .header("X-Request-Id", "req-42")
///     .timeout(Duration::from_secs(5))
///     .history_length(10)
///     .extension("https://example.com/ext/citations/v1");
/// assert_eq!(options.timeout_bound(), Some(Duration::from_secs(5)));
/// // Header values never show.
/// assert!(!format!("{options:?}").contains("req-42"));
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct CallOptions {
    headers: Vec<(String, Secret)>,
    timeout: Option<Duration>,
    history_length: Option<u32>,
    extensions: Vec<String>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("headers", &self.headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("history_length", &self.history_length)
            .field("extensions", &self.extensions)
            .finish()
    }
}

impl CallOptions {
    /// No options: calls as the client makes them.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header sent on each request of the calls (a name given twice is sent twice).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Bounds each call as a whole (see the type's docs).
    pub fn timeout(mut self, bound: Duration) -> Self {
        self.timeout = Some(bound);
        self
    }

    /// Asks for at most `messages` history messages where a request leaves `historyLength` unset.
    pub fn history_length(mut self, messages: u32) -> Self {
        self.history_length = Some(messages);
        self
    }

    /// Asks for the extension `uri`, besides the client's.
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        if !self.extensions.contains(&uri) {
            self.extensions.push(uri);
        }
        self
    }

    /// Asks for each of `uris`, as [`CallOptions::extension`] does.
    pub fn extensions(self, uris: impl IntoIterator<Item = impl Into<String>>) -> Self {
        uris.into_iter().fold(self, |options, uri| options.extension(uri))
    }

    /// The timeout set, if any.
    pub fn timeout_bound(&self) -> Option<Duration> {
        self.timeout
    }

    /// The history length set, if any.
    pub fn history_length_bound(&self) -> Option<u32> {
        self.history_length
    }

    /// The extensions asked for here (the client's are added to them).
    pub fn requested_extensions(&self) -> &[String] {
        &self.extensions
    }

    /// The names of the headers set (their values never show).
    pub fn header_names(&self) -> impl Iterator<Item = &str> {
        self.headers.iter().map(|(name, _)| name.as_str())
    }
}

/// Headers the client writes itself, which a call option cannot replace.
const RESERVED: [&str; 12] = [
    "accept",
    "content-type",
    "content-length",
    "host",
    "connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "a2a-version",
    "a2a-extensions",
    "x-a2a-extensions",
    "user-agent",
];

/// What every request of one connection (or one view of it) carries and is bounded by: the
/// client's extensions, and the view's options checked. Read by the endpoint each request is built
/// and sent by.
#[derive(Debug, Default)]
pub(crate) struct CallScope {
    headers: HeaderMap,
    timeout: Option<Duration>,
    history_length: Option<i32>,
    /// The client's extensions, then the call's.
    extensions: Vec<String>,
    extensions_header: Option<HeaderValue>,
    /// The extensions the agent activated on the answers read through this scope.
    pub(crate) activated: ActivationLog,
}

impl CallScope {
    /// A connection's own scope: the client's extensions and nothing else.
    pub(crate) fn of_client(config: &ClientConfig) -> Self {
        let extensions = config.extensions.clone();
        // Checked when the client was built: the header always writes.
        let extensions_header = extensions::header_value(&extensions).ok().flatten();
        Self { extensions, extensions_header, ..Self::default() }
    }

    /// A view's scope: the client's extensions and `options`, checked.
    pub(crate) fn with_options(config: &ClientConfig, options: &CallOptions) -> Result<Self, Error> {
        let mut headers = HeaderMap::new();
        for (name, value) in &options.headers {
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                Error::config(format!("call option header name {name:?} is not a valid header name"))
            })?;
            let lower = header.as_str();
            if RESERVED.contains(&lower) || lower.starts_with("grpc-") {
                return Err(Error::config(format!(
                    "call option header {name} is written by the client itself and cannot be set per call"
                )));
            }
            let mut value = HeaderValue::from_str(value.expose()).map_err(|_| {
                Error::config(format!("call option header {name} holds characters a header cannot carry"))
            })?;
            value.set_sensitive(true);
            headers.append(header, value);
        }
        if options.timeout.is_some_and(|t| t.is_zero()) {
            return Err(Error::config("call option timeout must be positive"));
        }
        let mut extensions = config.extensions.clone();
        let mut listed: std::collections::HashSet<String> = extensions.iter().cloned().collect();
        for uri in &options.extensions {
            extensions::check_uri(uri, "call option")?;
            if listed.insert(uri.clone()) {
                extensions.push(uri.clone());
            }
        }
        let extensions_header = extensions::header_value(&extensions)?;
        Ok(Self {
            headers,
            timeout: options.timeout,
            history_length: options.history_length.map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
            extensions,
            extensions_header,
            activated: ActivationLog::default(),
        })
    }

    /// The same scope without the extensions `dropped` (marked suspect: the agent does not activate
    /// them), with a record of activations of its own.
    pub(crate) fn without_extensions(&self, dropped: &[String]) -> Self {
        let dropped: std::collections::HashSet<&String> = dropped.iter().collect();
        let extensions: Vec<String> =
            self.extensions.iter().filter(|u| !dropped.contains(u)).cloned().collect();
        // Fewer URIs than a header already written: it always writes.
        let extensions_header = extensions::header_value(&extensions).ok().flatten();
        Self {
            headers: self.headers.clone(),
            timeout: self.timeout,
            history_length: self.history_length,
            extensions,
            extensions_header,
            activated: ActivationLog::default(),
        }
    }

    /// Writes the extensions asked for (under `extensions_header`, the name of the agent's protocol
    /// version) and the call's headers into a request's `headers`.
    pub(crate) fn write_headers(&self, headers: &mut HeaderMap, extensions_header: &'static str) {
        if let Some(value) = &self.extensions_header {
            headers.insert(extensions_header, value.clone());
        }
        for (name, value) in &self.headers {
            headers.append(name.clone(), value.clone());
        }
    }

    /// The call's headers (for gRPC metadata, and to tell whether a call may carry credentials).
    pub(crate) fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The extensions asked for: the client's, then the call's.
    pub(crate) fn extensions(&self) -> &[String] {
        &self.extensions
    }

    /// The header value asking for them, when there are any (for gRPC metadata).
    #[cfg(feature = "grpc")]
    pub(crate) fn extensions_value(&self) -> Option<&HeaderValue> {
        self.extensions_header.as_ref()
    }

    /// The bound of one attempt: the shorter of the call's timeout and `client`'s.
    pub(crate) fn request_timeout(&self, client: Duration) -> Duration {
        self.timeout.map_or(client, |call| call.min(client))
    }

    /// The bound of all attempts together: the shorter of the call's timeout and `client`'s
    /// operation deadline.
    pub(crate) fn operation_deadline(&self, client: Duration) -> Duration {
        self.timeout.map_or(client, |call| call.min(client))
    }

    /// The history length to fill into a request that leaves it unset.
    pub(crate) fn fill_history_length(&self, history_length: &mut Option<i32>) {
        if history_length.is_none() {
            *history_length = self.history_length;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn headers_the_client_writes_itself_cannot_be_set_per_call() {
        let config = ClientConfig::default();
        for name in ["Content-Type", "A2A-Version", "A2A-Extensions", "x-a2a-extensions", "grpc-timeout"] {
            let options = CallOptions::new().header(name, "x");
            let err = CallScope::with_options(&config, &options).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Config, "{name}");
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn a_header_value_is_never_shown_in_an_error() {
        let options = CallOptions::new().header("X-Token", "secret\nvalue");
        let err = CallScope::with_options(&ClientConfig::default(), &options).unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
    }

    #[test]
    fn the_call_timeout_shortens_the_client_bounds_never_lengthens_them() {
        let config = ClientConfig::default();
        let short =
            CallScope::with_options(&config, &CallOptions::new().timeout(Duration::from_secs(2))).unwrap();
        assert_eq!(short.request_timeout(Duration::from_secs(30)), Duration::from_secs(2));
        assert_eq!(short.operation_deadline(Duration::from_secs(150)), Duration::from_secs(2));
        let long =
            CallScope::with_options(&config, &CallOptions::new().timeout(Duration::from_secs(900))).unwrap();
        assert_eq!(long.request_timeout(Duration::from_secs(30)), Duration::from_secs(30));
        let zero = CallScope::with_options(&config, &CallOptions::new().timeout(Duration::ZERO));
        assert_eq!(zero.unwrap_err().kind(), ErrorKind::Config);
    }

    #[test]
    fn call_extensions_are_asked_for_after_the_clients_once_each() {
        let config = ClientConfig { extensions: vec!["urn:a".into()], ..ClientConfig::default() };
        let options = CallOptions::new().extension("urn:b").extension("urn:a");
        let scope = CallScope::with_options(&config, &options).unwrap();
        assert_eq!(scope.extensions(), ["urn:a", "urn:b"]);
        let mut headers = HeaderMap::new();
        scope.write_headers(&mut headers, "A2A-Extensions");
        assert_eq!(headers.get("a2a-extensions").unwrap(), "urn:a,urn:b");
    }
}
