//! Feature `otel`: the caller's W3C trace context reaches the agent on every binding (JSON-RPC,
//! HTTP+JSON, gRPC metadata, JSON-RPC 0.3, and the SSE streams), taken from the current `tracing`
//! span or, without one, from the OpenTelemetry API's current context; and with no trace context at
//! all, nothing is added.

mod otel_common;
mod transport_common;

use a2a_testkit::{Binding, Capabilities, Protocol, RunningAgent, ScriptedAgent};
use a2a_typestate_client::otel::{TRACEPARENT_HEADER, TRACESTATE_HEADER};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState};
use otel_common::{Traces, trace_id, trace_id_of};
use tracing::Instrument as _;
use transport_common::{client, connect_over, text};

async fn agent(protocol: Protocol) -> RunningAgent {
    ScriptedAgent::builder()
        .protocol(protocol)
        .capabilities(Capabilities::none().with_streaming())
        .bindings([Binding::JsonRpc, Binding::HttpJson, Binding::Grpc])
        .spawn()
        .await
        .unwrap()
}

/// Sends a message and opens a stream over `binding`; returns the `traceparent` and `tracestate`
/// of each A2A request the agent received.
async fn headers_over(
    agent: &RunningAgent,
    version: ProtocolVersion,
    binding: ProtocolBinding,
) -> Vec<(Option<String>, Option<String>)> {
    let connection = connect_over(&client(), agent, version, binding).await;
    connection.send_message(text("hi")).await.unwrap();
    drop(connection.send_streaming_message(text("hi")).await.unwrap());
    let sent: Vec<_> = agent.requests().into_iter().filter(|r| r.operation.is_some()).collect();
    assert!(sent.len() >= 2, "{sent:?}");
    sent.iter()
        .map(|r| {
            (r.header(TRACEPARENT_HEADER).map(str::to_owned), r.header(TRACESTATE_HEADER).map(str::to_owned))
        })
        .collect()
}

async fn the_callers_trace_reaches_the_agent_over(version: ProtocolVersion, binding: ProtocolBinding) {
    let protocol = if version == ProtocolVersion::V0_3 { Protocol::V0_3 } else { Protocol::V1_0 };
    let agent = agent(protocol).await;
    let _traces = Traces::install();
    let caller = tracing::info_span!("caller");
    let expected = trace_id(&caller).to_string();
    let seen = headers_over(&agent, version, binding.clone()).instrument(caller).await;
    for (traceparent, _) in seen {
        let traceparent = traceparent.unwrap_or_else(|| panic!("{binding}: no traceparent"));
        assert_eq!(trace_id_of(&traceparent), expected, "{binding}");
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn the_callers_trace_reaches_the_agent_over_json_rpc() {
    the_callers_trace_reaches_the_agent_over(ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await;
}

#[tokio::test]
async fn the_callers_trace_reaches_the_agent_over_http_json() {
    the_callers_trace_reaches_the_agent_over(ProtocolVersion::V1_0, ProtocolBinding::HttpJson).await;
}

#[tokio::test]
async fn the_callers_trace_reaches_the_agent_over_grpc_metadata() {
    the_callers_trace_reaches_the_agent_over(ProtocolVersion::V1_0, ProtocolBinding::Grpc).await;
}

#[tokio::test]
async fn the_callers_trace_reaches_a_v03_agent() {
    the_callers_trace_reaches_the_agent_over(ProtocolVersion::V0_3, ProtocolBinding::JsonRpc).await;
}

#[tokio::test]
async fn without_a_tracing_span_the_opentelemetry_context_is_sent_as_w3c_trace_context() {
    let agent = agent(Protocol::V1_0).await;
    let parent = SpanContext::new(
        TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
        SpanId::from_hex("00f067aa0ba902b7").unwrap(),
        TraceFlags::SAMPLED,
        true,
        "vendor=opaque".parse::<TraceState>().unwrap(),
    );
    let _attached = opentelemetry::Context::new().with_remote_span_context(parent.clone()).attach();
    for (traceparent, tracestate) in
        headers_over(&agent, ProtocolVersion::V1_0, ProtocolBinding::HttpJson).await
    {
        let traceparent = traceparent.expect("traceparent");
        assert_eq!(traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assert_eq!(tracestate.as_deref(), Some("vendor=opaque"));
        // What the SDK's own W3C propagator reads back is the context sent.
        let carrier = std::collections::HashMap::from([
            (TRACEPARENT_HEADER.to_owned(), traceparent),
            (TRACESTATE_HEADER.to_owned(), tracestate.unwrap()),
        ]);
        let read = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
        let read = read.span().span_context().clone();
        assert_eq!(
            (read.trace_id(), read.span_id(), read.trace_flags()),
            (parent.trace_id(), parent.span_id(), parent.trace_flags())
        );
        assert_eq!(read.trace_state().header(), "vendor=opaque");
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn with_no_trace_context_no_trace_headers_are_added() {
    let agent = agent(Protocol::V1_0).await;
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        for (traceparent, tracestate) in headers_over(&agent, ProtocolVersion::V1_0, binding.clone()).await {
            assert_eq!((traceparent, tracestate), (None, None), "{binding}");
        }
    }
    agent.shutdown().await;
}
