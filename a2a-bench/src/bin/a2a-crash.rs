//! The client side of the crash harness (`scripts/bench/crash.sh`) and of the SIGKILL recovery
//! tests (`a2a-bench/tests/crash_recovery.rs`): an orchestrator that runs numbered tasks through
//! `Client::run_task` with a task journal, and can be killed at any point and started again.
//!
//! On start it recovers first: every task its journal holds that did not end is followed to its
//! end (`Client::resume`); one that never reached the agent is sent again (this orchestrator's
//! policy), one that may have started is not. Then it runs each task of its share that the
//! journal has never seen (`Client::journaled`), so a task is begun at most once per journal.
//!
//! With `--take-over-for`, once its own share is done it keeps taking over (`Client::take_over`)
//! the unfinished tasks of replicas whose lease ran out, for that long, following each to its end
//! as after a restart, and runs the never-begun share of a replica it took over (the work queue's
//! part in an application).
//!
//! Task `n` is the message `<label>-<n>` with the text `crash task <label>-<n>`, sent to the
//! `n mod agents`-th agent; a replica `r` of `R` runs the tasks with `n mod R == r`. Each outcome is
//! appended to `--outcomes` as `n<TAB>kind<TAB>detail`; the last stdout line is one JSON object
//! of what this process did.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use a2a_typestate_client::journal::{Durability, Journal, JournaledTask, Recovered};
use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Capability, Client, Message, TaskState};
use clap::Parser;
use futures::StreamExt;
use serde::Serialize;

#[derive(Debug, Parser)]
#[command(about = "An orchestrator with a task journal, to be killed and started again")]
struct Cli {
    /// Agent base URL; repeat for several (task n goes to agent n mod count).
    #[arg(long = "url", required = true)]
    urls: Vec<String>,
    /// How many tasks in all.
    #[arg(long)]
    tasks: usize,
    /// What names this run's tasks (message ids `<label>-<n>`), so runs against one agent differ.
    #[arg(long, default_value = "crash")]
    label: String,
    /// The embedded journal's file.
    #[arg(long, conflicts_with = "redis")]
    journal_file: Option<PathBuf>,
    /// The Redis journal's server (`redis://host:port/`).
    #[arg(long)]
    redis: Option<String>,
    #[arg(long, default_value = "a2a-crash")]
    key_prefix: String,
    /// This replica's index, of `--replicas`.
    #[arg(long, default_value_t = 0)]
    replica: usize,
    #[arg(long, default_value_t = 1)]
    replicas: usize,
    /// Tasks run at once.
    #[arg(long, default_value_t = 16)]
    in_flight: usize,
    /// Depend on streaming (else on nothing: `SendMessage` and `GetTask` polling).
    #[arg(long)]
    streaming: bool,
    /// Where each outcome is appended.
    #[arg(long)]
    outcomes: PathBuf,
    /// The replica's lease on its tasks in the Redis journal, in milliseconds.
    #[arg(long)]
    replica_lease_ms: Option<u64>,
    /// After its own share, take over dead replicas' tasks for this many milliseconds.
    #[arg(long, default_value_t = 0)]
    take_over_for_ms: u64,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    replica: usize,
    recovered: u64,
    recovered_to_a_task: u64,
    not_started_resent: u64,
    may_have_started: u64,
    resume_errors: u64,
    taken_over: u64,
    ran: u64,
    skipped: u64,
    run_errors: u64,
    not_durable: u64,
}

#[derive(Default)]
struct Counts {
    recovered_to_a_task: AtomicU64,
    not_started_resent: AtomicU64,
    may_have_started: AtomicU64,
    resume_errors: AtomicU64,
    taken_over: AtomicU64,
    ran: AtomicU64,
    skipped: AtomicU64,
    run_errors: AtomicU64,
    not_durable: AtomicU64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("a2a-crash: cannot start the tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&cli)) {
        Ok(report) => {
            println!("{}", serde_json::to_string(&report).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("a2a-crash: {message}");
            ExitCode::FAILURE
        }
    }
}

fn message(label: &str, n: usize) -> Message {
    Message::user(format!("crash task {label}-{n}")).with_message_id(format!("{label}-{n}"))
}

fn index_of(label: &str, message_id: &str) -> Option<usize> {
    message_id.strip_prefix(label)?.strip_prefix('-')?.parse().ok()
}

struct Outcomes(std::sync::Mutex<std::fs::File>);

impl Outcomes {
    fn note(&self, n: usize, kind: &str, detail: &str) {
        let line = format!("{n}\t{kind}\t{}\n", detail.replace(['\t', '\n'], " "));
        let mut file = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // One write per line on an O_APPEND file: a kill leaves whole lines.
        if let Err(error) = file.write_all(line.as_bytes()) {
            eprintln!("a2a-crash: cannot append an outcome: {error}");
        }
    }
}

async fn run(cli: &Cli) -> Result<Report, String> {
    if cli.replicas == 0 || cli.replica >= cli.replicas || cli.in_flight == 0 {
        return Err("--replica must be below --replicas, and --in-flight positive".into());
    }
    let journal = match (&cli.journal_file, &cli.redis) {
        (Some(path), None) => Journal::embedded(path).build(),
        (None, Some(url)) => {
            let journal = Journal::redis(url).key_prefix(&cli.key_prefix);
            match cli.replica_lease_ms {
                Some(ms) => journal.replica_lease(Duration::from_millis(ms)).build(),
                None => journal.build(),
            }
        }
        _ => return Err("give --journal-file or --redis".into()),
    }
    .map_err(|e| e.to_string())?;
    let client = Client::builder()
        .replica_name(format!("replica-{}", cli.replica))
        .journal(journal)
        .build()
        .map_err(|e| e.to_string())?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&cli.outcomes)
        .map_err(|e| format!("cannot open {}: {e}", cli.outcomes.display()))?;
    let outcomes = Outcomes(std::sync::Mutex::new(file));
    let negotiation = if cli.streaming {
        Negotiation::depending_on(&[Capability::Streaming])
    } else {
        Negotiation::default()
    };
    let counts = Counts::default();
    let ctx = Ctx { cli, client: &client, outcomes: &outcomes, negotiation: &negotiation, counts: &counts };

    let unfinished = client.recover().await.map_err(|e| e.to_string())?;
    let recovered = unfinished.len() as u64;
    futures::stream::iter(unfinished.iter().map(|task| ctx.resume(task)))
        .buffer_unordered(cli.in_flight)
        .collect::<Vec<()>>()
        .await;

    let mine = (0..cli.tasks).filter(|n| n % cli.replicas == cli.replica);
    futures::stream::iter(mine.map(|n| ctx.start(n)))
        .buffer_unordered(cli.in_flight)
        .collect::<Vec<()>>()
        .await;
    ctx.take_over_for(Duration::from_millis(cli.take_over_for_ms)).await;
    // The last ends are written in the background: let them reach the store before exiting.
    if let Some(journal) = client.journal()
        && !journal.flush(Duration::from_secs(5)).await
    {
        eprintln!("a2a-crash: the journal's last writes were not committed within 5 s");
    }
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    Ok(Report {
        replica: cli.replica,
        recovered,
        recovered_to_a_task: load(&counts.recovered_to_a_task),
        not_started_resent: load(&counts.not_started_resent),
        may_have_started: load(&counts.may_have_started),
        resume_errors: load(&counts.resume_errors),
        taken_over: load(&counts.taken_over),
        ran: load(&counts.ran),
        skipped: load(&counts.skipped),
        run_errors: load(&counts.run_errors),
        not_durable: load(&counts.not_durable),
    })
}

struct Ctx<'a> {
    cli: &'a Cli,
    client: &'a Client,
    outcomes: &'a Outcomes,
    negotiation: &'a Negotiation,
    counts: &'a Counts,
}

impl Ctx<'_> {
    async fn resume(&self, task: &JournaledTask) {
        let Some(n) = index_of(&self.cli.label, task.message_id()) else { return };
        match self.client.resume(task).await {
            Ok(Recovered::Task(found)) => {
                self.counts.recovered_to_a_task.fetch_add(1, Ordering::Relaxed);
                let kind = if task.taken_over_from().is_some() { "taken-over" } else { "recovered" };
                self.outcomes.note(n, kind, found.status.state.as_str());
            }
            Ok(Recovered::NotStarted) => {
                // This orchestrator's policy: a message the agent never received is sent again.
                self.counts.not_started_resent.fetch_add(1, Ordering::Relaxed);
                self.send(n).await;
            }
            Ok(Recovered::MayHaveStarted { reason }) => {
                self.counts.may_have_started.fetch_add(1, Ordering::Relaxed);
                self.outcomes.note(n, "undetermined", &reason);
            }
            Ok(other) => self.outcomes.note(n, "undetermined", &other.to_string()),
            Err(error) => {
                self.counts.resume_errors.fetch_add(1, Ordering::Relaxed);
                self.outcomes.note(n, "resume-error", &error.to_string());
            }
        }
    }

    /// Takes over what dead replicas left, every 100 ms for `window`.
    async fn take_over_for(&self, window: Duration) {
        let until = tokio::time::Instant::now() + window;
        while tokio::time::Instant::now() < until {
            match self.client.take_over().await {
                Ok(taken) if !taken.is_empty() => {
                    self.counts.taken_over.fetch_add(taken.len() as u64, Ordering::Relaxed);
                    let from: std::collections::BTreeSet<String> =
                        taken.iter().filter_map(|t| t.taken_over_from().map(str::to_owned)).collect();
                    futures::stream::iter(taken.iter().map(|task| self.resume(task)))
                        .buffer_unordered(self.cli.in_flight)
                        .collect::<Vec<()>>()
                        .await;
                    // The share those replicas never began is this one's now.
                    let dead: Vec<usize> =
                        from.iter().filter_map(|name| name.strip_prefix("replica-")?.parse().ok()).collect();
                    let theirs = (0..self.cli.tasks).filter(|n| dead.contains(&(n % self.cli.replicas)));
                    futures::stream::iter(theirs.map(|n| self.start(n)))
                        .buffer_unordered(self.cli.in_flight)
                        .collect::<Vec<()>>()
                        .await;
                }
                Ok(_) => {}
                Err(error) => eprintln!("a2a-crash: takeover: {error}"),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Task `n`, unless the journal has seen it (begun before the last kill).
    async fn start(&self, n: usize) {
        match self.client.journaled(&format!("{}-{n}", self.cli.label)).await {
            Ok(Some(_)) => {
                self.counts.skipped.fetch_add(1, Ordering::Relaxed);
            }
            Ok(None) => self.send(n).await,
            Err(error) => {
                self.counts.run_errors.fetch_add(1, Ordering::Relaxed);
                self.outcomes.note(n, "journal-error", &error.to_string());
            }
        }
    }

    async fn send(&self, n: usize) {
        let agent = &self.cli.urls[n % self.cli.urls.len()];
        match self.client.run_task(agent, message(&self.cli.label, n), self.negotiation).await {
            Ok(outcome) => {
                self.counts.ran.fetch_add(1, Ordering::Relaxed);
                if outcome.durability != Durability::Journaled {
                    self.counts.not_durable.fetch_add(1, Ordering::Relaxed);
                }
                let state = outcome.state().map_or("message", TaskState::as_str);
                self.outcomes.note(n, "ran", state);
            }
            Err(error) => {
                self.counts.run_errors.fetch_add(1, Ordering::Relaxed);
                self.outcomes.note(n, "run-error", &error.to_string());
            }
        }
    }
}
