//! The command line's shape: commands, arguments and their help text.
//!
//! ```
//! use std::time::Duration;
//!
//! use a2a_typestate_cli::cli::{Cli, Command};
//! use clap::Parser;
//!
//! let cli = Cli::parse_from(["a2a", "audit", "--json", "--push-arrival-bound", "500ms", "http://agent"]);
//! let Command::Audit(args) = cli.command else { unreachable!("parsed as audit") };
//! assert_eq!(args.push_arrival_bound, Duration::from_millis(500));
//! assert_eq!(args.urls, ["http://agent"]);
//! ```

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use crate::credentials::CredentialArgs;

/// `a2a`: find out whether A2A agents do what their Agent Cards claim.
#[derive(Debug, Parser)]
#[command(name = "a2a", version, propagate_version = true, after_help = crate::exit::TABLE)]
#[command(about = "Checks A2A agents against the capabilities their Agent Cards claim")]
#[command(long_about = "Checks A2A agents against the capabilities their Agent Cards claim.\n\n\
An Agent Card is a claim, not a contract: an agent may declare streaming, state transition history or \
push notifications and then not honour them. `a2a` verifies each claim in real traffic, refuses the \
ones the agent contradicts and falls back to a single-shot request.")]
pub struct Cli {
    /// When to colour the output: auto colours only on a terminal (and honours NO_COLOR).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// When to write colour codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Only when the output is a terminal and NO_COLOR is not set.
    Auto,
    /// Always, even into a pipe or file.
    Always,
    /// Never.
    Never,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Runs an embedded fleet of thirteen scripted agents (five of them lying) through the client, with
    /// and without the suspect cache, and prints what was verified, refused and wasted.
    Demo(DemoArgs),
    /// Discovers each agent, runs a short probe task, and reports each declared capability as verified,
    /// refused (with the evidence), not exercised, unverified or unverifiable, and apart from that the
    /// wire deviations its answers carried (read anyway). Exits 1 when any agent over-declares, 2 when
    /// an agent could not be audited, 3 under --strict when an agent's answers deviated from the 1.0
    /// wire format, 0 otherwise.
    Audit(AuditArgs),
    /// Fetches an agent's card, validates it and shows its protocol versions, interfaces and claims
    /// (a card with faults is shown too, each fault named). Exits 1 when what was served is no agent
    /// card or its signatures fail, 2 when no card could be fetched, naming what is wrong and where.
    Card(CardArgs),
    /// Sends a message to an agent and shows its answer. Streams when the card claims streaming
    /// (each event as it arrives), else sends and follows the task with GetTask; says whether the
    /// streaming claim was verified or refused, and after a refusal shows the refused task's own
    /// answer when it had ended (nothing is sent again), else the single-shot fallback's. Continues
    /// a conversation with --task-id / --context-id; TEXT `-` (or none, piped) is read from stdin.
    /// Exits 0 when the agent answered (also when a call after the answer failed: that failure is a
    /// note), 1 when it contradicted its card (the answer is still shown), 2 when there is no answer
    /// (the agent could not be reached, the task failed, was rejected or canceled, or a bound ran
    /// out), 4 when the task waits for your input or authentication (the command that continues it
    /// is printed).
    Send(SendArgs),
    /// Lists, reads, cancels or follows an agent's tasks (ListTasks, GetTask, CancelTask,
    /// SubscribeToTask). Exits 0 on success, 2 when the agent answered with an error, could not be
    /// reached, or a listing stopped early (the tasks read until then are shown).
    #[command(subcommand)]
    Tasks(TasksCommand),
    /// Watches a fleet over time: audits each agent again on a schedule and whenever its card changes,
    /// keeps the history of verdicts and cards, and serves one page (the fleet at a glance, each
    /// agent's timeline, each refusal's evidence, live) and Prometheus metrics (`/metrics`) on one
    /// address, loopback unless told otherwise. Runs until interrupted; exits 2 when it cannot start.
    Watch(WatchArgs),
    /// A fleet of agents that lie about their cards or misbehave, each in one way, which grade any A2A
    /// client pointed at them from their side (`serve`), and the client's scorecard (`report`).
    #[command(subcommand)]
    Conformance(ConformanceCommand),
    /// One replica of `a2a demo --replicas N` (the demo starts these itself; not for direct use).
    #[command(hide = true)]
    ReplicaWorker(ReplicaWorkerArgs),
}

/// The `a2a conformance` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum ConformanceCommand {
    /// Starts the fleet on loopback, prints each scenario (its URL, what its card claims, what a
    /// conforming client does) and serves the list as JSON at `/scenarios` and the scorecard at
    /// `/report`. Point the client under test at each URL with the scenario's message (and its
    /// bearer token, where it has one), then run `a2a conformance report`. Runs until interrupted;
    /// exits 2 when it cannot start.
    Serve(ConformanceServeArgs),
    /// Reads a running fleet's scorecard (waiting out any scenario still within its patience) and
    /// prints it. Exits 0 when every scenario passed, 1 when one failed or was not run, 2 when the
    /// fleet could not be read.
    Report(ConformanceReportArgs),
}

/// Arguments of `a2a conformance serve`.
#[derive(Debug, Clone, Args)]
pub struct ConformanceServeArgs {
    /// Where the scenario list and the scorecard are served (the agents take free loopback ports).
    #[arg(long, default_value = "127.0.0.1:9477", value_name = "ADDR")]
    pub listen: std::net::SocketAddr,
    /// How long a client may hold a task that never ends before it must let go, e.g. `30s`: give the
    /// client under test this deadline.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub patience: Duration,
    /// Prints the scenario list as one JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `a2a conformance report`.
#[derive(Debug, Clone, Args)]
pub struct ConformanceReportArgs {
    /// The fleet's address, as `a2a conformance serve` printed it.
    #[arg(value_name = "URL", default_value = "http://127.0.0.1:9477", value_parser = crate::user_url::agent_url)]
    pub url: String,
    /// Prints the scorecard as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `a2a demo`.
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Tasks sent to each agent in each batch.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub tasks_per_agent: u32,
    /// Tasks in flight at once within a batch.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub concurrency: u32,
    /// How long to wait for a push callback before judging a push claim, e.g. `2s` or `500ms`.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub push_arrival_bound: Duration,
    /// Prints the report as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Drives the fleet with this many replicas, separate processes that share nothing but Redis,
    /// and compares the shared cache with local caches only.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub replicas: Option<u32>,
    /// The Redis server the replicas share (`redis://127.0.0.1:6379/`). Without it the demo starts a
    /// redis-server of its own on loopback when one is installed, and says so when none is.
    #[arg(long, value_name = "URL", requires = "replicas")]
    pub redis: Option<String>,
}

/// Arguments of the hidden `a2a replica-worker`: one replica of `a2a demo --replicas N`. It reads the
/// targets (one JSON line) and then `batch N` lines on stdin, and answers each batch with one JSON
/// line on stdout.
#[derive(Debug, Clone, Args)]
pub struct ReplicaWorkerArgs {
    /// The replica's name, in its metrics and the marks it shares.
    #[arg(long)]
    pub name: String,
    /// The shared Redis server; without it the replica has a local cache only.
    #[arg(long)]
    pub redis: Option<String>,
    /// Key prefix in Redis (one per demo run).
    #[arg(long, default_value = "a2a-demo")]
    pub key_prefix: String,
    /// Tasks sent to each agent in each batch.
    #[arg(long, default_value_t = 4)]
    pub tasks_per_agent: u32,
    /// Tasks in flight at once within a batch.
    #[arg(long, default_value_t = 16)]
    pub concurrency: u32,
    /// How long to wait for a push callback.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub push_arrival_bound: Duration,
}

/// The report formats of `a2a audit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Tables for people.
    #[default]
    Table,
    /// The machine-readable report (the same as `--json`).
    Json,
    /// JUnit XML: one test case per agent and claim, for CI.
    Junit,
    /// One self-contained HTML page with a timeline per agent.
    Html,
}

/// Arguments of `a2a audit`.
#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// Base URLs of the agents (their cards are discovered under `/.well-known/`). A password in a
    /// URL is masked as it is read, never printed (credentials go in the flags below).
    #[arg(required_unless_present_any = ["gateways", "file"], value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub urls: Vec<String>,
    /// A file listing agents: one base URL per line, `#` comments, `gateway URL` for an agent behind a
    /// gateway. Audited after the URLs given as arguments.
    #[arg(long, value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// How many agents are audited at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// An agent reached through a gateway (repeatable): its card describes the gateway, so its claims
    /// are reported unverifiable instead of being checked.
    #[arg(long = "gateway", value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub gateways: Vec<String>,
    /// How long to wait for a push callback before judging a push claim, e.g. `5s`.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub push_arrival_bound: Duration,
    /// Longest wait for any one request, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Longest one agent's audit may take, its card and every probe together, e.g. `1m`: an agent
    /// that hangs costs the audit no more (it is reported not audited, saying so).
    #[arg(long, default_value = "3m", value_parser = parse_duration)]
    pub deadline: Duration,
    /// How long a task may show no progress (the same state, the same question again, keep-alive
    /// comments only) before the probe gives up on it (a lifecycle fault, not a lie), e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub working_bound: Duration,
    /// Prints a machine-readable JSON report instead of tables (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// The report's format: table, json, junit (for CI) or html (a self-contained page).
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// Wire deviations (answers read only by tolerant reading: 0.3-shaped events on a 1.0 stream,
    /// `kind` fields, lowercase states, a missing contextId) fail the audit with exit status 3 when
    /// nothing worse was found.
    #[arg(long)]
    pub strict: bool,
    /// Where the push webhook receiver listens, e.g. `0.0.0.0:8080` (default: a free loopback port
    /// per probe). Agents on other hosts need an address they can reach.
    #[arg(long, value_name = "ADDR")]
    pub webhook_listen: Option<std::net::SocketAddr>,
    /// The webhook URL agents are given, for a receiver behind a proxy or NAT, e.g.
    /// `https://hooks.example.com/a2a` (default: the listen address).
    #[arg(long, value_name = "URL")]
    pub webhook_public_url: Option<String>,
    /// The card claims beyond the lifecycle to check, comma-separated: extended-card, extensions,
    /// interfaces, output-modes, security (default: all).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "extended-card,extensions,interfaces,output-modes,security"
    )]
    pub claims: Vec<a2a_typestate::ClaimKind>,
    /// Call every interface the card declares (at most the task budget's 8 interfaces, concurrently,
    /// each bounded by --request-timeout), not only the one the audit uses.
    #[arg(long)]
    pub all_interfaces: bool,
    /// Credentials for agents whose cards ask for them (from the environment or files).
    #[command(flatten)]
    pub credentials: CredentialArgs,
}

/// Arguments of `a2a watch`.
#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// Agents to watch: base URLs, or files listing them (one base URL per line, `#` comments,
    /// `gateway URL` for an agent behind a gateway), in any mix.
    #[arg(required_unless_present = "gateways", value_name = "FILE|URL", value_parser = crate::user_url::as_typed)]
    pub agents: Vec<String>,
    /// An agent reached through a gateway (repeatable): its claims are reported unverifiable.
    #[arg(long = "gateway", value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub gateways: Vec<String>,
    /// How often each agent is audited again, e.g. `5m`.
    #[arg(long, default_value = "5m", value_parser = parse_duration)]
    pub interval: Duration,
    /// Up to this much is added at random to each agent's next audit, so a fleet's audits spread out
    /// instead of arriving together, e.g. `10s`.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub jitter: Duration,
    /// How often each agent's card is fetched (with `If-None-Match`) to see whether it changed; a
    /// changed card (ETag or body) is audited again at once, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub card_check: Duration,
    /// The shortest time between two audits of one agent, whatever its card does, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub min_interval: Duration,
    /// How many agents are audited at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// The longest one agent's audit may take; past it the audit is abandoned and counted as an
    /// error, so a stuck agent never holds up the others, e.g. `2m`.
    #[arg(long, default_value = "120s", value_parser = parse_duration)]
    pub audit_timeout: Duration,
    /// Where the page and `/metrics` are served.
    #[arg(long, default_value = "127.0.0.1:9464", value_name = "ADDR")]
    pub listen: std::net::SocketAddr,
    /// A name the page and `/metrics` answer to besides the listen address's own (repeatable): a
    /// host name or address with an optional `:port` (the listen port when none), e.g. the name a
    /// proxy or your browser uses. Requests whose Host names anything else are refused (421), so a
    /// page on another site cannot read the fleet by DNS rebinding.
    #[arg(long = "allowed-host", value_name = "HOST", value_parser = parse_allowed_host)]
    pub allowed_hosts: Vec<String>,
    /// Environment variable holding the token the page and `/metrics` ask for (`Authorization:
    /// Bearer TOKEN`, or `?token=TOKEN` in a browser). Required when `--listen` is not loopback.
    #[arg(long, value_name = "NAME")]
    pub token_env: Option<String>,
    /// The file of the embedded history store (created when missing; not used with `--redis`).
    /// By default `a2a/watch.redb` under the user's data directory: `$XDG_DATA_HOME`, else
    /// `~/.local/share`.
    #[arg(long, value_name = "FILE")]
    pub store: Option<std::path::PathBuf>,
    /// Entries (audits and card changes) kept per agent; older ones are dropped.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub keep: u32,
    /// Days an entry is kept; older ones are dropped.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub keep_days: u32,
    /// The Redis server orchestrator replicas share suspect marks through: the history is kept there
    /// instead of in `--store` (and read back at start), and the page and `/metrics` show the marks
    /// the replicas hold for the watched agents.
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// The key prefix those replicas use in Redis.
    #[arg(long, default_value = "a2a", requires = "redis")]
    pub redis_key_prefix: String,
    /// How long to wait for a push callback before judging a push claim, e.g. `5s`.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub push_arrival_bound: Duration,
    /// Longest wait for any one request, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// How long a probe task may show no progress before it is given up (a lifecycle fault, not a
    /// lie), e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub working_bound: Duration,
    /// Credentials for agents whose cards ask for them (from the environment or files).
    #[command(flatten)]
    pub credentials: CredentialArgs,
}

/// Arguments of `a2a card`.
#[derive(Debug, Clone, Args)]
pub struct CardArgs {
    /// The agent's base URL, or the URL of its card under `/.well-known/`.
    #[arg(value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub url: String,
    /// Longest wait for the card, e.g. `10s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Prints the card summary as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// A file of keys trusted to sign agent cards (repeatable): a JWKS, a single JWK, or a PEM
    /// public key whose key id is the file name without its extension. With one, a signed card's
    /// signatures are verified and its signer shown; a card whose signatures all fail is refused.
    #[arg(long, visible_alias = "trust-key", value_name = "FILE")]
    pub trust_jwks: Vec<std::path::PathBuf>,
    /// Refuses a card that carries no signature verifying against `--trust-jwks`.
    #[arg(long, requires = "trust_jwks")]
    pub require_signature: bool,
    /// Credentials for agents whose cards ask for them; with them, a declared extended card is
    /// fetched and shown too.
    #[command(flatten)]
    pub credentials: CredentialArgs,
}

/// How `a2a send` and `a2a tasks` reach an agent: the bounds of each call, and credentials.
#[derive(Debug, Clone, Args)]
pub struct AgentArgs {
    /// Longest wait for any one request, e.g. `30s` (a blocking send waits for the task's end).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Longest a whole task may run, followed on a stream or by polling, e.g. `5m`.
    #[arg(long, default_value = "300s", value_parser = parse_duration)]
    pub task_deadline: Duration,
    /// A header sent with every request to the agent (repeatable), e.g. `-H 'X-Tenant: blue'`. Its
    /// value is never printed; a secret is better kept out of shell history with --header-env.
    #[arg(short = 'H', long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// Credentials for agents whose cards ask for them (from the environment or files).
    #[command(flatten)]
    pub credentials: CredentialArgs,
    /// Refuses an answer that deviates from the protocol (a 0.3 member left out, an event without
    /// its JSON-RPC envelope...) as bad input, instead of reading what it unambiguously says and
    /// listing the deviation.
    #[arg(long)]
    pub strict: bool,
}

/// Arguments of `a2a send`.
#[derive(Debug, Clone, Args)]
pub struct SendArgs {
    /// The agent's base URL (its card is discovered under `/.well-known/`).
    #[arg(value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub url: String,
    /// The text of the message; `-`, or nothing when stdin is no terminal, reads it from stdin.
    #[arg(value_name = "TEXT")]
    pub text: Option<String>,
    /// Continues this task (one that waits for input, say): the message carries its id.
    #[arg(long, value_name = "ID")]
    pub task_id: Option<String>,
    /// Sends the message in this conversation (context): the message carries its id.
    #[arg(long, value_name = "ID")]
    pub context_id: Option<String>,
    /// Prints one JSON object per line (the card, each update, the result with the answer's text)
    /// instead of text.
    #[arg(long)]
    pub json: bool,
    /// How to reach the agent.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// The `a2a tasks` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum TasksCommand {
    /// Lists every task the agent holds, page after page (ListTasks), newest first.
    List(TasksListArgs),
    /// Shows one task (GetTask).
    Get(TaskArgs),
    /// Asks the agent to cancel a task (CancelTask) and shows the task as the agent left it.
    Cancel(TaskArgs),
    /// Follows a task (SubscribeToTask), each event as it arrives; an agent that does not stream it
    /// is polled with GetTask instead, each new state once.
    Subscribe(TaskArgs),
}

/// Arguments of `a2a tasks list`.
#[derive(Debug, Clone, Args)]
pub struct TasksListArgs {
    /// The agent's base URL.
    #[arg(value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub url: String,
    /// Tasks asked for in each page (the spec allows 1 to 100).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(1..=100))]
    pub page_size: i32,
    /// Pages read at most (by default the task budget's 1,000): an agent that still names a next
    /// page after them stops the listing with an error.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pages: Option<u32>,
    /// Tasks listed at most: the listing ends after them, whatever the agent still has (the last
    /// page is asked for with only the tasks left).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Lists only the tasks of this context.
    #[arg(long, value_name = "ID")]
    pub context_id: Option<String>,
    /// Prints one JSON object per task (the task as the agent sent it), then one summary line.
    #[arg(long)]
    pub json: bool,
    /// How to reach the agent.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Arguments of `a2a tasks get|cancel|subscribe`.
#[derive(Debug, Clone, Args)]
pub struct TaskArgs {
    /// The agent's base URL.
    #[arg(value_name = "URL", value_parser = crate::user_url::agent_url)]
    pub url: String,
    /// The task's id.
    #[arg(value_name = "ID")]
    pub id: String,
    /// Prints JSON (one object per line for subscribe) instead of text.
    #[arg(long)]
    pub json: bool,
    /// How to reach the agent.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Reads `250ms`, `2s` or `1m`; a bare number is seconds.
///
/// # Errors
/// A message naming the accepted forms when `text` is none of them or is zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let bad = || format!("`{text}` is not a duration: write it like 500ms, 2s or 1m");
    let value: u64 = number.parse().map_err(|_| bad())?;
    let duration = match unit {
        "ms" => Duration::from_millis(value),
        "" | "s" => Duration::from_secs(value),
        "m" => Duration::from_secs(value.saturating_mul(60)),
        _ => return Err(bad()),
    };
    if duration.is_zero() {
        return Err(format!("`{text}` is zero: a bound must be positive"));
    }
    Ok(duration)
}

/// Whether `name` ends in a port: `host:9464` or `[::1]:9464`, not `[::1]` nor `::1`.
pub(crate) fn names_port(name: &str) -> bool {
    match name.rsplit_once(':') {
        Some((head, port)) => {
            !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (head.ends_with(']') || !head.contains(':'))
        }
        None => false,
    }
}

/// Reads an `--allowed-host` value: a host name or address, with an optional `:port`
/// (`watch.example.com`, `10.0.0.5:9464`, `[fd00::5]:9464`).
///
/// # Errors
/// A message saying what the value holds that a `Host` cannot (a scheme, a path, user info, a
/// space, an empty name, a port that is no number).
pub(crate) fn parse_allowed_host(value: &str) -> Result<String, String> {
    let example = "write a host name or address with an optional :port, such as watch.example.com or \
                   10.0.0.5:9464";
    if value.is_empty() {
        return Err(format!("an empty name: {example}"));
    }
    if let Some(bad) = value.chars().find(|c| c.is_whitespace() || c.is_control() || "/@?#\\".contains(*c)) {
        return Err(format!(
            "{value:?} holds {bad:?}, which no Host holds (a URL's scheme, path or user info?): {example}"
        ));
    }
    let name = if names_port(value) {
        let (name, port) = value.rsplit_once(':').unwrap_or((value, ""));
        if port.parse::<u16>().is_err() {
            return Err(format!("{value:?} names port {port}, which is no port number: {example}"));
        }
        name
    } else {
        value
    };
    let bracketed = name.starts_with('[') && name.ends_with(']') && name.len() > 2;
    if name.is_empty() || (name.contains(':') && !bracketed) || (name.contains(['[', ']']) && !bracketed) {
        return Err(format!(
            "{value:?} is no host name (an IPv6 address goes in brackets: [fd00::5]): {example}"
        ));
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_read_milliseconds_seconds_and_minutes() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
    }

    #[test]
    fn bad_or_zero_durations_say_what_is_accepted() {
        assert!(parse_duration("soon").unwrap_err().contains("500ms, 2s or 1m"));
        assert!(parse_duration("2h").is_err());
        assert!(parse_duration("0s").unwrap_err().contains("positive"));
    }
}
