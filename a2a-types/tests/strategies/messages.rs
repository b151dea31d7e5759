//! Generators of valid 1.0 messages, tasks and stream items (shared by the property tests).
//!
//! Generated values avoid `Some("")` in optional strings: ProtoJSON cannot tell an empty string from
//! an absent one, and this crate reads both as `None`.

use a2a_typestate_types::{
    Artifact, ArtifactId, AuthenticationInfo, ContextId, ListTasksResponse, Message, MessageId, Part,
    PartContent, Role, SendMessageConfiguration, SendMessageRequest, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskId, TaskPushNotificationConfig, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use a2a_typestate_types::{JsonText, Metadata};
use proptest::prelude::*;
use serde_json::Value;

pub fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _\\-\u{e9}\u{4e2d}\"\\\\]{0,12}"
}

pub fn non_empty() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9\\-]{1,12}"
}

pub fn opt_non_empty() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(non_empty())
}

pub fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::String),
    ]
}

pub fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(non_empty(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

pub fn metadata() -> impl Strategy<Value = Option<Metadata>> {
    proptest::option::of(
        proptest::collection::btree_map(non_empty(), json_value(), 0..3)
            .prop_map(|m| m.into_iter().map(|(k, v)| (k, JsonText::from_value(&v))).collect()),
    )
}

pub fn task_state() -> impl Strategy<Value = TaskState> {
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

pub fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::Unspecified), Just(Role::User), Just(Role::Agent)]
}

pub fn part_content() -> impl Strategy<Value = PartContent> {
    prop_oneof![
        text().prop_map(PartContent::Text),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(PartContent::Raw),
        non_empty().prop_map(PartContent::Url),
        json_value().prop_map(|v| PartContent::Data(v.into())),
    ]
}

pub fn part() -> impl Strategy<Value = Part> {
    (part_content(), metadata(), opt_non_empty(), opt_non_empty()).prop_map(
        |(content, metadata, filename, media_type)| Part { content, metadata, filename, media_type },
    )
}

pub fn message() -> impl Strategy<Value = Message> {
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

pub fn task_status() -> impl Strategy<Value = TaskStatus> {
    (task_state(), proptest::option::of(message()), opt_non_empty())
        .prop_map(|(state, message, timestamp)| TaskStatus { state, message, timestamp })
}

pub fn artifact() -> impl Strategy<Value = Artifact> {
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

pub fn task() -> impl Strategy<Value = Task> {
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

pub fn stream_response() -> impl Strategy<Value = StreamResponse> {
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

pub fn push_config() -> impl Strategy<Value = TaskPushNotificationConfig> {
    (opt_non_empty(), opt_non_empty(), non_empty(), opt_non_empty(), proptest::option::of(non_empty()))
        .prop_map(|(id, task_id, url, token, bearer)| {
            let mut config = TaskPushNotificationConfig::new(url);
            config.id = id;
            config.task_id = task_id.map(TaskId::new);
            config.token = token;
            config.authentication = bearer.map(AuthenticationInfo::bearer);
            config
        })
}

pub fn send_message_request() -> impl Strategy<Value = SendMessageRequest> {
    let configuration = (
        proptest::collection::vec(non_empty(), 0..2),
        proptest::option::of(push_config()),
        proptest::option::of(0..8_i32),
        any::<bool>(),
    )
        .prop_map(
            |(accepted_output_modes, task_push_notification_config, history_length, return_immediately)| {
                SendMessageConfiguration {
                    accepted_output_modes,
                    task_push_notification_config,
                    history_length,
                    return_immediately,
                }
            },
        );
    (opt_non_empty(), message(), proptest::option::of(configuration), metadata()).prop_map(
        |(tenant, message, configuration, metadata)| SendMessageRequest {
            tenant,
            message,
            configuration,
            metadata,
        },
    )
}

pub fn list_tasks_response() -> impl Strategy<Value = ListTasksResponse> {
    (proptest::collection::vec(task(), 0..2), text(), 0..100_i32, 0..1000_i32).prop_map(
        |(tasks, next_page_token, page_size, total_size)| ListTasksResponse {
            tasks,
            next_page_token,
            page_size,
            total_size,
        },
    )
}
