//! Bad input is refused with an error that says what was wrong and where; nothing panics.

use a2a_typestate_types::error::{JsonRpcError, RestErrorBody};
use a2a_typestate_types::jsonrpc::{JsonRpcErrorResponse, JsonRpcId, JsonRpcRequest, JsonRpcResponse};
use a2a_typestate_types::parse::{self, ParseError, ParseErrorKind, ParseOptions};
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, Message, Part,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
    TaskPushNotificationConfig, discovery, v03,
};
use proptest::prelude::*;
use serde_json::Value;

fn shape_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> ParseError {
    let err = parse::from_str::<T>(json).expect_err("input must be refused");
    assert_eq!(err.kind(), ParseErrorKind::Shape, "{err}");
    err
}

#[test]
fn part_with_no_content_member_is_refused_naming_the_part() {
    let err = shape_error::<Message>(
        r#"{"messageId":"m","role":"ROLE_USER","parts":[{"text":"ok"},{"mediaType":"text/plain"}]}"#,
    );
    assert_eq!(
        err.to_string(),
        "parts[1]: oneof content must have exactly one of text, raw, url, data; found none"
    );
}

#[test]
fn part_with_two_content_members_is_refused_naming_both() {
    let err = shape_error::<Message>(r#"{"messageId":"m","parts":[{"text":"a","url":"https://x"}]}"#);
    assert_eq!(err.path(), "parts[0]");
    assert!(err.message().ends_with("found text and url"), "{err}");
}

#[test]
fn part_data_null_counts_as_a_member() {
    let err = shape_error::<Part>(r#"{"text":"a","data":null}"#);
    assert!(err.message().ends_with("found text and data"), "{err}");
    let part: Part = parse::from_str(r#"{"data":null}"#).unwrap();
    assert_eq!(part, Part::data(Value::Null));
}

#[test]
fn stream_response_with_no_member_is_refused() {
    let err = shape_error::<StreamResponse>(r#"{"kind":"status-update"}"#);
    assert_eq!(
        err.to_string(),
        "document: oneof payload must have exactly one of task, message, statusUpdate, artifactUpdate; found none"
    );
}

#[test]
fn stream_response_with_two_members_is_refused() {
    let err = shape_error::<StreamResponse>(
        r#"{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"statusUpdate":{"taskId":"t"}}"#,
    );
    assert!(err.message().ends_with("found task and statusUpdate"), "{err}");
}

#[test]
fn stream_response_member_written_null_is_absent_and_unknown_members_are_ignored() {
    let event: StreamResponse = a2a_typestate_types::parse::from_str(
        r#"{"task":null,"future":{"x":1},"status_update":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}"#,
    )
    .unwrap();
    assert_eq!((event.kind(), event.task_id().map(|id| id.as_str())), ("statusUpdate", Some("t")));

    let err = shape_error::<StreamResponse>(r#"{"task":null,"message":null}"#);
    assert!(err.message().ends_with("found none"), "{err}");
}

#[test]
fn send_message_response_with_two_members_is_refused_at_its_path_in_the_envelope() {
    let err = shape_error::<JsonRpcResponse<SendMessageResponse>>(
        r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"},"message":{"messageId":"m"}}}"#,
    );
    assert_eq!(err.path(), "result");
    assert!(err.message().ends_with("found task and message"), "{err}");
}

#[test]
fn wrong_type_names_the_path_and_what_was_expected() {
    let err = shape_error::<Task>(r#"{"id":"t","status":{"state":true}}"#);
    assert_eq!(err.path(), "status.state");
    assert!(err.message().starts_with("expected a TaskState name"), "{err}");

    let err = shape_error::<Message>(r#"{"messageId":"m","parts":[{"text":5}]}"#);
    assert_eq!(err.to_string(), "parts[0].text: expected a string, found an integer");

    let err = shape_error::<Task>(r#"{"id":"t","history":[{"messageId":"m","parts":{}}]}"#);
    assert_eq!(err.path(), "history[0].parts");
}

#[test]
fn wrong_type_deep_in_a_jsonrpc_result_keeps_the_full_path() {
    let err = shape_error::<JsonRpcResponse<SendMessageResponse>>(
        r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"id":"t","artifacts":[{"artifactId":"a","parts":[{"url":[]}]}]}}}"#,
    );
    assert_eq!(err.path(), "result.task.artifacts[0].parts[0].url");
}

#[test]
fn bad_part_in_a_jsonrpc_request_is_refused_at_its_path_in_params() {
    let err = shape_error::<JsonRpcRequest<SendMessageRequest>>(
        r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{}]}}}"#,
    );
    assert_eq!(err.path(), "params.message.parts[0]");
    assert!(err.message().ends_with("found none"), "{err}");
}

#[test]
fn bad_base64_is_refused_at_the_raw_field() {
    let err = shape_error::<Message>(r#"{"messageId":"m","parts":[{"raw":"not base64!"}]}"#);
    assert_eq!(err.path(), "parts[0].raw");
    assert!(err.message().contains("not base64"), "{err}");
}

#[test]
fn base64_in_any_alphabet_is_read() {
    for text in ["+/+/", "-_-_", "aGk=", "aGk"] {
        let part: Part = parse::from_str(&format!(r#"{{"raw":"{text}"}}"#)).unwrap();
        assert!(matches!(part.content, a2a_typestate_types::PartContent::Raw(_)), "{text}");
    }
}

#[test]
fn unknown_enum_name_is_refused_naming_the_enum() {
    // The 0.3 spelling is not a 1.0 name.
    let err = shape_error::<Task>(r#"{"id":"t","status":{"state":"completed"}}"#);
    assert_eq!(err.path(), "status.state");
    assert!(err.message().contains("unknown TaskState \"completed\""), "{err}");

    let err = shape_error::<Message>(r#"{"messageId":"m","role":"user"}"#);
    assert_eq!(err.path(), "role");
    assert!(err.message().contains("unknown Role \"user\""), "{err}");
}

#[test]
fn int32_out_of_range_is_refused() {
    let err = shape_error::<GetTaskRequest>(r#"{"id":"t","historyLength":3000000000}"#);
    assert_eq!(err.path(), "historyLength");
    assert!(err.message().contains("32-bit integer"), "{err}");

    let err = shape_error::<ListTasksRequest>(r#"{"pageSize":"many"}"#);
    assert_eq!(err.path(), "pageSize");
}

#[test]
fn int32_as_a_decimal_string_is_read() {
    let request: ListTasksRequest = parse::from_str(r#"{"pageSize":"10","historyLength":2}"#).unwrap();
    assert_eq!((request.page_size, request.history_length), (Some(10), Some(2)));
}

#[test]
fn oversize_document_is_refused_before_parsing() {
    let mut task = Task::new("t", a2a_typestate_types::TaskState::Working);
    task.history =
        (0..200).map(|i| Message::user("x".repeat(100)).with_message_id(format!("m{i}"))).collect();
    let json = serde_json::to_string(&task).unwrap();
    let err =
        parse::from_str_with::<Task>(&json, ParseOptions::default().max_document_bytes(1024)).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::TooLarge);
    assert!(parse::from_str::<Task>(&json).is_ok());
}

#[test]
fn default_limit_is_the_documented_8_mib_and_applies_without_options() {
    assert_eq!(parse::DEFAULT_MAX_DOCUMENT_BYTES, 8 * 1024 * 1024);
    assert_eq!(ParseOptions::default().document_limit(), parse::DEFAULT_MAX_DOCUMENT_BYTES);
    // One byte over the default, and not even JSON: refused for its size, so before parsing.
    let oversize = vec![b'{'; parse::DEFAULT_MAX_DOCUMENT_BYTES + 1];
    assert_eq!(parse::from_slice::<Task>(&oversize).unwrap_err().kind(), ParseErrorKind::TooLarge);
    assert_eq!(v03::read_any_card(&oversize).unwrap_err().kind(), ParseErrorKind::TooLarge);
    let err = discovery::offered_interfaces_from_slice(&oversize).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::TooLarge);
    assert!(err.to_string().contains("over the limit of 8388608 bytes"), "{err}");
    // At the limit it is parsed (and refused for what it is).
    let at_limit = &oversize[..parse::DEFAULT_MAX_DOCUMENT_BYTES];
    assert_eq!(parse::from_slice::<Task>(at_limit).unwrap_err().kind(), ParseErrorKind::Syntax);
}

#[test]
fn deeply_nested_input_is_an_error_not_a_stack_overflow() {
    // Metadata is kept as its text: a truncated nesting is an error where it breaks off...
    let deep = format!("{{\"metadata\":{{\"a\":{}", "[".repeat(100_000));
    let err = parse::from_str::<Task>(&deep).unwrap_err();
    assert!(err.path().starts_with("metadata.a"), "{err}");
    // ...a whole one is kept unparsed, and parsing it on demand meets the recursion limit.
    let whole = format!("{{\"metadata\":{{\"a\":{}{}}}}}", "[".repeat(100_000), "]".repeat(100_000));
    let task = parse::from_str::<Task>(&whole).unwrap();
    let metadata = task.metadata.unwrap();
    assert_eq!(metadata.get("a").map(|text| text.get().len()), Some(200_000));
    let err = serde_json::from_str::<serde_json::Value>(metadata.get("a").unwrap().get()).unwrap_err();
    assert!(err.to_string().contains("recursion limit exceeded"), "{err}");
    // A member that is parsed into a `Value` (a security scheme's parameters) meets the limit too.
    let card = format!("{{\"capabilities\":{{\"x\":{}", "[".repeat(100_000));
    assert!(v03::read_any_card(card.as_bytes()).is_err());
}

#[test]
fn wrong_jsonrpc_version_is_refused() {
    let err = shape_error::<JsonRpcRequest<Value>>(r#"{"jsonrpc":"1.0","id":1,"method":"GetTask"}"#);
    assert_eq!(err.to_string(), "jsonrpc: expected \"2.0\", found \"1.0\"");
}

#[test]
fn fractional_jsonrpc_id_is_refused() {
    let err = shape_error::<JsonRpcRequest<Value>>(r#"{"jsonrpc":"2.0","id":1.5,"method":"GetTask"}"#);
    assert_eq!(err.path(), "id");
}

#[test]
fn jsonrpc_error_with_null_id_is_read() {
    let response: JsonRpcErrorResponse =
        parse::from_str(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
            .unwrap();
    assert_eq!(response.id, JsonRpcId::Null);
}

#[test]
fn empty_defaults_sent_by_real_servers_read_as_unset() {
    let message: Message = parse::from_str(
        r#"{"messageId":"m","contextId":"","taskId":"","parts":[{"text":"t","filename":"","mediaType":""}],"extensions":[],"referenceTaskIds":[]}"#,
    )
    .unwrap();
    assert_eq!(message.context_id, None);
    assert_eq!(message.task_id, None);
    assert_eq!(message.parts[0].filename, None);
    assert_eq!(message.parts[0].media_type, None);
}

#[test]
fn null_fields_read_as_their_default() {
    let task: Task = parse::from_str(
        r#"{"id":"t","contextId":null,"status":null,"artifacts":null,"history":null,"metadata":null}"#,
    )
    .unwrap();
    assert_eq!(task, Task::new("t", a2a_typestate_types::TaskState::Unspecified));
}

#[test]
fn unknown_fields_are_ignored() {
    let task: Task =
        parse::from_str(r#"{"id":"t","kind":"task","createdAt":"2026","status":{"state":2,"x":1}}"#).unwrap();
    assert_eq!(task.state(), a2a_typestate_types::TaskState::Working);
}

/// Parses `bytes` into every top-level type of both versions, converts whatever parses to the other
/// version and back, and asks discovery about it; only the absence of a panic is checked.
fn parse_into_every_type(bytes: &[u8]) {
    fn attempt<T: serde::de::DeserializeOwned>(bytes: &[u8]) {
        let _ = parse::from_slice::<T>(bytes);
    }
    /// Parses a 0.3 value and converts it to 1.0, then the 1.0 value back to 0.3.
    macro_rules! convert_both_ways {
        ($($v03:ident),*) => {$(
            if let Ok(value) = parse::from_slice::<v03::$v03>(bytes) {
                let _ = v03::$v03::from_v1(&value.to_v1().value);
            }
        )*};
    }
    convert_both_ways!(
        AgentCard,
        Task,
        TaskStatus,
        Message,
        Part,
        Artifact,
        TaskStatusUpdateEvent,
        StreamResult,
        SendMessageResult,
        PushNotificationConfig,
        MessageSendParams,
        TaskQueryParams,
        TaskIdParams
    );
    attempt::<v03::TaskArtifactUpdateEvent>(bytes);
    attempt::<v03::TaskPushNotificationConfig>(bytes);
    attempt::<JsonRpcRequest<v03::MessageSendParams>>(bytes);
    attempt::<JsonRpcResponse<v03::StreamResult>>(bytes);
    if let Ok((_, card)) = v03::read_any_card(bytes) {
        let _ = v03::AgentCard::from_v1(&card.value);
    }
    if let Ok(offered) = discovery::offered_interfaces_from_slice(bytes) {
        let _ = discovery::select_interface(
            &offered,
            &[discovery::ProtocolVersion::V1_0, discovery::ProtocolVersion::V0_3],
            &[discovery::ProtocolBinding::JsonRpc, discovery::ProtocolBinding::HttpJson],
        );
    }
    if let Ok(card) = parse::from_slice::<a2a_typestate_types::AgentCard>(bytes) {
        let _ = v03::AgentCard::from_v1(&card).value.to_v1();
    }
    attempt::<Task>(bytes);
    attempt::<Message>(bytes);
    attempt::<Part>(bytes);
    attempt::<StreamResponse>(bytes);
    attempt::<SendMessageResponse>(bytes);
    attempt::<SendMessageRequest>(bytes);
    attempt::<ListTasksRequest>(bytes);
    attempt::<ListTasksResponse>(bytes);
    attempt::<GetTaskRequest>(bytes);
    attempt::<TaskPushNotificationConfig>(bytes);
    attempt::<ListTaskPushNotificationConfigsResponse>(bytes);
    attempt::<CancelTaskRequest>(bytes);
    attempt::<SubscribeToTaskRequest>(bytes);
    attempt::<GetTaskPushNotificationConfigRequest>(bytes);
    attempt::<DeleteTaskPushNotificationConfigRequest>(bytes);
    attempt::<ListTaskPushNotificationConfigsRequest>(bytes);
    attempt::<GetExtendedAgentCardRequest>(bytes);
    attempt::<JsonRpcRequest<SendMessageRequest>>(bytes);
    attempt::<JsonRpcRequest<Value>>(bytes);
    attempt::<JsonRpcResponse<StreamResponse>>(bytes);
    attempt::<JsonRpcResponse<Task>>(bytes);
    attempt::<JsonRpcErrorResponse>(bytes);
    attempt::<JsonRpcError>(bytes);
    attempt::<RestErrorBody>(bytes);
    attempt::<a2a_typestate_types::AgentCard>(bytes);
    if let Ok(error) = parse::from_slice::<JsonRpcError>(bytes) {
        let _ = (error.error_infos(), error.reason(), error.a2a_code());
    }
}

/// JSON-looking garbage: random values under the field names the types know, so parsing gets past
/// the first byte and into the nested readers.
fn json_garbage() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("id"),
        Just("task"),
        Just("message"),
        Just("statusUpdate"),
        Just("status"),
        Just("state"),
        Just("parts"),
        Just("text"),
        Just("raw"),
        Just("data"),
        Just("url"),
        Just("result"),
        Just("error"),
        Just("code"),
        Just("jsonrpc"),
        Just("history"),
        Just("artifacts"),
        Just("historyLength"),
        // 0.3 and card names, so the 0.3 readers, the conversions and discovery are reached too.
        Just("kind"),
        Just("final"),
        Just("file"),
        Just("bytes"),
        Just("uri"),
        Just("contextId"),
        Just("capabilities"),
        Just("supportedInterfaces"),
        Just("additionalInterfaces"),
        Just("preferredTransport"),
        Just("protocolVersion"),
        Just("protocolBinding"),
        Just("transport"),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
        Just(Value::from("TASK_STATE_WORKING")),
        Just(Value::from("2.0")),
        Just(Value::from("task")),
        Just(Value::from("status-update")),
        Just(Value::from("file")),
        Just(Value::from("working")),
        Just(Value::from("JSONRPC")),
        Just(Value::from("0.3.0")),
    ];
    leaf.prop_recursive(4, 32, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(keys.clone(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        parse_into_every_type(&bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,256}") {
        parse_into_every_type(text.as_bytes());
    }

    #[test]
    fn arbitrary_json_never_panics(value in json_garbage()) {
        parse_into_every_type(value.to_string().as_bytes());
    }
}
