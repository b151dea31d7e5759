//! The A2A 0.3 wire shapes and their conversion to and from 1.0.
//!
//! Fixtures under `tests/v03_fixtures/`: `s02-*`/`s09-*` are the 0.3 bodies of
//! wire-transcripts-a2a-sdk-1.3.0.md (sections 2 and 9), copied byte for byte; the cards are written
//! from the 0.3 schema (`rich-card.json`) and from the design note's observed run.

use std::path::PathBuf;

use a2a_types::jsonrpc::{JsonRpcRequest, JsonRpcSuccess};
use a2a_types::{parse, v1, v03};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/v03_fixtures")
}

fn fixture(name: &str) -> String {
    let path = fixture_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read<T: DeserializeOwned>(json: &str) -> T {
    parse::from_str(json).unwrap_or_else(|e| panic!("{e}\nin {json}"))
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

fn loss_paths<T>(converted: &v03::Converted<T>) -> Vec<&str> {
    converted.losses.iter().map(|l| l.path.as_str()).collect()
}

/// A 0.3 body of the transcript: what it is and how to read it.
enum Body {
    SendRequest(JsonRpcRequest<v03::MessageSendParams>),
    SendResponse(JsonRpcSuccess<v03::SendMessageResult>),
    StreamEvent(JsonRpcSuccess<v03::StreamResult>),
    Card(Box<v03::AgentCard>),
}

fn transcript_bodies() -> Vec<(String, Value, Body)> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("s02-") || n.starts_with("s09-"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "every 0.3 body of transcript sections 2 and 9: {names:?}");
    names
        .into_iter()
        .map(|name| {
            let text = fixture(&name);
            let body = if name.ends_with("-request.json") {
                Body::SendRequest(read(&text))
            } else if name.ends_with("-response.json") {
                Body::SendResponse(read(&text))
            } else if name.contains("-event-") {
                Body::StreamEvent(read(&text))
            } else if name.contains("-card") {
                Body::Card(Box::new(read(&text)))
            } else {
                panic!("{name}: no rule says what this fixture is")
            };
            let original: Value = serde_json::from_str(&text).unwrap();
            (name, original, body)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Reading and writing the transcript's 0.3 bodies
// ---------------------------------------------------------------------------------------------------

#[test]
fn every_v03_body_of_the_transcript_parses_and_writes_back_unchanged() {
    for (name, original, body) in transcript_bodies() {
        let (written, source) = match &body {
            Body::SendRequest(r) => {
                assert!(v03::Method::from_name(&r.method).is_some(), "{name}: {}", r.method);
                (to_json(r.params.as_ref().unwrap()), &original["params"])
            }
            Body::SendResponse(r) => (to_json(&r.result), &original["result"]),
            Body::StreamEvent(r) => (to_json(&r.result), &original["result"]),
            Body::Card(card) => (to_json(card), &original),
        };
        assert_eq!(&written, source, "{name}");
    }
}

#[test]
fn transcript_stream_is_task_then_working_then_artifact_then_final_completed() {
    let events: Vec<v03::StreamResult> = transcript_bodies()
        .into_iter()
        .filter_map(|(_, _, body)| match body {
            Body::StreamEvent(e) => Some(e.result),
            _ => None,
        })
        .collect();
    assert!(matches!(&events[0], v03::StreamResult::Task(t) if t.status.state == v03::TaskState::Submitted));
    assert!(matches!(&events[1], v03::StreamResult::StatusUpdate(e)
        if e.status.state == v03::TaskState::Working && !e.is_final));
    assert!(matches!(&events[2], v03::StreamResult::ArtifactUpdate(e) if e.last_chunk && !e.append));
    assert!(matches!(&events[3], v03::StreamResult::StatusUpdate(e)
        if e.status.state == v03::TaskState::Completed && e.is_final));
    let task_ids: Vec<_> = events.iter().map(|e| e.task_id().unwrap().as_str()).collect();
    assert!(task_ids.iter().all(|id| *id == "c5381c27-5b96-4b73-b910-37654b786a66"));
}

#[test]
fn merged_card_reads_as_v03_and_keeps_its_v1_members_in_extra() {
    let card: v03::AgentCard = read(&fixture("s09-card-merged.json"));
    assert_eq!(card.url, "http://127.0.0.1:41105/a2a/jsonrpc");
    assert_eq!(card.protocol_version.as_deref(), Some("0.3"));
    assert!(card.extra.contains_key("supportedInterfaces"));
}

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
    let response: JsonRpcSuccess<v03::SendMessageResult> = read(&fixture("s09-message-send-response.json"));
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
    assert_eq!(v1.capabilities.extra.get("vendorHint"), Some(&json!({"pollSeconds": 5})));
    assert_eq!(v1.extra.get("x-vendor"), Some(&json!({"tier": "gold"})));
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
// The design note's observed run
// ---------------------------------------------------------------------------------------------------

#[test]
fn design_note_card_reaches_v1_with_its_state_transition_history_claim() {
    let card: v03::AgentCard = read(&fixture("design-note-observed-card.json"));
    let converted = card.to_v1();
    let v1 = &converted.value;
    assert_eq!(v1.capabilities.legacy_state_transition_history(), Some(true));
    assert_eq!(v1.capabilities.push_notifications, Some(true));
    assert_eq!(v1.capabilities.streaming, Some(true));
    assert_eq!(v1.default_input_modes, ["text/plain"]);
    // The only thing 1.0 cannot hold is the patch part of "0.3.0".
    assert_eq!(loss_paths(&converted), ["protocolVersion"]);
    assert_eq!(v1.supported_interfaces[0].protocol_version, "0.3");

    // The claim survives 1.0 JSON too: it is written back where 1.0 readers find it.
    let reread: v1::AgentCard = read(&serde_json::to_string(v1).unwrap());
    assert_eq!(reread.capabilities.legacy_state_transition_history(), Some(true));

    let back = v03::AgentCard::from_v1(v1).lossless().unwrap();
    assert_eq!(back.capabilities.state_transition_history, Some(true));
    assert!(back.capabilities.extra.is_empty(), "the claim is a field again, not an extra");
}

#[test]
fn design_note_final_event_converts_without_loss_because_completed_ends_a_v1_stream() {
    let event: v03::StreamResult = read(
        r#"{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed"}}"#,
    );
    let converted = event.to_v1();
    assert!(converted.is_lossless());
    assert_eq!(converted.value.state(), Some(v1::TaskState::Completed));
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
    assert_eq!(v1.content, v1::PartContent::Data(json!({"answer": 42})));
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
    let mut message = v1::Message::user_text("m1", "hi");
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
    task.status.message = Some(v1::Message::agent_text("m", "hi").with_context_id("c"));
    task.status.message.as_mut().unwrap().parts[0].media_type = Some("text/plain".into());
    let converted = v03::StreamResult::from_v1(&v1::StreamResponse::Task(task));
    assert_eq!(loss_paths(&converted), ["task.contextId", "task.status.message.parts[0].mediaType"]);
}

// ---------------------------------------------------------------------------------------------------
// Cards: what 1.0 -> 0.3 and 0.3 -> 1.0 cannot carry
// ---------------------------------------------------------------------------------------------------

fn v1_card(interfaces: serde_json::Value) -> v1::AgentCard {
    read(
        &json!({"name":"n","description":"d","version":"1","supportedInterfaces":interfaces,
            "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]})
        .to_string(),
    )
}

#[test]
fn v1_interface_tenant_is_reported() {
    let card = v1_card(
        json!([{"url":"https://a/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3","tenant":"acme"}]),
    );
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[0].tenant"]);
    assert_eq!(converted.value.url, "https://a/rpc");
}

#[test]
fn v1_interfaces_of_another_version_than_the_first_are_reported() {
    let card = v1_card(json!([
        {"url":"https://a/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
        {"url":"https://a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
        {"url":"https://a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}
    ]));
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[1].protocolVersion"]);
    assert_eq!(converted.value.protocol_version.as_deref(), Some("0.3"));
    assert_eq!(converted.value.additional_interfaces.len(), 2);
}

#[test]
fn v1_card_without_interfaces_reports_the_missing_url() {
    let converted = v03::AgentCard::from_v1(&v1_card(json!([])));
    assert_eq!(loss_paths(&converted), ["supportedInterfaces"]);
}

#[test]
fn merged_card_v1_members_are_reported_not_shadowed() {
    let card: v03::AgentCard = read(&fixture("s09-card-merged.json"));
    let converted = card.to_v1();
    assert_eq!(loss_paths(&converted), ["supportedInterfaces"]);
    assert_eq!(converted.value.supported_interfaces.len(), 1, "built from url + preferredTransport");
}

#[test]
fn v1_reading_of_the_merged_card_converts_to_v03_reporting_the_disagreeing_interfaces() {
    let card: v1::AgentCard = read(&fixture("s09-card-merged.json"));
    let converted = v03::AgentCard::from_v1(&card);
    // The first interface is 1.0, so the card-level protocolVersion "0.3" the agent wrote disagrees
    // with the converted "1.0", and the 0.3 interface is listed under 1.0.
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[2].protocolVersion", "protocolVersion"]);
}

#[test]
fn card_without_preferred_transport_or_protocol_version_means_jsonrpc_0_3() {
    let card: v03::AgentCard = read(
        r#"{"name":"n","description":"d","url":"https://a/rpc","version":"1","capabilities":{},
            "defaultInputModes":[],"defaultOutputModes":[],"skills":[]}"#,
    );
    let converted = card.to_v1();
    assert!(converted.is_lossless());
    let interface = &converted.value.supported_interfaces[0];
    assert_eq!(
        (interface.protocol_binding.as_str(), interface.protocol_version.as_str()),
        ("JSONRPC", "0.3")
    );
}

fn oauth_card(flows: Value) -> v03::AgentCard {
    read(
        &json!({"name":"n","description":"d","url":"https://a/rpc","version":"1","protocolVersion":"0.3",
            "capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],
            "securitySchemes":{"oauth":{"type":"oauth2","flows":flows}}})
        .to_string(),
    )
}

#[test]
fn oauth_scheme_with_two_flows_keeps_the_first_and_reports_the_other() {
    let card = oauth_card(json!({
        "clientCredentials":{"tokenUrl":"https://t","scopes":{}},
        "password":{"tokenUrl":"https://t","scopes":{}}
    }));
    let converted = card.to_v1();
    assert_eq!(loss_paths(&converted), ["securitySchemes.oauth.flows.password"]);
    let v1::SecurityScheme::OAuth2(scheme) = &converted.value.security_schemes["oauth"] else { panic!() };
    assert!(matches!(scheme.flows, v1::OAuthFlows::ClientCredentials(_)));
}

#[test]
fn oauth_scheme_without_flow_is_reported_and_left_out() {
    let converted = oauth_card(json!({})).to_v1();
    assert_eq!(loss_paths(&converted), ["securitySchemes.oauth.flows"]);
    assert!(converted.value.security_schemes.is_empty());
}

#[test]
fn v1_device_code_flow_and_pkce_are_reported() {
    let mut card = v1_card(json!([{"url":"https://a","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]));
    card.security_schemes = read(
        r#"{"device":{"oauth2SecurityScheme":{"flows":{"deviceCode":{"deviceAuthorizationUrl":"https://d","tokenUrl":"https://t","scopes":{}}}}},
            "code":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"authorizationUrl":"https://a","tokenUrl":"https://t","scopes":{},"pkceRequired":true}}}}}"#,
    );
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(
        loss_paths(&converted),
        [
            "securitySchemes.code.oauth2SecurityScheme.flows.authorizationCode.pkceRequired",
            "securitySchemes.device.oauth2SecurityScheme.flows.deviceCode",
        ]
    );
}

#[test]
fn api_key_in_becomes_location_and_back() {
    let scheme: v03::SecurityScheme = read(r#"{"type":"apiKey","in":"query","name":"key"}"#);
    let v03::SecurityScheme::ApiKey(key) = &scheme else { panic!() };
    assert_eq!(key.location, "query");
    assert_eq!(to_json(&scheme), json!({"type":"apiKey","in":"query","name":"key"}));
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
    let mut request = v1::SendMessageRequest::new(v1::Message::user_text("m", "hi"));
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
    assert_eq!(v03::Method::from_v1(a2a_types::jsonrpc::Method::ListTasks), None);
    assert_eq!(v03::Method::from_v1_name("ListTasks"), None, "new in 1.0");
    assert_eq!(v03::Method::from_name("SendMessage"), None);
}

#[test]
fn v03_requests_carry_the_0_3_method_name() {
    let original: JsonRpcRequest<v03::MessageSendParams> = read(&fixture("s09-message-send-request.json"));
    let params = original.params.unwrap();
    let request = v03::Method::MessageSend.request(1, params);
    let written = to_json(&request);
    assert_eq!(written, read::<Value>(&fixture("s09-message-send-request.json")));
    let card_request = to_json(&v03::Method::GetAuthenticatedExtendedCard.request_without_params("a"));
    assert_eq!(card_request, json!({"jsonrpc":"2.0","id":"a","method":"agent/getAuthenticatedExtendedCard"}));
}

// ---------------------------------------------------------------------------------------------------
// Bad input: errors name the path
// ---------------------------------------------------------------------------------------------------

fn error<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> parse::ParseError {
    parse::from_str::<T>(json).expect_err("bad input must not parse")
}

#[test]
fn unknown_part_kind_is_an_error_at_the_part() {
    let err = error::<v03::Message>(
        r#"{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"a"},{"kind":"image"}]}"#,
    );
    assert_eq!(err.path(), "parts[1]");
    assert!(err.message().contains("unknown part kind \"image\""), "{err}");
}

#[test]
fn missing_part_kind_is_an_error_at_the_part() {
    let err =
        error::<v03::Message>(r#"{"kind":"message","messageId":"m","role":"user","parts":[{"text":"a"}]}"#);
    assert_eq!(
        err.to_string(),
        "parts[0]: missing field `kind`; expected one of \"text\", \"file\", \"data\""
    );
}

#[test]
fn unknown_result_kind_is_an_error_at_the_result() {
    let err = error::<JsonRpcSuccess<v03::StreamResult>>(
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"progress"}}"#,
    );
    assert_eq!(err.path(), "result");
    assert!(err.message().starts_with("unknown kind \"progress\""), "{err}");
}

#[test]
fn missing_result_kind_is_an_error_at_the_result() {
    let err = error::<JsonRpcSuccess<v03::SendMessageResult>>(
        r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t","contextId":"c","status":{"state":"working"}}}"#,
    );
    assert_eq!(err.to_string(), "result: missing field `kind`; expected \"task\", \"message\"");
}

#[test]
fn event_kind_in_a_send_result_is_refused() {
    let err = error::<v03::SendMessageResult>(
        r#"{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed"}}"#,
    );
    assert!(err.message().starts_with("unexpected kind \"status-update\""), "{err}");
}

#[test]
fn error_inside_a_kinded_object_keeps_its_full_path() {
    let err =
        error::<v03::StreamResult>(r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"done"}}"#);
    assert_eq!(err.path(), "status.state");
    let err = error::<v03::Task>(
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},
            "history":[{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":7}]}]}"#,
    );
    assert_eq!(err.to_string(), "history[0].parts[0].text: expected a string, found an integer");
}

#[test]
fn missing_required_member_names_it_and_the_kind() {
    let err = error::<v03::StreamResult>(
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"}}"#,
    );
    assert_eq!(err.message(), "missing field `final` (required for kind \"status-update\")");
}

#[test]
fn file_with_both_bytes_and_uri_is_refused() {
    let err = error::<v03::Part>(r#"{"kind":"file","file":{"bytes":"aGk=","uri":"https://x"}}"#);
    assert_eq!(err.path(), "file");
    assert!(err.message().contains("found bytes and uri"), "{err}");
    let err = error::<v03::Part>(r#"{"kind":"file","file":{"bytes":"@@"}}"#);
    assert_eq!(err.path(), "file.bytes");
}

#[test]
fn card_errors_name_the_path() {
    let text = fixture("rich-card.json");
    let mut card: Value = serde_json::from_str(&text).unwrap();
    card["capabilities"]["streaming"] = json!("yes");
    let err = error::<v03::AgentCard>(&card.to_string());
    assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");

    card["capabilities"]["streaming"] = json!(true);
    card["securitySchemes"]["key"]["type"] = json!("magic");
    let err = error::<v03::AgentCard>(&card.to_string());
    assert_eq!(err.path(), "securitySchemes.key");
    assert!(err.message().contains("unknown security scheme type \"magic\""), "{err}");

    card["securitySchemes"]["key"] = json!({"type": "apiKey", "name": "k"});
    let err = error::<v03::AgentCard>(&card.to_string());
    assert_eq!(err.to_string(), "securitySchemes.key: missing field `in` (required for type \"apiKey\")");

    let mut card: Value = serde_json::from_str(&text).unwrap();
    card.as_object_mut().unwrap().remove("url");
    assert_eq!(error::<v03::AgentCard>(&card.to_string()).to_string(), "document: missing field `url`");
}

#[test]
fn unknown_fields_are_ignored_on_tasks_and_kept_on_cards() {
    let task: v03::Task =
        read(r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"x":1}"#);
    assert!(to_json(&task).get("x").is_none());
    let card: v03::AgentCard = read(&fixture("rich-card.json"));
    assert_eq!(card.extra.get("x-vendor"), Some(&json!({"tier": "gold"})));
    assert_eq!(card.capabilities.extra.get("vendorHint"), Some(&json!({"pollSeconds": 5})));
}

// ---------------------------------------------------------------------------------------------------
// Reading a card of either shape
// ---------------------------------------------------------------------------------------------------

#[test]
fn any_card_with_supported_interfaces_is_read_as_v1_even_when_merged_with_0_3_fields() {
    let (shape, card) = v03::read_any_card(fixture("s09-card-merged.json").as_bytes()).unwrap();
    assert_eq!(shape, v03::CardShape::V1);
    assert!(card.is_lossless());
    let versions: Vec<_> =
        card.value.supported_interfaces.iter().map(|i| i.protocol_version.as_str()).collect();
    assert_eq!(versions, ["1.0", "1.0", "0.3"]);
}

#[test]
fn any_card_without_supported_interfaces_is_read_as_0_3_and_converted() {
    let (shape, card) = v03::read_any_card(fixture("design-note-observed-card.json").as_bytes()).unwrap();
    assert_eq!(shape, v03::CardShape::V03);
    assert_eq!(card.value.capabilities.legacy_state_transition_history(), Some(true));
    assert_eq!(loss_paths(&card), ["protocolVersion"]);
}

#[test]
fn any_card_errors_name_the_path_of_the_shape_it_was_taken_for() {
    let err = v03::read_any_card(br#"{"name":"a","url":"https://a","capabilities":{"pushNotifications":1}}"#)
        .unwrap_err();
    assert_eq!(err.to_string(), "capabilities.pushNotifications: expected a boolean, found an integer");
    let err = v03::read_any_card(b"[1]").unwrap_err();
    assert_eq!(err.kind(), parse::ParseErrorKind::Shape);
    let err =
        v03::read_any_card_with(b"{}", parse::ParseOptions::default().max_document_bytes(1)).unwrap_err();
    assert_eq!(err.kind(), parse::ParseErrorKind::TooLarge);
}

// ---------------------------------------------------------------------------------------------------
// Properties over generated 0.3 stream results
// ---------------------------------------------------------------------------------------------------

mod props {
    use a2a_types::v03::{
        Artifact, DataPart, FileContent, FilePart, FileSource, Message, Part, Role, StreamResult, Task,
        TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent, TextPart,
    };
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    fn id() -> impl Strategy<Value = String> {
        "[a-z0-9-]{1,8}"
    }

    fn metadata() -> impl Strategy<Value = Option<Map<String, Value>>> {
        prop::option::of(
            prop::collection::btree_map("[a-z]{1,4}", any::<i32>(), 0..3).prop_map(|m| {
                m.into_iter().map(|(k, v)| (k, Value::from(v))).collect::<Map<String, Value>>()
            }),
        )
    }

    fn part() -> impl Strategy<Value = Part> {
        let text =
            (".{0,12}", metadata()).prop_map(|(text, metadata)| Part::Text(TextPart { text, metadata }));
        let source = prop_oneof![
            prop::collection::vec(any::<u8>(), 0..16).prop_map(FileSource::Bytes),
            "https://[a-z]{1,6}\\.example/[a-z]{0,6}".prop_map(FileSource::Uri),
        ];
        let file = (
            source,
            prop::option::of("[a-z]+/[a-z]+"),
            prop::option::of("[a-z]{1,6}\\.[a-z]{2,3}"),
            metadata(),
        )
            .prop_map(|(source, mime_type, name, metadata)| {
                Part::File(FilePart { file: FileContent { source, mime_type, name }, metadata })
            });
        let data = (metadata(), metadata())
            .prop_map(|(data, metadata)| Part::Data(DataPart { data: data.unwrap_or_default(), metadata }));
        prop_oneof![text, file, data]
    }

    fn message() -> impl Strategy<Value = Message> {
        (
            id(),
            prop::option::of(id()),
            prop::option::of(id()),
            prop_oneof![Just(Role::User), Just(Role::Agent)],
            prop::collection::vec(part(), 1..3),
            metadata(),
            prop::collection::vec("https://ext\\.example/[a-z]{1,4}", 0..2),
            prop::collection::vec(id(), 0..2),
        )
            .prop_map(
                |(message_id, context_id, task_id, role, parts, metadata, extensions, refs)| Message {
                    message_id: message_id.into(),
                    context_id: context_id.map(Into::into),
                    task_id: task_id.map(Into::into),
                    role,
                    parts,
                    metadata,
                    extensions,
                    reference_task_ids: refs.into_iter().map(Into::into).collect(),
                },
            )
    }

    fn state() -> impl Strategy<Value = TaskState> {
        prop::sample::select(vec![
            TaskState::Submitted,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::Completed,
            TaskState::Canceled,
            TaskState::Failed,
            TaskState::Rejected,
            TaskState::AuthRequired,
            TaskState::Unknown,
        ])
    }

    fn status() -> impl Strategy<Value = TaskStatus> {
        (
            state(),
            prop::option::of(message()),
            prop::option::of(Just("2026-11-29T20:03:15.579653Z".to_owned())),
        )
            .prop_map(|(state, message, timestamp)| TaskStatus { state, message, timestamp })
    }

    fn artifact() -> impl Strategy<Value = Artifact> {
        (
            id(),
            prop::option::of("[a-z ]{1,8}"),
            prop::option::of("[a-z ]{1,8}"),
            prop::collection::vec(part(), 1..3),
            metadata(),
        )
            .prop_map(|(artifact_id, name, description, parts, metadata)| Artifact {
                artifact_id: artifact_id.into(),
                name,
                description,
                parts,
                metadata,
                extensions: Vec::new(),
            })
    }

    fn stream_result() -> impl Strategy<Value = StreamResult> {
        let task = (
            id(),
            id(),
            status(),
            prop::collection::vec(artifact(), 0..2),
            prop::collection::vec(message(), 0..2),
            metadata(),
        )
            .prop_map(|(id, context_id, status, artifacts, history, metadata)| {
                StreamResult::Task(Task {
                    id: id.into(),
                    context_id: context_id.into(),
                    status,
                    artifacts,
                    history,
                    metadata,
                })
            });
        let status_update =
            (id(), id(), status(), metadata()).prop_map(|(task_id, context_id, status, metadata)| {
                let is_final = status.state.ends_stream();
                StreamResult::StatusUpdate(TaskStatusUpdateEvent {
                    task_id: task_id.into(),
                    context_id: context_id.into(),
                    status,
                    is_final,
                    metadata,
                })
            });
        let artifact_update = (id(), id(), artifact(), any::<bool>(), any::<bool>(), metadata()).prop_map(
            |(task_id, context_id, artifact, append, last_chunk, metadata)| {
                StreamResult::ArtifactUpdate(TaskArtifactUpdateEvent {
                    task_id: task_id.into(),
                    context_id: context_id.into(),
                    artifact,
                    append,
                    last_chunk,
                    metadata,
                })
            },
        );
        prop_oneof![task, message().prop_map(StreamResult::Message), status_update, artifact_update]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn v03_stream_results_write_and_read_back_equal(result in stream_result()) {
            let json = serde_json::to_string(&result).unwrap();
            let back: StreamResult = a2a_types::parse::from_str(&json).unwrap();
            prop_assert_eq!(back, result);
        }

        #[test]
        fn v03_stream_results_convert_to_v1_and_back_without_loss(result in stream_result()) {
            let v1 = result.to_v1();
            prop_assert!(v1.is_lossless(), "{:?}", v1.losses);
            // The 1.0 value survives 1.0 JSON, so nothing hides in a field 1.0 does not write.
            let json = serde_json::to_string(&v1.value).unwrap();
            let reread: a2a_types::StreamResponse = a2a_types::parse::from_str(&json).unwrap();
            let back = StreamResult::from_v1(&reread);
            prop_assert!(back.is_lossless(), "{:?}", back.losses);
            prop_assert_eq!(back.value, result);
        }

        #[test]
        fn final_disagreeing_with_the_state_is_always_reported(status in status(), is_final in any::<bool>()) {
            let event = TaskStatusUpdateEvent {
                task_id: "t".into(),
                context_id: "c".into(),
                is_final,
                status,
                metadata: None,
            };
            let converted = event.to_v1();
            let final_losses = converted.losses.iter().filter(|l| l.path == "final").count();
            prop_assert_eq!(final_losses, usize::from(is_final != event.status.state.ends_stream()));
        }
    }
}

#[test]
fn member_of_another_kind_is_read_with_that_kinds_type_to_keep_exact_paths() {
    let task = r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"taskId":7}"#;
    assert_eq!(error::<v03::Task>(task).path(), "taskId");
    let task = r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"taskId":"t"}"#;
    assert!(to_json(&read::<v03::Task>(task)).get("taskId").is_none(), "well-typed, it is ignored");
}

#[test]
fn empty_supported_interfaces_beside_a_0_3_url_reads_as_0_3_like_discovery() {
    use a2a_types::v03::{CardShape, read_any_card};
    let card = br#"{"name":"n","description":"d","version":"1","url":"http://a/rpc","protocolVersion":"0.3.0",
        "supportedInterfaces":[],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}"#;
    let (shape, converted) = read_any_card(card).unwrap();
    assert_eq!(shape, CardShape::V03);
    assert_eq!(converted.value.supported_interfaces[0].url, "http://a/rpc");
    let offered = a2a_types::discovery::offered_interfaces(&serde_json::from_slice(card).unwrap()).unwrap();
    assert_eq!(offered[0].url, "http://a/rpc");
}
