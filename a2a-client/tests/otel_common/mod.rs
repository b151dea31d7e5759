//! Helpers shared by the OpenTelemetry tests: a `tracing` subscriber exporting to an in-memory span
//! exporter, the trace id of a span, and what an in-memory metric exporter collected.
#![allow(dead_code)]

use opentelemetry::trace::{TraceContextExt as _, TraceId, TracerProvider as _};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::SubscriberExt as _;

/// Spans exported in memory, through a `tracing-opentelemetry` layer set as this thread's default
/// subscriber while the value lives.
pub struct Traces {
    pub exporter: InMemorySpanExporter,
    pub provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

impl Traces {
    pub fn install() -> Self {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("a2a-client-tests"));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        Self { exporter, provider, _guard: guard }
    }

    /// Every finished span.
    pub fn spans(&self) -> Vec<SpanData> {
        let _ = self.provider.force_flush();
        self.exporter.get_finished_spans().expect("finished spans")
    }
}

/// The trace id of a `tracing` span, as its OpenTelemetry context has it.
pub fn trace_id(span: &tracing::Span) -> TraceId {
    span.context().span().span_context().trace_id()
}

/// The trace id a `traceparent` header names (version 00).
pub fn trace_id_of(traceparent: &str) -> String {
    let fields: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(fields.len(), 4, "traceparent {traceparent}");
    assert_eq!(fields[0], "00", "traceparent {traceparent}");
    fields[1].to_owned()
}

/// Installs a global meter provider exporting to memory (before any client is built).
pub fn install_meter_provider() -> (SdkMeterProvider, InMemoryMetricExporter) {
    let exporter = InMemoryMetricExporter::default();
    let provider =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    opentelemetry::global::set_meter_provider(provider.clone());
    (provider, exporter)
}

/// One data point: its attributes (sorted) and value (a histogram's count).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub attributes: Vec<(String, String)>,
    pub value: f64,
}

impl Point {
    pub fn has(&self, key: &str, value: &str) -> bool {
        self.attributes.iter().any(|(k, v)| k == key && v == value)
    }
}

/// The latest data points of metric `name` (cumulative temporality: the last export holds all).
pub fn points(provider: &SdkMeterProvider, exporter: &InMemoryMetricExporter, name: &str) -> Vec<Point> {
    provider.force_flush().expect("flush");
    let exported = exporter.get_finished_metrics().expect("metrics");
    let Some(last) = exported.iter().rev().find(|resource| {
        resource.scope_metrics().any(|scope| scope.metrics().any(|metric| metric.name() == name))
    }) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for scope in last.scope_metrics() {
        for metric in scope.metrics().filter(|metric| metric.name() == name) {
            fn attrs<'a>(kvs: impl Iterator<Item = &'a opentelemetry::KeyValue>) -> Vec<(String, String)> {
                let mut list: Vec<_> = kvs.map(|kv| (kv.key.to_string(), kv.value.to_string())).collect();
                list.sort();
                list
            }
            match metric.data() {
                AggregatedMetrics::U64(MetricData::Sum(sum)) => found.extend(
                    sum.data_points()
                        .map(|p| Point { attributes: attrs(p.attributes()), value: p.value() as f64 }),
                ),
                AggregatedMetrics::U64(MetricData::Gauge(gauge)) => found.extend(
                    gauge
                        .data_points()
                        .map(|p| Point { attributes: attrs(p.attributes()), value: p.value() as f64 }),
                ),
                AggregatedMetrics::F64(MetricData::Histogram(histogram)) => found.extend(
                    histogram
                        .data_points()
                        .map(|p| Point { attributes: attrs(p.attributes()), value: p.count() as f64 }),
                ),
                other => panic!("{name}: unexpected data {other:?}"),
            }
        }
    }
    found
}
