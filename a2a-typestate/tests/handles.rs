//! The task handles: claims as types, narrowing, settling, refusal and the fallback.

mod support;

use std::sync::Arc;

use a2a_typestate::{
    Advice, Bounds, CadenceBasis, Call, Capability, Channel, ClaimStatus, Claims, Deployment, DynHandle,
    Handle, History, Mismatch, NoHistory, NoPush, NoStreaming, Observed, Push, Settlement, SingleShot,
    Streaming, StreamingVerified,
};
use a2a_typestate_types::TaskState::*;
use support::*;

type Streams = Claims<Streaming, NoHistory, NoPush>;

fn handle(capabilities: &str) -> DynHandle {
    DynHandle::new(claims(capabilities), Bounds::default())
}

fn streaming_task() -> Handle<Streams> {
    Handle::try_from(handle(r#"{"streaming":true}"#)).unwrap()
}

#[test]
fn typed_handle_is_no_larger_than_the_dynamic_one() {
    let dynamic = size_of::<DynHandle>();
    assert_eq!(size_of::<Handle<SingleShot>>(), dynamic);
    assert_eq!(size_of::<Handle<Streams>>(), dynamic);
    assert_eq!(size_of::<Handle<Claims<StreamingVerified, History, Push>>>(), dynamic);
    assert_eq!(size_of::<Streaming>(), 0, "markers are zero-sized");
    assert_eq!(size_of::<Claims<StreamingVerified, History, Push>>(), 0);
}

#[test]
fn dynamic_handle_holds_every_claim_the_card_declares_unverified() {
    let task = handle(ALL_CLAIMS);
    for capability in Capability::ALL {
        assert_eq!(task.status(capability), ClaimStatus::Claimed, "{capability}");
    }
    assert!(task.stream_permit().is_ok());
    let missing = task.rely_on(Capability::Streaming).unwrap_err();
    assert_eq!(missing.needed, ClaimStatus::Verified);
}

#[test]
fn narrowing_hands_the_handle_back_on_failure() {
    let dynamic = handle(r#"{"pushNotifications":true}"#);
    let err = Handle::<Streams>::try_from(dynamic).unwrap_err();
    assert_eq!(
        err.mismatch(),
        Mismatch::Claim {
            capability: Capability::Streaming,
            wanted: ClaimStatus::Claimed,
            held: ClaimStatus::Unclaimed
        }
    );
    assert_eq!(
        err.to_string(),
        "cannot narrow: the target needs streaming claimed (unverified), the handle holds it unclaimed"
    );
    let back = err.into_handle();
    assert_eq!(back.status(Capability::PushNotifications), ClaimStatus::Claimed, "nothing was lost");
}

#[test]
fn narrowing_may_drop_a_claim_but_never_add_one() {
    let dynamic = handle(ALL_CLAIMS);
    let only_streaming: Handle<Streams> = Handle::try_from(dynamic).unwrap();
    let dynamic = only_streaming.into_dyn();
    assert_eq!(
        dynamic.status(Capability::PushNotifications),
        ClaimStatus::Unclaimed,
        "dropped claims stay dropped"
    );
    assert!(dynamic.push_permit().is_err());
    assert!(Handle::<Claims<NoStreaming, NoHistory, Push>>::try_from(dynamic).is_err());
}

#[test]
fn narrowing_never_upgrades_a_claim_to_verified() {
    let err = Handle::<Claims<StreamingVerified>>::try_from(handle(r#"{"streaming":true}"#)).unwrap_err();
    assert!(matches!(
        err.mismatch(),
        Mismatch::Claim { wanted: ClaimStatus::Verified, held: ClaimStatus::Claimed, .. }
    ));
}

#[test]
fn gateway_card_gives_a_handle_without_claims() {
    let card = card_json(ALL_CLAIMS, &["text/plain"], &["text/plain"]);
    let claims = Arc::new(a2a_typestate::CardClaims::lift(&card, Deployment::Gateway));
    let dynamic = DynHandle::new(claims, Bounds::default());
    assert!(dynamic.held().is_empty());
    assert!(Handle::<Streams>::try_from(dynamic).is_err());
}

#[test]
fn settling_a_verified_stream_upgrades_the_type() {
    let mut task = streaming_task();
    assert!(task.stream_permit().must_confirm_artifacts());
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), snapshot(Submitted, Channel::Stream, 0)).unwrap();
    task.observe(ms(2), Observed::Artifact { via: Channel::Stream }).unwrap();
    task.observe(ms(3), status(Completed, Channel::Stream)).unwrap();
    let Ok(Settlement::Verified(task)) = task.settle_streaming(ms(3)) else { panic!("expected verified") };
    let task: Handle<Claims<StreamingVerified, NoHistory, NoPush>> = task;
    assert_eq!(task.rely_on_streaming().capability(), Capability::Streaming);
    assert!(!task.stream_permit().must_confirm_artifacts());
    assert_eq!(task.into_dyn().status(Capability::Streaming), ClaimStatus::Verified);
}

#[test]
fn pending_settlement_returns_the_same_handle_with_the_reason() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status(Working, Channel::Stream)).unwrap();
    let Ok(Settlement::Pending(task, pending)) = task.settle_streaming(ms(5)) else {
        panic!("expected pending")
    };
    assert_eq!(pending.advice(), Advice::KeepObserving);
    assert_eq!(task.state(), Some(Working));
}

#[test]
fn refusal_carries_the_handle_downgraded_to_single_shot_with_the_violation() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 }).unwrap();
    let refusal = task.settle_streaming(ms(1)).unwrap_err();
    assert_eq!(refusal.violation().capability(), Capability::Streaming);
    assert_eq!(refusal.violation().advice(), Advice::FallBackToSingleShot);
    assert!(std::error::Error::source(&refusal).is_some(), "the violation is the error's source");
    let (fallback, violation): (Handle<SingleShot>, _) = refusal.into_parts();
    let _send = fallback.single_shot_send();
    assert_eq!(violation.evidence().seq, 1);
}

#[test]
fn a_refused_handle_never_becomes_tracked_again() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), Observed::AgentError { call: Call::SubscribeToTask, code: -32004 }).unwrap();
    let mut dynamic: DynHandle = task.settle_streaming(ms(1)).unwrap_err().into();
    assert!(dynamic.is_single_shot());
    assert!(dynamic.stream_permit().is_err());
    assert!(dynamic.observe(ms(2), sent_text()).is_err());
    let err = Handle::<Claims>::try_from(dynamic).unwrap_err();
    assert_eq!(err.mismatch(), Mismatch::SingleShot);
    assert!(Handle::<SingleShot>::try_from(err.into_handle()).is_ok());
}

#[test]
fn dynamic_settle_refuses_like_the_typed_handle() {
    let mut dynamic = handle(ALL_CLAIMS);
    dynamic.observe(ms(0), sent_text()).unwrap();
    dynamic.observe(ms(1), snapshot(InputRequired, Channel::SendResponse, 0)).unwrap();
    dynamic.observe(ms(2), Observed::History { requested_length: None, entries: 0 }).unwrap();
    let refusal = dynamic.settle(ms(3)).unwrap_err();
    assert_eq!(refusal.violation().capability(), Capability::StateTransitionHistory);
    assert_eq!(refusal.violation().advice(), Advice::Abandon);
}

#[test]
fn dynamic_settle_upgrades_verified_claims_and_keeps_pending_ones() {
    let mut dynamic = handle(ALL_CLAIMS);
    dynamic.observe(ms(0), sent_text()).unwrap();
    dynamic.observe(ms(1), snapshot(InputRequired, Channel::SendResponse, 0)).unwrap();
    dynamic.observe(ms(2), Observed::History { requested_length: None, entries: 2 }).unwrap();
    let dynamic = dynamic.settle(ms(3)).unwrap();
    assert_eq!(dynamic.status(Capability::StateTransitionHistory), ClaimStatus::Verified);
    assert_eq!(dynamic.status(Capability::Streaming), ClaimStatus::Claimed);
    assert!(dynamic.rely_on(Capability::StateTransitionHistory).is_ok());
}

#[test]
fn handle_rejects_transitions_the_lifecycle_forbids_but_still_records_them() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status(Completed, Channel::Stream)).unwrap();
    let err = task.observe(ms(2), status(Working, Channel::Stream)).unwrap_err();
    assert!(err.to_string().contains("a terminal state is final"), "{err}");
    assert_eq!(task.state(), Some(Completed));
    assert_eq!(task.verifier().observations().len(), 3);
}

#[test]
fn follow_up_message_with_the_same_ids_lets_input_required_resume() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status(InputRequired, Channel::Stream)).unwrap();
    assert_eq!(task.stream_permit().task_id(), Some(&task_id()));
    assert_eq!(task.send_permit().context_id(), Some(&context_id()));
    task.observe(ms(2), follow_up()).unwrap();
    task.observe(ms(3), status(Working, Channel::Stream)).unwrap();
    assert_eq!(task.state(), Some(Working));
}

#[test]
fn poll_permit_uses_the_client_bound_when_the_card_gives_no_basis() {
    let task: Handle<Claims> = Handle::try_from(handle(r#"{}"#)).unwrap();
    let poll = task.poll_permit();
    assert_eq!(poll.basis(), CadenceBasis::Client);
    assert_eq!(poll.interval(), Bounds::default().poll_interval());
}

/// The design note's observed run, as a 0.3 agent would produce it once converted to 1.0: the card
/// claims stateTransitionHistory (carried as the legacy field) and push, with text/plain input.
#[test]
fn observed_run_from_the_design_note_is_refused_and_abandoned() {
    let mut task: Handle<Claims<NoStreaming, History, Push>> =
        Handle::try_from(handle(r#"{"pushNotifications":true,"stateTransitionHistory":true}"#)).unwrap();
    let _register = task.push_permit();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), Observed::PushRegistered).unwrap();
    for (i, state) in [Submitted, Working, InputRequired].into_iter().enumerate() {
        task.observe(ms(2 + i as u64), status(state, Channel::Stream)).unwrap();
    }
    task.observe(ms(10), follow_up()).unwrap();
    task.observe(ms(11), status(Working, Channel::Stream)).unwrap();
    task.observe(ms(12), status(Completed, Channel::Stream)).unwrap();
    assert!(task.lifecycle().is_finished(), "the end is known without the 0.3 final flag");
    let _reconstruct = task.history_permit();
    task.observe(ms(20), snapshot(Completed, Channel::GetTask, 1)).unwrap();
    task.observe(ms(21), Observed::History { requested_length: None, entries: 0 }).unwrap();

    let refusal = task.settle_history(ms(21)).unwrap_err();
    assert_eq!(refusal.violation().capability(), Capability::StateTransitionHistory);
    assert_eq!(refusal.violation().advice(), Advice::Abandon, "abandon, do not retry");
}

#[test]
fn stale_push_delivery_is_recorded_but_does_not_break_the_lifecycle() {
    let mut task: Handle<Claims<NoStreaming, NoHistory, Push>> =
        Handle::try_from(handle(r#"{"pushNotifications":true}"#)).unwrap();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), snapshot(Completed, Channel::SendResponse, 1)).unwrap();
    let step = task.observe(ms(2), status(Working, Channel::Push)).unwrap();
    assert_eq!(step, Some(a2a_typestate::Step::Stale(Working)));
    assert_eq!(task.state(), Some(Completed));
}

#[test]
fn follow_up_without_a_context_id_is_refused_by_the_lifecycle() {
    let mut task = streaming_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status(InputRequired, Channel::Stream)).unwrap();
    let no_context = Observed::MessageSent {
        modes: a2a_typestate::ExchangeModes::text(),
        task_id: Some(task_id()),
        context_id: None,
    };
    let err = task.observe(ms(2), no_context).unwrap_err();
    assert_eq!(err.to_string(), "follow-up names the task but carries no contextId");
}

#[test]
fn handles_and_errors_cross_threads_and_tasks() {
    fn assert_send_sync_static<T: Send + Sync + 'static>() {}
    assert_send_sync_static::<Handle<Streams>>();
    assert_send_sync_static::<Handle<SingleShot>>();
    assert_send_sync_static::<DynHandle>();
    assert_send_sync_static::<a2a_typestate::Refusal>();
    assert_send_sync_static::<a2a_typestate::AgentCardLifecycleViolation>();
    assert_send_sync_static::<a2a_typestate::NarrowingError>();
    assert_send_sync_static::<a2a_typestate::Verifier>();
    assert!(size_of::<Result<(), a2a_typestate::Refusal>>() <= 2 * size_of::<usize>(), "refusals are boxed");
}

/// A card lying about streaming and history at once: which refusal decides is the verifier's
/// choice (first by evidence), whichever settle asks, typed or dynamic.
#[test]
fn every_settle_reports_the_refusal_whose_evidence_came_first_and_keeps_the_others() {
    let lying_twice = r#"{"streaming":true,"stateTransitionHistory":true}"#;
    let run = |observe: &mut dyn FnMut(std::time::Duration, Observed)| {
        observe(ms(0), sent_text());
        observe(ms(1), snapshot(Submitted, Channel::Stream, 0));
        observe(ms(2), status(Completed, Channel::Stream));
        observe(ms(3), snapshot(Completed, Channel::GetTask, 1));
        observe(ms(4), Observed::History { requested_length: Some(10), entries: 0 });
    };
    let mut typed: Handle<Claims<Streaming, History, NoPush>> =
        Handle::try_from(handle(lying_twice)).unwrap();
    run(&mut |at, observed| {
        typed.observe(at, observed).unwrap();
    });
    let mut dynamic = handle(lying_twice);
    run(&mut |at, observed| {
        dynamic.observe(at, observed).unwrap();
    });

    // Asked about history, the later contradiction: the stream's, seen first, still decides.
    let Err(typed) = typed.settle_history(ms(5)) else { panic!("the lies were not refused") };
    let Err(dynamic) = dynamic.settle(ms(5)) else { panic!("the lies were not refused") };
    for refusal in [&typed, &dynamic] {
        assert_eq!(refusal.violation().capability(), Capability::Streaming);
        assert_eq!(refusal.violation().advice(), Advice::FallBackToSingleShot);
        let others: Vec<_> = refusal.others().iter().map(|v| v.capability()).collect();
        assert_eq!(others, [Capability::StateTransitionHistory]);
    }
    assert_eq!(typed.violation(), dynamic.violation());
    assert_eq!(typed.others(), dynamic.others());
}
