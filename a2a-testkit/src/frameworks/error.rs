//! Why a corpus agent could not be installed or started.

use std::path::PathBuf;
use std::time::Duration;

use super::{CorpusAgent, Framework};

/// A corpus agent could not be installed or started.
///
/// Every variant says what was attempted and carries the tail of the relevant log, so a failing
/// test prints the reason (no interpreter, a registry refusing a package, a traceback) where it
/// fails.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FrameworkError {
    /// The workspace layout is not what the harness expects (no `scripts/frameworks/`).
    #[error("cannot find the corpus scripts at {}", path.display())]
    Layout {
        /// Where the scripts were looked for.
        path: PathBuf,
    },
    /// `scripts/frameworks/install.sh NAME` failed or did not finish in time.
    #[error("installing {framework} failed ({outcome}); log {}:\n{log_tail}", log.display())]
    Install {
        /// Which framework.
        framework: Framework,
        /// Exit status, or how long it ran before it was stopped.
        outcome: String,
        /// The installer's output.
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
    /// The agent exited before it served its card.
    #[error("the {agent} agent exited before serving its card ({status}); log {}:\n{log_tail}", log.display())]
    Exited {
        /// Which agent.
        agent: CorpusAgent,
        /// Its exit status.
        status: String,
        /// Its log (stdout and stderr).
        log: PathBuf,
        /// The last lines of its log.
        log_tail: String,
    },
    /// The agent kept running but did not serve its card within the startup bound.
    #[error("the {agent} agent did not serve {card_url} within {waited:?}; log {}:\n{log_tail}", log.display())]
    NotReady {
        /// Which agent.
        agent: CorpusAgent,
        /// The URL that was polled.
        card_url: String,
        /// How long the harness waited.
        waited: Duration,
        /// Its log (stdout and stderr).
        log: PathBuf,
        /// The last lines of its log.
        log_tail: String,
    },
}

impl FrameworkError {
    /// Whether the failure happened while installing the framework (interpreter, registry or
    /// disk trouble on this machine) rather than in the agent.
    pub fn is_install(&self) -> bool {
        matches!(self, FrameworkError::Install { .. } | FrameworkError::Layout { .. })
    }
}
