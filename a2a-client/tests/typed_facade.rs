//! The typed facade: network calls gated by the card's claims, each feeding the typestate handle;
//! `settle_*` hands back the verified handle, or a refusal carrying the single-shot one.

mod negotiation_common;

use a2a_client::negotiate::Negotiation;
use a2a_client::typed::{DynAgentTask, TypedTask};
use a2a_client::{Capability, ErrorKind, PushArrival};
use a2a_testkit::{Capabilities, Lie, Script};
use a2a_types::{SendMessageConfiguration, SendMessageRequest, SendMessageResponse, TaskState};
use a2a_typestate::{
    ClaimStatus, Claims, Contradiction, Deployment, HistoryClaimed, Mismatch, NoHistory, NoPush, NoStreaming,
    PushClaimed, Settlement, SingleShot, StreamingClaimed, StreamingVerified,
};
use negotiation_common::{client, count, ms, spawn, text};

type Streaming = Claims<StreamingClaimed, NoHistory, NoPush>;

async fn typed<C: a2a_typestate::ClaimSet>(agent: &a2a_testkit::RunningAgent) -> TypedTask<C> {
    let handle = DynAgentTask::connect(&client(), &agent.base_url(), Deployment::Direct).await.unwrap();
    TypedTask::try_from(handle).unwrap()
}

#[tokio::test]
async fn honest_streamer_is_verified_from_what_the_stream_delivered() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let mut task = typed::<Streaming>(&agent).await;

    let streamed = task.send_streaming(SendMessageRequest::new(text("hello"))).await.unwrap();

    assert!(streamed.confirmation.is_none(), "the artifact came on the stream: nothing to confirm");
    assert_eq!(count(&agent, "GetTask"), 0);
    let now = task.elapsed();
    let Ok(Settlement::Verified(task)) = task.settle_streaming(now) else { panic!("not verified") };
    assert_eq!(task.task().rely_on_streaming().capability(), Capability::Streaming);
    assert_eq!(task.task().state(), Some(TaskState::Completed), "the handle followed the lifecycle");
    agent.shutdown().await;
}

#[tokio::test]
async fn stream_without_artifact_is_refused_and_the_single_shot_handle_still_sends() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let mut task = typed::<Streaming>(&agent).await;

    let streamed = task.send_streaming(SendMessageRequest::new(text("hello"))).await.unwrap();
    let confirmation = streamed.confirmation.expect("an unverified claim is confirmed with GetTask");
    assert!(!confirmation.artifacts.is_empty(), "the artifact exists, only not on the stream");

    let now = task.elapsed();
    let Err(refusal) = task.settle_streaming(now) else { panic!("the lie was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::Streaming);
    let single_shot: TypedTask<SingleShot> = refusal.into_task();
    let answer = single_shot.single_shot_send(text("again"), &Negotiation::default()).await.unwrap();
    let SendMessageResponse::Task(result) = answer else { panic!("expected a task") };
    assert_eq!(result.state(), TaskState::Completed, "the single-shot send returns the result");
    assert_eq!(count(&agent, "SendMessage"), 1, "one blocking send, nothing streamed");
    agent.shutdown().await;
}

#[tokio::test]
async fn streaming_answered_unsupported_is_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let mut task = typed::<Streaming>(&agent).await;

    let error = task.send_streaming(SendMessageRequest::new(text("hello"))).await.unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Protocol);
    let now = task.elapsed();
    let Err(refusal) = task.settle_streaming(now) else { panic!("-32004 was not refused") };
    assert!(matches!(refusal.violation().contradiction(), Contradiction::AgentSaysUnsupported { .. }));
    agent.shutdown().await;
}

#[tokio::test]
async fn narrowing_to_a_claim_the_card_does_not_make_hands_the_handle_back() {
    let agent = spawn(Capabilities::none(), Script::honest()).await;
    let handle = DynAgentTask::connect(&client(), &agent.base_url(), Deployment::Direct).await.unwrap();

    let error = TypedTask::<Streaming>::try_from(handle).unwrap_err();

    assert!(matches!(
        error.mismatch(),
        Mismatch::Claim { capability: Capability::Streaming, held: ClaimStatus::Unclaimed, .. }
    ));
    let mut polling = TypedTask::<Claims<NoStreaming, NoHistory, NoPush>>::try_from(error.into_handle())
        .expect("a handle that claims nothing always fits");
    let answer = polling.send_message(SendMessageRequest::new(text("hello"))).await.unwrap();
    assert!(matches!(answer, SendMessageResponse::Task(_)));
    assert_eq!(polling.task().state(), Some(TaskState::Completed), "the send's answer was observed");
    agent.shutdown().await;
}

#[tokio::test]
async fn gateway_deployment_lifts_no_claim_to_narrow_to() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let handle = DynAgentTask::connect(&client(), &agent.base_url(), Deployment::Gateway).await.unwrap();

    assert!(TypedTask::<Streaming>::try_from(handle).is_err());
    agent.shutdown().await;
}

#[tokio::test]
async fn subscribing_to_an_ended_task_is_refused_locally_not_read_as_a_streaming_refusal() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let mut task = typed::<Streaming>(&agent).await;
    task.send_streaming(SendMessageRequest::new(text("hello"))).await.unwrap();

    let error = task.subscribe().await.unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(count(&agent, "SubscribeToTask"), 0, "nothing was sent");
    let now = task.elapsed();
    assert!(matches!(task.settle_streaming(now), Ok(Settlement::Verified(_))));
    agent.shutdown().await;
}

#[tokio::test]
async fn history_relied_on_is_verified_when_the_agent_keeps_it() {
    let agent = spawn(Capabilities::none().with_state_transition_history(), Script::honest()).await;
    let mut task = typed::<Claims<NoStreaming, HistoryClaimed, NoPush>>(&agent).await;
    task.send_message(SendMessageRequest::new(text("hello"))).await.unwrap();

    let fetched = task.reconstruct_history(Some(10)).await.unwrap();

    assert!(!fetched.history.is_empty());
    let now = task.elapsed();
    let Ok(Settlement::Verified(task)) = task.settle_history(now) else { panic!("not verified") };
    let _ = task.task().rely_on_history();
    agent.shutdown().await;
}

#[tokio::test]
async fn empty_history_relied_on_is_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::EmptyHistory)).await;
    let mut task = typed::<Claims<NoStreaming, HistoryClaimed, NoPush>>(&agent).await;
    task.send_message(SendMessageRequest::new(text("hello"))).await.unwrap();

    task.reconstruct_history(Some(10)).await.unwrap();

    let now = task.elapsed();
    let Err(refusal) = task.settle_history(now) else { panic!("the empty history was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::StateTransitionHistory);
    agent.shutdown().await;
}

fn returning_immediately(body: &str) -> SendMessageRequest {
    SendMessageRequest::new(text(body))
        .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() })
}

#[tokio::test]
async fn push_callback_within_the_bound_verifies_the_push_claim() {
    let script = Script::honest().step_delay(ms(150));
    let agent = spawn(Capabilities::none().with_push_notifications(), script).await;
    let client = client();
    let receiver = client.start_push_receiver().await.unwrap();
    let handle = DynAgentTask::connect(&client, &agent.base_url(), Deployment::Direct).await.unwrap();
    let mut task = TypedTask::<Claims<NoStreaming, NoHistory, PushClaimed>>::try_from(handle).unwrap();
    task.send_message(returning_immediately("hello")).await.unwrap();

    task.register_push(&receiver).await.unwrap();
    let arrival = task.await_push(&receiver).await.unwrap();

    assert!(matches!(arrival, PushArrival::Delivered(_)), "{arrival:?}");
    let now = task.elapsed();
    let Ok(Settlement::Verified(task)) = task.settle_push(now) else { panic!("not verified") };
    let _ = task.task().rely_on_push();
    agent.shutdown().await;
}

#[tokio::test]
async fn silent_push_is_refused_once_the_arrival_bound_ran_out() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::SilentPush).step_delay(ms(150))).await;
    let client = client();
    let receiver = client.start_push_receiver().await.unwrap();
    let handle = DynAgentTask::connect(&client, &agent.base_url(), Deployment::Direct).await.unwrap();
    let mut task = TypedTask::<Claims<NoStreaming, NoHistory, PushClaimed>>::try_from(handle).unwrap();
    task.send_message(returning_immediately("hello")).await.unwrap();
    task.register_push(&receiver).await.unwrap();

    let arrival = task.await_push(&receiver).await.unwrap();

    assert!(matches!(arrival, PushArrival::Absent { .. }), "{arrival:?}");
    let now = task.elapsed();
    let Err(refusal) = task.settle_push(now) else { panic!("the silent agent was not refused") };
    assert_eq!(refusal.violation().capability(), Capability::PushNotifications);
    agent.shutdown().await;
}

#[test]
fn typed_handle_costs_nothing_over_the_dynamic_one() {
    assert_eq!(
        size_of::<TypedTask<Claims<StreamingVerified, HistoryClaimed, PushClaimed>>>(),
        size_of::<DynAgentTask>()
    );
    assert_eq!(size_of::<TypedTask<SingleShot>>(), size_of::<DynAgentTask>());
}

#[tokio::test]
async fn inline_push_config_is_refused_so_push_cannot_bypass_its_gate() {
    let agent = spawn(Capabilities::none().with_push_notifications(), Script::honest()).await;
    let client = client();
    let receiver = client.start_push_receiver().await.unwrap();
    let mut task = typed::<Claims<NoStreaming, NoHistory, NoPush>>(&agent).await;
    let inline = SendMessageConfiguration {
        task_push_notification_config: Some(receiver.register_for_new_task().to_config()),
        ..Default::default()
    };

    let error = task
        .send_message(SendMessageRequest::new(text("hello")).with_configuration(inline))
        .await
        .unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(count(&agent, "SendMessage"), 0, "nothing was sent");
    agent.shutdown().await;
}
