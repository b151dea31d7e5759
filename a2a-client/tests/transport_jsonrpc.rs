//! The 1.0 JSON-RPC binding against a scripted agent: every operation, and what goes on the wire.

mod transport_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, ScriptedAgent};
use a2a_typestate_client::{ErrorKind, ProtocolError};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use transport_common::scenarios::{self, slow};
use transport_common::{agent, client, connect_over, honest_agent};

async fn jsonrpc(
    client: &a2a_typestate_client::Client,
    agent: &a2a_testkit::RunningAgent,
) -> a2a_typestate_client::AgentConnection {
    connect_over(client, agent, ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await
}

#[tokio::test]
async fn connect_selects_the_first_1_0_interface_the_card_offers() {
    let agent = honest_agent().await;
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let offered = offered_interfaces(agent.card()).unwrap();
    assert_eq!(connection.interface(), &offered[0]);
    assert_eq!(connection.interface().protocol_version, ProtocolVersion::V1_0);
    assert_eq!(connection.agent().as_str(), agent.base_url().trim_end_matches('/'));
}

#[tokio::test]
async fn every_1_0_request_carries_the_version_header_exactly() {
    let agent = honest_agent().await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;
    let operations: Vec<_> = agent.requests().into_iter().filter(|r| r.operation.is_some()).collect();
    assert!(operations.len() >= 4, "{operations:?}");
    for request in &operations {
        let versions: Vec<_> = request.headers.iter().filter(|(n, _)| n == "a2a-version").collect();
        assert_eq!(versions.len(), 1, "{request:?}");
        assert_eq!(versions[0].1, "1.0", "{request:?}");
        assert_eq!(request.http_method, "POST");
        assert!(request.header("content-type").is_some_and(|c| c.starts_with("application/json")));
        assert_eq!(request.rpc_method, request.operation, "1.0 method names are the operation names");
    }
    let send = &agent.requests_for("SendMessage")[0];
    let body = send.body.as_ref().unwrap();
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["params"]["message"]["parts"][0]["text"], "hello");
    assert_eq!(agent.requests_for("GetTask")[1].body.as_ref().unwrap()["params"]["historyLength"], 0);
}

#[tokio::test]
async fn send_message_waits_for_the_completed_task() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::send_message_waits_for_the_completed_task(&jsonrpc(&client, &agent).await).await;
}

#[tokio::test]
async fn streaming_starts_with_the_task_and_closes_cleanly() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&jsonrpc(&client, &agent).await).await;
}

#[tokio::test]
async fn input_required_then_follow_up_completes() {
    let agent = honest_agent().await;
    let client = client();
    scenarios::input_required_then_follow_up_completes(&jsonrpc(&client, &agent).await).await;
}

#[tokio::test]
async fn get_task_honours_history_length_and_lists_tasks() {
    let agent = honest_agent().await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::list_tasks_lists_what_was_sent(&connection, &task).await;
    scenarios::unknown_task_is_a_task_not_found_protocol_error(&connection).await;
}

#[tokio::test]
async fn cancel_of_a_working_task_returns_it_canceled() {
    let agent = agent(slow(Duration::from_millis(500))).await;
    let client = client();
    scenarios::cancel_of_a_working_task_returns_it_canceled(&jsonrpc(&client, &agent).await).await;
}

#[tokio::test]
async fn subscribe_starts_with_the_snapshot_and_follows_to_the_end() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&jsonrpc(&client, &agent).await)
        .await;
}

#[tokio::test]
async fn push_configs_round_trip_and_callbacks_arrive() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    assert_eq!(agent.requests_for("CreateTaskPushNotificationConfig").len(), 1);
    assert_eq!(agent.requests_for("DeleteTaskPushNotificationConfig").len(), 1);
}

#[tokio::test]
async fn extended_card_refusal_is_an_unsupported_operation_error() {
    let agent = honest_agent().await;
    let client = client();
    let err = jsonrpc(&client, &agent).await.get_extended_agent_card().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert!(err.protocol_error().is_some_and(ProtocolError::is_unsupported_operation), "{err}");
    assert_eq!(agent.requests_for("GetExtendedAgentCard").len(), 1, "a protocol error is not retried");
}

#[tokio::test]
async fn push_config_call_to_an_agent_without_push_is_a_push_not_supported_error() {
    let agent = ScriptedAgent::builder().capabilities(Capabilities::none()).spawn().await.unwrap();
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let config =
        a2a_typestate_types::TaskPushNotificationConfig::new("http://127.0.0.1:9/hook").with_task_id("t1");
    let err = connection.create_task_push_notification_config(config).await.unwrap_err();
    assert!(err.protocol_error().is_some_and(ProtocolError::is_push_notification_not_supported), "{err}");
}

#[tokio::test]
async fn poll_stops_at_the_terminal_state() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    scenarios::poll_stops_at_the_terminal_state(&jsonrpc(&client, &agent).await).await;
}

#[tokio::test]
async fn the_interface_tenant_is_sent_with_every_request_unless_the_caller_set_one() {
    let agent = honest_agent().await;
    let client = client();
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let mut interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.binding == ProtocolBinding::JsonRpc && i.protocol_version == ProtocolVersion::V1_0)
        .unwrap();
    interface.tenant = Some("acme".to_owned());
    let connection = a2a_typestate_client::AgentConnection::open(&client, base, card, interface).unwrap();
    let answer = connection.send_message(transport_common::text("tenant")).await.unwrap();
    let id = answer.task_id().cloned().unwrap();
    connection.get_task(a2a_typestate_types::GetTaskRequest::new(id.clone())).await.unwrap();
    let explicit = a2a_typestate_types::GetTaskRequest {
        tenant: Some("other".to_owned()),
        ..a2a_typestate_types::GetTaskRequest::new(id)
    };
    connection.get_task(explicit).await.unwrap();
    let tenants: Vec<_> = agent
        .requests()
        .iter()
        .filter(|r| r.operation.is_some())
        .map(|r| r.body.as_ref().unwrap()["params"]["tenant"].clone())
        .collect();
    assert_eq!(tenants, ["acme", "acme", "other"]);
}
