//! Honest agents that are slow are never called liars, and agents that make no progress end with a
//! lifecycle fault naming the state, within the unobservable bound (plus a margin), whatever the
//! channel. The slow cases run with the client's default bounds.

mod negotiation_common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Fault, PushTiming, Script, Stall};
use a2a_typestate::CapabilitySet;
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client, ErrorKind, LifecycleFault};
use a2a_typestate_types::TaskState;
use negotiation_common::{builder, count, spawn, text};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn all() -> CapabilitySet {
    CapabilitySet::ALL
}

#[tokio::test]
async fn a_20s_stream_whose_push_callback_came_at_once_verifies_both_and_sends_once() {
    let card = Capabilities::none().with_streaming().with_push_notifications();
    let agent = spawn(card, Script::honest().step_delay(secs(7))).await;
    let client = Client::builder().build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming, Capability::PushNotifications]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome:?}");
    assert_eq!(outcome.verified, CapabilitySet::of(&[Capability::Streaming, Capability::PushNotifications]));
    assert_eq!(count(&agent, "SendStreamingMessage"), 1);
    assert_eq!(count(&agent, "SendMessage"), 0, "no fallback, no second send");
    agent.shutdown().await;
}

#[tokio::test]
async fn every_claim_honoured_at_3s_per_call_is_verified() {
    let card =
        Capabilities::none().with_streaming().with_push_notifications().with_state_transition_history();
    let agent = spawn(card, Script::honest().with_fault(Fault::SlowResponses(secs(3)))).await;
    let client = Client::builder().build().unwrap();
    let negotiation = Negotiation::depending_on(&Capability::ALL);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome:?}");
    assert_eq!(outcome.verified, all());
    assert_eq!(count(&agent, "SendStreamingMessage"), 1);
    assert_eq!(count(&agent, "SendMessage"), 0);
    agent.shutdown().await;
}

#[tokio::test]
async fn push_only_at_the_completion_of_a_20s_task_is_verified() {
    let script = Script::honest().step_delay(secs(7)).push_timing(PushTiming::TerminalOnly);
    let agent = spawn(Capabilities::none().with_push_notifications(), script).await;
    let client = Client::builder().build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::PushNotifications]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome:?}");
    assert_eq!(outcome.verified, CapabilitySet::of(&[Capability::PushNotifications]));
    assert_eq!(count(&agent, "SendMessage"), 1, "no second send");
    agent.shutdown().await;
}

/// Runs one task against a stalled agent with a 2 s unobservable bound; returns the fault and how
/// long the run took.
async fn stalled(card: Capabilities, stall: Stall, depends: &[Capability]) -> (LifecycleFault, Duration) {
    let agent = spawn(card, Script::honest().stall(stall).step_delay(Duration::from_millis(200))).await;
    let client = builder().unobservable_bound(BOUND).build().unwrap();
    let receiver = Arc::new(client.start_push_receiver().await.unwrap());
    let negotiation =
        Negotiation::depending_on(depends).follow_up(FollowUp::reply("metric")).push_receiver(receiver);
    let start = Instant::now();
    let error = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap_err();
    let took = start.elapsed();
    assert_eq!(error.kind(), ErrorKind::LifecycleFault, "{error}");
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none(), "a stuck task is no lie");
    assert!(took < BOUND + secs(5), "ended within the bound plus 5 s: {took:?}");
    agent.shutdown().await;
    (error.lifecycle_fault().cloned().unwrap(), took)
}

const BOUND: Duration = Duration::from_secs(2);

fn names(fault: &LifecycleFault, state: Option<TaskState>) {
    assert!(matches!(fault, LifecycleFault::NoProgress { .. }), "{fault:?}");
    assert_eq!(fault.state(), state, "{fault}");
}

#[tokio::test]
async fn a_task_that_stays_submitted_ends_with_a_lifecycle_fault_on_a_stream_and_when_polled() {
    let (fault, _) =
        stalled(Capabilities::none().with_streaming(), Stall::Submitted, &[Capability::Streaming]).await;
    names(&fault, Some(TaskState::Submitted));
    let (fault, _) = stalled(Capabilities::none(), Stall::Submitted, &[]).await;
    names(&fault, Some(TaskState::Submitted));
}

#[tokio::test]
async fn the_same_question_after_the_answer_ends_with_a_lifecycle_fault() {
    let (fault, _) =
        stalled(Capabilities::none().with_streaming(), Stall::SameQuestion, &[Capability::Streaming]).await;
    names(&fault, Some(TaskState::InputRequired));
    let (fault, _) = stalled(Capabilities::none(), Stall::SameQuestion, &[]).await;
    names(&fault, Some(TaskState::InputRequired));
}

#[tokio::test]
async fn input_required_with_no_question_after_the_answer_ends_with_a_lifecycle_fault() {
    let (fault, _) = stalled(Capabilities::none(), Stall::NoQuestion, &[]).await;
    names(&fault, Some(TaskState::InputRequired));
}

#[tokio::test]
async fn a_stream_of_keep_alive_comments_only_ends_with_a_lifecycle_fault() {
    let (fault, _) =
        stalled(Capabilities::none().with_streaming(), Stall::CommentsOnly, &[Capability::Streaming]).await;
    names(&fault, None);
}

#[tokio::test]
async fn working_events_forever_end_with_a_lifecycle_fault() {
    let card = Capabilities::none().with_streaming().with_push_notifications();
    let (fault, _) =
        stalled(card, Stall::WorkingForever, &[Capability::Streaming, Capability::PushNotifications]).await;
    names(&fault, Some(TaskState::Working));
}

#[tokio::test]
async fn the_task_deadline_ends_a_task_that_keeps_going() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest().step_delay(secs(1))).await;
    let client = builder().task_deadline(Duration::from_millis(1_500)).build().unwrap();
    let error = client
        .run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&[Capability::Streaming]))
        .await
        .unwrap_err();
    assert!(matches!(error.lifecycle_fault(), Some(LifecycleFault::DeadlineExceeded { .. })), "{error}");
    agent.shutdown().await;
}
