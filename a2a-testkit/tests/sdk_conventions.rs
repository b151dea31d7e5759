//! The testkit writes its cards without `a2a-types`; these tests check that what it writes for
//! this SDK's own conventions (the gateway and poll-cadence extensions, the 0.3 history claim) is
//! what the SDK reads, so a drift between the two constants cannot pass unnoticed.

use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, Protocol, Script, ScriptedAgent};
use a2a_typestate::{Capability, CardClaims, Deployment};

fn lift(card: &serde_json::Value) -> CardClaims {
    let (_, converted) = a2a_typestate_types::v03::read_any_card(card.to_string().as_bytes()).unwrap();
    CardClaims::lift(&converted.value, Deployment::Direct)
}

#[test]
fn extension_uris_are_the_ones_the_sdk_reads() {
    assert_eq!(a2a_testkit::GATEWAY_EXTENSION_URI, a2a_typestate::GATEWAY_EXTENSION_URI);
    assert_eq!(a2a_testkit::POLL_CADENCE_EXTENSION_URI, a2a_typestate::POLL_CADENCE_EXTENSION_URI);
}

#[tokio::test]
async fn a_marked_gateway_card_lifts_no_claims_and_an_unmarked_one_lifts_its_own() {
    let front = Capabilities::none().with_streaming().with_push_notifications();
    let backend = Script::honest().with(Lie::Gateway { backend: Capabilities::none() });
    let unmarked =
        ScriptedAgent::builder().capabilities(front.clone()).script(backend.clone()).spawn().await.unwrap();
    let claims = lift(unmarked.card());
    assert!(!claims.is_gateway());
    assert!(claims.declares(Capability::Streaming), "unmarked, the card's claims are lifted as usual");

    let marked = ScriptedAgent::builder()
        .capabilities(front.with_gateway_extension().with_poll_cadence(Duration::from_millis(75)))
        .script(backend)
        .spawn()
        .await
        .unwrap();
    let claims = lift(marked.card());
    assert!(claims.is_gateway());
    assert!(claims.declared().is_empty(), "a marked gateway yields no claims: {:?}", claims.declared());
    assert_eq!(claims.poll_cadence(), Some(Duration::from_millis(75)), "both extensions are read");
}

#[tokio::test]
async fn a_0_3_observed_run_card_lifts_the_history_claim() {
    let agent = ScriptedAgent::observed_run().spawn().await.unwrap();
    let claims = lift(agent.card());
    for capability in
        [Capability::Streaming, Capability::StateTransitionHistory, Capability::PushNotifications]
    {
        assert!(claims.declares(capability), "{capability:?} not lifted from {}", agent.card());
    }
    let plain = ScriptedAgent::builder().protocol(Protocol::V0_3).spawn().await.unwrap();
    assert!(lift(plain.card()).declared().is_empty());
}

/// Agno's way of writing a card: `null` for every member left unset and for the claims it does not
/// make. The SDK reads a `null` member as left out, so the same claims are lifted either way.
#[tokio::test]
async fn a_card_writing_null_for_unset_members_claims_what_it_claims_without_them() {
    for protocol in [Protocol::V1_0, Protocol::V0_3] {
        let agent = |script: Script| {
            ScriptedAgent::builder()
                .protocol(protocol)
                .capabilities(Capabilities::none().with_streaming())
                .script(script)
                .spawn()
        };
        let plain = agent(Script::honest()).await.unwrap();
        let nulls = agent(Script::honest().quirk(a2a_testkit::Quirk::NullForUnsetCardMembers)).await.unwrap();
        let card = nulls.card();
        assert_eq!(card["capabilities"]["pushNotifications"], serde_json::Value::Null, "{card}");
        assert_eq!(card["capabilities"]["streaming"], true, "{card}");
        assert!(card.get("documentationUrl").is_some_and(serde_json::Value::is_null), "{card}");
        assert!(card["skills"][0].get("examples").is_some_and(serde_json::Value::is_null), "{card}");
        assert_eq!(lift(card).declared(), lift(plain.card()).declared(), "{protocol:?}: {card}");
    }
}
