//! Probe tasks: the first one depends on every claim the card makes; after a refusal, each claim it
//! left unsettled gets a probe of its own, so a card that lies about three capabilities is caught
//! three times, each with its own evidence.
//!
//! Why a probe per claim: once a claim is refused the task falls back to one single-shot send, and
//! the claims that task had not reached yet are never exercised by it. A fresh task depending on
//! just one claim exercises that claim first, under the client's bounds, and at most one such task
//! runs per claim. An agent whose first probe refused nothing gets no further probe: honest audits
//! cost what they did.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::negotiate::{FollowUp, Negotiation, TaskOutcome};
use crate::task::OnUpdate;
use crate::task::UnreachableInterface;
use crate::types::SendMessageResponse;
use crate::{AgentConnection, Client, Error, PushReceiver, SuspectMarks};
use a2a_typestate::rules::media_type_covers;
use a2a_typestate::{Capability, CardClaims, Deployment, ExchangeModes};
use serde::Serialize;

use super::{ClaimAudit, ClaimVerdict, DeviationReport, ProbeSummary, TimelineEntry, evidence};
use crate::negotiate::record::AnswerSeen;
use crate::negotiate::record::{self, TaskRecord};
use crate::text;

/// A probe run after a refusal, on one claim the first probe left unsettled.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimProbe {
    /// The claim this probe depended on, alone (its card field).
    #[serde(serialize_with = "record::capability_field")]
    pub capability: Capability,
    /// How the probe task ended.
    pub probe: ProbeSummary,
    /// Why the probe failed, if it did for a reason other than a refusal (the claim is then
    /// unverified, and the agent still counts as audited).
    pub error: Option<String>,
    /// Every attempt to register this probe's webhook and what the agent answered.
    pub push_registration: Vec<String>,
    /// What this probe observed, in order (its `event #N` are the ones its evidence cites).
    pub timeline: Vec<TimelineEntry>,
}

/// Where the probes run: the connection whose card the audit reports, or (when none could be
/// opened) the address, so the probe's error says why.
pub(super) enum Target {
    Connection(AgentConnection),
    Address(String),
}

/// One probe task and what `run_task` returned for it.
pub(super) struct Probe {
    result: Result<TaskOutcome, Error>,
    record: TaskRecord,
    /// What the probe's message sent and accepted (clause 3 of the rules reads it).
    modes: ExchangeModes,
    /// The answer the task's updates carried before `result`'s error, when they carried one (a
    /// stream that completed, then a `GetTask` confirming it that failed).
    answered_before: Option<SendMessageResponse>,
}

/// What every probe asks.
const PROBE_TEXT: &str = "a2a audit probe: please answer briefly";

/// The probe's message in a mode the card declares (`defaultInputModes`), so whatever it exercises
/// is reachable through the card's modes: text when the card takes text (or declares no mode at
/// all), else the question as a JSON data part when it takes `application/json`; text otherwise
/// (nothing the probe can send is declared, and the claims it reaches are reported unverifiable).
fn probe_message(message_id: String, input_modes: &[String]) -> a2a_typestate_types::Message {
    let takes = |media_type: &str| input_modes.iter().any(|declared| media_type_covers(declared, media_type));
    let builder =
        a2a_typestate_types::Message::builder(a2a_typestate_types::Role::User).message_id(message_id);
    if input_modes.is_empty() || takes("text/plain") || !takes("application/json") {
        builder.text(PROBE_TEXT).build()
    } else {
        builder.data(serde_json::json!({ "question": PROBE_TEXT })).build()
    }
}

impl Probe {
    /// Runs one short task on `base` depending on `depends`, answering any question once, with a
    /// message in a media type the card's `input_modes` declare.
    pub(super) async fn run(
        client: &Client,
        target: &Target,
        deployment: Deployment,
        depends: &[Capability],
        input_modes: &[String],
        accepted_output_modes: &[String],
        receiver: Option<Arc<PushReceiver>>,
    ) -> Self {
        let seen = Arc::new(Mutex::new(AnswerSeen::default()));
        let folding = Arc::clone(&seen);
        let mut negotiation = Negotiation::depending_on(depends)
            .deployment(deployment)
            .accepted_output_modes(accepted_output_modes.iter().cloned())
            .follow_up(FollowUp::reply("a2a audit probe: no further input"))
            .on_update(OnUpdate::new(move |update| {
                if let Ok(mut seen) = folding.lock() {
                    seen.apply(update);
                }
            }));
        if let Some(receiver) = receiver {
            negotiation = negotiation.push_receiver(receiver);
        }
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let probe = PROBES.fetch_add(1, Ordering::Relaxed);
        let message = probe_message(format!("a2a-audit-{}-{probe}", std::process::id()), input_modes);
        let modes = ExchangeModes::of_message(&message, accepted_output_modes);
        let result = match target {
            Target::Connection(connection) => client.run_task_on(connection, message, &negotiation).await,
            Target::Address(base) => client.run_task(base, message, &negotiation).await,
        };
        let record = TaskRecord::from_result(&result);
        let answered_before = match &result {
            Err(_) => seen.lock().ok().and_then(|seen| seen.answer()),
            Ok(_) => None,
        };
        Self { result, record, modes, answered_before }
    }

    /// What the probe's message sent and accepted.
    pub(super) fn modes(&self) -> &ExchangeModes {
        &self.modes
    }

    /// The declared interfaces the probe could not reach before the agent answered.
    pub(super) fn unreachable_interfaces(&self) -> &[UnreachableInterface] {
        self.outcome().map(|o| o.unreachable_interfaces.as_slice()).unwrap_or_default()
    }

    /// Where the rest of the audit goes: the interface that carried this probe, when the probe
    /// left an unreachable one for it; else `target` as it was.
    pub(super) async fn answering(&self, target: Target) -> Target {
        match (target, self.outcome()) {
            (Target::Connection(connection), Some(outcome))
                if outcome.interface_url != connection.interface().url =>
            {
                match connection.on_interface(&outcome.interface_url).await {
                    Some(moved) => Target::Connection(moved),
                    None => Target::Connection(connection),
                }
            }
            (target, _) => target,
        }
    }

    pub(super) fn outcome(&self) -> Option<&TaskOutcome> {
        self.result.as_ref().ok()
    }

    /// The agent's answer: the run's result, or, when the run ended in an error after its updates
    /// carried an answer, that answer.
    pub(super) fn answer(&self) -> Option<&SendMessageResponse> {
        self.outcome().map(|o| &o.result).or(self.answered_before.as_ref())
    }

    /// The verdict this probe gives `capability`.
    pub(super) fn verdict(&self, capability: Capability, lifted: &CardClaims) -> ClaimVerdict {
        evidence::verdict(capability, lifted, &self.record, self.outcome(), self.result.as_ref().err())
    }

    /// Why the probe failed, when an error other than a refusal ended it (after the answer, when
    /// its updates carried one); for an interface that could not be reached, with what its URL
    /// says plainly (an address inside the agent's host or network) when it says so.
    pub(super) fn error(&self, target: &Target) -> Option<String> {
        match (&self.result, &self.answered_before) {
            (Err(e), Some(answer)) if e.lifecycle_violation().is_none() => Some(format!(
                "the probe's task answered ({}), then a call after the answer failed: {}",
                answered(answer),
                text::one_line(e)
            )),
            (Err(e), None) if e.lifecycle_violation().is_none() => {
                let mut said = format!("the probe failed: {}", text::one_line(e));
                if let (true, Target::Connection(connection)) = (e.is_connect(), target)
                    && let Some(diagnosis) = connection.unreachable_diagnosis()
                {
                    said.push_str(&format!(" ({diagnosis})"));
                }
                Some(said)
            }
            _ => None,
        }
    }

    /// The lifecycle fault that ended the probe, named.
    pub(super) fn lifecycle_fault(&self) -> Option<String> {
        self.result.as_ref().err().and_then(Error::lifecycle_fault).map(evidence::lifecycle_fault)
    }

    pub(super) fn summary(&self) -> ProbeSummary {
        ProbeSummary {
            ending: self.record.ending.clone(),
            negotiation_round_trips: match &self.result {
                Ok(outcome) => Some(outcome.negotiation_round_trips),
                Err(e) => e.negotiation_round_trips(),
            },
        }
    }

    pub(super) fn push_registration(&self) -> Vec<String> {
        self.outcome()
            .map(|o| o.push_registration.iter().map(ToString::to_string).collect())
            .unwrap_or_default()
    }

    pub(super) fn deviations(&self) -> Vec<DeviationReport> {
        self.outcome().map(evidence::deviations).unwrap_or_default()
    }

    pub(super) fn timeline(&self) -> Vec<TimelineEntry> {
        self.outcome().map(evidence::timeline).unwrap_or_default()
    }
}

/// After the first probe: when it refused a claim, probes every claim it left unsettled (neither
/// verified, refused nor unverifiable) on its own, puts each verdict in its claim's place and adds
/// each probe's wire deviations to `wire_deviations`. Returns the probes run, in the card's claim
/// order; none when nothing was refused.
pub(super) async fn probe_each_unsettled_claim(
    client: &Client,
    target: &Target,
    deployment: Deployment,
    lifted: &CardClaims,
    claims: &mut [ClaimAudit],
    wire_deviations: &mut Vec<DeviationReport>,
    receiver: Option<Arc<PushReceiver>>,
) -> Vec<ClaimProbe> {
    let refused = claims.iter().any(|c| matches!(c.verdict, ClaimVerdict::Refused { .. }));
    if !refused || lifted.is_gateway() {
        return Vec::new();
    }
    let mut probes = Vec::new();
    for claim in claims.iter_mut() {
        let unsettled =
            matches!(claim.verdict, ClaimVerdict::NotExercised { .. } | ClaimVerdict::Unverified { .. });
        if !unsettled || !lifted.declared().contains(claim.capability) {
            continue;
        }
        // A client that marks a refused agent suspect sends it single-shot from now on, with no
        // negotiation: a probe would exercise nothing. `audit` builds its client with the marks
        // off; a caller's client may not have them off.
        if client.config().suspect_marks() == SuspectMarks::On {
            claim.verdict = ClaimVerdict::NotExercised {
                reason: "another claim was refused, and this client marks the agent suspect, so no further \
                         probe negotiates (audit with SuspectMarks::Off to probe each claim)"
                    .to_owned(),
            };
            continue;
        }
        let input_modes = lifted.default_input_modes();
        let probe =
            Probe::run(client, target, deployment, &[claim.capability], input_modes, &[], receiver.clone())
                .await;
        claim.verdict = in_its_own_probe(probe.verdict(claim.capability, lifted), claim.capability);
        wire_deviations.extend(probe.deviations());
        probes.push(ClaimProbe {
            capability: claim.capability,
            probe: probe.summary(),
            error: probe.error(target),
            push_registration: probe.push_registration(),
            timeline: probe.timeline(),
        });
    }
    probes
}

/// How an answer ended, in words: its task's state, or a direct message.
fn answered(answer: &SendMessageResponse) -> String {
    match answer {
        SendMessageResponse::Task(task) => task.state().word().to_owned(),
        SendMessageResponse::Message(_) => "a direct message".to_owned(),
    }
}

/// Says which probe a verdict's evidence comes from: its `event #N` count that probe's
/// observations, not the first probe's.
fn in_its_own_probe(verdict: ClaimVerdict, capability: Capability) -> ClaimVerdict {
    let from = |text: String| format!("in the probe depending on {} alone: {text}", capability.card_field());
    match verdict {
        ClaimVerdict::Verified { evidence } => ClaimVerdict::Verified { evidence: from(evidence) },
        ClaimVerdict::Refused { lie, contradiction, evidence } => {
            ClaimVerdict::Refused { lie, contradiction, evidence: from(evidence) }
        }
        ClaimVerdict::NotExercised { reason } => ClaimVerdict::NotExercised { reason: from(reason) },
        ClaimVerdict::Unverified { reason } => ClaimVerdict::Unverified { reason: from(reason) },
        ClaimVerdict::Unverifiable { reason } => ClaimVerdict::Unverifiable { reason: from(reason) },
    }
}
