//! Negotiation: run a task on the path the caller depends on, verify each card claim at the first
//! transition that exercises it, and act on a refusal without running finished work twice.
//!
//! [`Client::run_task`] is the dynamic driver over the calls of a [`DynTask`]: the
//! same calls a typed [`Task`](crate::Task) makes, chosen at run time from what the caller depends
//! on and what the card claims. It
//! 1. sends an agent that is **capability-suspect** (a mark in the [`DiscoveryCache`](crate::DiscoveryCache)
//!    still inside its TTL) one single-shot `SendMessage` at once: no negotiation round trip;
//! 2. otherwise keeps the claims the caller depends on and runs the task on that path: a streaming
//!    claim sends with `SendStreamingMessage`, otherwise `SendMessage` and polling; a push claim
//!    puts the webhook config inline in the first send, confirms it once the task exists, and
//!    tries `CreateTaskPushNotificationConfig` when the inline config was refused or dropped; a history claim fetches the history at
//!    the end (and after a dropped stream). Each turn is one event loop ([`crate::task`]);
//!    follow-ups answer the agent's questions through the [`FollowUp`] policy, each answer counted
//!    against its budget;
//! 3. settles the handle. On a refusal (all three conditions held) it marks the agent
//!    capability-suspect for every refused capability and never retries the task against it.
//!    When the advice is to abandon (an empty history the caller relied on), the violation is an
//!    [`ErrorKind::LifecycleViolation`](crate::ErrorKind) error. Otherwise what the refused task
//!    came to decides, as the client last read it (the stream's end, a send's answer, `GetTask`):
//!    - **it had ended** (a terminal state, or a direct message): its result is the outcome's and
//!      nothing is sent again ([`TaskPath::KeptAfterRefusal`]). A stream without the artifact
//!      `GetTask` has, or a push callback that never came, is refused only after the end, so
//!      these tasks run once;
//!    - **the agent accepted no task** (its "not supported" to the stream): one single-shot
//!      `SendMessage` through the `Task<SingleShot>` the refusal carries, which expects no
//!      intermediate states ([`TaskPath::Fallback`]); it is the work's first run;
//!    - **it had not ended**: as the negotiation's [`AfterRefusal`] says. By default
//!      ([`AfterRefusal::FollowToEnd`]) it is followed with `GetTask` to its end, within the task
//!      deadline, and kept ([`TaskPath::KeptAfterRefusal`]): the work runs once. With
//!      [`AfterRefusal::SendAgain`] the task is asked to cancel (`CancelTask`, best effort:
//!      a task that ended on its own meanwhile is kept instead), then the single-shot send goes
//!      ([`TaskPath::Fallback`]): a second run of the work, which
//!      [`TaskOutcome::may_have_run_twice`] reports. With [`AfterRefusal::EndWithRefusal`] the
//!      run ends with the refusal and the unfinished task ([`TaskPath::EndedWithRefusal`]).
//!
//! [`SuspectMarks::Off`] (set with
//! [`ClientBuilder::suspect_marks`](crate::ClientBuilder::suspect_marks)) leaves out steps 1 and 3's
//! mark: every task is negotiated, refusals are still counted and still settled as above.
//!
//! Never refused: transport faults (retried by the transports, streams reattached; an exhausted
//! budget is an [`ErrorKind::Transport`](crate::ErrorKind) error, the agent unmarked; a run of them
//! holds the agent unavailable for a cool-down, [`Breaker`](crate::Breaker), which is no mark), a first
//! `working`, an agent doing more than its card says, a gateway. A task that shows no progress past
//! the unobservable bound (the same state, the same question again, keep-alive comments), or runs
//! past the task deadline, is an [`ErrorKind::LifecycleFault`](crate::ErrorKind).
//!
//! Every task ends in one of: a result, a refusal with the refused task's result, the fallback's
//! or the unfinished task, or an error the caller can act on. Counters
//! ([`Metrics`](crate::Metrics)): requests per agent, negotiation round trips (every request on
//! the negotiated path, including polls), refusals by capability, refused results kept, fallbacks
//! (and those that may have run the work twice), tasks ended with the refusal, and retries.
//!
//! ```
//! use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
//! use a2a_typestate_client::{Capability, Client, Message};
//! # use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A card claiming streaming, from an agent whose artifact only comes through GetTask (a
//! // scripted agent stands in for it here).
//! # let agent = ScriptedAgent::builder()
//! #     .capabilities(Capabilities::none().with_streaming())
//! #     .script(Script::honest().with(Lie::StreamWithoutArtifact))
//! #     .spawn()
//! #     .await?;
//! # let url = agent.base_url();
//! let client = Client::builder().build()?;
//! let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
//!
//! let outcome = client.run_task(&url, Message::user("hi"), &negotiation).await?;
//! // Refused at the stream's end: the task had completed, so its result is kept and not sent again.
//! assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
//! assert_eq!(outcome.refusal.as_ref().map(|v| v.capability()), Some(Capability::Streaming));
//! assert!(outcome.state().is_some_and(|state| state.is_terminal()));
//! assert!(!outcome.may_have_run_twice());
//! assert_eq!(outcome.text().as_deref(), Some("echo: hi"), "the artifact GetTask had");
//! # assert_eq!(agent.executions(), 1);
//!
//! // Suspect now: the next task goes single-shot at once, with no negotiation round trip.
//! let again = client.run_task(&url, Message::user("hi"), &negotiation).await?;
//! assert!(matches!(again.path, TaskPath::SingleShotBecauseSuspect(_)));
//! assert_eq!(again.negotiation_round_trips, 0);
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod journaled;
mod outcome;
mod plan;
pub mod record;
mod refused;

use a2a_typestate::{Advice, Capability, CapabilitySet, ClaimStatus, ExchangeModes};
use a2a_typestate_types::Message;

pub use crate::task::follow_up::{DEFAULT_HISTORY_LENGTH, DEFAULT_MAX_FOLLOW_UPS, FollowUp, InputRequest};
pub use outcome::{TaskOutcome, TaskPath};
pub use plan::{AfterRefusal, Negotiation};
pub use refused::Fallback;

use crate::cache::{AvailabilityChange, Gate, Turn};
use crate::journal::Durability;
use crate::task::DynTask;
use crate::{Client, Error, ErrorKind, SuspectMarks};

/// Which agent a run goes to: an address, discovered (through the cache) and connected for the run,
/// or a connection already open, whose card is the one every decision of the run is made on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target<'a> {
    Address(&'a str),
    Connection(&'a crate::AgentConnection),
}

impl Target<'_> {
    /// How the span names the agent.
    pub(crate) fn label(&self) -> &str {
        match self {
            Self::Address(address) => address,
            Self::Connection(conn) => conn.agent().as_str(),
        }
    }
}

/// [`Client::run_task`]: the dynamic driver, over a [`DynTask`]'s calls, on the interface the
/// connection chose and, when that interface contradicts its card before the agent answered
/// anything, on the next one the card declares (see [`crate::connection`]'s card claims). The
/// card-claim verdicts the run reached are in [`TaskOutcome::card_claims`]; a refused security
/// claim is on the error ([`Error::card_claim_violation`]).
pub(crate) async fn run_task(
    client: &Client,
    target: Target<'_>,
    message: Message,
    negotiation: &Negotiation,
) -> Result<TaskOutcome, Error> {
    let agent = match target {
        Target::Address(agent) => crate::AgentBaseUrl::parse(agent).ok(),
        Target::Connection(conn) => Some(conn.agent().clone()),
    };
    let Some(agent) = agent else { return run_reachable(client, target, message, negotiation).await };
    let breaker = client.config().availability_breaker();
    let cache = client.discovery_cache();
    match cache.availability_gate(&agent, breaker) {
        Ok(Gate::Closed) => {}
        Ok(Gate::Probe) => {
            client.metrics().record_breaker_probe();
            crate::task_events::breaker("probe");
        }
        Err(unavailable) => {
            client.metrics().record_breaker_fail_fast();
            return Err(Error::breaker_open(agent.as_str(), unavailable));
        }
    }
    let run = run_reachable(client, target, message, negotiation).await;
    let change = match &run {
        Err(error) if error.unavailable().is_some() => AvailabilityChange::None,
        Err(error) if error.transport_fault().is_some() => {
            cache.task_unreached(&agent, breaker, &error.to_string())
        }
        // Nothing reached the agent: it says nothing of it either way.
        Err(error) if matches!(error.kind(), ErrorKind::Config | ErrorKind::Misuse) => {
            AvailabilityChange::None
        }
        _ => cache.task_reached(&agent),
    };
    match change {
        AvailabilityChange::Opened => {
            client.metrics().record_breaker(true);
            crate::task_events::breaker("open");
            tracing::warn!(agent = %agent.as_str(), "availability breaker opened: tasks to this agent fail fast until one probes it");
        }
        AvailabilityChange::Closed => {
            client.metrics().record_breaker(false);
            crate::task_events::breaker("closed");
        }
        AvailabilityChange::None => {}
    }
    run
}

/// How long past the task deadline the run's own bound waits for the handle's, which ends a turn
/// with the state it was in: the run's bound is for the paths no handle's clock watches.
const PAST_TASK_DEADLINE: std::time::Duration = std::time::Duration::from_millis(50);

/// [`run_task`] once the agent's breaker let the task through, within the task deadline
/// ([`TaskBudget::deadline`](crate::TaskBudget::deadline)) from here to its end: discovery, every
/// interface, the history, the push callback and the fallback included. Past it the run ends: a
/// transport timeout when discovery had not finished (nothing was sent), else a lifecycle fault
/// that [may have run](Error::may_have_run).
async fn run_reachable(
    client: &Client,
    target: Target<'_>,
    message: Message,
    negotiation: &Negotiation,
) -> Result<TaskOutcome, Error> {
    let begun = tokio::time::Instant::now();
    let deadline = client.config().task_budget().deadline();
    let conn = match target {
        Target::Address(agent) => match tokio::time::timeout(deadline, client.connect(agent)).await {
            Ok(conn) => conn?,
            Err(_) => {
                let cause = format!(
                    "the task deadline of {} passed while discovering the agent: nothing was sent",
                    a2a_typestate_types::human::HumanDuration(deadline)
                );
                return Err(
                    Error::transport(crate::TransportFault::Timeout, Some(cause.into())).with_url(agent)
                );
            }
        },
        Target::Connection(conn) => conn.clone(),
    };
    let run = async {
        let Some(journal) = client.journal() else {
            return run_on_interfaces(client, conn, message, negotiation, begun).await;
        };
        let (message, recorder) = journaled::begin(client, journal, &conn, message, negotiation).await;
        let negotiation = journaled::observed(negotiation, &recorder);
        let agent = conn.agent().clone();
        let run = run_on_interfaces(client, conn, message, &negotiation, begun).await;
        journaled::end(client, journal, &agent, &recorder, run)
    };
    match tokio::time::timeout_at(begun + deadline + PAST_TASK_DEADLINE, run).await {
        Ok(run) => run,
        Err(_) => Err(Error::from(a2a_typestate::LifecycleFault::DeadlineExceeded { state: None, deadline })
            .with_url(target.label())
            .after_a_send()),
    }
}

/// The run on the interface the connection chose, then on the next declared ones (see
/// [`run_task`]).
async fn run_on_interfaces(
    client: &Client,
    mut conn: crate::AgentConnection,
    message: Message,
    negotiation: &Negotiation,
    begun: tokio::time::Instant,
) -> Result<TaskOutcome, Error> {
    let mut tried: Vec<String> = Vec::new();
    // The extended card was judged when the connection was made (the public card is its fallback).
    let mut card_claims: Vec<_> = conn.extended_card_verdict().into_iter().collect();
    // Requests spent on interfaces left behind: the run's, though its outcome comes from the next.
    let mut spent = 0;
    loop {
        let failed = match run_on(client, &conn, message.clone(), negotiation, begun).await {
            Ok((mut outcome, answered_on)) => {
                // The interface that carried the task is the one its answers are read against.
                conn = answered_on;
                card_claims.extend(conn.extension_verdicts());
                if !negotiation.accepted().is_empty() {
                    let modes = ExchangeModes::of_message(&message, negotiation.accepted());
                    card_claims.extend(conn.output_modes_verdict(&modes, &outcome.result));
                }
                outcome.card_claims = card_claims;
                outcome.negotiation_round_trips += spent;
                return Ok(outcome);
            }
            Err(failed) => failed,
        };
        let Failed { error, before_any_answer } = failed;
        spent += error.negotiation_round_trips().unwrap_or(0);
        let error = error.with_negotiation_round_trips(spent);
        if let Some(violation) = conn.security_verdict(&error).and_then(|v| v.violation().cloned()) {
            return Err(error.with_card_claim_violation(violation));
        }
        // A task may exist behind an interface that answered something: it is never sent twice.
        // A transport fault says nothing about the interface (the transport retried it already).
        if !before_any_answer || error.transport_fault().is_some() {
            return Err(error);
        }
        let Some(violation) = conn.check_interface().await.and_then(|v| v.violation().cloned()) else {
            return Err(error);
        };
        tried.push(conn.interface().url.clone());
        let Some(next) = conn.next_interface(&tried).await else {
            let error = conn.after_interfaces_tried(error, tried.len());
            return Err(error.with_card_claim_violation(violation));
        };
        tracing::warn!(agent = %conn.agent().as_str(), %violation, next = %next.interface().url, "trying the next declared interface");
        card_claims.push(a2a_typestate::CardClaimVerdict::Refused(violation));
        conn = next;
    }
}

/// How a run on one interface failed: its error, and whether the agent had answered nothing yet
/// (no task can exist, so the task may go to another interface).
struct Failed {
    error: Error,
    before_any_answer: bool,
}

impl From<Error> for Failed {
    /// A failure after an answer: nothing is sent again.
    fn from(error: Error) -> Self {
        Self { error, before_any_answer: false }
    }
}

/// One run on `conn`'s interface.
async fn run_on(
    client: &Client,
    conn: &crate::AgentConnection,
    message: Message,
    negotiation: &Negotiation,
    begun: tokio::time::Instant,
) -> Result<(TaskOutcome, crate::AgentConnection), Failed> {
    let base = conn.agent().clone();
    let marks_on = client.config().suspect_marks() == SuspectMarks::On;
    let mut task = conn.dyn_task(negotiation.deployment_kind());
    task.begin_clock_at(begun);
    task.set_accepted_output_modes(negotiation.accepted().iter().cloned());
    task.set_follow_up(negotiation.follow_up_policy().clone(), negotiation.follow_up_budget());
    if let Some(on_update) = negotiation.update_observer() {
        task.set_on_update(on_update.clone());
    }
    // Single-flight: behind another task negotiating the same claims with this agent, wait for its
    // verdict (bounded); a refusal's mark then sends this task single-shot at once, below.
    let at_stake = negotiation
        .depends()
        .iter()
        .filter(|capability| task.handle().status(*capability) != ClaimStatus::Unclaimed)
        .fold(CapabilitySet::EMPTY, CapabilitySet::with);
    let wait = client.config().negotiation_wait();
    let turn = if marks_on && !wait.is_zero() && client.discovery_cache().is_suspect(&base).is_none() {
        client.discovery_cache().negotiation_turn(&base, at_stake, wait).await
    } else {
        Turn::GoOn { waited: false }
    };
    if matches!(turn, Turn::GoOn { waited: true }) {
        client.metrics().record_negotiation_waited();
    }
    if let Some(mark) = client.discovery_cache().is_suspect(&base).filter(|_| marks_on) {
        let mut single_shot = task.into_suspect_single_shot();
        let sent = answered(single_shot.send_message(message).await);
        let tried = single_shot.unreachable_interfaces().len();
        let result = sent.map_err(|error| Failed {
            error: single_shot.connection().after_failover(error.with_negotiation_round_trips(0), tried),
            before_any_answer: true,
        })?;
        let conn = single_shot.connection().clone();
        return Ok((
            TaskOutcome {
                agent: base,
                durability: Durability::NoJournal,
                path: TaskPath::SingleShotBecauseSuspect(mark),
                result,
                verified: CapabilitySet::EMPTY,
                refusal: None,
                other_refusals: Vec::new(),
                refused_task: None,
                negotiation_round_trips: 0,
                verdicts: Vec::new(),
                observations: Vec::new(),
                push_registration: Vec::new(),
                wire_deviations: Vec::new(),
                card_claims: Vec::new(),
                interface_url: conn.interface().url.clone(),
                unreachable_interfaces: single_shot.unreachable_interfaces().to_vec(),
            },
            conn,
        ));
    }
    task.depend_only_on(negotiation.depends());
    let run = drive(&mut task, message.clone(), negotiation).await;
    let round_trips = task.round_trips();
    let before_any_answer = task.state().is_none();
    // A task that moved across unreachable interfaces says how many it tried.
    let unreachable = task.unreachable_interfaces().len();
    run.map_err(|error| Failed {
        error: task.connection().after_failover(error.with_negotiation_round_trips(round_trips), unreachable),
        before_any_answer,
    })?;

    // What the run saw, read once before the settle consumes the handle; either path reports it.
    let report = {
        // One reading of the verifier, at one instant: the verdicts, and the claims they verify.
        let verifier = task.handle().verifier();
        let verdicts = verifier.verdicts(task.elapsed());
        let verified = verdicts.iter().filter(|(_, v)| v.is_verified()).map(|(c, _)| *c).collect();
        let observations = verifier.observations().to_vec();
        let agent = base.clone();
        let (push_registration, wire_deviations) =
            (task.push_registration_attempts().to_vec(), task.wire_deviations());
        let (interface_url, unreachable_interfaces) =
            (task.connection().interface().url.clone(), task.unreachable_interfaces().to_vec());
        move |path, result, refusal, other_refusals, refused_task| TaskOutcome {
            agent,
            durability: Durability::NoJournal,
            path,
            result,
            verified,
            refusal,
            other_refusals,
            refused_task,
            negotiation_round_trips: round_trips,
            verdicts,
            observations,
            push_registration,
            wire_deviations,
            card_claims: Vec::new(),
            interface_url,
            unreachable_interfaces,
        }
    };
    // The connection the task ended on: another declared interface when the first was unreachable.
    let conn = task.connection().clone();
    let refusal = match task.settle() {
        Ok(task) => {
            if let Turn::Lead(lead) = turn {
                lead.verified(task.verified().intersection(at_stake), client.config().discovery_ttl());
            }
            // Moved, not copied: a streamed result can be large, and the handle ends here.
            let result = task.into_result().ok_or_else(|| {
                Error::protocol_answer("the agent answered neither a task nor a message")
                    .with_url(base.as_str())
                    .with_negotiation_round_trips(round_trips)
            })?;
            client.metrics().record_negotiated_task();
            return Ok((report(TaskPath::Negotiated, result, None, Vec::new(), None), conn));
        }
        Err(refusal) => refusal,
    };
    // The agent is marked now: the tasks that waited for this negotiation go single-shot at once.
    if let Turn::Lead(lead) = turn {
        lead.refused();
    }
    // The settle named the deciding refusal (first by evidence) and the others: reported as given.
    let other_refusals = refusal.others().to_vec();
    let (single_shot, first) = refusal.into_parts();
    if first.advice() == Advice::Abandon {
        tracing::warn!(agent = %base.as_str(), violation = %first, "task abandoned");
        return Err(Error::from(first)
            .with_other_refusals(other_refusals)
            .with_negotiation_round_trips(round_trips)
            .into());
    }
    tracing::warn!(agent = %base.as_str(), violation = %first, "refused");
    let fallback = single_shot
        .fall_back(message, negotiation.after_refusal_policy())
        .await
        .map_err(|error| error.with_negotiation_round_trips(round_trips))?;
    let refused = Some(first);
    Ok(match fallback {
        // Finished work is never sent again: its result is the outcome's.
        Fallback::Kept(result) => {
            (report(TaskPath::KeptAfterRefusal, result, refused, other_refusals, None), conn)
        }
        Fallback::Sent { answer, refused_task } => (
            report(TaskPath::Fallback, answer, refused, other_refusals, refused_task.map(|task| *task)),
            conn,
        ),
        Fallback::EndedWithRefusal(task) => {
            let result = a2a_typestate_types::SendMessageResponse::Task(task);
            (report(TaskPath::EndedWithRefusal, result, refused, other_refusals, None), conn)
        }
    })
}

/// The negotiated path, over the handle's calls: turns until the task ends, a claim is refused, or
/// no answer is left to give; then the history the caller relies on, then the push callback.
///
/// A capability the caller depends on but the card does not claim is still used when the agent
/// offers it (under-declaring is safe): the stream is tried and the webhook offered, unchecked;
/// an agent that answers "not supported" is polled, or sent the message without the webhook.
async fn drive(task: &mut DynTask, message: Message, negotiation: &Negotiation) -> Result<(), Error> {
    let holds = |task: &DynTask, capability| task.handle().status(capability) != ClaimStatus::Unclaimed;
    let depends = negotiation.depends();
    task.set_history_length(negotiation.history_len());
    if depends.contains(Capability::PushNotifications) {
        let receiver = match negotiation.receiver() {
            Some(shared) => shared.clone(),
            None => task.connection().client().shared_push_receiver().await?,
        };
        if holds(task, Capability::PushNotifications) {
            task.watch_push(receiver)?;
        } else {
            task.watch_push_unclaimed(receiver)?;
        }
    }
    let mut unclaimed_stream = depends.contains(Capability::Streaming)
        && negotiation.tries_unclaimed_stream()
        && !holds(task, Capability::Streaming);
    let mut next = Some(message);
    let mut follow_ups = task.follow_ups();
    while let Some(message) = next.take() {
        let turn = if holds(task, Capability::Streaming) {
            task.send_streaming_message(message).await
        } else if unclaimed_stream {
            match task.send_streaming_unclaimed(message.clone()).await {
                Err(error)
                    if error.protocol_error().is_some_and(|p| p.is_unsupported_operation())
                        || error.is_method_missing() =>
                {
                    // It does not stream, as its card said ("not supported", or no such method:
                    // if the binding were the trouble, the send says so): poll this turn and the
                    // next ones.
                    unclaimed_stream = false;
                    task.send_message(message).await
                }
                other => other,
            }
        } else {
            task.send_message(message).await
        };
        // An answer that contradicted a claim ends the path; the settle reads the refusal. A task
        // that had ended still has its other claims checked, so the outcome names every claim it
        // contradicts, not only the first.
        if turn?.is_contradicted() {
            if task.state().is_some_and(|state| state.is_terminal()) {
                check_after_end(task, negotiation, true).await?;
            }
            return Ok(());
        }
        // The policy and budget `run_task` set on the task from `negotiation`.
        if let Some(request) = task.input_request() {
            next = follow_ups.answer(&request);
        }
    }
    check_after_end(task, negotiation, false).await
}

/// The claims checked once the task ended: the history the caller relies on (when not fetched
/// yet), then the push callback. After a refusal (`refused`), each is still checked so the outcome
/// names every contradicted claim, and a call that fails is only logged: the refusal already
/// decides the run, and the task's result is not lost to a later fault; only a task that had ended
/// is checked then (one that had not exercised neither claim).
async fn check_after_end(task: &mut DynTask, negotiation: &Negotiation, refused: bool) -> Result<(), Error> {
    let ended = task.state().is_some_and(|state| state.is_terminal());
    if ended
        && task.handle().status(Capability::StateTransitionHistory) != ClaimStatus::Unclaimed
        && !task.history_fetched()
    {
        match task.get_task_history(negotiation.history_len()).await {
            Ok(_) => {}
            Err(error) if refused => {
                tracing::debug!(%error, "the history after a refusal could not be read; the refusal stands");
            }
            Err(error) => return Err(error),
        }
    }
    if ended || !refused {
        task.await_push_callback().await;
    }
    Ok(())
}

/// The single-shot send's answer: a single-shot handle holds no claim, so nothing is contradicted.
fn answered(
    answer: Result<crate::Answer<a2a_typestate_types::SendMessageResponse>, Error>,
) -> Result<a2a_typestate_types::SendMessageResponse, Error> {
    match answer? {
        crate::Answer::Answered(response) => Ok(response),
        crate::Answer::Contradicted(violation) => Err(Error::from(violation)),
    }
}
