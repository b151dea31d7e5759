//! A 0.3 agent over HTTP+JSON, as BeeAI serves it: the card prefers `HTTP+JSON`, the `/v1` routes
//! answer in 0.3 JSON (`kind`, lowercase states), errors are an HTTP status with `{"message"}`.
//! Checked with plain HTTP, never our client crate.

mod common;

use a2a_testkit::{Binding, Capabilities, Protocol, RunningAgent, ScriptedAgent};
use common::*;
use serde_json::{Value, json};

async fn agent() -> RunningAgent {
    ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .capabilities(Capabilities::none().with_streaming())
        .bindings([Binding::HttpJson, Binding::JsonRpc])
        .spawn()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_card_names_the_http_json_url_first_and_lists_both_interfaces() {
    let agent = agent().await;
    let card: Value = http().get(agent.card_url()).send().await.unwrap().json().await.unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(
        (card["url"].as_str(), card["preferredTransport"].as_str()),
        (Some(&*agent.rest_url()), Some("HTTP+JSON"))
    );
    let listed: Vec<&str> = card["additionalInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["transport"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["HTTP+JSON", "JSONRPC"]);
}

#[tokio::test]
async fn the_v1_routes_answer_in_0_3_json() {
    let agent = agent().await;
    let sent = http()
        .post(format!("{}/v1/message:send", agent.rest_url()))
        .json(&json!({ "message": user_message_v03("hello") }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    assert_eq!(sent.headers()["content-type"], "application/json");
    let task: Value = sent.json().await.unwrap();
    assert_eq!((task["kind"].as_str(), task["status"]["state"].as_str()), (Some("task"), Some("completed")));
    let id = task["id"].as_str().unwrap();

    let got: Value = http()
        .get(format!("{}/v1/tasks/{id}?historyLength=0", agent.rest_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], id);
    assert!(got.get("history").is_none_or(|h| h.as_array().unwrap().is_empty()), "{got}");

    let stream = http()
        .post(format!("{}/v1/message:stream", agent.rest_url()))
        .json(&json!({ "message": user_message_v03("stream") }))
        .send()
        .await
        .unwrap();
    let events = read_sse(stream).await.events;
    assert_eq!(events[0]["kind"], "task", "each data: is a bare 0.3 result");
    assert_eq!(events.last().unwrap()["final"], true);
}

#[tokio::test]
async fn errors_are_an_http_status_with_a_message_as_a2a_python_0_3_writes_them() {
    let agent = agent().await;
    let missing = http().get(format!("{}/v1/tasks/nope", agent.rest_url())).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("nope"), "{body}");
    assert!(body.get("error").is_none() && body.get("code").is_none(), "{body}");
    let push = http()
        .post(format!("{}/v1/tasks/nope/pushNotificationConfigs", agent.rest_url()))
        .json(&json!({ "pushNotificationConfig": { "url": "https://hook.example" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(push.status(), 501, "this agent has no push: not implemented");
    let unversioned =
        http().post(format!("{}/message:send", agent.rest_url())).json(&json!({})).send().await.unwrap();
    assert_eq!(unversioned.status(), 404, "0.3 routes live under /v1");
}
