//! A member written `null` reads as the member left out, in every message of both versions.
//!
//! ProtoJSON reads `null` as the field's default (except a `google.protobuf.Value`, where it is a
//! value), never as an element of a repeated field or a value of a map. Each property takes a
//! generated valid document, writes `null` over members chosen at random (never over array elements
//! or map values), and checks that it reads as the same document with those members removed: the
//! same value, or refused alike (a required 0.3 member is missing either way; the messages may
//! differ, since a `null` is named where it stands and a missing member at its parent).

mod strategies;

use std::fmt::Debug;

use a2a_typestate_types::parse::{self, ParseError};
use a2a_typestate_types::{
    AgentCard, ListTasksResponse, Message, SendMessageRequest, StreamResponse, Task,
    TaskPushNotificationConfig, v03,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Which version's document is walked: they differ in which members hold no message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Version {
    V1,
    V03,
}

/// What a value of the document is, for the walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum At {
    /// A message (or an array of them): its members may be written `null`.
    Message,
    /// A proto map (or an array of 0.3 security requirements, which are maps): its values are never
    /// written `null`, the members of the messages they hold are.
    Map,
    /// A `google.protobuf.Struct` or `Value`: not walked into.
    Opaque,
}

fn inside(version: Version, member: &str) -> At {
    match member {
        "metadata" | "params" | "header" | "data" => At::Opaque,
        "securitySchemes" | "scopes" | "schemes" => At::Map,
        "security" if version == Version::V03 => At::Map,
        _ => At::Message,
    }
}

/// A 1.0 part's `data` is a `google.protobuf.Value`: `null` there is a value, not a member left out.
fn may_be_null(version: Version, member: &str) -> bool {
    !(version == Version::V1 && member == "data")
}

/// splitmix64: the members to write `null` over, from the case's seed.
struct Choice(u64);

impl Choice {
    fn next(&mut self) -> bool {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)).is_multiple_of(3)
    }
}

/// The document with the chosen members written `null`, and the same document with them removed.
fn null_and_removed(value: &Value, at: At, version: Version, choice: &mut Choice) -> (Value, Value) {
    match (value, at) {
        (Value::Object(members), At::Message) => {
            let (mut nulled, mut removed) = (Map::new(), Map::new());
            for (name, member) in members {
                if may_be_null(version, name) && choice.next() {
                    nulled.insert(name.clone(), Value::Null);
                    continue;
                }
                let (n, r) = null_and_removed(member, inside(version, name), version, choice);
                nulled.insert(name.clone(), n);
                removed.insert(name.clone(), r);
            }
            (Value::Object(nulled), Value::Object(removed))
        }
        (Value::Object(entries), At::Map) => {
            let (mut nulled, mut removed) = (Map::new(), Map::new());
            for (key, entry) in entries {
                let (n, r) = null_and_removed(entry, At::Message, version, choice);
                nulled.insert(key.clone(), n);
                removed.insert(key.clone(), r);
            }
            (Value::Object(nulled), Value::Object(removed))
        }
        (Value::Array(items), At::Message | At::Map) => {
            let pairs: Vec<(Value, Value)> =
                items.iter().map(|item| null_and_removed(item, at, version, choice)).collect();
            let (nulled, removed) = pairs.into_iter().unzip();
            (Value::Array(nulled), Value::Array(removed))
        }
        _ => (value.clone(), value.clone()),
    }
}

/// Each way this crate parses a document: from bytes, through the fast path, from a `Value`.
fn readings<T: DeserializeOwned>(document: &Value) -> [Result<T, ParseError>; 3] {
    let text = document.to_string();
    [parse::from_str(&text), parse::from_slice_fast(text.as_bytes()), parse::from_value(document.clone())]
}

fn reads_as_removed<T>(written: &T, version: Version, seed: u64) -> Result<(), TestCaseError>
where
    T: serde::Serialize + DeserializeOwned + PartialEq + Debug,
{
    let document = serde_json::to_value(written).unwrap();
    let (nulled, removed) = null_and_removed(&document, At::Message, version, &mut Choice(seed));
    let expected = parse::from_value::<T>(removed.clone());
    for read in readings::<T>(&nulled) {
        match (&read, &expected) {
            (Ok(read), Ok(expected)) => prop_assert_eq!(read, expected, "{}\nvs {}", nulled, removed),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{nulled}\nread {read:?}\nbut without the members: {expected:?}"),
        }
    }
    Ok(())
}

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(64)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn null_members_of_a_1_0_card_read_as_left_out(
        mut card in strategies::card::agent_card(),
        seed in any::<u64>(),
    ) {
        // Unknown members are kept as written, `null` included, so that a card writes back unchanged.
        card.extra.clear();
        card.capabilities.extra.clear();
        reads_as_removed::<AgentCard>(&card, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_1_0_task_read_as_left_out(task in strategies::messages::task(), seed in any::<u64>()) {
        reads_as_removed::<Task>(&task, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_1_0_message_read_as_left_out(
        message in strategies::messages::message(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<Message>(&message, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_1_0_stream_event_read_as_left_out(
        event in strategies::messages::stream_response(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<StreamResponse>(&event, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_1_0_push_config_read_as_left_out(
        config in strategies::messages::push_config(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<TaskPushNotificationConfig>(&config, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_1_0_request_and_response_read_as_left_out(
        request in strategies::messages::send_message_request(),
        listing in strategies::messages::list_tasks_response(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<SendMessageRequest>(&request, Version::V1, seed)?;
        reads_as_removed::<ListTasksResponse>(&listing, Version::V1, seed)?;
    }

    #[test]
    fn null_members_of_a_0_3_card_read_as_left_out(card in strategies::v03::agent_card(), seed in any::<u64>()) {
        reads_as_removed::<v03::AgentCard>(&card, Version::V03, seed)?;
    }

    #[test]
    fn null_members_of_a_0_3_stream_result_read_as_left_out(
        result in strategies::v03::stream_result(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<v03::StreamResult>(&result, Version::V03, seed)?;
    }

    #[test]
    fn null_members_of_0_3_params_and_push_configs_read_as_left_out(
        params in strategies::v03::message_send_params(),
        config in strategies::v03::push_config(),
        seed in any::<u64>(),
    ) {
        reads_as_removed::<v03::MessageSendParams>(&params, Version::V03, seed)?;
        reads_as_removed::<v03::TaskPushNotificationConfig>(&config, Version::V03, seed)?;
    }
}

/// Agno (`agno[os,a2a]` 3.1.10) serves its card as its pydantic model dumps it: every member it
/// leaves unset is there, written `null`, down to the skills' `tags`.
const AGNO_CARD: &str = r#"{
  "additionalInterfaces": null,
  "capabilities": {"extensions": null, "pushNotifications": null, "stateTransitionHistory": null,
                   "streaming": true},
  "defaultInputModes": ["text"],
  "defaultOutputModes": ["text"],
  "description": "Answers questions about the weather",
  "documentationUrl": null,
  "iconUrl": null,
  "name": "weather-agent",
  "preferredTransport": "JSONRPC",
  "protocolVersion": "0.3.0",
  "provider": null,
  "security": null,
  "securitySchemes": null,
  "signatures": null,
  "skills": [{"description": "Answers questions about the weather", "examples": null, "id": "weather-agent",
              "inputModes": null, "name": "weather-agent", "outputModes": null, "security": null,
              "tags": null}],
  "supportsAuthenticatedExtendedCard": null,
  "url": "http://127.0.0.1:7777/a2a/agents/weather-agent/v1",
  "version": "3.1.10"
}"#;

/// The members of `value`'s messages that are `null`, removed (every object here is a message).
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

#[test]
fn an_agno_card_with_null_members_reads_as_the_card_without_them() {
    let (shape, card) = v03::read_any_card(AGNO_CARD.as_bytes()).unwrap();
    assert_eq!(shape, v03::CardShape::V03);
    let bare = without_nulls(&serde_json::from_str(AGNO_CARD).unwrap()).to_string();
    let (_, bare) = v03::read_any_card(bare.as_bytes()).unwrap();
    assert_eq!(card, bare);
    let card = card.value;
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.capabilities.push_notifications, None);
    assert_eq!(card.capabilities.legacy_state_transition_history(), None);
    assert!(card.capabilities.extensions.is_empty() && card.security_schemes.is_empty());
    assert!(card.provider.is_none());
    let skill = &card.skills[0];
    assert!(skill.tags.is_empty() && skill.examples.is_empty() && skill.input_modes.is_empty());
    assert_eq!(card.supported_interfaces[0].url, "http://127.0.0.1:7777/a2a/agents/weather-agent/v1");
    assert_eq!(card.supported_interfaces[0].protocol_binding, "JSONRPC");
}

#[test]
fn the_same_card_in_the_1_0_shape_reads_as_it_does_without_its_nulls() {
    let card = json!({
        "name": "weather-agent", "description": "Answers questions about the weather", "version": "3.1.10",
        "supportedInterfaces": [{"url": "http://127.0.0.1:7777/a2a", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0", "tenant": null}],
        "provider": null, "documentationUrl": null, "iconUrl": null, "securitySchemes": null,
        "securityRequirements": null, "signatures": null,
        "capabilities": {"streaming": true, "pushNotifications": null, "extensions": null,
                         "extendedAgentCard": null},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": null,
        "skills": [{"id": "w", "name": "w", "description": "d", "tags": null, "examples": null,
                    "inputModes": null, "outputModes": null, "securityRequirements": null}]
    });
    let (shape, read) = v03::read_any_card(card.to_string().as_bytes()).unwrap();
    assert_eq!(shape, v03::CardShape::V1);
    let (_, bare) = v03::read_any_card(without_nulls(&card).to_string().as_bytes()).unwrap();
    assert_eq!(read, bare);
    assert_eq!(read.value.capabilities.streaming, Some(true));
}

#[test]
fn a_null_element_or_map_value_is_refused_at_its_path() {
    let err = parse::from_str::<AgentCard>(r#"{"skills":[{"tags":["a",null]}]}"#).unwrap_err();
    assert_eq!(err.to_string(), "skills[0].tags[1]: expected a string, found null");
    let err = parse::from_str::<AgentCard>(r#"{"securitySchemes":{"bearer":null}}"#).unwrap_err();
    assert_eq!(err.path(), "securitySchemes.bearer");
    let err = parse::from_str::<Message>(r#"{"parts":[null]}"#).unwrap_err();
    assert_eq!(err.path(), "parts[0]");
}

#[test]
fn null_keeps_its_meaning_where_it_is_a_value() {
    // A 1.0 data part holds a `google.protobuf.Value`, and metadata a `Struct`: `null` is data there.
    let message: Message = parse::from_str(r#"{"parts":[{"data":null}],"metadata":{"trace":null}}"#).unwrap();
    assert_eq!(message.parts[0].content, a2a_typestate_types::PartContent::Data(Value::Null.into()));
    assert_eq!(message.metadata.unwrap().value("trace"), Some(Value::Null));
}

#[test]
fn a_required_0_3_member_written_null_is_missing_as_when_left_out() {
    let err = parse::from_str::<v03::StreamResult>(
        r#"{"kind":"status-update","taskId":"t","contextId":"c","final":null,"status":{"state":"working"}}"#,
    )
    .unwrap_err();
    assert_eq!(err.message(), "missing field `final` (required for kind \"status-update\")");
    let err = parse::from_str::<v03::AgentCard>(r#"{"name":"a","url":null}"#).unwrap_err();
    assert!(err.message().contains("missing field"), "{err}");
}
