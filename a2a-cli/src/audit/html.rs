//! The audit report as one self-contained HTML page (inline CSS and SVG, no external asset): a
//! summary, then per agent its claims and verdicts, a timeline of what the card claims against the
//! transitions seen on each channel (send, stream, polls, push) with the refusal evidence marked,
//! the push registration attempts and the wire deviations.

use std::fmt::Write as _;

use super::junit::xml;
use a2a_typestate_client::audit::{AgentAudit, AuditReport, CardClaimOutcome, ClaimVerdict, TimelineEntry};

/// Whether HTML forbids `c` in a document's text: a control other than ASCII whitespace (C0, DEL,
/// C1) or a noncharacter (U+FDD0..=U+FDEF and the last two code points of every plane).
fn is_html_forbidden(c: char) -> bool {
    let code = c as u32;
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{C}'))
        || (0xFDD0..=0xFDEF).contains(&code)
        || code & 0xFFFE == 0xFFFE
}

/// Escapes agent text for the page: markup escaped as for XML, and every character HTML forbids
/// replaced by U+FFFD, so a hostile name neither injects markup nor makes the page invalid.
fn esc(text: &str) -> String {
    let mut out = xml(text);
    if out.chars().any(is_html_forbidden) {
        out =
            out.chars().map(|c| if is_html_forbidden(c) { char::REPLACEMENT_CHARACTER } else { c }).collect();
    }
    out
}

const LANES: [&str; 4] = ["send", "stream", "poll", "push"];
const WIDTH: u32 = 900;
const LEFT: u32 = 70;
const LANE_HEIGHT: u32 = 34;
const TOP: u32 = 30;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}\
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-top:1px solid #ccd;padding-top:16px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccd;padding:4px 8px;text-align:left;\
vertical-align:top;font-size:13px}th{background:#eef}.verified{color:#11772b;font-weight:bold}\
.refused{color:#b00020;font-weight:bold}.note{color:#946200;font-weight:bold}.url{color:#556;font-size:13px}\
.summary span{margin-right:18px}svg text{font-size:11px;font-family:system-ui,sans-serif}";

/// The report as HTML.
pub(super) fn render(report: &AuditReport) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<title>a2a audit</title><style>");
    out.push_str(STYLE);
    out.push_str("</style></head><body>\n<h1>a2a audit</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"summary\" id=\"summary\"><span>{} agent(s)</span><span class=\"{}\">{} over-declaring</span>\
<span>{} not audited</span><span>{} wire deviation(s){}</span><span>exit status {}</span></p>",
        report.agents.len(),
        if report.over_declaring > 0 { "refused" } else { "verified" },
        report.over_declaring,
        report.not_audited,
        report.wire_deviations,
        if report.strict { " (--strict)" } else { "" },
        super::exit_of(report.finding()).code()
    );
    out.push_str("<table><tr><th>agent</th><th>url</th><th>over-declares</th></tr>\n");
    for agent in &report.agents {
        let lies = super::render::lies(agent);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"url\">{}</td><td class=\"{}\">{}</td></tr>",
            esc(&agent.label),
            esc(&agent.url),
            if lies.is_empty() { "verified" } else { "refused" },
            if lies.is_empty() { "none".to_owned() } else { esc(&lies) }
        );
    }
    out.push_str("</table>\n");
    for (index, agent) in report.agents.iter().enumerate() {
        section(&mut out, index, agent);
    }
    out.push_str("</body></html>\n");
    out
}

fn section(out: &mut String, index: usize, agent: &AgentAudit) {
    let _ = writeln!(
        out,
        "<section class=\"agent\" id=\"agent-{index}\"><h2>{}</h2><p class=\"url\">{}{}</p>",
        esc(&agent.label),
        esc(&agent.url),
        if agent.gateway { " (gateway)" } else { "" }
    );
    if let Some(error) = &agent.error {
        let _ = writeln!(out, "<p class=\"refused\">not audited: {}</p>", esc(error));
    }
    if let Some(fault) = &agent.lifecycle_fault {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(fault));
    }
    if !agent.claims.is_empty() {
        out.push_str("<table><tr><th>card claims</th><th>verdict</th><th>detail</th></tr>\n");
        for claim in &agent.claims {
            let (class, word, detail) = match &claim.verdict {
                ClaimVerdict::Verified { evidence } => ("verified", "verified", evidence.clone()),
                ClaimVerdict::Refused { lie, contradiction, evidence } => {
                    ("refused", "refused", format!("{lie}: {contradiction}; evidence: {evidence}"))
                }
                ClaimVerdict::NotExercised { reason } => ("note", "not exercised", reason.clone()),
                ClaimVerdict::Unverified { reason } => ("note", "unverified", reason.clone()),
                ClaimVerdict::Unverifiable { reason } => ("note", "unverifiable", reason.clone()),
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"{class}\">{word}</td><td>{}</td></tr>",
                claim.capability.card_field(),
                esc(&detail)
            );
        }
        out.push_str("</table>\n");
    }
    if !agent.card_claims.is_empty() {
        out.push_str(
            "<table class=\"card-claims\"><tr><th>other claims</th><th>verdict</th><th>detail</th></tr>\n",
        );
        for claim in &agent.card_claims {
            let (class, word, detail) = match &claim.verdict {
                CardClaimOutcome::Verified { evidence } => ("verified", "verified", evidence),
                CardClaimOutcome::Refused { evidence } => ("refused", "refused", evidence),
                CardClaimOutcome::Warning { evidence } => ("note", "warning", evidence),
                CardClaimOutcome::Unverifiable { reason } => ("note", "unverifiable", reason),
                CardClaimOutcome::Unreachable { reason } => ("note", "unreachable", reason),
                CardClaimOutcome::Unsettled { reason } => ("note", "unsettled", reason),
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"{class}\">{word}</td><td>{}</td></tr>",
                esc(&claim.claim),
                esc(detail)
            );
        }
        out.push_str("</table>\n");
    }
    if !agent.timeline.is_empty() {
        timeline(out, agent, &agent.timeline);
    }
    push_registration(out, &agent.push_registration);
    for later in &agent.claim_probes {
        let _ = writeln!(out, "<h3>probe depending on {} alone</h3>", later.capability.card_field());
        if let Some(error) = &later.error {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(error));
        }
        if !later.timeline.is_empty() {
            timeline(out, agent, &later.timeline);
        }
        push_registration(out, &later.push_registration);
    }
    if !agent.wire_deviations.is_empty() {
        out.push_str(
            "<table class=\"deviations\"><tr><th>call</th><th>event</th><th>path</th><th>found</th><th>read as</th></tr>\n",
        );
        for d in &agent.wire_deviations {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&d.call),
                d.event.map_or_else(|| "answer".to_owned(), |n| format!("#{n}")),
                esc(&d.path),
                esc(&d.found),
                esc(&d.read_as)
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("</section>\n");
}

fn push_registration(out: &mut String, attempts: &[String]) {
    if attempts.is_empty() {
        return;
    }
    out.push_str("<table><tr><th>push registration</th></tr>\n");
    for attempt in attempts {
        let _ = writeln!(out, "<tr><td>{}</td></tr>", esc(attempt));
    }
    out.push_str("</table>\n");
}

/// The SVG timeline: one lane per channel, one mark per observation in the order observed (evenly
/// spaced, so events of the same millisecond stay apart; the time is under each mark and in its
/// tooltip); the card's claims above, each with its verdict; the observation a refusal rests on
/// ringed in red, one a verification rests on in green.
fn timeline(out: &mut String, agent: &AgentAudit, entries: &[TimelineEntry]) {
    let end = entries.iter().map(|e| e.at_ms).max().unwrap_or(0);
    let height = TOP + LANE_HEIGHT * LANES.len() as u32 + 30;
    let count = u32::try_from(entries.len()).unwrap_or(u32::MAX).max(1);
    let step = (WIDTH - LEFT - 40) / count.max(2).saturating_sub(1).max(1);
    let x = |seq: usize| {
        LEFT + 10 + step.saturating_mul(u32::try_from(seq).unwrap_or(u32::MAX)).min(WIDTH - LEFT - 40)
    };
    let anchor = |cx: u32| {
        if cx > WIDTH - 160 {
            "end"
        } else if cx < LEFT + 80 {
            "start"
        } else {
            "middle"
        }
    };
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{WIDTH}\" height=\"{height}\" \
viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"timeline of {}\">",
        esc(&agent.label)
    );
    let claims: Vec<String> = agent
        .claims
        .iter()
        .map(|c| {
            let word = match c.verdict {
                ClaimVerdict::Verified { .. } => "verified",
                ClaimVerdict::Refused { .. } => "REFUSED",
                ClaimVerdict::NotExercised { .. } => "not exercised",
                ClaimVerdict::Unverified { .. } => "unverified",
                ClaimVerdict::Unverifiable { .. } => "unverifiable",
            };
            format!("{}: {word}", c.capability.card_field())
        })
        .collect();
    let claimed = if claims.is_empty() { "the card claims nothing".to_owned() } else { claims.join("   ") };
    let _ = writeln!(out, "<text x=\"4\" y=\"16\">card claims — {}</text>", esc(&claimed));
    for (lane, name) in LANES.iter().enumerate() {
        let y = TOP + LANE_HEIGHT * lane as u32 + LANE_HEIGHT / 2;
        let _ = writeln!(
            out,
            "<text x=\"4\" y=\"{}\">{name}</text><line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#bbc\"/>",
            y + 4,
            WIDTH - 10
        );
    }
    for entry in entries {
        let lane = LANES.iter().position(|l| *l == entry.channel).unwrap_or(0) as u32;
        let (cx, cy) = (x(entry.seq), TOP + LANE_HEIGHT * lane + LANE_HEIGHT / 2);
        let title =
            format!("event #{} at {} ms on {}: {}", entry.seq, entry.at_ms, entry.channel, entry.what);
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"5\" fill=\"#3a5fcd\"><title>{}</title></circle>",
            esc(&title)
        );
        if let Some(capability) = entry.refuses {
            let _ = writeln!(
                out,
                "<circle class=\"refusal\" cx=\"{cx}\" cy=\"{cy}\" r=\"10\" fill=\"none\" stroke=\"#b00020\" stroke-width=\"3\"/>\
<text x=\"{cx}\" y=\"{}\" fill=\"#b00020\" text-anchor=\"{}\">refuses {capability} (event #{})</text>",
                cy - 13,
                anchor(cx),
                entry.seq
            );
        }
        if let Some(capability) = entry.verifies {
            let _ = writeln!(
                out,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"9\" fill=\"none\" stroke=\"#11772b\" stroke-width=\"2\"/>\
<text x=\"{cx}\" y=\"{}\" fill=\"#11772b\" text-anchor=\"{}\">verifies {capability}</text>",
                cy + 20,
                anchor(cx)
            );
        }
    }
    let _ = writeln!(
        out,
        "<text x=\"{LEFT}\" y=\"{}\">observations in order, 0 to {end} ms (hover a mark for its time)</text></svg>",
        height - 6
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report on one agent whose card's name (the label a report shows) is `name`.
    fn report_of(mut agent: AgentAudit, name: &str) -> AuditReport {
        agent.name = Some(name.to_owned());
        AuditReport::new(vec![agent], false)
    }

    #[test]
    fn a_hostile_card_name_and_error_are_escaped_not_rendered() {
        let agent = AgentAudit::not_audited("http://127.0.0.1:1", "bad <b>card</b> & \"more\"".to_owned());
        let page = render(&report_of(agent, "<script>alert(1)</script>"));
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("bad &lt;b&gt;card&lt;/b&gt; &amp; &quot;more&quot;"));
        assert!(!page.contains("src=") && !page.contains("href="), "no external asset");
    }

    #[test]
    fn the_junit_xml_escapes_markup_and_drops_control_characters() {
        assert_eq!(xml("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}");
        let agent = AgentAudit::not_audited("http://127.0.0.1:1", "no card at </testcase>".to_owned());
        let xml = super::super::junit::render(&report_of(agent, "x\"y"));
        assert!(xml.contains("classname=\"x&quot;y\" name=\"audit\""), "{xml}");
        assert!(xml.contains("errors=\"1\""), "{xml}");
        assert!(!xml.contains("at </testcase>"), "{xml}");
    }
}
