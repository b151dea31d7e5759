//! The demo report as tables for people.

use a2a_typestate::CapabilitySet;

use super::report::DemoReport;
use crate::style::{self, paint};
use crate::table::{Cell, Table};
use a2a_typestate_client::negotiate::record;

/// The report as tables for people.
pub(crate) fn render(report: &DemoReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{}  {} agents, {} tasks per agent per batch, {} in flight, {:.1} s\n\n",
        paint(style::TITLE, "a2a demo"),
        report.agents.len(),
        report.tasks_per_agent,
        report.concurrency,
        report.elapsed_ms as f64 / 1000.0
    ));

    out.push_str(&format!("{}\n", paint(style::TITLE, "Agents (suspect cache on, both batches)")));
    let mut agents = Table::new(&[
        "AGENT",
        "VERSION",
        "CLAIMS",
        "VERIFIED",
        "REFUSED",
        "KEPT",
        "FALLBACK",
        "SINGLE-SHOT",
        "FAILED",
        "TRUTH",
    ]);
    for agent in &report.agents {
        let refused = agent.refused_set();
        agents.row([
            Cell::plain(agent.name.clone()),
            Cell::plain(agent.protocol.clone()),
            Cell::plain(record::card_fields(agent.claims)),
            styled_set(agent.verified, style::GOOD),
            styled_set(refused, style::BAD),
            count_cell(agent.kept, style::NOTE),
            count_cell(agent.fallbacks, style::NOTE),
            count_cell(agent.single_shots, style::NOTE),
            count_cell(agent.failed, style::BAD),
            if agent.verdict_matches_truth {
                Cell::plain(agent.truth.clone())
            } else {
                Cell::styled(format!("{} (verdict differs)", agent.truth), style::BAD)
            },
        ]);
    }
    out.push_str(&agents.render(2));
    out.push_str(&paint(
        style::DIM,
        "  KEPT: tasks refused after they completed, their result kept (run once); FALLBACK: tasks \
         completed by the single-shot fallback after a refusal; SINGLE-SHOT: tasks sent single-shot at \
         once (the agent was suspect); FAILED: tasks that did not complete (see below)\n",
    ));

    let refusals: Vec<_> =
        report.agents.iter().flat_map(|a| a.refused.iter().map(move |r| (a.name.as_str(), r))).collect();
    if !refusals.is_empty() {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Refused claims and their evidence")));
        for (name, refusal) in refusals {
            out.push_str(&format!(
                "  {} {}: {}\n    {}\n",
                name,
                paint(style::BAD, refusal.capability.card_field()),
                refusal.contradiction,
                paint(style::DIM, format!("evidence: {}", refusal.evidence))
            ));
        }
    }

    let card_refusals: Vec<_> = report
        .agents
        .iter()
        .flat_map(|a| a.refused_card_claims.iter().map(move |r| (a.name.as_str(), r)))
        .collect();
    if !card_refusals.is_empty() {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Refused card claims and the fallback taken")));
        for (name, refusal) in card_refusals {
            out.push_str(&format!(
                "  {} {}: {}\n    {}\n    {}\n",
                name,
                paint(style::BAD, refusal.kind.name()),
                refusal.claim,
                paint(style::DIM, format!("evidence: {}", refusal.evidence)),
                paint(style::NOTE, format!("fallback: {}", refusal.fallback))
            ));
        }
    }

    out.push_str(&format!("\n{}\n", paint(style::TITLE, "Batches")));
    let mut batches = Table::new(&[
        "SUSPECT CACHE",
        "BATCH",
        "SUBMITTED",
        "COMPLETED",
        "SINGLE-SHOT",
        "KEPT",
        "FALLBACK",
        "FAILED",
        "REFUSALS",
        "ROUND TRIPS",
        "WASTED",
        "RETRIES",
        "TIME",
    ]);
    for run in &report.runs {
        for batch in &run.batches {
            batches.row([
                Cell::plain(if run.suspect_cache { "on" } else { "off" }),
                Cell::plain(if batch.batch == 1 {
                    "1 (empty cache)".to_owned()
                } else {
                    format!("{} (warm)", batch.batch)
                }),
                Cell::plain(batch.submitted.to_string()),
                Cell::styled(batch.completed.to_string(), style::GOOD),
                Cell::plain(batch.completed_single_shot.to_string()),
                count_cell(batch.completed_before_refusal, style::NOTE),
                count_cell(batch.completed_via_fallback, style::NOTE),
                count_cell(batch.failed, style::BAD),
                count_cell(batch.refusals, style::BAD),
                Cell::plain(batch.negotiation_round_trips.to_string()),
                Cell::plain(batch.wasted_round_trips.to_string()),
                Cell::plain(batch.retries.to_string()),
                Cell::plain(format!("{:.1} s", batch.elapsed_ms as f64 / 1000.0)),
            ]);
        }
    }
    out.push_str(&batches.render(2));
    for run in &report.runs {
        let (first, second) = match run.batches.as_slice() {
            [first, second, ..] => (first.wasted_round_trips, second.wasted_round_trips),
            _ => continue,
        };
        let reduction = run.wasted_reduction_percent.map_or_else(|| "n/a".to_owned(), |p| format!("{p:.0}%"));
        out.push_str(&format!(
            "  suspect cache {}: wasted round trips {first} -> {second}, reduction {reduction}\n",
            if run.suspect_cache { "on " } else { "off" }
        ));
    }
    let mut failures: Vec<(&String, usize)> = Vec::new();
    for failure in report.runs.iter().flat_map(|r| r.batches.iter()).flat_map(|b| &b.failures) {
        match failures.iter_mut().find(|(f, _)| *f == failure) {
            Some((_, count)) => *count += 1,
            None => failures.push((failure, 1)),
        }
    }
    if !failures.is_empty() {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Failed tasks (all runs)")));
        for (failure, count) in failures {
            out.push_str(&format!("  {count} x {failure}\n"));
        }
    }

    out.push_str(&format!("\n{}\n", paint(style::TITLE, "Checks")));
    for check in &report.checks {
        let mark = if check.passed { paint(style::GOOD, "ok  ") } else { paint(style::BAD, "FAIL") };
        out.push_str(&format!("  {mark} {}  {}\n", check.name, paint(style::DIM, &check.detail)));
    }
    out
}

fn styled_set(set: CapabilitySet, style: anstyle::Style) -> Cell {
    if set.is_empty() { Cell::styled("-", style::DIM) } else { Cell::styled(record::card_fields(set), style) }
}

fn count_cell(count: u32, style: anstyle::Style) -> Cell {
    if count == 0 { Cell::plain("0") } else { Cell::styled(count.to_string(), style) }
}
