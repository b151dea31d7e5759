//! `a2a send URL TEXT` end to end: the built binary against scripted agents that stream, that do
//! not, and that claim streaming and refuse it, and against the official Python peer.

mod common;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use common::{a2a, has_escape_codes, stderr, stdout};
use serde_json::Value;

/// Every line of `--json` output, each parsed on its own.
fn json_lines(output: &std::process::Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

#[tokio::test]
async fn a_streaming_agent_is_streamed_each_event_shown_and_the_claim_verified() {
    let agent = ScriptedAgent::builder()
        .name("streamer")
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["send", "--json", &agent.base_url(), "hello there"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines = json_lines(&output);
    assert_eq!(lines[0]["type"], "card");
    assert_eq!(lines[0]["streamingClaimed"], true);
    assert_eq!(lines[0]["sentWith"], "SendStreamingMessage");
    let updates = of_type(&lines, "update");
    assert!(updates.iter().any(|u| u["update"]["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"));
    assert!(updates.iter().any(|u| u["update"]["artifactUpdate"].is_object()), "{lines:#?}");
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["streaming"], "verified");
    assert_eq!(result["path"], "negotiated");
    assert_eq!(result["state"], "TASK_STATE_COMPLETED");
    assert!(agent.requests_for("SendMessage").is_empty(), "no fallback for an honest agent");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);

    let output = a2a(&["send", &agent.base_url(), "hello again"]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("the card claims streaming"), "{shown}");
    assert!(shown.contains("status working"), "{shown}");
    assert!(shown.contains("streaming verified"), "{shown}");
    assert!(shown.contains("echo: hello again"), "{shown}");
    assert!(!shown.contains("refused"), "an honest agent is never called a liar: {shown}");
}

#[tokio::test]
async fn an_agent_that_does_not_stream_is_sent_and_followed_with_get_task() {
    let agent =
        ScriptedAgent::builder().name("poller").capabilities(Capabilities::none()).spawn().await.unwrap();
    let output = a2a(&["send", "--json", &agent.base_url(), "poll me"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines = json_lines(&output);
    assert_eq!(lines[0]["streamingClaimed"], false);
    assert_eq!(lines[0]["sentWith"], "SendMessage");
    assert!(!of_type(&lines, "update").is_empty(), "the send's answer and the polled task are shown");
    let result = lines.last().unwrap();
    assert_eq!(result["streaming"], "notClaimed");
    assert_eq!(result["state"], "TASK_STATE_COMPLETED");
    assert!(agent.requests_for("SendStreamingMessage").is_empty());
    assert!(!agent.requests_for("GetTask").is_empty(), "the task was followed with GetTask");
}

#[tokio::test]
async fn a_refused_streaming_claim_is_shown_with_the_fallbacks_answer_and_exit_status_1() {
    let agent = ScriptedAgent::builder()
        .name("liar")
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["send", &agent.base_url(), "are you there"]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("streaming refused"), "{shown}");
    assert!(shown.contains("evidence"), "{shown}");
    assert!(shown.contains("fallback"), "{shown}");
    assert!(shown.contains("echo: are you there"), "the fallback's answer is shown: {shown}");

    let output = a2a(&["send", "--json", &agent.base_url(), "again"]).await;
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output);
    let result = lines.last().unwrap();
    assert_eq!(result["streaming"], "refused");
    assert_eq!(result["path"], "fallback");
    assert_eq!(result["mayHaveRunTwice"], false, "the agent accepted no task before refusing");
    assert_eq!(result["refusals"][0]["capability"], "streaming");
    assert_eq!(result["answer"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn a_stream_refused_at_its_end_shows_the_tasks_own_answer_sent_once_and_exit_status_1() {
    let agent = ScriptedAgent::builder()
        .name("artifact-hider")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["send", &agent.base_url(), "are you there"]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("streaming refused"), "{shown}");
    assert!(shown.contains("nothing sent again"), "{shown}");
    assert!(shown.contains("echo: are you there"), "the refused task's own answer is shown: {shown}");
    assert!(agent.requests_for("SendMessage").is_empty(), "no fallback send");

    let output = a2a(&["send", "--json", &agent.base_url(), "again"]).await;
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output);
    let result = lines.last().unwrap();
    assert_eq!(result["streaming"], "refused");
    assert_eq!(result["path"], "keptAfterRefusal");
    assert_eq!(result["mayHaveRunTwice"], false);
    assert_eq!(result["ending"]["ending"], "completedBeforeRefusal");
    assert_eq!(result["answer"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(agent.requests_for("SendMessage").is_empty(), "no fallback send");
    assert_eq!(agent.executions(), 2, "two runs of the command, each task run once");
}

#[tokio::test]
async fn what_the_agent_sends_back_reaches_the_terminal_without_escape_codes() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let output = a2a(&["send", &agent.base_url(), "red\u{1b}[31m\u{1b}]0;title\u{7}text"]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("echo: red"), "{shown}");
    assert!(!has_escape_codes(&shown), "{shown:?}");
}

#[tokio::test]
async fn an_agent_that_cannot_be_reached_is_no_answer_with_exit_status_2() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let output = a2a(&["send", "--request-timeout", "2s", &format!("http://127.0.0.1:{port}"), "hi"]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("error:"), "{}", stderr(&output));
}

#[tokio::test]
async fn the_official_python_peer_answers_a_send() {
    let peer = OfficialPeer::start(PeerKind::PythonHonest).await.unwrap_or_else(|e| panic!("{e}"));
    let output = a2a(&["send", "--json", peer.base_url(), "hello python"]).await;
    assert_eq!(output.status.code(), Some(0), "{}\n{}", stdout(&output), stderr(&output));
    let lines = json_lines(&output);
    assert_eq!(lines[0]["type"], "card");
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result", "{lines:#?}");
    assert_eq!(result["state"], "TASK_STATE_COMPLETED", "{result:#}");
    if lines[0]["streamingClaimed"] == true {
        assert_eq!(result["streaming"], "verified", "an honest peer is never refused: {result:#}");
    }
}
