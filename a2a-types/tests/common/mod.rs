//! Helpers shared by the 0.3 test files: reading fixtures and the 0.3 bodies of the transcript.
//!
//! The transcript's 0.3 bodies are read from the same `tests/fixtures/` folders that `fixtures.rs`
//! walks (one copy of the recorded data); `tests/v03_fixtures/` holds only the cards written for
//! these tests (`rich-card.json` from the 0.3 schema, the design note's observed card).
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};

use a2a_typestate_types::jsonrpc::{JsonRpcRequest, JsonRpcSuccess};
use a2a_typestate_types::{parse, v03};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The a2a-sdk 0.3-compatible card of transcript section 9 (0.3 fields merged into a 1.0 card).
pub const MERGED_CARD: &str = "agent-card/s09-get-card-v1-0-card-merged-v0-3-fields-response.json";
/// A 0.3 `message/send` request of transcript section 9.
pub const SEND_REQUEST: &str =
    "v03-jsonrpc-request-message-send/s09-v0-3-message-send-no-a2a-version-header-request.json";
/// The 0.3 `message/send` response of transcript section 9.
pub const SEND_RESPONSE: &str =
    "v03-jsonrpc-response-message-send/s09-v0-3-message-send-no-a2a-version-header-response.json";

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A card written for these tests, under `tests/v03_fixtures/`.
pub fn fixture(name: &str) -> String {
    read_text(&tests_dir().join("v03_fixtures").join(name))
}

/// A recorded body of the transcript, under `tests/fixtures/`.
pub fn transcript(name: &str) -> String {
    read_text(&tests_dir().join("fixtures").join(name))
}

pub fn read<T: DeserializeOwned>(json: &str) -> T {
    parse::from_str(json).unwrap_or_else(|e| panic!("{e}\nin {json}"))
}

pub fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

pub fn loss_paths<T>(converted: &v03::Converted<T>) -> Vec<&str> {
    converted.losses.iter().map(|l| l.path.as_str()).collect()
}

/// A 0.3 body of the transcript: what it is and how to read it.
pub enum Body {
    SendRequest(JsonRpcRequest<v03::MessageSendParams>),
    SendResponse(JsonRpcSuccess<v03::SendMessageResult>),
    StreamEvent(JsonRpcSuccess<v03::StreamResult>),
    Card(Box<v03::AgentCard>),
}

/// Every 0.3 body of the transcript (the `v03-*` fixture folders, and the merged card), in path
/// order, with its JSON as recorded. A new file in a `v03-*` folder is picked up without new code.
pub fn transcript_bodies() -> Vec<(String, Value, Body)> {
    let root = tests_dir().join("fixtures");
    let mut names = vec![MERGED_CARD.to_owned()];
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().file_name().into_string().unwrap();
        if !dir.starts_with("v03-") {
            continue;
        }
        for file in std::fs::read_dir(root.join(&dir)).unwrap() {
            names.push(format!("{dir}/{}", file.unwrap().file_name().into_string().unwrap()));
        }
    }
    names.sort();
    assert_eq!(names.len(), 9, "every 0.3 body of transcript sections 2 and 9: {names:?}");
    names
        .into_iter()
        .map(|name| {
            let text = transcript(&name);
            let body = if name == MERGED_CARD {
                Body::Card(Box::new(read(&text)))
            } else if name.starts_with("v03-jsonrpc-request-") {
                Body::SendRequest(read(&text))
            } else if name.starts_with("v03-jsonrpc-response-") {
                Body::SendResponse(read(&text))
            } else if name.starts_with("v03-jsonrpc-stream-response/") {
                Body::StreamEvent(read(&text))
            } else {
                panic!("{name}: no rule says what this fixture is")
            };
            let original: Value = serde_json::from_str(&text).unwrap();
            (name, original, body)
        })
        .collect()
}
