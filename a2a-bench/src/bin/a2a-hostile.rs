//! Hostile-agent attacks, measured: each subcommand runs one bounded attack against this SDK on
//! 127.0.0.1 and prints one JSON line with the peak resident memory of the process (`VmHWM`), the
//! time it took and what the SDK did. RELIABILITY.md lists the commands and the figures.
//!
//! - `card-zeros`: read an 8 MiB card whose unknown field holds an array of zeros (`read_any_card`).
//! - `card-discovery`: the same card through `DiscoveredCard::from_bytes`, all that discovery keeps.
//! - `fleet-cards`: many agents serving that card, discovered at once by one client.
//! - `stream-zeros`: a streamed task whose 20 artifact chunks are 8 MiB arrays of zeros each.
//! - `serve-zeros`: an agent of its own (a process apart, so that a client such as `a2a audit` is
//!   measured alone) whose answers or stream events carry 8 MiB arrays of zeros, on JSON-RPC or
//!   HTTP+JSON, in a data part or in metadata.
//! - `serve-round4`: an agent of the fourth hostile round until killed. `tiny-events`: its stream
//!   (JSON-RPC or HTTP+JSON SSE, or gRPC) sends the same tiny `WORKING` status update `count`
//!   times (0: without end), then an artifact and completion.
//! - `webhook-unauthenticated`: 160 unauthenticated 8 MiB POSTs to the push receiver at once.
//! - `webhook-slow-bodies`: 100 connections that send a head and then drip a body.
//! - `webhook-idle`: 1,100 idle connections, then a genuine callback that must arrive within 10 s.

use std::time::{Duration, Instant};

#[path = "a2a-hostile/round4.rs"]
mod round4;

use a2a_bench::memory;
use a2a_typestate_client::config::ClientConfig;
use a2a_typestate_client::{PushArrival, PushReceiver};
use a2a_typestate_types::TaskId;
use clap::{Parser, Subcommand};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

#[derive(Debug, Parser)]
#[command(about = "Hostile-agent attacks against the SDK, with peak memory and time")]
struct Cli {
    #[command(subcommand)]
    attack: Attack,
}

#[derive(Debug, Subcommand)]
enum Attack {
    /// An 8 MiB card whose unknown field is an array of zeros, read with `read_any_card`.
    CardZeros,
    /// The same card made a `DiscoveredCard` (what the discovery cache holds).
    CardDiscovery,
    /// `agents` agents serving the card of zeros, discovered at once by one client.
    FleetCards {
        #[arg(long, default_value_t = 8)]
        agents: usize,
        /// The client's document budget, in MiB.
        #[arg(long, default_value_t = 64)]
        budget_mib: usize,
    },
    /// `run_task` on a streaming agent whose artifact chunks are 8 MiB arrays of zeros.
    StreamZeros {
        /// How many 8 MiB chunks.
        #[arg(long, default_value_t = 20)]
        events: usize,
    },
    /// Serves an agent whose answers carry 8 MiB arrays of zeros until killed; prints its URL.
    ServeZeros {
        /// `jsonrpc` or `rest` (HTTP+JSON).
        #[arg(long, default_value = "jsonrpc")]
        binding: String,
        /// `stream` (the card claims streaming; `events` artifact chunks) or `unary` (one answer).
        #[arg(long, default_value = "unary")]
        shape: String,
        /// `data` (an artifact's data part) or `metadata` (the task's metadata).
        #[arg(long, default_value = "data")]
        place: String,
        /// Chunks on a stream.
        #[arg(long, default_value_t = 20)]
        events: usize,
        /// The port (0: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Serves an agent of the third hostile round until killed; prints its URL. `sse-id`: its
    /// stream opens with one `id:` line of `size` bytes, then `count` events. `extensions`: its card
    /// requires `count` extensions of about `size` bytes each.
    ServeRound3 {
        /// `sse-id` or `extensions`.
        kind: String,
        /// Bytes of the field (`sse-id`) or of each extension URI (`extensions`).
        #[arg(long, default_value_t = 4 * 1024 * 1024)]
        size: usize,
        /// Events (`sse-id`) or extensions (`extensions`).
        #[arg(long, default_value_t = 1_000)]
        count: usize,
        /// The port (0: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Serves an agent of the fourth hostile round until killed; prints its URL. `tiny-events`: its
    /// stream sends the same tiny `WORKING` status update `count` times (0: without end), then an
    /// artifact and completion.
    ServeRound4 {
        /// `tiny-events`.
        kind: String,
        /// `jsonrpc`, `rest` (HTTP+JSON) or `grpc`.
        #[arg(long, default_value = "jsonrpc")]
        binding: String,
        /// Repeated events (0: the stream never ends).
        #[arg(long, default_value_t = 0)]
        count: u64,
        /// The port (0: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// 160 unauthenticated POSTs each announcing and sending 8 MiB, at once.
    WebhookUnauthenticated,
    /// 100 connections sending a valid head then one body byte per second.
    WebhookSlowBodies,
    /// 1,100 idle connections (from a child process, as an attacker's would be), then one genuine
    /// callback. Run it under `ulimit -n 1024`.
    WebhookIdle,
    /// The attacker side of `webhook-idle`: opens `count` idle connections to `addr`, prints `ready`,
    /// holds them for 30 s.
    #[command(hide = true)]
    HoldIdle { addr: std::net::SocketAddr, count: usize },
}

fn report(attack: &str, started: Instant, outcome: &str) {
    let peak = memory::resident().map_or(0, |r| r.peak_kib);
    println!(
        "{}",
        serde_json::json!({
            "attack": attack,
            "peak_rss_mib": (peak as f64 / 1024.0 * 10.0).round() / 10.0,
            "seconds": (started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
            "outcome": outcome,
        })
    );
}

fn zeros_card() -> String {
    let mut doc = String::from(
        r#"{"name":"z","description":"","version":"1","skills":[],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"supportedInterfaces":[{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"padding":["#,
    );
    while doc.len() < 8 * 1024 * 1024 - 16 {
        doc.push_str("0,");
    }
    doc.push_str("0]}");
    doc
}

fn card_zeros() {
    let doc = zeros_card();
    memory::reset_peak();
    let started = Instant::now();
    let outcome = match a2a_typestate_types::v03::read_any_card(doc.as_bytes()) {
        Ok((_, card)) => format!("read, {} unknown field(s) kept", card.value.extra.len()),
        Err(e) => format!("refused: {e}"),
    };
    report("card-zeros", started, &outcome);
}

fn card_discovery() {
    let doc = bytes::Bytes::from(zeros_card());
    memory::reset_peak();
    let started = Instant::now();
    let card = a2a_typestate_client::DiscoveredCard::from_bytes(
        doc,
        "http://127.0.0.1:9/.well-known/agent-card.json",
        a2a_typestate_client::WellKnownPath::AgentCard,
    );
    let outcome = match &card {
        Ok(card) => format!("read, {} unknown field(s) kept", card.card().extra.len()),
        Err(e) => format!("refused: {e}"),
    };
    report("card-discovery", started, &outcome);
}

async fn receiver() -> (PushReceiver, a2a_typestate_client::PushRegistration, TaskId) {
    let receiver = PushReceiver::start(&ClientConfig::default()).await.expect("receiver");
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    (receiver, registration, task)
}

fn path_of(url: &str) -> String {
    url[url.find("/a2a/").unwrap_or(0)..].to_owned()
}

async fn webhook_unauthenticated() {
    let (receiver, registration, _) = receiver().await;
    let addr = receiver.local_addr();
    let path = path_of(registration.url());
    let body = vec![b'0'; 8 * 1024 * 1024];
    let started = Instant::now();
    let mut posts = Vec::new();
    for _ in 0..160 {
        let path = path.clone();
        let body = body.clone();
        posts.push(tokio::spawn(async move {
            let Ok(mut stream) = TcpStream::connect(addr).await else { return false };
            let head = format!(
                "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer guess\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            // The receiver answers 401 from the head and closes: the body write then fails early.
            tokio::time::timeout(Duration::from_secs(10), stream.write_all(&body)).await.is_ok_and(|r| r.is_ok())
        }));
    }
    let mut written = 0;
    for post in posts {
        written += usize::from(post.await.unwrap_or(false));
    }
    drop(body);
    report("webhook-unauthenticated", started, &format!("{written} of 160 bodies fully written"));
}

async fn webhook_slow_bodies() {
    let (receiver, registration, _) = receiver().await;
    let addr = receiver.local_addr();
    let path = path_of(registration.url());
    let token = registration.token().to_owned();
    let started = Instant::now();
    let mut drips = Vec::new();
    for _ in 0..100 {
        let (path, token) = (path.clone(), token.clone());
        drips.push(tokio::spawn(async move {
            let Ok(mut stream) = TcpStream::connect(addr).await else { return };
            let head = format!(
                "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-a2a-notification-token: {token}\r\ncontent-length: 8000000\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes()).await;
            for _ in 0..15 {
                if stream.write_all(&[b' '; 64 * 1024]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }));
    }
    for drip in drips {
        let _ = drip.await;
    }
    report("webhook-slow-bodies", started, "every drip ended (cut by the receiver or after 15 s)");
}

async fn webhook_idle() {
    let (receiver, registration, task) = receiver().await;
    let client = reqwest::Client::builder().build().expect("an http client");
    let mut attacker = tokio::process::Command::new(std::env::current_exe().expect("this binary"))
        .args(["hold-idle", &receiver.local_addr().to_string(), "1100"])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the attacker process");
    let mut ready = String::new();
    if let Some(out) = attacker.stdout.take() {
        use tokio::io::AsyncBufReadExt;
        let _ = tokio::time::timeout(
            Duration::from_secs(20),
            tokio::io::BufReader::new(out).read_line(&mut ready),
        )
        .await;
    }
    let started = Instant::now();
    let status = client
        .post(registration.url())
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", registration.credentials()))
        .body(r#"{"statusUpdate":{"taskId":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .map(|r| r.status().as_u16());
    let arrived =
        matches!(receiver.next_callback(&task, Duration::from_secs(10)).await, Ok(PushArrival::Delivered(_)));
    let open = memory::open_files().unwrap_or(0);
    let _ = attacker.kill().await;
    report(
        "webhook-idle",
        started,
        &format!(
            "attacker: {}; genuine callback answered {status:?}, delivered: {arrived}; receiver fds open: {open}",
            ready.trim()
        ),
    );
}

async fn hold_idle(addr: std::net::SocketAddr, count: usize) {
    let mut idle = Vec::new();
    for _ in 0..count {
        match TcpStream::connect(addr).await {
            Ok(stream) => idle.push(stream),
            Err(_) => break,
        }
    }
    println!("{} idle connections opened", idle.len());
    tokio::time::sleep(Duration::from_secs(30)).await;
}

fn main() {
    let cli = Cli::parse();
    if let Attack::CardDiscovery = cli.attack {
        return card_discovery();
    }
    if let Attack::CardZeros = cli.attack {
        card_zeros();
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        match cli.attack {
            Attack::CardZeros | Attack::CardDiscovery => {}
            Attack::StreamZeros { events } => stream_zeros(events).await,
            Attack::FleetCards { agents, budget_mib } => fleet_cards(agents, budget_mib).await,
            Attack::ServeZeros { binding, shape, place, events, port } => {
                serve_zeros(&binding, &shape, &place, events, port).await;
            }
            Attack::ServeRound3 { kind, size, count, port } => serve_round3(&kind, size, count, port).await,
            Attack::ServeRound4 { kind, binding, count, port } => {
                round4::serve(&kind, &binding, count, port).await;
            }
            Attack::WebhookUnauthenticated => webhook_unauthenticated().await,
            Attack::WebhookSlowBodies => webhook_slow_bodies().await,
            Attack::WebhookIdle => webhook_idle().await,
            Attack::HoldIdle { addr, count } => hold_idle(addr, count).await,
        }
    });
}

/// An agent whose `SendStreamingMessage` answer is a task, `events` artifact chunks of `chunk_bytes`
/// each (a data part holding an array of zeros), then completion.
async fn zeros_stream_agent(events: usize, chunk_bytes: usize) -> String {
    use axum::routing::{get, post};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = serde_json::json!({
        "name": "zeros", "description": "", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"], "skills": []
    })
    .to_string();
    let mut zeros = String::with_capacity(chunk_bytes);
    zeros.push('[');
    while zeros.len() < chunk_bytes - 256 {
        zeros.push_str("0,");
    }
    zeros.push_str("0]");
    let zeros = std::sync::Arc::new(zeros);
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", get(move || async move { ([("content-type", "application/json")], card) }))
        .route(
            "/a2a",
            post(move |body: bytes::Bytes| {
                let zeros = zeros.clone();
                async move {
                    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    let id = request["id"].to_string();
                    let frame = |result: String| format!("data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n\n");
                    let mut frames = vec![frame(
                        r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#.to_owned(),
                    )];
                    for index in 0..events {
                        frames.push(frame(format!(
                            r#"{{"artifactUpdate":{{"taskId":"t1","contextId":"c1","append":{},"artifact":{{"artifactId":"a1","parts":[{{"data":{}}}]}}}}}}"#,
                            index > 0,
                            zeros
                        )));
                    }
                    frames.push(frame(
                        r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#.to_owned(),
                    ));
                    let stream = futures::stream::iter(frames.into_iter().map(|f| Ok::<_, std::convert::Infallible>(bytes::Bytes::from(f))));
                    axum::response::Response::builder()
                        .header("content-type", "text/event-stream")
                        .body(axum::body::Body::from_stream(stream))
                        .expect("response")
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

async fn stream_zeros(events: usize) {
    let base = zeros_stream_agent(events, 8 * 1024 * 1024).await;
    let client = a2a_typestate_client::Client::builder().build().expect("client");
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[
        a2a_typestate_client::Capability::Streaming,
    ]);
    memory::reset_peak();
    let started = Instant::now();
    let outcome = client
        .run_task(&base, a2a_typestate_types::Message::user("zeros").with_message_id("m-1"), &negotiation)
        .await;
    let outcome = match outcome {
        Ok(outcome) => format!("{:?} after {events} events of 8 MiB", outcome.state()),
        Err(e) => format!("refused: {}", e.to_string().chars().take(300).collect::<String>()),
    };
    report("stream-zeros", started, &outcome);
}

/// `agents` agents serving the 8 MiB card of zeros, all discovered at once by one client with a
/// document budget of `budget_mib`: what a fleet audit of hostile agents costs.
async fn fleet_cards(agents: usize, budget_mib: usize) {
    use axum::routing::get;
    let card = std::sync::Arc::new(zeros_card());
    let mut urls = Vec::new();
    for _ in 0..agents {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        urls.push(format!("http://{}", listener.local_addr().expect("addr")));
        let card = card.clone();
        let app = axum::Router::new().route(
            "/.well-known/agent-card.json",
            get(move || {
                let card = card.clone();
                async move { ([("content-type", "application/json")], card.as_str().to_owned()) }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await });
    }
    let client = a2a_typestate_client::Client::builder()
        .document_budget(budget_mib * 1024 * 1024)
        .build()
        .expect("client");
    memory::reset_peak();
    let started = Instant::now();
    let discovered = futures::future::join_all(urls.iter().map(|url| {
        let client = client.clone();
        async move {
            let base = a2a_typestate_client::AgentBaseUrl::parse(url).expect("url");
            client.discover_agent(&base).await.is_ok()
        }
    }))
    .await;
    let read = discovered.iter().filter(|ok| **ok).count();
    report(
        "fleet-cards",
        started,
        &format!("{read} of {agents} cards read at once, document budget {budget_mib} MiB"),
    );
}

/// An array of zeros of about `bytes` bytes of JSON.
fn zeros_json(bytes: usize) -> String {
    let mut zeros = String::with_capacity(bytes);
    zeros.push('[');
    while zeros.len() < bytes.saturating_sub(256) {
        zeros.push_str("0,");
    }
    zeros.push_str("0]");
    zeros
}

/// The agent of `serve-zeros`: every task it answers is `t1`, completed, carrying 8 MiB of zeros
/// where `place` says; a stream sends a working task, `events` artifact chunks, then completion.
async fn serve_zeros(binding: &str, shape: &str, place: &str, events: usize, port: u16) {
    use axum::routing::{get, post};
    let rest = match binding {
        "jsonrpc" => false,
        "rest" => true,
        other => return eprintln!("--binding takes jsonrpc or rest, not {other}"),
    };
    let streaming = match shape {
        "stream" => true,
        "unary" => false,
        other => return eprintln!("--shape takes stream or unary, not {other}"),
    };
    if !matches!(place, "data" | "metadata") {
        return eprintln!("--place takes data or metadata, not {place}");
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (interface, binding_name) =
        if rest { (base.clone(), "HTTP+JSON") } else { (format!("{base}/a2a"), "JSONRPC") };
    let card = serde_json::json!({
        "name": "zeros", "description": "answers in 8 MiB arrays of zeros", "version": "1",
        "supportedInterfaces": [{"url": interface, "protocolBinding": binding_name, "protocolVersion": "1.0"}],
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"], "skills": []
    })
    .to_string();
    let zeros = zeros_json(8 * 1024 * 1024);
    let carrying = |state: &str| match place {
        "data" => format!(
            r#"{{"id":"t1","contextId":"c1","status":{{"state":"{state}"}},"artifacts":[{{"artifactId":"a1","parts":[{{"data":{zeros}}}]}}]}}"#
        ),
        _ => format!(
            r#"{{"id":"t1","contextId":"c1","status":{{"state":"{state}"}},"metadata":{{"zeros":{zeros}}}}}"#
        ),
    };
    let task = std::sync::Arc::new(carrying("TASK_STATE_COMPLETED"));
    let chunk = std::sync::Arc::new(match place {
        "data" => format!(r#"{{"artifactId":"a1","parts":[{{"data":{zeros}}}]}}"#),
        _ => format!(r#"{{"artifactId":"a1","parts":[{{"text":"z"}}],"metadata":{{"zeros":{zeros}}}}}"#),
    });
    // The answer to a call: `result` is the bare payload (a task, or `{"task":...}` for a send).
    let answer = move |method: &str, frame: &dyn Fn(String) -> String| -> axum::response::Response {
        let body =
            if method == "GetTask" { task.as_str().to_owned() } else { format!(r#"{{"task":{task}}}"#) };
        if method != "SendStreamingMessage" {
            return axum::response::Response::builder()
                .header("content-type", "application/json")
                .body(axum::body::Body::from(if rest { body } else { frame(body) }))
                .expect("response");
        }
        let mut frames = vec![frame(
            r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#.to_owned(),
        )];
        for index in 0..events {
            frames.push(frame(format!(
                r#"{{"artifactUpdate":{{"taskId":"t1","contextId":"c1","append":{},"artifact":{chunk}}}}}"#,
                index > 0
            )));
        }
        frames.push(frame(
            r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#
                .to_owned(),
        ));
        let frames = frames
            .into_iter()
            .map(|f| Ok::<_, std::convert::Infallible>(bytes::Bytes::from(format!("data: {f}\n\n"))));
        axum::response::Response::builder()
            .header("content-type", "text/event-stream")
            .body(axum::body::Body::from_stream(futures::stream::iter(frames)))
            .expect("response")
    };
    let answer = std::sync::Arc::new(answer);
    let jsonrpc = {
        let answer = answer.clone();
        move |body: bytes::Bytes| {
            let answer = answer.clone();
            async move {
                let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let id = request["id"].to_string();
                let method = request["method"].as_str().unwrap_or_default().to_owned();
                answer(&method, &move |result| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#))
            }
        }
    };
    let plain = |text: String| text;
    let (send, stream, get_task) = (answer.clone(), answer.clone(), answer);
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { ([("content-type", "application/json")], card) }),
        )
        .route("/a2a", post(jsonrpc))
        .route("/message:send", post(move || async move { send("SendMessage", &plain) }))
        .route("/message:stream", post(move || async move { stream("SendStreamingMessage", &plain) }))
        .route("/tasks/{id}", get(move || async move { get_task("GetTask", &plain) }));
    println!("{base}");
    let _ = axum::serve(listener, app).await;
}

async fn serve_round3(kind: &str, size: usize, count: usize, port: u16) {
    use axum::routing::{get, post};
    if !matches!(kind, "sse-id" | "extensions") {
        return eprintln!("serve-round3 takes sse-id or extensions, not {kind}");
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let extensions: Vec<serde_json::Value> = if kind == "extensions" {
        (0..count)
            .map(|i| serde_json::json!({"uri": format!("https://e.example/{i:06}/{}", "x".repeat(size)), "required": true}))
            .collect()
    } else {
        Vec::new()
    };
    let card = serde_json::json!({
        "name": kind, "description": "third hostile round", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "extensions": extensions},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    })
    .to_string();
    let long_id =
        std::sync::Arc::new(format!("id: {}\n", "i".repeat(if kind == "sse-id" { size } else { 1 })));
    let events = if kind == "sse-id" { count } else { 1 };
    let task = r#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"ok"}]}]}"#;
    let jsonrpc = move |body: bytes::Bytes| {
        let long_id = long_id.clone();
        async move {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let id = request["id"].to_string();
            let frame = |result: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
            match request["method"].as_str().unwrap_or_default() {
                "SendStreamingMessage" => {
                    let mut body = long_id.as_str().to_owned();
                    body.push_str(&format!(
                        "data: {}\n\n",
                        frame(
                            r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#
                        )
                    ));
                    for _ in 0..events {
                        body.push_str(&format!("data: {}\n\n", frame(r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#)));
                    }
                    body.push_str(&format!("data: {}\n\n", frame(r#"{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"ok"}]}}}"#)));
                    body.push_str(&format!("data: {}\n\n", frame(r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#)));
                    ([("content-type", "text/event-stream")], body)
                }
                "GetTask" => ([("content-type", "application/json")], frame(task)),
                _ => ([("content-type", "application/json")], frame(&format!(r#"{{"task":{task}}}"#))),
            }
        }
    };
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { ([("content-type", "application/json")], card) }),
        )
        .route("/a2a", post(jsonrpc));
    println!("{base}");
    let _ = axum::serve(listener, app).await;
}
