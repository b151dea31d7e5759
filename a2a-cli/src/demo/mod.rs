//! `a2a demo`: the design note's run, on loopback.
//!
//! Thirteen scripted agents ([`a2a_testkit::fleet::demo_fleet`]): three over-declare a lifecycle
//! claim (streaming, history, push), two another card claim (an extended card they do not serve,
//! a retired interface listed first: the client refuses each, marks it, and takes the public card
//! or the next interface), seven are honest with a mix of capabilities and versions, one
//! under-declares streaming. Each task depends on the claims its agent's card makes, and honest agents that ask for
//! input get an answer. Two batches run through one client: the first with an empty discovery cache,
//! the second with the cache (cards and capability-suspect marks) the first left behind. Then the same
//! two batches again with the suspect cache switched off ([`SuspectMarks::Off`]: no agent is marked,
//! every task is negotiated), for comparison.
//!
//! Every task ends completed, completed single-shot (the agent was suspect), completed through the
//! fallback, or failed with a reason; the report's totals show that none is lost, and the checks
//! compare the verdicts with what the fleet knows about each card.
//!
//! ```
//! use std::time::Duration;
//!
//! use a2a_typestate_cli::demo::{DemoOptions, run};
//! # #[tokio::main] async fn main() -> Result<(), a2a_typestate_cli::demo::DemoError> {
//! // One task per agent per batch keeps the example short; `a2a demo` sends four.
//! let options =
//!     DemoOptions { tasks_per_agent: 1, push_arrival_bound: Duration::from_secs(1), ..DemoOptions::default() };
//! let report = run(&options, false).await?;
//! assert!(report.passed(), "{:?}", report.checks);
//! assert_eq!(report.agents.len(), 13);
//! # Ok(()) }
//! ```

mod batch;
mod checks;
mod render;
pub mod replicas;
mod report;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_testkit::fleet::{EXTENDED_CARD_LIAR_TOKEN, Fleet, demo_fleet};
use a2a_testkit::{Protocol, TestkitError};
use a2a_typestate::{Capability, CapabilitySet, Deployment};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
use a2a_typestate_client::{Client, ClientBuilder, DiscoveredCard, PollCadence, SuspectMarks, WellKnownPath};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub use report::{AgentReport, BatchReport, Check, DemoReport, RunReport};

use crate::cli::DemoArgs;
use crate::exit::Exit;
use crate::output;
use a2a_typestate_client::text;
use batch::{Target, run_batch};

/// How the demo runs.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Tasks sent to each agent in each batch.
    pub tasks_per_agent: u32,
    /// Tasks in flight at once within a batch.
    pub concurrency: u32,
    /// How long a push callback may take before the push claim is judged.
    pub push_arrival_bound: Duration,
}

impl Default for DemoOptions {
    /// Four tasks per agent per batch, sixteen in flight, a 2 s push bound.
    fn default() -> Self {
        Self { tasks_per_agent: 4, concurrency: 16, push_arrival_bound: Duration::from_secs(2) }
    }
}

impl From<&DemoArgs> for DemoOptions {
    fn from(args: &DemoArgs) -> Self {
        Self {
            tasks_per_agent: args.tasks_per_agent,
            concurrency: args.concurrency,
            push_arrival_bound: args.push_arrival_bound,
        }
    }
}

/// Why the demo could not run at all (a task's failure is part of the report instead).
#[derive(Debug)]
#[non_exhaustive]
pub enum DemoError {
    /// The fleet could not start.
    Fleet(TestkitError),
    /// The client could not be configured.
    Client(a2a_typestate_client::Error),
    /// An agent's own card could not be read (a testkit defect).
    Card(String),
    /// `--redis` names no usable Redis server.
    Redis {
        /// The URL given.
        url: String,
        /// Why it cannot be used.
        source: a2a_typestate_client::Error,
    },
}

impl std::fmt::Display for DemoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Fleet(_) => f.write_str("cannot start the demo fleet"),
            Self::Client(_) => f.write_str("cannot configure the client"),
            Self::Card(what) => write!(f, "cannot read a fleet agent's card: {what}"),
            Self::Redis { url, .. } => {
                write!(
                    f,
                    "--redis {:?} is not a redis url (such as redis://127.0.0.1:6379/)",
                    crate::user_url::shown(url)
                )
            }
        }
    }
}

impl std::error::Error for DemoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Fleet(e) => Some(e),
            Self::Client(e) | Self::Redis { source: e, .. } => Some(e),
            Self::Card(_) => None,
        }
    }
}

/// The reduction the suspect cache must achieve: the second batch wastes at most a tenth of the
/// first's round trips.
pub const REQUIRED_WASTE_RATIO: f64 = 0.1;

/// Starts the fleet, runs both runs of two batches, shuts the fleet down and reports. With
/// `show_progress`, a progress bar per batch is drawn on stderr when it is a terminal.
///
/// # Errors
/// [`DemoError`] when the fleet or the client cannot start; task failures are in the report.
pub async fn run(options: &DemoOptions, show_progress: bool) -> Result<DemoReport, DemoError> {
    let started = Instant::now();
    let fleet = demo_fleet().await.map_err(DemoError::Fleet)?;
    let result = run_on(&fleet, options, show_progress).await;
    fleet.shutdown().await;
    let mut report = result?;
    report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

async fn run_on(fleet: &Fleet, options: &DemoOptions, show_progress: bool) -> Result<DemoReport, DemoError> {
    let mut agents = Vec::with_capacity(fleet.members.len());
    let mut targets = Vec::with_capacity(fleet.members.len());
    for member in &fleet.members {
        let claims = card_claims(member.agent.card(), &member.agent.base_url())?;
        let depends: Vec<Capability> = claims.iter().collect();
        targets.push(Target {
            name: member.agent.name().to_owned(),
            url: member.agent.base_url(),
            negotiation: Arc::new(negotiation_for(&depends)),
        });
        let protocol = match member.agent.protocol() {
            Protocol::V0_3 => "0.3",
            _ => "1.0",
        };
        agents.push(AgentReport::new(
            member.agent.name(),
            &member.agent.base_url(),
            protocol,
            checks::truth(member.honesty),
            claims,
        ));
    }
    let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
    let per_batch = options.tasks_per_agent.saturating_mul(u32::try_from(targets.len()).unwrap_or(u32::MAX));
    let mut runs = Vec::new();
    for marks in [SuspectMarks::On, SuspectMarks::Off] {
        let suspect_cache = marks == SuspectMarks::On;
        let client = demo_client(options, marks)?;
        let mut batches = Vec::new();
        for batch in 1..=2u32 {
            let label = format!("{}-{batch}", if suspect_cache { "on" } else { "off" });
            let bar = progress_bar(show_progress, per_batch, suspect_cache, batch);
            let run = run_batch(
                &client,
                &targets,
                options.tasks_per_agent,
                usize::try_from(options.concurrency).unwrap_or(1),
                &label,
                &bar,
            )
            .await;
            bar.finish_and_clear();
            if suspect_cache {
                for (index, record) in &run.records {
                    if let Some(agent) = agents.get_mut(*index) {
                        agent.absorb(record);
                    }
                }
            }
            batches.push(BatchReport::new(batch, &run, &names));
        }
        runs.push(RunReport::new(suspect_cache, batches));
    }
    for (agent, member) in agents.iter_mut().zip(&fleet.members) {
        agent.verdict_matches_truth = checks::verdict_matches(member.honesty, agent);
    }
    let checks = checks::checks(&agents, &runs, per_batch);
    Ok(DemoReport {
        tasks_per_agent: options.tasks_per_agent,
        concurrency: options.concurrency,
        agents,
        runs,
        checks,
        elapsed_ms: 0,
    })
}

/// What the demo's tasks to an agent depend on: every claim its card makes, and an answer for an
/// agent that asks for input.
fn negotiation_for(depends: &[Capability]) -> Negotiation {
    Negotiation::depending_on(depends).follow_up(FollowUp::reply("metric units, please"))
}

/// The claims a fleet agent's card makes, read from the card it serves as discovery reads it (the
/// one place claims are lifted).
fn card_claims(card: &serde_json::Value, source_url: &str) -> Result<CapabilitySet, DemoError> {
    let bytes = serde_json::to_vec(card).map_err(|e| DemoError::Card(e.to_string()))?;
    let discovered = DiscoveredCard::from_bytes(bytes.into(), source_url, WellKnownPath::AgentCard)
        .map_err(|e| DemoError::Card(e.to_string()))?;
    Ok(discovered.claims(Deployment::Direct).declared())
}

/// A client for one run: fast polling (the agents are local), the demo's push bound, and capability-suspect
/// marks on (the default one-hour TTL outlasts the run) or switched off for the comparison run.
fn demo_client(options: &DemoOptions, marks: SuspectMarks) -> Result<Client, DemoError> {
    demo_client_builder(options, marks)?.build().map_err(DemoError::Client)
}

fn demo_client_builder(options: &DemoOptions, marks: SuspectMarks) -> Result<ClientBuilder, DemoError> {
    let cadence = PollCadence::new(Duration::from_millis(20), 2.0, Duration::from_millis(200))
        .map_err(DemoError::Client)?;
    // A bearer token goes only to agents whose card asks for one: in the fleet, the extended-card
    // liar, whose extended card is only asked for with credentials.
    let bearer = BearerToken::new(Secret::new(EXTENDED_CARD_LIAR_TOKEN.to_owned()));
    Ok(Client::builder()
        .credentials(Credentials::new().with(bearer))
        .poll_cadence(cadence)
        .push_arrival_bound(options.push_arrival_bound)
        .request_timeout(Duration::from_secs(30))
        .suspect_marks(marks))
}

fn progress_bar(show: bool, total: u32, suspect_cache: bool, batch: u32) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(u64::from(total)), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{prefix:>28} [{bar:32}] {pos}/{len} tasks {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(format!("suspect cache {}, batch {batch}", if suspect_cache { "on" } else { "off" }));
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Runs `a2a demo`: exits 0 when every check passes, 1 when one fails, 2 when the demo cannot start.
pub async fn run_command(args: &DemoArgs, out: &mut dyn Write, err_out: &mut dyn Write) -> ExitCode {
    if let Some(count) = args.replicas {
        return replicas::run_command(args, count, out, err_out).await;
    }
    let report = match run(&DemoOptions::from(args), !args.json).await {
        Ok(report) => report,
        Err(e) => {
            let _ = writeln!(err_out, "error: {}", text::describe(&e));
            return Exit::NoResult.into();
        }
    };
    match (output::write_report(out, args.json, &report, render::render), report.passed()) {
        (Ok(()), true) => Exit::Done.into(),
        (Ok(()), false) => Exit::Contradicted.into(),
        (Err(_), _) => Exit::NoResult.into(),
    }
}
