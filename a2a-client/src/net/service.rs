//! The HTTP service the client speaks to: the default hyper-util pool, or one the user brings.
//!
//! A service is a [`tower_service::Service`] that takes a [`Request`] (the `http` crate's request,
//! its body as bytes) and answers an `http::Response` whose body is an [`http_body::Body`] of byte
//! chunks, read by the client as they come. The client erases it once, at build time, into
//! [`Stack::Service`]; the default pool stays a variant of its own, so a request on it costs nothing
//! more than it did before services existed.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt as _;
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::Incoming;

use super::Request;
use crate::Error;
use crate::error::BoxError;

/// The body of an answer from a user's service, boxed once when its head arrives.
pub(crate) type ServiceBody = UnsyncBoxBody<Bytes, BoxError>;

/// What a user's service is erased into: one call, answered with a boxed body.
pub(crate) trait ErasedService: Send + Sync + 'static {
    fn call(&self, request: Request) -> BoxFuture<'static, Result<http::Response<ServiceBody>, Error>>;
}

/// A user's service `S`, cloned for each call (as tower services are: `call` takes `&mut self`).
struct Erased<S>(S);

impl<S, B> ErasedService for Erased<S>
where
    S: tower_service::Service<Request, Response = http::Response<B>> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    fn call(&self, request: Request) -> BoxFuture<'static, Result<http::Response<ServiceBody>, Error>> {
        let mut service = self.0.clone();
        Box::pin(async move {
            futures::future::poll_fn(|cx| service.poll_ready(cx)).await.map_err(|e| fault(e.into()))?;
            let response = service.call(request).await.map_err(|e| fault(e.into()))?;
            Ok(response.map(box_body))
        })
    }
}

/// `body` as a [`ServiceBody`]: boxed, unless it already is one.
fn box_body<B>(body: B) -> ServiceBody
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let mut slot = Some(body);
    if let Some(boxed) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<ServiceBody>>()
        && let Some(boxed) = boxed.take()
    {
        return boxed;
    }
    match slot {
        Some(body) => body.map_err(Into::into).boxed_unsync(),
        // Taken only when it was a `ServiceBody`, which returned above.
        None => UnsyncBoxBody::default(),
    }
}

/// A user's HTTP service, ready for the client: cheap to clone, shared by the clones.
#[derive(Clone)]
pub(crate) struct SharedService(Arc<dyn ErasedService>);

impl SharedService {
    pub(crate) fn new<S, B>(service: S) -> Self
    where
        S: tower_service::Service<Request, Response = http::Response<B>> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        Self(Arc::new(Erased(service)))
    }

    pub(crate) fn call(
        &self,
        request: Request,
    ) -> BoxFuture<'static, Result<http::Response<ServiceBody>, Error>> {
        self.0.call(request)
    }
}

impl fmt::Debug for SharedService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedService")
    }
}

/// A fault of a user's service, or of the body it answered, as the client's error: the client's
/// own error as it is (the reqwest adapter's, already classified), else a transport fault read
/// from the error's chain (io and hyper errors say which), [`TransportFault::Other`] when nothing
/// in it says (not retried: the client cannot tell that repeating helps).
///
/// [`TransportFault::Other`]: crate::TransportFault::Other
pub(crate) fn fault(error: BoxError) -> Error {
    match error.downcast::<Error>() {
        Ok(error) => *error,
        Err(error) => {
            #[cfg(feature = "reqwest")]
            let error = match super::reqwest_service::classify(error) {
                Ok(known) => return known,
                Err(other) => other,
            };
            crate::error::from_service(error)
        }
    }
}

/// A response body as the client reads it: the pool's own, or a user's service's.
#[derive(Debug)]
pub(crate) enum ResponseBody {
    Pool(Incoming),
    Service(ServiceBody),
}

impl http_body::Body for ResponseBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        // Both bodies are `Unpin`, so no projection is needed.
        match self.get_mut() {
            ResponseBody::Pool(body) => Pin::new(body).poll_frame(cx).map_err(Error::from),
            ResponseBody::Service(body) => Pin::new(body).poll_frame(cx).map_err(fault),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ResponseBody::Pool(body) => body.is_end_stream(),
            ResponseBody::Service(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ResponseBody::Pool(body) => body.size_hint(),
            ResponseBody::Service(body) => body.size_hint(),
        }
    }
}
