//! Each claim's history drawn: a strip across the retention window, one band per stretch of time a
//! verdict held, card changes as ticks, the replicas' marks at the end. Inline SVG with a pattern per
//! verdict (hatched refused, dotted unsure, lined not audited), so a strip reads without colour too;
//! every band carries its times as data and as a tooltip.
//!
//! Bounded whatever the history: a strip with more changes than [`MAX_BANDS`] is drawn as that many
//! equal slots, each showing the worst verdict it held (refused over unsure over verified), so the
//! page for a thousand agents watched for a week stays a few megabytes.

use std::fmt::Write as _;
use std::time::Duration;

use a2a_typestate_types::human::HumanDuration;

use super::page::{esc, utc};
use super::store::{AgentState, Entry};

/// The most bands one strip draws.
pub(super) const MAX_BANDS: usize = 48;

/// What a band shows: a verdict, or why there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Shade {
    /// The card did not declare the claim (an audit ran and did not report it).
    NotDeclared,
    /// No audit had reported yet, the audit could not run, or the entries are no longer kept (the
    /// window starts at the oldest entry any agent keeps).
    NotAudited,
    Verified,
    /// Declared and neither verified nor refused: not exercised, unverified, unverifiable.
    Unsure,
    Refused,
}

impl Shade {
    fn of(verdict: &str) -> Self {
        match verdict {
            "verified" => Self::Verified,
            "refused" => Self::Refused,
            _ => Self::Unsure,
        }
    }

    pub(super) fn class(self) -> &'static str {
        match self {
            Self::NotDeclared => "s-undeclared",
            Self::NotAudited => "s-unaudited",
            Self::Verified => "s-verified",
            Self::Unsure => "s-unsure",
            Self::Refused => "s-refused",
        }
    }

    fn word(self) -> &'static str {
        match self {
            Self::NotDeclared => "not declared",
            Self::NotAudited => "not audited or not kept",
            Self::Verified => "verified",
            Self::Unsure => "unsure (not exercised, unverified or unverifiable)",
            Self::Refused => "refused",
        }
    }
}

/// The span every strip on a page is drawn across.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    pub(super) from_ms: u64,
    pub(super) to_ms: u64,
}

impl Window {
    /// From the oldest entry any of `agents` keeps (the history the retention left) to `now_ms`; the
    /// last minute when there is none yet.
    pub(super) fn over<'a>(agents: impl IntoIterator<Item = &'a AgentState>, now_ms: u64) -> Self {
        let oldest = agents.into_iter().filter_map(|a| a.history.front().map(|(_, e)| e.at_ms())).min();
        let from_ms = oldest.unwrap_or(now_ms.saturating_sub(60_000)).min(now_ms);
        Self { from_ms, to_ms: now_ms }
    }

    fn span(self) -> u64 {
        self.to_ms.saturating_sub(self.from_ms).max(1)
    }

    /// `at_ms` as a percentage of the window, clamped to it.
    fn percent(self, at_ms: u64) -> f64 {
        let at = at_ms.clamp(self.from_ms, self.to_ms);
        (at - self.from_ms) as f64 * 100.0 / self.span() as f64
    }
}

/// One stretch of time a shade held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Band {
    pub(super) from_ms: u64,
    pub(super) to_ms: u64,
    pub(super) shade: Shade,
}

/// `claim`'s bands over `window`, as `agent`'s audits reported it, at most [`MAX_BANDS`].
pub(super) fn bands(agent: &AgentState, claim: &str, window: Window) -> Vec<Band> {
    let mut bands: Vec<Band> = Vec::new();
    let mut push = |from_ms: u64, shade: Shade| {
        let from_ms = from_ms.clamp(window.from_ms, window.to_ms);
        if let Some(last) = bands.last_mut() {
            last.to_ms = from_ms;
            if last.shade == shade {
                last.to_ms = window.to_ms;
                return;
            }
            if last.from_ms == from_ms {
                bands.pop();
                if let Some(previous) = bands.last_mut().filter(|b| b.shade == shade) {
                    previous.to_ms = window.to_ms;
                    return;
                }
            }
        }
        bands.push(Band { from_ms, to_ms: window.to_ms, shade });
    };
    push(window.from_ms, Shade::NotAudited);
    for (_, entry) in &agent.history {
        if let Entry::Audit { at_ms, claims, error, .. } = entry {
            let shade = match claims.iter().find(|c| c.claim == claim) {
                Some(seen) => Shade::of(&seen.verdict),
                None if error.is_some() => Shade::NotAudited,
                None => Shade::NotDeclared,
            };
            push(*at_ms, shade);
        }
    }
    if bands.len() > MAX_BANDS { slotted(&bands, window) } else { bands }
}

/// `bands` as [`MAX_BANDS`] equal slots, each the worst shade it held, equal neighbours merged.
fn slotted(bands: &[Band], window: Window) -> Vec<Band> {
    let slots = MAX_BANDS as u64;
    let mut out: Vec<Band> = Vec::with_capacity(MAX_BANDS);
    for slot in 0..slots {
        let from_ms = window.from_ms + window.span() * slot / slots;
        let to_ms = window.from_ms + window.span() * (slot + 1) / slots;
        let shade = bands
            .iter()
            .filter(|b| b.from_ms < to_ms && b.to_ms > from_ms)
            .map(|b| b.shade)
            .max()
            .unwrap_or(Shade::NotAudited);
        match out.last_mut() {
            Some(last) if last.shade == shade => last.to_ms = to_ms,
            _ => out.push(Band { from_ms, to_ms, shade }),
        }
    }
    out
}

/// The card changes `agent` saw within `window` (the first read is not a change), at most
/// [`MAX_BANDS`]: when there are more, one per slot of the window that had any, with how many.
pub(super) fn card_changes(agent: &AgentState, window: Window) -> Vec<(u64, usize)> {
    let changes: Vec<u64> = agent
        .history
        .iter()
        .filter_map(|(_, e)| match e {
            Entry::Card { at_ms, first: false, .. } if *at_ms >= window.from_ms => Some(*at_ms),
            _ => None,
        })
        .collect();
    if changes.len() <= MAX_BANDS {
        return changes.into_iter().map(|at| (at, 1)).collect();
    }
    let slots = MAX_BANDS as u64;
    let mut out: Vec<(u64, usize)> = Vec::with_capacity(MAX_BANDS);
    for at in changes {
        let slot = (at - window.from_ms).min(window.span() - 1) * slots / window.span();
        let slot_at = window.from_ms + window.span() * slot / slots;
        match out.last_mut() {
            Some((last, count)) if *last == slot_at => *count += 1,
            _ => out.push((slot_at, 1)),
        }
    }
    out
}

/// How long the refused bands of every claim of `agent` add up to: how much it lied in the window.
pub(super) fn refused_ms<'a>(
    agent: &AgentState,
    claims: impl IntoIterator<Item = &'a str>,
    window: Window,
) -> u64 {
    claims
        .into_iter()
        .flat_map(|claim| bands(agent, claim, window))
        .filter(|b| b.shade == Shade::Refused)
        .map(|b| b.to_ms - b.from_ms)
        .sum()
}

/// A time span for people: `3 h 12 min`.
pub(super) fn held(ms: u64) -> String {
    if ms < 1000 {
        return "under 1 s".to_owned();
    }
    HumanDuration(Duration::from_secs(ms / 1000)).to_string()
}

/// The strip as inline SVG: its bands, then a tick per card change (or per slot of changes), then
/// `mark` (a replica's suspect mark, described) as a band at the end. Each band says its times in
/// its tooltip and its data; the label sums the strip up for a screen reader.
pub(super) fn svg(
    claim: &str,
    bands: &[Band],
    changes: &[(u64, usize)],
    mark: Option<&str>,
    window: Window,
) -> String {
    let mut out = String::new();
    let mut refused_ms = 0;
    for band in bands {
        let (x, end) = (window.percent(band.from_ms), window.percent(band.to_ms));
        if band.shade == Shade::Refused {
            refused_ms += band.to_ms - band.from_ms;
        }
        let _ = write!(
            out,
            "<rect class=\"{}\" x=\"{x:.2}%\" width=\"{:.2}%\" height=\"100%\" data-from=\"{}\" data-to=\"{}\">\
<title>{} {} to {} ({})</title></rect>",
            band.shade.class(),
            (end - x).max(0.0),
            band.from_ms,
            band.to_ms,
            band.shade.word(),
            utc(band.from_ms),
            utc(band.to_ms),
            held(band.to_ms - band.from_ms)
        );
    }
    // Ticks carry no tooltip of their own: a strip per claim repeats them, and the agent's
    // timeline lists each change with what it did to the claims.
    let mut changed = 0;
    for (at, count) in changes {
        changed += count;
        let x = window.percent(*at);
        let _ = write!(
            out,
            "<line class=\"card-change\" x1=\"{x:.2}%\" x2=\"{x:.2}%\" y2=\"100%\" data-at=\"{at}\"/>"
        );
    }
    if let Some(mark) = mark {
        let _ = write!(
            out,
            "<rect class=\"mark\" x=\"98%\" width=\"2%\" height=\"100%\"><title>{}</title></rect>",
            esc(mark)
        );
    }
    let label = format!(
        "{}: refused for {} of the {} shown, {} change(s) of verdict, {changed} card change(s){}",
        esc(claim),
        held(refused_ms),
        held(window.span()),
        bands.len().saturating_sub(1),
        if mark.is_some() { ", marked suspect" } else { "" }
    );
    format!(
        "<svg class=\"strip\" role=\"img\" aria-label=\"{label}\" data-claim=\"{}\">{out}</svg>",
        esc(claim)
    )
}

/// The patterns the strips fill their bands with, and the legend that names them.
pub(super) const DEFS: &str = "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\
<pattern id=\"p-refused\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
<rect width=\"6\" height=\"6\" fill=\"#e0455b\"/><rect width=\"2.5\" height=\"6\" fill=\"#7a0016\"/></pattern>\
<pattern id=\"p-unsure\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\">\
<rect width=\"5\" height=\"5\" fill=\"#f3c969\"/><circle cx=\"2.5\" cy=\"2.5\" r=\"1.1\" fill=\"#7a5200\"/></pattern>\
<pattern id=\"p-unaudited\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\">\
<rect width=\"4\" height=\"4\" fill=\"#e4e6ec\"/><rect width=\"4\" height=\"1\" fill=\"#9aa0ad\"/></pattern>\
</defs></svg>";

/// The legend: each shade as drawn, with its word.
pub(super) fn legend() -> String {
    let mut out = String::from("<p class=\"legend\">");
    for shade in [Shade::Verified, Shade::Refused, Shade::Unsure, Shade::NotAudited, Shade::NotDeclared] {
        let _ = write!(
            out,
            "<span><svg class=\"swatch\"><rect class=\"{}\" width=\"100%\" height=\"100%\"/></svg> {}</span>",
            shade.class(),
            shade.word()
        );
    }
    out.push_str("<span><svg class=\"swatch\"><line class=\"card-change\" x1=\"50%\" x2=\"50%\" y1=\"0\" y2=\"100%\"/></svg> card changed</span>");
    out.push_str("<span><svg class=\"swatch\"><rect class=\"mark\" width=\"100%\" height=\"100%\"/></svg> marked suspect by a replica</span></p>");
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use a2a_typestate::Deployment;
    use proptest::prelude::*;

    use super::*;
    use crate::watch::store::{ClaimSeen, Fleet, Retention, now_ms};

    fn audit(at_ms: u64, verdict: Option<&str>) -> Entry {
        Entry::Audit {
            at_ms,
            duration_ms: 1,
            name: Some("a".into()),
            claims: verdict
                .map(|v| {
                    vec![ClaimSeen { claim: "streaming".into(), verdict: v.into(), detail: String::new() }]
                })
                .unwrap_or_default(),
            error: None,
            evidence: None,
        }
    }

    fn agent_with(entries: Vec<Entry>) -> Fleet {
        let agents = [("http://a".to_owned(), Deployment::Direct)];
        let mut fleet = Fleet::open(
            &agents,
            Retention { keep: 100_000, max_age: Duration::from_secs(3650 * 86_400) },
            None,
        )
        .unwrap();
        for entry in entries {
            fleet.record(0, entry);
        }
        fleet
    }

    const VERDICTS: [&str; 5] = ["verified", "refused", "notExercised", "unverifiable", "unverified"];

    proptest! {
        /// Whatever the audits said, the bands tile the window without gap or overlap, never
        /// exceed the bound, and each audit's verdict is the shade at its time (when drawn exactly).
        #[test]
        fn bands_tile_the_window_and_show_each_audit_at_its_time(
            steps in proptest::collection::vec((1u64..100_000, proptest::option::of(0usize..5)), 1..150),
        ) {
            let start = now_ms() - 86_400_000;
            let mut at = start;
            let mut audits = Vec::new();
            for (gap, verdict) in &steps {
                at += gap;
                audits.push((at, verdict.map(|v| VERDICTS[v])));
            }
            let fleet = agent_with(audits.iter().map(|(at, v)| audit(*at, *v)).collect());
            let window = Window { from_ms: start, to_ms: at + 1_000 };
            let drawn = bands(&fleet.agents[0], "streaming", window);
            prop_assert!(drawn.len() <= MAX_BANDS);
            prop_assert_eq!(drawn.first().map(|b| b.from_ms), Some(window.from_ms));
            prop_assert_eq!(drawn.last().map(|b| b.to_ms), Some(window.to_ms));
            for pair in drawn.windows(2) {
                prop_assert_eq!(pair[0].to_ms, pair[1].from_ms);
                prop_assert!(pair[0].shade != pair[1].shade, "equal neighbours are merged");
            }
            let shade_at = |t: u64| drawn.iter().find(|b| b.from_ms <= t && t < b.to_ms).map(|b| b.shade);
            let distinct = audits.iter().map(|(at, _)| *at).collect::<std::collections::BTreeSet<_>>().len();
            for (i, (at, verdict)) in audits.iter().enumerate() {
                if audits.get(i + 1).is_some_and(|(next, _)| next == at) {
                    continue; // a later audit at the same millisecond has the last word
                }
                let expected = verdict.map_or(Shade::NotDeclared, Shade::of);
                let shown = shade_at(*at).expect("the window is tiled");
                if distinct < MAX_BANDS {
                    prop_assert_eq!(shown, expected);
                } else {
                    // Slotted: the slot holding the audit shows the worst shade it held.
                    prop_assert!(shown >= expected, "{shown:?} < {expected:?} at {at}");
                }
            }
            if audits.iter().any(|(_, v)| *v == Some("refused")) {
                prop_assert!(drawn.iter().any(|b| b.shade == Shade::Refused), "a refusal is never slotted away");
            }
        }
    }

    #[test]
    fn a_flip_and_a_flip_back_are_three_bands_at_the_audits_times() {
        let t = now_ms() - 60_000;
        let fleet = agent_with(vec![
            audit(t + 10_000, Some("verified")),
            audit(t + 20_000, Some("verified")),
            audit(t + 30_000, Some("refused")),
            audit(t + 40_000, Some("verified")),
        ]);
        let window = Window { from_ms: t, to_ms: t + 50_000 };
        let drawn = bands(&fleet.agents[0], "streaming", window);
        let spans: Vec<(u64, u64, Shade)> =
            drawn.iter().map(|b| (b.from_ms - t, b.to_ms - t, b.shade)).collect();
        assert_eq!(
            spans,
            [
                (0, 10_000, Shade::NotAudited),
                (10_000, 30_000, Shade::Verified),
                (30_000, 40_000, Shade::Refused),
                (40_000, 50_000, Shade::Verified)
            ]
        );
    }
}
