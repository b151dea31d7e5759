//! [`Quirk::OnlyStreams`]: the stream carries the whole answer, every other operation gets the
//! scripted plain-text HTTP error.

mod common;

use a2a_testkit::{Capabilities, Quirk, Script, ScriptedAgent};
use common::*;
use serde_json::json;

#[tokio::test]
async fn only_streams_answers_the_stream_and_a_plain_error_to_every_other_operation() {
    let (status, body) = (400, "only message:stream is served here");
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::OnlyStreams { status, body }))
        .spawn()
        .await
        .unwrap();
    let streamed = read_sse(
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await,
    )
    .await;
    let last = streamed.events.last().map(|e| e["result"].clone()).unwrap_or_default();
    assert_eq!(state_of(&last), Some("TASK_STATE_COMPLETED"), "{:?}", streamed.events);
    let said: Vec<&str> = streamed
        .events
        .iter()
        .filter_map(|e| e["result"]["statusUpdate"]["status"]["message"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(said, ["echo:", "x", "done"], "the answer in chunks: {:?}", streamed.events);
    assert!(streamed.events.iter().all(|e| kind_of(&e["result"]) != "artifactUpdate"), "no artifact");
    let id = streamed.events[0]["result"]["task"]["id"].as_str().unwrap().to_owned();

    for (method, params) in [
        ("GetTask", json!({ "id": id })),
        ("SendMessage", json!({ "message": user_message("y") })),
        ("CancelTask", json!({ "id": id })),
    ] {
        let answer = rpc_raw(&agent, method, params, Some("1.0")).await;
        assert_eq!(answer.status().as_u16(), status, "{method}");
        let content_type = answer.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(content_type.starts_with("text/plain"), "{method}: {content_type}");
        assert_eq!(answer.text().await.unwrap(), body, "{method}");
    }
    let rest = http().get(format!("{}/tasks/{id}", agent.rest_url())).header("A2A-Version", "1.0");
    let answer = rest.send().await.unwrap();
    assert_eq!(answer.status().as_u16(), status, "the HTTP+JSON binding too");
}
