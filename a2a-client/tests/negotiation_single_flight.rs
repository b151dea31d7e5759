//! Single-flight negotiation: tasks sent at once to an agent nobody has settled wait for the first
//! task's negotiation. A lie is refused once and the rest go single-shot at once; an honest agent's
//! tasks all negotiate and verify; a wait never outlasts its bound.

mod negotiation_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script};
use a2a_typestate_client::negotiate::{Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client};
use negotiation_common::{builder, count, ms, spawn, text};

const TASKS: usize = 8;

/// `TASKS` tasks to `agent` at once, each depending on streaming.
async fn at_once(client: &Client, agent: &RunningAgent) -> Vec<TaskOutcome> {
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let runs = (0..TASKS).map(|n| {
        let (client, negotiation, url) = (client.clone(), negotiation.clone(), agent.base_url());
        tokio::spawn(async move { client.run_task(&url, text(&format!("task {n}")), &negotiation).await })
    });
    let mut outcomes = Vec::new();
    for run in runs.collect::<Vec<_>>() {
        outcomes.push(run.await.unwrap().expect("every task ends in an outcome"));
    }
    outcomes
}

#[tokio::test]
async fn tasks_at_once_to_a_lying_agent_are_refused_once_and_the_rest_go_single_shot_at_once() {
    // The lie shows at the stream's end, so the first negotiation takes the whole task.
    let script = Script::honest().with(Lie::StreamWithoutArtifact).step_delay(ms(50));
    let agent = spawn(Capabilities::none().with_streaming(), script).await;
    let client = builder().build().unwrap();

    let outcomes = at_once(&client, &agent).await;

    let refused = outcomes.iter().filter(|o| o.refusal.is_some()).count();
    let single_shot =
        outcomes.iter().filter(|o| matches!(o.path, TaskPath::SingleShotBecauseSuspect(_))).count();
    assert_eq!((refused, single_shot), (1, TASKS - 1), "{outcomes:#?}");
    assert_eq!(count(&agent, "SendStreamingMessage"), 1, "one negotiation reached the agent");
    assert_eq!(agent.executions(), TASKS as u64, "each task's work ran once");
    assert!(outcomes.iter().all(|o| o.text().is_some()), "every task has its answer");
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.refusals[&Capability::Streaming], 1);
    assert_eq!(metrics.negotiation_waits, (TASKS - 1) as u64);
    agent.shutdown().await;
}

#[tokio::test]
async fn tasks_at_once_to_an_honest_agent_all_negotiate_and_verify_and_none_is_marked() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest().step_delay(ms(50))).await;
    let client = builder().build().unwrap();

    let outcomes = at_once(&client, &agent).await;

    for outcome in &outcomes {
        assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome}");
        assert!(outcome.verified.contains(Capability::Streaming), "{outcome}");
    }
    assert_eq!(count(&agent, "SendStreamingMessage"), TASKS, "each task checks what it relies on");
    assert!(client.discovery_cache().suspect_agents().is_empty());
    agent.shutdown().await;
}

#[tokio::test]
async fn a_task_waits_no_longer_than_the_bound_for_a_negotiation_that_does_not_end() {
    // Each step takes 400 ms: the first task's negotiation lasts well past the 50 ms wait.
    let script = Script::honest().step_delay(ms(400));
    let agent = spawn(Capabilities::none().with_streaming(), script).await;
    let client = builder().negotiation_wait(ms(50)).build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let first = {
        let (client, negotiation, url) = (client.clone(), negotiation.clone(), agent.base_url());
        tokio::spawn(async move { client.run_task(&url, text("first"), &negotiation).await })
    };
    while count(&agent, "SendStreamingMessage") == 0 {
        tokio::time::sleep(ms(5)).await;
    }

    let second = {
        let (client, url) = (client.clone(), agent.base_url());
        tokio::spawn(async move { client.run_task(&url, text("second"), &negotiation).await })
    };
    while count(&agent, "SendStreamingMessage") < 2 {
        tokio::time::sleep(ms(5)).await;
    }

    assert!(!first.is_finished(), "the second task negotiated before the first ended: its wait was bounded");
    assert_eq!(client.metrics().snapshot().negotiation_waits, 1);
    assert_eq!(second.await.unwrap().unwrap().path, TaskPath::Negotiated);
    assert_eq!(first.await.unwrap().unwrap().path, TaskPath::Negotiated);
    agent.shutdown().await;
}

#[tokio::test]
async fn with_the_wait_off_every_task_negotiates_on_its_own() {
    let script = Script::honest().with(Lie::StreamWithoutArtifact).step_delay(ms(50));
    let agent = spawn(Capabilities::none().with_streaming(), script).await;
    let client = builder().negotiation_wait(Duration::ZERO).build().unwrap();

    let outcomes = at_once(&client, &agent).await;

    assert_eq!(client.metrics().snapshot().negotiation_waits, 0);
    assert!(count(&agent, "SendStreamingMessage") > 1, "tasks raced, as without single flight");
    assert!(outcomes.iter().all(|o| o.text().is_some()));
    agent.shutdown().await;
}
