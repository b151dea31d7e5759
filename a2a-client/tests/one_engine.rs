//! One engine: `run_task` is the dynamic driver over the calls the typed handle makes, so against
//! the same scripted agent both make the same requests in the same order and reach the same verdict.

mod negotiation_common;

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script};
use a2a_typestate::{AgentCardLifecycleViolation, CapabilitySet};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Claims, History, NoStreaming, Settlement, Streaming, Task};
use negotiation_common::{client, operations, spawn, text};

/// Two agents acting out the same script: one for each way of running the task.
async fn twins(card: Capabilities, script: Script) -> (RunningAgent, RunningAgent) {
    (spawn(card.clone(), script.clone()).await, spawn(card, script).await)
}

#[tokio::test]
async fn run_task_and_the_typed_handle_make_the_same_requests_and_verify_the_same_claims() {
    let card = Capabilities::none().with_streaming().with_state_transition_history();
    let (typed_agent, dynamic_agent) = twins(card, Script::honest()).await;

    let mut task: Task<Claims<Streaming, History>> =
        client().task(&typed_agent.base_url()).await.unwrap().claimed().unwrap();
    task.send_streaming_message(text("hello")).await.unwrap();
    task.get_task_history(a2a_typestate_client::negotiate::DEFAULT_HISTORY_LENGTH).await.unwrap();
    let Ok(Settlement::Verified(task)) = task.settle_streaming() else { panic!("streaming not verified") };
    let Ok(Settlement::Verified(_task)) = task.settle_history() else { panic!("history not verified") };

    let negotiation = Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory]);
    let outcome = client().run_task(&dynamic_agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(
        outcome.verified,
        CapabilitySet::of(&[Capability::Streaming, Capability::StateTransitionHistory])
    );
    assert_eq!(operations(&typed_agent), operations(&dynamic_agent));
    assert_eq!(operations(&typed_agent), ["SendStreamingMessage", "GetTask"]);
    typed_agent.shutdown().await;
    dynamic_agent.shutdown().await;
}

#[tokio::test]
async fn run_task_and_the_typed_handle_refuse_the_same_lie_and_keep_the_finished_task_the_same_way() {
    let (typed_agent, dynamic_agent) =
        twins(Capabilities::none(), Script::honest().with(Lie::StreamWithoutArtifact)).await;

    let mut task: Task<Claims<Streaming>> =
        client().task(&typed_agent.base_url()).await.unwrap().claimed().unwrap();
    task.send_streaming_message(text("hello")).await.unwrap();
    let Err(refusal) = task.settle_streaming() else { panic!("the lie was not refused") };
    let typed_violation = refusal.violation().clone();
    // Refused at the stream's end: the single-shot handle holds the finished task, so the typed
    // driver keeps it rather than sending the work again.
    let typed_result = refusal.into_task().result().expect("the refused task as last seen");
    assert!(typed_result.state().is_some_and(|s| s.is_terminal()), "{typed_result:?}");

    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let outcome = client().run_task(&dynamic_agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    assert_eq!(outcome.state(), typed_result.state());
    let violation = outcome.refusal.expect("refused");
    assert_eq!(violation.capability(), typed_violation.capability());
    assert_eq!(violation.contradiction(), typed_violation.contradiction());
    assert_eq!(violation.evidence().seq, typed_violation.evidence().seq, "the same event decided");
    assert_eq!(operations(&typed_agent), operations(&dynamic_agent));
    assert_eq!(operations(&typed_agent), ["SendStreamingMessage", "GetTask"]);
    assert_eq!((typed_agent.executions(), dynamic_agent.executions()), (1, 1));
    typed_agent.shutdown().await;
    dynamic_agent.shutdown().await;
}

#[tokio::test]
async fn a_card_lying_twice_is_refused_for_the_same_claim_by_run_task_and_by_the_typed_settle() {
    let lies = Script::honest().with(Lie::StreamWithoutArtifact).with(Lie::EmptyHistory);
    let card = Capabilities::none().with_streaming().with_state_transition_history();
    let (typed_agent, dynamic_agent) = twins(card, lies).await;

    let mut task: Task<Claims<Streaming, History>> =
        client().task(&typed_agent.base_url()).await.unwrap().claimed().unwrap();
    task.send_streaming_message(text("hello")).await.unwrap();
    task.get_task_history(a2a_typestate_client::negotiate::DEFAULT_HISTORY_LENGTH).await.unwrap();
    // Asked about history first, the later of the two contradictions: the settle still reports the
    // one that decides, since the verifier alone orders them.
    let Err(refusal) = task.settle_history() else { panic!("the lies were not refused") };
    let (typed_violation, typed_others) = (refusal.violation().clone(), refusal.others().to_vec());

    let negotiation = Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory]);
    let outcome = client().run_task(&dynamic_agent.base_url(), text("hello"), &negotiation).await.unwrap();

    let violation = outcome.refusal.expect("refused");
    assert_eq!(violation.capability(), Capability::Streaming, "the stream's contradiction came first");
    assert_eq!(violation.capability(), typed_violation.capability());
    assert_eq!(violation.contradiction(), typed_violation.contradiction());
    assert_eq!(violation.evidence().seq, typed_violation.evidence().seq, "the same event decided");
    // The others as the typed settle named them (their times differ between the two runs).
    let named = |refusals: &[AgentCardLifecycleViolation]| -> Vec<_> {
        refusals.iter().map(|v| (v.capability(), v.contradiction().clone(), v.evidence().seq)).collect()
    };
    assert_eq!(named(&outcome.other_refusals), named(&typed_others));
    assert_eq!(
        typed_others.iter().map(|v| v.capability()).collect::<Vec<_>>(),
        [Capability::StateTransitionHistory]
    );
    typed_agent.shutdown().await;
    dynamic_agent.shutdown().await;
}

#[tokio::test]
async fn a_polled_typed_handle_and_run_task_poll_alike() {
    let (typed_agent, dynamic_agent) = twins(Capabilities::none(), Script::honest()).await;

    let mut task: Task<Claims<NoStreaming>> =
        client().task(&typed_agent.base_url()).await.unwrap().claimed().unwrap();
    task.send_message(text("hello")).await.unwrap();
    let outcome =
        client().run_task(&dynamic_agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap();

    assert_eq!(outcome.state(), task.state());
    let (typed, dynamic) = (operations(&typed_agent), operations(&dynamic_agent));
    assert_eq!(typed.first().map(String::as_str), Some("SendMessage"));
    assert_eq!(typed.first(), dynamic.first());
    assert!(typed.iter().chain(&dynamic).skip(1).all(|op| op == "GetTask" || op == "SendMessage"));
    assert_eq!(typed.iter().filter(|op| *op == "SendMessage").count(), 1);
    assert_eq!(dynamic.iter().filter(|op| *op == "SendMessage").count(), 1);
    typed_agent.shutdown().await;
    dynamic_agent.shutdown().await;
}
