//! The typed front door: `client.task::<C>(url)` narrows at once to the claims the caller depends
//! on; the spec-named calls feed the handle; `settle_*` hands back the verified handle, or a
//! refusal carrying the single-shot one (and marks the agent suspect), or the same handle pending.

mod negotiation_common;

use std::sync::Arc;

use a2a_testkit::{Capabilities, Lie, Script};
use a2a_typestate::{ClaimStatus, Contradiction, Deployment, Mismatch};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{
    Answer, Capability, Claims, DynTask, ErrorKind, History, NoHistory, NoPush, NoStreaming, Push,
    Settlement, SingleShot, Streaming, StreamingVerified, Task, TaskEntry,
};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{client, count, ms, spawn, text};

async fn typed<C: a2a_typestate::ClaimSet>(agent: &a2a_testkit::RunningAgent) -> Task<C> {
    client().task::<C>(&agent.base_url()).await.unwrap().claimed().unwrap()
}

#[tokio::test]
async fn honest_streamer_is_verified_from_what_the_stream_delivered() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let mut task = typed::<Claims<Streaming>>(&agent).await;

    task.send_streaming_message(text("hello")).await.unwrap();

    assert_eq!(count(&agent, "GetTask"), 0, "the artifact came on the stream: nothing to confirm");
    let Ok(Settlement::Verified(task)) = task.settle_streaming() else { panic!("not verified") };
    assert_eq!(task.handle().rely_on_streaming().capability(), Capability::Streaming);
    assert_eq!(task.state(), Some(TaskState::Completed), "the handle followed the lifecycle");
    agent.shutdown().await;
}

#[tokio::test]
async fn stream_without_artifact_is_refused_the_agent_marked_and_the_single_shot_handle_still_sends() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let client = client();
    let mut task = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap().claimed().unwrap();

    task.send_streaming_message(text("hello")).await.unwrap();
    assert_eq!(count(&agent, "GetTask"), 1, "an unverified claim is confirmed with GetTask");
    let Some(SendMessageResponse::Task(seen)) = task.result() else { panic!("a task was seen") };
    assert!(!seen.artifacts.is_empty(), "the artifact exists, only not on the stream");

    let Err(refusal) = task.settle_streaming() else { panic!("the lie was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::Streaming);
    let marks = client
        .discovery_cache()
        .suspect_marks(&a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap());
    assert_eq!(marks.len(), 1, "a typed refusal marks the agent suspect as run_task does");
    let single_shot: Task<SingleShot> = refusal.into_task();
    let mut single_shot = single_shot;
    let answer = single_shot
        .send_message(text("again"))
        .await
        .unwrap()
        .into_answered()
        .expect("a single-shot handle has no claim to contradict");
    let SendMessageResponse::Task(result) = answer else { panic!("expected a task") };
    assert_eq!(result.state(), TaskState::Completed, "the single-shot send returns the result");
    assert_eq!(count(&agent, "SendMessage"), 1, "one blocking send, nothing streamed");

    // Suspect now: run_task sends the next task single-shot at once.
    let again = client.run_task(&agent.base_url(), text("again"), &Negotiation::default()).await.unwrap();
    assert!(matches!(again.path, TaskPath::SingleShotBecauseSuspect(_)));
    agent.shutdown().await;
}

// The rule changed with issue 22: an agent's "not supported" to a card claiming streaming is a
// contradiction the call records and returns, never an `Err` (before, the call returned the
// agent's -32004 as `ErrorKind::Protocol` and a user's `?` never reached the settle).
#[tokio::test]
async fn streaming_answered_unsupported_is_a_contradiction_not_an_error_and_is_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let mut task = typed::<Claims<Streaming>>(&agent).await;

    let answer = task.send_streaming_message(text("hello")).await.expect("a contradiction is no error");

    let Some(seen) = answer.contradiction() else { panic!("the -32004 was not recorded as a contradiction") };
    assert_eq!(seen.capability(), Capability::Streaming);
    let Err(refusal) = task.settle_streaming() else { panic!("-32004 was not refused") };
    assert!(matches!(refusal.violation().contradiction(), Contradiction::AgentSaysUnsupported { .. }));
    agent.shutdown().await;
}

#[tokio::test]
async fn narrowing_to_a_claim_the_card_does_not_make_hands_the_handle_back() {
    let agent = spawn(Capabilities::none(), Script::honest()).await;
    let client = client();
    let error = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Misuse, "{error}");
    let handle = client.dyn_task(&agent.base_url()).await.unwrap();

    let error = Task::<Claims<Streaming>>::try_from(handle).unwrap_err();

    assert!(matches!(
        error.mismatch(),
        Mismatch::Claim { capability: Capability::Streaming, held: ClaimStatus::Unclaimed, .. }
    ));
    let mut polling = Task::<Claims<NoStreaming, NoHistory, NoPush>>::try_from(error.into_handle())
        .expect("a handle that claims nothing always fits");
    let answer = polling.send_message(text("hello")).await.unwrap();
    assert!(matches!(answer, Answer::Answered(SendMessageResponse::Task(_))));
    assert_eq!(polling.state(), Some(TaskState::Completed), "the send's answer was observed");
    agent.shutdown().await;
}

#[tokio::test]
async fn card_without_a_streaming_claim_is_polled_through_the_dynamic_handle() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::UnderDeclaredStreaming)).await;
    let mut task: DynTask = client().dyn_task(&agent.base_url()).await.unwrap();
    assert_eq!(task.handle().status(Capability::Streaming), ClaimStatus::Unclaimed);
    let error = task.send_streaming_message(text("hello")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Misuse, "no claim, no streaming call: {error}");
    assert_eq!(count(&agent, "SendStreamingMessage"), 0);

    task.send_message(text("hello")).await.unwrap();

    assert_eq!(task.state(), Some(TaskState::Completed));
    agent.shutdown().await;
}

#[tokio::test]
async fn gateway_deployment_lifts_no_claim_to_narrow_to() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let conn = client().connect(&agent.base_url()).await.unwrap();

    assert!(Task::<Claims<Streaming>>::try_from(conn.dyn_task(Deployment::Gateway)).is_err());
    agent.shutdown().await;
}

#[tokio::test]
async fn subscribing_to_an_ended_task_is_refused_locally_not_read_as_a_streaming_refusal() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let mut task = typed::<Claims<Streaming>>(&agent).await;
    task.send_streaming_message(text("hello")).await.unwrap();

    let error = task.subscribe_to_task().await.unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Misuse);
    assert_eq!(count(&agent, "SubscribeToTask"), 0, "nothing was sent");
    assert!(matches!(task.settle_streaming(), Ok(Settlement::Verified(_))));
    agent.shutdown().await;
}

#[tokio::test]
async fn history_relied_on_is_verified_when_the_agent_keeps_it() {
    let agent = spawn(Capabilities::none().with_state_transition_history(), Script::honest()).await;
    let mut task = typed::<Claims<NoStreaming, History>>(&agent).await;
    task.send_message(text("hello")).await.unwrap();

    let fetched = task.get_task_history(10).await.unwrap();

    let fetched = fetched.into_answered().expect("an honest history contradicts nothing");
    assert!(!fetched.history.is_empty());
    let Ok(Settlement::Verified(task)) = task.settle_history() else { panic!("not verified") };
    let _ = task.handle().rely_on_history();
    agent.shutdown().await;
}

#[tokio::test]
async fn empty_history_relied_on_is_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::EmptyHistory)).await;
    let mut task = typed::<Claims<NoStreaming, History>>(&agent).await;
    task.send_message(text("hello")).await.unwrap();

    task.get_task_history(10).await.unwrap();

    let Err(refusal) = task.settle_history() else { panic!("the empty history was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::StateTransitionHistory);
    agent.shutdown().await;
}

#[tokio::test]
async fn push_callback_during_the_turn_verifies_the_push_claim() {
    let script = Script::honest().step_delay(ms(150));
    let agent = spawn(Capabilities::none().with_push_notifications(), script).await;
    let client = client();
    let receiver = Arc::new(client.start_push_receiver().await.unwrap());
    let mut task = client
        .task::<Claims<NoStreaming, NoHistory, Push>>(&agent.base_url())
        .await
        .unwrap()
        .claimed()
        .unwrap();
    task.watch_push(receiver).unwrap();

    task.send_message(text("hello")).await.unwrap();
    task.await_push_callback().await.unwrap();

    let Ok(Settlement::Verified(task)) = task.settle_push() else { panic!("not verified") };
    let _ = task.handle().rely_on_push();
    agent.shutdown().await;
}

#[tokio::test]
async fn push_registered_with_the_create_call_verifies_the_push_claim() {
    let script = Script::honest().step_delay(ms(100));
    let agent = spawn(Capabilities::none().with_push_notifications(), script).await;
    let client = client();
    let receiver = Arc::new(client.start_push_receiver().await.unwrap());
    let mut task = client
        .task::<Claims<NoStreaming, NoHistory, Push>>(&agent.base_url())
        .await
        .unwrap()
        .claimed()
        .unwrap();
    task.send_message(text("please clarify")).await.unwrap();
    assert_eq!(task.state(), Some(TaskState::InputRequired));

    task.create_task_push_notification_config(receiver).await.unwrap();
    task.send_message(text("metric")).await.unwrap();
    task.await_push_callback().await.unwrap();

    assert_eq!(count(&agent, "CreateTaskPushNotificationConfig"), 1);
    assert!(matches!(task.settle_push(), Ok(Settlement::Verified(_))));
    agent.shutdown().await;
}

#[tokio::test]
async fn silent_push_is_refused_once_the_arrival_bound_after_the_terminal_transition_ran_out() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::SilentPush).step_delay(ms(150))).await;
    let client = client();
    let receiver = Arc::new(client.start_push_receiver().await.unwrap());
    let mut task = client
        .task::<Claims<NoStreaming, NoHistory, Push>>(&agent.base_url())
        .await
        .unwrap()
        .claimed()
        .unwrap();
    task.watch_push(receiver).unwrap();
    task.send_message(text("hello")).await.unwrap();

    task.await_push_callback().await.unwrap();

    let Err(refusal) = task.settle_push() else { panic!("the silent agent was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::PushNotifications);
    agent.shutdown().await;
}

#[test]
fn typed_handle_costs_nothing_over_the_dynamic_one() {
    assert_eq!(size_of::<Task<Claims<StreamingVerified, History, Push>>>(), size_of::<DynTask>());
    assert_eq!(size_of::<Task<SingleShot>>(), size_of::<DynTask>());
}

#[tokio::test]
async fn the_typed_entry_goes_single_shot_for_a_suspect_agent_with_its_mark_and_no_round_trip() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = client();
    let mut task = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap().claimed().unwrap();
    let _ = task.send_streaming_message(text("hello")).await.unwrap();
    let Err(_refused) = task.settle_streaming() else { panic!("-32004 was not refused") };
    let streams = count(&agent, "SendStreamingMessage");
    let before = client.metrics().snapshot();

    let entry = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap();

    let TaskEntry::Suspect(mut single_shot, mark) = entry else {
        panic!("a suspect agent was negotiated again")
    };
    assert_eq!(mark.capability(), Some(Capability::Streaming));
    let answer = single_shot.send_message(text("again")).await.unwrap();
    assert!(matches!(answer, Answer::Answered(SendMessageResponse::Task(_))));
    assert_eq!(count(&agent, "SendStreamingMessage"), streams, "nothing negotiated with the suspect agent");
    let after = client.metrics().snapshot();
    assert_eq!(after.negotiation_round_trips, before.negotiation_round_trips);
    assert_eq!(after.suspect_single_shots, before.suspect_single_shots + 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_fallback_is_counted_alike_whether_the_typed_handle_or_run_task_sent_it() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let typed_client = client();
    let mut task =
        typed_client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap().claimed().unwrap();
    let _ = task.send_streaming_message(text("hello")).await.unwrap();
    let Err(refusal) = task.settle_streaming() else { panic!("-32004 was not refused") };
    let mut single_shot = refusal.into_task();
    let _ = single_shot.send_message(text("again")).await.unwrap();
    let dynamic_client = client();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome = dynamic_client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Fallback);
    let (typed, dynamic) = (typed_client.metrics().snapshot(), dynamic_client.metrics().snapshot());
    assert_eq!((typed.fallbacks, dynamic.fallbacks), (1, 1), "one fallback each, counted the same");
    assert_eq!(typed.refusals[&Capability::Streaming], dynamic.refusals[&Capability::Streaming]);
    agent.shutdown().await;
}
