//! Clauses of the refusal rules and of the lifecycle that no other test pinned down: a mutant of
//! `verify.rs`, `lifecycle.rs` or `card.rs` survived the test suite for each of them (see
//! `docs/mutation-testing.md`). Each test is named after the rule it checks.

mod support;

use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{
    Advice, Bounds, Call, Capability, CapabilitySet, CardClaims, Channel, Contradiction, Deployment,
    DynHandle, ExchangeModes, Lifecycle, LifecycleFault, ObserveError, Observed, PendingReason,
    TransitionRule, TransportFault, Verdict, Verifier,
};
use a2a_typestate_types::TaskState::{self, *};
use a2a_typestate_types::{ContextId, TaskId};
use support::*;

/// The reason a verdict is pending, or a panic naming what it was instead.
fn pending_reason(verdict: Option<Verdict>) -> PendingReason {
    match verdict {
        Some(Verdict::Pending(pending)) => pending.reason().clone(),
        other => panic!("expected a pending verdict, got {other:?}"),
    }
}

/// A verifier for a caller depending on every claim of the all-claiming card, fed `events`.
fn judged(events: impl IntoIterator<Item = Observed>) -> Verifier {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, events);
    verifier
}

fn fault(call: Call) -> Observed {
    Observed::TransportFault { call, fault: TransportFault::Unavailable(503) }
}

// The card.

#[test]
fn a_card_reached_directly_without_the_gateway_extension_is_no_gateway() {
    let claims = claims(ALL_CLAIMS);
    assert!(!claims.is_gateway());
    assert_eq!(claims.declared(), CapabilitySet::ALL);
}

/// Condition 3 reads `defaultOutputModes`: a message accepting a declared output type reaches the
/// transition through the card's modes, so the contradiction refuses.
#[test]
fn a_transition_reached_accepting_a_declared_output_mode_refuses() {
    let card = card_json(ALL_CLAIMS, &["text/plain"], &["application/json"]);
    let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
    assert_eq!(claims.default_output_modes(), ["application/json"]);
    let mut verifier = Verifier::new(claims, CapabilitySet::ALL, Bounds::default());
    let wants_json = Observed::MessageSent {
        modes: ExchangeModes::new(["text/plain"], ["application/json"]),
        task_id: None,
        context_id: None,
    };
    feed(&mut verifier, [wants_json, Observed::History { requested_length: None, entries: 0 }]);
    let violation = verifier.refusal(secs(1)).expect("refused: reached through the declared modes");
    assert_eq!(violation.contradiction(), &Contradiction::EmptyHistory);
}

// The lifecycle.

#[test]
fn only_another_task_or_context_is_a_question_of_identity() {
    assert!(TransitionRule::OtherTask.is_about_identity());
    assert!(TransitionRule::OtherContext.is_about_identity());
    for rule in [
        TransitionRule::UnspecifiedState,
        TransitionRule::TerminalIsFinal,
        TransitionRule::NoReturnToSubmitted,
        TransitionRule::InputRequiredNeedsFollowUp,
    ] {
        assert!(!rule.is_about_identity(), "{rule:?}");
    }
}

/// Push is unordered, so an out-of-order state is only stale; a delivery naming another task is
/// still a deviation.
#[test]
fn a_push_delivery_about_another_task_is_rejected_not_taken_as_stale() {
    let mut task = DynHandle::new(claims(r#"{"pushNotifications":true}"#), Bounds::default());
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), snapshot(Working, Channel::SendResponse, 0)).unwrap();
    let other = Observed::Status {
        task_id: TaskId::new("another-task"),
        context_id: Some(context_id()),
        state: Completed,
        message: None,
        via: Channel::Push,
        artifacts: None,
    };
    let err = task.observe(ms(2), other).unwrap_err();
    assert!(matches!(&err, ObserveError::Transition(e) if e.rule == TransitionRule::OtherTask), "{err:?}");
    assert_eq!(task.state(), Some(Working));
}

fn ids() -> (TaskId, ContextId) {
    (task_id(), context_id())
}

fn lifecycle_through(states: &[TaskState]) -> Lifecycle {
    let (task, ctx) = ids();
    let mut lifecycle = Lifecycle::new();
    for &state in states {
        lifecycle.advance(&task, Some(&ctx), state).unwrap();
    }
    lifecycle
}

/// The answer to `INPUT_REQUIRED` is a message sent after the question: a refinement sent while
/// the task was working does not answer it.
#[test]
fn a_follow_up_sent_before_input_required_does_not_answer_it() {
    let (task, ctx) = ids();
    let mut lifecycle = lifecycle_through(&[Working]);
    lifecycle.follow_up(&task, &ctx).unwrap();
    lifecycle.advance(&task, Some(&ctx), InputRequired).unwrap();
    let err = lifecycle.advance(&task, Some(&ctx), Working).unwrap_err();
    assert_eq!(err.rule, TransitionRule::InputRequiredNeedsFollowUp);
}

/// Leaving input-required spends the follow-up: nothing of it is left in the lifecycle, which is
/// then the same as one that never waited for an answer.
#[test]
fn leaving_input_required_spends_the_follow_up() {
    let (task, ctx) = ids();
    let mut answered = lifecycle_through(&[Working, InputRequired]);
    answered.follow_up(&task, &ctx).unwrap();
    answered.advance(&task, Some(&ctx), Working).unwrap();
    assert_eq!(answered, lifecycle_through(&[Working, AuthRequired, Working]));
}

// The verifier's bookkeeping.

#[test]
fn the_verifier_and_the_push_permit_use_the_bounds_the_caller_set() {
    let bounds = Bounds::default().with_push_arrival(secs(3)).with_unobservable(secs(7));
    let verifier = Verifier::new(claims(ALL_CLAIMS), CapabilitySet::ALL, bounds);
    assert_eq!(verifier.bounds(), bounds);
    let task = DynHandle::new(claims(ALL_CLAIMS), bounds);
    assert_eq!(task.push_permit().unwrap().arrival_bound(), secs(3));
}

/// Condition 1 after narrowing: a claim the caller no longer depends on is not checked, so its
/// contradiction refuses nothing.
#[test]
fn a_claim_the_caller_stops_depending_on_is_no_longer_checked() {
    let mut task = DynHandle::new(claims(ALL_CLAIMS), Bounds::default());
    task.depend_only_on(CapabilitySet::of(&[Capability::Streaming]));
    assert_eq!(task.verifier().checked(), CapabilitySet::of(&[Capability::Streaming]));
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), Observed::History { requested_length: None, entries: 0 }).unwrap();
    assert_eq!(task.verifier().verdict(Capability::StateTransitionHistory, secs(1)), None);
    assert_eq!(task.verifier().refusal(secs(1)), None);
}

#[test]
fn each_observation_gets_the_sequence_number_its_evidence_cites() {
    let mut verifier = verifier(ALL_CLAIMS);
    assert_eq!(verifier.observe(ms(0), sent_text()), 0);
    assert_eq!(verifier.observe(ms(1), snapshot(InputRequired, Channel::SendResponse, 0)), 1);
    let seq = verifier.observe(ms(2), Observed::History { requested_length: None, entries: 0 });
    assert_eq!(seq, 2);
    assert_eq!(verifier.refusal(secs(1)).expect("refused").evidence().seq, seq);
}

// Lifecycle faults.

#[test]
fn no_progress_for_exactly_the_bound_is_not_yet_a_lifecycle_fault() {
    let mut verifier = verifier(ALL_CLAIMS);
    verifier.observe(secs(5), sent_text());
    let bound = Bounds::default().unobservable();
    assert_eq!(verifier.lifecycle_deadline(), Some(secs(5) + bound));
    assert_eq!(verifier.lifecycle_fault(secs(5) + bound), None, "the bound itself is allowed");
    let fault = verifier.lifecycle_fault(secs(5) + bound + Duration::from_nanos(1));
    assert!(matches!(fault, Some(LifecycleFault::NoProgress { since, .. }) if since == secs(5)), "{fault:?}");
}

/// Push is at-least-once and unordered, so a state delivered by push is no progress: the bound
/// runs from the last ordered observation.
#[test]
fn a_state_delivered_by_push_is_no_progress() {
    let mut verifier = verifier(ALL_CLAIMS);
    verifier.observe(secs(0), sent_text());
    verifier.observe(secs(1), snapshot(Working, Channel::GetTask, 0));
    verifier.observe(secs(20), status(InputRequired, Channel::Push));
    let fault = verifier.lifecycle_fault(secs(32)).expect("no ordered progress since 1 s");
    assert!(
        matches!(fault, LifecycleFault::NoProgress { state: Some(Working), since, .. } if since == secs(1)),
        "{fault:?}"
    );
}

// What a pending claim reports.

/// A fault is advice to retry only while it is the latest thing that happened on the claim's calls:
/// once the stream came back, or closed cleanly, the claim waits for its own reason again.
#[test]
fn a_transport_fault_holds_a_claim_up_only_while_nothing_came_after_it() {
    let reattached =
        judged([sent_text(), fault(Call::SendStreamingMessage), status(Working, Channel::Stream)]);
    assert_eq!(
        pending_reason(reattached.verdict(Capability::Streaming, secs(1))),
        PendingReason::AwaitingTerminal
    );

    let closed = judged([sent_text(), fault(Call::SubscribeToTask), Observed::StreamClosed]);
    assert_eq!(pending_reason(closed.verdict(Capability::Streaming, secs(1))), PendingReason::NotExercised);
}

/// A fault or an error on a call that does not exercise the claim says nothing about it.
#[test]
fn a_fault_or_error_on_a_call_that_does_not_exercise_the_claim_leaves_it_not_exercised() {
    let polled = judged([sent_text(), fault(Call::GetTask)]);
    assert_eq!(pending_reason(polled.verdict(Capability::Streaming, secs(1))), PendingReason::NotExercised);

    let other_error = judged([sent_text(), Observed::AgentError { call: Call::GetTask, code: -32001 }]);
    let verdict = other_error.verdict(Capability::Streaming, secs(1));
    assert_eq!(pending_reason(verdict), PendingReason::NotExercised);
}

/// The `GetTask` that decides a streamed terminal state without artifacts is retried when it
/// faults.
#[test]
fn a_fault_on_the_get_task_that_confirms_streamed_artifacts_is_retried() {
    let verifier = judged([
        sent_text(),
        status(Working, Channel::Stream),
        status(Completed, Channel::Stream),
        fault(Call::GetTask),
    ]);
    let verdict = verifier.verdict(Capability::Streaming, secs(1));
    assert_eq!(verdict.as_ref().map(Verdict::advice), Some(Advice::Retry), "{verdict:?}");
}

#[test]
fn a_fault_on_the_get_task_that_fetches_the_history_is_retried() {
    let verifier = judged([sent_text(), snapshot(Completed, Channel::SendResponse, 1), fault(Call::GetTask)]);
    let verdict = verifier.verdict(Capability::StateTransitionHistory, secs(1));
    assert!(matches!(pending_reason(verdict), PendingReason::TransportFault { call: Call::GetTask, .. }));
}

#[test]
fn a_fault_on_the_push_config_call_is_retried() {
    let verifier = judged([sent_text(), fault(Call::PushNotificationConfig)]);
    let verdict = verifier.verdict(Capability::PushNotifications, secs(1));
    assert!(matches!(
        pending_reason(verdict),
        PendingReason::TransportFault { call: Call::PushNotificationConfig, .. }
    ));
}

// Streaming.

/// Only a stream cut before its terminal state may have lost the artifact in transit; a cut after
/// it excuses nothing.
#[test]
fn a_stream_cut_after_its_terminal_state_still_owes_the_artifact() {
    let verifier = judged([
        sent_text(),
        status(Working, Channel::Stream),
        status(Completed, Channel::Stream),
        Observed::TransportFault { call: Call::SendStreamingMessage, fault: TransportFault::Reset },
        fault(Call::GetTask),
        snapshot(Completed, Channel::GetTask, 1),
    ]);
    let violation = verifier.refusal(secs(1)).expect("refused");
    assert_eq!(violation.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
}

/// The first `GetTask` after the streamed terminal state settles the streaming claim; one before
/// it confirms nothing, one after it changes nothing.
#[test]
fn only_the_first_get_task_after_the_streamed_terminal_state_confirms_its_artifacts() {
    let early =
        judged([sent_text(), snapshot(Working, Channel::GetTask, 1), status(Completed, Channel::Stream)]);
    let verdict = early.verdict(Capability::Streaming, secs(1));
    assert_eq!(pending_reason(verdict), PendingReason::ArtifactsUnconfirmed);

    let twice = judged([
        sent_text(),
        status(Completed, Channel::Stream),
        snapshot(Completed, Channel::GetTask, 1),
        snapshot(Completed, Channel::GetTask, 0),
    ]);
    let violation = twice.refusal(secs(1)).expect("the first GetTask showed the artifact");
    assert_eq!(violation.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
}

// Push.

/// Only the push-config call answered `PushNotificationNotSupportedError` before a config was
/// accepted contradicts the claim.
#[test]
fn only_push_not_supported_before_any_accepted_config_contradicts_a_push_claim() {
    let other_error =
        judged([sent_text(), Observed::AgentError { call: Call::PushNotificationConfig, code: -32001 }]);
    let verdict = other_error.verdict(Capability::PushNotifications, secs(1));
    assert!(matches!(pending_reason(verdict), PendingReason::ProtocolError { code: -32001, .. }));

    let after_registration = judged([
        sent_text(),
        Observed::PushRegistered,
        Observed::AgentError { call: Call::PushNotificationConfig, code: -32003 },
    ]);
    let verdict = after_registration.verdict(Capability::PushNotifications, secs(1));
    assert_eq!(pending_reason(verdict), PendingReason::AwaitingPushCallback { deadline: None });
}

fn registered_then_completed_at(ended: Duration) -> Verifier {
    let mut verifier =
        judged([sent_text(), Observed::PushRegistered, snapshot(Working, Channel::SendResponse, 0)]);
    verifier.observe(ended, snapshot(Completed, Channel::GetTask, 1));
    verifier
}

#[test]
fn a_push_callback_exactly_at_the_bound_after_the_terminal_transition_honours_the_claim() {
    let mut verifier = registered_then_completed_at(secs(20));
    let bound = Bounds::default().push_arrival();
    verifier.observe(secs(20) + bound, Observed::PushCallback { state: Some(Completed) });
    assert!(verifier.verdict(Capability::PushNotifications, secs(60)).is_some_and(|v| v.is_verified()));
}

/// The callback is owed from the first accepted registration: registering again after the task
/// ended does not turn it into "nothing left to push".
#[test]
fn registering_again_after_the_task_ended_does_not_excuse_the_missing_callback() {
    let mut verifier = registered_then_completed_at(secs(20));
    verifier.observe(secs(21), Observed::PushRegistered);
    let verdict = verifier.verdict(Capability::PushNotifications, secs(31));
    assert!(verdict.as_ref().and_then(Verdict::violation).is_some(), "{verdict:?}");
}

/// A config the agent dropped before the task ended registered nothing: no callback is owed.
#[test]
fn a_config_the_agent_dropped_is_owed_no_callback() {
    let mut verifier = judged([
        sent_text(),
        Observed::PushRegistered,
        Observed::PushDropped,
        snapshot(Working, Channel::SendResponse, 0),
    ]);
    verifier.observe(secs(20), snapshot(Completed, Channel::GetTask, 1));
    let verdict = verifier.verdict(Capability::PushNotifications, secs(60));
    assert_eq!(pending_reason(verdict), PendingReason::NotExercised);
}

/// An agent may delete a finished task's config: finding it gone after the terminal transition
/// does not excuse the callback that was owed before.
#[test]
fn a_config_found_gone_after_the_task_ended_does_not_excuse_the_missing_callback() {
    let mut verifier = registered_then_completed_at(secs(20));
    verifier.observe(secs(22), Observed::PushDropped);
    let verdict = verifier.verdict(Capability::PushNotifications, secs(31));
    assert!(
        matches!(
            verdict.as_ref().and_then(Verdict::violation).map(|v| v.contradiction()),
            Some(Contradiction::NoPushCallback { .. })
        ),
        "{verdict:?}"
    );
}
