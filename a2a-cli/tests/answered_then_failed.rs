//! An answer is an answer: an agent whose stream carries the whole answer to a terminal state and
//! that answers every other call with an HTTP error is never reported as giving no answer, and
//! `a2a send` exits 0 when it showed the agent's answer, the failed call after it a note.

mod common;

use a2a_testkit::{Capabilities, Quirk, Script, ScriptedAgent};
use common::{a2a, a2a_with_env, stderr, stdout};
use serde_json::Value;

const STATUS: u16 = 400;
const BODY: &str = "Bad Request: only message/stream is implemented";

async fn streams_only() -> a2a_testkit::RunningAgent {
    ScriptedAgent::builder()
        .name("streams-only")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::OnlyStreams { status: STATUS, body: BODY }))
        .spawn()
        .await
        .unwrap()
}

/// Whether `text` says nothing was answered: "no answer", "not answered", "unanswered", or a
/// clause "no ... was answered" (a clause ends at punctuation, a bracket or a table's column gap).
fn denies_an_answer(text: &str) -> bool {
    let text = text.to_lowercase();
    let clause_denies = text.match_indices("was answered").any(|(at, _)| {
        let before = text[..at].replace("  ", ";");
        let clause = before.rsplit([':', ';', '.', ',', '(', ')']).next().unwrap_or_default();
        clause.trim_start().starts_with("no ")
    });
    ["no answer", "not answered", "unanswered"].iter().any(|p| text.contains(p)) || clause_denies
}

/// Every string in a JSON document.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(text) => vec![text.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(members) => members.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_phrase_check_knows_a_denial_when_it_sees_one() {
    for denial in
        ["the probe got no answer", "no call without credentials was answered", "no probe call was answered"]
    {
        assert!(denies_an_answer(denial), "{denial}");
    }
    assert!(!denies_an_answer("the call without credentials was answered with nothing about access"));
    assert!(!denies_an_answer("open access (no security requirement)  unsettled  the call was answered"));
}

#[tokio::test]
async fn send_exits_0_when_it_showed_the_streamed_answer_and_notes_the_failed_call_after_it() {
    let agent = streams_only().await;
    let text = format!("hello {}", uuid::Uuid::new_v4());
    let output = a2a(&["send", &agent.base_url(), &text]).await;
    let (shown, said) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{shown}\n{said}");
    assert!(shown.contains(&text), "the streamed answer is shown: {shown}");
    assert!(shown.contains("completed"), "{shown}");
    // The `GetTask` after the answer was made and failed: a call the agent does not serve, read as
    // such by the streaming rule, never an error of the send (nor even a note: the task is done).
    assert!(!said.contains("error"), "{said}");
    assert!(!denies_an_answer(&shown) && !denies_an_answer(&said), "{shown}\n{said}");
    assert!(!agent.requests_for("GetTask").is_empty(), "the call after the answer was made and failed");

    let output = a2a(&["send", "--json", &agent.base_url(), &text]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result", "{result:#}");
    assert_eq!(result["state"], "TASK_STATE_COMPLETED", "{result:#}");
    assert!(result["followUpError"].is_null(), "the task ended with its answer: {result:#}");
    assert!(!strings(result).into_iter().any(denies_an_answer), "{result:#}");
}

#[tokio::test]
async fn the_audit_never_says_no_answer_after_a_streamed_answer() {
    let agent = streams_only().await;
    let output = a2a(&["audit", "--json", &agent.base_url()]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    for text in strings(&report) {
        assert!(!denies_an_answer(text), "{text:?} after a streamed answer:\n{report:#}");
    }
    let claims = report["agents"][0]["cardClaims"].as_array().cloned().unwrap_or_default();
    let security = claims.iter().find(|c| c["kind"] == "security").cloned().unwrap_or_default();
    // The credential-less `GetTask` said nothing about access; the probe itself, sent without
    // credentials and answered, did.
    assert_eq!(security["verdict"], "verified", "{security:#}");
    let streaming = &report["agents"][0]["claims"][0];
    assert_eq!(streaming["verdict"], "verified", "the stream carried the answer to its end: {report:#}");
    let output_modes = claims.iter().find(|c| c["kind"] == "output-modes").cloned().unwrap_or_default();
    assert_ne!(output_modes["verdict"], Value::Null, "{report:#}");

    // The same for people, whatever the width the table wraps at.
    let output = a2a_with_env(&["audit", &agent.base_url()], &[("COLUMNS", "10000")]).await;
    let shown = stdout(&output);
    for line in shown.lines() {
        assert!(!denies_an_answer(line), "{line:?}:\n{shown}");
    }
}
