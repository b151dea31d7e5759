//! One batch: every agent gets the same number of tasks, run with bounded concurrency through one
//! client, and every task's ending is recorded (a task that outlives the demo's bound is recorded as
//! failed, so none is lost).

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Client, MetricsSnapshot};
use a2a_typestate_types::Message;
use futures::StreamExt;
use indicatif::ProgressBar;

use a2a_typestate_client::negotiate::record::TaskRecord;

/// The longest one demo task may take before it is recorded as failed.
pub(crate) const TASK_BOUND: Duration = Duration::from_secs(60);

/// One agent as the batch drives it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Its card name.
    pub(crate) name: String,
    /// Its base URL.
    pub(crate) url: String,
    /// What the caller's tasks depend on for this agent.
    pub(crate) negotiation: Arc<Negotiation>,
}

/// What one batch produced: each task's record (by target index) and the counters around it.
#[derive(Debug)]
pub(crate) struct BatchRun {
    pub(crate) records: Vec<(usize, TaskRecord)>,
    pub(crate) before: MetricsSnapshot,
    pub(crate) after: MetricsSnapshot,
    pub(crate) elapsed: Duration,
}

/// Runs `tasks_per_agent` tasks on each target, at most `concurrency` at once, interleaving agents so
/// that an agent's later tasks can benefit from what its first ones taught the cache.
pub(crate) async fn run_batch(
    client: &Client,
    targets: &[Target],
    tasks_per_agent: u32,
    concurrency: usize,
    label: &str,
    progress: &ProgressBar,
) -> BatchRun {
    let before = client.metrics().snapshot();
    let started = Instant::now();
    let jobs: Vec<(usize, u32)> =
        (0..tasks_per_agent).flat_map(|n| (0..targets.len()).map(move |index| (index, n))).collect();
    let records = futures::stream::iter(jobs)
        .map(|(index, n)| async move {
            let record = match targets.get(index) {
                Some(target) => run_one(client, target, label, n).await,
                None => TaskRecord::failed("no such agent"),
            };
            progress.inc(1);
            (index, record)
        })
        .buffer_unordered(concurrency.max(1))
        .collect::<Vec<_>>()
        .await;
    BatchRun { records, before, after: client.metrics().snapshot(), elapsed: started.elapsed() }
}

async fn run_one(client: &Client, target: &Target, label: &str, n: u32) -> TaskRecord {
    let id = format!("demo-{label}-{}-{n}", target.name).replace(' ', "-");
    let message = Message::user(format!("demo task {n} for {}", target.name)).with_message_id(id);
    match tokio::time::timeout(TASK_BOUND, client.run_task(&target.url, message, &target.negotiation)).await {
        Ok(result) => TaskRecord::from_result(&result),
        Err(_) => TaskRecord::failed(&format!("no ending within {TASK_BOUND:?}")),
    }
}
