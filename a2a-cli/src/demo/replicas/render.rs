//! The replicated demo's report as tables for people.

use super::{ReplicasReport, ReplicatedRun};
use crate::style::{self, paint};
use crate::table::{Cell, Table};

pub(super) fn render(report: &ReplicasReport) -> String {
    let mut out = format!(
        "{}  {} replicas (separate processes), {} agents, {} tasks per agent per replica and batch, {} in flight per replica, {:.1} s\n",
        paint(style::TITLE, "a2a demo --replicas"),
        report.replicas,
        report.agents.len(),
        report.tasks_per_agent,
        report.concurrency,
        report.elapsed_ms as f64 / 1000.0
    );
    out.push_str(&format!("  redis: {}\n", report.redis.note));
    out.push_str("  batch 1: replica-1 meets the fleet alone, then the others run theirs together; batch 2: all at once\n");
    for run in &report.runs {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, title(run))));
        let mut table = Table::new(&[
            "BATCH",
            "REPLICA",
            "TASKS",
            "COMPLETED",
            "SINGLE-SHOT",
            "KEPT",
            "FALLBACK",
            "FAILED",
            "REFUSALS",
            "ROUND TRIPS",
            "WASTED",
            "MARKS RECEIVED",
        ]);
        for batch in &run.batches {
            for part in &batch.replicas {
                let r = &part.report;
                table.row([
                    Cell::plain(batch.batch.to_string()),
                    Cell::plain(part.replica.clone()),
                    Cell::plain(r.submitted.to_string()),
                    Cell::plain(r.completed.to_string()),
                    Cell::plain(r.completed_single_shot.to_string()),
                    Cell::plain(r.completed_before_refusal.to_string()),
                    Cell::plain(r.completed_via_fallback.to_string()),
                    count(u64::from(r.failed), style::BAD),
                    Cell::plain(r.refusals.to_string()),
                    Cell::plain(r.negotiation_round_trips.to_string()),
                    count(r.wasted_round_trips, style::NOTE),
                    Cell::plain(if run.shared_cache {
                        part.shared.marks_received.to_string()
                    } else {
                        "-".to_owned()
                    }),
                ]);
            }
            let t = &batch.total;
            table.row([
                Cell::styled(batch.batch.to_string(), style::TITLE),
                Cell::styled("all replicas", style::TITLE),
                Cell::plain(t.submitted.to_string()),
                Cell::plain(t.completed.to_string()),
                Cell::plain(t.completed_single_shot.to_string()),
                Cell::plain(t.completed_before_refusal.to_string()),
                Cell::plain(t.completed_via_fallback.to_string()),
                count(u64::from(t.failed), style::BAD),
                Cell::plain(t.refusals.to_string()),
                Cell::plain(t.negotiation_round_trips.to_string()),
                count(t.wasted_round_trips, style::NOTE),
                Cell::plain(""),
            ]);
        }
        out.push_str(&table.render(2));
    }
    out.push_str(&format!(
        "\n{}\n",
        paint(style::TITLE, "Wasted negotiation round trips across all replicas")
    ));
    for (shared, label) in [(true, "shared cache (Redis)"), (false, "local caches only")] {
        if let (Some(one), Some(two)) = (report.wasted(shared, 1), report.wasted(shared, 2)) {
            out.push_str(&format!("  {label:<22} batch 1: {one:>4}   batch 2: {two:>4}\n"));
        }
    }
    let mut failures: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for failure in report.runs.iter().flat_map(|r| &r.batches).flat_map(|b| &b.total.failures) {
        *failures.entry(failure.as_str()).or_default() += 1;
    }
    if !failures.is_empty() {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Failed tasks (both runs)")));
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

fn title(run: &ReplicatedRun) -> &'static str {
    if run.shared_cache {
        "Shared cache: the replicas share one Redis"
    } else {
        "Local caches only: nothing shared"
    }
}

fn count(n: u64, style: anstyle::Style) -> Cell {
    if n == 0 { Cell::plain("0") } else { Cell::styled(n.to_string(), style) }
}
