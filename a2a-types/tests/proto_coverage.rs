//! Every message and field of `a2a.proto` has a Rust counterpart that reads and writes it under its
//! ProtoJSON name.
//!
//! The test parses `proto/a2a.proto` (a copy of the normative 1.0 proto), builds for each message a
//! JSON object with every field set to a non-default value, reads it into the Rust type the table
//! below names, writes it back, and checks that every key and every string or boolean value survived.
//! A field the Rust type does not know is dropped on reading and the test fails naming it. A message
//! with no Rust type fails too, unless it is in [`EXCLUDED`] with the reason. Because `AgentCard` and
//! `AgentCapabilities` keep unknown fields, a further check makes sure each field is typed: it must
//! refuse some value of the wrong shape. The same examples with proto (snake_case) names must read
//! the same.
//!
//! Oneofs: one object per member, so every member is checked. Enums: the first non-zero name.

use std::collections::BTreeMap;

use a2a_typestate_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Reads a JSON object into the Rust type of a message, then writes it back.
type RoundTrip = fn(Value) -> Result<Value, String>;

fn round_trip<T: DeserializeOwned + Serialize>(value: Value) -> Result<Value, String> {
    let typed: T = parse::from_value(value).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// Proto message name to the Rust type that carries it on the wire.
fn table() -> BTreeMap<&'static str, RoundTrip> {
    BTreeMap::from([
        // Agent Card (v1/card.rs, v1/security.rs).
        ("AgentCard", round_trip::<AgentCard> as RoundTrip),
        ("AgentInterface", round_trip::<AgentInterface>),
        ("AgentCapabilities", round_trip::<AgentCapabilities>),
        ("AgentExtension", round_trip::<AgentExtension>),
        ("AgentSkill", round_trip::<AgentSkill>),
        ("AgentProvider", round_trip::<AgentProvider>),
        ("AgentCardSignature", round_trip::<AgentCardSignature>),
        ("SecurityScheme", round_trip::<SecurityScheme>),
        ("APIKeySecurityScheme", round_trip::<APIKeySecurityScheme>),
        ("HTTPAuthSecurityScheme", round_trip::<HTTPAuthSecurityScheme>),
        ("OAuth2SecurityScheme", round_trip::<OAuth2SecurityScheme>),
        ("OpenIdConnectSecurityScheme", round_trip::<OpenIdConnectSecurityScheme>),
        ("MutualTlsSecurityScheme", round_trip::<MutualTlsSecurityScheme>),
        ("OAuthFlows", round_trip::<OAuthFlows>),
        ("AuthorizationCodeOAuthFlow", round_trip::<AuthorizationCodeOAuthFlow>),
        ("ClientCredentialsOAuthFlow", round_trip::<ClientCredentialsOAuthFlow>),
        ("DeviceCodeOAuthFlow", round_trip::<DeviceCodeOAuthFlow>),
        ("ImplicitOAuthFlow", round_trip::<ImplicitOAuthFlow>),
        ("PasswordOAuthFlow", round_trip::<PasswordOAuthFlow>),
        ("SecurityRequirement", round_trip::<SecurityRequirement>),
        ("StringList", round_trip::<StringList>),
        // Messages, tasks, events (v1/message.rs, task.rs, events.rs).
        ("Message", round_trip::<Message>),
        ("Part", round_trip::<Part>),
        ("Task", round_trip::<Task>),
        ("TaskStatus", round_trip::<TaskStatus>),
        ("Artifact", round_trip::<Artifact>),
        ("TaskStatusUpdateEvent", round_trip::<TaskStatusUpdateEvent>),
        ("TaskArtifactUpdateEvent", round_trip::<TaskArtifactUpdateEvent>),
        ("StreamResponse", round_trip::<StreamResponse>),
        ("SendMessageResponse", round_trip::<SendMessageResponse>),
        // Push notifications (v1/push.rs).
        ("TaskPushNotificationConfig", round_trip::<TaskPushNotificationConfig>),
        ("AuthenticationInfo", round_trip::<AuthenticationInfo>),
        // Requests and responses (v1/requests.rs).
        ("SendMessageRequest", round_trip::<SendMessageRequest>),
        ("SendMessageConfiguration", round_trip::<SendMessageConfiguration>),
        ("GetTaskRequest", round_trip::<GetTaskRequest>),
        ("ListTasksRequest", round_trip::<ListTasksRequest>),
        ("ListTasksResponse", round_trip::<ListTasksResponse>),
        ("CancelTaskRequest", round_trip::<CancelTaskRequest>),
        ("SubscribeToTaskRequest", round_trip::<SubscribeToTaskRequest>),
        ("GetTaskPushNotificationConfigRequest", round_trip::<GetTaskPushNotificationConfigRequest>),
        ("DeleteTaskPushNotificationConfigRequest", round_trip::<DeleteTaskPushNotificationConfigRequest>),
        ("ListTaskPushNotificationConfigsRequest", round_trip::<ListTaskPushNotificationConfigsRequest>),
        ("ListTaskPushNotificationConfigsResponse", round_trip::<ListTaskPushNotificationConfigsResponse>),
        ("GetExtendedAgentCardRequest", round_trip::<GetExtendedAgentCardRequest>),
    ])
}

/// Messages of the proto deliberately without a Rust type, with the reason. Empty today: every
/// message of `a2a.proto` appears as JSON in some binding.
const EXCLUDED: &[(&str, &str)] = &[];

// --- A small proto parser: enough for a2a.proto (proto3, no nested declarations) ----------------

#[derive(Debug)]
struct Field {
    name: String,
    kind: Kind,
    /// The oneof this field belongs to, if any.
    oneof: Option<String>,
}

#[derive(Debug, Clone)]
enum Kind {
    Single(String),
    Repeated(String),
    Map(String, String),
}

#[derive(Debug, Default)]
struct Proto {
    messages: BTreeMap<String, Vec<Field>>,
    /// Enum name to its value names, in declaration order.
    enums: BTreeMap<String, Vec<String>>,
}

fn tokenize(source: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for line in source.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_whitespace() {
                continue;
            }
            if c == '"' {
                let mut text = String::from('"');
                for next in chars.by_ref() {
                    text.push(next);
                    if next == '"' {
                        break;
                    }
                }
                tokens.push(text);
            } else if "{}[]()<>;=,".contains(c) {
                tokens.push(c.to_string());
            } else {
                let mut word = c.to_string();
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || "{}[]()<>;=,\"".contains(next) {
                        break;
                    }
                    word.push(next);
                    chars.next();
                }
                tokens.push(word);
            }
        }
    }
    tokens
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &str {
        self.tokens.get(self.at).map_or("", String::as_str)
    }

    fn next(&mut self) -> String {
        let token = self.tokens.get(self.at).cloned().unwrap_or_else(|| panic!("proto ends early"));
        self.at += 1;
        token
    }

    fn expect(&mut self, want: &str) {
        let got = self.next();
        assert_eq!(got, want, "proto: expected {want:?} at token {}", self.at);
    }

    /// Skips to the end of a statement (`;`) or over a balanced `{ ... }` block.
    fn skip_statement(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.next().as_str() {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                ";" if depth == 0 => return,
                _ => {}
            }
        }
    }

    fn parse(mut self) -> Proto {
        let mut proto = Proto::default();
        while self.at < self.tokens.len() {
            match self.peek() {
                "message" => {
                    self.next();
                    let name = self.next();
                    let fields = self.message_body();
                    proto.messages.insert(name, fields);
                }
                "enum" => {
                    self.next();
                    let name = self.next();
                    let values = self.enum_body();
                    proto.enums.insert(name, values);
                }
                _ => self.skip_statement(),
            }
        }
        proto
    }

    fn message_body(&mut self) -> Vec<Field> {
        self.expect("{");
        let mut fields = Vec::new();
        loop {
            match self.peek() {
                "}" => {
                    self.next();
                    return fields;
                }
                "oneof" => {
                    self.next();
                    let oneof = self.next();
                    self.expect("{");
                    while self.peek() != "}" {
                        if self.peek() == "option" {
                            self.skip_statement();
                            continue;
                        }
                        let mut field = self.field();
                        field.oneof = Some(oneof.clone());
                        fields.push(field);
                    }
                    self.expect("}");
                }
                "reserved" | "option" => self.skip_statement(),
                "message" | "enum" => panic!("nested declarations are not supported by this test's parser"),
                _ => fields.push(self.field()),
            }
        }
    }

    fn field(&mut self) -> Field {
        let kind = match self.next().as_str() {
            "repeated" => Kind::Repeated(self.next()),
            "optional" => Kind::Single(self.next()),
            "map" => {
                self.expect("<");
                let key = self.next();
                self.expect(",");
                let value = self.next();
                self.expect(">");
                Kind::Map(key, value)
            }
            other => Kind::Single(other.to_owned()),
        };
        let name = self.next();
        self.expect("=");
        self.skip_statement();
        Field { name, kind, oneof: None }
    }

    fn enum_body(&mut self) -> Vec<String> {
        self.expect("{");
        let mut values = Vec::new();
        while self.peek() != "}" {
            if matches!(self.peek(), "option" | "reserved") {
                self.skip_statement();
                continue;
            }
            values.push(self.next());
            self.skip_statement();
        }
        self.expect("}");
        values
    }
}

fn load_proto() -> Proto {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/proto/a2a.proto");
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    Parser { tokens: tokenize(&source), at: 0 }.parse()
}

/// The ProtoJSON name of a field: lowerCamelCase, as protoc computes `json_name`.
fn json_name(field: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

// --- Example values -----------------------------------------------------------------------------

/// Which spelling of field names the example uses.
#[derive(Clone, Copy)]
enum Naming {
    Json,
    Proto,
}

const MAX_DEPTH: usize = 12;

impl Proto {
    /// An example of `ty` with every field set to a non-default value. `choice` picks, for every
    /// oneof of the top-level message, which member to set (`None`: the first).
    fn example(&self, ty: &str, naming: Naming, depth: usize, choice: Option<&str>) -> Value {
        assert!(depth < MAX_DEPTH, "{ty}: message nesting deeper than {MAX_DEPTH}; is the proto recursive?");
        match ty {
            "string" => return json!("x"),
            "bool" => return json!(true),
            "int32" | "int64" | "uint32" | "uint64" | "sint32" | "sint64" | "fixed32" | "fixed64"
            | "sfixed32" | "sfixed64" => return json!(1),
            "float" | "double" => return json!(1.5),
            "bytes" => return json!("eA=="),
            "google.protobuf.Struct" | "google.protobuf.Value" => return json!({"k": "v"}),
            "google.protobuf.Timestamp" => return json!("2026-01-01T00:00:00Z"),
            "google.protobuf.Empty" => return json!({}),
            _ => {}
        }
        if let Some(values) = self.enums.get(ty) {
            let name = values.get(1).unwrap_or_else(|| panic!("enum {ty} has no non-zero value"));
            return json!(name);
        }
        let fields = self.messages.get(ty).unwrap_or_else(|| panic!("unknown proto type {ty}"));
        let mut object = Map::new();
        let chosen = choice.and_then(|member| fields.iter().find(|f| f.name == member));
        let mut oneofs_set = Vec::new();
        for field in fields {
            if let Some(oneof) = &field.oneof {
                let wanted = match chosen {
                    Some(member) if member.oneof.as_ref() == Some(oneof) => member.name == field.name,
                    _ => !oneofs_set.contains(oneof),
                };
                if !wanted {
                    continue;
                }
                oneofs_set.push(oneof.clone());
            }
            let key = match naming {
                Naming::Json => json_name(&field.name),
                Naming::Proto => field.name.clone(),
            };
            let value = match &field.kind {
                Kind::Single(t) => self.example(t, naming, depth + 1, None),
                Kind::Repeated(t) => json!([self.example(t, naming, depth + 1, None)]),
                Kind::Map(k, v) => {
                    let map_key = if k == "string" { "k".to_owned() } else { "1".to_owned() };
                    json!({ map_key: self.example(v, naming, depth + 1, None) })
                }
            };
            object.insert(key, value);
        }
        Value::Object(object)
    }

    /// One example per oneof member (or a single one when the message has no oneof).
    fn examples(&self, message: &str, naming: Naming) -> Vec<(String, Value)> {
        let fields = &self.messages[message];
        let members: Vec<&Field> = fields.iter().filter(|f| f.oneof.is_some()).collect();
        if members.is_empty() {
            return vec![(message.to_owned(), self.example(message, naming, 0, None))];
        }
        members
            .iter()
            .map(|member| {
                let value = self.example(message, naming, 0, Some(&member.name));
                (format!("{message} with {}", json_name(&member.name)), value)
            })
            .collect()
    }
}

/// Every key of `input` is in `output`, at the same place, and every string or boolean is unchanged.
/// Returns the paths that were lost or changed.
fn lost(input: &Value, output: &Value, path: &str, out: &mut Vec<String>) {
    match (input, output) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, value) in want {
                let here = format!("{path}.{key}");
                match got.get(key) {
                    Some(found) => lost(value, found, &here, out),
                    None => out.push(format!("{here} was dropped")),
                }
            }
        }
        (Value::Array(want), Value::Array(got)) => {
            if want.len() != got.len() {
                out.push(format!("{path} had {} elements, has {}", want.len(), got.len()));
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                lost(w, g, &format!("{path}[{i}]"), out);
            }
        }
        (Value::String(_) | Value::Bool(_), _) if input != output => {
            out.push(format!("{path} was {input}, is {output}"));
        }
        (Value::Number(_), Value::Number(_) | Value::String(_)) => {
            // ProtoJSON writes 64-bit integers as strings; both spellings keep the value.
        }
        (Value::String(_) | Value::Bool(_), _) => {}
        _ => out.push(format!("{path} was {input}, is {output}")),
    }
}

// --- The tests ----------------------------------------------------------------------------------

#[test]
fn proto_parser_sees_the_whole_file() {
    let proto = load_proto();
    // Guards against a parser that silently skips declarations: these numbers come from a2a.proto.
    let source = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/proto/a2a.proto")).unwrap();
    let declared = source.lines().filter(|l| l.trim_start().starts_with("message ")).count();
    assert_eq!(proto.messages.len(), declared);
    assert_eq!(proto.enums.get("TaskState").map(Vec::len), Some(9));
    let card = &proto.messages["AgentCard"];
    assert_eq!(card.len(), 14);
    assert!(matches!(&card[7].kind, Kind::Map(k, v) if k == "string" && v == "SecurityScheme"));
    let scheme = &proto.messages["SecurityScheme"];
    assert!(scheme.iter().all(|f| f.oneof.as_deref() == Some("scheme")));
}

#[test]
fn every_proto_message_has_a_rust_type_or_a_stated_exclusion() {
    let proto = load_proto();
    let table = table();
    let missing: Vec<&String> = proto
        .messages
        .keys()
        .filter(|m| !table.contains_key(m.as_str()) && !EXCLUDED.iter().any(|(e, _)| e == m))
        .collect();
    assert!(missing.is_empty(), "proto messages with no Rust type: {missing:?}");
    let stale: Vec<&&str> = table
        .keys()
        .chain(EXCLUDED.iter().map(|(e, _)| e))
        .filter(|m| !proto.messages.contains_key(**m))
        .collect();
    assert!(stale.is_empty(), "table names messages the proto does not have: {stale:?}");
}

#[test]
fn every_proto_field_survives_a_round_trip_under_its_json_name() {
    let proto = load_proto();
    let table = table();
    let mut failures = Vec::new();
    for (message, round_trip) in &table {
        for (label, input) in proto.examples(message, Naming::Json) {
            match round_trip(input.clone()) {
                Err(e) => failures.push(format!("{label}: did not read {input}: {e}")),
                Ok(output) => {
                    let mut lost_paths = Vec::new();
                    lost(&input, &output, "", &mut lost_paths);
                    failures.extend(lost_paths.into_iter().map(|p| format!("{label}: {p}")));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_proto_field_is_also_read_under_its_proto_name() {
    let proto = load_proto();
    let table = table();
    let mut failures = Vec::new();
    for (message, round_trip) in &table {
        let camel = proto.examples(message, Naming::Json);
        let snake = proto.examples(message, Naming::Proto);
        for ((label, camel), (_, snake)) in camel.into_iter().zip(snake) {
            let want = round_trip(camel);
            let got = round_trip(snake.clone());
            match (want, got) {
                (Ok(want), Ok(got)) if want == got => {}
                (Ok(want), Ok(got)) => failures
                    .push(format!("{label}: snake_case input wrote {got}, camelCase input wrote {want}")),
                (_, Err(e)) => failures.push(format!("{label}: did not read {snake}: {e}")),
                (Err(_), Ok(_)) => {} // reported by the camelCase test
            }
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

/// The fields of `message` that `round_trip` accepts whatever their value: fields it does not
/// type but keeps as unknown (AgentCard and AgentCapabilities keep unknown fields and write them
/// back, so a forgotten field would still survive a round trip).
fn untyped_fields(proto: &Proto, message: &str, round_trip: RoundTrip) -> Vec<String> {
    let mut untyped = Vec::new();
    for field in &proto.messages[message] {
        if matches!(&field.kind, Kind::Single(t) if t == "google.protobuf.Value") {
            continue; // any JSON is a valid google.protobuf.Value
        }
        let name = json_name(&field.name);
        let (_, example) = proto
            .examples(message, Naming::Json)
            .into_iter()
            .find(|(_, v)| v.get(&name).is_some())
            .unwrap_or_else(|| panic!("{message}: no example sets {name}"));
        // A typed field refuses at least one of these; an unknown field accepts them all.
        let refused = [json!("x"), json!(7.5), json!([[7]]), json!(["x"])].into_iter().any(|bad| {
            let mut wrong = example.clone();
            wrong[&name] = bad;
            round_trip(wrong).is_err()
        });
        if !refused {
            untyped.push(format!("{message}.{name}"));
        }
    }
    untyped
}

#[test]
fn every_proto_field_is_typed_not_kept_as_an_unknown_field() {
    let proto = load_proto();
    let untyped: Vec<String> = table()
        .into_iter()
        .flat_map(|(message, round_trip)| untyped_fields(&proto, message, round_trip))
        .collect();
    assert!(untyped.is_empty(), "fields accepted whatever their value, so not typed: {untyped:?}");
}

#[test]
fn coverage_check_catches_a_field_kept_as_unknown() {
    #[derive(serde::Deserialize, serde::Serialize)]
    struct ProviderKeepingEverything {
        organization: String,
        #[serde(flatten)]
        extra: Map<String, Value>,
    }
    let proto = load_proto();
    let untyped = untyped_fields(&proto, "AgentProvider", round_trip::<ProviderKeepingEverything>);
    assert_eq!(untyped, ["AgentProvider.url"]);
}

#[test]
fn coverage_check_catches_a_dropped_field() {
    // The check itself must be able to fail: a type that forgets a field loses its key.
    #[derive(serde::Deserialize, serde::Serialize)]
    struct ProviderWithoutUrl {
        organization: String,
    }
    let proto = load_proto();
    let (_, input) = proto.examples("AgentProvider", Naming::Json).remove(0);
    let output = round_trip::<ProviderWithoutUrl>(input.clone()).unwrap();
    let mut lost_paths = Vec::new();
    lost(&input, &output, "", &mut lost_paths);
    assert_eq!(lost_paths, [".url was dropped"]);
}
