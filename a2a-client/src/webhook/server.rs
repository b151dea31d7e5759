//! The receiver's connection loop: hyper's HTTP/1 server driven by hand, so that every resource a
//! sender can make the receiver hold is bounded.
//!
//! - Credentials are checked from the request head, before one byte of body is read: an
//!   unauthenticated sender costs a header buffer, never a body.
//! - The head must arrive within [`WebhookLimits::header_read_timeout`] and the body within
//!   [`WebhookLimits::body_read_timeout`]; a connection serves one request and is closed, so no
//!   connection sits idle.
//! - At most [`WebhookLimits::max_connections`] connections are open. When a new one arrives at the
//!   cap, the oldest connection that has not yet presented valid credentials is closed to make room:
//!   a flood of idle or slow connections evicts itself, and a genuine callback (whose head arrives
//!   with its first packet) is served.
//! - At most [`WebhookLimits::max_bodies_in_flight`] bodies, each at most
//!   [`WebhookLimits::max_body_bytes`], are buffered at once.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::{PUSH_PATH_PREFIX, Shared, accept_body, admit};

pub use crate::config::webhook_limits::{
    DEFAULT_WEBHOOK_BODY_READ_TIMEOUT, DEFAULT_WEBHOOK_HEADER_READ_TIMEOUT,
    DEFAULT_WEBHOOK_MAX_BODIES_IN_FLIGHT, DEFAULT_WEBHOOK_MAX_BODY_BYTES, DEFAULT_WEBHOOK_MAX_CONNECTIONS,
    DEFAULT_WEBHOOK_MAX_HEADER_BYTES, WebhookLimits,
};

struct Open {
    authenticated: Arc<AtomicBool>,
    close: CancellationToken,
}

#[derive(Default)]
struct Connections {
    next: u64,
    open: BTreeMap<u64, Open>,
}

/// Makes room for one more connection; `false` when every open connection is authenticated.
fn make_room(connections: &mut Connections, cap: usize) -> bool {
    while connections.open.len() >= cap {
        let oldest = connections
            .open
            .iter()
            .find(|(_, open)| !open.authenticated.load(Ordering::Acquire))
            .map(|(id, _)| *id);
        match oldest.and_then(|id| connections.open.remove(&id)) {
            Some(evicted) => evicted.close.cancel(),
            None => return false,
        }
    }
    true
}

pub(super) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    limits: WebhookLimits,
    stop: CancellationToken,
) {
    let connections = Arc::new(Mutex::new(Connections::default()));
    let bodies = Arc::new(Semaphore::new(limits.max_bodies_in_flight));
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors (or a reset before accept): wait for open connections to end
                // rather than spin.
                tracing::debug!(%error, "push receiver accept failed");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let authenticated = Arc::new(AtomicBool::new(false));
        let close = stop.child_token();
        let id = {
            let mut open = connections.lock().unwrap_or_else(PoisonError::into_inner);
            if !make_room(&mut open, limits.max_connections) {
                continue; // dropping the stream closes it
            }
            let id = open.next;
            open.next += 1;
            open.open.insert(id, Open { authenticated: authenticated.clone(), close: close.clone() });
            id
        };
        let context =
            Arc::new(Context { shared: shared.clone(), authenticated, bodies: bodies.clone(), limits });
        let connections = connections.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let context = context.clone();
                async move { Ok::<_, Infallible>(respond(request, &context).await) }
            });
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .keep_alive(false)
                .max_buf_size(limits.max_header_bytes);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            // Catch-all: whatever a sender does, the connection ends within both bounds.
            let lifetime = limits.header_read_timeout + limits.body_read_timeout + Duration::from_secs(1);
            tokio::select! {
                () = close.cancelled() => {}
                _ = tokio::time::timeout(lifetime, connection) => {}
            }
            connections.lock().unwrap_or_else(PoisonError::into_inner).open.remove(&id);
        });
    }
}

struct Context {
    shared: Arc<Shared>,
    authenticated: Arc<AtomicBool>,
    bodies: Arc<Semaphore>,
    limits: WebhookLimits,
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

async fn respond(request: Request<Incoming>, context: &Context) -> Response<Full<Bytes>> {
    let Some(config_id) = request
        .uri()
        .path()
        .strip_prefix(PUSH_PATH_PREFIX)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .map(str::to_owned)
    else {
        return status(StatusCode::NOT_FOUND);
    };
    if request.method() != Method::POST {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    if let Err(code) = admit(&context.shared, &config_id, request.headers()) {
        return status(code);
    }
    context.authenticated.store(true, Ordering::Release);
    let declared = request
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > context.limits.max_body_bytes as u64) {
        return status(StatusCode::PAYLOAD_TOO_LARGE);
    }
    let deadline = tokio::time::Instant::now() + context.limits.body_read_timeout;
    let Ok(Ok(_permit)) = tokio::time::timeout_at(deadline, context.bodies.acquire()).await else {
        return status(StatusCode::SERVICE_UNAVAILABLE);
    };
    let limited = Limited::new(request.into_body(), context.limits.max_body_bytes);
    let body = match tokio::time::timeout_at(deadline, limited.collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            return status(StatusCode::PAYLOAD_TOO_LARGE);
        }
        Ok(Err(_)) => return status(StatusCode::BAD_REQUEST),
        Err(_) => return status(StatusCode::REQUEST_TIMEOUT),
    };
    match accept_body(&context.shared, &config_id, &body) {
        Ok(code) | Err(code) => status(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(authenticated: bool) -> Open {
        Open { authenticated: Arc::new(AtomicBool::new(authenticated)), close: CancellationToken::new() }
    }

    #[test]
    fn at_the_cap_the_oldest_unauthenticated_connection_is_evicted() {
        let mut connections = Connections::default();
        connections.open.insert(0, open(true));
        connections.open.insert(1, open(false));
        connections.open.insert(2, open(false));
        let evicted = connections.open[&1].close.clone();
        assert!(make_room(&mut connections, 3));
        assert!(evicted.is_cancelled());
        assert_eq!(connections.open.keys().copied().collect::<Vec<_>>(), [0, 2]);
        assert!(make_room(&mut connections, 3), "below the cap nothing is evicted");
        assert_eq!(connections.open.len(), 2);
    }

    #[test]
    fn when_every_connection_is_authenticated_the_new_one_is_refused() {
        let mut connections = Connections::default();
        connections.open.insert(0, open(true));
        connections.open.insert(1, open(true));
        assert!(!make_room(&mut connections, 2));
        assert_eq!(connections.open.len(), 2);
    }

    #[test]
    fn limits_that_cannot_work_are_named() {
        assert!(WebhookLimits::default().problem().is_none());
        assert!(WebhookLimits { max_connections: 0, ..WebhookLimits::default() }.problem().is_some());
        assert!(
            WebhookLimits { header_read_timeout: Duration::ZERO, ..WebhookLimits::default() }
                .problem()
                .is_some()
        );
        assert!(WebhookLimits { max_header_bytes: 100, ..WebhookLimits::default() }.problem().is_some());
    }
}
