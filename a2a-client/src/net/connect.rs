//! Opening connections: straight to the agent, or through the proxy the matcher picks (a
//! `CONNECT` tunnel for https, the proxy itself for plain http). TLS is layered on top by
//! hyper-rustls, so a tunnelled https connection is still verified against the agent's name.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tower_service::Service;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The connector under hyper-rustls.
#[derive(Clone, Debug)]
pub(crate) struct Connector {
    pub(crate) direct: HttpConnector<super::resolve::PolicyResolver>,
    pub(crate) proxy: Option<Arc<Matcher>>,
    /// Bounds opening a connection as a whole: the name lookup, the TCP connect (which
    /// `HttpConnector` bounds alone, not the lookup) and a proxy's tunnel. Past it nothing was sent,
    /// and the error is a connect error, as a refused connection is.
    pub(crate) connect_timeout: Duration,
}

/// A TCP connection, and whether it goes to a proxy that takes requests in absolute form.
#[derive(Debug)]
pub(crate) struct Conn {
    io: TokioIo<TcpStream>,
    proxied: bool,
}

impl Service<Uri> for Connector {
    type Response = Conn;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.direct.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, destination: Uri) -> Self::Future {
        let mut direct = self.direct.clone();
        let via = self.proxy.as_ref().and_then(|matcher| matcher.intercept(&destination));
        let bound = self.connect_timeout;
        let opening = async move {
            let Some(via) = via else {
                return Ok(Conn { io: direct.call(destination).await?, proxied: false });
            };
            if destination.scheme() == Some(&http::uri::Scheme::HTTPS) {
                let mut tunnel = Tunnel::new(via.uri().clone(), direct);
                if let Some(auth) = via.basic_auth() {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                return Ok(Conn { io: tunnel.call(destination).await?, proxied: false });
            }
            Ok(Conn { io: direct.call(via.uri().clone()).await?, proxied: true })
        };
        Box::pin(async move {
            // A name that takes longer to resolve than the bound (a resolver timing out on a host
            // the card names, say) is a connection that could not be opened, like a refused one.
            match tokio::time::timeout(bound, opening).await {
                Ok(opened) => opened,
                Err(_) => Err(Box::new(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "the connection was not opened within {} (name lookup and connect)",
                        a2a_typestate_types::human::HumanDuration(bound)
                    ),
                )) as BoxError),
            }
        })
    }
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.proxied)
    }
}

impl hyper::rt::Read for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }
}
