//! OpenTelemetry (feature `otel`): the caller's trace context on every outgoing call, and the client's
//! counters as OpenTelemetry metrics.
//!
//! **Trace context.** Every request the client sends to an agent (JSON-RPC 1.0 and 0.3, HTTP+JSON,
//! their SSE streams, and gRPC as metadata) carries the W3C Trace Context headers `traceparent` and
//! `tracestate` of the current context, written where each wire builds its requests. The current
//! context is the current `tracing` span's OpenTelemetry context, as `tracing-opentelemetry` keeps it
//! ([`OpenTelemetrySpanExt::context`](tracing_opentelemetry::OpenTelemetrySpanExt::context) on
//! [`tracing::Span::current`]); when that span carries no valid span context (no
//! `tracing-opentelemetry` layer, or no span), [`opentelemetry::Context::current`] (a context the
//! caller attached with the OpenTelemetry API). Inside [`Client::run_task`](crate::Client::run_task)
//! the current span is the `a2a.task` span, a child of the caller's: the agent sees the caller's
//! trace id. With no valid span context anywhere, nothing is added. Only the W3C trace context is
//! written, whatever global propagator is installed (no baggage).
//!
//! **Metrics.** The instruments are made from the global meter provider
//! ([`opentelemetry::global::meter_provider`]) when a [`Client`](crate::Client) is built, under the
//! instrumentation scope [`INSTRUMENTATION_SCOPE`]: install the provider first. Until one is
//! installed the global provider is a no-op, and nothing is exported. Each instrument is fed by the
//! [`Metrics`](crate::Metrics) counter that counts the same thing:
//!
//! | instrument | kind | attributes | fed by |
//! |---|---|---|---|
//! | [`CALL_DURATION`] (`s`) | histogram | `rpc.method`, `a2a.binding`, `a2a.protocol.version`, `a2a.call.outcome`, `error.type` on failure | every operation on an [`AgentConnection`](crate::AgentConnection) |
//! | [`TASKS`] | counter | `a2a.task.path` (`negotiated`, `single_shot_suspect`, `kept_after_refusal`, `fallback`, `ended_with_refusal`, `failed_fast_unavailable`) | `record_negotiated_task`, `record_suspect_single_shot`, `record_refused_result_kept`, `record_fallback`, `record_ended_with_refusal`, `record_breaker_fail_fast` |
//! | [`REFUSALS`] | counter | `a2a.capability` | `record_refusal` |
//! | [`SUSPECT_MARKS_SET`] | counter | `a2a.capability` | `record_suspect_mark` |
//! | [`SUSPECT_MARKS_ACTIVE`] | observable gauge | `a2a.capability` | the client's discovery cache, read at each collection |
//! | [`WASTED_ROUND_TRIPS`] | counter | — | `record_wasted_round_trips` |
//! | [`RETRIES`] | counter | — | `record_retry` |
//! | [`BREAKER_TRANSITIONS`] | counter | `a2a.breaker.transition` (`open`, `closed`, `probe`) | `record_breaker`, `record_breaker_probe` |
//!
//! No attribute holds a URL, a header or a credential.
//!
//! ```
//! use a2a_typestate_client::otel;
//!
//! assert_eq!(otel::CALL_DURATION, "rpc.client.call.duration");
//! assert_eq!(otel::TRACEPARENT_HEADER, "traceparent");
//! ```

use std::time::Duration;

use opentelemetry::metrics::{Counter, Histogram, Meter, ObservableGauge};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry::{InstrumentationScope, KeyValue};

use crate::Capability;

/// The instrumentation scope the client's instruments are made under.
pub const INSTRUMENTATION_SCOPE: &str = "a2a-typestate-client";
/// The W3C Trace Context header naming the trace and the parent span.
pub const TRACEPARENT_HEADER: &str = "traceparent";
/// The W3C Trace Context header carrying vendor state.
pub const TRACESTATE_HEADER: &str = "tracestate";

/// Histogram of each operation's duration in seconds, retries included (the semantic conventions'
/// RPC client call duration).
pub const CALL_DURATION: &str = "rpc.client.call.duration";
/// Counter of tasks, by the path they took (`a2a.task.path`).
pub const TASKS: &str = "a2a.client.tasks";
/// Counter of refused claims, by capability (`a2a.capability`).
pub const REFUSALS: &str = "a2a.client.refusals";
/// Counter of capability-suspect marks this client set, by capability.
pub const SUSPECT_MARKS_SET: &str = "a2a.client.suspect_marks.set";
/// Gauge of unexpired capability-suspect marks in the client's discovery cache, by capability.
pub const SUSPECT_MARKS_ACTIVE: &str = "a2a.client.suspect_marks.active";
/// Counter of negotiation round trips spent on tasks whose claims were then refused.
pub const WASTED_ROUND_TRIPS: &str = "a2a.client.wasted_round_trips";
/// Counter of attempts repeated after a transport fault.
pub const RETRIES: &str = "a2a.client.retries";
/// Counter of availability breaker transitions this client made (`a2a.breaker.transition`).
pub const BREAKER_TRANSITIONS: &str = "a2a.client.breaker.transitions";

/// Writes the W3C trace context of the current context into `headers`; nothing when there is no
/// valid span context.
pub(crate) fn inject_trace_context(headers: &mut http::HeaderMap) {
    let context = current_context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return;
    }
    // Version 00: trace id, parent span id, flags (W3C Trace Context, level 1, §3.2).
    let parent = format!(
        "00-{}-{}-{:02x}",
        span_context.trace_id(),
        span_context.span_id(),
        span_context.trace_flags().to_u8()
    );
    if let Ok(value) = http::HeaderValue::from_str(&parent) {
        headers.insert(TRACEPARENT_HEADER, value);
    }
    let state = span_context.trace_state().header();
    if !state.is_empty()
        && let Ok(value) = http::HeaderValue::from_str(&state)
    {
        headers.insert(TRACESTATE_HEADER, value);
    }
}

/// The context whose span the outgoing call belongs to: the current `tracing` span's, else the
/// OpenTelemetry API's current context.
fn current_context() -> opentelemetry::Context {
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let from_span = tracing::Span::current().context();
    if from_span.span().span_context().is_valid() { from_span } else { opentelemetry::Context::current() }
}

/// The unexpired suspect marks of a cache, by capability, read at each collection.
pub(crate) type ActiveMarks = Box<dyn Fn() -> Vec<(Capability, u64)> + Send + Sync>;

/// The client's instruments, made once from the global meter provider.
pub(crate) struct Instruments {
    call_duration: Histogram<f64>,
    tasks: Counter<u64>,
    refusals: Counter<u64>,
    suspect_marks_set: Counter<u64>,
    wasted_round_trips: Counter<u64>,
    retries: Counter<u64>,
    breaker: Counter<u64>,
    /// Kept so its callback stays registered as long as the counters live.
    _suspect_marks_active: ObservableGauge<u64>,
}

impl std::fmt::Debug for Instruments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instruments").finish_non_exhaustive()
    }
}

/// How one operation ended, for [`Instruments::call`].
#[derive(Clone, Debug)]
pub(crate) struct CallRecord {
    pub(crate) operation: &'static str,
    pub(crate) binding: &'static str,
    pub(crate) version: &'static str,
    /// `None` when the call succeeded, else the error kind's name.
    pub(crate) error: Option<String>,
    pub(crate) elapsed: Duration,
}

impl Instruments {
    /// The instruments from the global meter provider; the gauge reads `active_marks`.
    pub(crate) fn from_global(active_marks: ActiveMarks) -> Self {
        let scope = InstrumentationScope::builder(INSTRUMENTATION_SCOPE)
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let meter = opentelemetry::global::meter_with_scope(scope);
        Self::new(&meter, active_marks)
    }

    fn new(meter: &Meter, active_marks: ActiveMarks) -> Self {
        Self {
            call_duration: meter
                .f64_histogram(CALL_DURATION)
                .with_unit("s")
                .with_description("Duration of each A2A operation, retries included")
                .build(),
            tasks: meter.u64_counter(TASKS).with_description("Tasks, by the path they took").build(),
            refusals: meter
                .u64_counter(REFUSALS)
                .with_description("Card claims refused because the agent contradicted them")
                .build(),
            suspect_marks_set: meter
                .u64_counter(SUSPECT_MARKS_SET)
                .with_description("Capability-suspect marks set after a refusal")
                .build(),
            wasted_round_trips: meter
                .u64_counter(WASTED_ROUND_TRIPS)
                .with_description("Negotiation round trips spent on tasks whose claims were refused")
                .build(),
            retries: meter
                .u64_counter(RETRIES)
                .with_description("Attempts repeated after a transport fault")
                .build(),
            breaker: meter
                .u64_counter(BREAKER_TRANSITIONS)
                .with_description("Availability breaker transitions: opened, closed, probe sent")
                .build(),
            _suspect_marks_active: meter
                .u64_observable_gauge(SUSPECT_MARKS_ACTIVE)
                .with_description("Unexpired capability-suspect marks in the discovery cache")
                .with_callback(move |observer| {
                    for (capability, count) in active_marks() {
                        observer.observe(count, &[capability_attribute(capability)]);
                    }
                })
                .build(),
        }
    }

    pub(crate) fn call(&self, call: CallRecord) {
        let mut attributes = vec![
            KeyValue::new("rpc.method", call.operation),
            KeyValue::new("a2a.binding", call.binding),
            KeyValue::new("a2a.protocol.version", call.version),
            KeyValue::new("a2a.call.outcome", call.error.clone().unwrap_or_else(|| "ok".to_owned())),
        ];
        if let Some(error) = call.error {
            attributes.push(KeyValue::new("error.type", error));
        }
        self.call_duration.record(call.elapsed.as_secs_f64(), &attributes);
    }

    pub(crate) fn task(&self, path: &'static str) {
        self.tasks.add(1, &[KeyValue::new("a2a.task.path", path)]);
    }

    pub(crate) fn refusal(&self, capability: Capability) {
        self.refusals.add(1, &[capability_attribute(capability)]);
    }

    pub(crate) fn suspect_mark(&self, capability: Capability) {
        self.suspect_marks_set.add(1, &[capability_attribute(capability)]);
    }

    pub(crate) fn wasted_round_trips(&self, count: u64) {
        self.wasted_round_trips.add(count, &[]);
    }

    pub(crate) fn retry(&self) {
        self.retries.add(1, &[]);
    }

    pub(crate) fn breaker(&self, transition: &'static str) {
        self.breaker.add(1, &[KeyValue::new("a2a.breaker.transition", transition)]);
    }
}

fn capability_attribute(capability: Capability) -> KeyValue {
    KeyValue::new("a2a.capability", capability.card_field())
}
