//! The project's own generative red team: hostile documents generated over sizes, counts, nesting
//! and framing (event streams with long fields and many events cut into chunks of any size, cards
//! with many members of every kind, tasks with many artifacts and deep metadata), each read the way
//! the client reads it, with the peak memory allocated and the time taken held to a budget
//! proportional to what was sent. Whatever is refused (too large, too deep) must be refused with an
//! error, never a panic, and within the same budget.
//!
//! CI runs a short budget of cases; `A2A_RED_TEAM_CASES=2000 cargo test -p a2a-typestate-client
//! --test hostile_generated -- --nocapture` runs a longer one and prints the worst ratio found.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use a2a_typestate::Deployment;
use a2a_typestate_client::sse::{SseLimits, SseStream};
use a2a_typestate_client::{DiscoveredCard, WellKnownPath};
use a2a_typestate_types::{StreamResponse, Task};
use futures::StreamExt;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[global_allocator]
static ALLOCATOR: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

/// One measurement at a time: the allocator's counters are the whole process's.
static MEASURING: Mutex<()> = Mutex::new(());

/// The worst peak-to-input ratio seen, for the report.
static WORST: Mutex<(f64, String)> = Mutex::new((0.0, String::new()));

/// Peak bytes per byte sent that any reading may cost, beyond a fixed allowance: the model costs
/// about twelve bytes per byte for the densest documents (a part of `{"text":""}` is a struct of
/// a hundred bytes); a cost that grows faster than the input passes any constant soon.
const MEMORY_PER_BYTE: usize = 32;
const MEMORY_ALLOWANCE: usize = 4 << 20;
/// Time per byte sent, beyond a fixed allowance: generous (CI machines are shared), there to catch
/// a cost that grows faster than the input, not to time the client.
const TIME_PER_BYTE: Duration = Duration::from_micros(2);
const TIME_ALLOWANCE: Duration = Duration::from_millis(750);

/// Runs `read` on `sent` bytes, and holds its peak memory and time to the budget.
fn within_budget(what: &str, sent: usize, read: impl FnOnce()) -> Result<(), TestCaseError> {
    let start = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let began = Instant::now();
    read();
    let took = began.elapsed();
    let peak = ALLOCATOR.peak_usage().saturating_sub(start);
    let ratio = peak as f64 / sent.max(1) as f64;
    {
        let mut worst = WORST.lock().unwrap_or_else(|e| e.into_inner());
        if ratio > worst.0 && sent > 64 * 1024 {
            *worst = (ratio, format!("{what}: {sent} bytes sent, {peak} peak, {took:?}"));
            eprintln!("worst so far: {ratio:.1} bytes per byte sent ({})", worst.1);
        }
    }
    prop_assert!(
        peak <= MEMORY_PER_BYTE * sent + MEMORY_ALLOWANCE,
        "{what}: {peak} bytes peak for {sent} sent"
    );
    let budget = TIME_PER_BYTE * u32::try_from(sent).unwrap_or(u32::MAX) + TIME_ALLOWANCE;
    prop_assert!(took <= budget, "{what}: {took:?} for {sent} bytes (budget {budget:?})");
    Ok(())
}

fn cases() -> u32 {
    std::env::var("A2A_RED_TEAM_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(24)
}

/// An event stream as a hostile agent may frame it.
#[derive(Debug, Clone)]
struct Stream {
    events: usize,
    text_bytes: usize,
    id_bytes: usize,
    event_type_bytes: usize,
    comment_bytes: usize,
    data_lines: usize,
    crlf: bool,
    chunk: usize,
}

fn stream() -> impl Strategy<Value = Stream> {
    (
        0usize..1_500,
        prop_oneof![0usize..64, 0usize..70_000],
        prop_oneof![0usize..16, 0usize..2_000_000],
        prop_oneof![0usize..16, 0usize..500_000],
        prop_oneof![Just(0usize), 0usize..300_000],
        1usize..8,
        any::<bool>(),
        prop_oneof![1usize..16, 16usize..70_000],
    )
        .prop_map(
            |(events, text_bytes, id_bytes, event_type_bytes, comment_bytes, data_lines, crlf, chunk)| {
                Stream {
                    events,
                    text_bytes,
                    id_bytes,
                    event_type_bytes,
                    comment_bytes,
                    data_lines,
                    crlf,
                    chunk,
                }
            },
        )
}

impl Stream {
    fn bytes(&self) -> Vec<u8> {
        let end = if self.crlf { "\r\n" } else { "\n" };
        let mut out = Vec::new();
        let text = "t".repeat(self.text_bytes);
        for index in 0..self.events {
            if index == 0 || index % 97 == 0 {
                out.extend_from_slice(format!("id: {}{end}", "i".repeat(self.id_bytes)).as_bytes());
                out.extend_from_slice(
                    format!("event: {}{end}", "e".repeat(self.event_type_bytes)).as_bytes(),
                );
                out.extend_from_slice(format!(":{}{end}", "c".repeat(self.comment_bytes)).as_bytes());
            }
            let event = format!(
                r#"{{"statusUpdate":{{"taskId":"t1","contextId":"c1","status":{{"state":"TASK_STATE_WORKING","message":{{"messageId":"m{index}","role":"ROLE_AGENT","parts":[{{"text":"{text}"}}]}}}}}}}}"#
            );
            // The same JSON split over several `data:` lines (joined with newlines, still JSON).
            let split = event.len() / self.data_lines.max(1) + 1;
            for piece in event.as_bytes().chunks(split) {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(piece);
                out.extend_from_slice(end.as_bytes());
            }
            out.extend_from_slice(end.as_bytes());
        }
        out
    }
}

/// Reads a stream as the client does: framed by the SSE parser, each event parsed as a
/// `StreamResponse`, every event kept (a queue the caller has not drained yet).
fn read_stream(chunks: Vec<Result<bytes::Bytes, std::io::Error>>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    runtime.block_on(async {
        let mut events = SseStream::new(futures::stream::iter(chunks), SseLimits::default());
        let mut kept = Vec::new();
        while let Some(event) = events.next().await {
            let Ok(event) = event else { break };
            if let Ok(parsed) = a2a_typestate_types::parse::from_str::<StreamResponse>(&event.data) {
                kept.push(parsed);
            }
        }
        kept
    });
}

/// A card with many members of every kind and an unknown member nested `depth` deep.
fn card(members: usize, depth: usize, string_bytes: usize) -> String {
    let long = "x".repeat(string_bytes);
    let list = |make: &dyn Fn(usize) -> String| (0..members).map(make).collect::<Vec<_>>().join(",");
    let extensions =
        list(&|i| format!(r#"{{"uri":"https://e.example/{i}/{long}","required":{}}}"#, i % 2 == 0));
    let interfaces = list(&|i| {
        format!(
            r#"{{"url":"http://127.0.0.1:9/{i}/{long}","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}"#
        )
    });
    let skills = list(&|i| {
        format!(
            r#"{{"id":"s{i}","name":"{long}","description":"","tags":[],"inputModes":["text"],"outputModes":[]}}"#
        )
    });
    let schemes = list(&|i| format!(r#""s{i}":{{"httpAuthSecurityScheme":{{"scheme":"{long}"}}}}"#));
    let nested = format!("{}0{}", "[".repeat(depth), "]".repeat(depth));
    format!(
        r#"{{"name":"{long}","description":"d","version":"1","capabilities":{{"streaming":true,"extensions":[{extensions}]}},
            "defaultInputModes":["text"],"defaultOutputModes":["text/plain"],"skills":[{skills}],
            "securitySchemes":{{{schemes}}},"unknown":{nested},
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}{}{interfaces}]}}"#,
        if members > 0 { "," } else { "" }
    )
}

/// A task with `artifacts` artifacts of `parts` parts each and metadata nested `depth` deep.
fn task(artifacts: usize, parts: usize, depth: usize, text_bytes: usize) -> String {
    let text = "t".repeat(text_bytes);
    let part = format!(r#"{{"text":"{text}"}}"#);
    let parts = vec![part; parts].join(",");
    let artifact = |i: usize| format!(r#"{{"artifactId":"a{i}","parts":[{parts}]}}"#);
    let artifacts = (0..artifacts).map(artifact).collect::<Vec<_>>().join(",");
    let nested = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    format!(
        r#"{{"id":"t1","contextId":"c1","status":{{"state":"TASK_STATE_COMPLETED"}},"artifacts":[{artifacts}],"metadata":{{"deep":{nested}}}}}"#
    )
}

/// The three generators, one after the other in one test: the allocator's counters are the whole
/// process's, so nothing else may run while a case is measured (test threads would).
#[test]
fn hostile_documents_cost_at_most_a_multiple_of_what_was_sent() {
    use proptest::test_runner::{Config, TestRunner};
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let config = || Config { cases: cases(), failure_persistence: None, ..Config::default() };

    TestRunner::new(config())
        .run(&stream(), |stream| {
            // What one stream can send is bounded by the caller's own limits long before this; past
            // 4 MiB a case only costs CI time.
            if stream.events * (stream.text_bytes + 200) > 4 << 20 {
                return Ok(());
            }
            let bytes = stream.bytes();
            let sent = bytes.len();
            let chunks: Vec<Result<bytes::Bytes, std::io::Error>> =
                bytes.chunks(stream.chunk.max(1)).map(|c| Ok(bytes::Bytes::copy_from_slice(c))).collect();
            drop(bytes);
            within_budget(&format!("{stream:?}"), sent, || read_stream(chunks))
        })
        .unwrap();

    let cards = (
        prop_oneof![0usize..50, 0usize..3_000],
        prop_oneof![0usize..8, 0usize..3_000],
        prop_oneof![0usize..32, 0usize..20_000],
    );
    TestRunner::new(config())
        .run(&cards, |(members, depth, string_bytes)| {
            let card = bytes::Bytes::from(card(members, depth, string_bytes));
            let sent = card.len();
            within_budget(
                &format!("card members={members} depth={depth} strings={string_bytes}"),
                sent,
                || {
                    let read = DiscoveredCard::from_bytes(
                        card,
                        "http://127.0.0.1:9/.well-known/agent-card.json",
                        WellKnownPath::AgentCard,
                    );
                    if let Ok(read) = read {
                        let _ = (
                            read.claims(Deployment::Direct),
                            read.deviations(),
                            read.offered_interfaces().map(<[_]>::len),
                        );
                    }
                },
            )
        })
        .unwrap();

    let tasks = (
        prop_oneof![0usize..8, 0usize..2_000],
        prop_oneof![0usize..8, 0usize..200],
        prop_oneof![0usize..8, 0usize..3_000],
        prop_oneof![0usize..32, 0usize..10_000],
    );
    TestRunner::new(config())
        .run(&tasks, |(artifacts, parts, depth, text_bytes)| {
            if artifacts * parts * text_bytes >= 64 << 20 {
                return Ok(());
            }
            let task = task(artifacts, parts, depth, text_bytes);
            let sent = task.len();
            within_budget(
                &format!("task artifacts={artifacts} parts={parts} depth={depth} text={text_bytes}"),
                sent,
                || {
                    if let Ok(task) = a2a_typestate_types::parse::from_str::<Task>(&task) {
                        let _ = task.answer_parts().len();
                    }
                },
            )
        })
        .unwrap();
    let worst = WORST.lock().unwrap_or_else(|e| e.into_inner());
    eprintln!("worst ratio: {:.1} bytes per byte sent ({})", worst.0, worst.1);
}
