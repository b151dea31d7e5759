//! Interceptors: a hook before each request an [`AgentConnection`](crate::AgentConnection) sends and
//! one after each answer (or failure), for headers, tracing context, status and timing.
//!
//! The auth layer is itself an interceptor, run first: a user's interceptor sees the request with
//! its credentials attached (marked sensitive), and must not log header values.
//!
//! The W3C trace context (`traceparent`, `tracestate`) needs no interceptor: with the feature `otel`
//! the client writes the caller's on every request itself (see the `otel` module).
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use a2a_typestate_client::Client;
//! use a2a_typestate_client::auth::{Interceptor, RequestContext, ResponseInfo};
//! use futures::future::BoxFuture;
//!
//! #[derive(Debug, Default)]
//! struct RequestIds(AtomicU64);
//!
//! impl Interceptor for RequestIds {
//!     fn before<'a>(
//!         &'a self,
//!         request: &'a mut a2a_typestate_client::net::Request,
//!         _context: &'a RequestContext<'a>,
//!     ) -> BoxFuture<'a, Result<(), a2a_typestate_client::Error>> {
//!         let n = self.0.fetch_add(1, Ordering::Relaxed);
//!         request.headers_mut().insert("x-request-id", format!("req-{n}").parse().expect("ascii"));
//!         Box::pin(async { Ok(()) })
//!     }
//!
//!     fn after(&self, response: &ResponseInfo<'_>) {
//!         println!("{} answered {:?} in {:?}", response.url(), response.status(), response.elapsed());
//!     }
//! }
//!
//! let client = Client::builder().interceptor(RequestIds::default()).build()?;
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```

use std::fmt;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::Error;
use crate::agent_url::AgentBaseUrl;

/// What an interceptor knows about a request before it is sent.
#[derive(Debug)]
pub struct RequestContext<'a> {
    pub(crate) agent: &'a AgentBaseUrl,
    pub(crate) attempt: u32,
}

impl<'a> RequestContext<'a> {
    /// The agent the request goes to.
    pub fn agent(&self) -> &'a AgentBaseUrl {
        self.agent
    }

    /// 1 for a first send, 2 for the one resend after a 401 and a credential refresh.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
}

/// What an interceptor learns after a request: the status, or the error, and how long it took.
#[derive(Debug)]
pub struct ResponseInfo<'a> {
    pub(crate) agent: &'a AgentBaseUrl,
    pub(crate) url: &'a str,
    pub(crate) status: Option<u16>,
    pub(crate) elapsed: Duration,
    pub(crate) error: Option<&'a Error>,
    pub(crate) attempt: u32,
}

impl<'a> ResponseInfo<'a> {
    /// The agent the request went to.
    pub fn agent(&self) -> &'a AgentBaseUrl {
        self.agent
    }

    /// The request URL, without query or user info (where an API key or password could be).
    pub fn url(&self) -> &'a str {
        self.url
    }

    /// The HTTP status, when an answer arrived.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// From sending the request to the answer's headers (or the failure).
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The failure, when no answer arrived.
    pub fn error(&self) -> Option<&'a Error> {
        self.error
    }

    /// As [`RequestContext::attempt`].
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
}

/// A hook around every request an [`AgentConnection`](crate::AgentConnection) sends.
///
/// Register with [`ClientBuilder::interceptor`](crate::ClientBuilder::interceptor); interceptors run
/// in registration order before the request and in the same order after it.
pub trait Interceptor: Send + Sync + fmt::Debug + 'static {
    /// Changes the request before it is sent (headers, query). The default does nothing.
    ///
    /// # Errors
    /// An error stops the request: it is returned to the caller as is.
    fn before<'a>(
        &'a self,
        request: &'a mut crate::net::Request,
        context: &'a RequestContext<'a>,
    ) -> BoxFuture<'a, Result<(), Error>> {
        let _ = (request, context);
        Box::pin(async { Ok(()) })
    }

    /// Sees the outcome of a request. The default does nothing.
    fn after(&self, response: &ResponseInfo<'_>) {
        let _ = response;
    }
}
