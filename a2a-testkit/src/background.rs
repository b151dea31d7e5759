//! An axum server running in the background on a bound listener, stopped gracefully or on drop.
//!
//! Both the scripted agent and the webhook receiver are one of these.

use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A served router; dropping it aborts the server.
#[derive(Debug)]
pub(crate) struct BackgroundServer {
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<()>>,
}

impl BackgroundServer {
    /// Serves `app` on `listener` inside the current tokio runtime.
    pub(crate) fn spawn(listener: TcpListener, app: Router) -> BackgroundServer {
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let graceful = async {
                let _ = stopped.await;
            };
            // No Nagle delay: an HTTP/2 (gRPC) answer is several small writes (headers, data,
            // trailers), which Nagle and delayed acknowledgements would hold back ~40 ms each.
            use axum::serve::ListenerExt as _;
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            // An accept error ends the server; callers then see connection refusals.
            let _ = axum::serve(listener, app).with_graceful_shutdown(graceful).await;
        });
        BackgroundServer { stop: Some(stop), server: Some(server) }
    }

    /// Serves `app` over TLS: only connections whose handshake succeeded reach it.
    pub(crate) fn spawn_tls(listener: crate::auth::TlsListener, app: Router) -> BackgroundServer {
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let graceful = async {
                let _ = stopped.await;
            };
            let _ = axum::serve(listener, app).with_graceful_shutdown(graceful).await;
        });
        BackgroundServer { stop: Some(stop), server: Some(server) }
    }

    /// Stops accepting connections, waits up to `grace` for open ones, then drops them.
    pub(crate) async fn shutdown(&mut self, grace: Duration) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut server) = self.server.take()
            && tokio::time::timeout(grace, &mut server).await.is_err()
        {
            server.abort();
        }
    }
}

impl Drop for BackgroundServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}
