//! Every JSON body recorded from the official SDK servers (wire-transcripts-a2a-sdk-1.3.0.md) parses
//! into its type and serializes back to the same JSON, apart from fields holding their default value.
//!
//! The bodies live in `tests/fixtures/<kind>/<name>.json` (written by `tests/fixtures/extract.py`);
//! `<kind>` says which type to parse. The walker covers new files without new code, and fails on a
//! folder whose kind it does not know.

use std::fs;
use std::path::{Path, PathBuf};

use a2a_typestate_types::error::{A2aErrorCode, JsonRpcError, RestErrorBody};
use a2a_typestate_types::jsonrpc::{JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse};
use a2a_typestate_types::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, parse,
    v03,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Kinds whose Rust type is not written yet: their files must still be JSON, but are not
/// round-tripped. Empty now that the 0.3 types exist; kept so a future kind can wait here visibly.
const PENDING_KINDS: &[&str] = &[];

type Check = fn(&str) -> Result<(), String>;

/// The type each kind of fixture is read as.
fn check_for(kind: &str) -> Option<Check> {
    Some(match kind {
        "agent-card" => round_trip::<AgentCard>,
        "jsonrpc-request-SendMessage" | "jsonrpc-request-SendStreamingMessage" => {
            round_trip::<JsonRpcRequest<SendMessageRequest>>
        }
        "jsonrpc-request-GetTask" => round_trip::<JsonRpcRequest<GetTaskRequest>>,
        "jsonrpc-request-ListTasks" => round_trip::<JsonRpcRequest<ListTasksRequest>>,
        "jsonrpc-request-CancelTask" => round_trip::<JsonRpcRequest<CancelTaskRequest>>,
        "jsonrpc-request-SubscribeToTask" => round_trip::<JsonRpcRequest<SubscribeToTaskRequest>>,
        "jsonrpc-request-CreateTaskPushNotificationConfig" => {
            round_trip::<JsonRpcRequest<TaskPushNotificationConfig>>
        }
        "jsonrpc-request-GetTaskPushNotificationConfig" => {
            round_trip::<JsonRpcRequest<GetTaskPushNotificationConfigRequest>>
        }
        "jsonrpc-request-DeleteTaskPushNotificationConfig" => {
            round_trip::<JsonRpcRequest<DeleteTaskPushNotificationConfigRequest>>
        }
        "jsonrpc-request-ListTaskPushNotificationConfigs" => {
            round_trip::<JsonRpcRequest<ListTaskPushNotificationConfigsRequest>>
        }
        "jsonrpc-request-GetExtendedAgentCard" => round_trip::<JsonRpcRequest<GetExtendedAgentCardRequest>>,
        "jsonrpc-request-unknown-method" => round_trip::<JsonRpcRequest<Value>>,
        "jsonrpc-response-SendMessage" => round_trip::<JsonRpcResponse<SendMessageResponse>>,
        "jsonrpc-response-SendStreamingMessage"
        | "jsonrpc-response-SubscribeToTask"
        | "jsonrpc-stream-response" => round_trip::<JsonRpcResponse<StreamResponse>>,
        "jsonrpc-response-GetTask" | "jsonrpc-response-CancelTask" => round_trip::<JsonRpcResponse<Task>>,
        "jsonrpc-response-ListTasks" => round_trip::<JsonRpcResponse<ListTasksResponse>>,
        "jsonrpc-response-CreateTaskPushNotificationConfig"
        | "jsonrpc-response-GetTaskPushNotificationConfig" => {
            round_trip::<JsonRpcResponse<TaskPushNotificationConfig>>
        }
        "jsonrpc-response-ListTaskPushNotificationConfigs" => {
            round_trip::<JsonRpcResponse<ListTaskPushNotificationConfigsResponse>>
        }
        "jsonrpc-response-DeleteTaskPushNotificationConfig" => round_trip::<JsonRpcResponse<Value>>,
        "jsonrpc-response-GetExtendedAgentCard" => round_trip::<JsonRpcResponse<AgentCard>>,
        "jsonrpc-error-response" => round_trip::<JsonRpcErrorResponse>,
        "rest-SendMessageRequest" => round_trip::<SendMessageRequest>,
        "rest-SendMessageResponse" => round_trip::<SendMessageResponse>,
        "rest-Task" => round_trip::<Task>,
        "rest-error" => round_trip::<RestErrorBody>,
        "stream-response" => round_trip::<StreamResponse>,
        "v03-jsonrpc-request-message-send" | "v03-jsonrpc-request-message-stream" => {
            round_trip::<JsonRpcRequest<v03::MessageSendParams>>
        }
        "v03-jsonrpc-response-message-send" => round_trip::<JsonRpcResponse<v03::SendMessageResult>>,
        "v03-jsonrpc-stream-response" => round_trip::<JsonRpcResponse<v03::StreamResult>>,
        _ => return None,
    })
}

/// Parses `text` as `T`, writes it back, and compares both after dropping default-valued fields.
fn round_trip<T: DeserializeOwned + Serialize>(text: &str) -> Result<(), String> {
    let parsed: T = parse::from_str(text).map_err(|e| format!("does not parse: {e}"))?;
    let written = serde_json::to_value(&parsed).map_err(|e| format!("does not serialize: {e}"))?;
    let original: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let (original, written) = (strip_defaults(original), strip_defaults(written));
    if original == written {
        Ok(())
    } else {
        Err(format!("round trip differs\n  original: {original}\n  written:  {written}"))
    }
}

/// Removes the fields ProtoJSON leaves out when they hold their default: `""`, `false`, `0`, `[]`,
/// `null`, and `{}` for proto `map` fields ([`MAP_FIELDS`]). Values of `metadata` (a
/// `google.protobuf.Struct`) and `data` (a `google.protobuf.Value` in a part, raw JSON in a JSON-RPC
/// error) are user data, where nothing is a default: they are kept as they are. Other empty objects
/// are kept: a message-typed field that is set but empty is present.
fn strip_defaults(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter_map(|(key, value)| {
                    if key == "metadata" || key == "data" {
                        return Some((key, value));
                    }
                    let value = strip_defaults(value);
                    let empty_map =
                        MAP_FIELDS.contains(&key.as_str()) && value == Value::Object(Default::default());
                    (!is_proto_default(&value) && !empty_map).then_some((key, value))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_defaults).collect()),
        other => other,
    }
}

/// The JSON names of the proto `map<..>` fields that appear in these documents.
const MAP_FIELDS: &[&str] = &["securitySchemes", "schemes", "scopes"];

fn is_proto_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(_) => false,
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

/// Every `(kind, file)` under the fixtures folder, sorted.
fn fixtures() -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for dir in fs::read_dir(fixtures_root()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let kind = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                found.push((kind.clone(), file));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_recorded_body_round_trips_through_its_type() {
    let all = fixtures();
    assert!(all.len() >= 110, "expected every transcript body, found {} fixtures", all.len());
    let mut failures = Vec::new();
    let mut pending = 0;
    for (kind, file) in &all {
        let text = fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(fixtures_root()).unwrap().display();
        if PENDING_KINDS.contains(&kind.as_str()) {
            pending += 1;
            if let Err(e) = serde_json::from_str::<Value>(&text) {
                failures.push(format!("{name}: not JSON: {e}"));
            }
            continue;
        }
        match check_for(kind) {
            None => failures.push(format!("{name}: unknown fixture kind `{kind}`; map it in check_for")),
            Some(check) => {
                if let Err(e) = check(&text) {
                    failures.push(format!("{name}: {e}"));
                }
            }
        }
    }
    if pending > 0 {
        eprintln!("{pending} fixtures of pending kinds were only checked to be JSON: {PENDING_KINDS:?}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn recorded_a2a_errors_carry_the_reason_of_their_code() {
    let mut checked = 0;
    for (kind, file) in fixtures() {
        let text = fs::read_to_string(&file).unwrap();
        let error: Option<JsonRpcError> = if kind == "rest-error" {
            let body: RestErrorBody = parse::from_str(&text).unwrap();
            let code = body.error.a2a_code().expect("REST A2A errors are identified by their reason");
            assert_eq!(code.reason(), body.error.reason().as_deref(), "{}", file.display());
            checked += 1;
            None
        } else if kind.starts_with("jsonrpc-response-") || kind == "jsonrpc-error-response" {
            match parse::from_str::<JsonRpcResponse<Value>>(&text).unwrap() {
                JsonRpcResponse::Error(response) => Some(response.error),
                JsonRpcResponse::Success(_) => None,
            }
        } else {
            None
        };
        let Some(error) = error else { continue };
        checked += 1;
        if error.code.is_a2a() {
            assert_eq!(error.reason().as_deref(), error.code.reason(), "{}", file.display());
            assert_eq!(error.a2a_code(), Some(error.code));
        } else {
            assert_eq!(error.code, A2aErrorCode::MethodNotFound, "{}", file.display());
            assert_eq!(error.reason(), None);
        }
    }
    assert!(checked >= 10, "expected the recorded errors, checked {checked}");
}

#[test]
fn recorded_clarify_stream_reads_as_submitted_working_input_required() {
    let dir = fixtures_root().join("jsonrpc-stream-response");
    let states: Vec<_> = (1..=3)
        .map(|n| {
            let file = dir.join(format!(
                "s03-sendstreamingmessage-please-clarify-submitted-working-input-event-{n}.json"
            ));
            let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let event =
                parse::from_str::<JsonRpcResponse<StreamResponse>>(&text).unwrap().into_result().unwrap();
            event.state()
        })
        .collect();
    use a2a_typestate_types::TaskState::{InputRequired, Submitted, Working};
    assert_eq!(states, [Some(Submitted), Some(Working), Some(InputRequired)]);
}

#[test]
fn strip_defaults_drops_only_what_protojson_omits() {
    let value = serde_json::json!({
        "a": "", "b": false, "c": 0, "d": [], "e": null, "f": {}, "securitySchemes": {},
        "keep": "x", "on": true, "n": 2,
        "metadata": {"empty": "", "off": false},
        "data": [{"zero": 0}],
        "nested": [{"g": "", "h": "y"}]
    });
    assert_eq!(
        strip_defaults(value),
        serde_json::json!({
            "f": {}, "keep": "x", "on": true, "n": 2,
            "metadata": {"empty": "", "off": false},
            "data": [{"zero": 0}],
            "nested": [{"h": "y"}]
        })
    );
}
