//! The extended card: fetched with the credentials when the card declares one, used in place of
//! the public card with its claims lifted, and the public card kept when the fetch is refused.

mod auth_common;

use a2a_testkit::{Capabilities, Guard, ScriptedAgent};
use a2a_typestate::Deployment;
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::{Capability, ErrorKind};

use auth_common::*;

#[tokio::test]
async fn the_extended_card_replaces_the_public_card_and_its_claims_for_the_connection() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    assert_eq!(agent.card()["capabilities"]["extendedAgentCard"], true);
    let client = client(Credentials::new().with(BearerToken::new(Secret::new("tok-ext"))));
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert!(connection.uses_extended_card() && connection.extended_card_error().is_none());
    let public = connection.public_card().unwrap().claims(Deployment::Direct);
    let extended = connection.card().claims(Deployment::Direct);
    assert!(!public.declares(Capability::Streaming), "the public card claims no streaming");
    assert!(extended.declares(Capability::Streaming), "the extended card does, and it is lifted");
    assert!(connection.card().card().description.contains("extended card"));
    assert_eq!(agent.requests_for("GetExtendedAgentCard").len(), 1);
    assert_eq!(agent.requests_for("GetExtendedAgentCard")[0].header("authorization"), Some("Bearer tok-ext"));
    completes(&connection).await;
}

#[tokio::test]
async fn an_extended_card_refused_keeps_the_public_card_and_says_why() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer("tok-ext"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let wrong = client(Credentials::new().with(BearerToken::new(Secret::new("tok-wrong"))));
    let connection = wrong.connect(&agent.base_url()).await.unwrap();
    assert!(!connection.uses_extended_card());
    assert_eq!(
        connection.extended_card_error().map(a2a_typestate_client::Error::kind),
        Some(ErrorKind::Auth)
    );
}
