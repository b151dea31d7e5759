//! Each lie behaves as named, and sets the card claim it contradicts.

mod common;

use std::time::{Duration, Instant};

use a2a_testkit::{
    Capabilities, GATEWAY_EXTENSION_URI, Lie, POLL_CADENCE_EXTENSION_URI, Script, ScriptedAgent,
    WebhookReceiver,
};
use common::*;
use serde_json::{Value, json};

async fn liar(lie: Lie) -> a2a_testkit::RunningAgent {
    ScriptedAgent::builder().script(Script::honest().with(lie)).spawn().await.unwrap()
}

#[tokio::test]
async fn streaming_refused_lie_claims_streaming_and_answers_32004_as_plain_json() {
    let agent = liar(Lie::StreamingRefused).await;
    assert_eq!(agent.card()["capabilities"]["streaming"], true);
    let response =
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await;
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32004);
    assert_eq!(body["error"]["data"][0]["reason"], "UNSUPPORTED_OPERATION");
    let sent = rpc(&agent, "SendMessage", json!({ "message": user_message("x") })).await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "non-streaming still works"
    );
    let id = sent["result"]["task"]["id"].as_str().unwrap();
    let subscribe = rpc(&agent, "SubscribeToTask", json!({ "id": id })).await;
    assert_eq!(subscribe["error"]["code"], -32004);
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);
}

#[tokio::test]
async fn stream_without_artifact_lie_streams_but_keeps_the_artifact_for_get_task() {
    let agent = liar(Lie::StreamWithoutArtifact).await;
    assert_eq!(agent.card()["capabilities"]["streaming"], true);
    let read = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    let kinds: Vec<&str> = read.events.iter().map(|e| kind_of(&e["result"])).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "statusUpdate"]);
    let last = &read.events[2]["result"];
    assert_eq!(state_of(last), Some("TASK_STATE_COMPLETED"));
    let id = last["statusUpdate"]["taskId"].as_str().unwrap();
    let task = rpc(&agent, "GetTask", json!({ "id": id })).await;
    assert_eq!(task["result"]["artifacts"][0]["parts"][0]["text"], "echo: x");
}

#[tokio::test]
async fn empty_history_lie_returns_no_history_on_get_task() {
    let agent = liar(Lie::EmptyHistory).await;
    assert_eq!(agent.card()["capabilities"]["stateTransitionHistory"], true);
    let sent = rpc(&agent, "SendMessage", json!({ "message": user_message("remember me") })).await;
    let id = sent["result"]["task"]["id"].as_str().unwrap();
    for history_length in [json!(null), json!(5)] {
        let task = rpc(&agent, "GetTask", json!({ "id": id, "historyLength": history_length })).await;
        assert_eq!(task["result"]["status"]["state"], "TASK_STATE_COMPLETED");
        assert!(task["result"].get("history").is_none(), "history silently dropped");
    }
    let listed = rpc(&agent, "ListTasks", json!({})).await;
    assert!(listed["result"]["tasks"][0].get("history").is_none());
}

#[tokio::test]
async fn silent_push_lie_accepts_config_and_never_posts() {
    let hook = WebhookReceiver::spawn().await.unwrap();
    let agent = liar(Lie::SilentPush).await;
    assert_eq!(agent.card()["capabilities"]["pushNotifications"], true);
    let config = json!({ "url": hook.url("/silent"), "token": "t" });
    let sent = rpc(
        &agent,
        "SendMessage",
        json!({ "message": user_message("x"), "configuration": { "taskPushNotificationConfig": config } }),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap();
    assert_eq!(sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let created = rpc(
        &agent,
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": id, "id": "second", "url": hook.url("/silent2") }),
    )
    .await;
    assert_eq!(created["result"]["id"], "second", "configs are accepted");
    let listed = rpc(&agent, "ListTaskPushNotificationConfigs", json!({ "taskId": id })).await;
    assert_eq!(listed["result"]["configs"].as_array().unwrap().len(), 2);
    let got = hook.wait_for(1, Duration::from_millis(300)).await;
    assert!(got.is_empty(), "no callback may arrive, got {got:?}");
    assert!(agent.push_callbacks_sent().is_empty());
}

#[tokio::test]
async fn wrong_credentials_lie_posts_with_credentials_other_than_configured() {
    let hook = WebhookReceiver::spawn().await.unwrap();
    let agent = liar(Lie::WrongPushCredentials).await;
    assert_eq!(agent.card()["capabilities"]["pushNotifications"], true);
    let config = json!({
        "url": hook.url("/hook"), "token": "tok-123",
        "authentication": { "scheme": "Bearer", "credentials": "secret-abc" }
    });
    rpc(
        &agent,
        "SendMessage",
        json!({ "message": user_message("x"), "configuration": { "taskPushNotificationConfig": config } }),
    )
    .await;
    let got = hook.wait_for(4, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 4, "it does call back");
    for callback in &got {
        let authorization = callback.header("authorization").unwrap();
        assert!(authorization.starts_with("Bearer "));
        assert_ne!(authorization, "Bearer secret-abc");
        assert_ne!(callback.header("x-a2a-notification-token"), Some("tok-123"));
    }
}

#[tokio::test]
async fn slow_working_lie_holds_working_without_a_poll_hint() {
    let caps = Capabilities::none().with_streaming().with_poll_cadence(Duration::from_millis(10));
    let agent = ScriptedAgent::builder()
        .capabilities(caps)
        .script(Script::honest().with(Lie::SlowWorkingWithoutPollHint(Duration::from_millis(500))))
        .spawn()
        .await
        .unwrap();
    let capabilities = &agent.card()["capabilities"];
    assert_eq!(capabilities["streaming"], false);
    assert!(capabilities.get("extensions").is_none(), "no poll hint on the card");
    let started = Instant::now();
    let task = send_returning_immediately(&agent, "x").await;
    let id = task["id"].as_str().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let task = rpc(&agent, "GetTask", json!({ "id": id })).await;
    assert_eq!(task["result"]["status"]["state"], "TASK_STATE_WORKING");
    assert!(eventually_state(&agent, id, "TASK_STATE_COMPLETED").await);
    assert!(started.elapsed() >= Duration::from_millis(500));
}

#[tokio::test]
async fn under_declared_streaming_lie_streams_though_the_card_says_no() {
    let caps = Capabilities::none().with_streaming();
    let agent = ScriptedAgent::builder()
        .capabilities(caps)
        .script(Script::honest().with(Lie::UnderDeclaredStreaming))
        .spawn()
        .await
        .unwrap();
    assert_eq!(agent.card()["capabilities"]["streaming"], false);
    let read = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    let kinds: Vec<&str> = read.events.iter().map(|e| kind_of(&e["result"])).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
}

#[tokio::test]
async fn gateway_lie_shows_the_gateway_card_and_behaves_like_the_backend() {
    let front = Capabilities::none().with_streaming().with_push_notifications();
    let agent = ScriptedAgent::builder()
        .capabilities(front)
        .script(Script::honest().with(Lie::Gateway { backend: Capabilities::none() }))
        .spawn()
        .await
        .unwrap();
    assert_eq!(agent.card()["capabilities"]["streaming"], true);
    assert_eq!(agent.card()["capabilities"]["pushNotifications"], true);
    let stream = rpc(&agent, "SendStreamingMessage", json!({ "message": user_message("x") })).await;
    assert_eq!(stream["error"]["code"], -32004, "the backend does not stream");
    let push = rpc(
        &agent,
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": "t", "url": "http://127.0.0.1:9/" }),
    )
    .await;
    assert_eq!(push["error"]["code"], -32003, "the backend has no push");
}

#[tokio::test]
async fn gateway_card_is_unmarked_by_default_and_may_advertise_itself_with_the_gateway_extension() {
    let gateway = |front: Capabilities| {
        ScriptedAgent::builder()
            .capabilities(front)
            .script(Script::honest().with(Lie::Gateway { backend: Capabilities::none().with_streaming() }))
    };
    let unmarked = gateway(Capabilities::none()).spawn().await.unwrap();
    let card: Value = http().get(unmarked.card_url()).send().await.unwrap().json().await.unwrap();
    assert!(card["capabilities"].get("extensions").is_none(), "a gateway is unmarked unless asked: {card}");

    let front = Capabilities::none().with_poll_cadence(Duration::from_millis(40)).with_gateway_extension();
    let marked = gateway(front).spawn().await.unwrap();
    let card: Value = http().get(marked.card_url()).send().await.unwrap().json().await.unwrap();
    let uris: Vec<&str> = card["capabilities"]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [POLL_CADENCE_EXTENSION_URI, GATEWAY_EXTENSION_URI], "both extensions, in order");
    assert_eq!(card["capabilities"]["streaming"], false, "the card still describes the gateway");
    let streamed = read_sse(
        rpc_raw(&marked, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    assert_eq!(streamed.events.len(), 4, "the marker changes the card, not the backend's behaviour");
}

#[tokio::test]
async fn slow_working_lie_without_end_holds_working_instead_of_crashing_the_agent() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with(Lie::SlowWorkingWithoutPollHint(Duration::MAX)))
        .spawn()
        .await
        .unwrap();
    let task = send_returning_immediately(&agent, "x").await;
    let id = task["id"].as_str().unwrap();
    let working = eventually_state(&agent, id, "TASK_STATE_WORKING").await;
    assert!(working, "the lifecycle reaches working and stays there");
}
