//! An SSE event whose `data` starts with the record separator 0x1E (a JSON text sequence's framing,
//! RFC 7464, as VoltAgent's A2A server writes every event) is read the same way on every binding the
//! scripted agent serves: under tolerant reading the separator is removed, the stream verified, and
//! one `json-text-sequence-rs` deviation recorded per event; under strict reading it is bad input
//! that names the separator. A separator anywhere else in the data stays bad input under either.

mod negotiation_common;

use std::net::SocketAddr;

use a2a_testkit::{Binding, Capabilities, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{AgentConnection, Capability, Client, ErrorKind, WireReading};
use a2a_typestate_types::SendMessageRequest;
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::tolerant::DeviationKind;
use futures::StreamExt;
use negotiation_common::{builder, text};

/// Every protocol version and binding the scripted agent serves: 0.3 has no gRPC here.
const EVERY_BINDING: [(Protocol, Binding); 5] = [
    (Protocol::V1_0, Binding::JsonRpc),
    (Protocol::V1_0, Binding::HttpJson),
    (Protocol::V1_0, Binding::Grpc),
    (Protocol::V0_3, Binding::JsonRpc),
    (Protocol::V0_3, Binding::HttpJson),
];

/// Whether events on `binding` are SSE events (gRPC streams protobuf messages: no `data` to frame).
fn streams_over_sse(binding: Binding) -> bool {
    binding != Binding::Grpc
}

/// A streaming agent of `protocol` writing every SSE event behind a record separator, its card
/// listing `binding` first (so a connection selects it).
async fn spawn(protocol: Protocol, binding: Binding) -> RunningAgent {
    let rest = Binding::ALL.into_iter().filter(|b| *b != binding);
    let rest: Vec<Binding> = match protocol {
        Protocol::V0_3 => rest.filter(|b| *b == Binding::JsonRpc).collect(),
        _ => rest.collect(),
    };
    ScriptedAgent::builder()
        .protocol(protocol)
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::JsonTextSequenceEvents))
        .bindings(std::iter::once(binding).chain(rest))
        .spawn()
        .await
        .unwrap()
}

fn reading(reading: WireReading) -> Client {
    builder().wire_reading(reading).build().unwrap()
}

/// A connection to `agent` over the interface of `protocol` and `binding`.
async fn connect(
    client: &Client,
    agent: &RunningAgent,
    protocol: Protocol,
    binding: Binding,
) -> AgentConnection {
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let interface = connection.interface();
    let version = match protocol {
        Protocol::V0_3 => ProtocolVersion::V0_3,
        _ => ProtocolVersion::V1_0,
    };
    let wire = match binding {
        Binding::JsonRpc => ProtocolBinding::JsonRpc,
        Binding::HttpJson => ProtocolBinding::HttpJson,
        Binding::Grpc => ProtocolBinding::Grpc,
        other => unreachable!("a binding this test does not know: {other:?}"),
    };
    assert_eq!(
        (&interface.protocol_version, &interface.binding),
        (&version, &wire),
        "{protocol:?} {binding:?}"
    );
    connection
}

#[tokio::test]
async fn a_leading_record_separator_is_read_under_tolerant_reading_and_streaming_verified_on_every_binding() {
    for (protocol, binding) in EVERY_BINDING {
        let agent = spawn(protocol, binding).await;
        let client = reading(WireReading::Tolerant);
        let outcome = client
            .run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&[Capability::Streaming]))
            .await
            .unwrap_or_else(|e| panic!("{protocol:?} {binding:?}: {e}"));
        assert_eq!(outcome.path, TaskPath::Negotiated, "{protocol:?} {binding:?}");
        assert!(outcome.verified.contains(Capability::Streaming), "{protocol:?} {binding:?}");
        let separators: Vec<_> =
            outcome.wire_deviations.iter().filter(|d| d.kind() == DeviationKind::JsonTextSequence).collect();
        if streams_over_sse(binding) {
            assert!(!separators.is_empty(), "{protocol:?} {binding:?}: {:?}", outcome.wire_deviations);
            assert_eq!(separators[0].call, "SendStreamingMessage", "{protocol:?} {binding:?}");
            assert_eq!(separators[0].event, Some(1), "{protocol:?} {binding:?}");
            assert_eq!(separators[0].path(), "", "the whole document: {}", separators[0]);
        } else {
            assert!(separators.is_empty(), "{protocol:?} {binding:?}: no SSE, nothing to frame");
        }
    }
}

#[tokio::test]
async fn every_event_behind_a_record_separator_is_one_deviation_numbered_as_the_event_on_every_sse_binding() {
    for (protocol, binding) in EVERY_BINDING.into_iter().filter(|(_, b)| streams_over_sse(*b)) {
        let agent = spawn(protocol, binding).await;
        let client = reading(WireReading::Tolerant);
        let connection = connect(&client, &agent, protocol, binding).await;
        let mut stream =
            connection.send_streaming_message(SendMessageRequest::new(text("stream"))).await.unwrap();
        let mut events = 0_u64;
        while let Some(event) = stream.next().await {
            event.unwrap_or_else(|e| panic!("{protocol:?} {binding:?}: {e}"));
            events += 1;
        }
        assert!(events >= 2, "{protocol:?} {binding:?}: a whole stream, {events} events");
        let numbered: Vec<Option<u64>> = connection
            .wire_deviations()
            .iter()
            .filter(|d| d.kind() == DeviationKind::JsonTextSequence)
            .map(|d| d.event)
            .collect();
        let expected: Vec<Option<u64>> = (1..=events).map(Some).collect();
        assert_eq!(numbered, expected, "{protocol:?} {binding:?}");
        assert!(
            connection.wire_deviations().iter().all(|d| d.kind() != DeviationKind::JsonTextSequence
                || d.deviation.found == "a record separator (0x1E) before the event's JSON"),
            "{protocol:?} {binding:?}: {:?}",
            connection.wire_deviations()
        );
    }
}

#[tokio::test]
async fn a_leading_record_separator_is_bad_input_naming_it_under_strict_reading_on_every_sse_binding() {
    for (protocol, binding) in EVERY_BINDING.into_iter().filter(|(_, b)| streams_over_sse(*b)) {
        let agent = spawn(protocol, binding).await;
        let client = reading(WireReading::Strict);
        let connection = connect(&client, &agent, protocol, binding).await;
        let err =
            connection.send_streaming_message(SendMessageRequest::new(text("stream"))).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput, "{protocol:?} {binding:?}: {err}");
        let parse = err.parse_error().expect("the parse error");
        assert!(
            parse.message().starts_with("event data starts with a record separator (0x1E)"),
            "{protocol:?} {binding:?}: {parse}"
        );
        assert!(connection.wire_deviations().is_empty(), "strict reading records nothing");
    }
}

/// Serves the card of `agent` (rewritten to point here) and answers every JSON-RPC call with one SSE
/// event whose `data` is `data`.
async fn agent_writing(agent: &RunningAgent, data: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = agent.card().to_string().replace(agent.base_url().trim_end_matches('/'), &base);
    let card: &'static str = Box::leak(card.into_boxed_str());
    let card_path = reqwest::Url::parse(&agent.card_url()).unwrap().path().to_owned();
    let rpc_path = reqwest::Url::parse(&agent.jsonrpc_url()).unwrap().path().to_owned();
    let app = axum::Router::new()
        .route(
            &card_path,
            axum::routing::get(move || async move { ([("content-type", "application/json")], card) }),
        )
        .route(
            &rpc_path,
            axum::routing::post(move || async move {
                ([("content-type", "text/event-stream")], format!("data: {data}\n\n"))
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test]
async fn a_record_separator_anywhere_but_the_start_of_the_data_is_bad_input_under_either_reading() {
    let template = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .bindings([Binding::JsonRpc])
        .spawn()
        .await
        .unwrap();
    const TASK: &str =
        r#""result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
    let written: [&'static str; 4] = [
        // After whitespace: RFC 7464 puts separators before a text, not inside one.
        Box::leak(format!(" \u{1e}{{\"jsonrpc\":\"2.0\",{TASK}}}").into_boxed_str()),
        // After the text: the start of an empty next text.
        Box::leak(format!("{{\"jsonrpc\":\"2.0\",{TASK}}}\u{1e}").into_boxed_str()),
        // Inside the text, between tokens.
        Box::leak(format!("{{\"jsonrpc\":\u{1e}\"2.0\",{TASK}}}").into_boxed_str()),
        // Inside a string: a raw control character JSON does not allow.
        Box::leak(format!("{{\"jsonrpc\":\"2.0\u{1e}\",{TASK}}}").into_boxed_str()),
    ];
    for data in written {
        let base = agent_writing(&template, data).await;
        for wire_reading in [WireReading::Strict, WireReading::Tolerant] {
            let client = reading(wire_reading);
            let connection = client.connect(&base).await.unwrap();
            let err =
                connection.send_streaming_message(SendMessageRequest::new(text("stream"))).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BadInput, "{data:?} {wire_reading:?}: {err}");
            let parse = err.parse_error().expect("the parse error");
            assert!(!parse.message().contains("record separator"), "{data:?} {wire_reading:?}: {parse}");
            assert!(
                connection.wire_deviations().iter().all(|d| d.kind() != DeviationKind::JsonTextSequence),
                "{data:?} {wire_reading:?}"
            );
        }
    }
}
