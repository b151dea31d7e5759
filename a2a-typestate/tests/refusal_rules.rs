//! The refusal rules, one test per clause. Each test is named after the rule it checks.

mod support;

use std::time::Duration;

use a2a_typestate::{
    Advice, Bounds, Call, Capability, CapabilitySet, Channel, Contradiction, LifecycleFault, Observed,
    PendingReason, TransportFault, Verdict, Verifier,
};
use a2a_typestate_types::TaskState::*;
use support::*;

/// The capabilities JSON for a card declaring exactly `declared`.
fn capabilities(declared: CapabilitySet) -> String {
    format!(
        r#"{{"streaming":{},"stateTransitionHistory":{},"pushNotifications":{}}}"#,
        declared.contains(Capability::Streaming),
        declared.contains(Capability::StateTransitionHistory),
        declared.contains(Capability::PushNotifications),
    )
}

/// One lying run per capability: (capability, events after the first message, when to judge).
fn lies() -> Vec<(Capability, &'static str, Vec<Observed>, Duration)> {
    vec![
        (
            Capability::Streaming,
            "streaming call answered -32004",
            vec![Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 }],
            secs(1),
        ),
        (
            Capability::Streaming,
            "terminal state streamed without the artifact GetTask has",
            vec![
                snapshot(Submitted, Channel::Stream, 0),
                status(Working, Channel::Stream),
                status(Completed, Channel::Stream),
                Observed::StreamClosed,
                snapshot(Completed, Channel::GetTask, 1),
            ],
            secs(1),
        ),
        (
            Capability::StateTransitionHistory,
            "empty history when relied on",
            vec![
                snapshot(InputRequired, Channel::SendResponse, 0),
                Observed::History { requested_length: None, entries: 0 },
            ],
            secs(1),
        ),
        (
            Capability::PushNotifications,
            "no callback within the bound of the terminal transition",
            vec![
                Observed::PushRegistered,
                snapshot(Working, Channel::SendResponse, 0),
                snapshot(Completed, Channel::GetTask, 1),
            ],
            secs(11),
        ),
        (
            Capability::PushNotifications,
            "push-config call answered -32003",
            vec![Observed::AgentError { call: Call::PushNotificationConfig, code: -32003 }],
            secs(1),
        ),
    ]
}

fn judge(
    declared: CapabilitySet,
    depends_on: CapabilitySet,
    first_message: Observed,
    events: &[Observed],
    capability: Capability,
    now: Duration,
) -> Option<Verdict> {
    let mut verifier = Verifier::new(claims(&capabilities(declared)), depends_on, Bounds::default());
    feed(&mut verifier, std::iter::once(first_message).chain(events.iter().cloned()));
    verifier.verdict(capability, now)
}

#[test]
fn all_three_conditions_together_refuse() {
    for (capability, lie, events, now) in lies() {
        let verdict = judge(CapabilitySet::ALL, CapabilitySet::ALL, sent_text(), &events, capability, now);
        let violation = verdict.as_ref().and_then(Verdict::violation);
        assert!(violation.is_some(), "{lie}: expected a refusal, got {verdict:?}");
        assert_eq!(violation.map(|v| v.capability()), Some(capability), "{lie}");
    }
}

#[test]
fn without_the_card_declaring_the_capability_there_is_no_refusal() {
    for (capability, lie, events, now) in lies() {
        let declared = CapabilitySet::ALL.without(capability);
        let verdict = judge(declared, CapabilitySet::ALL, sent_text(), &events, capability, now);
        assert_eq!(verdict, None, "{lie}: an undeclared capability is not checked at all");
    }
}

#[test]
fn without_the_caller_depending_on_the_capability_there_is_no_refusal() {
    for (capability, lie, events, now) in lies() {
        let depends_on = CapabilitySet::ALL.without(capability);
        let verdict = judge(CapabilitySet::ALL, depends_on, sent_text(), &events, capability, now);
        assert_eq!(verdict, None, "{lie}: a claim the caller does not depend on is not checked");
    }
}

#[test]
fn without_a_contradicting_transition_there_is_no_refusal() {
    let honest: Vec<(Capability, Vec<Observed>, Duration)> = vec![
        (
            Capability::Streaming,
            vec![
                snapshot(Submitted, Channel::Stream, 0),
                status(Working, Channel::Stream),
                Observed::Artifact { via: Channel::Stream },
                status(Completed, Channel::Stream),
            ],
            secs(1),
        ),
        (
            Capability::StateTransitionHistory,
            vec![
                snapshot(InputRequired, Channel::SendResponse, 0),
                Observed::History { requested_length: None, entries: 3 },
            ],
            secs(1),
        ),
        (
            Capability::PushNotifications,
            vec![Observed::PushRegistered, Observed::PushCallback { state: Some(Working) }],
            secs(11),
        ),
    ];
    for (capability, events, now) in honest {
        let verdict = judge(CapabilitySet::ALL, CapabilitySet::ALL, sent_text(), &events, capability, now);
        assert!(matches!(verdict, Some(Verdict::Verified(_))), "{capability}: {verdict:?}");
    }
}

/// `true` for a lie that is the agent's own "not supported" to the capability's own call.
fn says_unsupported(events: &[Observed]) -> bool {
    matches!(events, [Observed::AgentError { .. }])
}

#[test]
fn transition_reached_through_an_undeclared_media_type_does_not_refuse() {
    for (capability, lie, events, now) in
        lies().into_iter().filter(|(_, _, events, _)| !says_unsupported(events))
    {
        let verdict =
            judge(CapabilitySet::ALL, CapabilitySet::ALL, sent(&["image/png"]), &events, capability, now);
        let Some(Verdict::Pending(pending)) = &verdict else {
            panic!("{lie}: expected pending, got {verdict:?}")
        };
        let PendingReason::OutsideDeclaredModes { divergence } = pending.reason() else {
            panic!("{lie}: expected the modes to be named, got {pending:?}")
        };
        assert_eq!(divergence.capability(), capability, "the divergence is kept for the caller to log");
    }
}

#[test]
fn the_agents_own_not_supported_refuses_whatever_the_media_types() {
    // BeeAI's card takes `text`, and its push-config call answers -32004: the answer is about the
    // call, so the message's media types do not matter (clause 3 reads exchanges only).
    let own_call_lies: Vec<_> =
        lies().into_iter().filter(|(_, _, events, _)| says_unsupported(events)).collect();
    assert!(!own_call_lies.is_empty());
    for (capability, lie, events, now) in own_call_lies {
        for input in ["image/png", "text/plain"] {
            let verdict =
                judge(CapabilitySet::ALL, CapabilitySet::ALL, sent(&[input]), &events, capability, now);
            assert!(
                verdict.as_ref().and_then(Verdict::violation).is_some(),
                "{lie} after {input}: {verdict:?}"
            );
        }
    }
}

#[test]
fn push_config_answered_unsupported_operation_refuses_push() {
    let events = [Observed::AgentError { call: Call::PushNotificationConfig, code: -32004 }];
    let verdict = judge(
        CapabilitySet::ALL,
        CapabilitySet::ALL,
        sent_text(),
        &events,
        Capability::PushNotifications,
        secs(1),
    );
    let violation =
        verdict.as_ref().and_then(Verdict::violation).expect("-32004 to the push-config call refuses");
    assert_eq!(
        violation.contradiction(),
        &Contradiction::AgentSaysUnsupported { call: Call::PushNotificationConfig, code: -32004 }
    );
}

#[test]
fn a_card_writing_text_for_text_plain_reaches_its_lies() {
    // `text` is how cards in the wild write plain text: a text/plain message is in that mode.
    let mut verifier = Verifier::new(
        std::sync::Arc::new(a2a_typestate::CardClaims::lift(
            &card_json(&capabilities(CapabilitySet::ALL), &["text"], &["text"]),
            a2a_typestate::Deployment::Direct,
        )),
        CapabilitySet::ALL,
        Bounds::default(),
    );
    let (capability, lie, events, now) = lies().remove(1);
    feed(&mut verifier, std::iter::once(sent_text()).chain(events));
    assert!(verifier.verdict(capability, now).as_ref().and_then(Verdict::violation).is_some(), "{lie}");
}

#[test]
fn transition_accepting_only_undeclared_output_modes_does_not_refuse() {
    let wants_audio = Observed::MessageSent {
        modes: a2a_typestate::ExchangeModes::new(["text/plain"], ["audio/mpeg"]),
        task_id: None,
        context_id: None,
    };
    let (capability, _, events, now) = lies().remove(1);
    let verdict = judge(CapabilitySet::ALL, CapabilitySet::ALL, wants_audio, &events, capability, now);
    assert!(verdict.as_ref().and_then(Verdict::violation).is_none(), "{verdict:?}");
}

#[test]
fn divergence_with_no_sent_message_on_record_does_not_refuse() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            snapshot(Working, Channel::SendResponse, 0),
            Observed::History { requested_length: None, entries: 0 },
        ],
    );
    let verdict = verifier.verdict(Capability::StateTransitionHistory, secs(1));
    assert!(
        matches!(&verdict, Some(Verdict::Pending(p)) if matches!(p.reason(), PendingReason::ModesUnknown { .. })),
        "{verdict:?}"
    );
}

#[test]
fn transport_faults_are_retryable_and_never_a_refusal() {
    let faults = [
        TransportFault::Reset,
        TransportFault::Unavailable(502),
        TransportFault::Unavailable(503),
        TransportFault::Unavailable(504),
        TransportFault::Timeout,
    ];
    for fault in faults {
        let mut verifier = verifier(ALL_CLAIMS);
        feed(
            &mut verifier,
            [
                sent_text(),
                snapshot(Submitted, Channel::Stream, 0),
                status(Working, Channel::Stream),
                Observed::TransportFault { call: Call::SendStreamingMessage, fault },
            ],
        );
        let Some(Verdict::Pending(pending)) = verifier.verdict(Capability::Streaming, secs(3600)) else {
            panic!("{fault}: a transport fault must leave the claim pending")
        };
        assert!(pending.is_transport_fault(), "{fault}: {pending}");
        assert_eq!(pending.advice(), Advice::Retry, "{fault}");
        assert_eq!(verifier.refusal(secs(3600)), None, "{fault}");
    }
}

#[test]
fn transport_fault_on_the_first_streaming_call_is_retried_not_refused() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            Observed::TransportFault {
                call: Call::SendStreamingMessage,
                fault: TransportFault::Unavailable(502),
            },
        ],
    );
    let verdict = verifier.verdict(Capability::Streaming, secs(60));
    assert_eq!(verdict.map(|v| v.advice()), Some(Advice::Retry));
}

#[test]
fn a_first_working_state_alone_never_refuses() {
    for via in [Channel::Stream, Channel::SendResponse, Channel::GetTask] {
        let mut verifier = verifier(ALL_CLAIMS);
        feed(&mut verifier, [sent_text(), status(Working, via)]);
        for (capability, verdict) in verifier.verdicts(secs(24 * 3600)) {
            assert!(verdict.violation().is_none(), "{capability} via {via:?}: {verdict:?}");
            assert_eq!(verdict.advice(), Advice::KeepObserving, "{capability} via {via:?}");
        }
    }
}

#[test]
fn streamed_terminal_without_artifact_only_retrievable_with_get_task_is_refused() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            snapshot(Submitted, Channel::Stream, 0),
            status(Working, Channel::Stream),
            status(Completed, Channel::Stream),
        ],
    );
    let before = verifier.verdict(Capability::Streaming, secs(1));
    assert_eq!(before.map(|v| v.advice()), Some(Advice::ConfirmWithGetTask), "one GetTask decides");

    verifier.observe(ms(10), snapshot(Completed, Channel::GetTask, 1));
    let Some(Verdict::Refused(violation)) = verifier.verdict(Capability::Streaming, secs(1)) else {
        panic!("expected a refusal")
    };
    assert_eq!(violation.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
    assert_eq!(violation.evidence().seq, 3, "the evidence is the terminal transition on the stream");
    assert_eq!(violation.evidence().observed, status(Completed, Channel::Stream));
    assert_eq!(violation.advice(), Advice::FallBackToSingleShot);
}

#[test]
fn streamed_terminal_without_artifacts_anywhere_is_honest() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            status(Working, Channel::Stream),
            status(Failed, Channel::Stream),
            snapshot(Failed, Channel::GetTask, 0),
        ],
    );
    assert!(verifier.verdict(Capability::Streaming, secs(1)).is_some_and(|v| v.is_verified()));
}

#[test]
fn artifact_in_a_streamed_task_snapshot_counts_as_streamed() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [sent_text(), snapshot(Completed, Channel::Stream, 2), snapshot(Completed, Channel::GetTask, 2)],
    );
    assert!(verifier.verdict(Capability::Streaming, secs(1)).is_some_and(|v| v.is_verified()));
}

#[test]
fn empty_history_when_relied_on_is_refused_with_abandon_do_not_retry() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            snapshot(InputRequired, Channel::SendResponse, 0),
            Observed::History { requested_length: Some(10), entries: 0 },
        ],
    );
    let verdict = verifier.verdict(Capability::StateTransitionHistory, secs(1));
    let violation = verdict.as_ref().and_then(Verdict::violation).expect("refused");
    assert_eq!(violation.contradiction(), &Contradiction::EmptyHistory);
    assert_eq!(violation.advice(), Advice::Abandon);
    assert_eq!(verdict.map(|v| v.advice()), Some(Advice::Abandon));
}

#[test]
fn asking_for_history_length_zero_is_not_relying_on_history() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), Observed::History { requested_length: Some(0), entries: 0 }]);
    let verdict = verifier.verdict(Capability::StateTransitionHistory, secs(1));
    assert!(
        matches!(&verdict, Some(Verdict::Pending(p)) if *p.reason() == PendingReason::NotExercised),
        "{verdict:?}"
    );
}

#[test]
fn only_the_first_exercising_transition_settles_a_claim() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            Observed::History { requested_length: None, entries: 2 },
            Observed::History { requested_length: None, entries: 0 },
        ],
    );
    let verdict = verifier.verdict(Capability::StateTransitionHistory, secs(1));
    assert!(verdict.as_ref().is_some_and(Verdict::is_verified), "{verdict:?}");
}

#[test]
fn no_streaming_and_no_poll_cadence_makes_working_past_the_bound_a_lifecycle_fault_not_a_transport_fault() {
    let mut verifier = Verifier::new(
        claims(r#"{"streaming":false}"#),
        CapabilitySet::ALL,
        Bounds::default().with_unobservable(secs(30)),
    );
    assert_eq!(
        verifier.poll_interval(),
        Bounds::default().poll_interval(),
        "the client's bounded interval applies"
    );
    feed(&mut verifier, [sent_text(), snapshot(Working, Channel::SendResponse, 0)]);
    for poll in 1..=15 {
        verifier.observe(secs(2 * poll), snapshot(Working, Channel::GetTask, 0));
    }
    assert_eq!(verifier.lifecycle_fault(secs(30)), None, "within the bound: honest but slow");
    let fault = verifier.lifecycle_fault(secs(31)).expect("working past the bound is a lifecycle fault");
    assert_eq!(fault.advice(), Advice::Abandon, "not Retry: it is no transport fault");
    assert!(verifier.verdicts(secs(31)).is_empty(), "the card claimed nothing, so nothing is refused");
}

#[test]
fn working_that_moves_on_within_the_bound_is_no_lifecycle_fault() {
    let mut verifier = verifier(r#"{}"#);
    feed(&mut verifier, [sent_text(), snapshot(Working, Channel::SendResponse, 0)]);
    verifier.observe(secs(20), snapshot(Completed, Channel::GetTask, 1));
    assert_eq!(verifier.lifecycle_fault(secs(600)), None);
}

#[test]
fn a_declared_poll_cadence_sets_the_interval_but_no_progress_past_the_bound_is_still_a_fault() {
    let extension = format!(
        r#"{{"extensions":[{{"uri":"{}","params":{{"intervalMs":500}}}}]}}"#,
        a2a_typestate::POLL_CADENCE_EXTENSION_URI
    );
    let mut verifier = verifier(&extension);
    assert_eq!(verifier.poll_interval(), ms(500));
    feed(&mut verifier, [sent_text(), snapshot(Working, Channel::SendResponse, 0)]);
    for poll in 1..=60 {
        verifier.observe(ms(500 * poll), snapshot(Working, Channel::GetTask, 0));
    }
    let bound = Bounds::default().unobservable();
    assert_eq!(verifier.lifecycle_fault(bound), None, "within the bound: honest but slow");
    let fault = verifier.lifecycle_fault(bound + secs(1)).expect("the same state past the bound");
    assert!(matches!(fault, LifecycleFault::NoProgress { state: Some(Working), .. }), "{fault:?}");
}

#[test]
fn progress_on_any_channel_restarts_the_unobservable_bound() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), status(Submitted, Channel::Stream)]);
    verifier.observe(secs(25), status(Working, Channel::Stream));
    verifier.observe(secs(50), Observed::Artifact { via: Channel::Stream });
    assert_eq!(verifier.lifecycle_fault(secs(79)), None, "an artifact is progress");
    verifier.observe(secs(70), status(Working, Channel::Stream));
    assert!(
        matches!(verifier.lifecycle_fault(secs(81)), Some(LifecycleFault::NoProgress { since, .. }) if since == secs(50)),
        "an identical WORKING event is no progress"
    );
    assert_eq!(verifier.lifecycle_deadline(), Some(secs(80)));
}

#[test]
fn the_same_question_after_the_answer_is_no_progress() {
    let mut verifier = verifier(ALL_CLAIMS);
    let asked = || Observed::Status {
        task_id: task_id(),
        context_id: Some(context_id()),
        state: InputRequired,
        message: Some(a2a_typestate_types::MessageId::new("q1")),
        via: Channel::GetTask,
        artifacts: Some(0),
    };
    feed(&mut verifier, [sent_text(), asked()]);
    verifier.observe(secs(1), follow_up());
    verifier.observe(secs(2), asked());
    let fault = verifier.lifecycle_fault(secs(32)).expect("the answer changed nothing");
    assert!(
        matches!(fault, LifecycleFault::NoProgress { state: Some(InputRequired), since, .. } if since == secs(1)),
        "{fault:?}"
    );
    assert!(
        fault.to_string().contains("input-required") || fault.to_string().contains("INPUT_REQUIRED"),
        "{fault}"
    );
}

#[test]
fn the_task_deadline_ends_a_task_that_keeps_progressing() {
    let bounds = Bounds::default().with_task_deadline(secs(60));
    let mut verifier = Verifier::new(claims(ALL_CLAIMS), CapabilitySet::ALL, bounds);
    feed(&mut verifier, [sent_text()]);
    for i in 1..=30 {
        verifier.observe(secs(2 * i), Observed::Artifact { via: Channel::Stream });
    }
    assert_eq!(verifier.lifecycle_fault(secs(60)), None);
    assert!(matches!(verifier.lifecycle_fault(secs(61)), Some(LifecycleFault::DeadlineExceeded { .. })));
}

#[test]
fn push_declared_and_no_callback_within_the_bound_of_the_terminal_transition_is_refused() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), Observed::PushRegistered, snapshot(Working, Channel::SendResponse, 0)]);
    let waiting = verifier.verdict(Capability::PushNotifications, secs(60));
    assert!(
        matches!(&waiting, Some(Verdict::Pending(p)) if matches!(p.reason(), PendingReason::AwaitingPushCallback { deadline: None })),
        "no refusal while the task runs, however long: {waiting:?}"
    );
    verifier.observe(secs(20), snapshot(Completed, Channel::GetTask, 1));
    let waiting = verifier.verdict(Capability::PushNotifications, secs(30));
    assert!(
        matches!(&waiting, Some(Verdict::Pending(p)) if *p.reason() == PendingReason::AwaitingPushCallback { deadline: Some(secs(30)) }),
        "{waiting:?}"
    );
    let Some(Verdict::Refused(violation)) = verifier.verdict(Capability::PushNotifications, secs(31)) else {
        panic!("expected a refusal past the bound")
    };
    assert!(matches!(violation.contradiction(), Contradiction::NoPushCallback { .. }));
    assert_eq!(
        violation.evidence().observed,
        snapshot(Completed, Channel::GetTask, 1),
        "the evidence is the terminal transition that was never pushed"
    );
}

#[test]
fn a_callback_about_any_transition_verifies_push_however_long_after_registration() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), Observed::PushRegistered, status(Working, Channel::Stream)]);
    verifier.observe(ms(500), Observed::PushCallback { state: Some(Working) });
    verifier.observe(secs(20), status(Completed, Channel::Stream));
    assert!(verifier.verdict(Capability::PushNotifications, secs(40)).is_some_and(|v| v.is_verified()));

    let mut pushes_at_the_end = verifier_for_push_at(secs(20));
    assert!(
        pushes_at_the_end.verdict(Capability::PushNotifications, secs(21)).is_some_and(|v| v.is_verified())
    );
    pushes_at_the_end.observe(secs(40), status(Completed, Channel::GetTask));
    assert!(
        pushes_at_the_end.verdict(Capability::PushNotifications, secs(40)).is_some_and(|v| v.is_verified())
    );
}

fn verifier_for_push_at(ended: std::time::Duration) -> Verifier {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), Observed::PushRegistered, status(Working, Channel::Stream)]);
    verifier.observe(ended, status(Completed, Channel::Stream));
    verifier.observe(ended + ms(300), Observed::PushCallback { state: Some(Completed) });
    verifier
}

#[test]
fn push_callback_arriving_after_the_bound_of_the_terminal_transition_is_still_refused() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), Observed::PushRegistered, status(Completed, Channel::Stream)]);
    verifier.observe(secs(15), Observed::PushCallback { state: Some(Completed) });
    assert!(
        verifier.verdict(Capability::PushNotifications, secs(15)).is_some_and(|v| v.violation().is_some())
    );
}

#[test]
fn push_registered_after_the_task_ended_owes_no_callback() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [sent_text(), snapshot(Completed, Channel::SendResponse, 1), Observed::PushRegistered],
    );
    let verdict = verifier.verdict(Capability::PushNotifications, secs(60));
    assert!(matches!(&verdict, Some(Verdict::Pending(p)) if *p.reason() == PendingReason::NothingLeftToPush));
}

#[test]
fn agent_answering_a_streaming_call_with_unsupported_operation_contradicts_its_card() {
    for call in [Call::SendStreamingMessage, Call::SubscribeToTask] {
        let mut verifier = verifier(ALL_CLAIMS);
        feed(&mut verifier, [sent_text(), Observed::AgentError { call, code: -32004 }]);
        let violation = verifier.refusal(secs(1)).expect("refused");
        assert_eq!(violation.capability(), Capability::Streaming);
        assert_eq!(violation.contradiction(), &Contradiction::AgentSaysUnsupported { call, code: -32004 });
    }
}

#[test]
fn agent_answering_a_push_config_call_with_push_not_supported_contradicts_its_card() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [sent_text(), Observed::AgentError { call: Call::PushNotificationConfig, code: -32003 }],
    );
    let violation = verifier.refusal(secs(1)).expect("refused");
    assert_eq!(violation.capability(), Capability::PushNotifications);
    assert_eq!(
        violation.contradiction(),
        &Contradiction::AgentSaysUnsupported { call: Call::PushNotificationConfig, code: -32003 }
    );
}

#[test]
fn unsupported_operation_on_subscribing_to_a_terminal_task_is_the_spec_not_a_lie() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            snapshot(Completed, Channel::SendResponse, 1),
            Observed::AgentError { call: Call::SubscribeToTask, code: -32004 },
        ],
    );
    assert_eq!(verifier.refusal(secs(1)), None);
}

#[test]
fn other_protocol_errors_are_told_apart_from_violations_and_transport_faults() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [sent_text(), Observed::AgentError { call: Call::SendStreamingMessage, code: -32001 }],
    );
    let Some(Verdict::Pending(pending)) = verifier.verdict(Capability::Streaming, secs(1)) else {
        panic!("a protocol error is not a refusal")
    };
    assert!(pending.is_protocol_error());
    assert!(!pending.is_transport_fault());
    assert_eq!(
        pending.reason(),
        &PendingReason::ProtocolError { call: Call::SendStreamingMessage, code: -32001 }
    );
}

#[test]
fn under_declaring_is_accepted() {
    let mut verifier = verifier(r#"{"streaming":false}"#);
    feed(
        &mut verifier,
        [
            sent_text(),
            snapshot(Submitted, Channel::Stream, 0),
            status(Working, Channel::Stream),
            status(Completed, Channel::Stream),
            snapshot(Completed, Channel::GetTask, 1),
        ],
    );
    assert_eq!(verifier.verdict(Capability::Streaming, secs(1)), None, "no claim, nothing to contradict");
    assert_eq!(verifier.refusal(secs(1)), None);
    assert_eq!(verifier.lifecycle_fault(secs(1)), None);
}

#[test]
fn gateway_agent_yields_no_claims_and_is_never_refused() {
    let card = card_json(ALL_CLAIMS, &["text/plain"], &["text/plain"]);
    let claims =
        std::sync::Arc::new(a2a_typestate::CardClaims::lift(&card, a2a_typestate::Deployment::Gateway));
    let mut verifier = Verifier::new(claims, CapabilitySet::ALL, Bounds::default());
    let (_, _, events, _) = lies().remove(0);
    feed(&mut verifier, std::iter::once(sent_text()).chain(events));
    assert!(verifier.checked().is_empty());
    assert!(verifier.verdicts(secs(60)).is_empty());
}

#[test]
fn violation_names_the_capability_the_contradiction_and_the_event() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), snapshot(InputRequired, Channel::SendResponse, 0)]);
    verifier.observe(ms(250), Observed::History { requested_length: None, entries: 0 });
    let violation = verifier.refusal(secs(1)).expect("refused");
    assert_eq!(
        violation.to_string(),
        "card declares stateTransitionHistory but GetTask returned an empty history when it was relied on; \
         evidence: event #2 at 250 ms: GetTask history with 0 message(s)"
    );
}

#[test]
fn artifact_missing_from_a_stream_cut_by_a_transport_fault_is_not_a_refusal() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(
        &mut verifier,
        [
            sent_text(),
            status(Working, Channel::Stream),
            Observed::TransportFault { call: Call::SendStreamingMessage, fault: TransportFault::Reset },
            snapshot(Working, Channel::Stream, 0),
            status(Completed, Channel::Stream),
            snapshot(Completed, Channel::GetTask, 1),
        ],
    );
    let verdict = verifier.verdict(Capability::Streaming, secs(1));
    assert!(
        matches!(&verdict, Some(Verdict::Pending(p)) if matches!(p.reason(), PendingReason::StreamInterrupted { .. })),
        "{verdict:?}"
    );
}
