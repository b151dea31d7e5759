//! The typed entry point: the same run hands back the typestate handle, verified, refused (with the
//! single-shot handle and the fallback's result), single-shot for a suspect, or unsettled.

mod negotiation_common;

use a2a_client::Capability;
use a2a_client::negotiate::{Negotiation, StreamingNegotiation, TaskPath};
use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_types::TaskState;
use a2a_typestate::ClaimStatus;
use negotiation_common::{client, text};

#[tokio::test]
async fn honest_streamer_yields_a_handle_whose_streaming_claim_is_verified() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let client = client();

    let negotiated =
        client.negotiate_streaming(&agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap();

    let StreamingNegotiation::Verified { task, outcome } = negotiated else { panic!("{negotiated:?}") };
    assert_eq!(task.rely_on_streaming().capability(), Capability::Streaming);
    assert_eq!(task.state(), Some(TaskState::Completed), "the handle followed the lifecycle");
    assert_eq!(outcome.path, TaskPath::Negotiated);
    agent.shutdown().await;
}

#[tokio::test]
async fn lying_streamer_yields_the_refusal_with_a_single_shot_handle_and_the_fallback_result() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let negotiated =
        client.negotiate_streaming(&agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap();

    let StreamingNegotiation::Refused { refusal, outcome } = negotiated else { panic!("{negotiated:?}") };
    assert_eq!(refusal.violation().capability(), Capability::Streaming);
    assert_eq!(outcome.refusal.as_ref(), Some(refusal.violation()), "the run and the handle agree");
    assert_eq!(outcome.state(), Some(TaskState::Completed), "the fallback's result");
    let single_shot = refusal.into_task().into_dyn();
    assert!(single_shot.is_single_shot());

    // The agent is now suspect: the next typed run is single-shot at once.
    let again =
        client.negotiate_streaming(&agent.base_url(), text("again"), &Negotiation::default()).await.unwrap();
    let StreamingNegotiation::SingleShot { outcome, .. } = again else { panic!("{again:?}") };
    assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)));
    agent.shutdown().await;
}

#[tokio::test]
async fn card_without_a_streaming_claim_leaves_the_handle_unsettled() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with(Lie::UnderDeclaredStreaming))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let negotiated =
        client.negotiate_streaming(&agent.base_url(), text("hello"), &Negotiation::default()).await.unwrap();

    let StreamingNegotiation::Unsettled { task, outcome } = negotiated else { panic!("{negotiated:?}") };
    assert_eq!(task.status(Capability::Streaming), ClaimStatus::Unclaimed);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    agent.shutdown().await;
}
