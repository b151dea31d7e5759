//! The README quickstart, as a user copies it, against the official SDK servers: a lying card is
//! refused and falls back (never an `Err`), the agent is marked, and the next task goes
//! single-shot at once with no negotiation round trip; an honest agent is verified.
//!
//! The code is `examples/quickstart.rs`, included here, and the crate README's block must be the
//! same text, so what a user copies is what runs.

#[allow(dead_code)] // the example's own `main`
#[path = "../examples/quickstart.rs"]
mod quickstart;

use a2a_testkit::official::{OfficialPeer, PeerKind, RunningPeer};
use a2a_typestate_client::{AgentBaseUrl, Capability, Client, SendMessageResponse, TaskState};
use quickstart::{Ran, weather};

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"))
}

fn state_of(answer: &a2a_typestate_client::Answer<SendMessageResponse>) -> Option<TaskState> {
    match answer.answered()? {
        SendMessageResponse::Task(task) => Some(task.state()),
        SendMessageResponse::Message(_) => None,
    }
}

/// The lines between the markers, without the markers.
fn between_markers(text: &str) -> String {
    let begin = "// README quickstart: begin";
    let end = "// README quickstart: end";
    let start = text.find(begin).expect("the example marks where the quickstart begins") + begin.len();
    let stop = text.find(end).expect("the example marks where the quickstart ends");
    text[start..stop].trim().to_owned()
}

/// This crate's README (its crates.io page). The workspace README carries the same block, checked
/// by the `ui-tests` member (that file is not part of this package).
#[test]
fn the_readme_quickstart_is_the_example_ci_runs() {
    let example = include_str!("../examples/quickstart.rs");
    let readme = include_str!("../README.md");
    let code = between_markers(example);
    assert!(
        readme.contains(&code),
        "a2a-client/README.md's quickstart block differs from examples/quickstart.rs; paste this between its fences:\n{code}"
    );
}

#[tokio::test]
async fn the_quickstart_refuses_a_lying_official_peer_falls_back_marks_it_and_then_goes_single_shot_at_once()
{
    for kind in [PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring] {
        let peer = peer(kind).await;
        let client = Client::builder().build().unwrap();

        let first = weather(&client, peer.base_url()).await.expect("a contradiction is never an Err");

        let Ran::FellBack { refusal, fallback } = first else { panic!("{kind:?}: not refused: {first:?}") };
        assert!(refusal.contains("streaming"), "{kind:?}: the refusal names the claim: {refusal}");
        assert_eq!(state_of(&fallback), Some(TaskState::Completed), "{kind:?}: the fallback's result");
        let agent = AgentBaseUrl::parse(peer.base_url()).unwrap();
        let marks = client.discovery_cache().suspect_marks(&agent);
        assert!(
            marks.iter().any(|mark| mark.capability() == Some(Capability::Streaming)),
            "{kind:?}: the agent is marked suspect for streaming: {marks:?}"
        );
        let before = client.metrics().snapshot();
        assert_eq!(before.fallbacks, 1, "{kind:?}: the typed fallback is counted");

        let second = weather(&client, peer.base_url()).await.unwrap();

        let Ran::SingleShot { mark, answer } = second else {
            panic!("{kind:?}: negotiated again: {second:?}")
        };
        assert!(mark.contains("streaming"), "{kind:?}: {mark}");
        assert_eq!(state_of(&answer), Some(TaskState::Completed), "{kind:?}");
        let after = client.metrics().snapshot();
        assert_eq!(
            after.negotiation_round_trips, before.negotiation_round_trips,
            "{kind:?}: a suspect agent costs no negotiation round trip"
        );
        assert_eq!(after.suspect_single_shots, before.suspect_single_shots + 1, "{kind:?}");
    }
}

#[tokio::test]
async fn the_quickstart_verifies_an_honest_official_peer() {
    for kind in [PeerKind::PythonHonest, PeerKind::JsHonest] {
        let peer = peer(kind).await;
        let client = Client::builder().build().unwrap();

        let ran = weather(&client, peer.base_url()).await.unwrap();

        let Ran::Verified(task) = ran else { panic!("{kind:?}: an honest agent was not verified: {ran:?}") };
        assert_eq!(task.state(), Some(TaskState::Completed), "{kind:?}");
        assert!(
            client.discovery_cache().suspect_marks(&AgentBaseUrl::parse(peer.base_url()).unwrap()).is_empty()
        );
    }
}
