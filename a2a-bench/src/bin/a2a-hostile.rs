//! Hostile-agent attacks, measured: each subcommand runs one bounded attack against this SDK on
//! 127.0.0.1 and prints one JSON line with the peak resident memory of the process (`VmHWM`), the
//! time it took and what the SDK did. RELIABILITY.md lists the commands and the figures.
//!
//! - `card-zeros`: read an 8 MiB card whose unknown field holds an array of zeros (`read_any_card`).
//! - `webhook-unauthenticated`: 160 unauthenticated 8 MiB POSTs to the push receiver at once.
//! - `webhook-slow-bodies`: 100 connections that send a head and then drip a body.
//! - `webhook-idle`: 1,100 idle connections, then a genuine callback that must arrive within 10 s.

use std::time::{Duration, Instant};

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

fn card_zeros() {
    let mut doc = String::from(
        r#"{"name":"z","description":"","version":"1","skills":[],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"supportedInterfaces":[{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"padding":["#,
    );
    while doc.len() < 8 * 1024 * 1024 - 16 {
        doc.push_str("0,");
    }
    doc.push_str("0]}");
    memory::reset_peak();
    let started = Instant::now();
    let outcome = match a2a_typestate_types::v03::read_any_card(doc.as_bytes()) {
        Ok((_, card)) => format!("read, {} unknown field(s) kept", card.value.extra.len()),
        Err(e) => format!("refused: {e}"),
    };
    report("card-zeros", started, &outcome);
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
    if let Attack::CardZeros = cli.attack {
        card_zeros();
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        match cli.attack {
            Attack::CardZeros => {}
            Attack::WebhookUnauthenticated => webhook_unauthenticated().await,
            Attack::WebhookSlowBodies => webhook_slow_bodies().await,
            Attack::WebhookIdle => webhook_idle().await,
            Attack::HoldIdle { addr, count } => hold_idle(addr, count).await,
        }
    });
}
