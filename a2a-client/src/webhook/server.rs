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
//!   with its first packet) is served. When every open connection presented valid credentials, the
//!   oldest one of the registration holding the most is closed: one agent holding the receiver
//!   with its own valid token exhausts only its own share.
//! - Each registration (one agent's task) holds at most an eighth of
//!   [`WebhookLimits::max_connections`] authenticated connections and one body at a time: past its share, its request is answered 429 and the
//!   other registrations' callbacks are not kept waiting.
//! - At most [`WebhookLimits::max_bodies_in_flight`] bodies, each at most
//!   [`WebhookLimits::max_body_bytes`], are buffered at once.
//! - Every connection turned away or closed to make room is counted
//!   ([`super::PushReceiver::turned_away`]): a task waiting for a callback while that happened
//!   cannot read the silence as the agent's (a callback may have been lost on the client's side).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_typestate_types::wire_number;
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
    /// The registration (config id) the connection's credentials were valid for, once known.
    registration: Arc<Mutex<Option<String>>>,
    close: CancellationToken,
}

impl Open {
    fn registration(&self) -> Option<String> {
        self.registration.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// How many authenticated connections one registration may hold at once: an eighth of the cap, at
/// least one.
pub(crate) fn registration_share(limits: &WebhookLimits) -> usize {
    (limits.max_connections / 8).max(1)
}

#[derive(Default)]
struct Connections {
    next: u64,
    open: BTreeMap<u64, Open>,
}

/// Makes room for one more connection: closes the oldest connection that has not authenticated,
/// else the oldest of the registration holding the most (when it holds more than one). Returns
/// how many were closed, or `None` when no room could be made (every connection is one
/// registration's only one).
fn make_room(connections: &mut Connections, cap: usize) -> Option<usize> {
    let mut closed = 0;
    while connections.open.len() >= cap {
        let unauthenticated = connections
            .open
            .iter()
            .find(|(_, open)| !open.authenticated.load(Ordering::Acquire))
            .map(|(id, _)| *id);
        let evict = unauthenticated.or_else(|| hog_oldest(connections));
        match evict.and_then(|id| connections.open.remove(&id)) {
            Some(evicted) => {
                evicted.close.cancel();
                closed += 1;
            }
            None => return None,
        }
    }
    Some(closed)
}

/// The oldest connection of the registration holding the most authenticated connections, when it
/// holds more than one.
fn hog_oldest(connections: &Connections) -> Option<u64> {
    let mut held: std::collections::HashMap<String, (usize, u64)> = std::collections::HashMap::new();
    for (id, open) in &connections.open {
        if let Some(registration) = open.registration() {
            let entry = held.entry(registration).or_insert((0, *id));
            entry.0 += 1;
        }
    }
    held.into_values()
        .filter(|(count, _)| *count > 1)
        .max_by_key(|(count, oldest)| (*count, u64::MAX - oldest))
        .map(|(_, oldest)| oldest)
}

/// How many open connections authenticated for `registration`.
fn held_by(connections: &Connections, registration: &str) -> usize {
    connections.open.values().filter(|open| open.registration().as_deref() == Some(registration)).count()
}

pub(super) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    limits: WebhookLimits,
    stop: CancellationToken,
) {
    let connections = Arc::new(Mutex::new(Connections::default()));
    let bodies = Arc::new(Semaphore::new(limits.max_bodies_in_flight));
    let reading = Arc::new(Mutex::new(std::collections::HashSet::new()));
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
        let registration = Arc::new(Mutex::new(None));
        let close = stop.child_token();
        let id = {
            let mut open = connections.lock().unwrap_or_else(PoisonError::into_inner);
            match make_room(&mut open, limits.max_connections) {
                Some(closed) => shared.turned_away(closed),
                None => {
                    shared.turned_away(1);
                    continue; // dropping the stream closes it
                }
            }
            let id = open.next;
            open.next += 1;
            let entry = Open {
                authenticated: authenticated.clone(),
                registration: registration.clone(),
                close: close.clone(),
            };
            open.open.insert(id, entry);
            id
        };
        let context = Arc::new(Context {
            shared: shared.clone(),
            authenticated,
            registration,
            connections: connections.clone(),
            bodies: bodies.clone(),
            reading: reading.clone(),
            limits,
        });
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
    registration: Arc<Mutex<Option<String>>>,
    connections: Arc<Mutex<Connections>>,
    bodies: Arc<Semaphore>,
    /// The registrations with a body being read: one each at a time.
    reading: Arc<Mutex<std::collections::HashSet<String>>>,
    limits: WebhookLimits,
}

/// A registration's one body being read; the slot frees when dropped.
struct Reading<'a> {
    reading: &'a Mutex<std::collections::HashSet<String>>,
    registration: String,
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        self.reading.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.registration);
    }
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
    {
        // One registration's share: past it, this agent exhausts only its own room.
        let connections = context.connections.lock().unwrap_or_else(PoisonError::into_inner);
        if held_by(&connections, &config_id) >= registration_share(&context.limits) {
            return status(StatusCode::TOO_MANY_REQUESTS);
        }
        *context.registration.lock().unwrap_or_else(PoisonError::into_inner) = Some(config_id.clone());
    }
    context.authenticated.store(true, Ordering::Release);
    let declared = request.headers().get(hyper::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok());
    let declared = declared.and_then(|v| wire_number::count_text("Content-Length", v, u64::MAX).value());
    let limit = u64::try_from(context.limits.max_body_bytes).unwrap_or(u64::MAX);
    if declared.is_some_and(|length| length > limit) {
        return status(StatusCode::PAYLOAD_TOO_LARGE);
    }
    if !context.reading.lock().unwrap_or_else(PoisonError::into_inner).insert(config_id.clone()) {
        return status(StatusCode::TOO_MANY_REQUESTS);
    }
    let _reading = Reading { reading: &context.reading, registration: config_id.clone() };
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
        let registration = authenticated.then(|| "r".to_owned());
        Open {
            authenticated: Arc::new(AtomicBool::new(authenticated)),
            registration: Arc::new(Mutex::new(registration)),
            close: CancellationToken::new(),
        }
    }

    fn open_for(registration: &str) -> Open {
        Open {
            authenticated: Arc::new(AtomicBool::new(true)),
            registration: Arc::new(Mutex::new(Some(registration.to_owned()))),
            close: CancellationToken::new(),
        }
    }

    #[test]
    fn at_the_cap_the_oldest_unauthenticated_connection_is_evicted() {
        let mut connections = Connections::default();
        connections.open.insert(0, open(true));
        connections.open.insert(1, open(false));
        connections.open.insert(2, open(false));
        let evicted = connections.open[&1].close.clone();
        assert_eq!(make_room(&mut connections, 3), Some(1));
        assert!(evicted.is_cancelled());
        assert_eq!(connections.open.keys().copied().collect::<Vec<_>>(), [0, 2]);
        assert_eq!(make_room(&mut connections, 3), Some(0), "below the cap nothing is evicted");
        assert_eq!(connections.open.len(), 2);
    }

    #[test]
    fn when_every_connection_is_authenticated_the_registration_holding_most_gives_one_up() {
        let mut connections = Connections::default();
        connections.open.insert(0, open_for("honest"));
        connections.open.insert(1, open_for("hog"));
        connections.open.insert(2, open_for("hog"));
        let evicted = connections.open[&1].close.clone();
        assert_eq!(make_room(&mut connections, 3), Some(1));
        assert!(evicted.is_cancelled(), "the hog's oldest connection went");
        assert_eq!(connections.open.keys().copied().collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn when_every_connection_is_its_registrations_only_one_the_new_one_is_refused() {
        let mut connections = Connections::default();
        connections.open.insert(0, open_for("a"));
        connections.open.insert(1, open_for("b"));
        assert_eq!(make_room(&mut connections, 2), None);
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
