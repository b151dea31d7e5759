//! Conversations from the command line: `a2a send` continues a task that waits for input with the
//! command it printed, reads the message from stdin, sends the headers given with `-H` (never
//! printing their values), and gives the answer's text in `--json`.

mod common;

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use common::{a2a, a2a_with_stdin, stderr, stdout};
use serde_json::Value;

fn json_lines(output: &std::process::Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// The words of the `a2a send ...` line `shown` printed to continue the task, without `a2a` and the
/// placeholder reply.
fn continue_command(shown: &str) -> Vec<String> {
    let line = shown
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("a2a send "))
        .unwrap_or_else(|| panic!("no continue command: {shown}"));
    let words: Vec<String> = line.split_whitespace().map(|w| w.trim_matches('\'').to_owned()).collect();
    assert_eq!(words.last().map(String::as_str), Some("REPLY"), "{line}");
    words[1..words.len() - 2].to_vec()
}

#[tokio::test]
async fn a_task_waiting_for_input_exits_4_and_the_printed_command_continues_it_to_its_answer() {
    for capabilities in [Capabilities::none(), Capabilities::none().with_streaming()] {
        let agent = ScriptedAgent::builder().capabilities(capabilities.clone()).spawn().await.unwrap();
        let asked = a2a(&["send", &agent.base_url(), "please clarify the plan"]).await;
        let shown = stdout(&asked);
        assert_eq!(asked.status.code(), Some(4), "{capabilities:?}: {shown}\n{}", stderr(&asked));
        assert!(shown.contains("waits for your input"), "{shown}");
        assert!(!shown.contains("ended before the claim"), "the task did not end: {shown}");

        let mut words = continue_command(&shown);
        words.push("in metric units".to_owned());
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let answered = a2a(&words).await;
        assert_eq!(
            answered.status.code(),
            Some(0),
            "{words:?}: {}\n{}",
            stdout(&answered),
            stderr(&answered)
        );
        let tasks: Vec<String> = agent
            .requests()
            .iter()
            .filter_map(|r| r.body.as_ref()?.pointer("/params/message/taskId")?.as_str().map(str::to_owned))
            .collect();
        assert_eq!(tasks.len(), 1, "only the reply names the task: {tasks:?}");
        assert!(words.contains(&tasks[0].as_str()), "the reply continues the task that asked");
        assert_eq!(agent.executions(), 1, "one task, run once");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn the_json_result_of_a_waiting_task_names_the_ids_that_continue_it() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let output = a2a(&["send", "--json", &agent.base_url(), "please clarify the plan"]).await;
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let lines = json_lines(&output);
    let result = lines.last().unwrap();
    assert_eq!(result["state"], "TASK_STATE_INPUT_REQUIRED");
    let task = &result["answer"]["task"];
    assert_eq!(result["continueWith"]["taskId"], task["id"]);
    assert_eq!(result["continueWith"]["contextId"], task["contextId"]);
}

#[tokio::test]
async fn the_message_is_read_from_stdin_when_text_is_a_dash_or_left_out() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    for args in [vec!["send", "--json", &agent.base_url(), "-"], vec!["send", "--json", &agent.base_url()]] {
        let output = a2a_with_stdin(&args, "piped question\n").await;
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr(&output));
        let result = json_lines(&output).pop().unwrap();
        assert_eq!(result["text"], "echo: piped question", "the newline echo adds is no part of it");
    }
    let empty = a2a_with_stdin(&["send", &agent.base_url(), "-"], "").await;
    assert_eq!(empty.status.code(), Some(64), "no message is a usage error");
    assert!(stderr(&empty).contains("empty"), "{}", stderr(&empty));
    assert_eq!(agent.executions(), 2, "the empty message was never sent");
}

#[tokio::test]
async fn the_json_result_carries_the_answers_text() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let output = a2a(&["send", "--json", &agent.base_url(), "what is the time"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = json_lines(&output).pop().unwrap();
    let artifacts = result["answer"]["task"]["artifacts"].as_array().unwrap();
    let from_parts: Vec<&str> = artifacts
        .iter()
        .flat_map(|a| a["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert!(!from_parts.is_empty(), "{result:#}");
    assert_eq!(result["text"], from_parts.join("\n"));
}

#[tokio::test]
async fn headers_given_with_dash_h_reach_the_agent_and_their_values_are_never_printed() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let secret = "tenant-secret-81f3";
    let output = a2a(&["send", "-H", &format!("X-Tenant: {secret}"), &agent.base_url(), "hello"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let sends = agent.requests_for("SendMessage");
    assert_eq!(sends[0].header("x-tenant"), Some(secret));
    assert!(!stdout(&output).contains(secret) && !stderr(&output).contains(secret));

    let listed = a2a(&["tasks", "list", "--header", &format!("X-Tenant:{secret}"), &agent.base_url()]).await;
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    assert_eq!(agent.requests_for("ListTasks")[0].header("x-tenant"), Some(secret));

    for malformed in
        [format!("X-Tenant {secret}"), format!("X Tenant: {secret}"), format!("X-Tenant: {secret}\u{7}")]
    {
        let output = a2a(&["send", "-H", &malformed, &agent.base_url(), "hello"]).await;
        assert_eq!(output.status.code(), Some(2), "{malformed:?}: {}", stderr(&output));
        let said = format!("{}{}", stdout(&output), stderr(&output));
        assert!(said.contains("header"), "{said}");
        assert!(!said.contains(secret), "a malformed header's value is not echoed: {said}");
    }
}

#[tokio::test]
async fn a_refusal_is_printed_before_the_fallbacks_answer() {
    let agent =
        ScriptedAgent::builder().script(Script::honest().with(Lie::StreamingRefused)).spawn().await.unwrap();
    let output = a2a(&["send", &agent.base_url(), "are you there"]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    let refused = shown.find("refused").unwrap_or_else(|| panic!("no refusal: {shown}"));
    let answer = shown.find("answer").unwrap_or_else(|| panic!("no answer: {shown}"));
    assert!(refused < answer, "the refusal comes first: {shown}");
}
