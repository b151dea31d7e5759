//! `a2a conformance serve|report`: the conformance fleet (agents that lie or misbehave, each in one
//! way, and grade a client from their side; see [`a2a_testkit::conformance`]) and its scorecard.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use a2a_testkit::conformance::{ConformanceFleet, IndexServer, Outcome, ScenarioInfo, Scorecard};

use crate::cli::{ConformanceCommand, ConformanceReportArgs, ConformanceServeArgs};
use crate::exit::Exit;
use crate::style::{BAD, GOOD, NOTE};
use crate::table::{Cell, Table};

/// Runs one `a2a conformance` command.
pub async fn run(command: &ConformanceCommand, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    match command {
        ConformanceCommand::Serve(args) => serve(args, out, err).await,
        ConformanceCommand::Report(args) => report(args, out, err).await,
    }
}

async fn serve(args: &ConformanceServeArgs, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    let started = match ConformanceFleet::spawn(args.patience).await {
        Ok(fleet) => Arc::new(fleet),
        Err(e) => {
            let _ = writeln!(err, "a2a conformance serve: cannot start the fleet: {e}");
            return Exit::NoResult.into();
        }
    };
    let index = match IndexServer::spawn(Arc::clone(&started), args.listen).await {
        Ok(index) => index,
        Err(e) => {
            let _ = writeln!(err, "a2a conformance serve: cannot listen on {}: {e}", args.listen);
            return Exit::NoResult.into();
        }
    };
    let scenarios = started.scenarios();
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string(&scenarios).unwrap_or_default());
    } else {
        let _ = write!(out, "{}", scenario_table(&scenarios));
    }
    let _ = out.flush();
    let _ = writeln!(
        err,
        "a2a conformance serve: {} scenarios; the list at {url}/scenarios, the scorecard at {url}/report \
         (patience {:.0} s)",
        scenarios.len(),
        args.patience.as_secs_f64(),
        url = index.url()
    );
    crate::shutdown_signal().await;
    index.shutdown().await;
    if let Some(fleet) = Arc::into_inner(started) {
        fleet.shutdown().await;
    }
    Exit::Done.into()
}

fn scenario_table(scenarios: &[ScenarioInfo]) -> String {
    let mut table = Table::new(&["scenario", "URL", "the card claims", "a conforming client"]);
    for s in scenarios {
        let url = match &s.bearer_token {
            Some(token) => format!("{} (bearer {token})", s.url),
            None => s.url.clone(),
        };
        table.row([
            Cell::from(s.id.as_str()),
            Cell::from(url),
            Cell::from(s.card_claims.as_str()),
            Cell::from(s.conforming.as_str()),
        ]);
    }
    table.render(0)
}

async fn report(args: &ConformanceReportArgs, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    let scorecard = match fetch(&args.url).await {
        Ok(scorecard) => scorecard,
        Err(e) => {
            let _ = writeln!(
                err,
                "a2a conformance report: cannot read the scorecard at {}/report: {e}",
                args.url
            );
            return Exit::NoResult.into();
        }
    };
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string(&scorecard).unwrap_or_default());
    } else {
        let _ = write!(out, "{}", scorecard_table(&scorecard));
        let _ = writeln!(
            out,
            "{} of {} scenarios passed, {} failed, {} not run",
            scorecard.count(Outcome::Pass),
            scorecard.grades.len(),
            scorecard.count(Outcome::Fail),
            scorecard.count(Outcome::NotRun)
        );
    }
    if scorecard.count(Outcome::Pass) == scorecard.grades.len() {
        Exit::Done.into()
    } else {
        Exit::Contradicted.into()
    }
}

/// The scorecard of the fleet at `url`; the fleet answers once no scenario is pending, which takes
/// at most its patience and a margin, so the wait is bounded by the longest patience there is.
async fn fetch(url: &str) -> Result<Scorecard, String> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(std::time::Duration::from_secs(600))
        .build()
        .map_err(|e| e.to_string())?;
    let response =
        http.get(format!("{}/report", url.trim_end_matches('/'))).send().await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("HTTP {}", response.status()));
    }
    let bytes = response.bytes().await.map_err(|e| e.to_string())?;
    serde_json::from_slice(&bytes).map_err(|e| format!("not a scorecard: {e}"))
}

fn scorecard_table(scorecard: &Scorecard) -> String {
    let mut table = Table::new(&["scenario", "grade", "why", "what the agent saw"]);
    for grade in &scorecard.grades {
        let (text, style) = match grade.outcome {
            Outcome::Pass => ("pass", GOOD),
            Outcome::Fail => ("FAIL", BAD),
            Outcome::NotRun => ("not run", NOTE),
            Outcome::Pending => ("pending", NOTE),
        };
        table.row([
            Cell::from(grade.scenario.as_str()),
            Cell::styled(text, style),
            Cell::from(grade.verdict.as_str()),
            Cell::from(grade.observed.as_str()),
        ]);
    }
    table.render(0)
}
