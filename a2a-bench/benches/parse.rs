//! Figure 1: parsing and verification, each beside its floor (a plain `serde_json::Value` parse of
//! the same bytes, or a hand-written blank-line split for SSE framing).
//!
//! `cargo bench -p a2a-bench --bench parse`

use std::hint::black_box;
use std::time::Duration;

use a2a_bench::fixtures;
use a2a_typestate::{Bounds, Channel, Deployment, DynHandle, ExchangeModes, Observed};
use a2a_typestate_client::sse::{SseLimits, SseStream};
use a2a_typestate_client::{DiscoveredCard, WellKnownPath};
use a2a_typestate_types::jsonrpc::JsonRpcResponse;
use a2a_typestate_types::{AgentCard, StreamResponse, parse};
use bytes::Bytes;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::Value;

fn card(c: &mut Criterion) {
    let bytes = fixtures::PYTHON_PEER_CARD.as_bytes();
    let mut group = c.benchmark_group("card");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("serde_json::Value (floor)", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).map(|v| v.is_object()))
    });
    group.bench_function("a2a_typestate_types::AgentCard", |b| {
        b.iter(|| parse::from_slice::<AgentCard>(black_box(bytes)).map(|card| card.skills.len()))
    });
    group.bench_function("a2a_typestate_types::v03::read_any_card (discovery)", |b| {
        b.iter(|| a2a_typestate_types::v03::read_any_card(black_box(bytes)).map(|(shape, _)| shape))
    });
    group.finish();
}

fn stream_response(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream_response");
    for (name, data) in [
        ("status_update", fixtures::STATUS_UPDATE_EVENT),
        ("artifact_update", fixtures::ARTIFACT_UPDATE_EVENT),
    ] {
        let bytes = data.as_bytes();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("{name}/serde_json::Value (floor)"), |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).map(|v| v.is_object()))
        });
        group.bench_function(format!("{name}/JsonRpcResponse<StreamResponse>"), |b| {
            b.iter(|| {
                parse::from_slice::<JsonRpcResponse<StreamResponse>>(black_box(bytes))
                    .map(|response| response.into_result().is_ok())
            })
        });
    }
    group.finish();
}

/// A 1,000-event SSE body cut into 16 KiB chunks, as a socket would deliver it.
fn sse_chunks(events: usize) -> Vec<Bytes> {
    let body = fixtures::sse_body(events);
    body.as_bytes().chunks(16 * 1024).map(Bytes::copy_from_slice).collect()
}

/// The floor for framing: split on blank lines, strip `data: `.
fn split_frames(chunks: &[Bytes]) -> usize {
    split_frames_with(chunks, |_| true)
}

fn parse_value(data: &[u8]) -> bool {
    serde_json::from_slice::<Value>(data).is_ok_and(|v| v.get("result").is_some())
}

/// Splits on blank lines and counts the `data: ` frames `accept` takes.
fn split_frames_with(chunks: &[Bytes], accept: impl Fn(&[u8]) -> bool) -> usize {
    let mut pending: Vec<u8> = Vec::new();
    let mut events = 0;
    for chunk in chunks {
        pending.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(end) = pending.get(start..).and_then(|rest| rest.windows(2).position(|w| w == b"\n\n"))
        {
            let frame = pending.get(start..start + end).unwrap_or_default();
            if frame.strip_prefix(b"data: ").is_some_and(&accept) {
                events += 1;
            }
            start += end + 2;
        }
        pending.drain(..start);
    }
    events
}

fn sse_framing(c: &mut Criterion) {
    const EVENTS: usize = 1_000;
    let chunks = sse_chunks(EVENTS);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let mut group = c.benchmark_group("sse_framing_1000_events");
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.bench_function("blank-line split (floor)", |b| {
        b.iter(|| assert_eq!(split_frames(black_box(&chunks)), EVENTS))
    });
    group.bench_function("a2a_typestate_client::SseStream", |b| {
        b.iter_batched(
            || chunks.clone(),
            |chunks| {
                runtime.block_on(async {
                    let body =
                        futures::stream::iter(chunks.into_iter().map(Ok::<_, a2a_typestate_client::Error>));
                    let mut events = SseStream::new(body, SseLimits::default());
                    let mut n = 0;
                    while let Some(event) = events.next().await {
                        n += usize::from(event.is_ok());
                    }
                    assert_eq!(n, EVENTS);
                })
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("a2a_typestate_client::SseStream + JsonRpcResponse<StreamResponse>", |b| {
        b.iter_batched(
            || chunks.clone(),
            |chunks| {
                runtime.block_on(async {
                    let body =
                        futures::stream::iter(chunks.into_iter().map(Ok::<_, a2a_typestate_client::Error>));
                    let mut events = SseStream::new(body, SseLimits::default());
                    let mut n = 0;
                    while let Some(Ok(event)) = events.next().await {
                        let parsed = parse::from_str::<JsonRpcResponse<StreamResponse>>(&event.data);
                        n += usize::from(parsed.is_ok());
                    }
                    assert_eq!(n, EVENTS);
                })
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("blank-line split + serde_json::Value (floor)", |b| {
        b.iter(|| assert_eq!(split_frames_with(black_box(&chunks), parse_value), EVENTS))
    });
    group.finish();
}

fn verifier(c: &mut Criterion) {
    const EVENTS: usize = 1_000;
    // The claims as discovery lifts them from the served card.
    let source = "http://peer.example/.well-known/agent-card.json";
    let card =
        DiscoveredCard::from_bytes(fixtures::PYTHON_PEER_CARD.into(), source, WellKnownPath::AgentCard)
            .unwrap();
    let claims = card.claims(Deployment::Direct);
    let events: Vec<StreamResponse> = fixtures::stream_events(EVENTS)
        .iter()
        .map(|data| parse::from_str::<JsonRpcResponse<StreamResponse>>(data).unwrap().into_result().unwrap())
        .collect();
    let fresh_task = || {
        let mut task = DynHandle::new(claims.clone(), Bounds::default());
        let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
        task.observe(Duration::ZERO, sent).unwrap();
        task
    };
    let mut group = c.benchmark_group("verifier_1000_events");
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.bench_function("observe each event", |b| {
        b.iter_batched(
            fresh_task,
            |mut task| {
                for (n, event) in events.iter().enumerate() {
                    if let Some(observed) = Observed::from_stream_response(event, Channel::Stream) {
                        let _ = black_box(task.observe(Duration::from_micros(n as u64), observed));
                    }
                }
                // Return something small: criterion times the collection of outputs too.
                task.verifier().observations().len()
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("observe each event + settle once at the end", |b| {
        b.iter_batched(
            fresh_task,
            |mut task| {
                for (n, event) in events.iter().enumerate() {
                    if let Some(observed) = Observed::from_stream_response(event, Channel::Stream) {
                        let _ = black_box(task.observe(Duration::from_micros(n as u64), observed));
                    }
                }
                task.settle(Duration::from_millis(1)).is_ok()
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, card, stream_response, sse_framing, verifier);
criterion_main!(benches);
