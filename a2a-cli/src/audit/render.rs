//! The audit report as tables for people.

use crate::style::{self, paint};
use crate::table::{Cell, Table};
use a2a_typestate_client::audit::{AgentAudit, AuditReport, CardClaimOutcome, ClaimVerdict};
use a2a_typestate_client::negotiate::record::{self, Ending};

pub(crate) fn render(report: &AuditReport) -> String {
    let mut out = format!("{}  {} agent(s)\n", paint(style::TITLE, "a2a audit"), report.agents.len());
    let mut table = Table::new(&["AGENT", "CAPABILITY", "VERDICT", "DETAIL"]);
    for agent in &report.agents {
        let name = agent.label.clone();
        if let Some(error) = &agent.error
            && agent.claims.is_empty()
        {
            table.row([
                Cell::plain(name),
                Cell::plain("-"),
                Cell::styled("not audited", style::BAD),
                Cell::plain(error.clone()),
            ]);
            continue;
        }
        if agent.claims.is_empty() {
            table.row([
                Cell::plain(name.clone()),
                Cell::plain("-"),
                Cell::styled("no claims", style::DIM),
                Cell::plain("the card declares no lifecycle capability"),
            ]);
        }
        for (index, claim) in agent.claims.iter().enumerate() {
            let shown_name = if index == 0 { name.clone() } else { String::new() };
            let (verdict, detail) = match &claim.verdict {
                ClaimVerdict::Verified { evidence } => {
                    (Cell::styled("verified", style::GOOD), evidence.clone())
                }
                ClaimVerdict::Refused { lie, contradiction, evidence } => (
                    Cell::styled("refused", style::BAD),
                    format!("{lie}: {contradiction}; evidence: {evidence}"),
                ),
                ClaimVerdict::NotExercised { reason } => {
                    (Cell::styled("not exercised", style::NOTE), reason.clone())
                }
                ClaimVerdict::Unverified { reason } => {
                    (Cell::styled("unverified", style::NOTE), reason.clone())
                }
                ClaimVerdict::Unverifiable { reason } => {
                    (Cell::styled("unverifiable", style::NOTE), reason.clone())
                }
            };
            table.row([
                Cell::plain(shown_name),
                Cell::plain(claim.capability.card_field()),
                verdict,
                Cell::plain(detail),
            ]);
        }
        if let Some(error) = &agent.error {
            table.row([
                Cell::plain(""),
                Cell::plain("-"),
                Cell::styled("not audited", style::BAD),
                Cell::plain(agent.lifecycle_fault.clone().unwrap_or_else(|| error.clone())),
            ]);
        }
    }
    out.push_str(&table.render(2));

    out.push_str(&format!("\n{}\n", paint(style::TITLE, "Probe tasks")));
    let mut probes = Table::new(&["AGENT", "PROTOCOL", "ENDING", "ROUND TRIPS"]);
    for agent in &report.agents {
        let Some(probe) = &agent.probe else { continue };
        probes.row([
            Cell::plain(agent.label.clone()),
            Cell::plain(agent.protocol_versions.join(", ")),
            ending_cell(&probe.ending),
            Cell::plain(probe.negotiation_round_trips.map_or_else(|| "-".to_owned(), |n| n.to_string())),
        ]);
        for later in &agent.claim_probes {
            probes.row([
                Cell::plain(format!("  {} alone", later.capability.card_field())),
                Cell::plain(String::new()),
                ending_cell(&later.probe.ending),
                Cell::plain(
                    later.probe.negotiation_round_trips.map_or_else(|| "-".to_owned(), |n| n.to_string()),
                ),
            ]);
        }
    }
    out.push_str(&probes.render(2));

    let pushed: Vec<(&str, Vec<String>)> = report
        .agents
        .iter()
        .map(|agent| {
            let later = agent.claim_probes.iter().flat_map(|p| {
                p.push_registration.iter().map(move |a| format!("({} alone) {a}", p.capability.card_field()))
            });
            (agent.label.as_str(), agent.push_registration.iter().cloned().chain(later).collect::<Vec<_>>())
        })
        .filter(|(_, attempts)| !attempts.is_empty())
        .collect();
    if !pushed.is_empty() {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Push registration")));
        let mut table = Table::new(&["AGENT", "ATTEMPT"]);
        for (label, attempts) in pushed {
            for (index, attempt) in attempts.into_iter().enumerate() {
                let shown = if index == 0 { label.to_owned() } else { String::new() };
                table.row([Cell::plain(shown), Cell::plain(attempt)]);
            }
        }
        out.push_str(&table.render(2));
    }

    if report.agents.iter().any(|a| !a.extensions.is_empty()) {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Extensions (asked for on the probes)")));
        let mut table = Table::new(&["AGENT", "EXTENSION", "REQUIRED", "ACTIVATED"]);
        for agent in &report.agents {
            for (index, extension) in agent.extensions.iter().enumerate() {
                let shown = if index == 0 { agent.label.clone() } else { String::new() };
                let activated = if extension.activated {
                    Cell::styled("activated", style::GOOD)
                } else {
                    Cell::styled("not activated", style::NOTE)
                };
                table.row([
                    Cell::plain(shown),
                    Cell::plain(extension.uri.clone()),
                    Cell::plain(if extension.required { "required" } else { "-" }),
                    activated,
                ]);
            }
        }
        out.push_str(&table.render(2));
    }

    if report.agents.iter().any(|a| !a.card_claims.is_empty()) {
        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Card claims")));
        let mut table = Table::new(&["AGENT", "CLAIM", "VERDICT", "DETAIL"]);
        for agent in &report.agents {
            for (index, claim) in agent.card_claims.iter().enumerate() {
                let shown = if index == 0 { agent.label.clone() } else { String::new() };
                let (verdict, detail) = match &claim.verdict {
                    CardClaimOutcome::Verified { evidence } => {
                        (Cell::styled("verified", style::GOOD), evidence)
                    }
                    CardClaimOutcome::Refused { evidence } => (Cell::styled("refused", style::BAD), evidence),
                    CardClaimOutcome::Warning { evidence } => {
                        (Cell::styled("warning", style::NOTE), evidence)
                    }
                    CardClaimOutcome::Unverifiable { reason } => {
                        (Cell::styled("unverifiable", style::NOTE), reason)
                    }
                    CardClaimOutcome::Unreachable { reason } => {
                        (Cell::styled("unreachable", style::NOTE), reason)
                    }
                    CardClaimOutcome::Unsettled { reason } => {
                        (Cell::styled("unsettled", style::NOTE), reason)
                    }
                };
                table.row([
                    Cell::plain(shown),
                    Cell::plain(claim.claim.clone()),
                    verdict,
                    Cell::plain(detail.clone()),
                ]);
            }
        }
        out.push_str(&table.render(2));
    }

    if report.wire_deviations > 0 {
        let title =
            if report.strict { "Wire deviations (--strict: they fail the audit)" } else { "Wire deviations" };
        out.push_str(&format!("\n{}\n", paint(style::TITLE, title)));
        let mut table = Table::new(&["AGENT", "CALL", "EVENT", "PATH", "FOUND", "READ AS"]);
        for agent in &report.agents {
            for (index, d) in agent.wire_deviations.iter().enumerate() {
                let shown = if index == 0 { agent.label.clone() } else { String::new() };
                table.row([
                    Cell::plain(shown),
                    Cell::plain(d.call.clone()),
                    Cell::plain(d.event.map_or_else(|| "answer".to_owned(), |n| format!("#{n}"))),
                    Cell::plain(d.path.clone()),
                    Cell::plain(d.found.clone()),
                    Cell::plain(d.read_as.clone()),
                ]);
            }
        }
        out.push_str(&table.render(2));
    }

    out.push('\n');
    let liars: Vec<String> = report
        .agents
        .iter()
        .filter(|a| a.over_declares_anything())
        .map(|a| format!("{} ({})", a2a_typestate_client::text::message(&a.label), lies(a)))
        .collect();
    if liars.is_empty() {
        out.push_str(&format!("{}\n", paint(style::GOOD, "no agent over-declares")));
    } else {
        out.push_str(&format!("{} {}\n", paint(style::BAD, "over-declares:"), liars.join(", ")));
    }
    if report.not_audited > 0 {
        out.push_str(&format!(
            "{}\n",
            paint(style::BAD, format!("{} agent(s) not audited", report.not_audited))
        ));
    }
    if report.wire_deviations > 0 {
        let style = if report.strict { style::BAD } else { style::NOTE };
        out.push_str(&format!(
            "{}\n",
            paint(style, format!("{} wire deviation(s) read tolerantly", report.wire_deviations))
        ));
    }
    out
}

fn ending_cell(ending: &Ending) -> Cell {
    match ending {
        Ending::Completed => Cell::styled("completed", style::GOOD),
        Ending::CompletedSingleShot => Cell::styled("completed single-shot", style::GOOD),
        Ending::CompletedBeforeRefusal => Cell::styled("completed, then refused (result kept)", style::NOTE),
        Ending::CompletedViaFallback => Cell::styled("completed through the fallback", style::NOTE),
        Ending::Failed(reason) => Cell::styled(format!("failed: {reason}"), style::BAD),
    }
}

/// What an agent was caught over-declaring, in words: its lifecycle claims, then its card claims' kinds.
pub(super) fn lies(agent: &AgentAudit) -> String {
    let mut lies = Vec::new();
    if !agent.over_declares.is_empty() {
        lies.push(record::card_fields(agent.over_declares));
    }
    for claim in agent.card_claims.iter().filter(|c| c.is_refused()) {
        let kind = claim.kind.name().to_owned();
        if !lies.contains(&kind) {
            lies.push(kind);
        }
    }
    lies.join(", ")
}
