//! The fleet workload's accounting against a small fleet whose truth is known: what the figures in
//! BENCHMARKS.md figure 9 count must be what happened.

use std::time::Duration;

use a2a_bench::fleet::{self, FleetAgent, FleetOptions, Member};

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
    let (running, agents) = small_fleet().await;
    let options = FleetOptions {
        agents,
        in_flight: 4,
        batches: 2,
        offset: 3,
        redis: None,
        replica: None,
        push_arrival_bound: Duration::from_millis(500),
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
}
