//! The run recorded in the design note, replayed as a 0.3 agent.

mod common;

use a2a_testkit::{Protocol, ScriptedAgent};
use common::*;
use serde_json::{Value, json};

async fn rpc_v03(agent: &a2a_testkit::RunningAgent, method: &str, params: Value) -> reqwest::Response {
    rpc_raw(agent, method, params, None).await
}

#[tokio::test]
async fn observed_run_replays_the_design_note_as_a_0_3_agent() {
    let agent = ScriptedAgent::observed_run().spawn().await.unwrap();
    assert_eq!(agent.protocol(), Protocol::V0_3);

    // The card: 0.3 shape at the 0.2/0.3 path, claiming history and push with text/plain input.
    assert!(agent.card_url().ends_with("/.well-known/agent.json"));
    let card: Value = http().get(agent.card_url()).send().await.unwrap().json().await.unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], agent.jsonrpc_url());
    assert_eq!(card["capabilities"]["stateTransitionHistory"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    assert!(card["defaultInputModes"].as_array().unwrap().contains(&json!("text/plain")));
    let new_path =
        http().get(format!("{}/.well-known/agent-card.json", agent.base_url())).send().await.unwrap();
    assert_eq!(new_path.status(), 404);

    // submitted, working, input-required.
    let first = read_sse(
        rpc_v03(&agent, "message/stream", json!({ "message": user_message_v03("summarise the logs") })).await,
    )
    .await;
    let results: Vec<&Value> = first.events.iter().map(|e| &e["result"]).collect();
    let kinds: Vec<&str> = results.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["task", "status-update", "status-update"]);
    assert_eq!(results[0]["status"]["state"], "submitted");
    assert_eq!(results[1]["status"]["state"], "working");
    assert_eq!(results[1]["final"], false);
    assert_eq!(results[2]["status"]["state"], "input-required");
    assert_eq!(results[2]["final"], true);
    let task_id = results[2]["taskId"].as_str().unwrap();
    let context_id = results[2]["contextId"].as_str().unwrap();

    // The clarification, with the right taskId and contextId: working, then completed with final: true,
    // and no artifact on the stream.
    let mut clarification = user_message_v03("only the errors");
    clarification["taskId"] = json!(task_id);
    clarification["contextId"] = json!(context_id);
    let second = read_sse(rpc_v03(&agent, "message/stream", json!({ "message": clarification })).await).await;
    let results: Vec<&Value> = second.events.iter().map(|e| &e["result"]).collect();
    let kinds: Vec<&str> = results.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["status-update", "status-update"], "the artifact never appears on the stream");
    assert_eq!(results[0]["status"]["state"], "working");
    assert_eq!(results[1]["status"]["state"], "completed");
    assert_eq!(results[1]["final"], true);

    // The artifact is only retrievable with tasks/get, and the history comes back empty.
    let got: Value = rpc_v03(&agent, "tasks/get", json!({ "id": task_id, "historyLength": 10 }))
        .await
        .json()
        .await
        .unwrap();
    let task = &got["result"];
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(task["artifacts"][0]["parts"][0]["kind"], "text");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "echo: only the errors");
    assert_eq!(task["history"], json!([]), "the history endpoint returns an empty array");

    let methods: Vec<Option<String>> = agent.requests().into_iter().map(|r| r.rpc_method).collect();
    assert_eq!(
        methods,
        [None, None, Some("message/stream".into()), Some("message/stream".into()), Some("tasks/get".into())]
    );
}

#[tokio::test]
async fn a_0_3_agent_answers_message_send_with_a_bare_task_and_ignores_the_version_header() {
    let agent = ScriptedAgent::builder().protocol(Protocol::V0_3).spawn().await.unwrap();
    let card = agent.card();
    assert_eq!(card["capabilities"]["stateTransitionHistory"], false);
    assert!(card.get("supportedInterfaces").is_none());
    let body: Value = rpc_v03(&agent, "message/send", json!({ "message": user_message_v03("hello 0.3") }))
        .await
        .json()
        .await
        .unwrap();
    let task = &body["result"];
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(task["status"]["message"]["role"], "agent");
    assert_eq!(task["history"][0]["kind"], "message");
    let one_oh = rpc(&agent, "SendMessage", json!({ "message": user_message("x") })).await;
    assert_eq!(one_oh["error"]["code"], -32601, "a 0.3 agent does not know 1.0 method names");
    assert!(one_oh["error"].get("data").is_none(), "0.3 errors carry no ErrorInfo");
    let rest =
        http().post(format!("{}/message:send", agent.rest_url())).json(&json!({})).send().await.unwrap();
    assert_eq!(rest.status(), 404, "a 0.3 agent serves JSON-RPC only");
}

#[tokio::test]
async fn a_0_3_agent_posts_the_task_to_push_webhooks_with_0_3_config_shapes() {
    let hook = a2a_testkit::WebhookReceiver::spawn().await.unwrap();
    let agent = ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .capabilities(a2a_testkit::Capabilities::none().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let config = json!({
        "url": hook.url("/v03"), "token": "tok",
        "authentication": { "schemes": ["Bearer"], "credentials": "cred" }
    });
    let body: Value = rpc_v03(
        &agent,
        "message/send",
        json!({ "message": user_message_v03("push 0.3"),
            "configuration": { "pushNotificationConfig": config } }),
    )
    .await
    .json()
    .await
    .unwrap();
    let task_id = body["result"]["id"].as_str().unwrap();
    let got = hook.wait_for(4, std::time::Duration::from_secs(5)).await;
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|c| c.body["kind"] == "task" && c.body["id"] == task_id), "0.3 posts the Task");
    assert_eq!(got[3].body["status"]["state"], "completed");
    assert_eq!(got[0].header("authorization"), Some("Bearer cred"));
    assert_eq!(got[0].header("x-a2a-notification-token"), Some("tok"));
    let listed: Value = rpc_v03(&agent, "tasks/pushNotificationConfig/list", json!({ "id": task_id }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["result"][0]["taskId"], task_id);
    assert_eq!(listed["result"][0]["pushNotificationConfig"]["authentication"]["schemes"][0], "Bearer");
}
