//! `a2a watch` with the feature `otel`: the watch's state read through OpenTelemetry instruments of
//! the global meter provider (here one exporting to memory), as a process embedding a `Watch` would.

use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::Deployment;
use a2a_typestate_cli::watch::{Retention, Watch, WatchOptions, otel};
use a2a_typestate_client::audit::AuditOptions;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

/// Each data point of `name` in the latest export: its attributes (sorted) and value.
fn points(
    provider: &SdkMeterProvider,
    exporter: &InMemoryMetricExporter,
    name: &str,
) -> Vec<(Vec<(String, String)>, f64)> {
    provider.force_flush().unwrap();
    let exported = exporter.get_finished_metrics().unwrap();
    let mut found = Vec::new();
    let Some(last) =
        exported.iter().rev().find(|r| r.scope_metrics().any(|s| s.metrics().any(|m| m.name() == name)))
    else {
        return found;
    };
    for scope in last.scope_metrics() {
        for metric in scope.metrics().filter(|m| m.name() == name) {
            let attrs = |kvs: &mut dyn Iterator<Item = &opentelemetry::KeyValue>| {
                let mut list: Vec<_> = kvs.map(|kv| (kv.key.to_string(), kv.value.to_string())).collect();
                list.sort();
                list
            };
            match metric.data() {
                AggregatedMetrics::U64(MetricData::Gauge(gauge)) => {
                    found.extend(gauge.data_points().map(|p| (attrs(&mut p.attributes()), p.value() as f64)));
                }
                AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                    found.extend(sum.data_points().map(|p| (attrs(&mut p.attributes()), p.value() as f64)));
                }
                AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                    found.extend(
                        histogram.data_points().map(|p| (attrs(&mut p.attributes()), p.count() as f64)),
                    );
                }
                other => panic!("{name}: unexpected data {other:?}"),
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watch_offers_its_verdicts_marks_and_durations_as_opentelemetry_instruments() {
    let exporter = InMemoryMetricExporter::default();
    let provider =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    opentelemetry::global::set_meter_provider(provider.clone());
    let liar = ScriptedAgent::builder()
        .name("liar")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let options = WatchOptions {
        interval: Duration::from_secs(3600),
        jitter: Duration::from_millis(10),
        listen: "127.0.0.1:0".parse().unwrap(),
        store: None,
        retention: Retention { keep: 10, max_age: Duration::from_secs(3600) },
        audit: AuditOptions { push_arrival_bound: Duration::from_secs(1), ..AuditOptions::default() },
        ..WatchOptions::default()
    };
    let watch = Watch::start(vec![(liar.base_url(), Deployment::Direct)], options).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let verdicts = loop {
        let verdicts = points(&provider, &exporter, otel::CLAIM_VERDICT);
        if !verdicts.is_empty() {
            break verdicts;
        }
        assert!(tokio::time::Instant::now() < deadline, "no verdict was ever observed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // One point per claim the audit reported (the card claims too) and verdict; the current one is 1.
    let streaming = ("a2a.claim".to_owned(), "streaming".to_owned());
    let current: Vec<_> = verdicts
        .iter()
        .filter(|(attributes, value)| *value == 1.0 && attributes.contains(&streaming))
        .collect();
    assert_eq!(current.len(), 1, "{verdicts:?}");
    let (attributes, _) = current[0];
    assert!(attributes.contains(&("a2a.verdict".to_owned(), "refused".to_owned())), "{attributes:?}");
    assert!(attributes.contains(&("a2a.agent".to_owned(), "liar".to_owned())), "{attributes:?}");
    let marks = points(&provider, &exporter, otel::MARKS_ACTIVE);
    assert_eq!(marks.iter().map(|(_, v)| *v).sum::<f64>(), 1.0, "{marks:?}");
    let audits = points(&provider, &exporter, otel::AUDITS);
    assert_eq!(audits.iter().map(|(_, v)| *v).sum::<f64>(), 1.0, "{audits:?}");
    let durations = points(&provider, &exporter, otel::AUDIT_DURATION);
    assert_eq!(durations.iter().map(|(_, v)| *v).sum::<f64>(), 1.0, "{durations:?}");
    watch.stop().await;
}
