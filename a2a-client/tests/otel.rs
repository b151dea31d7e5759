//! Feature `otel`: a refused claim, the suspect mark it sets and the fallback it takes show as
//! events on the exported `a2a.task` span, and the client's counts reach the OpenTelemetry metrics
//! with their attributes. The global meter provider is installed once, before any client is built,
//! so this binary holds one test.

mod negotiation_common;
mod otel_common;

use a2a_testkit::{Capabilities, Lie, Script};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, otel, task_events};
use negotiation_common::{builder, spawn, text};
use opentelemetry::Value;
use otel_common::{Traces, install_meter_provider, points, trace_id, trace_id_of};
use tracing::Instrument as _;

fn attribute<'a>(attributes: &'a [opentelemetry::KeyValue], key: &str) -> Option<&'a Value> {
    attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

#[tokio::test]
async fn a_refusal_its_suspect_mark_and_its_fallback_or_kept_result_are_span_events_and_metrics() {
    let (meters, metrics) = install_meter_provider();
    let traces = Traces::install();
    let client = builder().build().unwrap();
    // Refuses the stream before any task exists (the fallback is the work's first run)...
    let liar =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamingRefused)).await;
    // ...and refused at the stream's end, once the task completed (its result is kept).
    let keeper =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let streaming = Negotiation::depending_on(&[Capability::Streaming]);

    // The caller's own span: the task span is its child, and the agent sees its trace.
    let caller = tracing::info_span!("caller");
    let caller_trace = trace_id(&caller);
    let refused =
        client.run_task(&liar.base_url(), text("hi"), &streaming).instrument(caller.clone()).await.unwrap();
    assert_eq!(refused.path, TaskPath::Fallback);
    let kept =
        client.run_task(&keeper.base_url(), text("hi"), &streaming).instrument(caller.clone()).await.unwrap();
    assert_eq!(kept.path, TaskPath::KeptAfterRefusal);
    let suspect = client
        .run_task(&liar.base_url(), text("again"), &streaming)
        .instrument(caller.clone())
        .await
        .unwrap();
    assert!(matches!(suspect.path, TaskPath::SingleShotBecauseSuspect(_)));
    let negotiated =
        client.run_task(&honest.base_url(), text("hi"), &streaming).instrument(caller.clone()).await.unwrap();
    assert_eq!(negotiated.path, TaskPath::Negotiated);
    drop(caller);

    let requests = [liar.requests(), keeper.requests(), honest.requests()].concat();
    for request in requests.iter().filter(|r| r.operation.is_some()) {
        let header = request.header(otel::TRACEPARENT_HEADER).expect("every A2A call carries traceparent");
        assert_eq!(trace_id_of(header), caller_trace.to_string(), "{:?}", request.operation);
    }

    // The spans: four task spans, children of the caller's, in its trace.
    let spans = traces.spans();
    let tasks: Vec<_> = spans.iter().filter(|s| s.name == "a2a.task").collect();
    assert_eq!(tasks.len(), 4, "{spans:#?}");
    assert!(tasks.iter().all(|s| s.span_context.trace_id() == caller_trace));
    let events = |span: &opentelemetry_sdk::trace::SpanData| -> Vec<(String, Vec<opentelemetry::KeyValue>)> {
        span.events.events.iter().map(|e| (e.name.to_string(), e.attributes.clone())).collect()
    };
    let fallback_span = tasks
        .iter()
        .find(|s| attribute(&s.attributes, "path").is_some_and(|v| v.as_str() == "fallback"))
        .expect("the fallback task's span");
    let seen = events(fallback_span);
    let named =
        |name: &str| seen.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name} in {seen:#?}"));
    let (_, refused_event) = named(task_events::CLAIM_REFUSED);
    assert_eq!(attribute(refused_event, "a2a.capability").map(Value::as_str).as_deref(), Some("streaming"));
    assert!(attribute(refused_event, "a2a.evidence").is_some_and(|v| v.as_str().starts_with("event #")));
    assert!(attribute(refused_event, "a2a.contradiction").is_some());
    let (_, marked) = named(task_events::SUSPECT_MARK_SET);
    assert_eq!(attribute(marked, "a2a.capability").map(Value::as_str).as_deref(), Some("streaming"));
    let (_, fell_back) = named(task_events::FALLBACK);
    assert!(attribute(fell_back, "a2a.negotiation.round_trips").is_some());
    let order: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();
    let at = |name| order.iter().position(|n| *n == name).unwrap();
    assert!(at(task_events::CLAIM_REFUSED) < at(task_events::SUSPECT_MARK_SET));
    assert!(at(task_events::SUSPECT_MARK_SET) < at(task_events::FALLBACK));
    // No task existed when the stream was refused: the fallback cannot have run the work twice.
    assert_eq!(
        attribute(&fallback_span.attributes, "may_have_run_twice").map(Value::as_str).as_deref(),
        Some("false")
    );

    let kept_span = tasks
        .iter()
        .find(|s| attribute(&s.attributes, "path").is_some_and(|v| v.as_str() == "kept_after_refusal"))
        .expect("the kept task's span");
    let seen = events(kept_span);
    let (_, kept_event) = seen
        .iter()
        .find(|(n, _)| n == task_events::RESULT_KEPT)
        .unwrap_or_else(|| panic!("no {} in {seen:#?}", task_events::RESULT_KEPT));
    assert_eq!(
        attribute(kept_event, "a2a.task.state").map(Value::as_str).as_deref(),
        Some("TASK_STATE_COMPLETED")
    );
    assert!(seen.iter().all(|(n, _)| n != task_events::FALLBACK), "nothing sent again: {seen:#?}");
    assert_eq!(
        attribute(&kept_span.attributes, "may_have_run_twice").map(Value::as_str).as_deref(),
        Some("false")
    );

    let suspect_span = tasks
        .iter()
        .find(|s| attribute(&s.attributes, "path").is_some_and(|v| v.as_str() == "single_shot_suspect"))
        .unwrap();
    assert!(events(suspect_span).iter().any(|(n, _)| n == task_events::SUSPECT_SINGLE_SHOT));
    let negotiated_span = tasks
        .iter()
        .find(|s| attribute(&s.attributes, "path").is_some_and(|v| v.as_str() == "negotiated"))
        .unwrap();
    let verified = events(negotiated_span);
    let (_, verified) =
        verified.iter().find(|(n, _)| n == task_events::CLAIM_VERIFIED).expect("a verified claim event");
    assert_eq!(attribute(verified, "a2a.capability").map(Value::as_str).as_deref(), Some("streaming"));

    // The metrics, with the attributes named in `a2a_typestate_client::otel`.
    let tasks = points(&meters, &metrics, otel::TASKS);
    for path in ["fallback", "kept_after_refusal", "single_shot_suspect", "negotiated"] {
        let point = tasks
            .iter()
            .find(|p| p.has("a2a.task.path", path))
            .unwrap_or_else(|| panic!("{path}: {tasks:?}"));
        assert_eq!(point.value, 1.0, "{path}");
    }
    let refusals = points(&meters, &metrics, otel::REFUSALS);
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(refusals[0].has("a2a.capability", "streaming") && refusals[0].value == 2.0);
    let marks = points(&meters, &metrics, otel::SUSPECT_MARKS_SET);
    assert!(marks.iter().any(|p| p.has("a2a.capability", "streaming") && p.value == 2.0), "{marks:?}");
    let active = points(&meters, &metrics, otel::SUSPECT_MARKS_ACTIVE);
    assert!(active.iter().any(|p| p.has("a2a.capability", "streaming") && p.value == 2.0), "{active:?}");
    assert!(
        active.iter().any(|p| p.has("a2a.capability", "pushNotifications") && p.value == 0.0),
        "{active:?}"
    );
    let wasted = points(&meters, &metrics, otel::WASTED_ROUND_TRIPS);
    let snapshot = client.metrics().snapshot();
    assert!(snapshot.wasted_round_trips > 0);
    assert_eq!(wasted.iter().map(|p| p.value).sum::<f64>(), snapshot.wasted_round_trips as f64);
    assert_eq!((snapshot.negotiated_tasks, snapshot.suspect_marks_set), (1, 2));
    assert_eq!((snapshot.fallbacks, snapshot.refused_results_kept, snapshot.may_have_run_twice), (1, 1, 0));
    let calls = points(&meters, &metrics, otel::CALL_DURATION);
    // Streamed calls are one point per outcome (the liar's refused stream, the others' answered
    // ones), in whatever order the SDK keeps them.
    let streamed: Vec<_> = calls
        .iter()
        .filter(|p| p.has("rpc.method", "SendStreamingMessage") && p.has("a2a.binding", "JSONRPC"))
        .collect();
    assert!(streamed.iter().all(|p| p.has("a2a.protocol.version", "1.0")), "{streamed:?}");
    let answered =
        streamed.iter().find(|p| p.has("a2a.call.outcome", "ok")).unwrap_or_else(|| panic!("{calls:?}"));
    assert!(answered.value >= 2.0, "the keeper's and the honest agent's streams: {answered:?}");
    assert!(answered.attributes.iter().all(|(k, _)| k != "error.type"), "{answered:?}");
    let failed =
        streamed.iter().find(|p| !p.has("a2a.call.outcome", "ok")).unwrap_or_else(|| panic!("{calls:?}"));
    let outcome = failed.attributes.iter().find(|(k, _)| k == "a2a.call.outcome").map(|(_, v)| v);
    let error_type = failed.attributes.iter().find(|(k, _)| k == "error.type").map(|(_, v)| v);
    assert!(outcome.is_some() && outcome == error_type, "the liar's refused stream: {failed:?}");
    let sends: f64 = calls.iter().filter(|p| p.has("rpc.method", "SendMessage")).map(|p| p.value).sum();
    assert!(sends >= 2.0, "the fallback and the suspect single-shot: {calls:?}");
    assert!(
        calls.iter().all(|p| p.attributes.iter().all(|(_, v)| !v.contains("http://"))),
        "no URL as attribute"
    );
    liar.shutdown().await;
    keeper.shutdown().await;
    honest.shutdown().await;
}
