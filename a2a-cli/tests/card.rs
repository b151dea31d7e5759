//! `a2a card URL` end to end: the built binary against real servers on loopback.

mod common;

use a2a_testkit::{Capabilities, CardPath, Protocol, ScriptedAgent};
use common::{a2a, a2a_with_env, has_escape_codes, serve_card, serve_nothing, stderr, stdout};
use serde_json::Value;

#[tokio::test]
async fn a_good_card_shows_versions_interfaces_and_claims() {
    let agent = ScriptedAgent::builder()
        .name("card-under-test")
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["card", &agent.base_url()]).await;
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("card-under-test"), "{shown}");
    assert!(shown.contains("protocol versions  1.0"), "{shown}");
    assert!(shown.contains(&agent.jsonrpc_url()) && shown.contains(&agent.rest_url()), "{shown}");
    assert!(shown.contains("JSONRPC") && shown.contains("HTTP+JSON"), "{shown}");
    let claim = |field: &str| {
        shown.lines().find(|l| l.trim_start().starts_with(field)).map(|l| l.split_whitespace().nth(1))
    };
    assert_eq!(claim("streaming"), Some(Some("yes")), "{shown}");
    assert_eq!(claim("pushNotifications"), Some(Some("yes")), "{shown}");
    assert_eq!(claim("stateTransitionHistory"), Some(Some("absent")), "{shown}");
    assert!(!has_escape_codes(&shown), "colour codes in a pipe: {shown:?}");
}

#[tokio::test]
async fn a_card_url_is_accepted_as_well_as_a_base_url_and_json_is_parseable() {
    let agent = ScriptedAgent::builder()
        .name("legacy")
        .protocol(Protocol::V0_3)
        .card_path(CardPath::AgentJson)
        .capabilities(Capabilities::none().with_streaming().with_state_transition_history())
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["card", "--json", &agent.card_url()]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["name"], "legacy");
    assert_eq!(summary["cardShape"], "0.3");
    assert_eq!(summary["legacyPath"], true);
    assert_eq!(summary["protocolVersions"], serde_json::json!(["0.3"]));
    assert_eq!(summary["claims"]["streaming"], true);
    assert_eq!(summary["claims"]["stateTransitionHistory"], true);
    assert_eq!(summary["interfaces"][0]["url"], agent.jsonrpc_url());
}

#[tokio::test]
async fn a_type_error_names_the_path_and_what_was_expected() {
    let base = serve_card(
        r#"{"name":"bad","description":"","version":"1","skills":[],
            "supportedInterfaces":[{"url":"http://x/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "capabilities":{"streaming":"yes"}}"#,
    )
    .await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.contains("capabilities.streaming: expected a boolean, found a string"), "{said}");
    assert!(said.contains(&format!("{base}/.well-known/agent-card.json")), "{said}");
    assert!(stdout(&output).is_empty());
}

#[tokio::test]
async fn a_card_offering_no_interface_is_refused_with_the_reason() {
    let base = serve_card(
        r#"{"name":"lonely","description":"","version":"1","skills":[],"supportedInterfaces":[],
            "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{}}"#,
    )
    .await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("offers no interface"), "{}", stderr(&output));
}

#[tokio::test]
async fn a_missing_card_says_both_well_known_paths_answered_404() {
    let base = serve_nothing().await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.contains("no agent card"), "{said}");
    assert!(
        said.contains("/.well-known/agent-card.json") && said.contains("/.well-known/agent.json"),
        "{said}"
    );
    assert!(said.contains("404"), "{said}");
}

#[tokio::test]
async fn an_unreachable_agent_is_a_connection_error_not_a_panic() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let output = a2a(&["card", "--request-timeout", "5s", &base]).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with("error: "), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"));
}

#[tokio::test]
async fn colour_is_written_only_when_asked_for_off_a_terminal() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let forced = a2a(&["--color", "always", "card", &agent.base_url()]).await;
    assert!(has_escape_codes(&stdout(&forced)), "--color always must colour");
    let auto = a2a(&["card", &agent.base_url()]).await;
    assert!(!has_escape_codes(&stdout(&auto)));
}

#[tokio::test]
async fn an_argument_that_is_not_a_url_is_named_in_the_error() {
    let output = a2a(&["card", "agent.example"]).await;
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.starts_with("error: `agent.example`: ") && said.contains("not a url"), "{said}");
}

#[tokio::test]
async fn the_environments_proxy_variables_carry_the_card_request_and_no_proxy_is_honoured() {
    let target = ScriptedAgent::builder().name("behind-a-proxy").spawn().await.unwrap();
    // The "proxy" is a second agent: it answers what it is sent, so it serves its own card.
    let proxy = ScriptedAgent::builder().name("the-proxy").spawn().await.unwrap();
    let via = format!("http://{}", proxy.addr());
    let output = a2a_with_env(&["card", &target.base_url()], &[("HTTP_PROXY", &via)]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(target.requests().is_empty(), "the target was reached directly");
    let through = proxy.requests();
    assert_eq!(through.len(), 1);
    assert_eq!(through[0].header("host"), Some(target.addr().to_string().as_str()));

    let output =
        a2a_with_env(&["card", &target.base_url()], &[("http_proxy", &via), ("NO_PROXY", "127.0.0.1")]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("behind-a-proxy"), "{}", stdout(&output));
    assert_eq!(target.requests().len(), 1, "NO_PROXY sends the request direct");
    assert_eq!(proxy.requests().len(), 1);
}
