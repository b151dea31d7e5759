//! A webhook receiver: the client side of push notifications, to see what an agent really POSTs.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use serde_json::Value;
use tokio::sync::Notify;

use crate::TestkitError;
use crate::background::BackgroundServer;

/// One POST the receiver got.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedCallback {
    /// The request path (the receiver answers on every path).
    pub path: String,
    /// All headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
    /// When it arrived, measured from the receiver's start.
    pub at: Duration,
}

impl ReceivedCallback {
    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug)]
struct Inbox {
    started: Instant,
    received: Mutex<Vec<ReceivedCallback>>,
    arrived: Notify,
}

/// An HTTP server on `127.0.0.1` that answers `200` to every request and keeps what it got.
pub struct WebhookReceiver {
    inbox: Arc<Inbox>,
    addr: SocketAddr,
    /// Held for its drop, which stops the server.
    _server: BackgroundServer,
}

impl std::fmt::Debug for WebhookReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookReceiver").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl WebhookReceiver {
    /// Starts a receiver on a free loopback port.
    ///
    /// # Errors
    ///
    /// [`TestkitError::Bind`] when no loopback port can be bound.
    pub async fn spawn() -> Result<WebhookReceiver, TestkitError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
        let addr = listener.local_addr().map_err(TestkitError::Bind)?;
        let inbox = Arc::new(Inbox {
            started: Instant::now(),
            received: Mutex::new(Vec::new()),
            arrived: Notify::new(),
        });
        let app = Router::new().fallback(receive).with_state(Arc::clone(&inbox));
        let server = BackgroundServer::spawn(listener, app);
        Ok(WebhookReceiver { inbox, addr, _server: server })
    }

    /// The URL of `path` on this receiver (`path` starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Everything received so far, in arrival order.
    pub fn received(&self) -> Vec<ReceivedCallback> {
        self.inbox.received.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Waits until at least `count` callbacks arrived or `timeout` passed, and returns what arrived.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> Vec<ReceivedCallback> {
        // A timeout too large to add to now (Duration::MAX) means no deadline, not a panic.
        let deadline = tokio::time::Instant::now().checked_add(timeout);
        loop {
            let arrived = self.inbox.arrived.notified();
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            match deadline {
                Some(deadline) => {
                    if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                        return self.received();
                    }
                }
                None => arrived.await,
            }
        }
    }
}

async fn receive(State(inbox): State<Arc<Inbox>>, request: Request) -> StatusCode {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 4 * 1024 * 1024).await.unwrap_or_default();
    let callback = ReceivedCallback {
        path: parts.uri.path().to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        at: inbox.started.elapsed(),
    };
    inbox.received.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(callback);
    inbox.arrived.notify_waiters();
    StatusCode::OK
}
