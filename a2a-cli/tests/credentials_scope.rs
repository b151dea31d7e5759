//! `a2a card` and `a2a audit` send credentials only to the agent's origin and the origins named
//! with `--allow-credential-origin`: a card served from one port whose interfaces are on another
//! gets no token there unless that origin is allowed.

use std::process::Output;
use std::time::Duration;

use a2a_testkit::{Capabilities, Guard, RunningAgent, ScriptedAgent};
use serde_json::Value;

const TOKEN: &str = "cli-scope-SECRET-1";

async fn a2a(args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"));
    command
        .args(args)
        .env("AGENT_TOKEN", TOKEN)
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .kill_on_drop(true);
    tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("a2a finishes")
        .expect("a2a runs")
}

fn shown(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

async fn guarded() -> RunningAgent {
    ScriptedAgent::builder()
        .name("guarded")
        .guard(Guard::bearer(TOKEN))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap()
}

/// Serves `agent`'s card from another port on loopback; returns that base URL.
async fn card_elsewhere(agent: &RunningAgent) -> String {
    let card = agent.card().clone();
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(move || async move { axum::Json(card) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

fn carried_the_token(agent: &RunningAgent) -> bool {
    agent.requests().iter().any(|r| r.header("authorization").is_some_and(|v| v.contains(TOKEN)))
}

#[tokio::test]
async fn card_withholds_the_token_from_an_interface_on_another_origin_and_says_so() {
    let agent = guarded().await;
    let base = card_elsewhere(&agent).await;
    let output = a2a(&["card", "--json", "--bearer-env", "AGENT_TOKEN", &base]).await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(summary.get("extendedCard").is_none(), "{summary:#}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("withheld") && said.contains("--allow-credential-origin"), "{said}");
    assert!(!carried_the_token(&agent), "{:?}", agent.requests());
    assert!(!shown(&output).contains(TOKEN));
}

#[tokio::test]
async fn allow_credential_origin_sends_the_token_to_that_origin() {
    let agent = guarded().await;
    let base = card_elsewhere(&agent).await;
    let url = agent.base_url();
    let output =
        a2a(&["card", "--json", "--bearer-env", "AGENT_TOKEN", "--allow-credential-origin", &url, &base])
            .await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["extendedCard"]["claims"]["streaming"], true, "{summary:#}");
    assert!(carried_the_token(&agent));
    assert!(!shown(&output).contains(TOKEN));
}

#[tokio::test]
async fn audit_reports_withheld_credentials_as_an_auth_error() {
    let agent = guarded().await;
    let base = card_elsewhere(&agent).await;
    let output = a2a(&["audit", "--json", "--bearer-env", "AGENT_TOKEN", &base]).await;
    assert_eq!(output.status.code(), Some(2), "{}", shown(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = report["agents"][0]["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.contains("withheld") && error.contains(&agent.base_url()), "{error}");
    assert!(!carried_the_token(&agent), "{:?}", agent.requests());
}

#[tokio::test]
async fn an_allowed_origin_that_is_not_a_url_is_named_with_its_flag() {
    let output = a2a(&["card", "--allow-credential-origin", "login.example.com", "http://127.0.0.1:9"]).await;
    assert_eq!(output.status.code(), Some(2), "{}", shown(&output));
    assert!(shown(&output).contains("--allow-credential-origin: login.example.com"), "{}", shown(&output));
}

/// `-H NAME:VALUE` is a header the user typed for the agent: it goes where credentials go, so a
/// card served from one origin whose interface is on another does not get it sent there.
#[tokio::test]
async fn a_typed_header_reaches_only_the_agents_origin_and_the_allowed_ones() {
    const HEADER: &str = "x-typed-secret";
    let agent = ScriptedAgent::builder().name("open").spawn().await.unwrap();
    let base = card_elsewhere(&agent).await;
    let typed = format!("{HEADER}: typed-SECRET-2");
    let carried = |agent: &RunningAgent| agent.requests().iter().any(|r| r.header(HEADER).is_some());

    let output = a2a(&["send", "-H", &typed, &base, "hello"]).await;
    assert!(agent.executions() >= 1, "the task still ran: {}", shown(&output));
    assert!(!carried(&agent), "the header went to another origin: {:?}", agent.requests());

    let url = agent.base_url();
    let output = a2a(&["send", "-H", &typed, "--allow-credential-origin", &url, &base, "hello"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", shown(&output));
    assert!(carried(&agent), "an allowed origin gets the header: {:?}", agent.requests());
    assert!(!shown(&output).contains("typed-SECRET-2"));
}
