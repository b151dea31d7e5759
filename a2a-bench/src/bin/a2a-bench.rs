//! The benchmark driver behind BENCHMARKS.md figures 2-4.
//!
//! - `a2a-bench serve`: agents for the clients to call (the bench agent, or testkit agents),
//!   one base URL per line on stdout, until killed.
//! - `a2a-bench fleet`: verified tasks on every agent of a `serve --kind fleet` fleet, in batches,
//!   through one client (optionally sharing its suspect cache through Redis as one replica of many);
//!   one JSON line of figures (figure 9).
//! - `a2a-bench mark-latency`: one side (writer or reader) of the cross-process mark propagation
//!   probe (figure 9).
//! - `a2a-bench drive`: one workload through one Rust client (hand-written floors, the SDK's
//!   connection, the SDK's engine running each call as a verified task); one JSON line of figures
//!   on stdout.
//!
//! `scripts/bench/run.sh` runs every figure; each command it runs is printed in BENCHMARKS.md.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use a2a_bench::drive::{ClientKind, CompareOptions, DriveOptions, Workload, compare, drive};
use a2a_bench::{BenchAgent, BenchAgentConfig, fleet, marks};
use a2a_testkit::{Capabilities, Script, ScriptedAgent};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(about = "A2A SDK benchmarks: agents to call, and the Rust clients that call them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AgentKind {
    /// The minimal bench agent: answers at once, streams `--events` events.
    Bench,
    /// `a2a_testkit::ScriptedAgent`, honest, streaming, with `--step-delay-ms` between events; its
    /// card lists JSON-RPC, HTTP+JSON and gRPC.
    Testkit,
    /// Testkit agents of the fleet workload (`a2a_bench::fleet::PLAN`: seven honest, three lying in
    /// every ten); prints `URL<TAB>member` lines.
    Fleet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProbeRole {
    Writer,
    Reader,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Starts agents on 127.0.0.1 and prints their base URLs, one per line; runs until killed.
    Serve {
        #[arg(long, value_enum, default_value = "bench")]
        kind: AgentKind,
        /// How many agents.
        #[arg(long, default_value_t = 1)]
        agents: usize,
        /// Events per stream (bench agent).
        #[arg(long, default_value_t = 1_000)]
        events: usize,
        /// Delay between lifecycle events (testkit agent).
        #[arg(long, default_value_t = 0)]
        step_delay_ms: u64,
        /// The first agent's index in the fleet (fleet kind), when several processes serve one fleet.
        #[arg(long, default_value_t = 0)]
        first: usize,
    },
    /// Gives every agent of a fleet (the lines `serve --kind fleet` printed) one verified task per
    /// batch through one client and prints the figures as JSON.
    Fleet {
        /// Files of `URL<TAB>member` lines; repeat for several serving processes.
        #[arg(long = "agents-file", required = true)]
        agents_files: Vec<std::path::PathBuf>,
        #[arg(long, default_value_t = 256)]
        in_flight: usize,
        #[arg(long, default_value_t = 2)]
        batches: u32,
        /// Start at this agent and wrap around.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// Share the suspect cache through this Redis.
        #[arg(long)]
        redis: Option<String>,
        #[arg(long, default_value = "a2a-bench-fleet")]
        key_prefix: String,
        /// This replica's name.
        #[arg(long)]
        replica: Option<String>,
        #[arg(long, default_value_t = 2_000)]
        push_arrival_bound_ms: u64,
        /// Journal every task: `embedded:PATH` (a redb file) or `redis:redis://HOST:PORT` (under
        /// `--key-prefix`).
        #[arg(long)]
        journal: Option<String>,
    },
    /// One side of the mark propagation probe between replica processes; prints its timestamps as
    /// JSON.
    MarkLatency {
        #[arg(long, value_enum)]
        role: ProbeRole,
        #[arg(long)]
        redis: String,
        #[arg(long)]
        key_prefix: String,
        #[arg(long, default_value_t = 500)]
        marks: usize,
        #[arg(long, default_value_t = 20)]
        gap_ms: u64,
        /// When the first mark is set, in ms since the Unix epoch.
        #[arg(long)]
        start_at_ms: u64,
        #[arg(long, default_value_t = 3_000)]
        give_up_ms: u64,
        #[arg(long, default_value_t = 200)]
        poll_us: u64,
    },
    /// Drives one workload through one Rust client and prints its figures as JSON.
    Drive {
        #[arg(long, value_enum)]
        client: ClientKind,
        #[arg(long, value_enum)]
        workload: Workload,
        /// Agent base URL; repeat for several agents (calls go round-robin).
        #[arg(long = "url", required_unless_present = "urls_file")]
        urls: Vec<String>,
        /// A file of agent base URLs, one per line (what `serve` prints).
        #[arg(long)]
        urls_file: Option<std::path::PathBuf>,
        #[arg(long)]
        requests: usize,
        #[arg(long, default_value_t = 1)]
        in_flight: usize,
        /// Events each stream must have (0: any).
        #[arg(long, default_value_t = 0)]
        expect_events: usize,
    },
    /// Interleaves several Rust clients (blocks of calls, taking turns) and prints their ratios to
    /// the first as JSON: steadier than separate runs on a busy machine.
    Compare {
        /// The clients, comma-separated; the first is the reference.
        #[arg(long, value_enum, value_delimiter = ',', default_value = "floor,sdk,sdk-engine")]
        clients: Vec<ClientKind>,
        #[arg(long, value_enum)]
        workload: Workload,
        #[arg(long = "url", required = true)]
        urls: Vec<String>,
        #[arg(long, default_value_t = 20)]
        rounds: usize,
        /// Calls per client per round.
        #[arg(long)]
        block: usize,
        #[arg(long, default_value_t = 1)]
        in_flight: usize,
        #[arg(long, default_value_t = 0)]
        expect_events: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("a2a-bench: cannot start the tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve { kind, agents, events, step_delay_ms, first } => {
                serve(kind, agents, events, Duration::from_millis(step_delay_ms), first).await
            }
            Command::Fleet {
                agents_files,
                in_flight,
                batches,
                offset,
                redis,
                key_prefix,
                replica,
                push_arrival_bound_ms,
                journal,
            } => {
                let journal =
                    journal.map(|spec| fleet::FleetJournal::parse(&spec, &key_prefix)).transpose()?;
                let mut agents = Vec::new();
                for path in &agents_files {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                    agents.extend(
                        fleet::FleetAgent::parse_lines(&text)
                            .map_err(|e| format!("{}: {e}", path.display()))?,
                    );
                }
                let options = fleet::FleetOptions {
                    agents,
                    in_flight,
                    batches,
                    offset,
                    redis: redis.map(|url| (url, key_prefix)),
                    replica,
                    push_arrival_bound: Duration::from_millis(push_arrival_bound_ms),
                    journal,
                };
                let report = fleet::run(&options).await.map_err(|e| error_chain(&e))?;
                println!("{}", serde_json::to_string(&report).map_err(|e| e.to_string())?);
                Ok(())
            }
            Command::MarkLatency {
                role,
                redis,
                key_prefix,
                marks,
                gap_ms,
                start_at_ms,
                give_up_ms,
                poll_us,
            } => {
                let options = marks::ProbeOptions {
                    redis,
                    prefix: key_prefix,
                    role: match role {
                        ProbeRole::Writer => marks::Role::Writer,
                        ProbeRole::Reader => marks::Role::Reader,
                    },
                    marks,
                    gap: Duration::from_millis(gap_ms),
                    start_at_ms,
                    give_up: Duration::from_millis(give_up_ms),
                    poll: Duration::from_micros(poll_us),
                };
                let record = marks::probe(&options).await.map_err(|e| error_chain(&e))?;
                println!("{}", serde_json::to_string(&record).map_err(|e| e.to_string())?);
                Ok(())
            }
            Command::Drive { client, workload, mut urls, urls_file, requests, in_flight, expect_events } => {
                if let Some(path) = urls_file {
                    let listed = std::fs::read_to_string(&path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                    urls.extend(listed.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned));
                }
                let options =
                    DriveOptions { client, workload, agents: urls, requests, in_flight, expect_events };
                let report = drive(&options).await.map_err(|e| error_chain(&e))?;
                let line = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                println!("{line}");
                Ok(())
            }
            Command::Compare { clients, workload, urls, rounds, block, in_flight, expect_events } => {
                let options = CompareOptions {
                    clients,
                    workload,
                    agents: urls,
                    rounds,
                    block,
                    in_flight,
                    expect_events,
                };
                let report = compare(&options).await.map_err(|e| error_chain(&e))?;
                let line = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                println!("{line}");
                Ok(())
            }
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("a2a-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

async fn serve(
    kind: AgentKind,
    agents: usize,
    events: usize,
    step_delay: Duration,
    first: usize,
) -> Result<(), String> {
    let mut bench = Vec::new();
    let mut testkit = Vec::new();
    let mut stdout = std::io::stdout().lock();
    for index in first..first + agents {
        let line = match kind {
            AgentKind::Bench => {
                let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: events })
                    .await
                    .map_err(|e| error_chain(&e))?;
                let url = agent.base_url();
                bench.push(agent);
                url
            }
            AgentKind::Fleet => {
                let member = fleet::Member::of(index);
                let agent = member.spawn().await.map_err(|e| error_chain(&e))?;
                let line = format!("{}\t{}", agent.base_url(), member.label());
                testkit.push(agent);
                line
            }
            AgentKind::Testkit => {
                let agent = ScriptedAgent::builder()
                    .name("bench-testkit")
                    .capabilities(Capabilities::none().with_streaming())
                    // gRPC listed last: the SDK client still selects JSON-RPC; `sdk-grpc` picks it.
                    .bindings(a2a_testkit::Binding::ALL)
                    .script(Script::honest().step_delay(step_delay))
                    .spawn()
                    .await
                    .map_err(|e| error_chain(&e))?;
                let url = agent.base_url();
                testkit.push(agent);
                url
            }
        };
        writeln!(stdout, "{line}").and_then(|()| stdout.flush()).map_err(|e| e.to_string())?;
    }
    drop(stdout);
    tokio::signal::ctrl_c().await.map_err(|e| e.to_string())?;
    for agent in testkit {
        agent.shutdown().await;
    }
    Ok(())
}
