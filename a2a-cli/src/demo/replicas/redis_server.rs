//! A redis-server the demo starts for itself when no `--redis` is given: on 127.0.0.1, a free port,
//! no persistence, stopped by its pid when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

/// How long the server may take to answer its first `PING`.
const START_BOUND: Duration = Duration::from_secs(5);

/// A running redis-server of the demo's own.
#[derive(Debug)]
pub(crate) struct LocalRedis {
    child: Child,
    port: u16,
}

/// Why no server could be started.
#[derive(Debug)]
pub(crate) enum NoRedis {
    /// `redis-server` is not on the `PATH`.
    NotInstalled,
    /// It started but did not answer within the bound, or could not be started.
    DidNotStart(String),
}

impl LocalRedis {
    /// Starts redis-server on a free loopback port and waits (bounded) until it answers.
    pub(crate) async fn start() -> Result<Self, NoRedis> {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| NoRedis::DidNotStart(e.to_string()))?
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => NoRedis::NotInstalled,
                _ => NoRedis::DidNotStart(e.to_string()),
            })?;
        let server = Self { child, port };
        let started = Instant::now();
        while started.elapsed() < START_BOUND {
            if ping(port).await {
                return Ok(server);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        server.stop().await;
        Err(NoRedis::DidNotStart(format!("no answer on 127.0.0.1:{port} within {START_BOUND:?}")))
    }

    /// The server's URL.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Stops it (by its pid) and waits for it to exit.
    pub(crate) async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

async fn ping(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream.write_all(b"PING\r\n").await?;
        let mut answer = [0_u8; 7];
        stream.read_exact(&mut answer).await?;
        Ok::<bool, std::io::Error>(&answer == b"+PONG\r\n")
    };
    matches!(tokio::time::timeout(Duration::from_millis(300), exchange).await, Ok(Ok(true)))
}
