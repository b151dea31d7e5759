//! Real agents built on third-party A2A frameworks, for interop tests: the corpus in
//! `scripts/frameworks/`, started on 127.0.0.1 and stopped when dropped.
//!
//! Each framework ([`Framework`]) is installed pinned by `scripts/frameworks/install.sh NAME`
//! under `target/frameworks/NAME/` (once per process; a no-op when its stamp matches), and each
//! agent of `agents.tsv` ([`CorpusAgent`]) is started by `scripts/frameworks/start.sh NAME PORT
//! [ARGS]` on a free port, its log in `target/frameworks/logs/NAME-PORT.log`. The harness waits
//! for the agent's card, and kills the agent's process group when the handle is dropped. What each
//! agent's card claims and what it really does is in the framework's `TRUTH.md`.
//!
//! ```no_run
//! use a2a_testkit::frameworks::{CorpusAgent, FrameworkAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = FrameworkAgent::start(CorpusAgent::Msaf).await?;
//! let http = reqwest::Client::builder().no_proxy().build()?;
//! let card: serde_json::Value = http.get(agent.card_url()).send().await?.json().await?;
//! assert_eq!(card["capabilities"]["pushNotifications"], true); // declared, answered -32003
//! agent.stop();
//! # Ok(())
//! # }
//! ```
//!
//! Installing needs python3 (>= 3.10, with venv) for the Python frameworks and node >= 20 with
//! npm for Mastra, and a package registry: a test that cannot have them should say so
//! ([`FrameworkError::is_install`]) rather than fail as if the agent were at fault. Like
//! [`crate::official`], the harness finds the scripts next to this crate's own directory.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod corpus;
mod error;
mod install;
mod layout;
mod process;

use std::net::TcpListener;
use std::time::{Duration, Instant};

pub use self::corpus::{CorpusAgent, Framework};
pub use self::error::FrameworkError;
pub use self::install::INSTALL_TIMEOUT;
pub use self::process::{RunningFrameworkAgent, STOP_GRACE};

use self::layout::Layout;

/// How long an agent may take to serve its card after it was spawned: the slowest (LangGraph's
/// server, Python imports of 200 MB of packages) take tens of seconds on two loaded cores.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(180);

/// How often a start that lost its port to another process between reservation and bind is tried.
const PORT_ATTEMPTS: usize = 3;
/// How often readiness is polled.
const READY_POLL: Duration = Duration::from_millis(100);

/// Installs and starts corpus agents. See the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct FrameworkAgent {
    _private: (),
}

impl FrameworkAgent {
    /// Installs `framework` unless this process already did (`install.sh` itself is a no-op when
    /// the pinned install is there), for a test that wants to fail or skip early and clearly.
    ///
    /// # Errors
    ///
    /// [`FrameworkError::Install`] with the installer's output tail (after [`INSTALL_TIMEOUT`]
    /// at most); [`FrameworkError::Layout`] outside a checkout of the repository.
    pub async fn install(framework: Framework) -> Result<(), FrameworkError> {
        let layout = Layout::discover()?;
        tokio::task::spawn_blocking(move || install::ensure_installed(&layout, framework)).await.map_err(
            |e| FrameworkError::Spawn { program: "the installer thread".into(), reason: e.to_string() },
        )?
    }

    /// Installs `agent`'s framework if needed, then starts `agent` on a free port of 127.0.0.1 and
    /// waits (at most [`STARTUP_TIMEOUT`]) until its card is served.
    ///
    /// # Errors
    ///
    /// As [`install`](Self::install); [`FrameworkError::Exited`] or [`FrameworkError::NotReady`]
    /// (with the agent's log tail) when it does not come up; [`FrameworkError::Spawn`] or
    /// [`FrameworkError::NoFreePort`] for trouble on this machine.
    pub async fn start(agent: CorpusAgent) -> Result<RunningFrameworkAgent, FrameworkError> {
        Self::install(agent.framework()).await?;
        let layout = Layout::discover()?;
        let mut attempt = 1;
        loop {
            let running = RunningFrameworkAgent::spawn(&layout, agent, free_port()?)?;
            match wait_until_ready(running, STARTUP_TIMEOUT).await {
                Err(FrameworkError::Exited { log_tail, .. })
                    if attempt < PORT_ATTEMPTS && lost_its_port(&log_tail) =>
                {
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }
}

/// uvicorn, Flask and Rust's std say "address already in use", node says EADDRINUSE.
fn lost_its_port(log_tail: &str) -> bool {
    let lower = log_tail.to_ascii_lowercase();
    lower.contains("address already in use") || lower.contains("eaddrinuse")
}

fn free_port() -> Result<u16, FrameworkError> {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| FrameworkError::NoFreePort { reason: e.to_string() })
}

/// Polls the card URL until it answers 200, the agent exits, or `timeout` passes. On failure the
/// agent is dropped, which kills whatever is left of it.
async fn wait_until_ready(
    agent: RunningFrameworkAgent,
    timeout: Duration,
) -> Result<RunningFrameworkAgent, FrameworkError> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| FrameworkError::Spawn { program: "reqwest client".into(), reason: e.to_string() })?;
    let card_url = agent.card_url();
    let started = Instant::now();
    loop {
        if !agent.is_running() {
            return Err(FrameworkError::Exited {
                agent: agent.agent(),
                status: agent.exit_status().unwrap_or_else(|| "exit status unknown".to_owned()),
                log: agent.log().to_path_buf(),
                log_tail: agent.log_tail(),
            });
        }
        if let Ok(response) = client.get(&card_url).send().await
            && response.status().is_success()
        {
            return Ok(agent);
        }
        if started.elapsed() >= timeout {
            return Err(FrameworkError::NotReady {
                agent: agent.agent(),
                card_url,
                waited: started.elapsed(),
                log: agent.log().to_path_buf(),
                log_tail: agent.log_tail(),
            });
        }
        tokio::time::sleep(READY_POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_lost_to_another_process_is_recognised_for_python_node_and_rust() {
        assert!(lost_its_port("ERROR: [Errno 98] error while attempting to bind: address already in use"));
        assert!(lost_its_port("Error: listen EADDRINUSE: address already in use 127.0.0.1:4000"));
        assert!(lost_its_port(
            "a2a-rust-agent: cannot listen on 127.0.0.1:4000: Address already in use (os error 98)"
        ));
        assert!(!lost_its_port("ModuleNotFoundError: No module named 'fasta2a'"));
    }

    #[test]
    fn only_install_and_layout_failures_are_install_failures() {
        let install = FrameworkError::Install {
            framework: Framework::Msaf,
            outcome: "exit status: 1".into(),
            log: "install-msaf.log".into(),
            log_tail: "pip: no such version".into(),
        };
        assert!(install.is_install());
        assert!(install.to_string().contains("msaf") && install.to_string().contains("no such version"));
        let exited = FrameworkError::Exited {
            agent: CorpusAgent::Msaf,
            status: "exit status: 1".into(),
            log: "msaf-1.log".into(),
            log_tail: "Traceback".into(),
        };
        assert!(!exited.is_install());
    }
}
