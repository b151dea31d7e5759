//! No credential ever shows: not in an error's `Display`, `Debug` or sources, not in the `Debug`
//! of the client, its credentials or a connection, not in anything traced at any level.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_testkit::{Capabilities, Guard, KeyLocation, OAuth2Guard, ScriptedAgent, TestPki};
use a2a_typestate_client::auth::{
    ApiKey, BasicAuth, BearerToken, ClientIdentity, Credentials, OAuth2ClientCredentials, Secret,
};
use a2a_typestate_client::{Client, RetryPolicy};
use a2a_typestate_types::{Message, SendMessageRequest};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn text() -> SendMessageRequest {
    SendMessageRequest::new(Message::user("hi"))
}

/// Everything an error shows: `Display`, `Debug`, and each source's `Display`.
fn shown(err: &a2a_typestate_client::Error) -> String {
    let mut all = format!("{err}\n{err:?}\n");
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        all.push_str(&format!("{cause}\n{cause:?}\n"));
        source = cause.source();
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_appears_in_errors_debug_output_or_traces() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _traced = tracing::subscriber::set_default(subscriber);
    // `set_default` covers this thread; the client's futures run on it (awaited here, not spawned).

    let secrets = [
        "bearer-SECRET-a1",
        "wrong-bearer-SECRET-a2",
        "apikey-SECRET-b1",
        "wrong-apikey-SECRET-b2",
        "basic-SECRET-c1",
        "wrong-basic-SECRET-c2",
        "client-SECRET-d1",
        "wrong-client-SECRET-d2",
        "header-SECRET-e1",
    ];
    let mut outputs: Vec<String> = Vec::new();
    let quick = || {
        Client::builder()
            .retry_policy(RetryPolicy::no_retry())
            .request_timeout(Duration::from_secs(10))
            .default_header("X-Tenant-Key", Secret::new("header-SECRET-e1"))
    };

    // Each scheme, with the right credential and with a wrong one.
    let bearer = ScriptedAgent::builder()
        .guard(Guard::bearer("bearer-SECRET-a1"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let query_key = ScriptedAgent::builder()
        .guard(Guard::api_key(KeyLocation::Query, "key", "apikey-SECRET-b1"))
        .spawn()
        .await
        .unwrap();
    let basic =
        ScriptedAgent::builder().guard(Guard::basic("alice", "basic-SECRET-c1")).spawn().await.unwrap();
    let oauth = ScriptedAgent::builder()
        .guard(Guard::OAuth2(OAuth2Guard {
            client_id: "client-1".into(),
            client_secret: "client-SECRET-d1".into(),
            token_lifetime: Duration::from_secs(60),
            announced_lifetime: Duration::from_secs(60),
            openid_connect: false,
        }))
        .spawn()
        .await
        .unwrap();
    let cases: Vec<(String, Credentials, bool)> = vec![
        (bearer.base_url(), Credentials::new().with(BearerToken::new("bearer-SECRET-a1")), true),
        (bearer.base_url(), Credentials::new().with(BearerToken::new("wrong-bearer-SECRET-a2")), false),
        (query_key.base_url(), Credentials::new().with(ApiKey::new("apikey-SECRET-b1")), true),
        (query_key.base_url(), Credentials::new().with(ApiKey::new("wrong-apikey-SECRET-b2")), false),
        (basic.base_url(), Credentials::new().with(BasicAuth::new("alice", "basic-SECRET-c1")), true),
        (basic.base_url(), Credentials::new().with(BasicAuth::new("alice", "wrong-basic-SECRET-c2")), false),
        (
            oauth.base_url(),
            Credentials::new().with(OAuth2ClientCredentials::new("client-1", "client-SECRET-d1")),
            true,
        ),
        (
            oauth.base_url(),
            Credentials::new().with(OAuth2ClientCredentials::new("client-1", "wrong-client-SECRET-d2")),
            false,
        ),
    ];
    for (url, credentials, accepted) in cases {
        outputs.push(format!("{credentials:?}"));
        let client = quick().credentials(credentials).build().unwrap();
        outputs.push(format!("{client:?}"));
        let connection = client.connect(&url).await.unwrap();
        outputs.push(format!("{connection:?}"));
        if let Some(err) = connection.extended_card_error() {
            outputs.push(shown(err));
        }
        for outcome in [
            connection.send_message(text()).await.map(drop),
            connection.get_extended_agent_card().await.map(drop),
        ] {
            if let Err(err) = outcome {
                outputs.push(shown(&err));
            }
        }
        let outcome = connection.send_message(text()).await;
        assert_eq!(outcome.is_ok(), accepted, "{url}: {outcome:?}");
        if let Err(err) = outcome {
            assert_eq!(err.kind(), a2a_typestate_client::ErrorKind::Auth, "{err}");
            outputs.push(shown(&err));
        }
    }
    // The issued OAuth 2.0 token is a secret too.
    let issued: Vec<String> = oauth
        .requests()
        .iter()
        .filter_map(|r| r.header("authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::to_owned))
        .collect();
    assert!(!issued.is_empty(), "the oauth agent saw its tokens");

    // A client identity's key, and connect errors when nothing fits.
    let pki = TestPki::generate().unwrap();
    let identity = ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap();
    outputs.push(format!("{identity:?}"));
    let key_line = pki.client_identity_pem.lines().nth(1).unwrap().to_owned();
    let nothing_fits =
        quick().credentials(Credentials::new().with(ApiKey::new("apikey-SECRET-b1"))).build().unwrap();
    let err = nothing_fits.connect(&basic.base_url()).await.unwrap_err();
    outputs.push(shown(&err));
    outputs.push(format!("{:?}", Secret::new("bearer-SECRET-a1")));

    let traced = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(traced.contains("fetched an oauth2 access token"), "tracing was captured:\n{traced}");
    assert!(traced.contains("extended agent card"), "the refused extended card was traced:\n{traced}");
    outputs.push(traced);
    let everything = outputs.join("\n");
    for expected in
        ["rejected the credentials", "invalid_client", "Secret([redacted])", "ClientIdentity([redacted])"]
    {
        assert!(everything.contains(expected), "the checked output holds {expected:?}");
    }
    for secret in secrets.iter().map(|s| s.to_string()).chain(issued).chain([key_line]) {
        assert!(!everything.contains(&secret), "{secret} leaked:\n{everything}");
    }
}
