//! Interop with the real official SDK servers (a2a-sdk 1.3.0 for Python, @a2a-js/sdk 1.3.0 for Node,
//! started by `a2a_testkit::official`): every operation through this client's public API, over both
//! 1.0 bindings, and the Python agent's 0.3 JSON-RPC endpoint.
//!
//! Peers are shared per test binary; the ones that must still be running when a call arrives
//! (subscribe, cancel, push) pause one second between events.
//!
//! Every test runs on each HTTP stack: the built-in one and a user's reqwest client through the
//! adapter (`http_stack_common`).

mod http_stack_common;

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, OfficialSdk, PeerKind, PeerOptions, RunningPeer};
use a2a_typestate_client::{
    AgentBaseUrl, AgentConnection, Client, ErrorKind, PushArrival, RetryPolicy, StreamEnd,
};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    GetTaskRequest, ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message,
    SendMessageConfiguration, SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskState,
};
use futures::StreamExt;
use http_stack_common::{HttpStack, each_stack};
use tokio::sync::OnceCell;

const HONEST: [PeerKind; 2] = [PeerKind::PythonHonest, PeerKind::JsHonest];
const BINDINGS: [ProtocolBinding; 2] = [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson];
/// The slow peers' pause between events: long enough to reach a task while it still runs.
const SLOW_STEP: Duration = Duration::from_secs(1);
/// Bound for a push callback from an honest peer.
const PUSH_ARRIVAL: Duration = Duration::from_secs(15);

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn slow_peer(kind: PeerKind) -> &'static RunningPeer {
    static PYTHON: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS: OnceCell<RunningPeer> = OnceCell::const_new();
    let cell = if kind.sdk() == OfficialSdk::Python { &PYTHON } else { &JS };
    let options = PeerOptions::default().with_step(SLOW_STEP);
    let peer = cell.get_or_try_init(|| OfficialPeer::start_with(kind, options)).await;
    let peer = peer.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(peer.kind(), kind, "one slow honest peer per SDK");
    peer
}

fn client(stack: HttpStack) -> Client {
    let retry = RetryPolicy::new(3, Duration::from_millis(50), Duration::from_millis(200), 0.0).unwrap();
    stack.builder().retry_policy(retry).request_timeout(Duration::from_secs(30)).build().unwrap()
}

async fn connect_over(
    client: &Client,
    peer: &RunningPeer,
    version: ProtocolVersion,
    binding: &ProtocolBinding,
) -> AgentConnection {
    let base = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == version && &i.binding == binding)
        .unwrap_or_else(|| panic!("{} offers no {version} {binding} interface", peer.kind()));
    AgentConnection::open(client, base, card, interface).unwrap()
}

fn text(text: &str) -> SendMessageRequest {
    SendMessageRequest::new(Message::user(text))
}

fn returning_immediately(message: &str) -> SendMessageRequest {
    text(message)
        .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() })
}

fn task_of(response: SendMessageResponse, peer: &RunningPeer) -> Task {
    match response {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(m) => panic!("{}: expected a task, got {m:?}", peer.kind()),
    }
}

fn artifact_text(task: &Task) -> Vec<String> {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).map(str::to_owned).collect()
}

fn context(peer: &RunningPeer, binding: &ProtocolBinding) -> String {
    format!("{} over {binding}; peer stderr:\n{}", peer.kind(), peer.stderr_tail())
}

#[tokio::test]
async fn connect_discovers_the_official_cards_and_selects_1_0() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        let connection = client.connect(peer.base_url()).await.unwrap();
        assert_eq!(connection.interface().protocol_version, ProtocolVersion::V1_0, "{kind}");
        let offered = offered_interfaces(&connection.card().json()).unwrap();
        assert_eq!(connection.interface(), &offered[0], "{kind}: the card's first 1.0 interface");
        assert!(connection.card().card().capabilities.streaming == Some(true), "{kind}");
    }
}

#[tokio::test]
async fn send_message_completes_with_the_echo_artifact() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let response = connection.send_message(text("hello")).await;
            let task = task_of(response.unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding))), peer);
            assert_eq!(task.state(), TaskState::Completed, "{}", context(peer, binding));
            assert_eq!(artifact_text(&task), ["echo: hello"], "{}", context(peer, binding));
        }
    }
}

#[tokio::test]
async fn streaming_starts_with_the_task_and_closes_after_completed() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let mut stream = connection.send_streaming_message(text("stream me")).await.unwrap();
            let mut events = Vec::new();
            while let Some(event) = stream.next().await {
                events.push(event.unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding))));
            }
            assert!(matches!(events.first(), Some(StreamResponse::Task(_))), "{}", context(peer, binding));
            assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
            assert!(
                events.iter().any(|e| matches!(e, StreamResponse::ArtifactUpdate(_))),
                "{}",
                context(peer, binding)
            );
            assert_eq!(stream.end(), Some(StreamEnd::Closed), "{}", context(peer, binding));
        }
    }
}

#[tokio::test]
async fn input_required_follow_up_on_the_same_task_completes_and_history_is_trimmed() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let first = task_of(connection.send_message(text("please clarify")).await.unwrap(), peer);
            assert_eq!(first.state(), TaskState::InputRequired, "{}", context(peer, binding));
            let mut follow_up = text("the details");
            follow_up.message.task_id = Some(first.id.clone());
            follow_up.message.context_id = first.context_id.clone();
            let done = task_of(connection.send_message(follow_up).await.unwrap(), peer);
            assert_eq!(done.id, first.id);
            assert_eq!(done.state(), TaskState::Completed, "{}", context(peer, binding));

            let full = connection.get_task(GetTaskRequest::new(first.id.clone())).await.unwrap();
            assert!(full.history.len() >= 2, "{}: {:?}", context(peer, binding), full.history);
            let one = GetTaskRequest { history_length: Some(1), ..GetTaskRequest::new(first.id.clone()) };
            assert_eq!(
                connection.get_task(one).await.unwrap().history.len(),
                1,
                "{}",
                context(peer, binding)
            );
            let none = GetTaskRequest { history_length: Some(0), ..GetTaskRequest::new(first.id.clone()) };
            assert!(
                connection.get_task(none).await.unwrap().history.is_empty(),
                "{}",
                context(peer, binding)
            );
        }
    }
}

#[tokio::test]
async fn list_tasks_finds_a_task_just_sent() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let task = task_of(connection.send_message(text("list me")).await.unwrap(), peer);
            let request = ListTasksRequest { context_id: task.context_id.clone(), ..Default::default() };
            let page = connection
                .list_tasks(request)
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            assert!(page.tasks.iter().any(|t| t.id == task.id), "{}: {page:?}", context(peer, binding));
        }
    }
}

#[tokio::test]
async fn unknown_task_is_task_not_found() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let err = connection.get_task(GetTaskRequest::new("no-such-task")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Protocol, "{err}: {}", context(peer, binding));
            assert_eq!(err.protocol_error().and_then(|p| p.code()), Some(-32001), "{err}");
        }
    }
}

#[tokio::test]
async fn subscribe_to_a_running_task_starts_with_its_snapshot() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = slow_peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let task = task_of(connection.send_message(returning_immediately("follow")).await.unwrap(), peer);
            let mut stream = connection
                .resubscribe(&task.id)
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            let first = stream.next().await.unwrap().unwrap();
            assert!(
                matches!(&first, StreamResponse::Task(t) if t.id == task.id),
                "{}: {first:?}",
                context(peer, binding)
            );
            let mut last = first;
            while let Some(event) = stream.next().await {
                last = event.unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            }
            assert_eq!(last.state(), Some(TaskState::Completed), "{}", context(peer, binding));
            assert_eq!(stream.end(), Some(StreamEnd::Closed));
        }
    }
}

#[tokio::test]
async fn cancel_of_a_running_task_leaves_it_canceled() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = slow_peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let task =
                task_of(connection.send_message(returning_immediately("cancel me")).await.unwrap(), peer);
            let canceled = connection
                .cancel_task(CancelTaskRequest { id: task.id.clone(), ..Default::default() })
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            assert_eq!(canceled.state(), TaskState::Canceled, "{}", context(peer, binding));
        }
    }
}

#[tokio::test]
async fn push_callbacks_reach_our_receiver_and_configs_round_trip() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = slow_peer(kind).await;
        let client = client(stack);
        let receiver = client.start_push_receiver().await.unwrap();
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let task = task_of(connection.send_message(returning_immediately("push")).await.unwrap(), peer);
            let registration = receiver.register(&task.id);
            let created = connection
                .create_task_push_notification_config(registration.to_config())
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            assert_eq!(created.url, registration.url(), "{}", context(peer, binding));
            let config_id = created.id.clone().unwrap_or_default();

            let arrival = receiver.next_callback(&task.id, PUSH_ARRIVAL).await.unwrap();
            let PushArrival::Delivered(callback) = arrival else {
                panic!("{}: no callback within {PUSH_ARRIVAL:?}", context(peer, binding))
            };
            let event = callback.stream_response().unwrap();
            assert_eq!(event.task_id(), Some(&task.id));

            let fetched = connection
                .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: config_id.clone(),
                    ..Default::default()
                })
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            assert_eq!(fetched.url, registration.url());
            let listed = connection
                .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                    task_id: task.id.clone(),
                    ..Default::default()
                })
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
            assert!(listed.configs.iter().any(|c| c.url == registration.url()), "{listed:?}");
            connection
                .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: config_id,
                    ..Default::default()
                })
                .await
                .unwrap_or_else(|e| panic!("{e}: {}", context(peer, binding)));
        }
    }
}

#[tokio::test]
async fn over_declared_streaming_is_refused_by_the_call_with_unsupported_operation() {
    for (stack, kind) in each_stack([PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring]) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            let err = connection.send_streaming_message(text("stream?")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Protocol, "{err}: {}", context(peer, binding));
            assert!(err.protocol_error().is_some_and(|p| p.is_unsupported_operation()), "{err}");
        }
    }
}

#[tokio::test]
async fn the_python_0_3_endpoint_speaks_through_the_1_0_api() {
    let peer = peer(PeerKind::PythonV03).await;
    for stack in HttpStack::each() {
        let client = client(stack);
        let binding = ProtocolBinding::JsonRpc;
        let connection = connect_over(&client, peer, ProtocolVersion::V0_3, &binding).await;

        let task = task_of(connection.send_message(text("hello")).await.unwrap(), peer);
        assert_eq!(task.state(), TaskState::Completed, "{}", context(peer, &binding));
        assert_eq!(artifact_text(&task), ["echo: hello"]);

        let mut stream = connection.send_streaming_message(text("stream")).await.unwrap();
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event.unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding))));
        }
        assert!(matches!(events.first(), Some(StreamResponse::Task(_))), "{events:?}");
        assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
        assert_eq!(stream.end(), Some(StreamEnd::Closed));

        let first = task_of(connection.send_message(text("clarify this")).await.unwrap(), peer);
        assert_eq!(first.state(), TaskState::InputRequired);
        let mut follow_up = text("details");
        follow_up.message.task_id = Some(first.id.clone());
        follow_up.message.context_id = first.context_id.clone();
        assert_eq!(
            task_of(connection.send_message(follow_up).await.unwrap(), peer).state(),
            TaskState::Completed
        );

        let fetched = connection
            .get_task(GetTaskRequest { history_length: Some(1), ..GetTaskRequest::new(first.id.clone()) })
            .await
            .unwrap();
        assert_eq!(fetched.id, first.id);
        assert_eq!(fetched.history.len(), 1);

        let err = connection.get_task(GetTaskRequest::new("no-such-task")).await.unwrap_err();
        assert_eq!(err.protocol_error().and_then(|p| p.code()), Some(-32001), "{err}");
    }
}

#[tokio::test]
async fn the_python_0_3_endpoint_resubscribes_cancels_and_pushes() {
    static SLOW_V03: OnceCell<RunningPeer> = OnceCell::const_new();
    let options = PeerOptions::default().with_step(SLOW_STEP);
    let peer = SLOW_V03.get_or_try_init(|| OfficialPeer::start_with(PeerKind::PythonV03, options)).await;
    let peer = peer.unwrap_or_else(|e| panic!("{e}"));
    for stack in HttpStack::each() {
        let client = client(stack);
        let binding = ProtocolBinding::JsonRpc;
        let connection = connect_over(&client, peer, ProtocolVersion::V0_3, &binding).await;

        let followed = task_of(connection.send_message(returning_immediately("follow")).await.unwrap(), peer);
        let mut stream = connection
            .resubscribe(&followed.id)
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding)));
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event.unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding))));
        }
        assert!(events.iter().all(|e| e.task_id() == Some(&followed.id)), "{events:?}");
        assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed), "{events:?}");
        assert_eq!(stream.end(), Some(StreamEnd::Closed));

        let running =
            task_of(connection.send_message(returning_immediately("cancel me")).await.unwrap(), peer);
        let canceled = connection
            .cancel_task(CancelTaskRequest { id: running.id.clone(), ..Default::default() })
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding)));
        assert_eq!(canceled.state(), TaskState::Canceled);

        let receiver = client.start_push_receiver().await.unwrap();
        let pushed = task_of(connection.send_message(returning_immediately("push")).await.unwrap(), peer);
        let registration = receiver.register(&pushed.id);
        let created = connection
            .create_task_push_notification_config(registration.to_config())
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding)));
        assert_eq!(created.url, registration.url());
        let arrival = receiver.next_callback(&pushed.id, PUSH_ARRIVAL).await.unwrap();
        assert!(matches!(arrival, PushArrival::Delivered(_)), "{}: {arrival:?}", context(peer, &binding));
        let listed = connection
            .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                task_id: pushed.id.clone(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", context(peer, &binding)));
        assert!(listed.configs.iter().any(|c| c.url == registration.url()), "{listed:?}");
    }
}

#[tokio::test]
async fn extended_card_request_is_understood_by_the_official_servers() {
    for (stack, kind) in each_stack(HONEST) {
        let peer = peer(kind).await;
        let client = client(stack);
        for binding in &BINDINGS {
            let connection = connect_over(&client, peer, ProtocolVersion::V1_0, binding).await;
            match connection.get_extended_agent_card().await {
                Ok(card) => assert!(!card.name.is_empty(), "{}", context(peer, binding)),
                Err(err) => {
                    let code = err.protocol_error().and_then(|p| p.code());
                    assert!(
                        matches!(code, Some(-32004 | -32007)),
                        "{err}: the request itself must be understood; {}",
                        context(peer, binding)
                    );
                }
            }
        }
    }
}
