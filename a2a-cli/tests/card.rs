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

/// `a2a card URL` and `a2a card --json URL` on the card at `base`: both succeed, the card is
/// shown, and `fault` is named in the table, in the JSON's `faults` and on stderr.
async fn shown_with_the_fault(base: &str, name: &str, fault: &str) {
    let output = a2a(&["card", base]).await;
    let (shown, said) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "the card was read, so it is shown: {said}");
    assert!(shown.contains(name), "{shown}");
    assert!(shown.contains("Faults") && shown.contains(fault), "the fault is named: {shown}");
    assert!(said.contains(fault) && said.contains(&format!("{base}/.well-known/agent-card.json")), "{said}");

    let output = a2a(&["card", "--json", base]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["name"], name);
    let faults: Vec<&str> = summary["faults"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(faults.iter().any(|f| f.contains(fault)), "{faults:?}");
}

#[tokio::test]
async fn a_card_whose_url_is_empty_is_shown_with_the_fault_named() {
    // A 0.3 card: its `url` is its interface.
    let base = serve_card(
        r#"{"name":"empty-url","description":"d","version":"1","protocolVersion":"0.3.0","url":"",
            "preferredTransport":"JSONRPC","skills":[],"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"capabilities":{"streaming":true}}"#,
    )
    .await;
    shown_with_the_fault(&base, "empty-url", "url: expected a non-empty string").await;
    // A 1.0 card: an interface's `url`.
    let base = serve_card(
        r#"{"name":"empty-interface-url","description":"d","version":"1","skills":[],
            "supportedInterfaces":[{"url":"","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"capabilities":{}}"#,
    )
    .await;
    shown_with_the_fault(
        &base,
        "empty-interface-url",
        "supportedInterfaces[0].url: expected a non-empty string",
    )
    .await;
}

#[tokio::test]
async fn a_card_field_of_the_wrong_type_is_shown_with_the_fault_named() {
    let base = serve_card(
        r#"{"name":"bad","description":"","version":"1","skills":[],
            "supportedInterfaces":[{"url":"http://x/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "capabilities":{"streaming":"yes"}}"#,
    )
    .await;
    shown_with_the_fault(&base, "bad", "capabilities.streaming: expected a boolean, found a string").await;
    let output = a2a(&["card", &base]).await;
    assert!(stdout(&output).contains("http://x/a2a"), "the interfaces as written: {}", stdout(&output));
}

#[tokio::test]
async fn a_card_offering_no_interface_is_shown_with_the_fault_named() {
    let base = serve_card(
        r#"{"name":"lonely","description":"","version":"1","skills":[],"supportedInterfaces":[],
            "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{}}"#,
    )
    .await;
    shown_with_the_fault(&base, "lonely", "offers no interface").await;
    // Interfaces this client does not speak, or would not contact.
    let base = serve_card(
        r#"{"name":"elsewhere","description":"","version":"1","skills":[],
            "supportedInterfaces":[{"url":"http://x/a","protocolBinding":"KAFKA","protocolVersion":"9.0"}],
            "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{}}"#,
    )
    .await;
    shown_with_the_fault(&base, "elsewhere", "no interface this client speaks").await;
    let base = serve_card(
        r#"{"name":"local-file","description":"","version":"1","skills":[],
            "supportedInterfaces":[{"url":"file:///etc/passwd","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{}}"#,
    )
    .await;
    shown_with_the_fault(&base, "local-file", "no interface this client would contact").await;
}

#[tokio::test]
async fn a_card_that_is_not_a_json_object_is_not_shown_and_exits_1() {
    let base = serve_card("<html>login</html>").await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert!(
        stderr(&output).starts_with("error: ") && stderr(&output).contains("agent card"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn a_missing_card_says_both_well_known_paths_answered_404() {
    let base = serve_nothing().await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(2), "no card: no result");
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
    assert_eq!(output.status.code(), Some(2));
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
    // No host at all: the command line cannot be read (a host without its scheme is read as meant).
    let output = a2a(&["card", "agent example"]).await;
    assert_eq!(output.status.code(), Some(64));
    let said = stderr(&output);
    assert!(said.starts_with("error: ") && said.contains("`agent example` is no URL"), "{said}");
    // A scheme the client does not speak: the client's own error, naming the argument.
    let output = a2a(&["card", "ftp://agent.example"]).await;
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(said.starts_with("error: `ftp://agent.example`: "), "{said}");
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
