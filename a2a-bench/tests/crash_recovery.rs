//! Recovery after a real crash: an orchestrator process (`a2a-crash`) runs tasks with a task
//! journal, is killed with SIGKILL while they are in flight, is started again and recovers. The
//! agent counts every execution: each task must end in a definite outcome, and none may run twice.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, RunningAgent, Script, ScriptedAgent};
use tokio::process::Command;

const TASKS: usize = 24;
/// The longest the restarted orchestrator may take to recover and finish.
const FINISH_BOUND: Duration = Duration::from_secs(90);

async fn counting_agent() -> RunningAgent {
    ScriptedAgent::builder()
        .name("counting")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().step_delay(Duration::from_millis(250)))
        .spawn()
        .await
        .expect("agent starts")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn orchestrator(agent: &RunningAgent, outcomes: &Path, journal: &[String], streaming: bool) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-crash"));
    command
        .args(["--url", &agent.base_url(), "--tasks", &TASKS.to_string(), "--in-flight", &TASKS.to_string()])
        .arg("--outcomes")
        .arg(outcomes)
        .args(journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if streaming {
        command.arg("--streaming");
    }
    command
}

fn executions(agent: &RunningAgent) -> HashMap<usize, u32> {
    agent
        .executions_by_text()
        .into_iter()
        .filter_map(|(text, count)| Some((text.strip_prefix("crash task crash-")?.parse().ok()?, count)))
        .collect()
}

/// The test's Redis, or `None` (skipped outside CI) when none is named.
fn redis_url() -> Option<String> {
    // An empty variable means unset, as in a shell's `${A2A_TEST_REDIS_URL:-}`.
    let url = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty());
    if url.is_none() {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must set A2A_TEST_REDIS_URL");
        eprintln!("skipped: A2A_TEST_REDIS_URL names no redis-server");
    }
    url
}

/// Checks the agent's side: every task ran, and exactly once.
fn assert_each_executed_once(agent: &RunningAgent, report: &str) {
    let ran = executions(agent);
    let twice: Vec<_> = ran.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "executed more than once: {twice:?}");
    let lost: Vec<_> = (0..TASKS).filter(|n| !ran.contains_key(n)).collect();
    assert!(lost.is_empty(), "never executed: {lost:?} ({report})");
}

/// Checks the orchestrators' side: every task ended in a definite outcome (completed).
fn assert_each_completed(outcomes: &Path) {
    let text = std::fs::read_to_string(outcomes).expect("outcomes");
    let completed: HashSet<usize> = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let n = fields.next()?.parse().ok()?;
            let kind = fields.next()?;
            let state = fields.next()?;
            (matches!(kind, "ran" | "recovered" | "taken-over") && state == "TASK_STATE_COMPLETED")
                .then_some(n)
        })
        .collect();
    let open: Vec<_> = (0..TASKS).filter(|n| !completed.contains(n)).collect();
    assert!(open.is_empty(), "no definite outcome for {open:?}:\n{text}");
}

/// Starts the orchestrator, kills it (SIGKILL) once half the tasks started on the agent, starts it
/// again, and checks what the agent and the orchestrator say.
async fn killed_then_recovered(name: &str, journal: &[String], streaming: bool) {
    let agent = counting_agent().await;
    let dir = scratch(name);
    let outcomes = dir.join("outcomes.tsv");

    let mut first = orchestrator(&agent, &outcomes, journal, streaming).spawn().expect("orchestrator starts");
    let started = Instant::now();
    while executions(&agent).len() < TASKS / 2 {
        assert!(started.elapsed() < Duration::from_secs(30), "the orchestrator never started its tasks");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // tokio's `Child::kill` is SIGKILL on Unix: no destructor, no flush runs in the orchestrator.
    first.kill().await.expect("SIGKILL");
    let ended_before_the_kill = std::fs::read_to_string(&outcomes).unwrap_or_default().lines().count();
    assert!(ended_before_the_kill < TASKS, "every task had ended before the kill: nothing to recover");

    let second = orchestrator(&agent, &outcomes, journal, streaming).spawn().expect("orchestrator restarts");
    let output = tokio::time::timeout(FINISH_BOUND, second.wait_with_output())
        .await
        .expect("the restarted orchestrator finishes within its bound")
        .expect("orchestrator output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "restarted orchestrator failed: {stdout}");
    let report: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("a JSON report");
    assert!(report["recovered"].as_u64().unwrap_or(0) > 0, "nothing was recovered: {report}");
    assert_eq!(report["resumeErrors"], 0, "{report}");

    assert_each_executed_once(&agent, &report.to_string());
    assert_each_completed(&outcomes);
    agent.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_of_an_orchestrator_killed_mid_stream_are_recovered_from_the_embedded_journal_once_each() {
    let dir = scratch("embedded-journal");
    let journal = ["--journal-file".to_owned(), dir.join("journal.redb").display().to_string()];
    killed_then_recovered("embedded", &journal, true).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_of_an_orchestrator_killed_mid_poll_are_recovered_from_the_redis_journal_once_each() {
    let Some(url) = redis_url() else { return };
    let prefix = format!("a2a-crash-test-{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    let journal = ["--redis".to_owned(), url, "--key-prefix".to_owned(), prefix];
    killed_then_recovered("redis", &journal, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_of_a_replica_killed_and_never_restarted_are_taken_over_by_another_once_each() {
    const REPLICAS: usize = 3;
    const KILLED: usize = 1;
    let Some(url) = redis_url() else { return };
    let prefix = format!("a2a-takeover-test-{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    let agent = counting_agent().await;
    let dir = scratch("takeover");
    let outcomes = dir.join("outcomes.tsv");
    let journal = [
        "--redis".to_owned(),
        url,
        "--key-prefix".to_owned(),
        prefix,
        "--replicas".to_owned(),
        REPLICAS.to_string(),
        "--replica-lease-ms".to_owned(),
        "1000".to_owned(),
        "--take-over-for-ms".to_owned(),
        "5000".to_owned(),
    ];
    let mut replicas: Vec<_> = (0..REPLICAS)
        .map(|r| {
            let mut command = orchestrator(&agent, &outcomes, &journal, false);
            command.args(["--replica", &r.to_string()]).spawn().expect("replica starts")
        })
        .collect();
    // Killed once half of its share started on the agent; never started again.
    let started = Instant::now();
    let killed_share = || executions(&agent).keys().filter(|n| *n % REPLICAS == KILLED).count();
    while killed_share() < TASKS / REPLICAS / 2 {
        assert!(started.elapsed() < Duration::from_secs(30), "the replica never started its tasks");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    replicas[KILLED].kill().await.expect("SIGKILL");
    let killed_ended = std::fs::read_to_string(&outcomes)
        .unwrap_or_default()
        .lines()
        .filter(|line| {
            line.split('\t')
                .next()
                .and_then(|n| n.parse::<usize>().ok())
                .is_some_and(|n| n % REPLICAS == KILLED)
        })
        .count();
    assert!(
        killed_ended < TASKS / REPLICAS,
        "every task of the killed replica had ended: nothing to take over"
    );

    let mut taken_over = 0;
    let mut reports = Vec::new();
    for (r, replica) in replicas.into_iter().enumerate().filter(|(r, _)| *r != KILLED) {
        let output = tokio::time::timeout(FINISH_BOUND, replica.wait_with_output())
            .await
            .expect("the live replicas finish within their bound")
            .expect("replica output");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "replica {r} failed: {stdout}");
        let report: serde_json::Value =
            serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("a JSON report");
        assert_eq!(report["resumeErrors"], 0, "{report}");
        taken_over += report["takenOver"].as_u64().unwrap_or(0);
        reports.push(report);
    }
    assert!(taken_over > 0, "nothing was taken over: {reports:?}");
    assert_each_executed_once(&agent, &format!("{reports:?}"));
    assert_each_completed(&outcomes);
    agent.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
