//! A 0.3 agent behind the 1.0 API, over JSON-RPC and over HTTP+JSON: 0.3 method names or `/v1`
//! routes (their bodies the 0.3 proto's messages as ProtoJSON, as a2a-python 0.3 and BeeAI speak
//! them), no version header, results converted, and a status update with `final: true` ends the
//! stream.

mod transport_common;

use std::time::Duration;

use a2a_testkit::{Binding, Capabilities, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::{ErrorKind, StreamEnd};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::tolerant::DeviationKind;
use a2a_typestate_types::{StreamResponse, TaskState};
use futures::StreamExt;
use transport_common::scenarios::{self, slow};
use transport_common::{client, connect_over, text};

async fn v03_agent(script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .script(script)
        .spawn()
        .await
        .unwrap()
}

async fn connect(
    client: &a2a_typestate_client::Client,
    agent: &RunningAgent,
) -> a2a_typestate_client::AgentConnection {
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.interface().protocol_version, ProtocolVersion::V0_3);
    assert_eq!(connection.interface().binding, ProtocolBinding::JsonRpc);
    connection
}

#[tokio::test]
async fn v03_requests_use_0_3_method_names_and_no_version_header() {
    let agent = v03_agent(Script::honest()).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;
    let methods: Vec<Option<String>> =
        agent.requests().into_iter().filter(|r| r.operation.is_some()).map(|r| r.rpc_method).collect();
    let expected = ["message/send", "tasks/get", "tasks/get", "message/stream"].map(|m| Some(m.to_owned()));
    assert_eq!(methods, expected);
    for request in agent.requests() {
        assert_eq!(request.header("a2a-version"), None, "0.3 has no version header: {request:?}");
    }
    let send = agent.requests_for("SendMessage")[0].body.clone().unwrap();
    assert_eq!(send["params"]["message"]["kind"], "message", "the request was converted to 0.3");
    assert_eq!(send["params"]["message"]["role"], "user");
}

#[tokio::test]
async fn a_final_status_update_ends_the_stream_as_closed() {
    let agent = v03_agent(Script::honest()).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("final")).await.unwrap();
    let mut last = None;
    while stream.end().is_none() {
        match stream.next().await {
            Some(event) => last = Some(event.unwrap()),
            None => break,
        }
    }
    let last = last.unwrap();
    assert!(
        matches!(&last, StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Completed),
        "{last:?}"
    );
    assert_eq!(stream.end(), Some(StreamEnd::Closed), "closed on `final: true`, before the body ended");
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn input_required_then_follow_up_completes() {
    let agent = v03_agent(Script::honest()).await;
    let client = client();
    scenarios::input_required_then_follow_up_completes(&connect(&client, &agent).await).await;
}

#[tokio::test]
async fn cancel_subscribe_and_poll_work_through_the_0_3_methods() {
    let agent = v03_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    scenarios::cancel_of_a_working_task_returns_it_canceled(&connection).await;
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&connection).await;
    scenarios::poll_stops_at_the_terminal_state(&connection).await;
    scenarios::unknown_task_is_a_task_not_found_protocol_error(&connection).await;
    assert_eq!(agent.requests_for("CancelTask")[0].rpc_method.as_deref(), Some("tasks/cancel"));
    assert_eq!(agent.requests_for("SubscribeToTask")[0].rpc_method.as_deref(), Some("tasks/resubscribe"));
}

#[tokio::test]
async fn push_configs_round_trip_and_callbacks_arrive() {
    let agent = v03_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    let set = &agent.requests_for("CreateTaskPushNotificationConfig")[0];
    assert_eq!(set.rpc_method.as_deref(), Some("tasks/pushNotificationConfig/set"));
    let params = &set.body.as_ref().unwrap()["params"];
    assert_eq!(params["pushNotificationConfig"]["authentication"]["schemes"][0], "Bearer");
}

#[tokio::test]
async fn list_tasks_is_refused_locally_since_0_3_has_no_such_method() {
    let agent = v03_agent(Script::honest()).await;
    let client = client();
    let err = connect(&client, &agent).await.list_tasks(Default::default()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misuse);
    assert!(err.to_string().contains("ListTasks"), "{err}");
    assert!(agent.requests_for("ListTasks").is_empty(), "nothing was sent");
}

#[tokio::test]
async fn what_0_3_cannot_carry_is_counted_as_a_conversion_loss_not_dropped_silently() {
    let agent = v03_agent(Script::honest()).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    scenarios::send_message_waits_for_the_completed_task(&connection).await;
    assert_eq!(connection.conversion_losses(), 0, "a plain exchange converts without loss");
    let mut request = text("tenant");
    request.tenant = Some("acme".to_owned());
    connection.send_message(request).await.unwrap();
    assert_eq!(connection.conversion_losses(), 1, "0.3 has no tenant");
    let sent = agent.requests_for("SendMessage")[1].body.clone().unwrap();
    assert!(sent["params"].get("tenant").is_none());
}

// ---------------------------------------------------------------------------------------------------
// 0.3 over HTTP+JSON (BeeAI's HTTP+JSON mode): the same operations on the `/v1` routes
// ---------------------------------------------------------------------------------------------------

/// A 0.3 agent whose card prefers HTTP+JSON (`preferredTransport`), JSON-RPC listed after it.
async fn v03_rest_agent(script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .bindings([Binding::HttpJson, Binding::JsonRpc])
        .script(script)
        .spawn()
        .await
        .unwrap()
}

async fn connect_rest(
    client: &a2a_typestate_client::Client,
    agent: &RunningAgent,
) -> a2a_typestate_client::AgentConnection {
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.interface().protocol_version, ProtocolVersion::V0_3);
    assert_eq!(connection.interface().binding, ProtocolBinding::HttpJson);
    connection
}

/// The path of `request` below the agent's HTTP+JSON base URL.
fn rest_path(agent: &RunningAgent, request: &a2a_testkit::RecordedRequest) -> String {
    let prefix = reqwest::Url::parse(&agent.rest_url()).unwrap().path().trim_end_matches('/').to_owned();
    request.path.strip_prefix(&prefix).unwrap_or(&request.path).to_owned()
}

#[tokio::test]
async fn a_0_3_card_preferring_http_json_is_reached_on_the_v1_routes_without_a_version_header() {
    let agent = v03_rest_agent(Script::honest()).await;
    assert_eq!(agent.card()["preferredTransport"], "HTTP+JSON");
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;
    let seen: Vec<(String, String, Option<String>)> = agent
        .requests()
        .iter()
        .filter(|r| r.operation.is_some())
        .map(|r| (r.http_method.clone(), rest_path(&agent, r), r.query.clone()))
        .collect();
    let id = task.id.as_str();
    let expected = [
        ("POST".to_owned(), "/v1/message:send".to_owned(), None),
        ("GET".to_owned(), format!("/v1/tasks/{id}"), None),
        ("GET".to_owned(), format!("/v1/tasks/{id}"), Some("historyLength=0".to_owned())),
        ("POST".to_owned(), "/v1/message:stream".to_owned(), None),
    ];
    assert_eq!(seen, expected);
    for request in agent.requests().iter().filter(|r| r.operation.is_some()) {
        assert_eq!(request.header("a2a-version"), None, "0.3 has no version header: {request:?}");
        if request.http_method == "POST" {
            assert_eq!(request.header("content-type"), Some("application/json"), "{request:?}");
        }
    }
    let send = agent.requests_for("SendMessage")[0].body.clone().unwrap();
    assert_eq!(send["message"]["role"], "ROLE_USER", "the body is the 0.3 proto's request: {send}");
    assert!(send.get("jsonrpc").is_none());
}

#[tokio::test]
async fn an_additional_http_json_interface_of_a_0_3_card_is_spoken_too() {
    let agent = ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .bindings([Binding::JsonRpc, Binding::HttpJson])
        .spawn()
        .await
        .unwrap();
    assert_eq!(agent.card()["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    let client = client();
    let connection = connect_over(&client, &agent, ProtocolVersion::V0_3, ProtocolBinding::HttpJson).await;
    scenarios::send_message_waits_for_the_completed_task(&connection).await;
    let send = &agent.requests_for("SendMessage")[0];
    assert_eq!(rest_path(&agent, send), "/v1/message:send");
}

#[tokio::test]
async fn a_final_status_update_ends_the_0_3_http_json_stream_as_closed() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("final")).await.unwrap();
    let mut last = None;
    while stream.end().is_none() {
        match stream.next().await {
            Some(event) => last = Some(event.unwrap()),
            None => break,
        }
    }
    let last = last.unwrap();
    assert!(
        matches!(&last, StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Completed),
        "{last:?}"
    );
    assert_eq!(stream.end(), Some(StreamEnd::Closed), "closed on `final: true`");
}

#[tokio::test]
async fn input_required_then_follow_up_completes_over_0_3_http_json() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    scenarios::input_required_then_follow_up_completes(&connect_rest(&client, &agent).await).await;
}

#[tokio::test]
async fn cancel_subscribe_and_poll_work_through_the_0_3_routes() {
    let agent = v03_rest_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    scenarios::cancel_of_a_working_task_returns_it_canceled(&connection).await;
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&connection).await;
    scenarios::poll_stops_at_the_terminal_state(&connection).await;
    scenarios::unknown_task_is_a_task_not_found_protocol_error(&connection).await;
    let cancel = &agent.requests_for("CancelTask")[0];
    assert_eq!(cancel.http_method, "POST");
    assert!(rest_path(&agent, cancel).starts_with("/v1/tasks/") && cancel.path.ends_with(":cancel"));
    let subscribe = &agent.requests_for("SubscribeToTask")[0];
    assert_eq!(subscribe.http_method, "GET", "a2a-python 0.3 serves :subscribe on GET");
    assert!(rest_path(&agent, subscribe).ends_with(":subscribe"));
}

#[tokio::test]
async fn a_0_3_error_is_read_from_its_http_status_and_message() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let err = connection.get_task(a2a_typestate_types::GetTaskRequest::new("missing")).await.unwrap_err();
    assert_eq!(err.status(), Some(404));
    let protocol = err.protocol_error().unwrap();
    assert_eq!((protocol.code(), protocol.reason()), (Some(-32001), Some("TASK_NOT_FOUND")));
    assert!(protocol.message().contains("missing"), "the agent's own message: {protocol}");
}

#[tokio::test]
async fn streaming_refused_over_0_3_http_json_is_the_agents_unsupported_operation() {
    let agent = ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .bindings([Binding::HttpJson])
        .spawn()
        .await
        .unwrap();
    let client = client();
    let err = connect_rest(&client, &agent).await.send_streaming_message(text("stream")).await.unwrap_err();
    assert_eq!(err.status(), Some(501));
    assert!(
        err.protocol_error().is_some_and(a2a_typestate_client::ProtocolError::is_unsupported_operation),
        "{err}"
    );
}

#[tokio::test]
async fn push_configs_round_trip_over_the_0_3_routes() {
    let agent = v03_rest_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    let set = &agent.requests_for("CreateTaskPushNotificationConfig")[0];
    assert_eq!(set.http_method, "POST");
    assert!(rest_path(&agent, set).ends_with("/pushNotificationConfigs"), "{set:?}");
    let body = set.body.as_ref().unwrap();
    let config = &body["config"]["pushNotificationConfig"];
    assert_eq!(config["authentication"]["schemes"][0], "Bearer", "{body}");
    let get = &agent.requests_for("GetTaskPushNotificationConfig")[0];
    assert!(rest_path(&agent, get).contains("/pushNotificationConfigs/"), "{get:?}");
    assert_eq!(agent.requests_for("DeleteTaskPushNotificationConfig")[0].http_method, "DELETE");
}

#[tokio::test]
async fn list_tasks_is_refused_locally_over_0_3_http_json_too() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let err = connect_rest(&client, &agent).await.list_tasks(Default::default()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misuse);
    assert!(agent.requests_for("ListTasks").is_empty(), "nothing was sent");
}

// ---------------------------------------------------------------------------------------------------
// 0.3 over HTTP+JSON: each operation in the 0.3 proto's JSON
// ---------------------------------------------------------------------------------------------------

/// The body the agent received for the first `operation`.
fn body_of(agent: &RunningAgent, operation: &str) -> serde_json::Value {
    agent.requests_for(operation)[0].body.clone().unwrap_or_default()
}

#[tokio::test]
async fn a_0_3_http_json_send_is_the_proto_send_message_request_and_its_answer_the_proto_task() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    assert_eq!(task.artifacts.len(), 1, "the proto task's artifact was read: {task:?}");
    let send = body_of(&agent, "SendMessage");
    let message = &send["message"];
    assert_eq!(message["role"], "ROLE_USER", "{send}");
    assert!(message["content"][0]["text"].is_string(), "a message's parts are its `content`: {send}");
    assert!(message.get("kind").is_none() && message.get("parts").is_none(), "{send}");
    assert_eq!(send["configuration"]["blocking"], true, "blocking is written: the proto's default is false");
    assert_eq!(connection.conversion_losses(), 0);
}

#[tokio::test]
async fn a_0_3_http_json_stream_reads_pretty_printed_proto_events_to_the_final_update() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("stream")).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    assert!(matches!(events.first(), Some(StreamResponse::Task(_))), "{events:?}");
    assert!(events.iter().any(|e| matches!(e, StreamResponse::ArtifactUpdate(_))), "{events:?}");
    assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
    assert_eq!(stream.end(), Some(StreamEnd::Closed));
    assert_eq!(body_of(&agent, "SendStreamingMessage")["message"]["role"], "ROLE_USER");
}

#[tokio::test]
async fn a_message_streamed_over_0_3_http_json_is_read_from_the_proto_message_member() {
    let agent = v03_rest_agent(Script::honest().quirk(Quirk::AnswersInMessages)).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("chunks")).await.unwrap();
    let mut messages = 0;
    while let Some(event) = stream.next().await {
        if let StreamResponse::Message(message) = event.unwrap() {
            assert_eq!(message.role, a2a_typestate_types::Role::Agent);
            messages += 1;
        }
    }
    assert!(messages > 0, "the answer came as messages");
}

#[tokio::test]
async fn a_0_3_http_json_get_task_reads_the_bare_proto_task() {
    let agent = v03_rest_agent(Script::honest()).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    let sent = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    let got = connection
        .get_task(a2a_typestate_types::GetTaskRequest {
            history_length: Some(1),
            ..a2a_typestate_types::GetTaskRequest::new(sent.id.clone())
        })
        .await
        .unwrap();
    assert_eq!((got.id.clone(), got.state()), (sent.id, TaskState::Completed));
    assert_eq!(got.history.len(), 1);
    let get = &agent.requests_for("GetTask")[0];
    assert_eq!((get.http_method.as_str(), get.query.as_deref()), ("GET", Some("historyLength=1")));
}

#[tokio::test]
async fn a_0_3_http_json_cancel_posts_the_proto_cancel_request_naming_the_task() {
    let agent = v03_rest_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    scenarios::cancel_of_a_working_task_returns_it_canceled(&connection).await;
    let cancel = &agent.requests_for("CancelTask")[0];
    let path = rest_path(&agent, cancel);
    let id = path.strip_prefix("/v1/tasks/").and_then(|p| p.strip_suffix(":cancel")).unwrap();
    assert_eq!(body_of(&agent, "CancelTask"), serde_json::json!({ "name": format!("tasks/{id}") }));
}

#[tokio::test]
async fn a_0_3_http_json_subscribe_reads_the_proto_stream_of_the_task() {
    let agent = v03_rest_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&connection).await;
    assert_eq!(agent.requests_for("SubscribeToTask")[0].http_method, "GET");
}

#[tokio::test]
async fn a_0_3_http_json_push_config_is_created_by_its_parent_and_read_by_its_resource_name() {
    let agent = v03_rest_agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = connect_rest(&client, &agent).await;
    // Set, get, list and delete, each answer read from the proto's config and its resource name.
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    let set = body_of(&agent, "CreateTaskPushNotificationConfig");
    let task_id = set["parent"].as_str().and_then(|p| p.strip_prefix("tasks/")).expect("a parent").to_owned();
    let config_id = set["configId"].as_str().unwrap_or_default();
    let expected = format!("tasks/{task_id}/pushNotificationConfigs/{config_id}");
    if !config_id.is_empty() {
        assert_eq!(set["config"]["name"], expected.as_str(), "{set}");
    }
    assert!(set["config"]["pushNotificationConfig"]["url"].is_string(), "{set}");
}

#[tokio::test]
async fn a_json_rpc_shaped_0_3_http_json_answer_is_read_under_tolerant_reading_as_a_wire_deviation() {
    let agent = v03_rest_agent(Script::honest().quirk(Quirk::V03RestInJsonRpcShape)).await;
    let client = a2a_typestate_client::Client::builder()
        .wire_reading(a2a_typestate_client::WireReading::Tolerant)
        .build()
        .unwrap();
    let connection = connect_rest(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    let mut stream = connection.send_streaming_message(text("stream")).await.unwrap();
    while let Some(event) = stream.next().await {
        event.unwrap();
    }
    let deviations = connection.wire_deviations();
    let seen: Vec<(&str, Option<u64>)> = deviations
        .iter()
        .filter(|d| d.kind() == DeviationKind::V03JsonRpcShape)
        .map(|d| (d.call, d.event))
        .take(4)
        .collect();
    assert_eq!(
        seen,
        [("SendMessage", None), ("GetTask", None), ("GetTask", None), ("SendStreamingMessage", Some(1))],
        "{deviations:?}"
    );
}

#[tokio::test]
async fn a_json_rpc_shaped_0_3_http_json_answer_is_bad_input_under_strict_reading() {
    let agent = v03_rest_agent(Script::honest().quirk(Quirk::V03RestInJsonRpcShape)).await;
    let client = client();
    let err = connect_rest(&client, &agent).await.send_message(text("hello")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    let parse = err.parse_error().expect("the parse error");
    assert!(parse.message().contains("JSON-RPC shape"), "{parse}");
}

#[tokio::test]
async fn a_0_3_task_without_its_kind_is_read_under_tolerant_reading_as_a_missing_field_deviation() {
    let agent = v03_agent(Script::honest().quirk(Quirk::V03TasksWithoutKind)).await;
    let client = a2a_typestate_client::Client::builder()
        .wire_reading(a2a_typestate_client::WireReading::Tolerant)
        .build()
        .unwrap();
    let connection = connect(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;
    let deviations = connection.wire_deviations();
    let seen: Vec<(&str, Option<u64>, &str)> = deviations
        .iter()
        .filter(|d| d.kind() == DeviationKind::MissingField)
        .map(|d| (d.call, d.event, d.path()))
        .collect();
    assert_eq!(
        seen,
        [
            ("SendMessage", None, "result.kind"),
            ("GetTask", None, "result.kind"),
            ("GetTask", None, "result.kind"),
            ("SendStreamingMessage", Some(1), "result.kind"),
        ],
        "{deviations:?}"
    );
    assert!(deviations[0].deviation.read_as.contains("\"kind\": \"task\""), "{}", deviations[0]);
}

#[tokio::test]
async fn a_0_3_task_without_its_kind_is_bad_input_under_strict_reading() {
    let agent = v03_agent(Script::honest().quirk(Quirk::V03TasksWithoutKind)).await;
    let client = client();
    let connection = connect(&client, &agent).await;
    let err = connection.send_message(text("hello")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    let parse = err.parse_error().expect("the parse error");
    assert!(parse.message().contains("missing field `kind`"), "{parse}");
    let err = connection.send_streaming_message(text("stream")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(connection.wire_deviations().is_empty());
}
