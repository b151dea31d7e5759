//! The fleet's own page, for a harness in another process: the scenario list and the scorecard as
//! JSON.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::ConformanceFleet;
use crate::TestkitError;
use crate::background::BackgroundServer;

/// Serves `GET /scenarios` (every [`ScenarioInfo`](super::ScenarioInfo)) and `GET /report` (the
/// [`Scorecard`](super::Scorecard) once no scenario is pending, or the patience has run out).
#[derive(Debug)]
pub struct IndexServer {
    url: String,
    server: BackgroundServer,
}

impl IndexServer {
    /// Serves `fleet`'s index on `addr` (port 0 for a free one).
    ///
    /// # Errors
    ///
    /// [`TestkitError::Bind`] when `addr` cannot be bound.
    pub async fn spawn(fleet: Arc<ConformanceFleet>, addr: SocketAddr) -> Result<Self, TestkitError> {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(TestkitError::Bind)?;
        let bound = listener.local_addr().map_err(TestkitError::Bind)?;
        let app =
            Router::new().route("/scenarios", get(scenarios)).route("/report", get(report)).with_state(fleet);
        Ok(Self { url: format!("http://{bound}"), server: BackgroundServer::spawn(listener, app) })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops serving.
    pub async fn shutdown(mut self) {
        self.server.shutdown(crate::SHUTDOWN_GRACE).await;
    }
}

async fn scenarios(State(fleet): State<Arc<ConformanceFleet>>) -> Response {
    axum::Json(fleet.scenarios()).into_response()
}

async fn report(State(fleet): State<Arc<ConformanceFleet>>) -> Response {
    axum::Json(fleet.settled_grade().await).into_response()
}
