//! Running `scripts/peers/install.sh`, once per process.
//!
//! The script itself is idempotent (it returns in well under a second when the pinned versions
//! are already installed) and takes a file lock, so two test binaries installing at the same time
//! wait for each other instead of corrupting the venv. This side only makes sure one process asks
//! once, and remembers a failure so that fifty tests do not each retry a broken install.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use super::PeerError;
use super::layout::Layout;
use super::layout::tail_of;

/// How long an install may take before it is stopped: a cold install measures well under a
/// minute; anything near this bound is a hung registry connection.
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

static INSTALLED: OnceLock<Result<(), PeerError>> = OnceLock::new();

/// Runs the installer unless this process already did; blocks, so call it off the async runtime.
pub(crate) fn ensure_installed(layout: &Layout) -> Result<(), PeerError> {
    INSTALLED.get_or_init(|| run_installer(layout)).clone()
}

fn run_installer(layout: &Layout) -> Result<(), PeerError> {
    let log = layout.logs_dir().join("install.log");
    let spawn_error =
        |reason: String| PeerError::Spawn { program: "bash scripts/peers/install.sh".into(), reason };
    std::fs::create_dir_all(layout.logs_dir()).map_err(|e| spawn_error(e.to_string()))?;
    let out = File::create(&log).map_err(|e| spawn_error(format!("cannot create {}: {e}", log.display())))?;
    let err = out.try_clone().map_err(|e| spawn_error(e.to_string()))?;
    let mut child = Command::new("bash")
        .arg(layout.install_script())
        .current_dir(layout.root())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| spawn_error(e.to_string()))?;

    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(install_error(status.to_string(), &log)),
            Ok(None) if started.elapsed() > INSTALL_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(install_error(format!("still running after {INSTALL_TIMEOUT:?}, stopped"), &log));
            }
            Ok(None) => thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(install_error(format!("cannot wait for the installer: {e}"), &log)),
        }
    }
}

fn install_error(outcome: String, log: &Path) -> PeerError {
    PeerError::Install { outcome, log: log.to_path_buf(), log_tail: tail_of(log) }
}
