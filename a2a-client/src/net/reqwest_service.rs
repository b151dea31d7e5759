//! A user's reqwest client (plain, or with reqwest-middleware) as the client's HTTP service.

use std::fmt;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

use super::Request;
use crate::error::{BoxError, redact_url};
use crate::{Error, TransportFault};

/// A `reqwest::Client` or a `reqwest_middleware::ClientWithMiddleware`, as the HTTP service a
/// [`Client`](crate::Client) sends through (feature `reqwest`): hand it to
/// [`ClientBuilder::http_service`](crate::ClientBuilder::http_service).
///
/// Build the reqwest client with `redirect(reqwest::redirect::Policy::none())`: redirects are this
/// client's to follow, under its URL policy. An answer that comes from another URL than the one
/// asked (the reqwest client followed a redirect, or a middleware sent the request elsewhere) is
/// refused with [`ErrorKind::Config`](crate::ErrorKind::Config), naming both URLs, and never read.
/// By then reqwest has sent the request on, though: it drops `Authorization`, `Cookie` and
/// `Proxy-Authorization` when a redirect changes origin, but not an API key in a header of its own
/// name, which only `Policy::none()` keeps from the other origin.
///
/// Nor should the reqwest client have a total `timeout`: it would cut a long event stream that this
/// client's own bounds (request timeout until the answer's head, SSE idle after) keep open.
/// Everything else is the reqwest client's: TLS and its roots, client certificates, proxies,
/// connection pools, HTTP versions, DNS, compression, cookies.
///
/// See [`crate::net`] for what this client keeps for itself over any service.
#[derive(Clone)]
#[cfg_attr(docsrs, doc(cfg(feature = "reqwest")))]
pub struct ReqwestService {
    client: Reqwest,
}

#[derive(Clone)]
enum Reqwest {
    Plain(reqwest::Client),
    Middleware(reqwest_middleware::ClientWithMiddleware),
}

impl ReqwestService {
    /// Sends through `client`, a `reqwest::Client` or a `reqwest_middleware::ClientWithMiddleware`
    /// (its middleware then sees every request this client sends over HTTP).
    pub fn new(client: impl Into<ReqwestService>) -> Self {
        client.into()
    }
}

impl From<reqwest::Client> for ReqwestService {
    fn from(client: reqwest::Client) -> Self {
        Self { client: Reqwest::Plain(client) }
    }
}

impl From<reqwest_middleware::ClientWithMiddleware> for ReqwestService {
    fn from(client: reqwest_middleware::ClientWithMiddleware) -> Self {
        Self { client: Reqwest::Middleware(client) }
    }
}

impl fmt::Debug for ReqwestService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with = match &self.client {
            Reqwest::Plain(_) => "reqwest::Client",
            Reqwest::Middleware(_) => "reqwest_middleware::ClientWithMiddleware",
        };
        f.debug_struct("ReqwestService").field("client", &with).finish()
    }
}

impl tower_service::Service<Request> for ReqwestService {
    type Response = http::Response<reqwest::Body>;
    type Error = Error;
    type Future = BoxFuture<'static, Result<Self::Response, Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let client = self.client.clone();
        Box::pin(async move {
            let shown = redact_url(&request.uri().to_string());
            let request = reqwest::Request::try_from(request)
                .map_err(|e| Error::misuse(format!("reqwest cannot send a request to {shown}: {e}")))?;
            let asked = request.url().clone();
            let response = match &client {
                Reqwest::Plain(client) => client.execute(request).await.map_err(of_reqwest)?,
                Reqwest::Middleware(client) => client.execute(request).await.map_err(of_middleware)?,
            };
            if *response.url() != asked {
                return Err(Error::config(format!(
                    "the reqwest client answered from {} for a request to {}: it followed a redirect (or a \
                     middleware sent the request elsewhere), and redirects are the a2a client's to follow; \
                     build the reqwest client with redirect::Policy::none()",
                    redact_url(response.url().as_str()),
                    redact_url(asked.as_str()),
                ))
                .with_url(asked.as_str()));
            }
            Ok(http::Response::from(response))
        })
    }
}

/// A reqwest error as the client's: its timeout and connect faults as they are, the rest as its
/// chain says, without the URL (which may carry a query the client never shows).
fn of_reqwest(error: reqwest::Error) -> Error {
    let known = if error.is_timeout() {
        Some(TransportFault::Timeout)
    } else if error.is_connect() {
        Some(TransportFault::Connect)
    } else {
        None
    };
    let error: BoxError = Box::new(error.without_url());
    match known {
        Some(fault) => crate::error::from_http_stack(Some(fault), error),
        None => crate::error::from_service(error),
    }
}

/// A reqwest-middleware error as the client's: reqwest's own as [`of_reqwest`] reads it; a
/// middleware's as its chain says (not retried when it says nothing).
fn of_middleware(error: reqwest_middleware::Error) -> Error {
    match error {
        reqwest_middleware::Error::Reqwest(error) => of_reqwest(error),
        reqwest_middleware::Error::Middleware(error) => crate::error::from_service(error.into()),
    }
}

/// An error from a reqwest body (or one that reached the client boxed): the client's, when it is
/// reqwest's or reqwest-middleware's; else handed back.
pub(crate) fn classify(error: BoxError) -> Result<Error, BoxError> {
    let error = match error.downcast::<reqwest::Error>() {
        Ok(error) => return Ok(of_reqwest(*error)),
        Err(error) => error,
    };
    match error.downcast::<reqwest_middleware::Error>() {
        Ok(error) => Ok(of_middleware(*error)),
        Err(error) => Err(error),
    }
}
