//! A redis-server for the shared-cache tests: the one `A2A_TEST_REDIS_URL` names (CI starts it), or
//! one started here on a free loopback port and stopped by its pid. With neither, a test fails in
//! CI (`CI=true`) and is skipped with a printed reason elsewhere.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The variable that names a running server (`redis://127.0.0.1:PORT/`).
pub const URL_VAR: &str = "A2A_TEST_REDIS_URL";

/// A redis-server this test process started: killed (by pid) when dropped.
#[derive(Debug)]
pub struct OwnRedis {
    child: Option<Child>,
    port: u16,
    extra: Vec<String>,
}

impl OwnRedis {
    /// Starts redis-server on a free loopback port (no persistence); `None` when it is not installed.
    pub fn start() -> Option<Self> {
        Self::start_with(&[])
    }

    /// As [`OwnRedis::start`], with more server options (`--enable-debug-command local`, ...).
    pub fn start_with(extra: &[&str]) -> Option<Self> {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).ok()?.local_addr().ok()?.port();
        let mut server = Self { child: None, port, extra: extra.iter().map(|s| (*s).to_owned()).collect() };
        server.spawn().then_some(server)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server at once (SIGKILL, by its pid) and waits for it to go.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port (empty: nothing was persisted).
    pub fn restart(&mut self) {
        self.kill();
        assert!(self.spawn(), "redis-server did not come back on port {}", self.port);
    }

    fn spawn(&mut self) -> bool {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &self.port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else { return false };
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if ping(self.port) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
        false
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

fn ping(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut answer = [0_u8; 7];
    stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

/// What to do without a server: fail in CI, skip (with the reason printed) elsewhere.
fn unavailable(why: &str) -> Option<Never> {
    let message = format!(
        "redis tests need a redis-server: {why} (install it with `apt-get install -y redis-server`, or set {URL_VAR})"
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("skipped: {message}");
    None
}

/// Uninhabited: `unavailable` never returns a value.
pub enum Never {}

/// A server to share: the one in `A2A_TEST_REDIS_URL`, or one started here (kept alive by the
/// returned guard). `None`: skip the test (never in CI).
pub fn shared_server() -> Option<(String, Option<OwnRedis>)> {
    if let Ok(url) = std::env::var(URL_VAR) {
        return Some((url, None));
    }
    match OwnRedis::start() {
        Some(own) => Some((own.url(), Some(own))),
        None => unavailable("A2A_TEST_REDIS_URL is not set and redis-server could not be started")
            .map(|n| match n {}),
    }
}

/// A server of this test's own, to kill and restart. `None`: skip the test (never in CI).
pub fn own_server() -> Option<OwnRedis> {
    own_server_with(&[])
}

/// As [`own_server`], with more server options.
pub fn own_server_with(extra: &[&str]) -> Option<OwnRedis> {
    match OwnRedis::start_with(extra) {
        Some(own) => Some(own),
        None => unavailable("this test kills and restarts its own redis-server, which could not be started")
            .map(|n| match n {}),
    }
}

/// A key prefix no other test shares.
pub fn prefix(test: &str) -> String {
    format!("a2a-test-{test}-{}", uuid::Uuid::new_v4().simple())
}
