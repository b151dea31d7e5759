//! An HTTP error from an agent is shown with its status and the start of its body, sanitised: the
//! body of a 500 is usually the only place that says why.

mod common;

use a2a_testkit::{Capabilities, Quirk, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

/// What the agent answers every operation but the stream with: a reason first, then an escape
/// sequence, a credential it echoes back, and a tail past what an error quotes.
const LEAD: &str = "Traceback (most recent call last): KeyError: 'task_id' in handler get_task";
const SECRET: &str = "sk-live-0123456789";
const TAIL: &str = "TAIL-PAST-THE-QUOTE";
const BODY: &str = concat!(
    "Traceback (most recent call last): KeyError: 'task_id' in handler get_task",
    "\u{1b}[31m\r\nrequest headers: Authorization: Bearer sk-live-0123456789\n",
    "                                                                                          ",
    "                                                                          TAIL-PAST-THE-QUOTE"
);

#[tokio::test]
async fn an_http_error_shows_its_status_and_the_start_of_its_body_sanitised() {
    assert!(BODY.starts_with(LEAD) && BODY.contains(SECRET));
    assert!(BODY.find(TAIL).is_some_and(|at| at > 200), "the tail lies past the first 200 bytes");
    let status = 500;
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::OnlyStreams { status, body: BODY }))
        .spawn()
        .await
        .unwrap();
    let quoted = format!("http status {status}: {LEAD}");
    let check = |said: &str, what: &str| {
        assert!(said.contains(&quoted), "{what}: the status and the start of the body: {said}");
        assert!(!said.contains('\u{1b}'), "{what}: an escape sequence reached the output: {said:?}");
        assert!(!said.contains(SECRET), "{what}: the echoed credential was shown: {said}");
        assert!(!said.contains(TAIL), "{what}: more than the start of the body: {said}");
    };

    let output = a2a(&["tasks", "get", &agent.base_url(), "some-task"]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    check(&stderr(&output), "tasks get");
    let output = a2a(&["tasks", "get", "--json", &agent.base_url(), "some-task"]).await;
    let line: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    check(line["error"].as_str().unwrap_or_default(), "tasks get --json");

    // The audit calls the interface without credentials: that answer's detail is the quoted error.
    let output = a2a(&["audit", "--json", &agent.base_url()]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let details: Vec<&str> = report["agents"][0]["cardClaims"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["reason"].as_str().or(c["evidence"].as_str()))
        .filter(|d| d.contains(&format!("http status {status}")))
        .collect();
    assert!(!details.is_empty(), "{report:#}");
    for detail in details {
        check(detail, "audit --json");
    }
}
