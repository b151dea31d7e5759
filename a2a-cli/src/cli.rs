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
#[command(name = "a2a", version, propagate_version = true)]
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
    /// Runs an embedded fleet of eleven scripted agents (three of them lying) through the client, with
    /// and without the suspect cache, and prints what was verified, refused and wasted.
    Demo(DemoArgs),
    /// Discovers each agent, runs a short probe task, and reports each declared capability as verified,
    /// refused (with the evidence), not exercised or unverifiable. Exits 1 when any agent
    /// over-declares, 2 when an agent could not be audited, 0 otherwise.
    Audit(AuditArgs),
    /// Fetches an agent's card, validates it and shows its protocol versions, interfaces and claims.
    /// Exits 1 when the card cannot be fetched or is invalid, naming what is wrong and where.
    Card(CardArgs),
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
}

/// Arguments of `a2a audit`.
#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// Base URLs of the agents (their cards are discovered under `/.well-known/`).
    #[arg(required_unless_present = "gateways", value_name = "URL")]
    pub urls: Vec<String>,
    /// An agent reached through a gateway (repeatable): its card describes the gateway, so its claims
    /// are reported unverifiable instead of being checked.
    #[arg(long = "gateway", value_name = "URL")]
    pub gateways: Vec<String>,
    /// How long to wait for a push callback before judging a push claim, e.g. `5s`.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub push_arrival_bound: Duration,
    /// Longest wait for any one request, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// How long a task may show no progress (the same state, the same question again, keep-alive
    /// comments only) before the probe gives up on it (a lifecycle fault, not a lie), e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub working_bound: Duration,
    /// Prints a machine-readable JSON report instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Credentials for agents whose cards ask for them (from the environment or files).
    #[command(flatten)]
    pub credentials: CredentialArgs,
}

/// Arguments of `a2a card`.
#[derive(Debug, Clone, Args)]
pub struct CardArgs {
    /// The agent's base URL, or the URL of its card under `/.well-known/`.
    #[arg(value_name = "URL")]
    pub url: String,
    /// Longest wait for the card, e.g. `10s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Prints the card summary as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// A JWKS file of keys trusted to sign agent cards (repeatable). With one, a signed card's
    /// signatures are verified and its signer shown; a card whose signatures all fail is refused.
    #[arg(long, value_name = "FILE")]
    pub trust_jwks: Vec<std::path::PathBuf>,
    /// Refuses a card that carries no signature verifying against `--trust-jwks`.
    #[arg(long, requires = "trust_jwks")]
    pub require_signature: bool,
    /// Credentials for agents whose cards ask for them; with them, a declared extended card is
    /// fetched and shown too.
    #[command(flatten)]
    pub credentials: CredentialArgs,
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
