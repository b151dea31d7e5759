//! Converting 0.3 messages, tasks, events, push configs, send params and method names to 1.0 and
//! back: lossless where 1.0 can hold everything, and every loss reported with its path otherwise.

mod common;

use a2a_typestate_types::jsonrpc::{JsonRpcRequest, JsonRpcSuccess};
use a2a_typestate_types::{v1, v03};
use common::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------------
// 0.3 -> 1.0 -> 0.3 where nothing is lost
// ---------------------------------------------------------------------------------------------------

#[test]
fn transcript_messages_tasks_and_events_convert_to_v1_and_back_without_loss() {
    for (name, _, body) in transcript_bodies() {
        match body {
            Body::SendRequest(r) => {
                let params = r.params.unwrap();
                let v1 = params.to_v1().lossless().unwrap_or_else(|c| panic!("{name}: {:?}", c.losses));
                assert_eq!(v03::MessageSendParams::from_v1(&v1).lossless().unwrap(), params, "{name}");
            }
            Body::SendResponse(r) => {
                let v1 = r.result.to_v1().lossless().unwrap_or_else(|c| panic!("{name}: {:?}", c.losses));
                assert_eq!(v03::SendMessageResult::from_v1(&v1).lossless().unwrap(), r.result, "{name}");
            }
            Body::StreamEvent(r) => {
                let v1 = r.result.to_v1().lossless().unwrap_or_else(|c| panic!("{name}: {:?}", c.losses));
                assert_eq!(v03::StreamResult::from_v1(&v1).lossless().unwrap(), r.result, "{name}");
            }
            Body::Card(_) => {} // a merged card: see merged_card_v1_members_are_reported_not_shadowed
        }
    }
}

#[test]
fn transcript_task_converts_to_the_v1_model() {
    let response: JsonRpcSuccess<v03::SendMessageResult> = read(&transcript(SEND_RESPONSE));
    let v1::SendMessageResponse::Task(task) = response.result.to_v1().lossless().unwrap() else {
        panic!("a task")
    };
    assert_eq!(task.status.state, v1::TaskState::Completed);
    assert_eq!(task.history[0].role, v1::Role::User);
    assert_eq!(task.artifacts[0].parts[0].as_text(), Some("echo: hello 0.3"));
    let json = to_json(&v1::StreamResponse::Task(task));
    assert_eq!(json["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(json["task"].get("kind").is_none(), "1.0 has no kind: {json}");
}

#[test]
fn rich_card_converts_to_v1_and_back_without_loss() {
    let card: v03::AgentCard = read(&fixture("rich-card.json"));
    let v1 = card.to_v1().lossless().unwrap_or_else(|c| panic!("{:?}", c.losses));
    let back = v03::AgentCard::from_v1(&v1).lossless().unwrap_or_else(|c| panic!("{:?}", c.losses));
    assert_eq!(back, card);
    assert_eq!(to_json(&back), read::<Value>(&fixture("rich-card.json")));
}

#[test]
fn card_url_preferred_transport_and_additional_interfaces_become_supported_interfaces_in_order() {
    let card: v03::AgentCard = read(&fixture("rich-card.json"));
    let v1 = card.to_v1().value;
    let interfaces: Vec<(&str, &str, &str)> = v1
        .supported_interfaces
        .iter()
        .map(|i| (i.url.as_str(), i.protocol_binding.as_str(), i.protocol_version.as_str()))
        .collect();
    assert_eq!(
        interfaces,
        [
            ("https://agent.example/a2a/jsonrpc", "JSONRPC", "0.3"),
            ("https://agent.example/a2a/jsonrpc", "JSONRPC", "0.3"),
            ("https://agent.example/a2a/rest", "HTTP+JSON", "0.3"),
            ("https://agent.example:8443", "GRPC", "0.3"),
        ]
    );
    assert!(v1.supported_interfaces.iter().all(|i| i.tenant.is_none()));
}

#[test]
fn card_fields_moved_in_v1_land_in_their_v1_places() {
    let card: v03::AgentCard = read(&fixture("rich-card.json"));
    let v1 = card.to_v1().value;
    assert_eq!(v1.capabilities.extended_agent_card, Some(true));
    assert_eq!(v1.capabilities.extra.value("vendorHint"), Some(json!({"pollSeconds": 5})));
    assert_eq!(v1.extra.value("x-vendor"), Some(json!({"tier": "gold"})));
    let json = to_json(&v1);
    assert_eq!(json["securityRequirements"][0], json!({"schemes": {"oauth": {"list": ["read"]}}}));
    assert_eq!(json["skills"][0]["securityRequirements"][0], json!({"schemes": {"bearer": {}}}));
    assert_eq!(
        json["securitySchemes"]["key"],
        json!({"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key", "description": "static key"}})
    );
    assert_eq!(json["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["bearerFormat"], "JWT");
    assert_eq!(
        json["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"]["authorizationCode"]["tokenUrl"],
        "https://auth.example/token"
    );
    assert!(json["securitySchemes"]["mtls"].get("mtlsSecurityScheme").is_some());
    assert!(json.get("url").is_none() && json.get("protocolVersion").is_none(), "{json}");
}

// ---------------------------------------------------------------------------------------------------
// `final`
// ---------------------------------------------------------------------------------------------------

fn status_update(state: &str, is_final: bool) -> v03::TaskStatusUpdateEvent {
    read(&format!(
        r#"{{"kind":"status-update","taskId":"t","contextId":"c","final":{is_final},"status":{{"state":"{state}"}}}}"#
    ))
}

#[test]
fn final_that_matches_what_v1_infers_from_the_state_is_not_a_loss() {
    for (state, is_final) in [
        ("submitted", false),
        ("working", false),
        ("unknown", false),
        ("input-required", true),
        ("auth-required", true),
        ("completed", true),
        ("canceled", true),
        ("failed", true),
        ("rejected", true),
    ] {
        assert!(status_update(state, is_final).to_v1().is_lossless(), "{state} final={is_final}");
    }
}

#[test]
fn final_true_on_working_is_reported_as_a_loss() {
    let converted = status_update("working", true).to_v1();
    assert_eq!(loss_paths(&converted), ["final"]);
    assert!(converted.losses[0].what.contains("ends the stream"), "{}", converted.losses[0]);
}

#[test]
fn final_false_on_completed_is_reported_as_a_loss() {
    let converted = status_update("completed", false).to_v1();
    assert_eq!(loss_paths(&converted), ["final"]);
}

#[test]
fn v1_status_update_sets_final_for_terminal_and_interrupted_states_only() {
    for state in [
        v1::TaskState::Unspecified,
        v1::TaskState::Submitted,
        v1::TaskState::Working,
        v1::TaskState::Completed,
        v1::TaskState::Failed,
        v1::TaskState::Canceled,
        v1::TaskState::InputRequired,
        v1::TaskState::Rejected,
        v1::TaskState::AuthRequired,
    ] {
        let event = v1::TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: Some("c".into()),
            status: v1::TaskStatus::new(state),
            metadata: None,
        };
        let converted = v03::TaskStatusUpdateEvent::from_v1(&event).lossless().unwrap();
        assert_eq!(converted.is_final, state.is_terminal() || state.is_interrupted(), "{state}");
        assert_eq!(converted.status.state.to_v1(), state);
    }
}

#[test]
fn unknown_state_is_task_state_unspecified_both_ways() {
    assert_eq!(v03::TaskState::Unknown.to_v1(), v1::TaskState::Unspecified);
    assert_eq!(v03::TaskState::from_v1(v1::TaskState::Unspecified), v03::TaskState::Unknown);
    let state: v03::TaskState = read(r#""input-required""#);
    assert_eq!(state.to_v1(), v1::TaskState::InputRequired);
    assert_eq!(to_json(&v03::TaskState::AuthRequired), json!("auth-required"));
}

// ---------------------------------------------------------------------------------------------------
// Parts
// ---------------------------------------------------------------------------------------------------

#[test]
fn file_bytes_become_raw_with_media_type_and_filename_and_back() {
    let part: v03::Part =
        read(r#"{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"hi.txt"}}"#);
    let v1 = part.to_v1().lossless().unwrap();
    assert_eq!(v1.content, v1::PartContent::Raw(b"hi".to_vec()));
    assert_eq!(v1.media_type.as_deref(), Some("text/plain"));
    assert_eq!(v1.filename.as_deref(), Some("hi.txt"));
    let back = v03::Part::from_v1(&v1).lossless().unwrap();
    assert_eq!(back, part);
    assert_eq!(
        to_json(&back),
        json!({"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"hi.txt"}})
    );
}

#[test]
fn file_uri_becomes_url() {
    let part: v03::Part =
        read(r#"{"kind":"file","file":{"uri":"https://x.example/a.png","mimeType":"image/png"}}"#);
    let v1 = part.to_v1().lossless().unwrap();
    assert_eq!(v1.content, v1::PartContent::Url("https://x.example/a.png".into()));
    assert_eq!(v03::Part::from_v1(&v1).lossless().unwrap(), part);
}

#[test]
fn data_part_round_trips_as_an_object() {
    let part: v03::Part = read(r#"{"kind":"data","data":{"answer":42},"metadata":{"m":1}}"#);
    let v1 = part.to_v1().lossless().unwrap();
    assert_eq!(v1.content, v1::PartContent::Data(json!({"answer": 42}).into()));
    assert_eq!(v03::Part::from_v1(&v1).lossless().unwrap(), part);
}

#[test]
fn v1_text_part_with_filename_and_media_type_reports_both() {
    let part = v1::Part::text("hello").with_filename("a.txt").with_media_type("text/plain");
    let converted = v03::Part::from_v1(&part);
    assert_eq!(loss_paths(&converted), ["filename", "mediaType"]);
    assert_eq!(converted.value, v03::Part::text("hello"));
}

#[test]
fn v1_data_that_is_not_an_object_is_wrapped_and_reported() {
    let converted = v03::Part::from_v1(&v1::Part::data(json!([1, 2])));
    assert_eq!(loss_paths(&converted), ["data"]);
    assert_eq!(to_json(&converted.value), json!({"kind":"data","data":{"value":[1,2]}}));
}

#[test]
fn v1_message_losses_carry_the_path_inside_the_message() {
    let mut message = v1::Message::user("hi").with_message_id("m1");
    message.parts.push(v1::Part::text("second").with_filename("x"));
    message.role = v1::Role::Unspecified;
    let converted = v03::Message::from_v1(&message);
    assert_eq!(loss_paths(&converted), ["role", "parts[1].filename"]);
}

#[test]
fn v1_task_without_context_id_is_reported_because_0_3_requires_one() {
    let task = v1::Task::new("t1", v1::TaskState::Working);
    let converted = v03::Task::from_v1(&task);
    assert_eq!(loss_paths(&converted), ["contextId"]);
    assert_eq!(converted.value.context_id.as_str(), "");
}

#[test]
fn v1_stream_response_losses_are_under_the_member_name() {
    let mut task = v1::Task::new("t1", v1::TaskState::Working);
    task.status.message = Some(v1::Message::agent("hi").with_message_id("m").with_context_id("c"));
    task.status.message.as_mut().unwrap().parts[0].media_type = Some("text/plain".into());
    let converted = v03::StreamResult::from_v1(&v1::StreamResponse::Task(task));
    assert_eq!(loss_paths(&converted), ["task.contextId", "task.status.message.parts[0].mediaType"]);
}

// ---------------------------------------------------------------------------------------------------
// Push configs and send params
// ---------------------------------------------------------------------------------------------------

#[test]
fn push_config_round_trips_through_v1() {
    let config: v03::TaskPushNotificationConfig = read(
        r#"{"taskId":"t1","pushNotificationConfig":{"url":"https://hook","id":"c1","token":"tok",
            "authentication":{"schemes":["Bearer"],"credentials":"secret"}}}"#,
    );
    let v1 = config.to_v1().lossless().unwrap();
    assert_eq!(v1.task_id.as_ref().map(|t| t.as_str()), Some("t1"));
    assert_eq!(v1.authentication.as_ref().map(|a| a.scheme.as_str()), Some("Bearer"));
    assert_eq!(v03::TaskPushNotificationConfig::from_v1(&v1).lossless().unwrap(), config);
}

#[test]
fn push_authentication_schemes_beyond_the_first_are_reported() {
    let config: v03::PushNotificationConfig =
        read(r#"{"url":"https://hook","authentication":{"schemes":["Bearer","Basic"]}}"#);
    let converted = config.to_v1();
    assert_eq!(loss_paths(&converted), ["authentication.schemes"]);
    assert_eq!(converted.value.authentication.unwrap().scheme, "Bearer");
}

#[test]
fn push_authentication_without_schemes_is_reported_and_left_out() {
    let config: v03::PushNotificationConfig =
        read(r#"{"url":"https://hook","authentication":{"schemes":[],"credentials":"c"}}"#);
    let converted = config.to_v1();
    assert_eq!(loss_paths(&converted), ["authentication.schemes"]);
    assert!(converted.value.authentication.is_none());
}

#[test]
fn push_credentials_are_not_printed_by_debug() {
    let config: v03::PushNotificationConfig =
        read(r#"{"url":"https://hook","authentication":{"schemes":["Bearer"],"credentials":"s3cr3t"}}"#);
    assert!(!format!("{config:?}").contains("s3cr3t"));
}

#[test]
fn v1_push_config_tenant_and_task_id_are_reported_on_a_bare_v03_config() {
    let mut config = v1::TaskPushNotificationConfig::new("https://hook").with_task_id("t1");
    config.tenant = Some("acme".into());
    let converted = v03::PushNotificationConfig::from_v1(&config);
    assert_eq!(loss_paths(&converted), ["taskId", "tenant"]);
    assert_eq!(loss_paths(&v03::TaskPushNotificationConfig::from_v1(&config)), ["tenant"]);
}

#[test]
fn send_params_with_configuration_round_trip_and_blocking_false_is_return_immediately() {
    let params: v03::MessageSendParams = read(
        r#"{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]},
            "configuration":{"acceptedOutputModes":["text/plain"],"blocking":false,"historyLength":2,
              "pushNotificationConfig":{"url":"https://hook","token":"t"}},
            "metadata":{"k":"v"}}"#,
    );
    let v1 = params.to_v1().lossless().unwrap();
    let configuration = v1.configuration.as_ref().unwrap();
    assert!(configuration.return_immediately);
    assert_eq!(configuration.history_length, Some(2));
    assert_eq!(configuration.task_push_notification_config.as_ref().unwrap().url, "https://hook");
    assert_eq!(v03::MessageSendParams::from_v1(&v1).lossless().unwrap(), params);
}

#[test]
fn absent_blocking_is_the_v1_default_blocking_send() {
    let configuration = v03::MessageSendConfiguration::default();
    assert!(!configuration.to_v1().value.return_immediately);
}

#[test]
fn v1_request_tenant_is_reported() {
    let mut request = v1::SendMessageRequest::new(v1::Message::user("hi").with_message_id("m"));
    request.tenant = Some("acme".into());
    assert_eq!(loss_paths(&v03::MessageSendParams::from_v1(&request)), ["tenant"]);
    let mut get = v1::GetTaskRequest::new("t1");
    get.tenant = Some("acme".into());
    assert_eq!(loss_paths(&v03::TaskQueryParams::from_v1(&get)), ["tenant"]);
}

#[test]
fn task_query_and_id_params_convert_to_their_v1_requests() {
    let query: v03::TaskQueryParams = read(r#"{"id":"t1","historyLength":0}"#);
    let get = query.to_v1().lossless().unwrap();
    assert_eq!((get.id.as_str(), get.history_length), ("t1", Some(0)));
    let ids: v03::TaskIdParams = read(r#"{"id":"t1","metadata":{"why":"test"}}"#);
    assert_eq!(v03::TaskIdParams::from_v1(&ids.to_v1().lossless().unwrap()).lossless().unwrap(), ids);
    assert_eq!(loss_paths(&ids.to_v1_subscribe()), ["metadata"]);
}

// ---------------------------------------------------------------------------------------------------
// Method names
// ---------------------------------------------------------------------------------------------------

#[test]
fn every_v03_method_name_maps_to_its_v1_replacement_and_back() {
    let expected = [
        ("message/send", "SendMessage"),
        ("message/stream", "SendStreamingMessage"),
        ("tasks/get", "GetTask"),
        ("tasks/cancel", "CancelTask"),
        ("tasks/resubscribe", "SubscribeToTask"),
        ("tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"),
        ("tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"),
        ("tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"),
        ("tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"),
        ("agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"),
    ];
    for (v03_name, v1_name) in expected {
        let method = v03::Method::from_name(v03_name).unwrap();
        assert_eq!((method.as_str(), method.v1_name()), (v03_name, v1_name));
        assert_eq!(v03::Method::from_v1_name(v1_name), Some(method));
        assert_eq!(method.to_v1().as_str(), v1_name);
        assert_eq!(v03::Method::from_v1(method.to_v1()), Some(method));
        assert_eq!(method.is_streaming(), method.to_v1().is_streaming());
    }
    assert_eq!(v03::Method::from_v1(a2a_typestate_types::jsonrpc::Method::ListTasks), None);
    assert_eq!(v03::Method::from_v1_name("ListTasks"), None, "new in 1.0");
    assert_eq!(v03::Method::from_name("SendMessage"), None);
}

#[test]
fn v03_requests_carry_the_0_3_method_name() {
    let original: JsonRpcRequest<v03::MessageSendParams> = read(&transcript(SEND_REQUEST));
    let params = original.params.unwrap();
    let request = v03::Method::MessageSend.request(1, params);
    let written = to_json(&request);
    assert_eq!(written, read::<Value>(&transcript(SEND_REQUEST)));
    let card_request = to_json(&v03::Method::GetAuthenticatedExtendedCard.request_without_params("a"));
    assert_eq!(card_request, json!({"jsonrpc":"2.0","id":"a","method":"agent/getAuthenticatedExtendedCard"}));
}
