//! `a2a demo --replicas N [--redis URL]`: the demo fleet driven by N replicas, separate processes
//! (the `a2a` binary started again as a hidden `replica-worker`) that share nothing but Redis.
//!
//! Two runs, each with fresh replica processes: one where the replicas share one Redis (the shared
//! discovery and suspect cache), one where each has its local cache only. In each run the replicas
//! come up as a rolling deployment does: in batch 1 the first replica meets the fleet alone, then the
//! others run their batch 1 together; in batch 2 all run at once. The report gives each replica's
//! batches and, per batch, the wasted negotiation round trips summed across the replicas.
//!
//! Without `--redis` the demo starts a redis-server of its own (127.0.0.1, a free port, no
//! persistence, stopped by its pid at the end) when one is installed; when none is, it says so and
//! runs the local-caches run only. A `--redis` server that does not accept a connection (within
//! [`REDIS_PROBE_BOUND`]) is said to be unreachable in the report, with what that means for the
//! checks: the replicas then run the shared-cache run on their local caches alone.

mod redis_server;
mod render;
pub(crate) mod worker;

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use a2a_testkit::fleet::{Fleet, demo_fleet};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::report::{BatchReport, Check};
use super::{DemoError, DemoOptions, card_claims};
use crate::cli::DemoArgs;
use crate::exit::Exit;
use crate::output;
use a2a_typestate_client::text;
use redis_server::{LocalRedis, NoRedis};

/// How long the demo waits for a `--redis` server to accept a TCP connection before calling it
/// unreachable: 3 s.
pub const REDIS_PROBE_BOUND: Duration = Duration::from_secs(3);

/// The longest one replica's batch may take before the replica is recorded as failed (its tasks
/// are each bounded by a minute; sixteen run at once).
const BATCH_BOUND: Duration = Duration::from_secs(300);

/// How the replicated demo runs.
#[derive(Clone, Debug)]
pub struct ReplicaOptions {
    /// Tasks, concurrency and push bound, per replica and batch.
    pub demo: DemoOptions,
    /// Number of replica processes.
    pub replicas: u32,
    /// The shared Redis server; `None`: start one here when redis-server is installed.
    pub redis: Option<String>,
    /// The program started as each replica (the `a2a` binary: it runs `replica-worker`).
    pub worker_program: PathBuf,
}

/// One target as a replica receives it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct WorkerTarget {
    name: String,
    url: String,
    /// The card claims the tasks depend on, as card fields.
    depends: Vec<String>,
}

/// What the shared cache did on one replica, after a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedCounters {
    /// Marks other replicas shared that this one applied as they were published, in this batch.
    pub marks_received: u64,
    /// Cards read from Redis instead of from the agent.
    pub cards_loaded: u64,
    /// Failed or timed-out Redis commands.
    pub errors: u64,
    /// Whether the backend was degraded at the end of the batch.
    pub degraded: bool,
    /// Whether everything the replica learned was written to Redis before it reported.
    pub flushed: bool,
}

/// One replica's batch.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerBatch {
    /// The replica.
    pub replica: String,
    /// 1 or 2.
    pub batch: u32,
    /// Its accounting, as in the one-client demo.
    pub report: BatchReport,
    /// The shared cache's counters.
    pub shared: SharedCounters,
}

/// One batch across every replica.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedBatch {
    /// 1 or 2.
    pub batch: u32,
    /// Each replica's part, first replica first.
    pub replicas: Vec<WorkerBatch>,
    /// The sums across the replicas.
    pub total: BatchReport,
}

/// One run: shared cache or local caches only.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedRun {
    /// Whether the replicas shared one Redis.
    pub shared_cache: bool,
    /// Batch 1 and batch 2.
    pub batches: Vec<ReplicatedBatch>,
}

/// Which Redis the shared run used.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RedisUsed {
    /// Its URL, or `None` when there was none (the shared run was left out); reports show it with
    /// its password masked.
    #[serde(serialize_with = "crate::user_url::serialize_shown")]
    pub url: Option<String>,
    /// Whether the demo started it (and stopped it at the end).
    pub started_here: bool,
    /// What happened, in words.
    pub note: String,
    /// Why the `--redis` server could not be reached, when it could not (the shared-cache run then
    /// ran on local caches alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
}

/// The replicated demo's report.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicasReport {
    /// Replica processes per run.
    pub replicas: u32,
    /// Tasks each replica sent each agent per batch.
    pub tasks_per_agent: u32,
    /// Tasks in flight per replica.
    pub concurrency: u32,
    /// The fleet's agents.
    pub agents: Vec<String>,
    /// The Redis server.
    pub redis: RedisUsed,
    /// The shared run (when there was a Redis) and the local-caches run.
    pub runs: Vec<ReplicatedRun>,
    /// The checks and the numbers behind them.
    pub checks: Vec<Check>,
    /// Wall-clock time of the whole demo, in milliseconds.
    pub elapsed_ms: u64,
}

impl ReplicasReport {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// Wasted round trips of `batch` summed across replicas, for the shared or the local run.
    pub fn wasted(&self, shared_cache: bool, batch: u32) -> Option<u64> {
        let run = self.runs.iter().find(|r| r.shared_cache == shared_cache)?;
        run.batches.iter().find(|b| b.batch == batch).map(|b| b.total.wasted_round_trips)
    }
}

/// Starts the fleet (and a redis-server when needed), runs both runs, stops everything and reports.
///
/// # Errors
/// [`DemoError`] when the fleet cannot start; a replica that fails is in the report instead.
pub async fn run(options: &ReplicaOptions) -> Result<ReplicasReport, DemoError> {
    let started = Instant::now();
    // Refused before anything starts: a URL no replica can use would leave every replica on its
    // local cache, and the shared-cache run would measure nothing.
    if let Some(url) = &options.redis {
        a2a_typestate_client::shared::redis::RedisBackend::builder(url.clone())
            .build()
            .map_err(|source| DemoError::Redis { url: url.clone(), source })?;
    }
    let fleet = demo_fleet().await.map_err(DemoError::Fleet)?;
    let (redis, local) = match &options.redis {
        Some(url) => {
            let shown = crate::user_url::shown(url);
            let unreachable = probe_redis(url).await.err();
            let note = match &unreachable {
                None => format!("using {shown}"),
                Some(why) => format!(
                    "{shown} is unreachable ({why}): the replicas run the shared-cache run on their local \
                     caches alone, so the check that later replicas learn through Redis fails for that \
                     reason, not the client's; start that Redis, or leave out --redis to let the demo \
                     start its own"
                ),
            };
            (RedisUsed { url: Some(url.clone()), started_here: false, note, unreachable }, None)
        }
        None => match LocalRedis::start().await {
            Ok(server) => {
                let note = format!(
                    "started redis-server (pid {}) on {} for this demo; stopped at the end",
                    server.pid().map_or_else(|| "?".to_owned(), |p| p.to_string()),
                    server.url()
                );
                (
                    RedisUsed { url: Some(server.url()), started_here: true, note, unreachable: None },
                    Some(server),
                )
            }
            Err(NoRedis::NotInstalled) => (
                RedisUsed {
                    url: None,
                    started_here: false,
                    unreachable: None,
                    note: "no redis-server installed (apt-get install redis-server) and no --redis given: \
                           the shared-cache run is left out"
                        .to_owned(),
                },
                None,
            ),
            Err(NoRedis::DidNotStart(why)) => (
                RedisUsed {
                    url: None,
                    started_here: false,
                    unreachable: None,
                    note: format!("redis-server did not start ({why}): the shared-cache run is left out"),
                },
                None,
            ),
        },
    };
    let result = run_on(&fleet, options, redis).await;
    if let Some(server) = local {
        server.stop().await;
    }
    fleet.shutdown().await;
    let mut report = result?;
    report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

async fn run_on(
    fleet: &Fleet,
    options: &ReplicaOptions,
    redis: RedisUsed,
) -> Result<ReplicasReport, DemoError> {
    let mut targets = Vec::with_capacity(fleet.members.len());
    for member in &fleet.members {
        let claims = card_claims(member.agent.card(), &member.agent.base_url())?;
        targets.push(WorkerTarget {
            name: member.agent.name().to_owned(),
            url: member.agent.base_url(),
            depends: claims.iter().map(|c| c.card_field().to_owned()).collect(),
        });
    }
    let per_replica_batch =
        options.demo.tasks_per_agent.saturating_mul(u32::try_from(targets.len()).unwrap_or(u32::MAX));
    let mut runs = Vec::new();
    let run_id = uuid::Uuid::new_v4().simple().to_string();
    if let Some(url) = &redis.url {
        let prefix = format!("a2a-demo-{run_id}");
        runs.push(
            replicated_run(options, &targets, Some((url.as_str(), prefix.as_str())), per_replica_batch).await,
        );
    }
    runs.push(replicated_run(options, &targets, None, per_replica_batch).await);
    let mut checks = checks(&runs, options.replicas, per_replica_batch);
    if let Some(why) = &redis.unreachable {
        for check in checks.iter_mut().filter(|c| c.name.contains("through Redis")) {
            check.detail.push_str(&format!(
                "; Redis at {} was unreachable ({why}), so no replica could learn from another",
                crate::user_url::shown(redis.url.as_deref().unwrap_or_default())
            ));
        }
    }
    Ok(ReplicasReport {
        replicas: options.replicas,
        tasks_per_agent: options.demo.tasks_per_agent,
        concurrency: options.demo.concurrency,
        agents: targets.into_iter().map(|t| t.name).collect(),
        redis,
        runs,
        checks,
        elapsed_ms: 0,
    })
}

/// One run with fresh replica processes: batch 1 on the first replica alone, then on the others
/// together; batch 2 on all at once.
async fn replicated_run(
    options: &ReplicaOptions,
    targets: &[WorkerTarget],
    redis: Option<(&str, &str)>,
    expected: u32,
) -> ReplicatedRun {
    let names: Vec<String> = (1..=options.replicas).map(|n| format!("replica-{n}")).collect();
    let mut workers = Vec::with_capacity(names.len());
    for name in &names {
        workers.push(Worker::spawn(options, name, redis, targets).await);
    }
    let mut batches = Vec::new();
    for batch in 1..=2u32 {
        let mut parts = Vec::with_capacity(workers.len());
        let (first, rest) = workers.split_at_mut(1.min(names.len()));
        if batch == 1 {
            for worker in first.iter_mut() {
                parts.push(worker.batch(batch, expected).await);
            }
            parts.extend(futures::future::join_all(rest.iter_mut().map(|w| w.batch(batch, expected))).await);
        } else {
            parts.extend(
                futures::future::join_all(workers.iter_mut().map(|w| w.batch(batch, expected))).await,
            );
        }
        let total = sum(batch, &parts);
        batches.push(ReplicatedBatch { batch, replicas: parts, total });
    }
    for worker in workers {
        worker.finish().await;
    }
    ReplicatedRun { shared_cache: redis.is_some(), batches }
}

/// A replica process, or why it is not running.
struct Worker {
    name: String,
    process: Result<(Child, ChildStdin, Lines<BufReader<ChildStdout>>), String>,
}

impl Worker {
    async fn spawn(
        options: &ReplicaOptions,
        name: &str,
        redis: Option<(&str, &str)>,
        targets: &[WorkerTarget],
    ) -> Self {
        let mut command = Command::new(&options.worker_program);
        command
            .arg("replica-worker")
            .args(["--name", name])
            .args(["--tasks-per-agent", &options.demo.tasks_per_agent.to_string()])
            .args(["--concurrency", &options.demo.concurrency.to_string()])
            .args(["--push-arrival-bound", &format!("{}ms", options.demo.push_arrival_bound.as_millis())])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if let Some((url, prefix)) = redis {
            command.args(["--redis", url, "--key-prefix", prefix]);
        }
        let process = async {
            let mut child = command.spawn().map_err(|e| format!("cannot start: {e}"))?;
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            let stdout = child.stdout.take().ok_or("no stdout")?;
            let line = serde_json::to_string(targets).map_err(|e| e.to_string())? + "\n";
            stdin.write_all(line.as_bytes()).await.map_err(|e| format!("cannot send the targets: {e}"))?;
            Ok::<_, String>((child, stdin, BufReader::new(stdout).lines()))
        }
        .await;
        Self { name: name.to_owned(), process }
    }

    /// Runs one batch on the replica; a replica that fails or outlives the bound has every task of the
    /// batch recorded as failed, with the reason.
    async fn batch(&mut self, batch: u32, expected: u32) -> WorkerBatch {
        let answer = match &mut self.process {
            Ok((_, stdin, lines)) => {
                let exchange = async {
                    stdin
                        .write_all(format!("batch {batch}\n").as_bytes())
                        .await
                        .map_err(|e| e.to_string())?;
                    stdin.flush().await.map_err(|e| e.to_string())?;
                    let line =
                        lines.next_line().await.map_err(|e| e.to_string())?.ok_or("the replica exited")?;
                    serde_json::from_str::<WorkerBatch>(&line).map_err(|e| format!("unreadable report: {e}"))
                };
                tokio::time::timeout(BATCH_BOUND, exchange)
                    .await
                    .unwrap_or_else(|_| Err(format!("no report within {BATCH_BOUND:?}")))
            }
            Err(why) => Err(why.clone()),
        };
        answer.unwrap_or_else(|why| WorkerBatch {
            replica: self.name.clone(),
            batch,
            report: BatchReport {
                batch,
                submitted: expected,
                failed: expected,
                failures: vec![format!("{}: {why}", self.name)],
                ..BatchReport::default()
            },
            shared: SharedCounters::default(),
        })
    }

    /// Closes the replica's input and waits (bounded) for it to exit; kills it past the bound.
    async fn finish(self) {
        if let Ok((mut child, stdin, _)) = self.process {
            drop(stdin);
            if tokio::time::timeout(Duration::from_secs(5), child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

fn sum(batch: u32, parts: &[WorkerBatch]) -> BatchReport {
    let mut total = BatchReport { batch, ..BatchReport::default() };
    for part in parts {
        let r = &part.report;
        total.submitted += r.submitted;
        total.completed += r.completed;
        total.completed_single_shot += r.completed_single_shot;
        total.completed_before_refusal += r.completed_before_refusal;
        total.completed_via_fallback += r.completed_via_fallback;
        total.failed += r.failed;
        total.refusals += r.refusals;
        total.negotiation_round_trips += r.negotiation_round_trips;
        total.wasted_round_trips += r.wasted_round_trips;
        total.retries += r.retries;
        total.elapsed_ms = total.elapsed_ms.max(r.elapsed_ms);
        total.failures.extend(r.failures.iter().map(|f| format!("{}: {f}", part.replica)));
    }
    total
}

fn checks(runs: &[ReplicatedRun], replicas: u32, per_replica_batch: u32) -> Vec<Check> {
    let mut checks = Vec::new();
    let lost: Vec<String> = runs
        .iter()
        .flat_map(|run| &run.batches)
        .flat_map(|batch| &batch.replicas)
        .filter(|part| !part.report.accounted() || part.report.submitted != per_replica_batch)
        .map(|part| format!("{} batch {}", part.replica, part.batch))
        .collect();
    checks.push(Check {
        name: "every task of every replica ended".to_owned(),
        passed: lost.is_empty(),
        detail: if lost.is_empty() {
            format!("{per_replica_batch} tasks per replica and batch, each completed, single-shot, kept, fallback or failed")
        } else {
            format!("not accounted for: {}", lost.join(", "))
        },
    });
    let later_waste = |shared: bool| {
        runs.iter()
            .find(|r| r.shared_cache == shared)
            .and_then(|run| run.batches.first())
            .map(|batch| batch.replicas.iter().skip(1).map(|p| p.report.wasted_round_trips).sum::<u64>())
    };
    if let (Some(shared), Some(local)) = (later_waste(true), later_waste(false))
        && replicas > 1
    {
        checks.push(Check {
            name: "replicas after the first learn from it through Redis".to_owned(),
            passed: shared < local || local == 0,
            detail: format!(
                "batch 1 of replicas 2..{replicas}: {shared} wasted round trips with the shared cache, \
                 {local} with local caches only"
            ),
        });
    }
    checks
}

/// Runs `a2a demo --replicas N`: exits 0 when every check passes, 1 when one fails, 2 when it cannot start.
pub(crate) async fn run_command(
    args: &DemoArgs,
    replicas: u32,
    out: &mut dyn Write,
    err_out: &mut dyn Write,
) -> ExitCode {
    let worker_program = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            let _ = writeln!(err_out, "error: cannot find the a2a binary to start replicas: {e}");
            return Exit::NoResult.into();
        }
    };
    let options =
        ReplicaOptions { demo: DemoOptions::from(args), replicas, redis: args.redis.clone(), worker_program };
    if !args.json {
        let _ = writeln!(err_out, "starting {replicas} replica processes for each run...");
    }
    let report = match run(&options).await {
        Ok(report) => report,
        Err(e) => {
            let _ = writeln!(err_out, "error: {}", text::describe(&e));
            return Exit::NoResult.into();
        }
    };
    match (output::write_report(out, args.json, &report, render::render), report.passed()) {
        (Ok(()), true) => Exit::Done.into(),
        (Ok(()), false) => Exit::Contradicted.into(),
        (Err(_), _) => Exit::NoResult.into(),
    }
}

/// Whether the Redis at `url` (`redis://` or `rediss://`) accepts a TCP connection within
/// [`REDIS_PROBE_BOUND`]; the reason, in words, when it does not. A Unix socket URL is not probed.
async fn probe_redis(url: &str) -> Result<(), String> {
    let Some(rest) = url.strip_prefix("redis://").or_else(|| url.strip_prefix("rediss://")) else {
        return Ok(());
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let has_port = match host_port.rfind(']') {
        Some(bracket) => host_port[bracket..].contains(':'),
        None => host_port.contains(':'),
    };
    let target = if has_port { host_port.to_owned() } else { format!("{host_port}:6379") };
    match tokio::time::timeout(REDIS_PROBE_BOUND, tokio::net::TcpStream::connect(&target)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("connecting to {target}: {e}")),
        Err(_) => Err(format!("no connection to {target} within {REDIS_PROBE_BOUND:?}")),
    }
}
