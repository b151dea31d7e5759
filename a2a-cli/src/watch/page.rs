//! The watch's page: the fleet at a glance (each agent, each claim, its verdict and since when), an
//! agent's timeline of audits and card changes with each refusal's evidence, live over SSE. One
//! self-contained document: inline CSS and one inline script, no external asset.
//!
//! Everything an agent sends (its card's name, the evidence its answers gave) is text here: cleaned
//! of control and bidi characters, then escaped for HTML text and quoted attributes alike. No agent
//! text is ever written into the script, which is fixed; the script only fetches this page's own
//! fragments, and the page is served with a Content-Security-Policy that runs no script but the
//! one carrying the response's nonce, so even a slip in escaping could not run an agent's script.

use std::fmt::Write as _;

use a2a_typestate::Deployment;
use serde_json::Value;

use super::store::{AgentState, Entry, Fleet};
use super::strip::{self, Window};

/// How the fleet's rows are ordered (`?sort=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sort {
    /// As the agents were given.
    Listed,
    /// The agent whose verdict changed last first.
    ChangedLast,
    /// The agent refused longest in the window first.
    LiesMost,
}

impl Sort {
    /// The order a `sort` query value asks for (anything else: as listed).
    pub(super) fn from_query(value: Option<&str>) -> Self {
        match value {
            Some("changed") => Self::ChangedLast,
            Some("lies") => Self::LiesMost,
            _ => Self::Listed,
        }
    }
}

/// Agent text made safe for HTML text and quoted attribute values.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in a2a_typestate_client::text::clean(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_html_forbidden(c) => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    out
}

/// Whether HTML forbids `c` in a document (noncharacters; controls are already cleaned away).
fn is_html_forbidden(c: char) -> bool {
    let code = c as u32;
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// `text` as a URL query value.
fn query_value(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// `ms` since the epoch as `YYYY-MM-DD HH:MM:SS UTC`.
pub(super) fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Days to a civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}\
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-top:1px solid #ccd;padding-top:12px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccd;padding:4px 8px;text-align:left;\
vertical-align:top;font-size:13px}th{background:#eef}.verified{background:#e3f5e6;color:#11772b}\
.refused{background:#fbe3e6;color:#b00020}.unverifiable,.unverified,.notExercised,.warning,.unreachable,.unsettled{background:#fff4dc;color:#7a5200}\
.v{font-weight:bold}.since,.url{color:#556;font-size:12px}.summary span{margin-right:18px}\
#live{font-size:12px;color:#556}ol{padding-left:20px}li{margin:6px 0}pre{white-space:pre-wrap;font-size:12px}\
a{color:#1a4fb0}svg.strip{display:block;width:100%;min-width:160px;height:14px;margin-top:3px;border:1px solid #ccd}\
.agent-strips svg.strip{height:22px}.s-verified{fill:#3aa55a}.s-refused{fill:url(#p-refused)}.s-unsure{fill:url(#p-unsure)}\
.s-unaudited{fill:url(#p-unaudited)}.s-undeclared{fill:#fff}.card-change{stroke:#1d2330;stroke-width:2}\
.mark{fill:#1d2330}svg.swatch{width:22px;height:12px;vertical-align:middle;border:1px solid #ccd}\
.legend span{margin-right:14px;font-size:12px}.sort a,.sort b{margin-right:10px;font-size:12px}\
.badge{font-size:11px;background:#1d2330;color:#fff;padding:0 4px;border-radius:3px}";

/// The script: on each `update` event, fetch this page's fragment and put it in place. Fixed text.
const SCRIPT: &str = "(function(){var q=new URLSearchParams(location.search);var t=q.get('token');\
var live=document.getElementById('live');\
var es=new EventSource('/events'+(t?'?token='+encodeURIComponent(t):''));\
es.onopen=function(){live.textContent='live';};\
es.onerror=function(){live.textContent='reconnecting';};\
es.addEventListener('update',function(){var u=new URL(location.href);u.searchParams.set('fragment','1');\
fetch(u).then(function(r){return r.ok?r.text():null;}).then(function(h){if(h!==null){\
document.getElementById('main').innerHTML=h;}});});})();";

/// A whole page around `main` (a fragment this module rendered).
pub(super) fn document(title: &str, main: &str, nonce: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style>\
</head><body>{defs}<p id=\"live\">connecting</p><div id=\"main\">{main}</div><script nonce=\"{nonce}\">{SCRIPT}</script>\
</body></html>\n",
        esc(title),
        defs = super::strip::DEFS
    )
}

/// The query suffix that carries the reader's token on links (empty without one).
fn token_suffix(token: Option<&str>) -> String {
    token.map(|t| format!("&token={}", query_value(t))).unwrap_or_default()
}

/// The fleet at a glance: one row per agent, one column per claim any agent's audit reported, each
/// cell the verdict now, how long it has held, and the claim's strip over the window.
pub(super) fn fleet_main(fleet: &Fleet, token: Option<&str>, sort: Sort, now_ms: u64) -> String {
    let mut claims: Vec<&str> = Vec::new();
    for agent in &fleet.agents {
        for claim in agent.current.keys() {
            if !claims.contains(&claim.as_str()) {
                claims.push(claim);
            }
        }
    }
    let window = Window::over(&fleet.agents, now_ms);
    let mut rows: Vec<(usize, &AgentState)> = fleet.agents.iter().enumerate().collect();
    match sort {
        Sort::Listed => {}
        Sort::ChangedLast => {
            rows.sort_by_key(|(_, a)| std::cmp::Reverse(a.current.values().map(|c| c.since_ms).max()));
        }
        Sort::LiesMost => rows.sort_by_cached_key(|(_, a)| {
            std::cmp::Reverse((strip::refused_ms(a, claims.iter().copied(), window), a.refused_now()))
        }),
    }
    let refused: usize = fleet.agents.iter().map(AgentState::refused_now).sum();
    let mut out = String::new();
    let _ = write!(
        out,
        "<h1>a2a watch</h1><p class=\"summary\"><span id=\"agents\">{} agent(s)</span>\
<span class=\"{}\" id=\"refused\">{refused} claim(s) refused</span><span class=\"since\">history from {} to {}</span>{}</p>",
        fleet.agents.len(),
        if refused > 0 { "refused v" } else { "verified v" },
        utc(window.from_ms),
        utc(window.to_ms),
        fleet
            .store_error
            .as_deref()
            .map(|e| format!("<span class=\"refused\">{}</span>", esc(e)))
            .unwrap_or_default()
    );
    out.push_str(&strip::legend());
    out.push_str("<p class=\"sort\" id=\"sort\">order: ");
    for (value, words, this) in [
        ("listed", "as listed", Sort::Listed),
        ("changed", "changed last", Sort::ChangedLast),
        ("lies", "lies most", Sort::LiesMost),
    ] {
        if this == sort {
            let _ = write!(out, "<b>{words}</b>");
        } else {
            let _ = write!(out, "<a href=\"/?sort={value}{}\">{words}</a>", token_suffix(token));
        }
    }
    out.push_str("</p><table id=\"fleet\"><tr><th>agent</th>");
    for claim in &claims {
        let _ = write!(out, "<th>{}</th>", esc(claim));
    }
    out.push_str("<th>last audit</th></tr>");
    for (index, agent) in rows {
        let breaker = if agent.shared_breaker.is_some() {
            " <span class=\"badge\" title=\"the replicas hold it unavailable (breaker): not a mark\">unavailable</span>"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr data-agent=\"{index}\"><td><a href=\"/agent?url={}{}\">{}</a>{breaker}<div class=\"url\">{}{}</div></td>",
            query_value(&agent.url),
            token_suffix(token),
            esc(&agent.label),
            esc(&agent.url),
            if agent.deployment == Deployment::Gateway { " (through a gateway)" } else { "" }
        );
        let changes = strip::card_changes(agent, window);
        for claim in &claims {
            let drawn = claim_strip(agent, claim, &changes, window);
            match agent.current.get(*claim) {
                Some(current) => {
                    let _ = write!(
                        out,
                        "<td class=\"{}\" data-claim=\"{}\" title=\"{}\"><span class=\"v\">{}</span>\
<div class=\"since\">for {}, since {}</div>{drawn}</td>",
                        esc(&current.verdict),
                        esc(claim),
                        esc(&current.detail),
                        esc(&current.verdict),
                        strip::held(now_ms.saturating_sub(current.since_ms)),
                        utc(current.since_ms)
                    );
                }
                None => {
                    let _ = write!(out, "<td data-claim=\"{}\">not declared{drawn}</td>", esc(claim));
                }
            }
        }
        let last = match (agent.last_audit_ms, &agent.last_error) {
            (None, _) => "not yet".to_owned(),
            (Some(at), None) => utc(at),
            (Some(at), Some(error)) => format!("{}<div class=\"refused\">{}</div>", utc(at), esc(error)),
        };
        let _ = write!(out, "<td>{last}</td></tr>");
    }
    out.push_str("</table>");
    replicas_html(&mut out, &fleet.replicas);
    out
}

/// `claim`'s strip for `agent`, with the card's changes and the replicas' mark on it, if any.
fn claim_strip(agent: &AgentState, claim: &str, changes: &[(u64, usize)], window: Window) -> String {
    // A card claim's mark names its kind and subject (`interfaces http://agent/a2a`).
    let marked = |m: &&super::store::SharedMarkSeen| {
        m.capability == claim || m.capability.strip_prefix(claim).is_some_and(|rest| rest.starts_with(' '))
    };
    let mark = agent.shared_marks.iter().find(marked).map(|m| {
        format!(
            "marked suspect by {}{}: {}",
            m.marked_by.as_deref().unwrap_or("a replica"),
            m.ttl_ms.map(|ms| format!(", {} s left", ms / 1000)).unwrap_or_default(),
            m.evidence
        )
    });
    strip::svg(claim, &strip::bands(agent, claim, window), changes, mark.as_deref(), window)
}

/// The replicas' journal (with `--redis`): who is alive, and the last takeovers.
fn replicas_html(out: &mut String, replicas: &super::store::ReplicasSeen) {
    if replicas.alive.is_empty() && replicas.takeovers.is_empty() {
        return;
    }
    let alive: Vec<String> = replicas.alive.iter().map(|name| esc(name)).collect();
    let _ = write!(
        out,
        "<h2>Replicas (Redis journal)</h2><p id=\"replicas\">alive: {}</p>",
        if alive.is_empty() { "none".to_owned() } else { alive.join(", ") }
    );
    if replicas.takeovers.is_empty() {
        return;
    }
    out.push_str("<table id=\"takeovers\"><tr><th>at</th><th>replica</th><th>took over the tasks of</th><th>tasks</th></tr>");
    for takeover in &replicas.takeovers {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{} (its lease ran out)</td><td>{}</td></tr>",
            utc(takeover.at_ms),
            esc(&takeover.to),
            esc(&takeover.from),
            takeover.tasks
        );
    }
    out.push_str("</table>");
}

/// One agent: its claims now, the marks the replicas hold, and its timeline, newest first, with
/// each refusal's evidence.
pub(super) fn agent_main(agent: &AgentState, token: Option<&str>, now_ms: u64) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<p><a href=\"/?{}\">the fleet</a></p><h1>{}</h1><p class=\"url\">{}</p>",
        token.map(|t| format!("token={}", query_value(t))).unwrap_or_default(),
        esc(&agent.label),
        esc(&agent.url)
    );
    let window = Window::over([agent], now_ms);
    let changes = strip::card_changes(agent, window);
    let _ = write!(
        out,
        "{}<div class=\"agent-strips\" id=\"strips\"><p class=\"since\">from {} to {}</p>",
        strip::legend(),
        utc(window.from_ms),
        utc(window.to_ms)
    );
    for claim in agent.current.keys() {
        let _ =
            write!(out, "<div><b>{}</b>{}</div>", esc(claim), claim_strip(agent, claim, &changes, window));
    }
    out.push_str("</div>");
    out.push_str("<table id=\"claims\"><tr><th>claim</th><th>verdict</th><th>since</th><th>why</th></tr>");
    for (claim, current) in &agent.current {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"{} v\" data-claim=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(claim),
            esc(&current.verdict),
            esc(claim),
            esc(&current.verdict),
            utc(current.since_ms),
            esc(&current.detail)
        );
    }
    out.push_str("</table>");
    if !agent.shared_marks.is_empty() {
        out.push_str("<h2>Marks the replicas hold (Redis)</h2><table><tr><th>claim</th><th>evidence</th><th>marked by</th><th>expires in</th></tr>");
        for mark in &agent.shared_marks {
            let _ = write!(
                out,
                "<tr><td class=\"refused\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&mark.capability),
                esc(&mark.evidence),
                esc(mark.marked_by.as_deref().unwrap_or("")),
                mark.ttl_ms.map(|ms| format!("{} s", ms / 1000)).unwrap_or_default()
            );
        }
        out.push_str("</table>");
    }
    if let Some(breaker) = &agent.shared_breaker {
        let _ = write!(
            out,
            "<h2>Held unavailable by the replicas (Redis)</h2><p class=\"breaker\">{} tasks in a row reached nothing{}; \
             the last: {}. A replica probes it again in {}. Not a mark: it says nothing about the card.</p>",
            breaker.failures,
            breaker.opened_by.as_deref().map(|by| format!(" on {}", esc(by))).unwrap_or_default(),
            esc(&breaker.evidence),
            breaker
                .ttl_ms
                .map(|ms| format!("{} s", ms.div_ceil(1000)))
                .unwrap_or_else(|| "a moment".to_owned())
        );
    }
    out.push_str("<h2>Timeline</h2><ol id=\"timeline\">");
    for (at, (_, entry)) in agent.history.iter().enumerate().rev() {
        match entry {
            Entry::Card { at_ms, etag, digest, first } => {
                let _ = write!(
                    out,
                    "<li data-at=\"{at_ms}\"><b>{}</b> card {} (ETag {}, digest {}){}</li>",
                    utc(*at_ms),
                    if *first { "first read" } else { "changed" },
                    esc(etag.as_deref().unwrap_or("none")),
                    esc(digest),
                    if *first { String::new() } else { claims_changed(agent, at) }
                );
            }
            Entry::Audit { at_ms, duration_ms, claims, error, evidence, .. } => {
                let _ =
                    write!(out, "<li data-at=\"{at_ms}\"><b>{}</b> audit ({duration_ms} ms): ", utc(*at_ms));
                if let Some(error) = error {
                    let _ = write!(out, "<span class=\"refused\">{}</span> ", esc(error));
                }
                let verdicts: Vec<String> = claims
                    .iter()
                    .map(|c| {
                        format!(
                            "{} <span class=\"{} v\" data-claim=\"{}\">{}</span>",
                            esc(&c.claim),
                            esc(&c.verdict),
                            esc(&c.claim),
                            esc(&c.verdict)
                        )
                    })
                    .collect();
                out.push_str(&verdicts.join(", "));
                if let Some(evidence) = evidence {
                    out.push_str("<details open><summary>evidence of the refusal</summary>");
                    evidence_html(&mut out, evidence);
                    out.push_str("</details>");
                }
                out.push_str("</li>");
            }
        }
    }
    out.push_str("</ol>");
    out
}

/// What the card change at `at` (an index into the history) did to the claims the audits report:
/// the claims of the first audit after it against those of the last audit before it.
fn claims_changed(agent: &AgentState, at: usize) -> String {
    fn reported(entry: &Entry) -> Option<std::collections::BTreeSet<&str>> {
        match entry {
            Entry::Audit { claims, error: None, .. } => {
                Some(claims.iter().map(|c| c.claim.as_str()).collect())
            }
            _ => None,
        }
    }
    let before = agent.history.iter().take(at).rev().find_map(|(_, e)| reported(e));
    let after = agent.history.iter().skip(at + 1).find_map(|(_, e)| reported(e));
    let (Some(before), Some(after)) = (before, after) else { return String::new() };
    let added: Vec<String> = after.difference(&before).map(|c| esc(c)).collect();
    let removed: Vec<String> = before.difference(&after).map(|c| esc(c)).collect();
    if added.is_empty() && removed.is_empty() {
        return ": the same claims".to_owned();
    }
    let mut said = Vec::new();
    if !added.is_empty() {
        said.push(format!("claims added: {}", added.join(", ")));
    }
    if !removed.is_empty() {
        said.push(format!("claims removed: {}", removed.join(", ")));
    }
    format!(": <span class=\"claims-changed\">{}</span>", said.join("; "))
}

/// A JSON value's text (a string without its quotes).
fn text_of(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The refused claims and the probes' timelines, as the audit reported them.
fn evidence_html(out: &mut String, evidence: &Value) {
    if let Some(note) = evidence.get("cut").and_then(Value::as_str) {
        let _ = write!(out, "<p>{}</p>", esc(note));
    }
    for claim in evidence.get("refused").and_then(Value::as_array).into_iter().flatten() {
        let _ = write!(
            out,
            "<p><span class=\"refused v\">{}</span>: {}<br>{}<br><i>{}</i></p>",
            esc(&text_of(claim.get("capability").or_else(|| claim.get("claim")))),
            esc(&text_of(claim.get("lie"))),
            esc(&text_of(claim.get("contradiction"))),
            esc(&text_of(claim.get("evidence")))
        );
    }
    let mut timelines = vec![("the probe depending on every claim".to_owned(), evidence.get("timeline"))];
    for probe in evidence.get("claimProbes").and_then(Value::as_array).into_iter().flatten() {
        timelines.push((
            format!(
                "the probe depending on {} alone",
                text_of(probe.get("capability").or_else(|| probe.get("claim")))
            ),
            probe.get("timeline"),
        ));
    }
    for (title, timeline) in timelines {
        let Some(entries) = timeline.and_then(Value::as_array).filter(|e| !e.is_empty()) else { continue };
        let _ = write!(
            out,
            "<table><tr><th colspan=\"4\">{}</th></tr><tr><th>#</th><th>ms</th><th>channel</th><th>what</th></tr>",
            esc(&title)
        );
        for entry in entries {
            let refuses = text_of(entry.get("refuses"));
            let _ = write!(
                out,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>",
                if refuses.is_empty() { "" } else { " class=\"refused\"" },
                esc(&text_of(entry.get("seq"))),
                esc(&text_of(entry.get("atMs"))),
                esc(&text_of(entry.get("channel"))),
                esc(&text_of(entry.get("what"))),
                if refuses.is_empty() { String::new() } else { format!(" (refuses {})", esc(&refuses)) }
            );
        }
        out.push_str("</table>");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use a2a_typestate::Deployment;

    use super::*;
    use crate::watch::store::{ClaimSeen, Retention, now_ms};

    const HOSTILE: &str = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)></script><!--";

    fn hostile_fleet() -> Fleet {
        let agents = [("http://a/?q=\"><script>x</script>".to_owned(), Deployment::Direct)];
        let mut fleet =
            Fleet::open(&agents, Retention { keep: 10, max_age: Duration::from_secs(60) }, None).unwrap();
        fleet.record(
            0,
            Entry::Audit {
                at_ms: now_ms(),
                duration_ms: 1,
                name: Some(HOSTILE.into()),
                claims: vec![ClaimSeen { claim: "streaming".into(), verdict: "refused".into(), detail: HOSTILE.into() }],
                error: Some(HOSTILE.into()),
                evidence: Some(serde_json::json!({
                    "refused": [{"capability": "streaming", "lie": HOSTILE, "contradiction": HOSTILE, "evidence": HOSTILE}],
                    "timeline": [{"seq": 1, "atMs": 3, "channel": "stream", "what": HOSTILE, "refuses": "streaming"}],
                })),
            },
        );
        fleet
    }

    #[test]
    fn a_hostile_card_name_is_text_in_every_view() {
        let fleet = hostile_fleet();
        let pages = [
            document(
                "a2a watch",
                &fleet_main(&fleet, Some("t\"><script>"), Sort::LiesMost, now_ms()),
                "n0nce",
            ),
            document(HOSTILE, &agent_main(&fleet.agents[0], None, now_ms()), "n0nce"),
        ];
        for page in pages {
            // The only script element is the page's own, with its nonce; no agent text opens a tag
            // or leaves an attribute.
            assert_eq!(page.matches("<script").count(), 1, "{page}");
            assert!(page.contains("<script nonce=\"n0nce\">"));
            assert!(!page.contains("<img"), "{page}");
            assert!(!page.contains("<!--"), "{page}");
            assert!(!page.contains("\"'>"), "{page}");
            assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img"), "{page}");
        }
    }

    #[test]
    fn a_card_change_says_which_claims_the_audits_around_it_gained_and_lost() {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet =
            Fleet::open(&agents, Retention { keep: 10, max_age: Duration::from_secs(600) }, None).unwrap();
        let audit = |at_ms: u64, claims: &[&str]| Entry::Audit {
            at_ms,
            duration_ms: 1,
            name: Some("a".into()),
            claims: claims
                .iter()
                .map(|c| ClaimSeen { claim: (*c).into(), verdict: "verified".into(), detail: String::new() })
                .collect(),
            error: None,
            evidence: None,
        };
        let card = |at_ms: u64, first: bool| Entry::Card { at_ms, etag: None, digest: "d".into(), first };
        let t = now_ms() - 60_000;
        fleet.record(0, card(t, true));
        fleet.record(0, audit(t + 1, &["streaming", "stateTransitionHistory"]));
        fleet.record(0, card(t + 2, false));
        fleet.record(0, audit(t + 3, &["streaming", HOSTILE]));
        fleet.record(0, card(t + 4, false));
        fleet.record(0, audit(t + 5, &["streaming", HOSTILE]));
        let page = agent_main(&fleet.agents[0], None, now_ms());
        assert!(
            page.contains("claims added: &lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img"),
            "{page}"
        );
        assert!(page.contains("claims removed: stateTransitionHistory"), "{page}");
        assert!(page.contains("card changed (ETag none, digest d): the same claims"), "{page}");
        assert!(!page.contains("<img"), "{page}");
    }

    #[test]
    fn control_and_bidi_characters_never_reach_the_page() {
        assert_eq!(esc("a\u{202E}b\u{1b}[31mc\r\nd\u{FFFF}"), "ab[31mc d\u{FFFD}");
    }

    #[test]
    fn times_are_shown_in_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_709_210_096_000), "2024-02-29 12:34:56 UTC");
    }
}
