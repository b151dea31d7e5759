//! A started corpus agent: its URLs, its log, and stopping it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::layout::Layout;
use super::{CorpusAgent, FrameworkError};
use crate::official::{kill_now, tail_of};

/// How long [`RunningFrameworkAgent::stop`] waits for the agent to exit after asking it to
/// (SIGTERM) before it kills it.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// Runs `start.sh` (`$0`, its arguments in `$@`) in the background and waits for it, while a
/// watcher reads this shell's stdin: when the test process closes it (drops the handle, or dies,
/// even by SIGKILL) the agent gets SIGTERM, then the whole process group SIGKILL. `start.sh`
/// execs the agent's interpreter, so the background pid is the agent's own. The corpus agents
/// are third-party code with no "exit when stdin closes" switch of their own; this is that switch.
const SUPERVISOR: &str = r#"
exec 3<&0 0</dev/null
bash "$0" "$@" 3<&- &
agent=$!
{ while read -r _ <&3; do :; done; kill -TERM "$agent" 2>/dev/null; sleep 3; kill -KILL 0; } &
wait "$agent"
"#;

/// A running corpus agent on 127.0.0.1.
///
/// The agent runs in its own process group. Dropping this value kills the group (SIGKILL);
/// [`stop`](Self::stop) asks politely first. The agent also goes away when the process that
/// started it dies, even by SIGKILL, since only this value holds its supervisor's stdin open.
#[derive(Debug)]
pub struct RunningFrameworkAgent {
    agent: CorpusAgent,
    port: u16,
    pid: u32,
    log: PathBuf,
    start_log: PathBuf,
    process: Mutex<Process>,
}

/// The parts of the agent that stopping consumes.
#[derive(Debug)]
struct Process {
    child: Option<Child>,
    /// Held only to be closed: the supervisor stops the agent when it reads EOF here.
    stdin_guard: Option<ChildStdin>,
}

impl RunningFrameworkAgent {
    /// Spawns `agent` on `port` under the supervisor, in a process group of its own.
    pub(crate) fn spawn(
        layout: &Layout,
        agent: CorpusAgent,
        port: u16,
    ) -> Result<RunningFrameworkAgent, FrameworkError> {
        Self::spawn_script(&layout.start_script(), layout.root(), &layout.logs_dir(), agent, port)
    }

    /// Spawns `start_script NAME PORT ARGS` under the supervisor, from `root`, logging in `logs`.
    fn spawn_script(
        start_script: &Path,
        root: &Path,
        logs: &Path,
        agent: CorpusAgent,
        port: u16,
    ) -> Result<RunningFrameworkAgent, FrameworkError> {
        let spawn_error = |reason: String| FrameworkError::Spawn {
            program: format!("scripts/frameworks/start.sh {}", agent.framework()),
            reason,
        };
        std::fs::create_dir_all(logs).map_err(|e| spawn_error(format!("{}: {e}", logs.display())))?;
        // start.sh appends the agent's stdout and stderr to NAME-PORT.log; what start.sh itself
        // says (a missing install, say) goes to the start log beside it.
        let log = logs.join(format!("{}-{port}.log", agent.framework()));
        let start_log = logs.join(format!("{}-{port}.start.log", agent.label()));
        let out =
            File::create(&start_log).map_err(|e| spawn_error(format!("{}: {e}", start_log.display())))?;
        let err = out.try_clone().map_err(|e| spawn_error(e.to_string()))?;
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg(SUPERVISOR)
            .arg(start_script)
            .arg(agent.framework().name())
            .arg(port.to_string())
            .args(agent.args())
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(out)
            .stderr(err);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let stdin_guard = child.stdin.take();
        Ok(RunningFrameworkAgent {
            agent,
            port,
            pid: child.id(),
            log,
            start_log,
            process: Mutex::new(Process { child: Some(child), stdin_guard }),
        })
    }

    /// Which agent this is.
    pub fn agent(&self) -> CorpusAgent {
        self.agent
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The URL to give `a2a audit`: the agent's base URL (its card is under it at
    /// `/.well-known/agent-card.json`), or the card's own URL when the card is elsewhere
    /// (Mastra's `/api/.well-known/{agentId}/agent-card.json`). No trailing slash.
    pub fn url(&self) -> String {
        format!("{}{}", self.origin(), self.agent.base_path().trim_end_matches('/'))
    }

    /// The Agent Card's URL.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.origin(), self.agent.card_path())
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The supervisor's process id, which is also the process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The agent's log (its stdout and stderr), under `target/frameworks/logs/`.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The last lines of the agent's log, and of what `start.sh` said when it said anything.
    pub fn log_tail(&self) -> String {
        let started = tail_of(&self.start_log);
        let agent = tail_of(&self.log);
        if started == "(empty)" { agent } else { format!("{started}\n{agent}") }
    }

    /// Whether the agent is still running.
    pub fn is_running(&self) -> bool {
        match lock(&self.process).child.as_mut() {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// The exit status once the agent has exited.
    pub(crate) fn exit_status(&self) -> Option<String> {
        match lock(&self.process).child.as_mut().map(Child::try_wait) {
            Some(Ok(Some(status))) => Some(status.to_string()),
            _ => None,
        }
    }

    /// Stops the agent: SIGTERM (by closing its supervisor's stdin), then SIGKILL to its process
    /// group after [`STOP_GRACE`].
    pub fn stop(self) {
        let mut process = lock(&self.process);
        let Some(mut child) = process.child.take() else { return };
        process.stdin_guard = None;
        let deadline = Instant::now() + STOP_GRACE;
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        // The watcher may outlive the agent by its own grace: the group goes in any case.
        kill_now(self.pid, &mut child);
        let _ = child.wait();
    }
}

impl Drop for RunningFrameworkAgent {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for `start.sh` that execs an agent ignoring its stdin and every signal but
    /// SIGTERM and SIGKILL, as the corpus agents do.
    fn fake_agent(name: &str, script: &str) -> RunningFrameworkAgent {
        let dir = std::env::temp_dir().join(format!("a2a-testkit-frameworks-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let start = dir.join("start.sh");
        std::fs::write(&start, script).expect("write the fake start.sh");
        let port = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        RunningFrameworkAgent::spawn_script(&start, &dir, &dir.join("logs"), CorpusAgent::Msaf, port)
            .expect("spawn the supervisor")
    }

    /// Whether process group `pgid` still has a member, given the init process a moment to reap
    /// the ones orphaned by the kill.
    fn group_alive(pgid: u32) -> bool {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let alive = Command::new("bash")
                .args(["-c", r#"kill -0 -- "-$0" 2>/dev/null"#, &pgid.to_string()])
                .status()
                .expect("run bash")
                .success();
            if !alive || Instant::now() >= deadline {
                return alive;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn closing_the_supervisors_stdin_stops_the_agent_with_sigterm() {
        let agent = fake_agent("stdin", "echo \"agent on $2\" >&2; exec sleep 60\n");
        thread::sleep(Duration::from_millis(300));
        assert!(agent.is_running());
        lock(&agent.process).stdin_guard = None;
        let deadline = Instant::now() + Duration::from_secs(5);
        while agent.is_running() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(!agent.is_running(), "the agent outlived its supervisor's stdin");
        assert!(
            agent.exit_status().is_some_and(|s| s.contains("15") || s.contains("143")),
            "{:?}",
            agent.exit_status()
        );
        assert!(agent.log_tail().contains("agent on"), "{}", agent.log_tail());
    }

    #[test]
    fn dropping_the_handle_kills_the_whole_process_group() {
        let agent = fake_agent("drop", "sleep 60 &\nexec sleep 61\n");
        let pid = agent.pid();
        thread::sleep(Duration::from_millis(300));
        drop(agent);
        assert!(!group_alive(pid), "process group {pid} still has members");
    }
}
