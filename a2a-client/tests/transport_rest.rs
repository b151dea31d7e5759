//! The 1.0 HTTP+JSON binding against a scripted agent: every operation, paths, query parameters,
//! media type and version header.

mod transport_common;

use std::time::Duration;

use a2a_testkit::RunningAgent;
use a2a_typestate_client::{ErrorKind, ProtocolError};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use transport_common::scenarios::{self, slow};
use transport_common::{agent, client, connect_over, honest_agent};

async fn rest(
    client: &a2a_typestate_client::Client,
    agent: &RunningAgent,
) -> a2a_typestate_client::AgentConnection {
    connect_over(client, agent, ProtocolVersion::V1_0, ProtocolBinding::HttpJson).await
}

/// The path of `request` relative to the agent's HTTP+JSON interface.
fn rest_path(agent: &RunningAgent, request: &a2a_testkit::RecordedRequest) -> String {
    let prefix = reqwest::Url::parse(&agent.rest_url()).unwrap().path().trim_end_matches('/').to_owned();
    request.path.strip_prefix(&prefix).unwrap_or(&request.path).to_owned()
}

#[tokio::test]
async fn requests_use_the_proto_paths_the_a2a_media_type_and_the_version_header() {
    let agent = agent(slow(Duration::from_millis(50))).await;
    let client = client();
    let connection = rest(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::list_tasks_lists_what_was_sent(&connection, &task).await;
    scenarios::cancel_of_a_working_task_returns_it_canceled(&connection).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;

    let seen: Vec<(String, String, Option<String>)> = agent
        .requests()
        .iter()
        .filter(|r| r.operation.is_some())
        .map(|r| (r.http_method.clone(), rest_path(&agent, r), r.query.clone()))
        .collect();
    let id = task.id.as_str();
    let expected_prefix = [
        ("POST".to_owned(), "/message:send".to_owned(), None),
        ("GET".to_owned(), format!("/tasks/{id}"), None),
        ("GET".to_owned(), format!("/tasks/{id}"), Some("historyLength=0".to_owned())),
        ("GET".to_owned(), "/tasks".to_owned(), None),
        ("POST".to_owned(), "/message:send".to_owned(), None),
    ];
    assert_eq!(seen[..5], expected_prefix);
    assert_eq!(seen[5].0, "POST");
    assert!(seen[5].1.starts_with("/tasks/") && seen[5].1.ends_with(":cancel"), "{:?}", seen[5]);
    assert_eq!(seen[6], ("POST".to_owned(), "/message:stream".to_owned(), None));

    for request in agent.requests().iter().filter(|r| r.operation.is_some()) {
        assert_eq!(request.header("a2a-version"), Some("1.0"), "{request:?}");
        if request.http_method == "POST" {
            assert_eq!(request.header("content-type"), Some("application/a2a+json"), "{request:?}");
        }
    }
    let send_body = agent.requests_for("SendMessage")[0].body.clone().unwrap();
    assert_eq!(send_body["message"]["parts"][0]["text"], "hello", "the body is the bare request");
    assert!(send_body.get("jsonrpc").is_none());
}

#[tokio::test]
async fn send_message_waits_for_the_completed_task() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::send_message_waits_for_the_completed_task(&rest(&client, &agent).await).await;
}

#[tokio::test]
async fn streaming_starts_with_the_task_and_closes_cleanly() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&rest(&client, &agent).await).await;
}

#[tokio::test]
async fn input_required_then_follow_up_completes() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::input_required_then_follow_up_completes(&rest(&client, &agent).await).await;
}

#[tokio::test]
async fn unknown_task_is_a_task_not_found_error_read_from_the_rpc_status() {
    let agent = honest_agent().await;
    let client = client();
    let connection = rest(&client, &agent).await;
    scenarios::unknown_task_is_a_task_not_found_protocol_error(&connection).await;
    let err = connection.get_task(a2a_typestate_types::GetTaskRequest::new("missing")).await.unwrap_err();
    assert_eq!(err.status(), Some(404));
    assert_eq!(err.protocol_error().and_then(ProtocolError::reason), Some("TASK_NOT_FOUND"));
}

#[tokio::test]
async fn subscribe_starts_with_the_snapshot_and_follows_to_the_end() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&rest(&client, &agent).await).await;
    let subscribe = &agent.requests_for("SubscribeToTask")[0];
    assert_eq!(subscribe.http_method, "GET", "the proto's verb for :subscribe");
    assert!(rest_path(&agent, subscribe).ends_with(":subscribe"));
}

#[tokio::test]
async fn push_configs_round_trip_and_callbacks_arrive() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = rest(&client, &agent).await;
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    let delete = &agent.requests_for("DeleteTaskPushNotificationConfig")[0];
    assert_eq!(delete.http_method, "DELETE");
    assert!(rest_path(&agent, delete).contains("/pushNotificationConfigs/"), "{delete:?}");
    assert_eq!(delete.query, None, "path fields are not repeated in the query");
}

#[tokio::test]
async fn extended_card_refusal_is_an_unsupported_operation_error() {
    let agent = honest_agent().await;
    let client = client();
    let err = rest(&client, &agent).await.get_extended_agent_card().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert!(err.protocol_error().is_some_and(ProtocolError::is_unsupported_operation), "{err}");
    let request = &agent.requests_for("GetExtendedAgentCard")[0];
    assert_eq!(
        (request.http_method.as_str(), rest_path(&agent, request).as_str()),
        ("GET", "/extendedAgentCard")
    );
}

#[tokio::test]
async fn poll_stops_at_the_terminal_state() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    scenarios::poll_stops_at_the_terminal_state(&rest(&client, &agent).await).await;
}

/// Every id goes into an HTTP+JSON path as one opaque segment: an id that is a dot segment, holds a
/// `/`, a `%` or a `:` naming another route's verb reaches the route it was sent to, with the id
/// intact (the agent answers "not found"), never `ListTasks` or another task's route.
#[tokio::test]
async fn an_id_reaches_its_own_route_as_one_segment_on_every_route() {
    use a2a_typestate_types::{
        CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
        GetTaskRequest, ListTaskPushNotificationConfigsRequest, SubscribeToTaskRequest, TaskId,
        TaskPushNotificationConfig,
    };
    let agent = honest_agent().await;
    let client = client();
    let connection = rest(&client, &agent).await;
    for id in ["..", ".", "a/b", "t:cancel", "50%", "x/../tasks"] {
        let task = || TaskId::new(id);
        let before = agent.requests().len();
        let calls: Vec<(&str, bool)> = vec![
            ("GetTask", connection.get_task(GetTaskRequest::new(task())).await.is_err()),
            (
                "CancelTask",
                connection.cancel_task(CancelTaskRequest { id: task(), ..Default::default() }).await.is_err(),
            ),
            (
                "SubscribeToTask",
                connection
                    .subscribe_to_task(SubscribeToTaskRequest { id: task(), ..Default::default() })
                    .await
                    .is_err(),
            ),
            (
                "CreateTaskPushNotificationConfig",
                connection
                    .create_task_push_notification_config(TaskPushNotificationConfig {
                        task_id: Some(task()),
                        url: "https://hooks.example/a2a".to_owned(),
                        ..TaskPushNotificationConfig::default()
                    })
                    .await
                    .is_err(),
            ),
            (
                "GetTaskPushNotificationConfig",
                connection
                    .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
                        task_id: task(),
                        id: id.to_owned(),
                        ..Default::default()
                    })
                    .await
                    .is_err(),
            ),
            (
                "ListTaskPushNotificationConfigs",
                connection
                    .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                        task_id: task(),
                        ..Default::default()
                    })
                    .await
                    .is_err(),
            ),
            (
                "DeleteTaskPushNotificationConfig",
                connection
                    .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
                        task_id: task(),
                        id: id.to_owned(),
                        ..Default::default()
                    })
                    .await
                    .is_err(),
            ),
        ];
        let routed: Vec<String> =
            agent.requests()[before..].iter().filter_map(|r| r.operation.clone()).collect();
        let sent: Vec<&str> = calls.iter().map(|(op, _)| *op).collect();
        assert_eq!(routed, sent, "id {id:?}: every call reached its own route");
        assert!(calls.iter().all(|(_, failed)| *failed), "id {id:?}: no task has that id: {calls:?}");
    }
    agent.shutdown().await;
}
