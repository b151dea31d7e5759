//! A started peer process: its URLs, its logs, and stopping it.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::layout::tail_of;
use super::{PeerError, PeerKind};

/// How long [`RunningPeer::stop`] waits after SIGTERM before it sends SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// A running official-SDK peer on 127.0.0.1.
///
/// The peer runs in its own process group. Dropping this value kills the group (SIGKILL);
/// [`stop`](Self::stop) asks politely first. A peer also exits by itself when the process that
/// started it dies, even by SIGKILL: it watches its stdin, which only this value holds open. So a
/// peer kept in a `static` (see [`OfficialPeer::shared`](super::OfficialPeer::shared)), which is
/// never dropped, still goes away with the test binary.
#[derive(Debug)]
pub struct RunningPeer {
    kind: PeerKind,
    port: u16,
    base_url: String,
    pid: u32,
    stdout_log: PathBuf,
    stderr_log: PathBuf,
    process: Mutex<Process>,
}

/// The parts of the peer that stopping consumes.
#[derive(Debug)]
struct Process {
    child: Option<Child>,
    /// Held only to be closed: the peer exits when it reads EOF here.
    _stdin_guard: Option<ChildStdin>,
}

impl RunningPeer {
    pub(crate) fn new(kind: PeerKind, port: u16, mut child: Child, logs: (PathBuf, PathBuf)) -> RunningPeer {
        let stdin = child.stdin.take();
        RunningPeer {
            kind,
            port,
            base_url: format!("http://127.0.0.1:{port}"),
            pid: child.id(),
            stdout_log: logs.0,
            stderr_log: logs.1,
            process: Mutex::new(Process { child: Some(child), _stdin_guard: stdin }),
        }
    }

    /// Which peer this is.
    pub fn kind(&self) -> PeerKind {
        self.kind
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The Agent Card: `{base_url}/.well-known/agent-card.json`.
    pub fn card_url(&self) -> String {
        format!("{}/.well-known/agent-card.json", self.base_url)
    }

    /// The JSON-RPC endpoint: `{base_url}/a2a/jsonrpc` (1.0; also 0.3 on [`PeerKind::PythonV03`]).
    pub fn jsonrpc_url(&self) -> String {
        format!("{}/a2a/jsonrpc", self.base_url)
    }

    /// The HTTP+JSON (REST) base: `{base_url}/a2a/rest`, e.g. `POST {rest_url}/message:send`.
    pub fn rest_url(&self) -> String {
        format!("{}/a2a/rest", self.base_url)
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The peer's process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The peer's stdout, under `target/peers/logs/`.
    pub fn stdout_log(&self) -> &Path {
        &self.stdout_log
    }

    /// The peer's stderr, under `target/peers/logs/` (tracebacks land here).
    pub fn stderr_log(&self) -> &Path {
        &self.stderr_log
    }

    /// The last lines of the peer's stderr, for assertion messages.
    pub fn stderr_tail(&self) -> String {
        tail_of(&self.stderr_log)
    }

    /// Whether the peer process is still running.
    pub fn is_running(&self) -> bool {
        match lock(&self.process).child.as_mut() {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// The exit status once the process has exited (std keeps it, so asking again is fine).
    pub(crate) fn exit_status(&self) -> Option<String> {
        let mut process = lock(&self.process);
        match process.child.as_mut().map(Child::try_wait) {
            Some(Ok(Some(status))) => Some(status.to_string()),
            _ => None,
        }
    }

    /// Stops the peer: SIGTERM to its process group, then SIGKILL after [`STOP_GRACE`].
    ///
    /// # Errors
    ///
    /// [`PeerError::Stop`] when the signals cannot be sent or the process cannot be reaped.
    pub fn stop(self) -> Result<(), PeerError> {
        let mut process = lock(&self.process);
        let Some(mut child) = process.child.take() else { return Ok(()) };
        process._stdin_guard = None;
        let stop_error = |reason: String| PeerError::Stop { kind: self.kind, pid: self.pid, reason };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return Ok(());
        }
        signal_group(self.pid, "TERM").map_err(&stop_error)?;
        let deadline = Instant::now() + STOP_GRACE;
        loop {
            match child.try_wait() {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if Instant::now() >= deadline => break,
                Ok(None) => thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(stop_error(format!("cannot wait for it: {e}"))),
            }
        }
        kill_now(self.pid, &mut child);
        child.wait().map(drop).map_err(|e| stop_error(format!("cannot reap it after SIGKILL: {e}")))
    }
}

impl Drop for RunningPeer {
    fn drop(&mut self) {
        let process = self.process.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(mut child) = process.child.take() {
            kill_now(self.pid, &mut child);
            // Reap briefly so no zombie is left behind; SIGKILL makes this near-instant.
            let deadline = Instant::now() + Duration::from_secs(2);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

fn lock(process: &Mutex<Process>) -> MutexGuard<'_, Process> {
    process.lock().unwrap_or_else(PoisonError::into_inner)
}

/// SIGKILL to the whole group, and to the leader directly in case the group signal failed.
pub(crate) fn kill_now(pid: u32, child: &mut Child) {
    let _ = signal_group(pid, "KILL");
    let _ = child.kill();
}

/// Sends a signal to process group `pgid` with the shell's `kill` builtin (no `unsafe` libc
/// call, and no dependence on procps being installed).
fn signal_group(pgid: u32, signal: &str) -> Result<(), String> {
    let output = Command::new("bash")
        .args(["-c", r#"kill -s "$0" -- "-$1""#, signal, &pgid.to_string()])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run bash to send SIG{signal}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let why = String::from_utf8_lossy(&output.stderr);
        Err(format!("kill -s {signal} -- -{pgid} failed ({}): {}", output.status, why.trim()))
    }
}
