//! `a2a audit URL...`: the client's audit ([`a2a_typestate_client::audit`]) of each agent, with
//! progress on a terminal, and its report as a table, JSON, JUnit or HTML.
//!
//! Exit status, the first that applies (the [`AuditFinding`], as [`Exit`] numbers it):
//! - 1 ([`Exit::Contradicted`]): an agent over-declares (a claim was refused);
//! - 2 ([`Exit::NoResult`]): an agent could not be audited (no card, unreachable, the probe failed
//!   for another reason, such as a lifecycle fault);
//! - 3 ([`Exit::Deviated`]): only with `--strict`, an agent's answers deviated from the 1.0 wire
//!   format (each deviation is listed with its call, event number and JSON path);
//! - 0 otherwise.

mod fleet;
mod html;
mod junit;
mod render;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use a2a_typestate::Deployment;
use a2a_typestate_client::Client;
use a2a_typestate_client::audit::{AgentAudit, AuditFinding, AuditOptions, AuditReport, Auditor};
use a2a_typestate_client::text;
use futures::StreamExt;
use serde::Serialize;

use crate::cli::{AuditArgs, CredentialArgs, ReportFormat};
use crate::exit::Exit;

pub use fleet::read_agent_file;

/// The options `a2a audit`'s arguments give the client's audit.
pub(crate) fn options_of(args: &AuditArgs) -> AuditOptions {
    AuditOptions {
        push_arrival_bound: args.push_arrival_bound,
        request_timeout: args.request_timeout,
        deadline: args.deadline,
        working_bound: args.working_bound,
        strict: args.strict,
        concurrency: usize::try_from(args.concurrency).unwrap_or(1).max(1),
        webhook_listen: args.webhook_listen,
        webhook_public_url: args.webhook_public_url.clone(),
        claims: args.claims.clone(),
        all_interfaces: args.all_interfaces,
    }
}

/// The exit status for what an audit found.
pub(crate) fn exit_of(finding: AuditFinding) -> Exit {
    match finding {
        AuditFinding::OverDeclares => Exit::Contradicted,
        AuditFinding::NotAudited => Exit::NoResult,
        AuditFinding::WireDeviations => Exit::Deviated,
        AuditFinding::Clean => Exit::Done,
    }
}

/// The auditor of `agents` for `options` with `credentials` (the command line's `--bearer-env`,
/// ...), or why there is none, in words.
pub(crate) async fn auditor(
    credentials: &CredentialArgs,
    agents: &[&str],
    options: AuditOptions,
) -> Result<Auditor, String> {
    let builder = credentials.apply(Client::builder(), agents)?;
    Auditor::new(builder, options).await.map_err(|e| text::one_line(&e))
}

/// Audits `agents` as `a2a audit` does: progress drawn on a terminal (when `progress`), each agent
/// not audited with why when no auditor could be made.
async fn audit_with_progress(
    agents: &[(String, Deployment)],
    options: &AuditOptions,
    credentials: &CredentialArgs,
    progress: bool,
) -> AuditReport {
    let urls: Vec<&str> = agents.iter().map(|(url, _)| url.as_str()).collect();
    let audited = match auditor(credentials, &urls, options.clone()).await {
        Ok(auditor) => {
            let bar = progress_bar(progress, agents.len());
            let audited = auditor
                .agents(agents)
                .inspect(|agent| {
                    bar.inc(1);
                    bar.set_message(agent.url.clone());
                })
                .collect()
                .await;
            bar.finish_and_clear();
            audited
        }
        Err(why) => agents.iter().map(|(url, _)| AgentAudit::not_audited(url, why.clone())).collect(),
    };
    AuditReport::new(audited, options.strict)
}

fn progress_bar(show: bool, total: usize) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    if !show || total < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("auditing [{bar:32}] {pos}/{len} agents {elapsed} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The `--format json` output: the report and the exit status it gives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonReport<'a> {
    #[serde(flatten)]
    report: &'a AuditReport,
    exit_status: u8,
}

/// Runs `a2a audit`.
pub async fn run_command(args: &AuditArgs, out: &mut dyn Write) -> ExitCode {
    let mut agents: Vec<(String, Deployment)> = args
        .urls
        .iter()
        .map(|url| (url.clone(), Deployment::Direct))
        .chain(args.gateways.iter().map(|url| (url.clone(), Deployment::Gateway)))
        .collect();
    if let Some(path) = &args.file {
        match read_agent_file(path) {
            Ok(listed) => agents.extend(listed),
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "a2a audit: {e}");
                return Exit::NoResult.into();
            }
        }
    }
    if agents.is_empty() {
        let _ = writeln!(std::io::stderr(), "a2a audit: no agent to audit (give URLs or --file)");
        return Exit::NoResult.into();
    }
    let report = audit_with_progress(&agents, &options_of(args), &args.credentials, true).await;
    let exit = exit_of(report.finding());
    let format = if args.json { ReportFormat::Json } else { args.format };
    let shown = JsonReport { report: &report, exit_status: exit.code() };
    let written = match format {
        ReportFormat::Table | ReportFormat::Json => {
            crate::output::write_report(out, format == ReportFormat::Json, &shown, |r| {
                render::render(r.report)
            })
        }
        ReportFormat::Junit => out.write_all(junit::render(&report).as_bytes()),
        ReportFormat::Html => out.write_all(html::render(&report).as_bytes()),
    };
    match written {
        Ok(()) => exit.into(),
        Err(_) => Exit::NoResult.into(),
    }
}
