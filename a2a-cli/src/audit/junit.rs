//! The audit report as JUnit XML, for CI: one test suite per agent, one test case per agent and
//! claim (refused: a failure; not exercised, unverified, unverifiable: skipped), one for the
//! agent's wire format (a failure under `--strict` when it deviated), and an error case for an
//! agent that could not be audited.

use std::fmt::Write as _;

use a2a_typestate_client::audit::{AgentAudit, AuditReport, CardClaimOutcome, ClaimVerdict};

/// Whether XML 1.0 can carry `c` at all, even as a character reference (its `Char` production:
/// tab, LF, CR, U+0020..=U+D7FF, U+E000..=U+FFFD, U+10000 and up; surrogates cannot be in a `str`).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Escapes text for XML attributes and content. A character XML 1.0 cannot carry (a C0 control
/// other than tab, LF and CR; U+FFFE; U+FFFF) becomes U+FFFD, so one agent's card name cannot
/// make the whole report unreadable to a CI.
pub(super) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !is_xml_char(c) => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    out
}

struct Case {
    name: String,
    body: String,
    failed: bool,
    errored: bool,
    skipped: bool,
}

fn cases(agent: &AgentAudit, strict: bool) -> Vec<Case> {
    let mut cases = Vec::new();
    for claim in &agent.claims {
        let name = claim.capability.card_field().to_owned();
        let (body, failed, skipped) = match &claim.verdict {
            ClaimVerdict::Verified { evidence } => {
                (format!("<system-out>verified {}</system-out>", xml(evidence)), false, false)
            }
            ClaimVerdict::Refused { lie, contradiction, evidence } => (
                format!(
                    "<failure type=\"refused\" message=\"{}\">{}; evidence: {}</failure>",
                    xml(lie),
                    xml(contradiction),
                    xml(evidence)
                ),
                true,
                false,
            ),
            ClaimVerdict::NotExercised { reason } => {
                (format!("<skipped message=\"not exercised: {}\"/>", xml(reason)), false, true)
            }
            ClaimVerdict::Unverified { reason } => {
                (format!("<skipped message=\"unverified: {}\"/>", xml(reason)), false, true)
            }
            ClaimVerdict::Unverifiable { reason } => {
                (format!("<skipped message=\"unverifiable: {}\"/>", xml(reason)), false, true)
            }
        };
        cases.push(Case { name, body, failed, errored: false, skipped });
    }
    for claim in &agent.card_claims {
        let name = format!("{}: {}", claim.kind.name(), claim.claim);
        let (body, failed, skipped) = match &claim.verdict {
            CardClaimOutcome::Verified { evidence } => {
                (format!("<system-out>verified {}</system-out>", xml(evidence)), false, false)
            }
            CardClaimOutcome::Refused { evidence } => (
                format!(
                    "<failure type=\"refused\" message=\"{}\">{}</failure>",
                    xml(&claim.claim),
                    xml(evidence)
                ),
                true,
                false,
            ),
            CardClaimOutcome::Warning { evidence } => {
                (format!("<system-out>warning: {}</system-out>", xml(evidence)), false, false)
            }
            CardClaimOutcome::Unverifiable { reason } => {
                (format!("<skipped message=\"unverifiable: {}\"/>", xml(reason)), false, true)
            }
            CardClaimOutcome::Unreachable { reason } => {
                (format!("<skipped message=\"unreachable: {}\"/>", xml(reason)), false, true)
            }
            CardClaimOutcome::Unsettled { reason } => {
                (format!("<skipped message=\"unsettled: {}\"/>", xml(reason)), false, true)
            }
        };
        cases.push(Case { name, body, failed, errored: false, skipped });
    }
    if let Some(error) = &agent.error {
        let message = agent.lifecycle_fault.as_deref().unwrap_or(error);
        cases.push(Case {
            name: "audit".to_owned(),
            body: format!("<error type=\"not audited\" message=\"{}\">{}</error>", xml(message), xml(error)),
            failed: false,
            errored: true,
            skipped: false,
        });
    }
    if agent.error.is_none() || !agent.wire_deviations.is_empty() {
        let listed: Vec<String> = agent
            .wire_deviations
            .iter()
            .map(|d| {
                let event = d.event.map_or_else(|| "answer".to_owned(), |n| format!("event #{n}"));
                format!("{} {event} at {}: found {}, {}", d.call, d.path, d.found, d.read_as)
            })
            .collect();
        let failed = strict && !listed.is_empty();
        let body = if listed.is_empty() {
            String::new()
        } else if failed {
            format!(
                "<failure type=\"wire deviation\" message=\"{} wire deviation(s)\">{}</failure>",
                listed.len(),
                xml(&listed.join("\n"))
            )
        } else {
            format!("<system-out>{}</system-out>", xml(&listed.join("\n")))
        };
        cases.push(Case { name: "wire format".to_owned(), body, failed, errored: false, skipped: false });
    }
    cases
}

/// The report as a JUnit XML document.
pub(super) fn render(report: &AuditReport) -> String {
    let suites: Vec<(&AgentAudit, Vec<Case>)> =
        report.agents.iter().map(|agent| (agent, cases(agent, report.strict))).collect();
    let count = |f: fn(&Case) -> bool| suites.iter().flat_map(|(_, c)| c).filter(|c| f(c)).count();
    let (tests, failures, errors, skipped) =
        (count(|_| true), count(|c| c.failed), count(|c| c.errored), count(|c| c.skipped));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"a2a audit\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">"
    );
    for (agent, cases) in &suites {
        let failures = cases.iter().filter(|c| c.failed).count();
        let errors = cases.iter().filter(|c| c.errored).count();
        let skipped = cases.iter().filter(|c| c.skipped).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
            xml(&agent.label),
            cases.len()
        );
        let _ = writeln!(
            out,
            "    <properties><property name=\"url\" value=\"{}\"/></properties>",
            xml(&agent.url)
        );
        for case in cases {
            let _ = writeln!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\">{}</testcase>",
                xml(&agent.label),
                xml(&case.name),
                case.body
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
