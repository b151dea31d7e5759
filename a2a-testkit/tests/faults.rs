//! Transport faults: they break the transport, never the card, and retries can get through.

mod common;

use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Fault, Script, ScriptedAgent, Times};
use common::*;
use serde_json::json;

async fn streaming_agent_with(fault: Fault) -> a2a_testkit::RunningAgent {
    ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with_fault(fault))
        .spawn()
        .await
        .unwrap()
}

#[tokio::test]
async fn reset_fault_cuts_the_stream_mid_way() {
    let agent = streaming_agent_with(Fault::ResetMidStream { after_events: 2, times: Times::First(1) }).await;
    let cut = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    assert!(cut.transport_error, "the body must end with a transport error");
    assert_eq!(cut.events.len(), 2);
    assert_eq!(kind_of(&cut.events[0]["result"]), "task");
    let id = cut.events[0]["result"]["task"]["id"].as_str().unwrap().to_owned();

    let whole = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("y") }), Some("1.0")).await,
    )
    .await;
    assert!(!whole.transport_error, "only the first stream is cut");
    assert_eq!(whole.events.len(), 4);

    let finished = eventually_state(&agent, &id, "TASK_STATE_COMPLETED").await;
    assert!(finished, "the task itself runs on after the cut");
}

#[tokio::test]
async fn truncated_sse_fault_ends_the_body_inside_an_event() {
    let agent = streaming_agent_with(Fault::TruncatedSse { after_events: 1, times: Times::Always }).await;
    let read = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    assert!(!read.transport_error, "the body ends cleanly");
    assert_eq!(read.events.len(), 1);
    assert!(read.leftover.starts_with("data: {"), "half an event is left: {:?}", read.leftover);
    assert!(!read.leftover.ends_with("\n\n"));
}

#[tokio::test]
async fn bad_gateway_fault_hits_only_the_first_requests_so_a_retry_succeeds() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with_fault(Fault::BadGateway(Times::First(2))))
        .spawn()
        .await
        .unwrap();
    assert_eq!(http().get(agent.card_url()).send().await.unwrap().status(), 200, "the card is never faulted");
    let params = json!({ "message": user_message("x") });
    for _ in 0..2 {
        let response = rpc_raw(&agent, "SendMessage", params.clone(), Some("1.0")).await;
        assert_eq!(response.status(), 502);
    }
    let third: serde_json::Value =
        rpc_raw(&agent, "SendMessage", params, Some("1.0")).await.json().await.unwrap();
    assert_eq!(third["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "every attempt is recorded");
}

#[tokio::test]
async fn service_unavailable_fault_answers_503_with_retry_after() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with_fault(Fault::ServiceUnavailable(Times::Always)))
        .spawn()
        .await
        .unwrap();
    let response =
        http().get(format!("{}/tasks", agent.rest_url())).header("A2A-Version", "1.0").send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "0");
}

#[tokio::test]
async fn slow_responses_fault_delays_every_operation() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with_fault(Fault::SlowResponses(Duration::from_millis(200))))
        .spawn()
        .await
        .unwrap();
    let started = Instant::now();
    let body = rpc(&agent, "GetTask", json!({ "id": "nope" })).await;
    assert_eq!(body["error"]["code"], -32001);
    assert!(started.elapsed() >= Duration::from_millis(200));
}
