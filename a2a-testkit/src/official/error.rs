//! Why an official-SDK peer could not be installed, started or stopped.

use std::path::PathBuf;
use std::time::Duration;

use super::PeerKind;

/// A peer could not be installed, started or stopped.
///
/// Every variant says what was attempted and carries the tail of the relevant log, so a failing
/// test prints the reason (a missing interpreter, a registry refusing a package, a Python
/// traceback) without anyone having to go looking for the log file.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The workspace layout is not what the harness expects (no `scripts/peers/`).
    #[error("cannot find the peer scripts at {}", path.display())]
    Layout {
        /// Where the scripts were looked for.
        path: PathBuf,
    },
    /// `scripts/peers/install.sh` failed or did not finish in time.
    #[error("installing the official SDK peers failed ({outcome}); log {}:\n{log_tail}", log.display())]
    Install {
        /// Exit status, or how long it ran before it was stopped.
        outcome: String,
        /// The installer's full output.
        log: PathBuf,
        /// The last lines of that output.
        log_tail: String,
    },
    /// A process could not be spawned at all (no `bash`, no permission, ...).
    #[error("cannot run {program}: {reason}")]
    Spawn {
        /// What was run.
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// No free TCP port could be reserved on 127.0.0.1.
    #[error("cannot reserve a free port on 127.0.0.1: {reason}")]
    NoFreePort {
        /// The operating system's reason.
        reason: String,
    },
    /// The peer process exited before it served its card.
    #[error("the {kind} peer exited before serving its card ({status}); stderr {}:\n{stderr_tail}", stderr_log.display())]
    Exited {
        /// Which peer.
        kind: PeerKind,
        /// Its exit status.
        status: String,
        /// Its full stderr.
        stderr_log: PathBuf,
        /// The last lines of its stderr.
        stderr_tail: String,
    },
    /// The peer kept running but did not serve its card within the startup bound.
    #[error("the {kind} peer did not serve {card_url} within {waited:?}; stderr {}:\n{stderr_tail}", stderr_log.display())]
    NotReady {
        /// Which peer.
        kind: PeerKind,
        /// The URL that was polled.
        card_url: String,
        /// How long the harness waited.
        waited: Duration,
        /// Its full stderr.
        stderr_log: PathBuf,
        /// The last lines of its stderr.
        stderr_tail: String,
    },
    /// The peer could not be stopped.
    #[error("cannot stop the {kind} peer (pid {pid}): {reason}")]
    Stop {
        /// Which peer.
        kind: PeerKind,
        /// Its process id (and process group id).
        pid: u32,
        /// What went wrong.
        reason: String,
    },
}

impl PeerError {
    /// Whether the failure happened while installing the SDKs (registry, interpreter or disk
    /// trouble) rather than in a peer.
    pub fn is_install(&self) -> bool {
        matches!(self, PeerError::Install { .. })
    }
}
