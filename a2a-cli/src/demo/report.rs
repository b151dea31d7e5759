//! The demo's report: per agent what was claimed, verified, refused and why; per batch the task
//! accounting and the round trips spent; and the checks the demo holds itself to.

use a2a_typestate::CapabilitySet;
use serde::{Deserialize, Serialize};

use super::batch::BatchRun;
use a2a_typestate_client::negotiate::record::{self, Ending, RefusedCardClaim, RefusedClaim, TaskRecord};

/// Everything `a2a demo` found; also its `--json` output.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoReport {
    /// Tasks sent to each agent in each batch.
    pub tasks_per_agent: u32,
    /// Tasks in flight at once.
    pub concurrency: u32,
    /// Per agent, over both batches with the suspect cache on.
    pub agents: Vec<AgentReport>,
    /// The two runs: suspect cache on, then off.
    pub runs: Vec<RunReport>,
    /// The demo's own checks (accounting, reduction bound, verdicts against the fleet's truth).
    pub checks: Vec<Check>,
    /// Wall-clock time of the whole demo, in milliseconds.
    pub elapsed_ms: u64,
}

impl DemoReport {
    /// True when every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The run with the suspect cache on or off.
    pub fn run(&self, suspect_cache: bool) -> Option<&RunReport> {
        self.runs.iter().find(|r| r.suspect_cache == suspect_cache)
    }
}

/// One agent of the fleet.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    /// Its card name.
    pub name: String,
    /// Its base URL.
    pub url: String,
    /// The protocol version it speaks (`1.0`, `0.3`).
    pub protocol: String,
    /// The truth about its card, known to the fleet (`honest`, `over-declares streaming`, ...).
    pub truth: String,
    /// The lifecycle claims on its card.
    #[serde(serialize_with = "record::capability_fields")]
    pub claims: CapabilitySet,
    /// The claims some task verified.
    #[serde(serialize_with = "record::capability_fields")]
    pub verified: CapabilitySet,
    /// The claims refused, each with the first evidence.
    pub refused: Vec<RefusedClaim>,
    /// The card's other claims refused (extended card, interfaces, ...), each with the first
    /// evidence and the fallback taken.
    pub refused_card_claims: Vec<RefusedCardClaim>,
    /// Tasks refused after they had completed: their result kept, nothing sent again.
    pub kept: u32,
    /// Tasks that completed through the fallback.
    pub fallbacks: u32,
    /// Tasks sent single-shot at once because the agent was suspect.
    pub single_shots: u32,
    /// Tasks that failed.
    pub failed: u32,
    /// Whether what was refused is exactly what the fleet says the card over-declares.
    pub verdict_matches_truth: bool,
}

impl AgentReport {
    /// An agent before any task ran: its card's claims and the fleet's truth about them.
    pub(crate) fn new(name: &str, url: &str, protocol: &str, truth: String, claims: CapabilitySet) -> Self {
        Self {
            name: name.to_owned(),
            url: url.to_owned(),
            protocol: protocol.to_owned(),
            truth,
            claims,
            verified: CapabilitySet::EMPTY,
            refused: Vec::new(),
            refused_card_claims: Vec::new(),
            kept: 0,
            fallbacks: 0,
            single_shots: 0,
            failed: 0,
            verdict_matches_truth: false,
        }
    }

    /// Folds one task record into the agent's totals.
    pub(crate) fn absorb(&mut self, record: &TaskRecord) {
        self.verified = self.verified.iter().chain(record.verified.iter()).collect();
        for refusal in &record.refusals {
            if !self.refused.iter().any(|r| r.capability == refusal.capability) {
                self.refused.push(refusal.clone());
            }
        }
        for refusal in &record.card_claim_refusals {
            if !self.refused_card_claims.iter().any(|r| r.claim == refusal.claim) {
                self.refused_card_claims.push(refusal.clone());
            }
        }
        match record.ending {
            Ending::CompletedBeforeRefusal => self.kept += 1,
            Ending::CompletedViaFallback => self.fallbacks += 1,
            Ending::CompletedSingleShot => self.single_shots += 1,
            Ending::Failed(_) => self.failed += 1,
            Ending::Completed => {}
        }
    }

    /// The refused capabilities.
    pub fn refused_set(&self) -> CapabilitySet {
        self.refused.iter().map(|r| r.capability).collect()
    }
}

/// One run of two batches through one client.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// Whether capability-suspect marks were kept between tasks.
    pub suspect_cache: bool,
    /// The first batch (empty discovery cache) and the second (the cache the first left).
    pub batches: Vec<BatchReport>,
    /// Wasted round trips saved from the first batch to the second, in percent (none when the first
    /// wasted nothing).
    pub wasted_reduction_percent: Option<f64>,
}

impl RunReport {
    /// Builds the run's report from its batches.
    pub(crate) fn new(suspect_cache: bool, batches: Vec<BatchReport>) -> Self {
        let wasted_reduction_percent = match batches.as_slice() {
            [first, second, ..] if first.wasted_round_trips > 0 => Some(
                100.0 * (first.wasted_round_trips as f64 - second.wasted_round_trips as f64)
                    / first.wasted_round_trips as f64,
            ),
            _ => None,
        };
        Self { suspect_cache, batches, wasted_reduction_percent }
    }
}

/// One batch's accounting.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchReport {
    /// 1 or 2.
    pub batch: u32,
    /// Tasks submitted.
    pub submitted: u32,
    /// Completed on the negotiated path.
    pub completed: u32,
    /// Completed by a single-shot send because the agent was suspect.
    pub completed_single_shot: u32,
    /// Completed before a claim was refused: the result kept, nothing sent again.
    pub completed_before_refusal: u32,
    /// Completed through the fallback after a refusal.
    pub completed_via_fallback: u32,
    /// Failed, with reasons in `failures`.
    pub failed: u32,
    /// Tasks whose run refused a claim.
    pub refusals: u32,
    /// Requests made on negotiation paths.
    pub negotiation_round_trips: u64,
    /// Requests on negotiation paths that did not end in a negotiated completion (refused,
    /// abandoned or failed), plus retries.
    pub wasted_round_trips: u64,
    /// Attempts repeated after transport faults.
    pub retries: u64,
    /// Wall-clock time of the batch, in milliseconds.
    pub elapsed_ms: u64,
    /// Why each failed task failed: `agent: reason`.
    pub failures: Vec<String>,
}

impl BatchReport {
    /// Accounts for one batch. Round trips come from the client's counters (so a task cut off by the
    /// demo's bound, which reports nothing, is counted too); the round trips of tasks that completed on
    /// the negotiated path are the useful ones, the rest are wasted.
    pub(crate) fn new(batch: u32, run: &BatchRun, names: &[String]) -> Self {
        let mut report = Self {
            batch,
            submitted: 0,
            completed: 0,
            completed_single_shot: 0,
            completed_before_refusal: 0,
            completed_via_fallback: 0,
            failed: 0,
            refusals: 0,
            negotiation_round_trips: 0,
            wasted_round_trips: 0,
            retries: run.after.retries.saturating_sub(run.before.retries),
            elapsed_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
            failures: Vec::new(),
        };
        let mut useful = 0u64;
        for (index, record) in &run.records {
            report.submitted += 1;
            if record.was_refused() {
                report.refusals += 1;
            }
            match &record.ending {
                Ending::Completed => {
                    report.completed += 1;
                    useful += record.negotiation_round_trips;
                }
                Ending::CompletedSingleShot => report.completed_single_shot += 1,
                Ending::CompletedBeforeRefusal => report.completed_before_refusal += 1,
                Ending::CompletedViaFallback => report.completed_via_fallback += 1,
                Ending::Failed(reason) => {
                    report.failed += 1;
                    let name = names.get(*index).map_or("?", String::as_str);
                    report.failures.push(format!("{name}: {reason}"));
                }
            }
        }
        report.negotiation_round_trips =
            run.after.negotiation_round_trips.saturating_sub(run.before.negotiation_round_trips);
        report.wasted_round_trips = report.negotiation_round_trips.saturating_sub(useful) + report.retries;
        report
    }

    /// Every submitted task ended in exactly one of the five endings.
    pub fn accounted(&self) -> bool {
        self.completed
            + self.completed_single_shot
            + self.completed_before_refusal
            + self.completed_via_fallback
            + self.failed
            == self.submitted
    }
}

/// A check the demo holds itself to.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What is checked.
    pub name: String,
    /// Whether it held.
    pub passed: bool,
    /// The numbers behind it.
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use a2a_typestate::Capability;
    use a2a_typestate_client::MetricsSnapshot;

    use super::*;

    fn record(ending: Ending, round_trips: u64, refused: bool) -> TaskRecord {
        let refusals = if refused {
            vec![RefusedClaim {
                capability: Capability::Streaming,
                contradiction: "the agent answered SendStreamingMessage with error -32004".to_owned(),
                evidence: "event #1".to_owned(),
            }]
        } else {
            Vec::new()
        };
        TaskRecord {
            ending,
            verified: CapabilitySet::EMPTY,
            refusals,
            card_claim_refusals: Vec::new(),
            negotiation_round_trips: round_trips,
        }
    }

    fn batch(records: Vec<TaskRecord>, round_trips: u64, retries: u64) -> BatchRun {
        let mut after = MetricsSnapshot::default();
        after.negotiation_round_trips = round_trips;
        after.retries = retries;
        BatchRun {
            records: records.into_iter().map(|r| (0, r)).collect(),
            before: MetricsSnapshot::default(),
            after,
            elapsed: Duration::from_millis(5),
        }
    }

    #[test]
    fn wasted_round_trips_are_those_not_spent_on_negotiated_completions_plus_retries() {
        let run = batch(
            vec![
                record(Ending::Completed, 4, false),
                record(Ending::CompletedViaFallback, 1, true),
                // An abandoned task's round trips come with its error.
                record(Ending::Failed("abandoned".to_owned()), 3, true),
                record(Ending::CompletedSingleShot, 0, false),
            ],
            4 + 1 + 3,
            2,
        );
        let report = BatchReport::new(1, &run, &["agent".to_owned()]);
        assert_eq!(report.negotiation_round_trips, 8);
        assert_eq!(report.wasted_round_trips, 1 + 3 + 2);
        assert_eq!(report.refusals, 2);
        assert_eq!(report.failures, ["agent: abandoned"]);
        assert!(report.accounted());
    }

    #[test]
    fn every_ending_is_counted_once() {
        let run = batch(
            vec![
                record(Ending::Completed, 0, false),
                record(Ending::CompletedSingleShot, 0, false),
                record(Ending::CompletedBeforeRefusal, 0, true),
                record(Ending::CompletedViaFallback, 0, true),
                record(Ending::Failed("x".to_owned()), 0, false),
            ],
            0,
            0,
        );
        let report = BatchReport::new(2, &run, &[]);
        assert_eq!(
            (
                report.completed,
                report.completed_single_shot,
                report.completed_before_refusal,
                report.completed_via_fallback,
                report.failed
            ),
            (1, 1, 1, 1, 1)
        );
        assert_eq!(report.submitted, 5);
        assert!(report.accounted());
        assert_eq!(report.failures, ["?: x"]);
    }

    #[test]
    fn the_reduction_is_measured_from_the_first_batch_and_absent_when_it_wasted_nothing() {
        let wasted = |n| {
            let run = batch(vec![record(Ending::CompletedViaFallback, n, true)], n, 0);
            BatchReport::new(1, &run, &[])
        };
        let run = RunReport::new(true, vec![wasted(20), wasted(1)]);
        assert_eq!(run.wasted_reduction_percent, Some(95.0));
        let run = RunReport::new(true, vec![wasted(0), wasted(0)]);
        assert_eq!(run.wasted_reduction_percent, None);
    }

    #[test]
    fn an_agent_keeps_the_first_evidence_of_each_refused_capability() {
        let claims = CapabilitySet::of(&[Capability::Streaming]);
        let mut agent =
            AgentReport::new("a", "http://a", "1.0", "over-declares streaming".to_owned(), claims);
        agent.absorb(&record(Ending::CompletedViaFallback, 1, true));
        agent.absorb(&record(Ending::CompletedSingleShot, 0, false));
        agent.absorb(&record(Ending::CompletedViaFallback, 1, true));
        agent.absorb(&record(Ending::CompletedBeforeRefusal, 1, true));
        assert_eq!(agent.refused.len(), 1);
        assert_eq!(agent.refused_set(), CapabilitySet::of(&[Capability::Streaming]));
        assert_eq!((agent.kept, agent.fallbacks, agent.single_shots), (1, 2, 1));
    }
}
