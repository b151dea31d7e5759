//! Running `scripts/frameworks/install.sh NAME`, once per framework and process.
//!
//! The script is idempotent (a stamp makes a second run return at once) and serialises installers
//! with a file lock, so tests installing two frameworks at the same time wait for each other. This
//! side makes sure one process asks once per framework, and remembers a failure so that every
//! test of that framework reports it without installing again.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use super::layout::Layout;
use super::{Framework, FrameworkError};
use crate::official::tail_of;

/// How long one install may take, waiting for other installs included, before it is stopped. A
/// cold install measures 16 to 120 s on two idle cores and about four times that beside a build
/// (a2a-rust, a cargo build of 268 crates, about 300 s with one job); anything near this bound is
/// a hung registry connection or a starved build.
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(1200);

static INSTALLED: [OnceLock<Result<(), FrameworkError>>; Framework::ALL.len()] =
    [const { OnceLock::new() }; Framework::ALL.len()];

/// Runs the installer for `framework` unless this process already did; blocks, so call it off
/// the async runtime.
pub(crate) fn ensure_installed(layout: &Layout, framework: Framework) -> Result<(), FrameworkError> {
    INSTALLED[framework.index()].get_or_init(|| run_installer(layout, framework)).clone()
}

fn run_installer(layout: &Layout, framework: Framework) -> Result<(), FrameworkError> {
    let log = layout.logs_dir().join(format!("install-{framework}.log"));
    let spawn_error = |reason: String| FrameworkError::Spawn {
        program: format!("bash scripts/frameworks/install.sh {framework}"),
        reason,
    };
    std::fs::create_dir_all(layout.logs_dir()).map_err(|e| spawn_error(e.to_string()))?;
    let out = File::create(&log).map_err(|e| spawn_error(format!("cannot create {}: {e}", log.display())))?;
    let err = out.try_clone().map_err(|e| spawn_error(e.to_string()))?;
    let mut child = Command::new("bash")
        .arg(layout.install_script())
        .arg(framework.name())
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
            Ok(Some(status)) => return Err(install_error(framework, status.to_string(), &log)),
            Ok(None) if started.elapsed() > INSTALL_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                let outcome = format!("still running after {INSTALL_TIMEOUT:?}, stopped");
                return Err(install_error(framework, outcome, &log));
            }
            Ok(None) => thread::sleep(Duration::from_millis(100)),
            Err(e) => {
                let outcome = format!("cannot wait for the installer: {e}");
                return Err(install_error(framework, outcome, &log));
            }
        }
    }
}

fn install_error(framework: Framework, outcome: String, log: &Path) -> FrameworkError {
    FrameworkError::Install { framework, outcome, log: log.to_path_buf(), log_tail: tail_of(log) }
}
