//! Agent text reaching a person: no control characters, no bidi overrides, cut in tables, whole in `--json`.

mod common;

use a2a_testkit::ScriptedAgent;
use common::{a2a, a2a_with_env, serve_card_json, stderr, stdout};

/// The longest text a table cell shows before the cut says how much it left out
/// (`sanitize::MESSAGE_MAX_CHARS`).
const MESSAGE_MAX_CHARS: usize = 2_000;
use serde_json::{Value, json};

const FORGED_NAME: &str = "liar\r\n  honest-agent\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202E}verified";

#[tokio::test]
async fn a_card_name_cannot_forge_lines_or_reach_the_terminal_with_escapes() {
    let long_description = "d".repeat(100_000);
    let agent = ScriptedAgent::builder()
        .name(FORGED_NAME)
        .description(long_description.clone())
        .spawn()
        .await
        .unwrap();
    // Laid out at a width (a terminal's, or `COLUMNS`): the cut text wraps within it.
    let output = a2a_with_env(&["card", &agent.base_url()], &[("COLUMNS", "120")]).await;
    let shown = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!shown.contains('\u{1b}') && !shown.contains('\r') && !shown.contains('\u{202E}'), "{shown:?}");
    let title = shown.lines().next().unwrap();
    assert!(
        title.contains("liar") && title.contains("honest-agent"),
        "the name stays on its own line: {title:?}"
    );
    assert!(!shown.lines().any(|l| l.trim_start().starts_with("honest-agent")), "{shown}");
    let longest = shown.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 400, "a table line of {longest} characters");
    assert!(shown.contains("more characters"), "the cut says so");
    // Piped with no width, rows are not wrapped: the cut alone bounds the 100,000 characters.
    let piped = stdout(&a2a(&["card", &agent.base_url()]).await);
    let longest = piped.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 2 * MESSAGE_MAX_CHARS, "a line of {longest} characters");
    assert!(piped.contains("more characters"), "the cut says so");

    let output = a2a(&["card", "--json", &agent.base_url()]).await;
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["name"], FORGED_NAME, "--json keeps the whole text");
    assert_eq!(summary["description"], long_description.as_str());
    assert!(!String::from_utf8_lossy(&output.stdout).contains('\u{1b}'), "escaped in JSON");
}

#[tokio::test]
async fn fifty_thousand_unknown_interfaces_give_a_bounded_error() {
    let interfaces: Vec<Value> = (0..50_000)
        .map(|i| json!({"url": format!("http://127.0.0.1:9/{i}"), "protocolBinding": "SMOKE\u{1b}[31m", "protocolVersion": "9.9"}))
        .collect();
    let base = serve_card_json(json!({
        "name": "many", "description": "", "version": "1", "skills": [],
        "supportedInterfaces": interfaces,
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "capabilities": {}
    }))
    .await;
    let output = a2a(&["card", &base]).await;
    let said = format!("{}{}", stdout(&output), stderr(&output));
    assert!(said.len() < 20_000, "{} bytes of output", said.len());
    assert!(!said.contains('\u{1b}'), "{}", &said[..said.len().min(500)]);
    let output = a2a(&["audit", &base]).await;
    let said = format!("{}{}", stdout(&output), stderr(&output));
    assert!(said.len() < 20_000, "audit: {} bytes of output", said.len());
    assert!(said.lines().all(|l| l.chars().count() < 2_400), "audit: a line past the message cut");
}

#[tokio::test]
async fn a_card_whose_only_interface_is_a_file_url_is_shown_with_that_fault_by_card_and_refused_by_audit() {
    let base = serve_card_json(json!({
        "name": "local-file", "description": "", "version": "1", "skills": [], "capabilities": {},
        "supportedInterfaces": [{"url": "file:///etc/passwd", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]
    }))
    .await;
    // `a2a card` shows what was served, the fault named; nothing will call it.
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("no interface this client would contact"), "{}", stdout(&output));
    assert!(stderr(&output).contains("only http and https"), "{}", stderr(&output));
    let output = a2a(&["audit", &base]).await;
    assert_ne!(output.status.code(), Some(0), "{}", stdout(&output));
}
