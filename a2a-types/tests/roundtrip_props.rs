//! Whatever this crate writes, it reads back as the same value: `Task`, `Message` and
//! `StreamResponse` survive serialize -> parse unchanged.
//!
//! Generated values avoid `Some("")` in optional strings: ProtoJSON cannot tell an empty string from
//! an absent one, and this crate reads both as `None`.

use a2a_typestate_types::{
    Artifact, ArtifactId, ContextId, Message, MessageId, Part, PartContent, Role, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskId, TaskState, TaskStatus, TaskStatusUpdateEvent, parse,
};
use a2a_typestate_types::{JsonText, Metadata};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 64, ..ProptestConfig::default() }
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _\\-\u{e9}\u{4e2d}\"\\\\]{0,12}"
}

fn non_empty() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9\\-]{1,12}"
}

fn opt_non_empty() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(non_empty())
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(non_empty(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn metadata() -> impl Strategy<Value = Option<Metadata>> {
    proptest::option::of(
        proptest::collection::btree_map(non_empty(), json_value(), 0..3)
            .prop_map(|m| m.into_iter().map(|(k, v)| (k, JsonText::from_value(&v))).collect()),
    )
}

fn task_state() -> impl Strategy<Value = TaskState> {
    prop_oneof![
        Just(TaskState::Unspecified),
        Just(TaskState::Submitted),
        Just(TaskState::Working),
        Just(TaskState::Completed),
        Just(TaskState::Failed),
        Just(TaskState::Canceled),
        Just(TaskState::InputRequired),
        Just(TaskState::Rejected),
        Just(TaskState::AuthRequired),
    ]
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::Unspecified), Just(Role::User), Just(Role::Agent)]
}

fn part_content() -> impl Strategy<Value = PartContent> {
    prop_oneof![
        text().prop_map(PartContent::Text),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(PartContent::Raw),
        non_empty().prop_map(PartContent::Url),
        json_value().prop_map(|v| PartContent::Data(v.into())),
    ]
}

fn part() -> impl Strategy<Value = Part> {
    (part_content(), metadata(), opt_non_empty(), opt_non_empty()).prop_map(
        |(content, metadata, filename, media_type)| Part { content, metadata, filename, media_type },
    )
}

fn message() -> impl Strategy<Value = Message> {
    (
        text(),
        opt_non_empty(),
        opt_non_empty(),
        role(),
        proptest::collection::vec(part(), 0..3),
        metadata(),
        proptest::collection::vec(non_empty(), 0..2),
        proptest::collection::vec(non_empty(), 0..2),
    )
        .prop_map(|(id, context_id, task_id, role, parts, metadata, extensions, refs)| Message {
            message_id: MessageId::new(id),
            context_id: context_id.map(ContextId::new),
            task_id: task_id.map(TaskId::new),
            role,
            parts,
            metadata,
            extensions,
            reference_task_ids: refs.into_iter().map(TaskId::new).collect(),
        })
}

fn task_status() -> impl Strategy<Value = TaskStatus> {
    (task_state(), proptest::option::of(message()), opt_non_empty())
        .prop_map(|(state, message, timestamp)| TaskStatus { state, message, timestamp })
}

fn artifact() -> impl Strategy<Value = Artifact> {
    (
        text(),
        opt_non_empty(),
        opt_non_empty(),
        proptest::collection::vec(part(), 0..3),
        metadata(),
        proptest::collection::vec(non_empty(), 0..2),
    )
        .prop_map(|(id, name, description, parts, metadata, extensions)| Artifact {
            artifact_id: ArtifactId::new(id),
            name,
            description,
            parts,
            metadata,
            extensions,
        })
}

fn task() -> impl Strategy<Value = Task> {
    (
        text(),
        opt_non_empty(),
        task_status(),
        proptest::collection::vec(artifact(), 0..2),
        proptest::collection::vec(message(), 0..2),
        metadata(),
    )
        .prop_map(|(id, context_id, status, artifacts, history, metadata)| Task {
            id: TaskId::new(id),
            context_id: context_id.map(ContextId::new),
            status,
            artifacts,
            history,
            metadata,
        })
}

fn stream_response() -> impl Strategy<Value = StreamResponse> {
    prop_oneof![
        task().prop_map(StreamResponse::Task),
        message().prop_map(StreamResponse::Message),
        (text(), opt_non_empty(), task_status(), metadata()).prop_map(
            |(id, context_id, status, metadata)| {
                StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                    task_id: TaskId::new(id),
                    context_id: context_id.map(ContextId::new),
                    status,
                    metadata,
                })
            }
        ),
        (text(), opt_non_empty(), artifact(), any::<bool>(), any::<bool>(), metadata()).prop_map(
            |(id, context_id, artifact, append, last_chunk, metadata)| {
                StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                    task_id: TaskId::new(id),
                    context_id: context_id.map(ContextId::new),
                    artifact,
                    append,
                    last_chunk,
                    metadata,
                })
            }
        ),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn task_reads_back_as_written(task in task()) {
        let json = serde_json::to_string(&task).unwrap();
        prop_assert_eq!(parse::from_str::<Task>(&json).unwrap(), task);
    }

    #[test]
    fn message_reads_back_as_written(message in message()) {
        let json = serde_json::to_string(&message).unwrap();
        prop_assert_eq!(parse::from_str::<Message>(&json).unwrap(), message);
    }

    #[test]
    fn stream_response_reads_back_as_written(event in stream_response()) {
        let json = serde_json::to_string(&event).unwrap();
        prop_assert_eq!(parse::from_str::<StreamResponse>(&json).unwrap(), event);
    }

    #[test]
    fn snake_case_names_read_like_camel_case(message in message()) {
        let camel = serde_json::to_value(&message).unwrap();
        let snake = rename_keys(camel);
        prop_assert_eq!(parse::from_value::<Message>(snake).unwrap(), message);
    }
}

/// Rewrites the top-level and part-level field names of a message to snake_case, as a
/// protoc-generated JSON writer with `preserving_proto_field_name` would.
fn rename_keys(value: Value) -> Value {
    let Value::Object(map) = value else { return value };
    map.into_iter()
        .map(|(key, value)| {
            let value = match (key.as_str(), value) {
                ("parts", Value::Array(parts)) => Value::Array(parts.into_iter().map(rename_keys).collect()),
                (_, value) => value,
            };
            let snake = match key.as_str() {
                "messageId" => "message_id",
                "contextId" => "context_id",
                "taskId" => "task_id",
                "referenceTaskIds" => "reference_task_ids",
                "mediaType" => "media_type",
                other => other,
            };
            (snake.to_owned(), value)
        })
        .collect::<Map<String, Value>>()
        .into()
}
