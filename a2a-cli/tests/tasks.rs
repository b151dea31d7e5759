//! `a2a tasks list|get|cancel|subscribe` end to end: the built binary against scripted agents.

mod common;

use a2a_testkit::{Capabilities, Quirk, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

#[tokio::test]
async fn tasks_list_pages_through_every_task_and_says_how_many_pages_it_took() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let stored = agent.store_completed_tasks(120);

    let output = a2a(&["tasks", "list", "--page-size", "50", &agent.base_url()]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}\n{}", stderr(&output));
    for id in &stored {
        assert!(shown.contains(id.as_str()), "{id} missing");
    }
    assert!(shown.contains("120 task(s) in 3 page(s)"), "{shown}");
    assert_eq!(agent.requests_for("ListTasks").len(), 3);

    let output = a2a(&["tasks", "list", "--json", "--page-size", "50", &agent.base_url()]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let tasks: Vec<&Value> = lines.iter().filter(|l| l["type"] == "task").collect();
    assert_eq!(tasks.len(), 120);
    assert_eq!(tasks[0]["task"]["id"], stored.last().unwrap().as_str(), "newest first");
    let summary = lines.last().unwrap();
    assert_eq!((summary["tasks"].as_u64(), summary["pages"].as_u64()), (Some(120), Some(3)));
    assert_eq!(summary["complete"], true);
}

#[tokio::test]
async fn tasks_list_stops_at_a_repeated_page_token_with_exit_status_2_no_result() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().quirk(Quirk::RepeatsPageToken))
        .spawn()
        .await
        .unwrap();
    agent.store_completed_tasks(30);
    let output = a2a(&["tasks", "list", "--page-size", "10", &agent.base_url()]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let said = stderr(&output);
    assert!(said.contains("page 2") && said.contains("page 1"), "{said}");
    assert!(stdout(&output).contains("20 task(s) in 2 page(s)"), "{}", stdout(&output));
    assert_eq!(agent.requests_for("ListTasks").len(), 2, "no loop");

    // A listing longer than its page bound stops there, with an error.
    let longer = ScriptedAgent::builder().spawn().await.unwrap();
    longer.store_completed_tasks(30);
    let output = a2a(&["tasks", "list", "--page-size", "10", "--max-pages", "1", &longer.base_url()]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("after 1 ListTasks pages"), "{}", stderr(&output));
}

#[tokio::test]
async fn tasks_list_stops_at_its_limit_whatever_a_page_holds() {
    // Every page holds every task from its offset on, and names a next page forever.
    let agent = ScriptedAgent::builder()
        .script(Script::honest().quirk(Quirk::OverfullEndlessPages))
        .spawn()
        .await
        .unwrap();
    agent.store_completed_tasks(2_000);
    let output =
        a2a(&["tasks", "list", "--json", "--page-size", "10", "--limit", "25", &agent.base_url()]).await;
    assert_eq!(output.status.code(), Some(2), "the agent deviated: {}", stderr(&output));
    let lines: Vec<Value> = stdout(&output).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.iter().filter(|l| l["type"] == "task").count(), 10, "as many as the page was asked for");
    assert!(
        stderr(&output).contains("holds 2000 tasks where its pageSize asked for 10"),
        "{}",
        stderr(&output)
    );
    assert_eq!(agent.requests_for("ListTasks").len(), 1);

    // An honest agent with more tasks than the limit: the listing ends at it, exit 0.
    let honest = ScriptedAgent::builder().spawn().await.unwrap();
    honest.store_completed_tasks(100);
    let output = a2a(&["tasks", "list", "--page-size", "10", "--limit", "25", &honest.base_url()]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("25 task(s) in 3 page(s)"), "{}", stdout(&output));
}

#[tokio::test]
async fn tasks_get_cancel_and_subscribe_show_the_task() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let id = agent.store_completed_tasks(1).remove(0);

    let output = a2a(&["tasks", "get", "--json", &agent.base_url(), &id]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let task: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (task["id"].as_str(), task["status"]["state"].as_str()),
        (Some(id.as_str()), Some("TASK_STATE_COMPLETED"))
    );

    let output = a2a(&["tasks", "get", &agent.base_url(), "no-such-task"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("error:"), "{}", stderr(&output));

    // A finished task cannot be canceled: the agent's error, exit status 2 (no result).
    let output = a2a(&["tasks", "cancel", &agent.base_url(), &id]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));

    // A finished task is not streamed: it is followed with GetTask, and its one state shown.
    let output = a2a(&["tasks", "subscribe", &agent.base_url(), &id]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}\n{}", stderr(&output));
    assert!(shown.contains(&format!("task {id} completed")), "{shown}");
    assert!(stderr(&output).contains("following it with GetTask"), "{}", stderr(&output));
}
