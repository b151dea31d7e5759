//! The one place where the gRPC binding's protobuf messages meet the `a2a-types` model.
//!
//! The model's JSON is ProtoJSON, the proto3 JSON mapping of the same `a2a.proto` messages; the
//! generated messages carry that mapping too (`a2a-proto`, through pbjson). So a request goes
//! model → ProtoJSON text → protobuf message, and an answer protobuf message → ProtoJSON text →
//! model, with the model's own reader (and its JSON paths in errors) on the way in. So nothing can
//! drift from the proto: a field the proto gains is carried as soon as both sides know it. The text
//! is never built into a JSON value: a value's map and strings cost more than the text they come
//! from (BENCHMARKS.md figure 11).
//!
//! The messages nearly every call carries (a `SendMessage` request and answer, a task, a stream
//! event) skip the text: [`direct`] moves them field by field, to the same model.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Error;

pub(crate) mod direct;

/// The protobuf message `P` for a request's ProtoJSON text (`what` names it in an error). The text
/// is written once per call and read once per attempt.
pub(crate) fn to_proto<P: DeserializeOwned>(what: &'static str, json: &[u8]) -> Result<P, Error> {
    serde_json::from_slice(json)
        .map_err(|e| Error::config(format!("{what} could not be written as its protobuf message: {e}")))
}

/// The ProtoJSON text of an answer's protobuf message, its timestamps as the other bindings write
/// them ([`utc_as_z`]); read into the model with [`read`].
pub(crate) fn from_proto<P: Serialize>(what: &'static str, message: &P) -> Result<Vec<u8>, Error> {
    let json = serde_json::to_vec(message).map_err(|e| {
        super::super::unexpected(what, format!("the protobuf answer has no ProtoJSON form: {e}"))
    })?;
    Ok(utc_as_z(json))
}

/// An answer's ProtoJSON text read as `T`; when it does not fit, read again through a JSON value so
/// the error names the path (as every binding's reading does).
pub(crate) fn read<T: DeserializeOwned>(what: &'static str, json: &[u8]) -> Result<T, Error> {
    if let Some(answer) = super::super::straight(json) {
        return Ok(answer);
    }
    let value = serde_json::from_slice(json).map_err(|e| {
        super::super::unexpected(what, format!("the protobuf answer's ProtoJSON does not read: {e}"))
    })?;
    super::super::read(what, value)
}

/// `json`, ProtoJSON text as serde_json writes it, with the UTC offset of every timestamp member
/// (`TaskStatus.timestamp`, `ListTasksRequest.statusTimestampAfter`) written `Z`: pbjson writes UTC
/// as `+00:00`, the proto3 JSON mapping (and every other binding) as `Z`.
///
/// Found from the offset back: `+00:00"` ends a string; the string opens at the last quote before
/// it that no backslash escapes (a string holds no other), and it is a timestamp member's value when
/// the name before it is `"timestamp":` or `"statusTimestampAfter":` right after `{` or `,` (those
/// bytes start a name: inside a string a quote follows a backslash).
fn utc_as_z(json: Vec<u8>) -> Vec<u8> {
    const OFFSET: &[u8] = b"+00:00\"";
    const NAMES: [&[u8]; 2] = [b"\"timestamp\":", b"\"statusTimestampAfter\":"];
    let mut written: Option<Vec<u8>> = None;
    let mut copied = 0;
    for at in memchr::memmem::find_iter(&json, OFFSET) {
        let Some(open) = opening_quote(&json[copied..at]).map(|open| copied + open) else {
            continue;
        };
        let before = &json[..open];
        let named = NAMES.iter().any(|name| {
            before.strip_suffix(*name).and_then(<[u8]>::last).is_some_and(|b| matches!(b, b'{' | b','))
        });
        if named {
            let out = written.get_or_insert_with(|| Vec::with_capacity(json.len()));
            out.extend_from_slice(&json[copied..at]);
            out.push(b'Z');
            copied = at + OFFSET.len() - 1;
        }
    }
    match written {
        Some(mut out) => {
            out.extend_from_slice(&json[copied..]);
            out
        }
        None => json,
    }
}

/// The offset in `text` of its last quote that no backslash escapes (an even run of backslashes
/// before it, none included).
fn opening_quote(text: &[u8]) -> Option<usize> {
    let mut end = text.len();
    loop {
        let quote = memchr::memrchr(b'"', &text[..end])?;
        let backslashes = text[..quote].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(quote);
        }
        end = quote;
    }
}

#[cfg(test)]
mod tests {
    //! Every message of the binding, both ways: a model value with every field set becomes the
    //! protobuf message the proto defines (checked on its fields), and comes back equal.

    use super::*;
    use a2a_proto::v1 as pb;
    use a2a_typestate_types as t;
    use serde_json::{Value, json};

    /// model → protobuf → model, equal to the start; returns the protobuf message for field checks.
    fn both_ways<M, P>(model: &M) -> P
    where
        M: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
        P: Serialize + DeserializeOwned + prost::Message + Default,
    {
        let json = serde_json::to_vec(model).unwrap();
        // Through the binary encoding too, as on the wire.
        let message: P = wire(&to_proto::<P>("test message", &json).unwrap());
        let back: M = read("test answer", &from_proto("test answer", &message).unwrap()).unwrap();
        assert_eq!(&back, model);
        message
    }

    /// The message's ProtoJSON read through a JSON value, its timestamps rewritten on the value
    /// ([`utc_as_z_on_value`]): what the text path ([`from_proto`], [`read`]) must give.
    fn through_value<P: Serialize, T: DeserializeOwned>(message: &P) -> T {
        let mut value = serde_json::to_value(message).unwrap();
        utc_as_z_on_value(&mut value);
        crate::transport::read("test answer", value).unwrap()
    }

    /// Every string member named `timestamp` or `statusTimestampAfter`, at any depth, with a
    /// `+00:00` ending written `Z`: the rule [`utc_as_z`] keeps on text, stated on a value.
    fn utc_as_z_on_value(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                for (name, field) in fields.iter_mut() {
                    match field {
                        Value::String(text)
                            if matches!(name.as_str(), "timestamp" | "statusTimestampAfter") =>
                        {
                            if let Some(stem) = text.strip_suffix("+00:00") {
                                *text = format!("{stem}Z");
                            }
                        }
                        other => utc_as_z_on_value(other),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(utc_as_z_on_value),
            _ => {}
        }
    }

    fn json_tree() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        // Names and strings that look like a timestamp member from inside a string, or end in the
        // offset after an escaped quote or backslash.
        let name = prop_oneof![
            Just("timestamp".to_owned()),
            Just("statusTimestampAfter".to_owned()),
            Just("x".to_owned()),
            Just("\"timestamp".to_owned()),
            Just("{\"timestamp\":".to_owned()),
            Just("timestamp+00:00".to_owned()),
            "[a-z\"\\\\,{:]{0,6}",
        ];
        let text = prop_oneof![
            Just("2026-01-02T03:04:05.678+00:00".to_owned()),
            Just("+00:00".to_owned()),
            Just("2026-01-02T03:04:05+05:00".to_owned()),
            Just("2026-01-02T03:04:05Z".to_owned()),
            Just(",\"timestamp\":\"+00:00".to_owned()),
            Just("\\\\+00:00".to_owned()),
            Just("\\\"+00:00".to_owned()),
            "[a-z0-9+:\"\\\\,{}]{0,12}(\\+00:00)?",
        ];
        let leaf =
            prop_oneof![text.prop_map(Value::String), any::<i32>().prop_map(Value::from), Just(Value::Null)];
        leaf.prop_recursive(4, 32, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map(name.clone(), inner, 0..5)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// The offsets rewritten on the text are the ones rewritten on the value, whatever the
        /// names and strings around them hold.
        #[test]
        fn the_offset_is_rewritten_on_text_exactly_where_it_is_on_the_value(tree in json_tree()) {
            let mut expected = tree.clone();
            utc_as_z_on_value(&mut expected);
            let text = utc_as_z(serde_json::to_vec(&tree).unwrap());
            let read: Value = serde_json::from_slice(&text).unwrap();
            proptest::prop_assert_eq!(read, expected);
        }
    }

    fn wire<P: prost::Message + Default>(message: &P) -> P {
        P::decode(message.encode_to_vec().as_slice()).unwrap()
    }

    fn message_json() -> Value {
        json!({
            "messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_AGENT",
            "parts": [
                {"text": "hello", "mediaType": "text/plain", "metadata": {"k": "v"}},
                {"raw": "aGk=", "filename": "hi.bin", "mediaType": "application/octet-stream"},
                {"url": "https://example.com/a.png", "mediaType": "image/png"},
                {"data": {"n": 1.5, "list": [true, null, "x"]}}
            ],
            "metadata": {"trace": "abc"},
            "extensions": ["https://example.com/ext"],
            "referenceTaskIds": ["t0"]
        })
    }

    fn task_json() -> Value {
        json!({
            "id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": message_json(),
                "timestamp": "2026-01-02T03:04:05.678Z"},
            "artifacts": [{"artifactId": "a1", "name": "n", "description": "d",
                "parts": [{"text": "x"}], "metadata": {"m": 1.0}, "extensions": ["e"]}],
            "history": [message_json()],
            "metadata": {"k": "v"}
        })
    }

    fn model<M: DeserializeOwned>(value: Value) -> M {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn message_and_every_part_kind_convert_both_ways() {
        let original: t::Message = model(message_json());
        let message: pb::Message = both_ways(&original);
        let message = wire(&message);
        assert_eq!(message.role, pb::Role::Agent as i32);
        assert_eq!(message.reference_task_ids, ["t0"]);
        let kinds: Vec<_> = message.parts.iter().map(|p| p.content.clone().unwrap()).collect();
        assert!(matches!(&kinds[0], pb::part::Content::Text(t) if t == "hello"));
        assert!(matches!(&kinds[1], pb::part::Content::Raw(b) if b.as_slice() == b"hi"));
        assert!(matches!(&kinds[2], pb::part::Content::Url(u) if u == "https://example.com/a.png"));
        assert!(matches!(&kinds[3], pb::part::Content::Data(_)));
        assert_eq!(message.parts[1].filename, "hi.bin");
    }

    #[test]
    fn task_with_status_artifacts_and_history_converts_both_ways() {
        let original: t::Task = model(task_json());
        let task = wire(&both_ways::<_, pb::Task>(&original));
        let status = task.status.unwrap();
        assert_eq!(status.state, pb::TaskState::InputRequired as i32);
        assert_eq!(status.timestamp.unwrap().seconds, 1_767_323_045);
        assert_eq!(task.artifacts[0].artifact_id, "a1");
        assert_eq!(task.history.len(), 1);
    }

    #[test]
    fn send_message_request_with_its_configuration_converts_both_ways() {
        let original: t::SendMessageRequest = model(json!({
            "tenant": "acme", "message": message_json(), "metadata": {"k": "v"},
            "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 3,
                "returnImmediately": true,
                "taskPushNotificationConfig": {"url": "https://example.com/hook", "token": "tok",
                    "authentication": {"scheme": "Bearer", "credentials": "c"}}}
        }));
        let request = wire(&both_ways::<_, pb::SendMessageRequest>(&original));
        assert_eq!(request.tenant, "acme");
        let configuration = request.configuration.unwrap();
        assert_eq!(configuration.history_length, Some(3));
        assert!(configuration.return_immediately);
        assert_eq!(configuration.task_push_notification_config.unwrap().url, "https://example.com/hook");
    }

    #[test]
    fn send_message_response_as_task_or_message_converts_both_ways() {
        let as_task: t::SendMessageResponse = model(json!({"task": task_json()}));
        let response = wire(&both_ways::<_, pb::SendMessageResponse>(&as_task));
        assert!(matches!(response.payload, Some(pb::send_message_response::Payload::Task(_))));
        let as_message: t::SendMessageResponse = model(json!({"message": message_json()}));
        let response = wire(&both_ways::<_, pb::SendMessageResponse>(&as_message));
        assert!(matches!(response.payload, Some(pb::send_message_response::Payload::Message(_))));
    }

    #[test]
    fn every_stream_response_kind_converts_both_ways() {
        use pb::stream_response::Payload;
        let events = [
            json!({"task": task_json()}),
            json!({"message": message_json()}),
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                "status": {"state": "TASK_STATE_WORKING"}, "metadata": {"k": "v"}}}),
            json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
                "artifact": {"artifactId": "a1", "parts": [{"text": "x"}]}, "append": true,
                "lastChunk": true, "metadata": {"k": "v"}}}),
        ];
        let mut kinds = Vec::new();
        for event in events {
            let original: t::StreamResponse = model(event);
            let message = wire(&both_ways::<_, pb::StreamResponse>(&original));
            kinds.push(match message.payload.unwrap() {
                Payload::Task(_) => "task",
                Payload::Message(_) => "message",
                Payload::StatusUpdate(update) => {
                    assert_eq!(update.status.unwrap().state, pb::TaskState::Working as i32);
                    "status"
                }
                Payload::ArtifactUpdate(update) => {
                    assert!(update.append && update.last_chunk);
                    "artifact"
                }
            });
        }
        assert_eq!(kinds, ["task", "message", "status", "artifact"]);
    }

    #[test]
    fn task_requests_convert_both_ways() {
        let get: t::GetTaskRequest = model(json!({"tenant": "x", "id": "t1", "historyLength": 0}));
        let message = wire(&both_ways::<_, pb::GetTaskRequest>(&get));
        assert_eq!(message.history_length, Some(0), "an explicit 0 is kept: it asks for no history");
        let cancel: t::CancelTaskRequest = model(json!({"tenant": "x", "id": "t1", "metadata": {"k": "v"}}));
        assert_eq!(wire(&both_ways::<_, pb::CancelTaskRequest>(&cancel)).id, "t1");
        let subscribe: t::SubscribeToTaskRequest = model(json!({"tenant": "x", "id": "t1"}));
        assert_eq!(wire(&both_ways::<_, pb::SubscribeToTaskRequest>(&subscribe)).id, "t1");
        let extended: t::GetExtendedAgentCardRequest = model(json!({"tenant": "x"}));
        assert_eq!(wire(&both_ways::<_, pb::GetExtendedAgentCardRequest>(&extended)).tenant, "x");
    }

    #[test]
    fn list_tasks_request_and_response_convert_both_ways() {
        let request: t::ListTasksRequest = model(json!({"tenant": "x", "contextId": "c1",
            "status": "TASK_STATE_WORKING", "pageSize": 10, "pageToken": "p", "historyLength": 2,
            "statusTimestampAfter": "2026-01-02T03:04:05Z", "includeArtifacts": true}));
        let message = wire(&both_ways::<_, pb::ListTasksRequest>(&request));
        assert_eq!(message.status, pb::TaskState::Working as i32);
        assert_eq!(message.page_size, Some(10));
        let response: t::ListTasksResponse = model(json!({"tasks": [task_json()],
            "nextPageToken": "n", "pageSize": 10, "totalSize": 11}));
        let message = wire(&both_ways::<_, pb::ListTasksResponse>(&response));
        assert_eq!((message.tasks.len(), message.total_size), (1, 11));
    }

    #[test]
    fn push_config_messages_convert_both_ways() {
        let config: t::TaskPushNotificationConfig = model(json!({"tenant": "x", "id": "p1",
            "taskId": "t1", "url": "https://example.com/hook", "token": "tok",
            "authentication": {"scheme": "Bearer", "credentials": "c"}}));
        let message = wire(&both_ways::<_, pb::TaskPushNotificationConfig>(&config));
        assert_eq!(
            (message.task_id.as_str(), message.authentication.unwrap().scheme.as_str()),
            ("t1", "Bearer")
        );
        let get: t::GetTaskPushNotificationConfigRequest =
            model(json!({"tenant": "x", "taskId": "t1", "id": "p1"}));
        assert_eq!(wire(&both_ways::<_, pb::GetTaskPushNotificationConfigRequest>(&get)).id, "p1");
        let delete: t::DeleteTaskPushNotificationConfigRequest =
            model(json!({"tenant": "x", "taskId": "t1", "id": "p1"}));
        assert_eq!(wire(&both_ways::<_, pb::DeleteTaskPushNotificationConfigRequest>(&delete)).task_id, "t1");
        let list: t::ListTaskPushNotificationConfigsRequest =
            model(json!({"tenant": "x", "taskId": "t1", "pageSize": 5, "pageToken": "p"}));
        assert_eq!(wire(&both_ways::<_, pb::ListTaskPushNotificationConfigsRequest>(&list)).page_size, 5);
        let listed: t::ListTaskPushNotificationConfigsResponse =
            model(json!({"configs": [serde_json::to_value(&config).unwrap()], "nextPageToken": "n"}));
        assert_eq!(
            wire(&both_ways::<_, pb::ListTaskPushNotificationConfigsResponse>(&listed)).configs.len(),
            1
        );
    }

    #[test]
    fn agent_card_with_every_scheme_and_flow_converts_both_ways() {
        let card: t::AgentCard = model(json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://127.0.0.1:1", "protocolBinding": "GRPC",
                "protocolVersion": "1.0", "tenant": "x"}],
            "provider": {"url": "https://example.com", "organization": "o"},
            "documentationUrl": "https://example.com/doc", "iconUrl": "https://example.com/i.png",
            "capabilities": {"streaming": true, "pushNotifications": false, "extendedAgentCard": true,
                "extensions": [{"uri": "u", "description": "d", "required": true, "params": {"p": 1.0}}]},
            "securitySchemes": {
                "key": {"apiKeySecurityScheme": {"description": "d", "location": "header", "name": "X-Key"}},
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
                "oauth": {"oauth2SecurityScheme": {"oauth2MetadataUrl": "https://example.com/m",
                    "flows": {"clientCredentials": {"tokenUrl": "https://example.com/t",
                        "scopes": {"read": "reads"}}}}},
                "code": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
                    "authorizationUrl": "https://example.com/a", "tokenUrl": "https://example.com/t",
                    "refreshUrl": "https://example.com/r", "scopes": {}, "pkceRequired": true}}}},
                "device": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
                    "deviceAuthorizationUrl": "https://example.com/d", "tokenUrl": "https://example.com/t",
                    "scopes": {"s": "t"}}}}},
                "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://example.com/o"}},
                "mtls": {"mtlsSecurityScheme": {"description": "client certificates"}}
            },
            "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}, "key": {"list": []}}}],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "n", "description": "d", "tags": ["t"], "examples": ["e"],
                "inputModes": ["text/plain"], "outputModes": ["text/plain"],
                "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]}],
            "signatures": [{"protected": "eyJ9", "signature": "c2ln", "header": {"kid": "k"}}]
        }));
        let message = wire(&both_ways::<_, pb::AgentCard>(&card));
        assert_eq!(message.supported_interfaces[0].protocol_binding, "GRPC");
        assert_eq!(message.security_schemes.len(), 7);
        assert_eq!(message.security_requirements[0].schemes["oauth"].list, ["read"]);
        assert_eq!(message.capabilities.unwrap().extended_agent_card, Some(true));
        assert_eq!(message.signatures[0].protected, "eyJ9");
    }

    #[test]
    fn a_field_of_the_wrong_shape_is_a_config_error_naming_the_message() {
        let error = to_proto::<pb::GetTaskRequest>("GetTaskRequest", br#"{"id": 5}"#).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Config);
        assert!(error.to_string().contains("GetTaskRequest"), "{error}");
    }

    /// A stream event read from its text, or moved field by field, is the event read through a
    /// value, event kind by event kind, with and without a timestamp (the one field rewritten).
    #[test]
    fn a_stream_event_read_from_text_is_the_event_read_through_a_value() {
        let status = |timestamp: bool| {
            let mut status = json!({"state": "TASK_STATE_WORKING", "message": message_json()});
            if timestamp {
                status["timestamp"] = json!("2026-01-02T03:04:05.678Z");
            }
            status
        };
        let mut events = vec![
            json!({"task": task_json()}),
            json!({"message": message_json()}),
            json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "append": true, "lastChunk": false,
                "artifact": {"artifactId": "a1", "parts": [{"text": "chunk"}, {"data": {"n": 2}}]},
                "metadata": {"k": 1.0}}}),
            // Plain text chunks, moved field by field: every field set, none set, and each thing
            // that sends a chunk the ProtoJSON way instead.
            json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "append": true, "lastChunk": true,
                "artifact": {"artifactId": "a1", "name": "n", "description": "d", "extensions": ["e"],
                    "parts": [{"text": "one "}, {"text": "two"}]}}}),
            json!({"artifactUpdate": {"artifact": {"parts": [{"text": ""}]}}}),
            json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1",
                "parts": [{"text": "x", "mediaType": "text/markdown", "filename": "f.md"}]}}}),
            json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1", "metadata": {"k": "v"},
                "parts": [{"text": "x", "metadata": {"k": "v"}}]}}}),
            json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1",
                "parts": [{"url": "https://example.com/a.png"}, {"raw": "aGk="}]}}}),
        ];
        for timestamp in [true, false] {
            events.push(
                json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": status(timestamp)}}),
            );
            let mut task = task_json();
            task["status"] = status(timestamp);
            events.push(json!({"task": task}));
        }
        for event in events {
            let message: pb::StreamResponse =
                wire(&to_proto("event", &serde_json::to_vec(&event).unwrap()).unwrap());
            let expected: t::StreamResponse = through_value(&message);
            assert_eq!(direct::stream_response(message).unwrap(), expected, "{event}");
        }
    }
}
