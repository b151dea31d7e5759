//! One replica of `a2a demo --replicas N`: its own process and client, sharing nothing with the
//! others but the Redis server (when it is given one).
//!
//! It reads the targets (one JSON line) and then one `batch N` line per batch on stdin, runs each
//! batch through its client, waits (bounded) until what it learned is written to Redis, and answers
//! with one [`WorkerBatch`] JSON line on stdout. It ends at the end of its input.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_typestate::Capability;
use a2a_typestate_client::config::{DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{BackendStatus, Client, DiscoveryCache, SuspectMarks};
use indicatif::ProgressBar;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::{SharedCounters, WorkerBatch, WorkerTarget};
use crate::cli::ReplicaWorkerArgs;
use crate::demo::batch::{Target, run_batch};
use crate::demo::report::BatchReport;
use crate::demo::{DemoError, DemoOptions, demo_client_builder, negotiation_for};

/// How long a replica waits for its Redis connection before its first batch (it runs degraded after).
const CONNECT_BOUND: Duration = Duration::from_secs(3);
/// How long a replica waits for its updates to reach Redis after a batch.
const FLUSH_BOUND: Duration = Duration::from_secs(2);

/// Runs the replica until its input ends: 0 then, 2 when it cannot start.
pub(crate) async fn run(args: &ReplicaWorkerArgs) -> ExitCode {
    match serve(args).await {
        Ok(()) => crate::exit::Exit::Done.into(),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "replica {}: {e}", args.name);
            crate::exit::Exit::NoResult.into()
        }
    }
}

async fn serve(args: &ReplicaWorkerArgs) -> Result<(), String> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let first = lines.next_line().await.map_err(|e| e.to_string())?.ok_or("no targets on stdin")?;
    let wire: Vec<WorkerTarget> = serde_json::from_str(&first).map_err(|e| format!("targets: {e}"))?;
    let targets: Vec<Target> = wire
        .iter()
        .map(|t| {
            let depends: Vec<Capability> = t
                .depends
                .iter()
                .filter_map(|field| Capability::ALL.into_iter().find(|c| c.card_field() == field))
                .collect();
            Target {
                name: t.name.clone(),
                url: t.url.clone(),
                negotiation: Arc::new(negotiation_for(&depends)),
            }
        })
        .collect();
    let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
    let client = client(args).map_err(|e| a2a_typestate_client::text::describe(&e))?;
    if client.discovery_cache().backend_status().is_some() {
        let started = Instant::now();
        while client.discovery_cache().backend_status() != Some(BackendStatus::Connected)
            && started.elapsed() < CONNECT_BOUND
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let mut received_before = 0;
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let Some(batch) = line.strip_prefix("batch ").and_then(|n| n.trim().parse::<u32>().ok()) else {
            return Err(format!("unknown command `{line}`"));
        };
        let label = format!("{}-{batch}", args.name);
        let concurrency = usize::try_from(args.concurrency).unwrap_or(1);
        let run =
            run_batch(&client, &targets, args.tasks_per_agent, concurrency, &label, &ProgressBar::hidden())
                .await;
        let flushed = client.discovery_cache().flush_shared(FLUSH_BOUND).await;
        let snapshot = client.metrics().snapshot();
        let answer = WorkerBatch {
            replica: args.name.clone(),
            batch,
            report: BatchReport::new(batch, &run, &names),
            shared: SharedCounters {
                marks_received: snapshot.shared_marks_received - received_before,
                cards_loaded: snapshot.shared_cards_loaded,
                errors: snapshot.shared_cache_errors,
                degraded: snapshot.shared_cache_degraded,
                flushed,
            },
        };
        received_before = snapshot.shared_marks_received;
        let line = serde_json::to_string(&answer).map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}").and_then(|()| out.flush()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn client(args: &ReplicaWorkerArgs) -> Result<Client, DemoError> {
    let options = DemoOptions {
        tasks_per_agent: args.tasks_per_agent,
        concurrency: args.concurrency,
        push_arrival_bound: args.push_arrival_bound,
    };
    let mut builder = demo_client_builder(&options, SuspectMarks::On)?.replica_name(args.name.clone());
    if let Some(url) = &args.redis {
        let backend = RedisBackend::builder(url.clone())
            .key_prefix(args.key_prefix.clone())
            .build()
            .map_err(DemoError::Client)?;
        let cache = DiscoveryCache::new(DEFAULT_DISCOVERY_TTL, DEFAULT_SUSPECT_TTL)
            .with_backend(backend)
            .map_err(DemoError::Client)?;
        builder = builder.discovery_cache(cache);
    }
    builder.build().map_err(DemoError::Client)
}
