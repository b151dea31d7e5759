//! The checks the demo holds itself to: no task lost, only lying agents' tasks failed, the suspect cache
//! cuts the waste to [`REQUIRED_WASTE_RATIO`] of the first batch's, and the verdicts match what the
//! fleet knows about each card. Each check carries the numbers behind it, so a failed one says why.

use a2a_testkit::fleet::{Claim, Honesty};
use a2a_typestate::{Capability, CapabilitySet, ClaimKind};

use super::REQUIRED_WASTE_RATIO;
use super::report::{AgentReport, BatchReport, Check, RunReport};

fn capability_of(claim: Claim) -> Option<Capability> {
    match claim {
        Claim::Streaming => Some(Capability::Streaming),
        Claim::StateTransitionHistory => Some(Capability::StateTransitionHistory),
        Claim::PushNotifications => Some(Capability::PushNotifications),
        _ => None,
    }
}

/// The kind of card claim, for the fleet's claims beyond the lifecycle.
fn card_claim_of(claim: Claim) -> Option<ClaimKind> {
    match claim {
        Claim::ExtendedAgentCard => Some(ClaimKind::ExtendedCard),
        Claim::Interface => Some(ClaimKind::Interfaces),
        _ => None,
    }
}

/// The fleet's truth about a card, in words (`honest`, `over-declares streaming`, ...).
pub(super) fn truth(honesty: Honesty) -> String {
    let field = |claim| match (capability_of(claim), card_claim_of(claim)) {
        (Some(capability), _) => capability.card_field(),
        (None, Some(kind)) => kind.name(),
        (None, None) => "another claim",
    };
    match honesty {
        Honesty::OverDeclares(claim) => format!("over-declares {}", field(claim)),
        Honesty::UnderDeclares(claim) => format!("under-declares {}", field(claim)),
        _ => "honest".to_owned(),
    }
}

/// An over-declaring agent must have exactly its lie refused (a lifecycle capability, or a card
/// claim of its kind); every other agent nothing.
pub(super) fn verdict_matches(honesty: Honesty, agent: &AgentReport) -> bool {
    let refused = agent.refused_set();
    let card_refused: Vec<ClaimKind> = agent.refused_card_claims.iter().map(|r| r.kind).collect();
    match honesty {
        Honesty::OverDeclares(claim) => match (capability_of(claim), card_claim_of(claim)) {
            (Some(c), _) => refused == CapabilitySet::of(&[c]) && card_refused.is_empty(),
            (None, Some(kind)) => refused.is_empty() && card_refused == [kind],
            (None, None) => false,
        },
        _ => refused.is_empty() && card_refused.is_empty(),
    }
}

/// The demo's checks, in the order they are printed.
pub(super) fn checks(agents: &[AgentReport], runs: &[RunReport], per_batch: u32) -> Vec<Check> {
    let mut checks = Vec::new();
    let batches: Vec<&BatchReport> = runs.iter().flat_map(|r| &r.batches).collect();
    let unaccounted: Vec<String> = batches
        .iter()
        .filter(|b| !b.accounted() || b.submitted != per_batch)
        .map(|b| format!("batch {}: {} submitted of {per_batch}", b.batch, b.submitted))
        .collect();
    let total: u32 = batches.iter().map(|b| b.submitted).sum();
    checks.push(Check {
        name: "every task accounted for".to_owned(),
        passed: unaccounted.is_empty(),
        detail: if unaccounted.is_empty() {
            format!("{total} tasks: completed + single-shot + kept + fallback + failed == submitted in every batch")
        } else {
            unaccounted.join("; ")
        },
    });
    let failed: u32 = batches.iter().map(|b| b.failed).sum();
    let unexplained: Vec<&String> = batches
        .iter()
        .flat_map(|b| &b.failures)
        .filter(|f| {
            !agents
                .iter()
                .any(|a| a.truth.starts_with("over-declares") && f.starts_with(&format!("{}: ", a.name)))
        })
        .collect();
    checks.push(Check {
        name: "only lying agents' tasks failed".to_owned(),
        passed: unexplained.is_empty(),
        detail: match unexplained.first() {
            None => format!("{failed} failed, each on an over-declaring agent"),
            Some(first) => format!("{} failed elsewhere, first: {first}", unexplained.len()),
        },
    });
    if let Some(on) = runs.iter().find(|r| r.suspect_cache)
        && let [first, second, ..] = on.batches.as_slice()
    {
        let bound = first.wasted_round_trips as f64 * REQUIRED_WASTE_RATIO;
        checks.push(Check {
            name: "suspect cache cuts wasted round trips to a tenth or less".to_owned(),
            passed: first.wasted_round_trips > 0 && second.wasted_round_trips as f64 <= bound,
            detail: format!(
                "batch 1 wasted {}, batch 2 wasted {} (bound {bound:.1})",
                first.wasted_round_trips, second.wasted_round_trips
            ),
        });
    }
    let wrong: Vec<&str> =
        agents.iter().filter(|a| !a.verdict_matches_truth).map(|a| a.name.as_str()).collect();
    checks.push(Check {
        name: "verdicts match the fleet's truth".to_owned(),
        passed: wrong.is_empty(),
        detail: if wrong.is_empty() {
            "each lie refused by its claim, no honest or under-declaring agent refused".to_owned()
        } else {
            format!("differs for {}", wrong.join(", "))
        },
    });
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_client::negotiate::record::RefusedClaim;

    fn batch(number: u32, submitted: u32, wasted: u64, failures: &[&str]) -> BatchReport {
        let failed = u32::try_from(failures.len()).unwrap_or(u32::MAX);
        BatchReport {
            batch: number,
            submitted,
            completed: submitted - failed,
            completed_single_shot: 0,
            completed_before_refusal: 0,
            completed_via_fallback: 0,
            failed,
            refusals: 0,
            negotiation_round_trips: wasted,
            wasted_round_trips: wasted,
            retries: 0,
            elapsed_ms: 1,
            failures: failures.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    fn agent(name: &str, honesty: Honesty, refused: &[Capability]) -> AgentReport {
        let mut agent = AgentReport::new(name, "http://a", "1.0", truth(honesty), CapabilitySet::EMPTY);
        agent.refused = refused
            .iter()
            .map(|c| RefusedClaim {
                capability: *c,
                contradiction: "contradicted".to_owned(),
                evidence: "event #1".to_owned(),
            })
            .collect();
        agent.verdict_matches_truth = verdict_matches(honesty, &agent);
        agent
    }

    fn liar() -> AgentReport {
        agent("liar", Honesty::OverDeclares(Claim::Streaming), &[Capability::Streaming])
    }

    fn run(first: BatchReport, second: BatchReport) -> RunReport {
        RunReport::new(true, vec![first, second])
    }

    fn check<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks.iter().find(|c| c.name.starts_with(name)).unwrap_or_else(|| panic!("no check {name}"))
    }

    #[test]
    fn a_batch_short_of_its_tasks_fails_the_accounting_check() {
        let runs = [run(batch(1, 4, 10, &[]), batch(2, 3, 0, &[]))];
        let checks = checks(&[liar()], &runs, 4);
        let accounted = check(&checks, "every task accounted for");
        assert!(!accounted.passed);
        assert_eq!(accounted.detail, "batch 2: 3 submitted of 4");
    }

    #[test]
    fn a_failure_on_an_honest_agent_fails_the_only_liars_failed_check() {
        let honest = agent("honest", Honesty::Honest, &[]);
        let liar_failed = [run(batch(1, 4, 10, &["liar: abandoned"]), batch(2, 4, 0, &[]))];
        assert!(check(&checks(&[liar(), honest.clone()], &liar_failed, 4), "only lying").passed);
        let honest_failed = [run(batch(1, 4, 10, &["honest: timed out"]), batch(2, 4, 0, &[]))];
        let failed = checks(&[liar(), honest], &honest_failed, 4);
        assert!(!check(&failed, "only lying").passed, "{failed:?}");
    }

    #[test]
    fn the_reduction_check_holds_at_a_tenth_and_fails_above_it_or_when_nothing_was_wasted() {
        let reduced = |first, second| {
            let checks = checks(&[liar()], &[run(batch(1, 4, first, &[]), batch(2, 4, second, &[]))], 4);
            check(&checks, "suspect cache cuts").passed
        };
        assert!(reduced(20, 2));
        assert!(!reduced(20, 3));
        assert!(!reduced(0, 0), "a first batch that wasted nothing shows no reduction");
    }

    #[test]
    fn a_refused_honest_agent_or_a_lie_refused_on_another_capability_is_a_wrong_verdict() {
        let runs = [run(batch(1, 4, 10, &[]), batch(2, 4, 0, &[]))];
        assert!(check(&checks(&[liar()], &runs, 4), "verdicts match").passed);
        let honest_refused = agent("honest", Honesty::Honest, &[Capability::PushNotifications]);
        let wrong_lie =
            agent("liar", Honesty::OverDeclares(Claim::Streaming), &[Capability::StateTransitionHistory]);
        for wrong in [honest_refused, wrong_lie] {
            let checks = checks(std::slice::from_ref(&wrong), &runs, 4);
            let verdicts = check(&checks, "verdicts match");
            assert!(!verdicts.passed);
            assert!(verdicts.detail.contains(&wrong.name), "{verdicts:?}");
        }
    }

    fn card_refusal(kind: ClaimKind) -> a2a_typestate_client::negotiate::record::RefusedCardClaim {
        a2a_typestate_client::negotiate::record::RefusedCardClaim {
            kind,
            claim: "a claim".to_owned(),
            evidence: "answer #0".to_owned(),
            fallback: "the fallback".to_owned(),
        }
    }

    #[test]
    fn a_card_claim_liar_matches_its_truth_only_with_exactly_its_kind_refused() {
        let honesty = Honesty::OverDeclares(Claim::Interface);
        let mut caught = agent("retired", honesty, &[]);
        assert_eq!(caught.truth, "over-declares interfaces");
        assert!(!verdict_matches(honesty, &caught), "nothing refused yet");
        caught.refused_card_claims.push(card_refusal(ClaimKind::Interfaces));
        assert!(verdict_matches(honesty, &caught));
        caught.refused_card_claims.push(card_refusal(ClaimKind::ExtendedCard));
        assert!(!verdict_matches(honesty, &caught), "another claim refused too");
        let mut honest = agent("honest", Honesty::Honest, &[]);
        honest.refused_card_claims.push(card_refusal(ClaimKind::ExtendedCard));
        assert!(!verdict_matches(Honesty::Honest, &honest), "an honest agent refused on a card claim");
    }
}
