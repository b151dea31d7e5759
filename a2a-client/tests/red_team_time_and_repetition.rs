//! The generative red team's time-and-repetition dimension: an agent that never stops sending
//! (the same `working` event again and again, progress that is only a new status message each time,
//! artifact chunks of a few bytes, keep-alive comments, in any mix), run through `run_task` the way a
//! user runs it. What it costs is held to the user's task budget, not to what the agent sent: the
//! peak memory stays under one bound whatever the stream's length, and the run ends by the task
//! deadline with a definite outcome.
//!
//! CI runs a few cases (`cargo test -p a2a-typestate-client --test red_team_time_and_repetition`);
//! `A2A_RED_TEAM_CASES=50` runs more, each for the case's deadline.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Capability, Client, TaskBudget};
use a2a_typestate_types::Message;
use axum::body::Body;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

#[global_allocator]
static ALLOCATOR: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

/// The most one run may hold at its peak, whatever the agent streams, under the small budget below
/// (1,000 events kept at a few hundred bytes each, 64 KiB of artifacts, held at most twice): the
/// budget's share, the HTTP stack's and the SSE parser's buffers, the agent's own side of the
/// connection in this same process, and room. A cost that grows with the events sent passes it
/// within the deadline: about 120 bytes per event kept is 4 MiB after 35,000 events.
const PEAK_BOUND: usize = 4 << 20;
/// How far past the deadline a run may end on a loaded machine.
const LATE: Duration = Duration::from_millis(1500);

/// What the agent streams after the task's first snapshot, forever.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// The same `working` status, nothing new.
    SameWorking,
    /// `working` with a new status message each time: progress, as far as the client can tell.
    NewMessage,
    /// An artifact chunk of this many bytes, appended to the one before.
    Chunk(usize),
    /// A keep-alive comment.
    Comment,
}

#[derive(Clone, Debug)]
struct Case {
    /// The events, repeated in this order.
    pattern: Vec<Event>,
}

fn case() -> impl Strategy<Value = Case> {
    let event = prop_oneof![
        Just(Event::SameWorking),
        Just(Event::NewMessage),
        (1usize..64).prop_map(Event::Chunk),
        Just(Event::Comment),
    ];
    prop::collection::vec(event, 1..4).prop_map(|pattern| Case { pattern })
}

struct Agent {
    pattern: Vec<Event>,
    sent: AtomicU64,
    base: String,
}

fn rpc(id: &Value, result: Value) -> String {
    format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn status(message: Option<u64>) -> Value {
    let mut status = json!({"state": "TASK_STATE_WORKING"});
    if let Some(n) = message {
        status["message"] =
            json!({"messageId": format!("m{n}"), "role": "ROLE_AGENT", "parts": [{"text": "."}]});
    }
    json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": status}})
}

fn working_task() -> Value {
    json!({"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}})
}

async fn card(State(agent): State<Arc<Agent>>) -> Response {
    let card = json!({
        "name": "repeater", "description": "d", "version": "1",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
        "supportedInterfaces": [{"url": format!("{}rpc", agent.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    });
    ([("content-type", "application/json")], card.to_string()).into_response()
}

async fn call(State(agent): State<Arc<Agent>>, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    let id = request["id"].clone();
    match request["method"].as_str() {
        Some("SendStreamingMessage" | "SubscribeToTask") => {
            let first = rpc(&id, json!({"task": working_task()}));
            let events = futures::stream::unfold((0u64, Some(first)), move |(n, first)| {
                let (agent, id) = (Arc::clone(&agent), id.clone());
                async move {
                    if let Some(first) = first {
                        return Some((Ok::<_, Infallible>(first), (n, None)));
                    }
                    let event = agent.pattern[(n as usize) % agent.pattern.len()];
                    agent.sent.fetch_add(1, Ordering::Relaxed);
                    if n % 256 == 0 {
                        tokio::task::yield_now().await;
                    }
                    let text = match event {
                        Event::SameWorking => rpc(&id, status(None)),
                        Event::NewMessage => rpc(&id, status(Some(n))),
                        Event::Chunk(bytes) => rpc(
                            &id,
                            json!({"artifactUpdate": {"taskId": "t", "contextId": "c", "append": n > 1,
                                "artifact": {"artifactId": "a", "parts": [{"text": "x".repeat(bytes)}]}}}),
                        ),
                        Event::Comment => ": keep-alive\n\n".to_owned(),
                    };
                    Some((Ok(text), (n + 1, None)))
                }
            });
            ([("content-type", "text/event-stream")], Body::from_stream(events)).into_response()
        }
        Some("ListTasks") => {
            let result =
                json!({"tasks": [working_task()], "nextPageToken": "", "pageSize": 1, "totalSize": 1});
            (
                [("content-type", "application/json")],
                json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
            )
                .into_response()
        }
        _ => {
            let result =
                if request["method"] == "GetTask" { working_task() } else { json!({"task": working_task()}) };
            (
                [("content-type", "application/json")],
                json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
            )
                .into_response()
        }
    }
}

async fn spawn(pattern: Vec<Event>) -> Arc<Agent> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let agent = Arc::new(Agent { pattern, sent: AtomicU64::new(0), base });
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", get(card))
        .route("/rpc", post(call))
        .with_state(Arc::clone(&agent));
    tokio::spawn(async move { axum::serve(listener, app).await });
    agent
}

fn cases() -> u32 {
    std::env::var("A2A_RED_TEAM_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(4)
}

/// One run of `case` under `budget`: how long it took, its peak memory, how many events were sent.
async fn run(case: &Case, budget: TaskBudget) -> Result<(Duration, usize, u64), TestCaseError> {
    let agent = spawn(case.pattern.clone()).await;
    let client =
        Client::builder().task_budget(budget).unobservable_bound(Duration::from_secs(60)).build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let start = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let began = Instant::now();
    let run = client.run_task(&agent.base, Message::user("go"), &negotiation).await;
    let took = began.elapsed();
    let peak = ALLOCATOR.peak_usage().saturating_sub(start);
    let sent = agent.sent.load(Ordering::Relaxed);
    let ended = run.as_ref().map(|o| o.path.clone()).map_err(ToString::to_string);
    eprintln!("{case:?}: {sent} events in {took:?}, {} KiB peak: {ended:?}", peak >> 10);
    let deadline = budget.deadline();
    prop_assert!(took <= deadline + LATE, "{case:?}: ran {took:?} past the {deadline:?} deadline");
    prop_assert!(peak <= PEAK_BOUND, "{case:?}: {peak} bytes peak after {sent} events");
    if let Ok(outcome) = &run {
        let kept = outcome.observations.len();
        prop_assert!(kept <= budget.events_kept(), "{case:?}: {kept} observations kept");
    }
    Ok((took, peak, sent))
}

#[test]
fn an_agent_that_never_stops_sending_costs_the_task_budget_not_what_it_sent() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let budget = TaskBudget::default().with_events_kept(1_000).with_result_bytes(64 << 10);
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    TestRunner::new(config)
        .run(&case(), |case| {
            runtime.block_on(async {
                // Twice as long a run streams about twice the events: what it holds must not grow.
                let (_, short_peak, short_sent) = run(&case, budget.with_deadline(Duration::from_millis(1500))).await?;
                let (_, long_peak, long_sent) = run(&case, budget.with_deadline(Duration::from_secs(3))).await?;
                if long_sent > short_sent * 3 / 2 {
                    prop_assert!(
                        long_peak <= short_peak + short_peak / 4 + (1 << 20),
                        "{case:?}: {short_peak} bytes peak after {short_sent} events, {long_peak} after {long_sent}"
                    );
                }
                Ok(())
            })
        })
        .unwrap();
}
