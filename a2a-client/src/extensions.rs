//! A2A extensions: asking an agent for them, and reading which ones it activated.
//!
//! An agent lists the extensions it supports in its card (`capabilities.extensions[]`, each a URI,
//! some `required: true`). A client asks for the ones it understands on each request, in the header
//! of the agent's protocol version: `A2A-Extensions: uri1,uri2` for 1.0 over JSON-RPC and HTTP+JSON,
//! `X-A2A-Extensions` for 0.3, the metadata key `a2a-extensions` over gRPC. The agent says which it
//! activated in the same header of its answer (or the response metadata).
//!
//! Ask for extensions for every call of a client ([`ClientBuilder::extension`](crate::ClientBuilder::extension))
//! or for some calls ([`CallOptions::extension`](crate::CallOptions::extension), through
//! [`AgentConnection::with_options`](crate::AgentConnection::with_options)); read what the agent
//! activated with [`AgentConnection::activated_extensions`](crate::AgentConnection::activated_extensions).
//! A card extension marked `required` that a call does not ask for is an [`ErrorKind::Config`](crate::ErrorKind::Config)
//! error before anything is sent ([`Error::required_extension`](crate::Error::required_extension)
//! names it); an agent that refuses a call for a missing extension answers -32008
//! ([`ProtocolError::is_extension_support_required`](crate::ProtocolError::is_extension_support_required)).
//!
//! ```
//! use a2a_typestate_client::extensions::{A2A_EXTENSIONS_HEADER, A2A_EXTENSIONS_HEADER_V03};
//! use a2a_typestate_client::{CallOptions, Client};
//!
//! assert_eq!((A2A_EXTENSIONS_HEADER, A2A_EXTENSIONS_HEADER_V03), ("A2A-Extensions", "X-A2A-Extensions"));
//! // Asked for on every call of this client:
//! let client = Client::builder().extension("https://example.com/ext/citations/v1").build()?;
//! assert_eq!(client.config().extensions(), ["https://example.com/ext/citations/v1"]);
//! // And on some calls only, through a view of a connection (`connection.with_options(options)?`).
//! let options = CallOptions::new().extension("https://example.com/ext/traceability/v1");
//! # drop(options);
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::fmt;
use std::sync::Mutex;

use a2a_typestate_types::AgentCard;
use http::HeaderValue;

use crate::Error;

/// The request and response header naming extensions, for protocol 1.0 over JSON-RPC and
/// HTTP+JSON.
pub const A2A_EXTENSIONS_HEADER: &str = "A2A-Extensions";
/// The same header in protocol 0.3.
pub const A2A_EXTENSIONS_HEADER_V03: &str = "X-A2A-Extensions";
/// The gRPC metadata key naming extensions (the `A2A-Extensions` service parameter, lowercased as
/// gRPC metadata keys are).
pub const A2A_EXTENSIONS_METADATA: &str = "a2a-extensions";

/// Most extension URIs one connection keeps as activated: an agent cannot grow the record without
/// bound by echoing new URIs.
const MAX_ACTIVATED: usize = 64;
/// Longest extension URI accepted from the caller or kept from an answer.
const MAX_URI_LEN: usize = 2048;

/// The extensions an agent said it activated, in the order it first named them.
///
/// Read from the answers made through one connection (or one view of it, see
/// [`AgentConnection::with_options`](crate::AgentConnection::with_options)): every URI the agent
/// named in the extensions header (or gRPC metadata) of those answers. An agent that activated none,
/// or that does not echo them, leaves it empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActivatedExtensions {
    uris: Vec<String>,
}

impl ActivatedExtensions {
    /// The URIs, in the order the agent first named them.
    pub fn uris(&self) -> &[String] {
        &self.uris
    }

    /// Whether the agent activated `uri`.
    pub fn contains(&self, uri: &str) -> bool {
        self.uris.iter().any(|u| u == uri)
    }

    /// Whether the agent named none.
    pub fn is_empty(&self) -> bool {
        self.uris.is_empty()
    }

    /// How many the agent named.
    pub fn len(&self) -> usize {
        self.uris.len()
    }

    /// The URIs, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        self.uris.iter()
    }
}

impl<'a> IntoIterator for &'a ActivatedExtensions {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.uris.iter()
    }
}

impl fmt::Display for ActivatedExtensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.uris.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.uris.join(", "))
    }
}

/// What one connection (or view) read so far: the activated extensions, shared by its clones.
#[derive(Debug, Default)]
pub(crate) struct ActivationLog {
    seen: Mutex<ActivatedExtensions>,
}

impl ActivationLog {
    /// Adds the URIs named in `values` (each a comma-separated list) not seen before.
    pub(crate) fn record<'a>(&self, values: impl IntoIterator<Item = &'a [u8]>) {
        let mut named = values.into_iter().flat_map(parse_list).peekable();
        if named.peek().is_none() {
            return;
        }
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for uri in named {
            if seen.uris.len() >= MAX_ACTIVATED {
                break;
            }
            if !seen.contains(&uri) {
                seen.uris.push(uri);
            }
        }
    }

    /// What was read so far.
    pub(crate) fn snapshot(&self) -> ActivatedExtensions {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// The URIs of one header value: comma-separated, each trimmed; empty ones, ones over the length
/// bound and ones that are not printable text are left out.
fn parse_list(value: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(value) else { return Vec::new() };
    text.split(',')
        .map(str::trim)
        .filter(|uri| {
            !uri.is_empty() && uri.len() <= MAX_URI_LEN && uri.chars().all(|c| c.is_ascii_graphic())
        })
        .map(str::to_owned)
        .collect()
}

/// Checks that `uri` can be named in the extensions header: printable ASCII with no comma or
/// space, at most 2048 bytes.
pub(crate) fn check_uri(uri: &str, whose: &str) -> Result<(), Error> {
    if uri.is_empty() {
        return Err(Error::config(format!("{whose} extension uri is empty")));
    }
    if uri.len() > MAX_URI_LEN {
        return Err(Error::config(format!("{whose} extension uri is over {MAX_URI_LEN} bytes")));
    }
    if let Some(bad) = uri.chars().find(|c| !c.is_ascii_graphic() || *c == ',') {
        return Err(Error::config(format!(
            "{whose} extension uri {uri:?} holds {bad:?}, which the comma-separated extensions header cannot carry"
        )));
    }
    Ok(())
}

/// The longest extensions header the client sends (8 KiB): servers commonly refuse a request
/// whose headers pass 8 to 16 KiB in all, and a card that requires more extensions than fit is not
/// one any client can call.
pub const MAX_EXTENSIONS_HEADER_BYTES: usize = 8 * 1024;

/// The header value asking for `uris` (already checked), or `None` when there are none.
///
/// # Errors
/// [`crate::ErrorKind::Config`] when the header would be longer than
/// [`MAX_EXTENSIONS_HEADER_BYTES`], naming how many extensions and how long.
pub(crate) fn header_value(uris: &[String]) -> Result<Option<HeaderValue>, Error> {
    if uris.is_empty() {
        return Ok(None);
    }
    let length = uris.iter().map(String::len).sum::<usize>() + uris.len() - 1;
    if length > MAX_EXTENSIONS_HEADER_BYTES {
        return Err(Error::config(format!(
            "asking for {} extensions takes a {length}-byte extensions header, over the bound of \
             {MAX_EXTENSIONS_HEADER_BYTES} bytes",
            uris.len()
        )));
    }
    HeaderValue::from_str(&uris.join(","))
        .map(Some)
        .map_err(|_| Error::config("the extension uris cannot be written as a header"))
}

/// The URIs of the extensions `card` marks `required`.
pub(crate) fn required_uris(card: &AgentCard) -> std::collections::HashSet<&str> {
    card.capabilities.extensions.iter().filter(|e| e.required).map(|e| e.uri.as_str()).collect()
}

/// The first extension `card` marks `required` that `requested` does not name: an error naming its
/// URI and its place in the card, before anything is sent.
pub(crate) fn missing_required(card: &AgentCard, requested: &[String]) -> Result<(), Error> {
    let requested: std::collections::HashSet<&str> = requested.iter().map(String::as_str).collect();
    let declared = card.capabilities.extensions.iter().enumerate();
    match declared.filter(|(_, e)| e.required).find(|(_, e)| !requested.contains(e.uri.as_str())) {
        Some((index, extension)) => Err(Error::required_extension_not_asked(&extension.uri, index)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echoed_list_is_split_trimmed_and_kept_once() {
        let log = ActivationLog::default();
        log.record([&b"urn:a, urn:b"[..], b"urn:a,,urn:c"]);
        log.record([&b" urn:b "[..]]);
        assert_eq!(log.snapshot().uris(), ["urn:a", "urn:b", "urn:c"]);
    }

    #[test]
    fn an_agent_cannot_grow_the_record_without_bound() {
        let log = ActivationLog::default();
        let many: Vec<String> = (0..500).map(|i| format!("urn:x:{i}")).collect();
        let value = many.join(",");
        log.record([value.as_bytes()]);
        assert_eq!(log.snapshot().len(), MAX_ACTIVATED);
    }

    #[test]
    fn a_uri_the_header_cannot_carry_is_a_config_error_naming_it() {
        assert!(check_uri("https://example.com/ext/v1", "client").is_ok());
        for bad in ["", "a,b", "has space", "tab\there"] {
            let err = check_uri(bad, "call").unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Config, "{bad:?}");
        }
    }
}
