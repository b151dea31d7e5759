//! A 0.3 JSON-RPC stream whose events are bare results, as PraisonAI's A2A server writes them (no
//! JSON-RPC envelope, no `kind` on the result, its messages or its parts, no `contextId` on an
//! update): under tolerant reading each is read as what its members unambiguously name, every
//! deviation listed with its event, and the claims judged as on a clean stream (an honest stream
//! verified, a stream without the artifact still refused); under strict reading the first event is
//! bad input, and no claim is refused for it.

mod negotiation_common;

use a2a_testkit::{Capabilities, Lie, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
use a2a_typestate::Contradiction;
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client, ErrorKind, WireReading};
use a2a_typestate_types::tolerant::DeviationKind;
use negotiation_common::{builder, text};

async fn spawn(script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .capabilities(Capabilities::none().with_streaming())
        .script(script.quirk(Quirk::BareV03StreamEvents))
        .spawn()
        .await
        .unwrap()
}

fn reading(reading: WireReading) -> Client {
    builder().wire_reading(reading).build().unwrap()
}

fn streaming() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming])
}

#[tokio::test]
async fn bare_0_3_events_are_read_under_tolerant_reading_each_deviation_listed_and_streaming_verified() {
    let agent = spawn(Script::honest()).await;
    let outcome = reading(WireReading::Tolerant)
        .run_task(&agent.base_url(), text("hello"), &streaming())
        .await
        .unwrap();
    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::Streaming), "{:?}", outcome.verdicts);
    assert_eq!(outcome.text().as_deref(), Some("echo: hello"));
    let streamed: Vec<_> =
        outcome.wire_deviations.iter().filter(|d| d.call == "SendStreamingMessage").collect();
    // Every event is one envelope deviation, numbered as the event.
    let envelopes: Vec<Option<u64>> =
        streamed.iter().filter(|d| d.kind() == DeviationKind::MissingEnvelope).map(|d| d.event).collect();
    let events = envelopes.len() as u64;
    assert!(events >= 2, "{streamed:?}");
    assert_eq!(envelopes, (1..=events).map(Some).collect::<Vec<_>>());
    // Each event's missing `kind` is put back from its members, and the artifact's parts' too.
    for event in 1..=events {
        let at: Vec<&str> = streamed.iter().filter(|d| d.event == Some(event)).map(|d| d.path()).collect();
        assert!(at.contains(&"result.kind"), "event {event}: {at:?}");
    }
    assert!(streamed.iter().any(|d| d.path().starts_with("result.artifact.parts[0].kind")), "{streamed:?}");
    assert!(streamed.iter().any(|d| d.path() == "result.contextId"), "{streamed:?}");
    assert_eq!(agent.executions(), 1);
}

#[tokio::test]
async fn a_stream_without_the_artifact_is_still_refused_through_bare_0_3_events() {
    let agent = spawn(Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let outcome = reading(WireReading::Tolerant)
        .run_task(&agent.base_url(), text("hello"), &streaming())
        .await
        .unwrap();
    let refusal = outcome.refusal.as_ref().expect("the lie is found through the dialect");
    assert!(matches!(refusal.contradiction(), Contradiction::NoArtifactStreamed { .. }), "{refusal}");
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    assert_eq!(agent.executions(), 1);
}

#[tokio::test]
async fn bare_0_3_events_are_bad_input_under_strict_reading_and_refuse_no_claim() {
    let agent = spawn(Script::honest()).await;
    let client = reading(WireReading::Strict);
    let err = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(err.lifecycle_violation().is_none(), "a dialect is no lie: {err}");
    let agent_url = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&agent_url).is_none(), "no mark for a dialect");
}
