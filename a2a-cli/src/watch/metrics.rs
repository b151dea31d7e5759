//! `/metrics`: the watch's state in the Prometheus text exposition format (version 0.0.4).
//!
//! - `a2a_watch_claim_verdict{agent,url,claim,verdict}`: 1 for each claim's current verdict, 0 for
//!   the other verdicts (a state set, so a change shows as one series dropping and another rising);
//! - `a2a_watch_verdicts_total{agent,url,claim,verdict}`: verdicts given since the watch started;
//! - `a2a_watch_marks_active{agent,url}`: claims refused now (the suspect marks a client would hold);
//! - `a2a_watch_shared_marks_active{agent,url}`: marks the replicas hold in Redis (with `--redis`);
//! - `a2a_watch_shared_unavailable{agent,url}`: 1 while the replicas' availability breaker on the
//!   agent is open (with `--redis`);
//! - `a2a_watch_audits_total`, `a2a_watch_audit_errors_total{kind}`, `a2a_watch_card_changes_total`;
//! - `a2a_watch_audit_duration_seconds`: a histogram per agent.
//!
//! Label values come from agents (a card's name): they are cleaned of control characters and
//! escaped as the format asks (`\\`, `"` and line feeds), so a name cannot forge a series.

use std::fmt::Write as _;

use super::store::{DURATION_BUCKETS, Fleet};

/// The verdicts a claim can have, as the audit names them.
const VERDICTS: [&str; 5] = ["verified", "refused", "notExercised", "unverified", "unverifiable"];

/// A label value, escaped.
fn label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in a2a_typestate_client::text::clean(value).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The exposition of `fleet`.
pub(super) fn render(fleet: &Fleet) -> String {
    let mut out = String::new();
    let head = |out: &mut String, name: &str, kind: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    };
    head(
        &mut out,
        "a2a_watch_claim_verdict",
        "gauge",
        "1 for each claim's current verdict, 0 for the others.",
    );
    for agent in &fleet.agents {
        let (name, url) = (label(&agent.label), label(&agent.url));
        for (claim, current) in &agent.current {
            for verdict in VERDICTS {
                let _ = writeln!(
                    out,
                    "a2a_watch_claim_verdict{{agent=\"{name}\",url=\"{url}\",claim=\"{}\",verdict=\"{verdict}\"}} {}",
                    label(claim),
                    u8::from(current.verdict == verdict)
                );
            }
        }
    }
    head(&mut out, "a2a_watch_verdicts_total", "counter", "Verdicts given since the watch started.");
    for agent in &fleet.agents {
        let (name, url) = (label(&agent.label), label(&agent.url));
        for ((claim, verdict), count) in &agent.counters.verdicts {
            let _ = writeln!(
                out,
                "a2a_watch_verdicts_total{{agent=\"{name}\",url=\"{url}\",claim=\"{}\",verdict=\"{}\"}} {count}",
                label(claim),
                label(verdict)
            );
        }
    }
    head(
        &mut out,
        "a2a_watch_marks_active",
        "gauge",
        "Claims refused now: the suspect marks a client would hold.",
    );
    for agent in &fleet.agents {
        let _ = writeln!(
            out,
            "a2a_watch_marks_active{{agent=\"{}\",url=\"{}\"}} {}",
            label(&agent.label),
            label(&agent.url),
            agent.refused_now()
        );
    }
    head(&mut out, "a2a_watch_shared_marks_active", "gauge", "Suspect marks the replicas hold in Redis.");
    for agent in &fleet.agents {
        let _ = writeln!(
            out,
            "a2a_watch_shared_marks_active{{agent=\"{}\",url=\"{}\"}} {}",
            label(&agent.label),
            label(&agent.url),
            agent.shared_marks.len()
        );
    }
    head(
        &mut out,
        "a2a_watch_shared_unavailable",
        "gauge",
        "1 while the replicas hold the agent unavailable (an open availability breaker in Redis).",
    );
    for agent in &fleet.agents {
        let _ = writeln!(
            out,
            "a2a_watch_shared_unavailable{{agent=\"{}\",url=\"{}\"}} {}",
            label(&agent.label),
            label(&agent.url),
            u8::from(agent.shared_breaker.is_some())
        );
    }
    head(&mut out, "a2a_watch_audits_total", "counter", "Audits ended, whatever they found.");
    for agent in &fleet.agents {
        let _ = writeln!(
            out,
            "a2a_watch_audits_total{{agent=\"{}\",url=\"{}\"}} {}",
            label(&agent.label),
            label(&agent.url),
            agent.counters.audits
        );
    }
    head(
        &mut out,
        "a2a_watch_audit_errors_total",
        "counter",
        "Audits that could not run (not_audited, timeout) and cards that could not be fetched (card_fetch).",
    );
    for agent in &fleet.agents {
        for kind in ["not_audited", "timeout", "card_fetch"] {
            let _ = writeln!(
                out,
                "a2a_watch_audit_errors_total{{agent=\"{}\",url=\"{}\",kind=\"{kind}\"}} {}",
                label(&agent.label),
                label(&agent.url),
                agent.counters.errors.get(kind).copied().unwrap_or(0)
            );
        }
    }
    head(&mut out, "a2a_watch_card_changes_total", "counter", "Card changes seen (ETag or body).");
    for agent in &fleet.agents {
        let _ = writeln!(
            out,
            "a2a_watch_card_changes_total{{agent=\"{}\",url=\"{}\"}} {}",
            label(&agent.label),
            label(&agent.url),
            agent.counters.card_changes
        );
    }
    head(&mut out, "a2a_watch_audit_duration_seconds", "histogram", "How long each audit took.");
    for agent in &fleet.agents {
        let (name, url) = (label(&agent.label), label(&agent.url));
        let mut cumulative = 0;
        for (index, bound) in DURATION_BUCKETS.iter().enumerate() {
            cumulative += agent.counters.duration_buckets[index];
            let _ = writeln!(
                out,
                "a2a_watch_audit_duration_seconds_bucket{{agent=\"{name}\",url=\"{url}\",le=\"{bound}\"}} {cumulative}"
            );
        }
        cumulative += agent.counters.duration_buckets[DURATION_BUCKETS.len()];
        let _ = writeln!(
            out,
            "a2a_watch_audit_duration_seconds_bucket{{agent=\"{name}\",url=\"{url}\",le=\"+Inf\"}} {cumulative}\n\
             a2a_watch_audit_duration_seconds_sum{{agent=\"{name}\",url=\"{url}\"}} {}\n\
             a2a_watch_audit_duration_seconds_count{{agent=\"{name}\",url=\"{url}\"}} {cumulative}",
            agent.counters.duration_sum
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use a2a_typestate::Deployment;

    use super::*;
    use crate::watch::store::{ClaimSeen, Entry, Retention, now_ms};

    #[test]
    fn a_hostile_card_name_cannot_forge_a_series() {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet =
            Fleet::open(&agents, Retention { keep: 10, max_age: Duration::from_secs(60) }, None).unwrap();
        let claims =
            vec![ClaimSeen { claim: "streaming".into(), verdict: "refused".into(), detail: String::new() }];
        fleet.record(
            0,
            Entry::Audit {
                at_ms: now_ms(),
                duration_ms: 1,
                name: Some("evil\"} 1\na2a_watch_marks_active{agent=\"x\\".into()),
                claims: claims.clone(),
                error: None,
                evidence: None,
            },
        );
        fleet.count_audit(0, Duration::from_millis(300), &claims, None);
        let text = render(&fleet);
        // Every line is a comment or one sample whose labels parse: no line starts inside a name.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(line.starts_with("a2a_watch_"), "{line}");
        }
        assert!(text.contains(r#"agent="evil\"} 1 a2a_watch_marks_active{agent=\"x\\""#), "{text}");
        assert!(text.contains(r#"claim="streaming",verdict="refused"} 1"#), "{text}");
        assert!(text.contains(r#"le="0.5"} 1"#), "{text}");
    }
}
