//! The liars about the card's claims beyond the lifecycle: each card declares the claim and the
//! agent answers against it, on every binding it serves.

mod common;

use a2a_testkit::{RETIRED_INTERFACE_PATH, ScriptedAgent};
use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn unserved_extended_card_declares_one_and_answers_32004() {
    let agent = ScriptedAgent::builder().unserved_extended_card().spawn().await.unwrap();
    assert_eq!(agent.card()["capabilities"]["extendedAgentCard"], true);
    let answer = rpc(&agent, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(answer["error"]["code"], -32004, "{answer}");
    let rest = http()
        .get(format!("{}/extendedAgentCard", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 400);
}

#[tokio::test]
async fn retired_interface_is_listed_last_and_answers_404() {
    let agent = ScriptedAgent::builder().retired_interface().spawn().await.unwrap();
    let interfaces = agent.card()["supportedInterfaces"].as_array().unwrap().clone();
    let last = interfaces.last().unwrap();
    let url = last["url"].as_str().unwrap();
    assert!(url.ends_with(RETIRED_INTERFACE_PATH), "{last}");
    assert_eq!(last["protocolBinding"], "JSONRPC");
    assert_eq!(
        interfaces[0]["url"].as_str(),
        Some(agent.jsonrpc_url().as_str()),
        "the working ones come first"
    );
    let answer = http()
        .post(url)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 404);
}

#[tokio::test]
async fn denies_task_reads_declares_no_scheme_answers_401_to_reads_and_serves_sends() {
    let agent = ScriptedAgent::builder().denies_task_reads().spawn().await.unwrap();
    let card = agent.card();
    assert!(
        card.get("securityRequirements").is_none_or(|r| r.as_array().is_some_and(Vec::is_empty)),
        "{card}"
    );
    let sent = rpc(&agent, "SendMessage", json!({ "message": user_message("x") })).await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let read = rpc_raw(&agent, "GetTask", json!({ "id": id }), Some("1.0")).await;
    assert_eq!(read.status(), 401);
    let listed = rpc_raw(&agent, "ListTasks", json!({}), Some("1.0")).await;
    assert_eq!(listed.status(), 401);
    let rest = http()
        .get(format!("{}/tasks/{id}", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 401);
    let body: Value = http()
        .post(format!("{}/message:send", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .json(&json!({ "message": user_message("y") }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(body["task"]["id"].is_string(), "sends are served: {body}");
}

#[tokio::test]
async fn inert_required_extension_is_required_and_never_named_while_others_are() {
    const ECHO: &str = "https://example.com/ext/echo/v1";
    const TRAIL: &str = "https://example.com/ext/trail/v1";
    let agent =
        ScriptedAgent::builder().extension(ECHO).inert_required_extension(TRAIL).spawn().await.unwrap();
    let declared = agent.card()["capabilities"]["extensions"].as_array().unwrap().clone();
    assert_eq!(declared[1]["uri"], TRAIL);
    assert_eq!(declared[1]["required"], true);
    let without = rpc(&agent, "SendMessage", json!({ "message": user_message("x") })).await;
    assert_eq!(without["error"]["code"], -32008, "{without}");
    let asked = http()
        .post(agent.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", format!("{ECHO},{TRAIL}"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": user_message("x")}}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.headers()["a2a-extensions"].to_str().unwrap(), ECHO);
}
