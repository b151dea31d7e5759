//! The `a2a` command line: a demo fleet, audits of real agents, card inspection.
//!
//! `cargo install a2a-typestate-cli` installs the command, named `a2a`: `a2a demo` runs the
//! embedded fleet of honest and lying agents (nothing to start), `a2a audit URL...` asks which of an
//! agent's card claims hold, `a2a card URL` shows a card, `a2a send URL TEXT` talks to an agent and
//! `a2a tasks list URL` pages through its tasks. `a2a --help` lists every option.
//!
//! The binary is a thin shell over this library, so the commands can be run in-process by tests and
//! by other tools:
//!
//! - [`demo`]: `a2a demo` runs the embedded fleet through the client ([`demo::run`], [`demo::DemoReport`]);
//! - [`audit`]: `a2a audit URL...` runs the client's audit
//!   ([`a2a_typestate_client::audit`]) and reports each claim as a table, JSON, JUnit or HTML;
//! - [`card`]: `a2a card URL` fetches, validates and shows a card ([`card::CardSummary`]);
//! - [`send`]: `a2a send URL TEXT` sends a message through the client's engine, streaming when the
//!   card claims it, and shows each update and the claim checks;
//! - [`tasks`]: `a2a tasks list|get|cancel|subscribe URL [ID]` reads and follows an agent's tasks;
//! - [`watch`]: `a2a watch FILE|URL...` audits a fleet again and again and serves its history as a
//!   page and Prometheus metrics ([`watch::Watch`]);
//! - [`conformance`]: `a2a conformance serve|report` runs a fleet of lying and misbehaving agents
//!   that grade any A2A client from their side, and prints the client's scorecard;
//! - [`exit`]: the exit status scheme every command follows.
//!
//! Output for people is tables written through [`anstream`], which drops colour codes when the
//! output is not a terminal (or `NO_COLOR` is set); `--json` prints machine-readable reports.
//!
//! ```
//! use std::process::ExitCode;
//!
//! use clap::Parser;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A scripted agent on loopback, served by its own runtime while the command runs on another.
//! let agents = tokio::runtime::Runtime::new()?;
//! let agent = agents.block_on(a2a_testkit::ScriptedAgent::builder().name("weather").spawn())?;
//!
//! let cli = a2a_typestate_cli::cli::Cli::parse_from(["a2a", "card", &agent.base_url()]);
//! assert_eq!(a2a_typestate_cli::run(cli), ExitCode::SUCCESS);
//! # Ok(()) }
//! ```
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod audit;
pub mod card;
pub mod cli;
pub mod conformance;
pub mod credentials;
pub mod demo;
pub mod exit;
mod output;
pub mod send;
mod style;
mod table;
mod talk;
pub mod tasks;
mod user_url;
pub mod watch;

use std::io::Write;
use std::process::ExitCode;

use cli::{Cli, ColorWhen, Command};

/// Runs one parsed command line to completion on a fresh tokio runtime and returns the exit status.
pub fn run(cli: Cli) -> ExitCode {
    let choice = match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = writeln!(anstream::stderr(), "error: cannot start the async runtime: {e}");
            return exit::Exit::NoResult.into();
        }
    };
    let mut out = anstream::stdout();
    let mut err = anstream::stderr();
    runtime.block_on(async {
        match &cli.command {
            Command::Card(args) => card::run(args, &mut out, &mut err).await,
            Command::Demo(args) => demo::run_command(args, &mut out, &mut err).await,
            Command::Audit(args) => audit::run_command(args, &mut out).await,
            Command::Send(args) => send::run(args, &mut out, &mut err).await,
            Command::Tasks(command) => tasks::run(command, &mut out, &mut err).await,
            Command::Watch(args) => watch::run_command(args, &mut err).await,
            Command::Conformance(command) => conformance::run(command, &mut out, &mut err).await,
            Command::ReplicaWorker(args) => demo::replicas::worker::run(args).await,
        }
    })
}

/// Waits for Ctrl-C (or, on Unix, SIGTERM): how the long-running commands (`watch`, `conformance
/// serve`) are told to stop.
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
