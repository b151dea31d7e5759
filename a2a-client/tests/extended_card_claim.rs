//! The card's `extendedAgentCard` claim, judged at discovery from the fetch of the extended card:
//! verified when it is served, refused when the agent says it has none (the public card stays, the
//! fallback), pending when the credentials are wrong (a 401 is the caller's, not the card's).

mod auth_common;

use a2a_testkit::{Capabilities, Guard, ScriptedAgent};
use a2a_typestate::{Advice, CardClaim, CardClaimVerdict, ClaimPending};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};

use auth_common::*;

fn bearer(token: &str) -> Credentials {
    Credentials::new().with(BearerToken::new(Secret::new(token.to_owned())))
}

#[tokio::test]
async fn a_served_extended_card_verifies_the_claim() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let connection = client(bearer("tok-ext")).connect(&agent.base_url()).await.unwrap();
    let verdict = connection.extended_card_verdict().unwrap();
    assert!(verdict.is_verified(), "{verdict}");
}

#[tokio::test]
async fn an_extended_card_the_agent_says_it_lacks_is_refused_and_the_public_card_stays() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .unserved_extended_card()
        .spawn()
        .await
        .unwrap();
    let connection = client(bearer("tok-ext")).connect(&agent.base_url()).await.unwrap();
    assert!(!connection.uses_extended_card(), "the fallback: the public card");
    let verdict = connection.extended_card_verdict().unwrap();
    let violation = verdict.violation().unwrap_or_else(|| panic!("expected a refusal: {verdict}"));
    assert_eq!(violation.claim(), &CardClaim::ExtendedAgentCard);
    assert!(violation.to_string().contains("-32004"), "{violation}");
    assert_eq!(verdict.advice(), Advice::FallBackToSingleShot);
    // Asked again (as an audit does), the same answer.
    assert!(connection.check_extended_card().await.unwrap().violation().is_some());
}

#[tokio::test]
async fn wrong_credentials_leave_the_extended_card_claim_pending() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let connection = client(bearer("tok-wrong")).connect(&agent.base_url()).await.unwrap();
    let verdict = connection.extended_card_verdict().unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))), "{verdict}");
}

#[tokio::test]
async fn without_credentials_the_extended_card_is_not_asked_for_and_has_no_verdict() {
    let agent = ScriptedAgent::builder().unserved_extended_card().spawn().await.unwrap();
    let connection = client(Credentials::new()).connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.extended_card_verdict(), None);
    assert!(agent.requests_for("GetExtendedAgentCard").is_empty());
}
