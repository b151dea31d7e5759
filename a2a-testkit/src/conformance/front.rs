//! A card served from an origin that is not the agent's: the URL a client is given (with its
//! credential) while the card's interface is elsewhere.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::TestkitError;
use crate::background::BackgroundServer;
use crate::record::RecordedRequest;

#[derive(Debug)]
struct Served {
    card: Vec<u8>,
    started: Instant,
    requests: Mutex<Vec<RecordedRequest>>,
}

/// Serves one card at `/.well-known/agent-card.json` and records every request it gets.
#[derive(Debug)]
pub(super) struct CardFront {
    served: Arc<Served>,
    base_url: String,
    server: BackgroundServer,
}

impl CardFront {
    pub(super) async fn spawn(card: Value) -> Result<Self, TestkitError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
        let addr = listener.local_addr().map_err(TestkitError::Bind)?;
        let served = Arc::new(Served {
            card: card.to_string().into_bytes(),
            started: Instant::now(),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(serve).with_state(Arc::clone(&served));
        let server = BackgroundServer::spawn(listener, app);
        Ok(Self { served, base_url: format!("http://{addr}"), server })
    }

    pub(super) fn base_url(&self) -> String {
        self.base_url.clone()
    }

    pub(super) fn requests(&self) -> Vec<RecordedRequest> {
        self.served.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    pub(super) async fn shutdown(mut self) {
        self.server.shutdown(crate::SHUTDOWN_GRACE).await;
    }
}

async fn serve(State(served): State<Arc<Served>>, request: Request) -> Response {
    let headers = request
        .headers()
        .iter()
        .map(|(name, value)| {
            (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned())
        })
        .collect();
    let recorded = RecordedRequest {
        http_method: request.method().as_str().to_owned(),
        path: request.uri().path().to_owned(),
        query: request.uri().query().map(str::to_owned),
        operation: None,
        rpc_method: None,
        body: None,
        headers,
        at: served.started.elapsed(),
    };
    let is_card = request.method() == Method::GET && recorded.path.starts_with("/.well-known/agent");
    served.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(recorded);
    if is_card {
        ([(header::CONTENT_TYPE, "application/json")], served.card.clone()).into_response()
    } else {
        (StatusCode::NOT_FOUND, "Not Found: this origin serves only the card").into_response()
    }
}
