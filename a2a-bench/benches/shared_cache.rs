//! Figure 6: what the shared (Redis) cache costs a task, against the in-process cache, and how long a
//! mark set on one replica takes to reach another.
//!
//! `cargo bench -p a2a-bench --bench shared_cache`
//!
//! Needs a redis-server: `A2A_TEST_REDIS_URL`'s, or one started here on a free loopback port (and
//! killed by its pid at the end); without either it says so and measures nothing.

use std::hint::black_box;
use std::net::{Ipv4Addr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::shared::redis::RedisBackend;
use a2a_typestate_client::{AgentBaseUrl, BackendStatus, Capability, Client, DiscoveryCache};
use a2a_typestate_types::Message;
use criterion::Criterion;
use tokio::runtime::Runtime;

/// Marks sent one after another for the propagation figure.
const PROPAGATION_SAMPLES: usize = 500;

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

fn server() -> Option<Server> {
    if let Ok(url) = std::env::var("A2A_TEST_REDIS_URL") {
        return Some(Server { url, child: None });
    }
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).ok()?.local_addr().ok()?.port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let url = format!("redis://127.0.0.1:{port}/");
    let server = Server { url, child: Some(child) };
    let client = redis::Client::open(server.url.as_str()).ok()?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if client.get_connection_with_timeout(Duration::from_millis(100)).is_ok() {
            return Some(server);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn shared_cache(url: &str, prefix: &str) -> DiscoveryCache {
    let backend = RedisBackend::builder(url).key_prefix(prefix).build().expect("backend");
    DiscoveryCache::default().with_backend(backend).expect("attached")
}

fn connected(rt: &Runtime, caches: &[&DiscoveryCache]) {
    rt.block_on(async {
        for cache in caches {
            let started = Instant::now();
            while cache.backend_status() != Some(BackendStatus::Connected) {
                assert!(started.elapsed() < Duration::from_secs(5), "redis did not connect");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    });
}

struct Agents {
    honest: RunningAgent,
    refuser: RunningAgent,
}

fn per_task(c: &mut Criterion, rt: &Runtime, url: &str, agents: &Agents) {
    let prefix = format!("a2a-bench-{}", uuid::Uuid::new_v4().simple());
    let local = Client::builder().build().expect("client");
    let cache = rt.block_on(async { shared_cache(url, &prefix) });
    connected(rt, &[&cache]);
    let shared = Client::builder().replica_name("bench").discovery_cache(cache).build().expect("client");
    let streaming = Negotiation::depending_on(&[Capability::Streaming]);
    let honest = agents.honest.base_url();
    let refuser = agents.refuser.base_url();
    for client in [&local, &shared] {
        // Warm: cards cached, the refuser marked suspect.
        rt.block_on(client.run_task(&honest, Message::user("hi").with_message_id("warm"), &streaming))
            .expect("task");
        let first =
            rt.block_on(client.run_task(&refuser, Message::user("hi").with_message_id("warm"), &streaming));
        assert_eq!(first.expect("task").path, TaskPath::Fallback);
    }
    let agent = AgentBaseUrl::parse(&honest).expect("url");

    let mut group = c.benchmark_group("shared_cache/task_path_reads");
    for (name, client) in [("in-process cache", &local), ("redis-backed cache", &shared)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let card = rt.block_on(client.discover_agent(black_box(&agent))).expect("card");
                (card.raw().len(), client.discovery_cache().is_suspect(&agent).is_some())
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("shared_cache/mark_suspect");
    let marked = AgentBaseUrl::parse("http://127.0.0.1:9/marked").expect("url");
    for (name, client) in [("in-process cache", &local), ("redis-backed cache", &shared)] {
        let cache = client.discovery_cache().clone();
        group.bench_function(name, |b| {
            b.iter(|| cache.mark_suspect(black_box(&marked), Capability::Streaming, "bench evidence"));
        });
        rt.block_on(cache.flush_shared(Duration::from_secs(10)));
    }
    group.finish();

    let mut group = c.benchmark_group("shared_cache/run_task");
    group.sample_size(50);
    for (name, client) in [("in-process cache", &local), ("redis-backed cache", &shared)] {
        group.bench_function(format!("honest streaming agent, {name}"), |b| {
            b.iter(|| {
                rt.block_on(client.run_task(&honest, Message::user("hi").with_message_id("m"), &streaming))
                    .expect("task")
            })
        });
        group.bench_function(format!("suspect agent (single shot), {name}"), |b| {
            b.iter(|| {
                let outcome = rt
                    .block_on(client.run_task(&refuser, Message::user("hi").with_message_id("m"), &streaming))
                    .expect("task");
                debug_assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)));
                outcome
            })
        });
    }
    group.finish();
}

/// Runs single-shot tasks through a redis-backed client for `COMMAND_COUNT_WINDOW` and reads how
/// many commands the server processed meanwhile (its `total_commands_processed`): what the task
/// path asks of Redis, beside what the background resync does.
fn commands_per_task(rt: &Runtime, url: &str, agents: &Agents) {
    let prefix = format!("a2a-bench-{}", uuid::Uuid::new_v4().simple());
    let cache = rt.block_on(async { shared_cache(url, &prefix) });
    connected(rt, &[&cache]);
    let client = Client::builder().discovery_cache(cache).build().expect("client");
    let streaming = Negotiation::depending_on(&[Capability::Streaming]);
    let refuser = agents.refuser.base_url();
    let first =
        rt.block_on(client.run_task(&refuser, Message::user("hi").with_message_id("warm"), &streaming));
    assert_eq!(first.expect("task").path, TaskPath::Fallback);
    rt.block_on(client.discovery_cache().flush_shared(Duration::from_secs(5)));
    let mut info = redis::Client::open(url).expect("url").get_connection().expect("connection");
    let processed = |info: &mut redis::Connection| -> u64 {
        let text: String = redis::cmd("INFO").arg("stats").query(info).expect("info");
        text.lines()
            .find_map(|line| line.strip_prefix("total_commands_processed:"))
            .and_then(|n| n.trim().parse().ok())
            .expect("total_commands_processed")
    };
    let before = processed(&mut info);
    let started = Instant::now();
    let mut tasks = 0_u64;
    while started.elapsed() < COMMAND_COUNT_WINDOW {
        let message = Message::user("hi").with_message_id(format!("c{tasks}"));
        let outcome = rt.block_on(client.run_task(&refuser, message, &streaming)).expect("task");
        assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)));
        tasks += 1;
    }
    let elapsed = started.elapsed();
    // The first INFO is counted in the second reading.
    let commands = processed(&mut info).saturating_sub(before).saturating_sub(1);
    println!(
        "shared_cache/commands_per_task: {tasks} single-shot tasks in {elapsed:.2?}; the server processed {commands} commands meanwhile ({:.4} per task; the background resync sends 4 or more each second)",
        commands as f64 / tasks as f64
    );
}

/// How long tasks run for the command count (three resync intervals).
const COMMAND_COUNT_WINDOW: Duration = Duration::from_secs(3);

/// Sets a mark on one replica and waits for another to see it, `PROPAGATION_SAMPLES` times.
fn propagation(rt: &Runtime, url: &str) {
    let prefix = format!("a2a-bench-{}", uuid::Uuid::new_v4().simple());
    let (a, b) = rt.block_on(async { (shared_cache(url, &prefix), shared_cache(url, &prefix)) });
    connected(rt, &[&a, &b]);
    let mut delays: Vec<Duration> = rt.block_on(async {
        let mut delays = Vec::with_capacity(PROPAGATION_SAMPLES);
        for n in 0..PROPAGATION_SAMPLES {
            let agent = AgentBaseUrl::parse(&format!("http://127.0.0.1:9/agent-{n}")).expect("url");
            let started = Instant::now();
            a.mark_suspect(&agent, Capability::Streaming, "bench");
            while b.is_suspect(&agent).is_none() {
                assert!(started.elapsed() < Duration::from_secs(5), "mark {n} not seen within 5 s");
                tokio::task::yield_now().await;
            }
            delays.push(started.elapsed());
        }
        delays
    });
    delays.sort();
    let at = |q: f64| delays[((delays.len() as f64 - 1.0) * q) as usize];
    println!(
        "shared_cache/propagation: mark set on replica a, seen on replica b ({} samples): \
         p50 {:?}, p90 {:?}, p99 {:?}, max {:?}",
        delays.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
}

fn main() {
    let Some(server) = server() else {
        println!("shared_cache: skipped, no redis-server (install redis-server or set A2A_TEST_REDIS_URL)");
        return;
    };
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let agents = rt.block_on(async {
        // No delay between lifecycle events: the task's time is the client's and the loopback's.
        let honest = ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_streaming())
            .script(Script::honest().step_delay(Duration::ZERO))
            .spawn()
            .await
            .expect("agent");
        let refuser = ScriptedAgent::builder()
            .capabilities(Capabilities::none())
            .script(Script::honest().step_delay(Duration::ZERO).with(Lie::StreamingRefused))
            .spawn()
            .await
            .expect("agent");
        Agents { honest, refuser }
    });
    propagation(&rt, &server.url);
    commands_per_task(&rt, &server.url, &agents);
    let mut criterion = Criterion::default().configure_from_args();
    per_task(&mut criterion, &rt, &server.url, &agents);
    criterion.final_summary();
    drop(server);
}
