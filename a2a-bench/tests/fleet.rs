//! The fleet workload's accounting against a small fleet whose truth is known: what the figures in
//! BENCHMARKS.md figure 9 count must be what happened.

use std::time::Duration;

use a2a_bench::fleet::{self, FleetAgent, FleetJournal, FleetOptions, Member};

async fn small_fleet() -> (Vec<a2a_testkit::RunningAgent>, Vec<FleetAgent>) {
    let mut running = Vec::new();
    let mut agents = Vec::new();
    for index in 0..fleet::PLAN.len() {
        let member = Member::of(index);
        let agent = member.spawn().await.expect("agent starts");
        agents.push(FleetAgent { url: agent.base_url(), member });
        running.push(agent);
    }
    (running, agents)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_liar_is_refused_once_then_sent_single_shot_and_no_honest_agent_is_marked() {
    let report = run_small_fleet(None).await;
    assert!(report.journal.is_none());
}

/// The journal changes no verdict and no outcome; every task of the fleet is journaled before its
/// first byte, and the journal's own counts reach the report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_embedded_journal_every_fleet_task_is_journaled_and_judged_alike() {
    let dir = std::env::temp_dir().join(format!("a2a-bench-fleet-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = run_small_fleet(Some(FleetJournal::Embedded(dir.join("journal.redb")))).await;
    let journal = report.journal.clone().expect("the journal's figures");
    assert_eq!(journal.store, "embedded");
    // Every task that ended in an outcome says it was journaled (the abandoned one ends in an
    // error, which carries no durability).
    let tasks: u64 = report.batches.iter().map(|b| b.tasks as u64).sum();
    let errors: u64 = report.batches.iter().map(|b| b.not_completed).sum();
    assert_eq!((journal.journaled_tasks, journal.not_durable_tasks), (tasks - errors, 0), "{journal:?}");
    assert_eq!((journal.failed, journal.dropped), (0, 0), "{journal:?}");
    assert!(journal.writes >= 2 * 20 && journal.bytes > 0 && journal.commits > 0, "{journal:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Ten agents (the plan once), two batches; asserts what must hold whatever the journal.
async fn run_small_fleet(journal: Option<FleetJournal>) -> fleet::FleetReport {
    let (running, agents) = small_fleet().await;
    let options = FleetOptions {
        agents,
        in_flight: 4,
        batches: 2,
        offset: 3,
        redis: None,
        replica: None,
        push_arrival_bound: Duration::from_millis(500),
        journal,
    };
    let report = fleet::run(&options).await.expect("fleet runs");
    assert_eq!(report.agents, 10);
    assert_eq!(report.lying, 3);
    let [first, second] = report.batches.as_slice() else { panic!("two batches: {report:?}") };
    assert_eq!(first.tasks, 10);
    assert_eq!(first.refusals, 3, "one refusal per lying agent: {first:?}");
    // The streaming refuser accepted no task (one fallback); the silent pusher's task had completed
    // (kept, not sent again); the history-forgetter's was abandoned.
    assert_eq!((first.fallbacks, first.kept_after_refusal), (1, 1), "{first:?}");
    assert!(first.wasted_round_trips > 0, "{first:?}");
    // The history-forgetter's task depended on history: abandoned, not completed.
    assert_eq!(first.not_completed, 1, "{first:?}");
    assert_eq!(first.honest_not_completed, 0, "{first:?}");
    assert_eq!(second.refusals, 0, "{second:?}");
    assert_eq!(second.single_shot_at_once, 3, "{second:?}");
    assert_eq!(second.wasted_round_trips, 0, "{second:?}");
    assert_eq!(second.not_completed, 0, "{second:?}");
    assert_eq!(report.marked_agents, 3);
    assert_eq!(report.honest_marked, 0);
    for agent in running {
        agent.shutdown().await;
    }
    report
}
