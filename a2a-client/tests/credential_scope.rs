//! Credentials stay with the origin they were given for: a card naming an interface, an extended
//! card, a token endpoint or an OpenID Connect discovery document on another origin gets nothing,
//! unless the user allowed that origin (`ClientBuilder::allow_credential_origin`). Two ports on
//! 127.0.0.1 are two origins.

mod auth_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Guard, KeyLocation, RunningAgent, ScriptedAgent};
use a2a_typestate_client::ErrorKind;
use a2a_typestate_client::auth::{ApiKey, BearerToken, Credentials, OAuth2ClientCredentials, Secret};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use serde_json::Value;

use auth_common::*;

const TOKEN: &str = "tok-scope-SECRET-1";
const CLIENT_SECRET: &str = "cs-oauth-5";

/// The agent's own card, served from another origin: its interfaces point back at the agent.
async fn card_elsewhere(agent: &RunningAgent) -> String {
    serve_card(agent.card().clone()).await
}

/// `agent`'s card with every OAuth 2.0 / OpenID Connect URL in its schemes replaced by `url`.
fn with_scheme_url(agent: &RunningAgent, url: &str) -> Value {
    let mut card = agent.card().clone();
    for scheme in card["securitySchemes"].as_object_mut().unwrap().values_mut() {
        if let Some(flow) = scheme.pointer_mut("/oauth2SecurityScheme/flows/clientCredentials") {
            flow["tokenUrl"] = url.into();
        }
        if let Some(oidc) = scheme.pointer_mut("/openIdConnectSecurityScheme") {
            oidc["openIdConnectUrl"] = url.into();
        }
    }
    card
}

fn oauth() -> OAuth2ClientCredentials {
    OAuth2ClientCredentials::new("client-1", Secret::new(CLIENT_SECRET))
}

async fn oauth_agent(openid_connect: bool) -> RunningAgent {
    guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), openid_connect)).await
}

/// Every request `agent` received, none carrying a credential header.
fn none_carried_credentials(agent: &RunningAgent) -> bool {
    agent
        .requests()
        .iter()
        .all(|r| r.header("authorization").is_none() && r.header("x-api-key").is_none() && r.query.is_none())
}

#[tokio::test]
async fn credentials_are_withheld_from_an_interface_on_another_origin() {
    let agent = guarded(Guard::bearer(TOKEN)).await;
    let base = card_elsewhere(&agent).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new(TOKEN))));
    let connection = client.connect(&base).await.unwrap();
    let err = connection.send_message(text("hi")).await.unwrap_err();

    assert_eq!((err.kind(), err.status()), (ErrorKind::Auth, Some(401)), "{err}");
    let shown = err.to_string();
    assert!(shown.contains("withheld") && shown.contains(&agent.base_url()), "{shown}");
    assert!(shown.contains("allow_credential_origin"), "says how to allow it: {shown}");
    assert!(!shown.contains(TOKEN) && !format!("{err:?}").contains(TOKEN));
    assert_eq!(agent.requests_for("SendMessage").len(), 1, "the request went, without credentials");
    assert!(none_carried_credentials(&agent), "{:?}", agent.requests());
}

#[tokio::test]
async fn an_api_key_is_withheld_from_an_interface_on_another_origin() {
    let agent = guarded(Guard::api_key(KeyLocation::Header, "X-Api-Key", "key-SECRET-2")).await;
    let base = card_elsewhere(&agent).await;
    let client = client(Credentials::new().with(ApiKey::new(Secret::new("key-SECRET-2"))));
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert!(err.to_string().contains("withheld"), "{err}");
    assert!(none_carried_credentials(&agent), "{:?}", agent.requests());
    // Over HTTP+JSON too: the scope is the connection's, whatever its binding.
    let from = a2a_typestate_client::AgentBaseUrl::parse(&base).unwrap();
    let card = client.discover_agent(&from).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && i.binding == ProtocolBinding::HttpJson)
        .unwrap();
    let over_rest = a2a_typestate_client::AgentConnection::open(&client, from, card, interface).unwrap();
    let rest = over_rest.send_message(text("hi")).await.unwrap_err();
    assert_eq!(rest.kind(), ErrorKind::Auth, "{rest}");
    assert!(none_carried_credentials(&agent), "{:?}", agent.requests());
}

#[tokio::test]
async fn the_extended_card_on_another_origin_is_not_fetched_with_the_credentials() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer(TOKEN))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let base = card_elsewhere(&agent).await;
    let client = client(Credentials::new().with(BearerToken::new(Secret::new(TOKEN))));
    let connection = client.connect(&base).await.unwrap();
    assert!(!connection.uses_extended_card());
    let why = connection.extended_card_error().expect("the reason is kept");
    assert!(why.kind() == ErrorKind::Auth && why.to_string().contains("withheld"), "{why}");
    assert!(agent.requests_for("GetExtendedAgentCard").is_empty(), "not asked for without credentials");
    assert!(none_carried_credentials(&agent), "{:?}", agent.requests());
}

#[tokio::test]
async fn an_allowed_origin_receives_the_credentials() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::bearer(TOKEN))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let base = card_elsewhere(&agent).await;
    let client = builder()
        .credentials(Credentials::new().with(BearerToken::new(Secret::new(TOKEN))))
        .allow_credential_origin(agent.base_url())
        .build()
        .unwrap();
    let connection = client.connect(&base).await.unwrap();
    assert!(connection.uses_extended_card(), "{:?}", connection.extended_card_error());
    completes(&connection).await;
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(agent.requests_for("GetExtendedAgentCard")[0].header("authorization"), Some(bearer.as_str()));
    assert_eq!(agent.requests_for("SendMessage")[0].header("authorization"), Some(bearer.as_str()));
}

#[tokio::test]
async fn an_allowed_origin_may_issue_the_token_and_receive_it() {
    let agent = oauth_agent(false).await;
    let base = card_elsewhere(&agent).await;
    let client = builder()
        .credentials(Credentials::new().with(oauth()))
        .allow_credential_origin(agent.base_url())
        .build()
        .unwrap();
    completes(&client.connect(&base).await.unwrap()).await;
    assert_eq!(token_requests(&agent), 1);
}

#[tokio::test]
async fn a_token_url_on_another_origin_is_sent_no_client_secret() {
    let agent = oauth_agent(false).await;
    let issuer = oauth_agent(false).await;
    // The interface is allowed; the card's token URL is on a third origin.
    let base = serve_card(with_scheme_url(&agent, &issuer.token_url())).await;
    let client = builder()
        .credentials(Credentials::new().with(oauth()))
        .allow_credential_origin(agent.base_url())
        .build()
        .unwrap();
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    let shown = err.to_string();
    assert!(shown.contains("withheld") && shown.contains("token endpoint"), "{shown}");
    assert!(shown.contains(&issuer.base_url()) && !shown.contains(CLIENT_SECRET), "{shown}");
    assert!(issuer.requests().is_empty(), "the other origin was contacted: {:?}", issuer.requests());
    assert!(agent.requests_for("SendMessage").is_empty(), "no request without the token");
}

#[tokio::test]
async fn an_openid_connect_url_on_another_origin_is_never_contacted() {
    let agent = oauth_agent(true).await;
    let issuer = oauth_agent(true).await;
    let discovery = format!("{}{}", issuer.base_url(), a2a_testkit::auth::OPENID_CONFIGURATION_PATH);
    let base = serve_card(with_scheme_url(&agent, &discovery)).await;
    let client = builder()
        .credentials(Credentials::new().with(oauth()))
        .allow_credential_origin(agent.base_url())
        .build()
        .unwrap();
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert!(err.to_string().contains("discovery document"), "{err}");
    assert!(issuer.requests().is_empty(), "{:?}", issuer.requests());
}

#[tokio::test]
async fn a_token_url_in_link_local_space_is_refused_before_any_request() {
    let agent = oauth_agent(false).await;
    for url in ["http://169.254.169.254/oauth/token", "http://169.254.10.1:8080/token"] {
        let base = serve_card(with_scheme_url(&agent, url)).await;
        // Even an allowed origin: the URL policy refuses it first, as it would an interface.
        let client = builder()
            .credentials(Credentials::new().with(oauth()))
            .allow_credential_origin(agent.base_url())
            .allow_credential_origin(url)
            .build()
            .unwrap();
        let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config, "{err}");
        assert!(
            err.to_string().contains("url policy") && err.to_string().contains("link-local")
                || err.to_string().contains("metadata"),
            "{err}"
        );
    }
    assert!(agent.requests_for("SendMessage").is_empty());
}

#[tokio::test]
async fn an_openid_connect_url_at_a_metadata_address_is_refused_before_any_request() {
    let agent = oauth_agent(true).await;
    let url = "http://169.254.169.254/.well-known/openid-configuration";
    let base = serve_card(with_scheme_url(&agent, url)).await;
    let client = builder()
        .credentials(Credentials::new().with(oauth()))
        .allow_credential_origin(agent.base_url())
        .allow_credential_origin(url)
        .build()
        .unwrap();
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    assert!(err.to_string().contains("cloud metadata address"), "{err}");
}

#[tokio::test]
async fn a_users_own_token_url_is_checked_against_the_url_policy_too() {
    let agent = oauth_agent(false).await;
    let credentials = Credentials::new().with(oauth().token_url("http://169.254.169.254/token"));
    let err = client(credentials).connect(&agent.base_url()).await.unwrap().send_message(text("hi")).await;
    assert_eq!(err.unwrap_err().kind(), ErrorKind::Config);
}

#[tokio::test]
async fn a_token_fetched_for_one_origin_is_never_sent_to_another() {
    let first = oauth_agent(false).await;
    let second = oauth_agent(false).await;
    // One provider for every agent, with the user's own token URL: the first agent's endpoint.
    let credentials = Credentials::new().with(oauth().token_url(first.token_url()));
    let client = client(credentials);
    completes(&client.connect(&first.base_url()).await.unwrap()).await;
    let issued = first.requests_for("SendMessage")[0].header("authorization").unwrap().to_owned();

    // The second agent knows none of the first's tokens; what matters is which one it was sent.
    let _ = client.connect(&second.base_url()).await.unwrap().send_message(text("hi")).await;
    let sent: Vec<String> = second
        .requests_for("SendMessage")
        .iter()
        .filter_map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert!(!sent.is_empty(), "the second agent was sent a token of its own");
    assert!(!sent.contains(&issued), "the first origin's token went to the second: {sent:?}");
}

#[test]
fn an_allowed_origin_must_be_an_http_url() {
    let err = builder().allow_credential_origin("ftp://files.example").build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(err.to_string().contains("ftp://files.example"), "{err}");
}
