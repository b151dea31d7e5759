//! The A2A 0.3 wire shapes: reading and writing the transcript's 0.3 bodies, bad input, and cards of
//! either shape. Conversion to and from 1.0 is in `v03_convert.rs` and `v03_card_convert.rs`, the
//! properties over generated values in `v03_props.rs`.

mod common;

use a2a_typestate_types::jsonrpc::JsonRpcSuccess;
use a2a_typestate_types::{parse, v03};
use common::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

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
    let card: v03::AgentCard = read(&transcript(MERGED_CARD));
    assert_eq!(card.url, "http://127.0.0.1:41105/a2a/jsonrpc");
    assert_eq!(card.protocol_version.as_deref(), Some("0.3"));
    assert!(card.extra.contains_key("supportedInterfaces"));
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
    assert_eq!(card.extra.value("x-vendor"), Some(json!({"tier": "gold"})));
    assert_eq!(card.capabilities.extra.value("vendorHint"), Some(json!({"pollSeconds": 5})));
}

// ---------------------------------------------------------------------------------------------------
// Reading a card of either shape
// ---------------------------------------------------------------------------------------------------

#[test]
fn any_card_with_supported_interfaces_is_read_as_v1_even_when_merged_with_0_3_fields() {
    let (shape, card) = v03::read_any_card(transcript(MERGED_CARD).as_bytes()).unwrap();
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

#[test]
fn member_of_another_kind_is_read_with_that_kinds_type_to_keep_exact_paths() {
    let task = r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"taskId":7}"#;
    assert_eq!(error::<v03::Task>(task).path(), "taskId");
    let task = r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"taskId":"t"}"#;
    assert!(to_json(&read::<v03::Task>(task)).get("taskId").is_none(), "well-typed, it is ignored");
}

#[test]
fn empty_supported_interfaces_beside_a_0_3_url_reads_as_0_3_like_discovery() {
    use a2a_typestate_types::v03::{CardShape, read_any_card};
    let card = br#"{"name":"n","description":"d","version":"1","url":"http://a/rpc","protocolVersion":"0.3.0",
        "supportedInterfaces":[],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}"#;
    let (shape, converted) = read_any_card(card).unwrap();
    assert_eq!(shape, CardShape::V03);
    assert_eq!(converted.value.supported_interfaces[0].url, "http://a/rpc");
    let offered =
        a2a_typestate_types::discovery::offered_interfaces(&serde_json::from_slice(card).unwrap()).unwrap();
    assert_eq!(offered[0].url, "http://a/rpc");
}
