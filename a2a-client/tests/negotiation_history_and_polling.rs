//! The history claim (an empty history relied on abandons the task, no retry) and the polled path
//! (a `working` unobservable past the bound is a lifecycle fault, not a transport fault).

mod negotiation_common;

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::{Advice, Contradiction, LifecycleFault};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, ErrorKind, PollCadence};
use a2a_typestate_types::TaskState;
use negotiation_common::{builder, client, count, ms, operations, spawn, text};

fn history() -> Negotiation {
    Negotiation::depending_on(&[Capability::StateTransitionHistory])
}

#[tokio::test]
async fn empty_history_where_history_was_declared_abandons_the_task_without_retry() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::EmptyHistory)).await;
    let client = client();

    let err = client.run_task(&agent.base_url(), text("hello"), &history()).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::LifecycleViolation, "{err}");
    assert!(!err.is_retryable());
    let violation = err.lifecycle_violation().unwrap();
    assert_eq!(violation.capability(), Capability::StateTransitionHistory);
    assert_eq!(violation.contradiction(), &Contradiction::EmptyHistory);
    assert_eq!(violation.advice(), Advice::Abandon);
    assert_eq!(count(&agent, "SendMessage"), 1, "abandoned: no retry and no fallback send");
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let mark = client.discovery_cache().is_suspect(&base).expect("marked suspect");
    assert_eq!(mark.capability(), Some(Capability::StateTransitionHistory));
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.refusals[&Capability::StateTransitionHistory], 1);
    assert_eq!(metrics.fallbacks, 0);
    let wasted = err.negotiation_round_trips().expect("an abandoned task carries its round trips");
    assert!(wasted >= 1, "at least the send");
    assert_eq!(wasted, metrics.negotiation_round_trips, "the only run on this client");
    agent.shutdown().await;
}

#[tokio::test]
async fn kept_history_verifies_the_history_claim() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_state_transition_history())
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &history()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::StateTransitionHistory));
    let a2a_typestate_types::SendMessageResponse::Task(task) = &outcome.result else { panic!("a task") };
    assert!(!task.history.is_empty(), "the result carries the history relied on");
    agent.shutdown().await;
}

#[tokio::test]
async fn working_unobservable_past_the_bound_is_a_lifecycle_fault_not_a_transport_fault() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with(Lie::SlowWorkingWithoutPollHint(ms(3_000))))
        .spawn()
        .await
        .unwrap();
    let client = builder().unobservable_bound(ms(300)).build().unwrap();

    let err = client.run_task(&agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::LifecycleFault, "{err}");
    assert!(!err.is_retryable(), "not a transport fault");
    assert!(
        matches!(
            err.lifecycle_fault(),
            Some(LifecycleFault::NoProgress { state: Some(TaskState::Working), .. })
        ),
        "the fault names the state: {err}"
    );
    assert_eq!(count(&agent, "SendMessage"), 1, "not retried");
    let ops = operations(&agent);
    assert!(ops[1..].iter().all(|op| op == "GetTask"), "polled in between: {ops:?}");
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none(), "the card claimed nothing it broke");
    assert_eq!(client.metrics().snapshot().refusals.values().sum::<u64>(), 0);
    assert_eq!(err.negotiation_round_trips(), Some(client.metrics().snapshot().negotiation_round_trips));
    assert!(err.negotiation_round_trips() > Some(1), "the send and the polls");
    agent.shutdown().await;
}

#[tokio::test]
async fn a_card_declared_poll_cadence_sets_how_often_the_task_is_polled() {
    let agent =
        spawn(Capabilities::none().with_poll_cadence(ms(50)), Script::honest().step_delay(ms(200))).await;
    // The client's own cadence (5 ms) would poll over a hundred times in the task's 600 ms.
    let own_cadence = PollCadence::new(ms(5), 1.0, ms(5)).unwrap();
    // Progress comes every 200 ms, within the unobservable bound: the cadence alone is under test.
    let client = builder().poll_cadence(own_cadence).unobservable_bound(ms(1_000)).build().unwrap();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    // Polled at the card's 50 ms instead: about a dozen polls.
    let polls = count(&agent, "GetTask");
    assert!((3..=24).contains(&polls), "{polls} polls at the card's cadence");
    agent.shutdown().await;
}

/// The history relied on is asked for with the caller's `historyLength`.
#[tokio::test]
async fn the_history_is_asked_for_with_the_length_the_caller_set() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_state_transition_history())
        .spawn()
        .await
        .unwrap();

    let negotiation = history().history_length(5);
    let outcome = client().run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert!(outcome.verified.contains(Capability::StateTransitionHistory));
    let lengths: Vec<_> = agent
        .requests_for("GetTask")
        .iter()
        .filter_map(|r| r.body.as_ref()?.pointer("/params/historyLength").cloned())
        .collect();
    assert_eq!(lengths, [serde_json::json!(5)], "{lengths:?}");
    agent.shutdown().await;
}
