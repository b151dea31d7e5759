//! Figure 10: what the task journal costs a task, in time and bytes, against no journal.
//!
//! `cargo bench -p a2a-bench --bench journal`
//!
//! Three clients, alike but for the journal: none, the embedded one (a redb file in the system's
//! temporary directory, each commit made durable before it returns) and the Redis one
//! (`A2A_TEST_REDIS_URL`'s redis-server, or one started here on a free loopback port and killed by
//! its pid at the end; without either the Redis rows are left out, and said so). Each runs tasks
//! on a testkit agent with no step delay: one at a time (a single-shot `SendMessage` to a suspect
//! agent: the cheapest task, where the journal's share is largest; and a streaming task), and 32
//! at once (where the writer's group commit shares one commit among the tasks waiting). The bytes
//! are the journal's own count of what it wrote, per task.

use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::journal::{Durability, Journal};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client};
use a2a_typestate_types::Message;
use criterion::Criterion;
use tokio::runtime::Runtime;

/// Tasks run at once in the concurrent rows.
const AT_ONCE: usize = 32;
/// Tasks run to count the bytes and commits per task.
const COUNTED_TASKS: usize = 1_000;

struct Server {
    url: String,
    child: Option<Child>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn redis_server() -> Option<Server> {
    if let Some(url) = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|u| !u.is_empty()) {
        return Some(Server { url, child: None });
    }
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).ok()?.local_addr().ok()?.port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let server = Server { url: format!("redis://127.0.0.1:{port}/"), child: Some(child) };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(server);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

struct Setup {
    name: &'static str,
    client: Client,
    file: Option<PathBuf>,
}

fn clients(rt: &Runtime, redis: Option<&Server>, dir: &std::path::Path) -> Vec<Setup> {
    let mut setups =
        vec![Setup { name: "no journal", client: Client::builder().build().expect("client"), file: None }];
    let file = dir.join("journal.redb");
    let embedded = rt.block_on(async { Journal::embedded(&file).build() }).expect("embedded journal");
    let client = Client::builder().journal(embedded).build().expect("client");
    setups.push(Setup { name: "embedded journal", client, file: Some(file) });
    if let Some(server) = redis {
        let prefix = format!("a2a-bench-journal-{}", uuid::Uuid::new_v4().simple());
        let journal =
            rt.block_on(async { Journal::redis(&server.url).key_prefix(prefix).build() }).expect("redis");
        let client = Client::builder().journal(journal).build().expect("client");
        setups.push(Setup { name: "redis journal", client, file: None });
    }
    setups
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let (honest, refuser): (RunningAgent, RunningAgent) = rt.block_on(async {
        let honest = ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_streaming())
            .script(Script::honest().step_delay(Duration::ZERO))
            .spawn()
            .await
            .expect("agent");
        let refuser = ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_streaming())
            .script(Script::honest().step_delay(Duration::ZERO).with(Lie::StreamingRefused))
            .spawn()
            .await
            .expect("agent");
        (honest, refuser)
    });
    let server = redis_server();
    if server.is_none() {
        println!(
            "journal: no redis-server (A2A_TEST_REDIS_URL unset and none could be started): Redis rows left out"
        );
    }
    let dir = std::env::temp_dir().join(format!("a2a-bench-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let setups = clients(&rt, server.as_ref(), &dir);
    let streaming = Negotiation::depending_on(&[Capability::Streaming]);
    let (honest_url, refuser_url) = (honest.base_url(), refuser.base_url());
    for setup in &setups {
        rt.block_on(setup.client.run_task(
            &honest_url,
            Message::user("hi").with_message_id("warm"),
            &streaming,
        ))
        .expect("task");
        let first = rt.block_on(setup.client.run_task(
            &refuser_url,
            Message::user("hi").with_message_id("warm"),
            &streaming,
        ));
        assert_eq!(first.expect("task").path, TaskPath::Fallback);
    }

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("journal/run_task");
    group.sample_size(50);
    for setup in &setups {
        let client = &setup.client;
        group.bench_function(format!("suspect agent (single shot), {}", setup.name), |b| {
            b.iter(|| {
                let message = Message::user("hi");
                let outcome = rt.block_on(client.run_task(&refuser_url, message, &streaming)).expect("task");
                debug_assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)));
                outcome
            })
        });
        group.bench_function(format!("honest streaming agent, {}", setup.name), |b| {
            b.iter(|| {
                let message = Message::user("hi");
                rt.block_on(client.run_task(&honest_url, message, &streaming)).expect("task")
            })
        });
        group.bench_function(format!("{AT_ONCE} single-shot tasks at once, {}", setup.name), |b| {
            b.iter(|| rt.block_on(at_once(client, &refuser_url, &streaming)))
        });
    }
    group.finish();

    for setup in &setups {
        let Some(journal) = setup.client.journal() else { continue };
        let before = journal.stats();
        let started = Instant::now();
        let mut durable = 0;
        for _ in 0..COUNTED_TASKS / AT_ONCE {
            durable += rt.block_on(at_once(&setup.client, &refuser_url, &streaming));
        }
        let tasks = (COUNTED_TASKS / AT_ONCE * AT_ONCE) as u64;
        let elapsed = started.elapsed();
        // The ends are written in the background.
        assert!(rt.block_on(journal.flush(Duration::from_secs(10))), "journal flushed");
        let after = journal.stats();
        let file = setup.file.as_ref().and_then(|f| std::fs::metadata(f).ok()).map_or(0, |m| m.len());
        println!(
            "journal/bytes: {}: {tasks} single-shot tasks ({AT_ONCE} at once) in {elapsed:.2?}, {durable} durable; {:.1} records, {:.0} bytes and {:.3} commits per task; failed {}, dropped {}; file {} bytes",
            setup.name,
            (after.writes - before.writes) as f64 / tasks as f64,
            (after.bytes - before.bytes) as f64 / tasks as f64,
            (after.commits - before.commits) as f64 / tasks as f64,
            after.failed - before.failed,
            after.dropped - before.dropped,
            file,
        );
    }
    c.final_summary();
    drop(setups);
    rt.block_on(async {
        honest.shutdown().await;
        refuser.shutdown().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// `AT_ONCE` single-shot tasks at once; returns how many were durable.
async fn at_once(client: &Client, agent: &str, negotiation: &Negotiation) -> usize {
    let runs = (0..AT_ONCE).map(|_| {
        let message = Message::user("hi");
        client.run_task(agent, message, negotiation)
    });
    futures::future::join_all(runs)
        .await
        .into_iter()
        .map(|outcome| outcome.expect("task"))
        .filter(|outcome| outcome.durability == Durability::Journaled)
        .count()
}
