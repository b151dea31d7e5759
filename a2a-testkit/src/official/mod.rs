//! Real A2A servers for interop tests: small agents on the official SDKs (a2a-sdk 1.3.0 for
//! Python, @a2a-js/sdk 1.3.0 for Node), started on 127.0.0.1 and stopped when dropped.
//!
//! The agents live in `scripts/peers/` ([`PeerKind`] lists them and what each claims against
//! what it does). The first start in a process runs `scripts/peers/install.sh`, which installs
//! the pinned SDKs under `target/peers/` (a no-op when they are already there). Each peer then
//! gets a free port, its stdout and stderr go to `target/peers/logs/`, and the harness waits for
//! its card to be served. A peer that cannot start fails with the tail of its stderr.
//!
//! The scripts belong to the repository, not to this crate's package: the harness finds them next
//! to the crate's own directory, so it works when the crate is built from a checkout of the
//! repository (a path or git dependency), and otherwise fails with [`PeerError::Layout`] naming
//! where it looked. The scripted agents at the crate root need nothing of the kind.
//!
//! ```
//! use a2a_testkit::official::{OfficialPeer, PeerKind};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let peer = OfficialPeer::start(PeerKind::PythonOverDeclaring).await?;
//! let http = reqwest::Client::builder().no_proxy().build()?;
//! let card: serde_json::Value = http.get(peer.card_url()).send().await?.json().await?;
//! assert_eq!(card["capabilities"]["streaming"], true); // claimed, but answered with -32004
//! peer.stop()?;
//! # Ok(())
//! # }
//! ```
//!
//! Tests that only talk to a peer can share one per test binary with
//! [`OfficialPeer::shared`], which saves the interpreter start-up (about a second for Python).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;
mod install;
mod kind;
mod layout;
mod process;

use std::fs::File;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

pub use self::error::PeerError;
pub use self::install::INSTALL_TIMEOUT;
pub use self::kind::{
    OfficialSdk, PEER_BEARER_TOKEN, PEER_OPTIONAL_EXTENSION, PEER_REQUIRED_EXTENSION, PeerCapabilities,
    PeerKind, TRACED_PEER_SEEN_PATH,
};
pub use self::process::{RunningPeer, STOP_GRACE};

use self::layout::Layout;
// The corpus harness (`crate::frameworks`) stops its agents and reads their logs the same way.
pub(crate) use self::layout::tail_of;
pub(crate) use self::process::kill_now;

/// Starts official-SDK peers. See the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct OfficialPeer {
    _private: (),
}

/// How a peer is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerOptions {
    startup_timeout: Duration,
    step: Duration,
}

impl Default for PeerOptions {
    /// A 60 s startup bound and a 200 ms pause between the agent's events.
    fn default() -> Self {
        PeerOptions { startup_timeout: Duration::from_secs(60), step: Duration::from_millis(200) }
    }
}

impl PeerOptions {
    /// How long to wait for the card to be served after spawning (default 60 s; a Python peer
    /// usually needs about one second, more on a loaded two-core machine).
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// The agent's pause between events (default 200 ms), which is what leaves time to
    /// subscribe to or cancel a running task: a task takes two pauses from working to completed,
    /// one from working to input-required.
    pub fn with_step(mut self, step: Duration) -> Self {
        self.step = step;
        self
    }

    /// The startup bound.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout
    }

    /// The agent's pause between events.
    pub fn step(&self) -> Duration {
        self.step
    }
}

/// How often to retry a start that lost its port to another process between reservation and bind.
const PORT_ATTEMPTS: usize = 3;
/// How often readiness is polled.
const READY_POLL: Duration = Duration::from_millis(50);

impl OfficialPeer {
    /// Installs the SDKs if needed, then starts `kind` with [`PeerOptions::default`].
    ///
    /// # Errors
    ///
    /// See [`start_with`](Self::start_with).
    pub async fn start(kind: PeerKind) -> Result<RunningPeer, PeerError> {
        Self::start_with(kind, PeerOptions::default()).await
    }

    /// Installs the SDKs if needed, then starts `kind` on a free port of 127.0.0.1 and waits until
    /// its card is served.
    ///
    /// # Errors
    ///
    /// [`PeerError::Install`] when the SDKs cannot be installed; [`PeerError::Exited`] or
    /// [`PeerError::NotReady`] (with the peer's stderr tail) when the peer does not come up;
    /// [`PeerError::Spawn`], [`PeerError::NoFreePort`] or [`PeerError::Layout`] for trouble on
    /// this machine.
    pub async fn start_with(kind: PeerKind, options: PeerOptions) -> Result<RunningPeer, PeerError> {
        let layout = Self::install().await?;
        let mut attempt = 1;
        loop {
            match start_once(&layout, kind, &options).await {
                Err(PeerError::Exited { stderr_tail, .. })
                    if attempt < PORT_ATTEMPTS && lost_its_port(&stderr_tail) =>
                {
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    /// One peer of `kind` per process, started on first use with [`PeerOptions::default`] and
    /// shared by every later caller (tests in one binary run in parallel, each on its own
    /// runtime: this works across runtimes). Never stopped explicitly; it exits with the process.
    ///
    /// Tasks created by one test are visible to the others (ListTasks), so tests that need a
    /// clean peer should [`start`](Self::start) their own.
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start); a failed start is retried by the next caller.
    pub async fn shared(kind: PeerKind) -> Result<&'static RunningPeer, PeerError> {
        shared_cell(kind).get_or_try_init(|| Self::start(kind)).await
    }

    /// Runs `scripts/peers/install.sh` once per process (later calls return its first outcome).
    async fn install() -> Result<Layout, PeerError> {
        let layout = Layout::discover()?;
        let for_installer = layout.clone();
        tokio::task::spawn_blocking(move || install::ensure_installed(&for_installer)).await.map_err(
            |e| PeerError::Spawn { program: "the installer thread".into(), reason: e.to_string() },
        )??;
        Ok(layout)
    }

    /// Makes sure the pinned SDKs are installed under `target/peers/`, without starting a peer;
    /// for a test binary that wants to fail early and clearly.
    ///
    /// # Errors
    ///
    /// [`PeerError::Install`] with the installer's output tail.
    pub async fn ensure_installed() -> Result<(), PeerError> {
        Self::install().await.map(drop)
    }
}

fn shared_cell(kind: PeerKind) -> &'static OnceCell<RunningPeer> {
    static PYTHON_HONEST: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_OVER_DECLARING: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_SILENT_PUSH: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_V03: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS_HONEST: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS_OVER_DECLARING: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_SIGNED: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS_SIGNED: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_AUTHENTICATED: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS_AUTHENTICATED: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_GRPC: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS_GRPC: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_EXTENSIONS: OnceCell<RunningPeer> = OnceCell::const_new();
    static PYTHON_TRACED: OnceCell<RunningPeer> = OnceCell::const_new();
    match kind {
        PeerKind::PythonHonest => &PYTHON_HONEST,
        PeerKind::PythonOverDeclaring => &PYTHON_OVER_DECLARING,
        PeerKind::PythonSilentPush => &PYTHON_SILENT_PUSH,
        PeerKind::PythonV03 => &PYTHON_V03,
        PeerKind::JsHonest => &JS_HONEST,
        PeerKind::JsOverDeclaring => &JS_OVER_DECLARING,
        PeerKind::PythonSigned => &PYTHON_SIGNED,
        PeerKind::JsSigned => &JS_SIGNED,
        PeerKind::PythonAuthenticated => &PYTHON_AUTHENTICATED,
        PeerKind::JsAuthenticated => &JS_AUTHENTICATED,
        PeerKind::PythonGrpc => &PYTHON_GRPC,
        PeerKind::JsGrpc => &JS_GRPC,
        PeerKind::PythonExtensions => &PYTHON_EXTENSIONS,
        PeerKind::PythonTraced => &PYTHON_TRACED,
    }
}

/// uvicorn says "address already in use", node says EADDRINUSE.
fn lost_its_port(stderr_tail: &str) -> bool {
    let lower = stderr_tail.to_ascii_lowercase();
    lower.contains("address already in use") || lower.contains("eaddrinuse")
}

fn free_port() -> Result<u16, PeerError> {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| PeerError::NoFreePort { reason: e.to_string() })
}

async fn start_once(
    layout: &Layout,
    kind: PeerKind,
    options: &PeerOptions,
) -> Result<RunningPeer, PeerError> {
    let port = free_port()?;
    let logs = log_files(layout, kind, port)?;
    let spawn_error =
        |reason: String| PeerError::Spawn { program: format!("scripts/peers/start.sh {kind}"), reason };
    let stdout = File::create(&logs.0).map_err(|e| spawn_error(format!("{}: {e}", logs.0.display())))?;
    let stderr = File::create(&logs.1).map_err(|e| spawn_error(format!("{}: {e}", logs.1.display())))?;
    let mut command = Command::new("bash");
    command
        .arg(layout.start_script())
        .arg(kind.name())
        .arg(port.to_string())
        .arg("--step-ms")
        .arg(options.step.as_millis().to_string())
        .arg("--exit-on-stdin-eof")
        .env("A2A_PEER_BEARER_TOKEN", PEER_BEARER_TOKEN)
        .current_dir(layout.root())
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
    let peer = RunningPeer::new(kind, port, child, logs);
    wait_until_ready(peer, options.startup_timeout).await
}

fn log_files(layout: &Layout, kind: PeerKind, port: u16) -> Result<(PathBuf, PathBuf), PeerError> {
    let dir = layout.logs_dir();
    std::fs::create_dir_all(&dir).map_err(|e| PeerError::Spawn {
        program: format!("mkdir {}", dir.display()),
        reason: e.to_string(),
    })?;
    let stem = format!("{kind}-{port}");
    Ok((dir.join(format!("{stem}.stdout.log")), dir.join(format!("{stem}.stderr.log"))))
}

/// Polls the card URL until it answers 200, the process exits, or `timeout` passes. On failure
/// the peer is dropped, which kills whatever is left of it.
async fn wait_until_ready(peer: RunningPeer, timeout: Duration) -> Result<RunningPeer, PeerError> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(2))
        .build()
        .map_err(|e| PeerError::Spawn { program: "reqwest client".into(), reason: e.to_string() })?;
    let card_url = peer.card_url();
    let started = Instant::now();
    loop {
        if !peer.is_running() {
            return Err(PeerError::Exited {
                kind: peer.kind(),
                status: exit_status_of(&peer),
                stderr_log: peer.stderr_log().to_path_buf(),
                stderr_tail: peer.stderr_tail(),
            });
        }
        if let Ok(response) = client.get(&card_url).send().await
            && response.status().is_success()
        {
            return Ok(peer);
        }
        if started.elapsed() >= timeout {
            return Err(PeerError::NotReady {
                kind: peer.kind(),
                card_url,
                waited: started.elapsed(),
                stderr_log: peer.stderr_log().to_path_buf(),
                stderr_tail: peer.stderr_tail(),
            });
        }
        tokio::time::sleep(READY_POLL).await;
    }
}

fn exit_status_of(peer: &RunningPeer) -> String {
    peer.exit_status().unwrap_or_else(|| "exit status unknown".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_lost_to_another_process_is_recognised_for_both_runtimes() {
        assert!(lost_its_port("ERROR: [Errno 98] error while attempting to bind: address already in use"));
        assert!(lost_its_port("cannot listen on 127.0.0.1:4000: EADDRINUSE listen EADDRINUSE"));
        assert!(!lost_its_port("ModuleNotFoundError: No module named 'a2a'"));
    }

    /// A stand-in for a peer: `bash -c script` in its own process group, stderr to a temp log.
    fn fake_peer(name: &str, script: &str) -> RunningPeer {
        let dir = std::env::temp_dir().join(format!("a2a-testkit-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let logs = (dir.join("stdout.log"), dir.join("stderr.log"));
        let mut command = Command::new("bash");
        command
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(File::create(&logs.0).expect("stdout log"))
            .stderr(File::create(&logs.1).expect("stderr log"));
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let port = free_port().expect("free port");
        RunningPeer::new(PeerKind::PythonHonest, port, command.spawn().expect("spawn bash"), logs)
    }

    #[tokio::test]
    async fn a_peer_that_exits_before_serving_its_card_fails_with_its_status_and_stderr() {
        let peer = fake_peer("exits", "echo \"ModuleNotFoundError: No module named 'a2a'\" >&2; exit 3");
        let error = wait_until_ready(peer, Duration::from_secs(20)).await.expect_err("it exited");
        let PeerError::Exited { status, stderr_tail, .. } = &error else { panic!("not Exited: {error}") };
        assert!(status.contains('3'), "{status}");
        assert!(stderr_tail.contains("No module named 'a2a'"), "{stderr_tail}");
        let message = error.to_string();
        assert!(message.contains("python-honest") && message.contains("No module named 'a2a'"), "{message}");
    }

    #[tokio::test]
    async fn a_peer_that_never_serves_its_card_fails_after_the_startup_bound_and_is_killed() {
        let peer = fake_peer("silent", "echo 'listening nowhere' >&2; exec sleep 30");
        let pid = peer.pid();
        let bound = Duration::from_millis(300);
        let error = wait_until_ready(peer, bound).await.expect_err("it never served a card");
        let PeerError::NotReady { card_url, waited, stderr_tail, .. } = &error else {
            panic!("not NotReady: {error}")
        };
        assert!(card_url.ends_with("/.well-known/agent-card.json"), "{card_url}");
        assert!(*waited >= bound, "{waited:?}");
        assert!(stderr_tail.contains("listening nowhere"), "{stderr_tail}");
        let alive = Command::new("bash")
            .args(["-c", r#"kill -0 "$0" 2>/dev/null"#, &pid.to_string()])
            .status()
            .expect("run bash");
        assert!(!alive.success(), "pid {pid} still runs after a failed start");
    }

    #[test]
    fn default_options_leave_time_for_a_slow_start_and_for_cancel() {
        let options = PeerOptions::default();
        assert!(options.startup_timeout() >= Duration::from_secs(30));
        assert!(options.step() >= Duration::from_millis(100));
        let tuned = options.with_step(Duration::from_millis(50)).with_startup_timeout(Duration::from_secs(5));
        assert_eq!(
            (tuned.step(), tuned.startup_timeout()),
            (Duration::from_millis(50), Duration::from_secs(5))
        );
    }
}
