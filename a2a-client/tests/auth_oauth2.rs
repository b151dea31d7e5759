//! OAuth 2.0 client credentials against the testkit's token endpoint: tokens cached, fetched again
//! before they expire and once after a 401, OpenID Connect discovery, a refused secret. Each on
//! every HTTP stack (`http_stack_common`): token and discovery requests go through it too.

mod auth_common;
mod http_stack_common;

use std::sync::Arc;
use std::time::Duration;

use a2a_typestate_client::ErrorKind;
use a2a_typestate_client::auth::{ClientAuthentication, Credentials, OAuth2ClientCredentials, Secret};

use a2a_typestate_client::Client;
use auth_common::*;
use http_stack_common::HttpStack;

fn client_over(stack: HttpStack, credentials: Credentials) -> Client {
    stack.with(builder()).credentials(credentials).build().unwrap()
}

#[tokio::test]
async fn oauth2_tokens_are_cached_and_fetched_again_before_they_expire() {
    for stack in HttpStack::each() {
        let agent = guarded(oauth_guard(Duration::from_secs(2), Duration::from_secs(2), false)).await;
        let oauth = Arc::new(OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5")));
        let credentials = Credentials::new().with_shared(None, None, oauth.clone()).unwrap();
        let connection = client_over(stack, credentials).connect(&agent.base_url()).await.unwrap();
        completes(&connection).await;
        completes(&connection).await;
        assert_eq!((oauth.tokens_fetched(), token_requests(&agent)), (1, 1), "one token for two calls");
        // A 2 s token is fetched again at half its life, before the agent would refuse it.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        completes(&connection).await;
        assert_eq!(token_requests(&agent), 2);
        assert_eq!(agent.requests_for("SendMessage").len(), 3, "no call was refused");
        let form = agent.requests().into_iter().find(|r| r.path == a2a_testkit::auth::TOKEN_PATH).unwrap();
        assert!(form.header("authorization").is_some_and(|v| v.starts_with("Basic ")), "client_secret_basic");
    }
}

#[tokio::test]
async fn a_token_the_agent_expired_early_is_refreshed_once_after_the_401() {
    for stack in HttpStack::each() {
        // The endpoint says an hour; the agent forgets the token after 300 ms.
        let agent = guarded(oauth_guard(Duration::from_millis(300), Duration::from_secs(3600), false)).await;
        let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"))
            .client_authentication(ClientAuthentication::FormBody);
        let connection =
            client_over(stack, Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
        completes(&connection).await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        completes(&connection).await;
        assert_eq!(token_requests(&agent), 2, "the 401 caused one new token");
        assert_eq!(agent.requests_for("SendMessage").len(), 3, "first call, the refused one, its resend");
    }
}

#[tokio::test]
async fn a_refused_client_secret_is_an_auth_error_naming_the_token_endpoint_not_the_secret() {
    for stack in HttpStack::each() {
        let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
        let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("bad-secret-4"));
        let connection =
            client_over(stack, Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
        let err = connection.send_message(text("hi")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Auth);
        let shown = err.to_string();
        assert!(shown.contains("invalid_client") && shown.contains("/oauth/token"), "{shown}");
        assert!(!shown.contains("bad-secret-4") && !format!("{err:?}").contains("bad-secret-4"));
        assert!(agent.requests_for("SendMessage").is_empty(), "no request without a token");
    }
}

#[tokio::test]
async fn openid_connect_discovery_finds_the_token_endpoint() {
    for stack in HttpStack::each() {
        let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), true)).await;
        let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"));
        let connection =
            client_over(stack, Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
        completes(&connection).await;
        completes(&connection).await;
        let discoveries = agent
            .requests()
            .iter()
            .filter(|r| r.path == a2a_testkit::auth::OPENID_CONFIGURATION_PATH)
            .count();
        assert_eq!((discoveries, token_requests(&agent)), (1, 1));
    }
}

#[tokio::test]
async fn concurrent_requests_without_a_token_wait_for_one_token_fetch() {
    for stack in HttpStack::each() {
        let agent = guarded(oauth_guard(Duration::from_secs(60), Duration::from_secs(60), false)).await;
        let oauth = OAuth2ClientCredentials::new("client-1", Secret::new("cs-oauth-5"));
        let connection =
            client_over(stack, Credentials::new().with(oauth)).connect(&agent.base_url()).await.unwrap();
        let sends = (0..8).map(|_| connection.send_message(text("hi")));
        for outcome in futures::future::join_all(sends).await {
            outcome.unwrap();
        }
        assert_eq!(token_requests(&agent), 1);
    }
}
