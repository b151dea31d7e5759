//! Whatever this crate writes, it reads back as the same value: `Task`, `Message` and
//! `StreamResponse` survive serialize -> parse unchanged.
//!
//! Generated values avoid `Some("")` in optional strings: ProtoJSON cannot tell an empty string from
//! an absent one, and this crate reads both as `None`.

mod strategies;

use a2a_typestate_types::{Message, StreamResponse, Task, parse};
use proptest::prelude::*;
use serde_json::{Map, Value};
use strategies::messages::{message, stream_response, task};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 64, ..ProptestConfig::default() }
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
