//! A run names every claim it found contradicted, not only the first: a card that lies about several
//! claims the caller depends on has each of them refused on the same task, once the task ended, and
//! an honest claim beside them is never refused. Every mix of the three lifecycle lies is tried.

mod negotiation_common;

use std::collections::BTreeSet;

use a2a_testkit::{Capabilities, Lie, Script};
use a2a_typestate_client::Capability;
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use negotiation_common::{client, spawn, text};

/// Each lie, and the claim it makes false.
const LIES: [(Lie, Capability); 3] = [
    (Lie::StreamWithoutArtifact, Capability::Streaming),
    (Lie::EmptyHistory, Capability::StateTransitionHistory),
    (Lie::SilentPush, Capability::PushNotifications),
];

fn card_claiming_all() -> Capabilities {
    Capabilities::none().with_streaming().with_state_transition_history().with_push_notifications()
}

#[tokio::test]
async fn a_run_names_every_claim_the_task_contradicted_and_no_honest_one() {
    let depends: Vec<Capability> = LIES.iter().map(|(_, capability)| *capability).collect();
    for mix in 0u8..(1 << LIES.len()) {
        let lied: Vec<&(Lie, Capability)> =
            LIES.iter().enumerate().filter(|(i, _)| mix & (1 << i) != 0).map(|(_, lie)| lie).collect();
        let script = lied.iter().fold(Script::honest(), |script, (lie, _)| script.with(lie.clone()));
        let agent = spawn(card_claiming_all(), script).await;
        let client = client();

        let run =
            client.run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&depends)).await;

        let refused: BTreeSet<&str> = match &run {
            Ok(outcome) => outcome.refusals().map(|v| v.capability().card_field()).collect(),
            Err(error) => error.refusals().map(|v| v.capability().card_field()).collect(),
        };
        let expected: BTreeSet<&str> = lied.iter().map(|(_, capability)| capability.card_field()).collect();
        assert_eq!(refused, expected, "lies {mix:03b}: {run:?}");
        let mut shown = match &run {
            Ok(outcome) => outcome.to_string(),
            Err(error) => error.to_string(),
        };
        if let Err(error) = &run {
            // The error's text names the deciding refusal; the others travel with it.
            shown.extend(error.refusals().map(|v| v.to_string()));
        }
        for claim in &expected {
            assert!(shown.contains(claim), "lies {mix:03b}: {claim} named in {shown}");
        }
        if lied.is_empty() {
            let outcome = run.as_ref().expect("an honest agent answers");
            assert_eq!(outcome.path, TaskPath::Negotiated);
        }
        assert_eq!(agent.executions(), 1, "lies {mix:03b}: the work ran once");
        agent.shutdown().await;
    }
}
