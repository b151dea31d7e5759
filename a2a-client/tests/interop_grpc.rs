//! Interop over gRPC with the official servers: a2a-sdk 1.3.0 with its `grpc` extra (the SDK's
//! `GrpcHandler` on `grpc.aio`, peer `python-grpc`) and @a2a-js/sdk 1.3.0 (its `grpcService` on
//! `@grpc/grpc-js`, peer `js-grpc`): discovery selecting the card's GRPC interface, send, stream,
//! the input-required follow-up, get with historyLength, subscribe, cancel, push configs with a
//! real callback, an A2A error read from the status details, and `run_task` verifying streaming.
//! Each test runs once per peer (`over_python::...`, `over_js::...`).

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PeerKind, PeerOptions, RunningPeer};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client, ErrorKind, PushArrival, RetryPolicy, StreamEnd};
use a2a_typestate_types::discovery::ProtocolBinding;
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    GetTaskRequest, ListTaskPushNotificationConfigsRequest, Message, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskState,
};
use futures::StreamExt;
use tokio::sync::OnceCell;

/// The peer's pause between events: long enough to subscribe to and cancel a running task.
const STEP: Duration = Duration::from_millis(700);
const PUSH_ARRIVAL: Duration = Duration::from_secs(15);

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    static PYTHON: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS: OnceCell<RunningPeer> = OnceCell::const_new();
    let cell = if kind == PeerKind::PythonGrpc { &PYTHON } else { &JS };
    let started =
        cell.get_or_try_init(|| OfficialPeer::start_with(kind, PeerOptions::default().with_step(STEP)));
    let peer = started.await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(peer.kind(), kind);
    peer
}

fn client() -> Client {
    let retry = RetryPolicy::new(3, Duration::from_millis(50), Duration::from_millis(200), 0.0).unwrap();
    Client::builder().retry_policy(retry).request_timeout(Duration::from_secs(30)).build().unwrap()
}

async fn connect(client: &Client, kind: PeerKind) -> a2a_typestate_client::AgentConnection {
    let peer = peer(kind).await;
    let connection = client.connect(peer.base_url()).await.unwrap_or_else(|e| panic!("{e}: {}", tail(peer)));
    assert_eq!(connection.interface().binding, ProtocolBinding::Grpc, "the card's first interface");
    connection
}

fn tail(peer: &RunningPeer) -> String {
    format!("peer stderr:\n{}", peer.stderr_tail())
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

fn returning_immediately(message: &str) -> SendMessageRequest {
    text(message)
        .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() })
}

fn task_of(response: SendMessageResponse) -> Task {
    match response {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(m) => panic!("expected a task, got {m:?}"),
    }
}

fn artifact_text(task: &Task) -> Vec<String> {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).map(str::to_owned).collect()
}

async fn send_completes_with_the_echo_artifact(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let task = task_of(connection.send_message(text("hello")).await.unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(task.state(), TaskState::Completed);
    assert_eq!(artifact_text(&task), ["echo: hello"]);
}

async fn stream_starts_with_the_task_and_closes_after_completed(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let mut stream = connection.send_streaming_message(text("stream me")).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap_or_else(|e| panic!("{e}")));
    }
    assert!(matches!(events.first(), Some(StreamResponse::Task(_))), "{events:?}");
    assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
    assert!(events.iter().any(|e| matches!(e, StreamResponse::ArtifactUpdate(_))), "{events:?}");
    assert_eq!(stream.end(), Some(StreamEnd::Closed));
}

async fn input_required_then_the_follow_up_completes_and_history_length_is_honoured(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let first = task_of(connection.send_message(text("please clarify")).await.unwrap());
    assert_eq!(first.state(), TaskState::InputRequired);
    let mut follow_up = text("more detail");
    follow_up.message.task_id = Some(first.id.clone());
    follow_up.message.context_id = first.context_id.clone();
    let done = task_of(connection.send_message(follow_up).await.unwrap());
    assert_eq!((done.id.clone(), done.state()), (first.id.clone(), TaskState::Completed));

    let full = connection.get_task(GetTaskRequest::new(first.id.clone())).await.unwrap();
    assert!(full.history.len() >= 2, "both user messages are in the history: {:?}", full.history);
    let one = connection
        .get_task(GetTaskRequest { history_length: Some(1), ..GetTaskRequest::new(first.id.clone()) })
        .await
        .unwrap();
    assert_eq!(one.history.len(), 1, "historyLength 1 keeps the last message");
}

async fn subscribe_to_a_running_task_starts_with_its_snapshot_and_follows_to_the_end(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let task = task_of(connection.send_message(returning_immediately("follow me")).await.unwrap());
    let mut stream = connection.resubscribe(&task.id).await.unwrap_or_else(|e| panic!("{e}"));
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    assert!(matches!(events.first(), Some(StreamResponse::Task(t)) if t.id == task.id), "{events:?}");
    assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
}

async fn cancel_of_a_running_task_leaves_it_canceled(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let task = task_of(connection.send_message(returning_immediately("cancel me")).await.unwrap());
    let canceled = connection
        .cancel_task(CancelTaskRequest { id: task.id.clone(), ..Default::default() })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(canceled.state(), TaskState::Canceled);
}

async fn an_unknown_task_is_task_not_found_from_the_status_details(kind: PeerKind) {
    let connection = connect(&client(), kind).await;
    let err = connection.get_task(GetTaskRequest::new("no-such-task")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    let protocol = err.protocol_error().unwrap();
    assert_eq!(protocol.a2a_code(), Some(a2a_typestate_types::error::A2aErrorCode::TaskNotFound), "{err}");
    assert_eq!(protocol.rpc_status(), Some("NOT_FOUND"), "{err}");
}

async fn push_configs_round_trip_and_a_real_callback_arrives(kind: PeerKind) {
    let client = client();
    let connection = connect(&client, kind).await;
    let receiver = client.start_push_receiver().await.unwrap();
    let task = task_of(connection.send_message(returning_immediately("push")).await.unwrap());
    let registration = receiver.register(&task.id);
    let created = connection
        .create_task_push_notification_config(registration.to_config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(created.url, registration.url());
    let config_id = created.id.clone().unwrap_or_default();
    let arrival = receiver.next_callback(&task.id, PUSH_ARRIVAL).await.unwrap();
    let PushArrival::Delivered(callback) = arrival else { panic!("no callback within {PUSH_ARRIVAL:?}") };
    assert_eq!(callback.stream_response().unwrap().task_id(), Some(&task.id));

    let fetched = connection
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: config_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(fetched.url, registration.url());
    let listed = connection
        .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
            task_id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(listed.configs.iter().any(|c| c.url == registration.url()), "{listed:?}");
    connection
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: config_id,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

async fn run_task_verifies_the_honest_streaming_claim_over_grpc(kind: PeerKind) {
    let client = client();
    let peer = peer(kind).await;
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let outcome = client.run_task(peer.base_url(), text("hello").message, &negotiation).await.unwrap();
    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::Streaming));
    assert_eq!(outcome.state(), Some(TaskState::Completed));
}

/// One test per scenario and peer.
macro_rules! per_peer {
    ($($scenario:ident),* $(,)?) => {
        mod over_python {
            use super::*;
            $( #[tokio::test] async fn $scenario() { super::$scenario(PeerKind::PythonGrpc).await } )*
        }
        mod over_js {
            use super::*;
            $( #[tokio::test] async fn $scenario() { super::$scenario(PeerKind::JsGrpc).await } )*
        }
    };
}

per_peer!(
    send_completes_with_the_echo_artifact,
    stream_starts_with_the_task_and_closes_after_completed,
    input_required_then_the_follow_up_completes_and_history_length_is_honoured,
    subscribe_to_a_running_task_starts_with_its_snapshot_and_follows_to_the_end,
    cancel_of_a_running_task_leaves_it_canceled,
    an_unknown_task_is_task_not_found_from_the_status_details,
    push_configs_round_trip_and_a_real_callback_arrives,
    run_task_verifies_the_honest_streaming_claim_over_grpc,
);
