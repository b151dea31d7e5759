//! The three paths that judge a served truth, each read back into the oracle's words: the audit
//! (`a2a audit`'s engine), `Client::run_task` with a `Negotiation`, and the typed handles settled
//! one claim at a time.
//!
//! Reading a path's answer is the only place this test looks at the SDK's vocabulary, and it reads
//! it the way the rules name things: a refusal is a refusal; a claim left pending because the
//! contradiction came outside the declared modes, or because the agent refused our webhook URL
//! itself, is unverifiable; a claim a gateway's card cannot make (not lifted, not narrowed to) is
//! unverifiable; anything else pending is unsettled.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{CardClaim, CardClaimVerdict, ClaimAnswer, ClaimKind, ClaimSet, PendingReason};
use a2a_typestate_client::audit::{AgentAudit, AuditOptions, Auditor, CardClaimOutcome, ClaimVerdict};
use a2a_typestate_client::negotiate::record::Ending;
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskOutcome};
use a2a_typestate_client::task::{PushRegistrationAnswer, PushRegistrationAttempt};
use a2a_typestate_client::types::{Message, Role};
use a2a_typestate_client::{
    AgentBaseUrl, Capability, Claims, Client, Error, ErrorKind, History, NoHistory, NoStreaming, PollCadence,
    Push, PushReceiver, RetryPolicy, Settlement, Streaming, SuspectMarks, Task, TaskEntry, WireReading,
};

use super::oracle::{Verdict, probe_media_type};
use super::truth::{Deployment, Truth};

/// The push-arrival bound every path waits for a callback (the audit's and the clients').
pub const PUSH_ARRIVAL: Duration = Duration::from_millis(300);
/// The bound on any one request.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(4);
/// How long a task may show nothing new before it is a lifecycle fault (not a lie).
pub const WORKING_BOUND: Duration = Duration::from_secs(8);

/// What one path said about one truth.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// One verdict per lifecycle claim the card declares.
    pub claims: BTreeMap<Capability, Verdict>,
    /// The claims this path refused (for `run_task`, those of its one run).
    pub refused: BTreeSet<Capability>,
    /// The output-modes card claim, where the path checks it.
    pub output_modes: Option<Verdict>,
    /// Card claims refused that the model never refuses (an interface), in words.
    pub wrongly_refused_card_claims: Vec<String>,
    /// The suspect marks the path's client set on the agent, as the claim each is about.
    pub marks: Vec<String>,
    /// The error that ended the path's task, in words, if one did.
    pub error: Option<String>,
    /// Whether that error was a transport fault.
    pub transport_error: bool,
    /// What else happened, for a failure's message.
    pub notes: Vec<String>,
}

/// The message every path sends: the one the audit's probe sends for this card.
pub fn message(truth: &Truth) -> Message {
    let builder = Message::builder(Role::User).message_id(uuid::Uuid::new_v4().to_string());
    match probe_media_type(&[truth.input_mode]) {
        "application/json" => builder.data(serde_json::json!({ "question": "what is modelled?" })).build(),
        _ => builder.text("what is modelled?").build(),
    }
}

/// How the caller reaches the agent: a gateway it knows about is `Deployment::Gateway`; one whose
/// card says so is reached as direct (the card tells).
pub fn deployment(truth: &Truth) -> a2a_typestate::Deployment {
    match truth.deployment {
        Deployment::GatewayByCaller => a2a_typestate::Deployment::Gateway,
        Deployment::Direct | Deployment::GatewayByCard => a2a_typestate::Deployment::Direct,
    }
}

/// A client as these tests use one: the audit's reading (tolerant of wire deviations, which are not
/// lies), short bounds, marks on so that a refusal is seen to mark and a fault not to.
pub fn client() -> Client {
    builder().suspect_marks(SuspectMarks::On).build().expect("a client builds")
}

fn builder() -> a2a_typestate_client::ClientBuilder {
    Client::builder()
        .wire_reading(WireReading::Tolerant)
        .push_arrival_bound(PUSH_ARRIVAL)
        .request_timeout(REQUEST_TIMEOUT)
        .connect_timeout(Duration::from_secs(1))
        .unobservable_bound(WORKING_BOUND)
        .retry_policy(
            RetryPolicy::new(2, Duration::from_millis(10), Duration::from_millis(40), 1.0).expect("valid"),
        )
        .poll_cadence(
            PollCadence::new(Duration::from_millis(20), 1.5, Duration::from_millis(100)).expect("valid"),
        )
}

/// The audit's client, as `a2a audit` builds its own (tolerant reading, marks off so that every
/// claim gets its probe), with the same short bounds as the other paths.
/// The audit as `a2a audit` runs it, with this model's bounds.
pub async fn auditor() -> Auditor {
    let options = AuditOptions {
        push_arrival_bound: PUSH_ARRIVAL,
        request_timeout: REQUEST_TIMEOUT,
        working_bound: WORKING_BOUND,
        ..AuditOptions::default()
    };
    Auditor::new(builder(), options).await.expect("an auditor starts")
}

fn marks(client: &Client, url: &str) -> Vec<String> {
    let agent = AgentBaseUrl::parse(url).expect("the agent's URL parses");
    client.discovery_cache().suspect_marks(&agent).iter().map(|m| format!("{:?}", m.claim())).collect()
}

/// Whether the agent refused our webhook URL itself (-32602) on every path tried and took it on
/// none: the silence that follows is one it announced.
fn webhook_refused_everywhere(attempts: &[PushRegistrationAttempt]) -> bool {
    !attempts.is_empty()
        && attempts
            .iter()
            .all(|a| matches!(a.answer, PushRegistrationAnswer::Refused { code: Some(-32602), .. }))
}

fn pending(reason: &PendingReason, capability: Capability, attempts: &[PushRegistrationAttempt]) -> Verdict {
    match reason {
        PendingReason::OutsideDeclaredModes { .. }
        | PendingReason::ModesUnknown { .. }
        | PendingReason::WebhookUrlRefused { .. }
        | PendingReason::WebhookOutOfReach
        | PendingReason::ReceiverTurnedAway => Verdict::Unverifiable,
        _ if capability == Capability::PushNotifications && webhook_refused_everywhere(attempts) => {
            Verdict::Unverifiable
        }
        _ => Verdict::Unsettled,
    }
}

/// The audit's report on one agent, read.
pub fn read_audit(audited: &AgentAudit) -> Reading {
    let mut reading = Reading::default();
    for claim in &audited.claims {
        let verdict = match &claim.verdict {
            ClaimVerdict::Verified { .. } => Verdict::Verified,
            ClaimVerdict::Refused { .. } => Verdict::Refused,
            ClaimVerdict::Unverifiable { .. } => Verdict::Unverifiable,
            ClaimVerdict::NotExercised { .. } | ClaimVerdict::Unverified { .. } => Verdict::Unsettled,
        };
        reading.claims.insert(claim.capability, verdict);
        reading.notes.push(format!("{:?}: {:?}", claim.capability, claim.verdict));
    }
    reading.refused = audited.over_declares.iter().collect();
    for card_claim in &audited.card_claims {
        match card_claim.kind {
            ClaimKind::OutputModes => {
                reading.output_modes = Some(match &card_claim.verdict {
                    CardClaimOutcome::Verified { .. } => Verdict::Verified,
                    CardClaimOutcome::Refused { .. } => Verdict::Refused,
                    CardClaimOutcome::Unverifiable { .. } => Verdict::Unverifiable,
                    CardClaimOutcome::Unsettled { .. }
                    | CardClaimOutcome::Unreachable { .. }
                    | CardClaimOutcome::Warning { .. } => Verdict::Unsettled,
                });
            }
            _ if card_claim.is_refused() => {
                reading
                    .wrongly_refused_card_claims
                    .push(format!("{}: {:?}", card_claim.claim, card_claim.verdict));
            }
            _ => {}
        }
        reading.notes.push(format!("{}: {:?}", card_claim.claim, card_claim.verdict));
    }
    if let Some(probe) = &audited.probe
        && let Ending::Failed(why) = &probe.ending
    {
        reading.error = Some(why.clone());
    }
    if let Some(error) = &audited.error {
        reading.error = Some(error.clone());
    }
    reading.notes.extend(audited.push_registration.iter().map(|p| format!("push: {p}")));
    reading
}

/// `run_task` on `truth`'s agent, depending on every claim its card declares (and, when the truth
/// says so, on the others too, which are then used unchecked), read.
pub async fn run_task(client: &Client, truth: &Truth, url: &str) -> Reading {
    let mut depends: Vec<Capability> = Vec::new();
    for (declared, capability) in [
        (truth.declares_streaming(), Capability::Streaming),
        (truth.declares_history(), Capability::StateTransitionHistory),
        (truth.declares_push(), Capability::PushNotifications),
    ] {
        if declared || truth.run_task_depends_on_undeclared {
            depends.push(capability);
        }
    }
    let negotiation = Negotiation::depending_on(&depends)
        .deployment(deployment(truth))
        .accepted_output_modes([truth.output_mode])
        .follow_up(FollowUp::reply("nothing more"));
    let result = client.run_task(url, message(truth), &negotiation).await;
    let mut reading = Reading::default();
    match result {
        Ok(outcome) => read_outcome(&mut reading, truth, &outcome),
        Err(error) => {
            if let Some(violation) = error.lifecycle_violation() {
                reading.refused.insert(violation.capability());
            }
            read_error(&mut reading, &error);
            for capability in declared(truth) {
                let verdict =
                    if reading.refused.contains(&capability) { Verdict::Refused } else { Verdict::Unsettled };
                reading.claims.insert(capability, verdict);
            }
        }
    }
    reading.marks = marks(client, url);
    reading
}

fn declared(truth: &Truth) -> impl Iterator<Item = Capability> + use<> {
    [
        (truth.declares_streaming(), Capability::Streaming),
        (truth.declares_history(), Capability::StateTransitionHistory),
        (truth.declares_push(), Capability::PushNotifications),
    ]
    .into_iter()
    .filter_map(|(declared, capability)| declared.then_some(capability))
}

fn read_error(reading: &mut Reading, error: &Error) {
    reading.transport_error = error.kind() == ErrorKind::Transport;
    reading.error = Some(format!("{:?}: {error}", error.kind()));
}

fn read_outcome(reading: &mut Reading, truth: &Truth, outcome: &TaskOutcome) {
    reading.refused = outcome.refusals().map(|v| v.capability()).collect();
    for capability in declared(truth) {
        let verdict = if reading.refused.contains(&capability) {
            Verdict::Refused
        } else {
            match outcome.verdicts.iter().find(|(c, _)| *c == capability).map(|(_, v)| v) {
                Some(a2a_typestate::Verdict::Verified(_)) => Verdict::Verified,
                Some(a2a_typestate::Verdict::Refused(_)) => Verdict::Refused,
                Some(a2a_typestate::Verdict::Pending(why)) => {
                    pending(why.reason(), capability, &outcome.push_registration)
                }
                // Not checked: the card declares it, so only a gateway's card leaves it unlifted.
                None => Verdict::Unverifiable,
            }
        };
        reading.claims.insert(capability, verdict);
    }
    for verdict in &outcome.card_claims {
        let output = match verdict {
            CardClaimVerdict::Refused(violation) => {
                if !matches!(violation.claim(), CardClaim::OutputModes { .. }) {
                    reading.wrongly_refused_card_claims.push(violation.to_string());
                    continue;
                }
                Verdict::Refused
            }
            CardClaimVerdict::Verified(evidence) if matches!(evidence.answer, ClaimAnswer::Output { .. }) => {
                Verdict::Verified
            }
            CardClaimVerdict::Pending(a2a_typestate::ClaimPending::OutsideDeclaredModes(evidence))
                if matches!(evidence.answer, ClaimAnswer::Output { .. }) =>
            {
                Verdict::Unverifiable
            }
            _ => continue,
        };
        reading.output_modes = Some(output);
    }
    reading.notes.push(format!("{outcome}"));
    reading.notes.extend(outcome.push_registration.iter().map(|p| format!("push: {p}")));
}

/// A typed handle holding `C`, or why there is none.
enum Entry<C: ClaimSet> {
    Handle(Box<Task<C>>),
    /// The card does not make the claim `C` holds (a gateway's makes none).
    NotClaimed(String),
    Failed(Error),
}

async fn typed<C: ClaimSet>(client: &Client, truth: &Truth, url: &str) -> Entry<C> {
    if truth.deployment == Deployment::GatewayByCaller {
        let connection = match client.connect(url).await {
            Ok(connection) => connection,
            Err(error) => return Entry::Failed(error),
        };
        return match Task::<C>::try_from(connection.dyn_task(a2a_typestate::Deployment::Gateway)) {
            Ok(task) => Entry::Handle(Box::new(task)),
            Err(error) => Entry::NotClaimed(error.to_string()),
        };
    }
    match client.task::<C>(url).await {
        Ok(TaskEntry::Claimed(task)) => Entry::Handle(Box::new(task)),
        Ok(TaskEntry::Suspect(_, mark)) => panic!("a fresh client found the agent suspect: {mark}"),
        Err(error) if error.kind() == ErrorKind::Misuse => Entry::NotClaimed(error.to_string()),
        Err(error) => Entry::Failed(error),
    }
}

/// The typed handles, one per claim the card declares, each depending on that claim alone and on
/// a client of its own (a refusal marks the agent on its client), read into one reading.
pub async fn typed_settles(truth: &Truth, url: &str, receiver: &Arc<PushReceiver>) -> Reading {
    let settles = declared(truth).map(|capability| async move {
        let client = client();
        let (verdict, note) = match capability {
            Capability::Streaming => settle_streaming(&client, truth, url).await,
            Capability::StateTransitionHistory => settle_history(&client, truth, url).await,
            Capability::PushNotifications => settle_push(&client, truth, url, receiver).await,
        };
        (capability, verdict, note, marks(&client, url))
    });
    let mut reading = Reading::default();
    for (capability, verdict, note, marks) in futures::future::join_all(settles).await {
        if verdict == Verdict::Refused {
            reading.refused.insert(capability);
        }
        reading.claims.insert(capability, verdict);
        reading.notes.push(format!("{capability:?}: {note}"));
        reading.marks.extend(marks.into_iter().map(|m| format!("{capability:?} handle: {m}")));
    }
    reading
}

/// What a settle said, read; `capability` is the one settled (a refusal must name it: the handle
/// depends on nothing else).
fn settled<V, U>(
    capability: Capability,
    result: a2a_typestate_client::SettleResult<V, U, Task<a2a_typestate_client::SingleShot>>,
    attempts: Vec<PushRegistrationAttempt>,
    sent: Result<(), Error>,
) -> (Verdict, String) {
    let sent = match sent {
        Ok(()) => String::new(),
        Err(error) => format!("; the call failed: {:?}: {error}", error.kind()),
    };
    match result {
        Ok(Settlement::Verified(_)) => (Verdict::Verified, format!("verified{sent}")),
        Ok(Settlement::Pending(_, why)) => {
            (pending(why.reason(), capability, &attempts), format!("pending: {why}{sent}"))
        }
        Err(refusal) => {
            let violation = refusal.violation();
            assert_eq!(violation.capability(), capability, "a handle depending on one claim refused another");
            (Verdict::Refused, format!("refused: {violation}{sent}"))
        }
    }
}

async fn settle_streaming(client: &Client, truth: &Truth, url: &str) -> (Verdict, String) {
    let mut task = match typed::<Claims<Streaming>>(client, truth, url).await {
        Entry::Handle(task) => task,
        Entry::NotClaimed(why) => return (Verdict::Unverifiable, format!("not claimed: {why}")),
        Entry::Failed(error) => return (Verdict::Unsettled, format!("no handle: {error}")),
    };
    task.set_accepted_output_modes([truth.output_mode]);
    let sent = task.send_streaming_message(message(truth)).await.map(drop);
    let attempts = task.push_registration_attempts().to_vec();
    settled(Capability::Streaming, task.settle_streaming(), attempts, sent)
}

async fn settle_history(client: &Client, truth: &Truth, url: &str) -> (Verdict, String) {
    let mut task = match typed::<Claims<NoStreaming, History>>(client, truth, url).await {
        Entry::Handle(task) => task,
        Entry::NotClaimed(why) => return (Verdict::Unverifiable, format!("not claimed: {why}")),
        Entry::Failed(error) => return (Verdict::Unsettled, format!("no handle: {error}")),
    };
    task.set_accepted_output_modes([truth.output_mode]);
    let mut sent = task.send_message(message(truth)).await.map(drop);
    if sent.is_ok() {
        sent = task.get_task_history(10).await.map(drop);
    }
    let attempts = task.push_registration_attempts().to_vec();
    settled(Capability::StateTransitionHistory, task.settle_history(), attempts, sent)
}

async fn settle_push(
    client: &Client,
    truth: &Truth,
    url: &str,
    receiver: &Arc<PushReceiver>,
) -> (Verdict, String) {
    let mut task = match typed::<Claims<NoStreaming, NoHistory, Push>>(client, truth, url).await {
        Entry::Handle(task) => task,
        Entry::NotClaimed(why) => return (Verdict::Unverifiable, format!("not claimed: {why}")),
        Entry::Failed(error) => return (Verdict::Unsettled, format!("no handle: {error}")),
    };
    task.set_accepted_output_modes([truth.output_mode]);
    let mut sent = task.watch_push(Arc::clone(receiver));
    if sent.is_ok() {
        sent = task.send_message(message(truth)).await.map(drop);
    }
    if sent.is_ok() {
        sent = task.await_push_callback().await;
    }
    let attempts = task.push_registration_attempts().to_vec();
    let note = attempts.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
    let (verdict, said) = settled(Capability::PushNotifications, task.settle_push(), attempts, sent);
    (verdict, format!("{said} (push: {note})"))
}
