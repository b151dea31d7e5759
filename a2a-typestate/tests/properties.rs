//! Properties over arbitrary observation sequences: no panic on any input, transport faults never
//! create a refusal, and nothing is refused without all three conditions.

mod support;

use std::time::Duration;

use a2a_typestate::{
    Bounds, Call, Capability, CapabilitySet, Channel, DynHandle, ExchangeModes, Observed, TransportFault,
    Verdict, Verifier,
};
use a2a_typestate_types::TaskState;
use proptest::prelude::*;
use support::*;

fn state() -> impl Strategy<Value = TaskState> {
    prop::sample::select(vec![
        TaskState::Unspecified,
        TaskState::Submitted,
        TaskState::Working,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::InputRequired,
        TaskState::Rejected,
        TaskState::AuthRequired,
    ])
}

fn channel() -> impl Strategy<Value = Channel> {
    prop::sample::select(vec![Channel::SendResponse, Channel::Stream, Channel::GetTask, Channel::Push])
}

fn call() -> impl Strategy<Value = Call> {
    prop::sample::select(vec![
        Call::SendMessage,
        Call::SendStreamingMessage,
        Call::SubscribeToTask,
        Call::GetTask,
        Call::PushNotificationConfig,
    ])
}

fn fault() -> impl Strategy<Value = TransportFault> {
    prop::sample::select(vec![
        TransportFault::Reset,
        TransportFault::Unavailable(502),
        TransportFault::Unavailable(503),
        TransportFault::Unavailable(504),
        TransportFault::Timeout,
    ])
}

fn modes(input: &'static str) -> ExchangeModes {
    ExchangeModes::new([input], std::iter::empty::<&str>())
}

fn observed(input: &'static str) -> impl Strategy<Value = Observed> {
    prop_oneof![
        any::<bool>().prop_map(move |follow| Observed::MessageSent {
            modes: modes(input),
            task_id: follow.then(task_id),
            context_id: follow.then(context_id),
        }),
        (state(), channel(), prop::option::of(0usize..3)).prop_map(|(state, via, artifacts)| {
            Observed::Status {
                task_id: task_id(),
                context_id: Some(context_id()),
                state,
                message: None,
                via,
                artifacts,
            }
        }),
        channel().prop_map(|via| Observed::Artifact { via }),
        Just(Observed::StreamClosed),
        (prop::option::of(prop::sample::select(vec![0u32, 5])), 0usize..3)
            .prop_map(|(requested_length, entries)| Observed::History { requested_length, entries }),
        Just(Observed::PushRegistered),
        prop::option::of(state()).prop_map(|state| Observed::PushCallback { state }),
        (call(), prop::sample::select(vec![-32004, -32003, -32001, -32602]))
            .prop_map(|(call, code)| Observed::AgentError { call, code }),
        (call(), fault()).prop_map(|(call, fault)| Observed::TransportFault { call, fault }),
    ]
}

/// Observations with the elapsed time of each (non-decreasing, up to 20 s apart).
fn run(input: &'static str) -> impl Strategy<Value = Vec<(Duration, Observed)>> {
    prop::collection::vec((0u64..20_000, observed(input)), 0..24).prop_map(|steps| {
        let mut at = Duration::ZERO;
        steps
            .into_iter()
            .map(|(gap, o)| {
                at += Duration::from_millis(gap);
                (at, o)
            })
            .collect()
    })
}

fn verifier_over(capabilities: &str, events: &[(Duration, Observed)]) -> Verifier {
    let mut verifier = Verifier::new(claims(capabilities), CapabilitySet::ALL, Bounds::default());
    for (at, o) in events {
        verifier.observe(*at, o.clone());
    }
    verifier
}

/// What a verdict says about the card: refused for which contradiction, or not refused.
fn about_the_card(verdict: Option<Verdict>) -> Option<a2a_typestate::Contradiction> {
    verdict.and_then(|v| v.violation().map(|violation| violation.contradiction().clone()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_observations_never_panic(events in run("text/plain"), now in 0u64..600_000) {
        let now = Duration::from_millis(now);
        let mut task = DynHandle::new(claims(ALL_CLAIMS), Bounds::default());
        for (at, o) in &events {
            let _ = task.observe(*at, o.clone());
        }
        let _ = task.verifier().verdicts(now);
        let _ = task.verifier().lifecycle_fault(now);
        let _ = task.settle(now).map_err(|refusal| refusal.to_string());
    }

    #[test]
    fn transport_faults_never_create_a_refusal(events in run("text/plain"), now in 0u64..600_000) {
        let now = Duration::from_millis(now);
        let with_faults = verifier_over(ALL_CLAIMS, &events);
        let without: Vec<_> =
            events.iter().filter(|(_, o)| !matches!(o, Observed::TransportFault { .. })).cloned().collect();
        let without_faults = verifier_over(ALL_CLAIMS, &without);
        for capability in Capability::ALL {
            // A fault may leave a claim unsettled (a cut stream), never refuse one that would not be.
            if let Some(contradiction) = about_the_card(with_faults.verdict(capability, now)) {
                prop_assert_eq!(
                    Some(contradiction),
                    about_the_card(without_faults.verdict(capability, now)),
                    "{}", capability
                );
            }
        }
    }

    #[test]
    fn nothing_reached_through_undeclared_media_types_is_refused_but_the_agents_own_not_supported(
        events in run("image/png"),
        now in 0u64..600_000,
    ) {
        // Clause 3 reads the message that reached a contradiction; the agent's own "not
        // supported" to the capability's own call is about the call, whatever the message held.
        let verifier = verifier_over(ALL_CLAIMS, &events);
        for refusal in verifier.refusals(Duration::from_millis(now)) {
            prop_assert!(
                matches!(refusal.contradiction(), a2a_typestate::Contradiction::AgentSaysUnsupported { .. }),
                "{}", refusal
            );
        }
    }

    #[test]
    fn a_card_that_claims_nothing_is_never_refused(events in run("text/plain"), now in 0u64..600_000) {
        let verifier = verifier_over(r#"{"streaming":false}"#, &events);
        prop_assert!(verifier.verdicts(Duration::from_millis(now)).is_empty());
    }
}
