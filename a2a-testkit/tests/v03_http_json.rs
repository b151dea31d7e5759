//! A 0.3 agent over HTTP+JSON, as BeeAI (on a2a-python 0.3) serves it: the card prefers `HTTP+JSON`,
//! the `/v1` routes read and answer the 0.3 proto's messages as ProtoJSON (`content`, `ROLE_USER`,
//! `TASK_STATE_COMPLETED`, streams of pretty-printed multi-line `data:`), a JSON-RPC-shaped body is a
//! 500, errors are an HTTP status with `{"message"}`. Checked with plain HTTP, never our client crate.

mod common;

use a2a_testkit::{Binding, Capabilities, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
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

/// A 0.3 proto `Message` as ProtoJSON: the user's, with one text part.
fn proto_message(text: &str) -> Value {
    json!({ "messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "content": [{ "text": text }] })
}

/// The events of an SSE body whose `data:` may span several lines, ended with CRLF or LF.
async fn sse_events(response: reqwest::Response) -> Vec<Value> {
    let text = response.text().await.unwrap().replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|frame| {
            let data: Vec<&str> = frame.lines().filter_map(|line| line.strip_prefix("data: ")).collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data.join("\n")).unwrap())
        })
        .collect()
}

#[tokio::test]
async fn the_v1_routes_read_and_answer_the_0_3_proto_as_protojson() {
    let agent = agent().await;
    let send = json!({ "message": proto_message("hello"), "configuration": { "blocking": true } });
    let sent = http().post(format!("{}/v1/message:send", agent.rest_url())).json(&send).send().await.unwrap();
    assert_eq!(sent.status(), 200);
    assert_eq!(sent.headers()["content-type"], "application/json");
    let answer: Value = sent.json().await.unwrap();
    let task = &answer["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    assert!(task.get("kind").is_none(), "{answer}");
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert!(task["history"][0]["content"][0]["text"].is_string(), "{answer}");
    assert!(task["artifacts"][0]["parts"][0]["text"].is_string(), "an artifact keeps `parts`: {answer}");
    let id = task["id"].as_str().unwrap();

    let got: Value = http()
        .get(format!("{}/v1/tasks/{id}?historyLength=0", agent.rest_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], id, "a bare Task: {got}");
    assert!(got.get("history").is_none(), "{got}");

    let stream = http()
        .post(format!("{}/v1/message:stream", agent.rest_url()))
        .json(&json!({ "request": proto_message("stream"), "configuration": { "blocking": true } }))
        .send()
        .await
        .unwrap();
    let events = sse_events(stream).await;
    assert!(events[0].get("task").is_some(), "each data: is a StreamResponse: {events:?}");
    let last = &events.last().unwrap()["statusUpdate"];
    assert_eq!((&last["status"]["state"], &last["final"]), (&json!("TASK_STATE_COMPLETED"), &json!(true)));
    assert!(events[1]["statusUpdate"].get("final").is_none(), "`final: false` is left out: {events:?}");
}

#[tokio::test]
async fn a_stream_event_is_pretty_printed_over_several_crlf_data_lines() {
    let agent = agent().await;
    let stream = http()
        .post(format!("{}/v1/message:stream", agent.rest_url()))
        .json(&json!({ "message": proto_message("stream"), "configuration": { "blocking": true } }))
        .send()
        .await
        .unwrap();
    let text = stream.text().await.unwrap();
    assert!(text.starts_with("data: {\r\ndata:   \""), "{text}");
}

#[tokio::test]
async fn a_json_rpc_shaped_body_is_a_500_unknown_exception_as_a2a_python_answers_it() {
    let agent = agent().await;
    let sent = http()
        .post(format!("{}/v1/message:send", agent.rest_url()))
        .json(&json!({ "message": user_message_v03("hello") }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 500);
    assert_eq!(sent.json::<Value>().await.unwrap(), json!({ "message": "unknown exception" }));
}

#[tokio::test]
async fn the_json_rpc_shape_quirk_answers_in_0_3_json_rpc_results() {
    let agent = ScriptedAgent::builder()
        .protocol(Protocol::V0_3)
        .bindings([Binding::HttpJson])
        .script(Script::honest().quirk(Quirk::V03RestInJsonRpcShape))
        .spawn()
        .await
        .unwrap();
    let sent = http()
        .post(format!("{}/v1/message:send", agent.rest_url()))
        .json(&json!({ "message": user_message_v03("hello") }))
        .send()
        .await
        .unwrap();
    let task: Value = sent.json().await.unwrap();
    assert_eq!((task["kind"].as_str(), task["status"]["state"].as_str()), (Some("task"), Some("completed")));
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
        .json(&json!({ "parent": "tasks/nope",
            "config": { "pushNotificationConfig": { "url": "https://hook.example" } } }))
        .send()
        .await
        .unwrap();
    assert_eq!(push.status(), 501, "this agent has no push: not implemented");
    let unversioned =
        http().post(format!("{}/message:send", agent.rest_url())).json(&json!({})).send().await.unwrap();
    assert_eq!(unversioned.status(), 404, "0.3 routes live under /v1");
}
