//! `a2a audit` and `a2a card` against agents that require credentials, taken from environment
//! variables and files: the extended card is shown and audited, and no secret is ever printed.

use std::process::Output;
use std::time::Duration;

use a2a_testkit::{Capabilities, Guard, KeyLocation, OAuth2Guard, RunningAgent, ScriptedAgent};
use serde_json::Value;

const TOKEN: &str = "cli-bearer-SECRET-1";

async fn a2a_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"));
    command.args(args).env_remove("NO_COLOR").env_remove("RUST_LOG").kill_on_drop(true);
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("a2a finishes")
        .expect("a2a runs")
}

fn shown(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn assert_no_secret(output: &Output, secrets: &[&str]) {
    let all = shown(output);
    for secret in secrets {
        assert!(!all.contains(secret), "{secret} printed:\n{all}");
    }
}

async fn guarded_with_extended_streaming() -> RunningAgent {
    ScriptedAgent::builder()
        .name("guarded")
        .guard(Guard::bearer(TOKEN))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap()
}

#[tokio::test]
async fn card_shows_the_extended_card_when_the_bearer_token_allows() {
    let agent = guarded_with_extended_streaming().await;
    let url = agent.base_url();
    let output =
        a2a_with_env(&["card", "--json", "--bearer-env", "AGENT_TOKEN", &url], &[("AGENT_TOKEN", TOKEN)])
            .await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["claims"]["streaming"], false, "the public card");
    assert_eq!(summary["extendedCard"]["claims"]["streaming"], true, "the extended card");
    assert_no_secret(&output, &[TOKEN]);

    let tables =
        a2a_with_env(&["card", "--bearer-env", "AGENT_TOKEN", &url], &[("AGENT_TOKEN", TOKEN)]).await;
    assert!(shown(&tables).contains("Extended card (fetched with the credentials)"), "{}", shown(&tables));
    let without = a2a_with_env(&["card", "--json", &url], &[]).await;
    let public: Value = serde_json::from_slice(&without.stdout).unwrap();
    assert!(public.get("extendedCard").is_none(), "no credentials, no extended card");
}

#[tokio::test]
async fn audit_checks_the_extended_cards_claims_with_the_credentials() {
    let agent = guarded_with_extended_streaming().await;
    let url = agent.base_url();
    let output = a2a_with_env(
        &["audit", "--json", "--push-arrival-bound", "1s", "--bearer-env", "AGENT_TOKEN", &url],
        &[("AGENT_TOKEN", TOKEN)],
    )
    .await;
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", shown(&output)));
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let audited = &report["agents"][0];
    assert!(audited["error"].is_null(), "{audited:#}");
    let streaming = audited["claims"].as_array().unwrap().iter().find(|c| c["capability"] == "streaming");
    assert_eq!(streaming.map(|c| c["verdict"].clone()), Some("verified".into()), "{audited:#}");
    assert_no_secret(&output, &[TOKEN]);
}

#[tokio::test]
async fn audit_without_fitting_credentials_names_the_schemes_and_prints_no_secret() {
    let agent = guarded_with_extended_streaming().await;
    let url = agent.base_url();
    let none = a2a_with_env(&["audit", "--json", &url], &[]).await;
    assert_eq!(none.status.code(), Some(2), "{}", shown(&none));
    let report: Value = serde_json::from_slice(&none.stdout).unwrap();
    let error = report["agents"][0]["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.contains("bearer (http bearer)"), "{error}");

    let wrong =
        a2a_with_env(&["audit", "--bearer-env", "AGENT_TOKEN", &url], &[("AGENT_TOKEN", "wrong-SECRET-2")])
            .await;
    assert_eq!(wrong.status.code(), Some(2), "{}", shown(&wrong));
    assert!(shown(&wrong).contains("401"), "{}", shown(&wrong));
    assert_no_secret(&wrong, &["wrong-SECRET-2"]);

    let unset = a2a_with_env(&["audit", "--api-key-env", "NOT_SET_FOR_A2A_TEST", &url], &[]).await;
    assert_eq!(unset.status.code(), Some(2));
    assert!(
        shown(&unset).contains("--api-key-env: environment variable NOT_SET_FOR_A2A_TEST is not set"),
        "{}",
        shown(&unset)
    );
}

#[tokio::test]
async fn oauth2_client_credentials_come_from_a_file() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::OAuth2(OAuth2Guard {
            client_id: "cli-client".into(),
            client_secret: "cli-client-SECRET-3".into(),
            token_lifetime: Duration::from_secs(60),
            announced_lifetime: Duration::from_secs(60),
            openid_connect: false,
        }))
        .spawn()
        .await
        .unwrap();
    let dir =
        std::env::temp_dir().join(format!("a2a-cli-oauth-{}-{}", std::process::id(), agent.addr().port()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("oauth.json");
    std::fs::write(&file, r#"{"clientId": "cli-client", "clientSecret": "cli-client-SECRET-3"}"#).unwrap();
    let path = file.to_str().unwrap();
    let output =
        a2a_with_env(&["audit", "--json", "--oauth2-client-credentials", path, &agent.base_url()], &[]).await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    assert_no_secret(&output, &["cli-client-SECRET-3"]);

    // A wrong field type: the message says where, not what the value was.
    std::fs::write(&file, r#"{"clientId": "cli-client", "clientSecret": ["cli-client-SECRET-3"]}"#).unwrap();
    let bad = a2a_with_env(&["card", "--oauth2-client-credentials", path, &agent.base_url()], &[]).await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(shown(&bad).contains("line 1 column"), "{}", shown(&bad));
    assert_no_secret(&bad, &["cli-client-SECRET-3"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn header_env_sends_a_header_from_the_environment() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let output = a2a_with_env(
        &[
            "audit",
            "--json",
            "--header-env",
            "X-Team=TEAM_HEADER",
            "--header-env",
            "FULL_HEADER",
            &agent.base_url(),
        ],
        &[("TEAM_HEADER", "team-SECRET-4"), ("FULL_HEADER", "X-Other: other-SECRET-5")],
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(
        (sent.header("x-team"), sent.header("x-other")),
        (Some("team-SECRET-4"), Some("other-SECRET-5"))
    );
    assert_no_secret(&output, &["team-SECRET-4", "other-SECRET-5"]);
}

#[tokio::test]
async fn an_api_key_from_the_environment_reaches_a_query_scheme() {
    let agent = ScriptedAgent::builder()
        .guard(Guard::api_key(KeyLocation::Query, "key", "q-SECRET-6"))
        .spawn()
        .await
        .unwrap();
    let output = a2a_with_env(
        &["audit", "--json", "--api-key-env", "KEY", &agent.base_url()],
        &[("KEY", "q-SECRET-6")],
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    assert_no_secret(&output, &["q-SECRET-6"]);
}

#[tokio::test]
async fn audit_checks_the_protected_extended_cards_of_the_official_sdk_peers() {
    use a2a_testkit::official::{OfficialPeer, PEER_BEARER_TOKEN, PeerKind};
    for kind in PeerKind::AUTHENTICATED {
        let peer = OfficialPeer::start(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let output = a2a_with_env(
            &[
                "audit",
                "--json",
                "--push-arrival-bound",
                "10s",
                "--bearer-env",
                "PEER_TOKEN",
                peer.base_url(),
            ],
            &[("PEER_TOKEN", PEER_BEARER_TOKEN)],
        )
        .await;
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{kind}: {e}: {}", shown(&output)));
        assert_eq!(output.status.code(), Some(0), "{kind}: {report:#}");
        let audited = &report["agents"][0];
        let verdicts: Vec<(String, String)> = audited["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (c["capability"].as_str().unwrap().to_owned(), c["verdict"].as_str().unwrap().to_owned())
            })
            .collect();
        let verified = |name: &str| (name.to_owned(), "verified".to_owned());
        assert_eq!(verdicts, [verified("streaming"), verified("pushNotifications")], "{kind}: {audited:#}");
        assert_no_secret(&output, &[PEER_BEARER_TOKEN]);

        // The public card alone claims nothing; without the token the probe cannot even start.
        let without = a2a_with_env(&["audit", "--json", peer.base_url()], &[]).await;
        assert_eq!(without.status.code(), Some(2), "{kind}: {}", shown(&without));
        peer.stop().unwrap();
    }
}
