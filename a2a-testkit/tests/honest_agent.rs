//! An honest scripted agent, checked on the wire with a plain HTTP client.

mod common;

use std::time::Duration;

use a2a_testkit::{Capabilities, CardPath, POLL_CADENCE_EXTENSION_URI, ScriptedAgent, WebhookReceiver};
use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn card_is_served_with_etag_and_revalidates_with_304() {
    let agent = ScriptedAgent::builder().name("card-test").spawn().await.unwrap();
    let response = http().get(agent.card_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with("W/\""), "weak etag expected, got {etag}");
    assert!(response.headers()["cache-control"].to_str().unwrap().contains("max-age"));
    let card: Value = response.json().await.unwrap();
    assert_eq!(card["name"], "card-test");
    assert_eq!(card["supportedInterfaces"][0]["url"], agent.jsonrpc_url());
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
    assert_eq!(card["supportedInterfaces"][1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(card["supportedInterfaces"][1]["protocolVersion"], "1.0");
    assert!(card["capabilities"].get("stateTransitionHistory").is_none());

    let again = http().get(agent.card_url()).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
}

#[tokio::test]
async fn card_is_only_at_the_configured_well_known_path() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let legacy = http().get(format!("{}/.well-known/agent.json", agent.base_url())).send().await.unwrap();
    assert_eq!(legacy.status(), 404);

    let old = ScriptedAgent::builder().card_path(CardPath::AgentJson).spawn().await.unwrap();
    assert!(old.card_url().ends_with("/.well-known/agent.json"));
    assert_eq!(http().get(old.card_url()).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn poll_cadence_hint_is_an_extension_in_the_card() {
    let caps = Capabilities::none().with_poll_cadence(Duration::from_millis(250));
    let agent = ScriptedAgent::builder().capabilities(caps).spawn().await.unwrap();
    let extension = &agent.card()["capabilities"]["extensions"][0];
    assert_eq!(extension["uri"], POLL_CADENCE_EXTENSION_URI);
    assert_eq!(extension["params"]["intervalMs"], 250);
}

#[tokio::test]
async fn missing_version_header_gets_32009() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let params = json!({ "message": user_message("hello") });
    let body: Value = rpc_raw(&agent, "SendMessage", params.clone(), None).await.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32009);
    assert_eq!(body["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-protocol.org");
    assert_eq!(body["id"], 7);

    let patch: Value =
        rpc_raw(&agent, "SendMessage", params.clone(), Some("1.0.0")).await.json().await.unwrap();
    assert_eq!(patch["error"]["code"], -32009, "1.0.0 is refused like the JS server does");

    let rest = http().post(format!("{}/message:send", agent.rest_url())).json(&params).send().await.unwrap();
    assert_eq!(rest.status(), 400);
    let status: Value = rest.json().await.unwrap();
    assert_eq!(status["error"]["status"], "FAILED_PRECONDITION");
    assert_eq!(status["error"]["details"][0]["reason"], "VERSION_NOT_SUPPORTED");
    assert!(agent.requests_for("SendMessage").len() == 3, "refused requests are still recorded");
}

#[tokio::test]
async fn version_may_come_as_a_query_parameter() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let body: Value = http()
        .post(format!("{}?A2A-Version=1.0", agent.jsonrpc_url()))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": user_message("q")}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn unknown_and_0_3_method_names_get_32601_on_a_1_0_agent() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let body = rpc(&agent, "message/send", json!({})).await;
    assert_eq!(body["error"]["code"], -32601);
    let body = rpc(&agent, "tasks/foo", json!({})).await;
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn blocking_send_returns_the_completed_task_with_artifact_and_history() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let body = rpc(&agent, "SendMessage", json!({ "message": user_message("hello") })).await;
    let task = &body["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["status"]["message"]["role"], "ROLE_AGENT");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "done");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "echo: hello");
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert_eq!(task["history"][0]["taskId"], task["id"]);
    assert!(task.get("kind").is_none(), "1.0 has no kind discriminators");
}

#[tokio::test]
async fn honest_agent_streams_task_then_updates_then_closes() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let response =
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("hi") }), Some("1.0")).await;
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let read = read_sse(response).await;
    assert!(!read.transport_error);
    assert!(read.leftover.is_empty());
    let results: Vec<&Value> = read.events.iter().map(|e| &e["result"]).collect();
    assert!(read.events.iter().all(|e| e["jsonrpc"] == "2.0" && e["id"] == 7));
    let kinds: Vec<&str> = results.iter().map(|r| kind_of(r)).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    let states: Vec<Option<&str>> = results.iter().map(|r| state_of(r)).collect();
    assert_eq!(
        states,
        [Some("TASK_STATE_SUBMITTED"), Some("TASK_STATE_WORKING"), None, Some("TASK_STATE_COMPLETED")]
    );
    assert_eq!(results[2]["artifactUpdate"]["artifact"]["parts"][0]["text"], "echo: hi");
    assert_eq!(results[2]["artifactUpdate"]["lastChunk"], true);
    assert!(results[3]["statusUpdate"].get("final").is_none(), "1.0 has no final flag");
}

#[tokio::test]
async fn rest_binding_streams_bare_stream_responses() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let response = http()
        .post(format!("{}/message:stream", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .json(&json!({ "message": user_message("rest") }))
        .send()
        .await
        .unwrap();
    let read = read_sse(response).await;
    let kinds: Vec<&str> = read.events.iter().map(kind_of).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);
}

#[tokio::test]
async fn rest_binding_sends_gets_and_reports_errors_as_google_rpc_status() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let client = http();
    let sent: Value = client
        .post(format!("{}/message:send", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .json(&json!({ "message": user_message("hello rest") }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = sent["task"]["id"].as_str().unwrap();
    let got = client
        .get(format!("{}/tasks/{id}?historyLength=0", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(got.headers()["content-type"], "application/a2a+json");
    let got: Value = got.json().await.unwrap();
    assert_eq!(got["id"], id);
    assert!(got.get("history").is_none(), "historyLength=0 omits history");

    let missing = client
        .get(format!("{}/tasks/nope", agent.rest_url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let status: Value = missing.json().await.unwrap();
    assert_eq!(status["error"]["status"], "NOT_FOUND");
    assert_eq!(status["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
}

#[tokio::test]
async fn clarify_flow_asks_for_input_then_completes_on_the_reply() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let first = read_sse(
        rpc_raw(
            &agent,
            "SendStreamingMessage",
            json!({ "message": user_message("please clarify this") }),
            Some("1.0"),
        )
        .await,
    )
    .await;
    let last = &first.events.last().unwrap()["result"];
    assert_eq!(state_of(last), Some("TASK_STATE_INPUT_REQUIRED"));
    let question = &last["statusUpdate"]["status"]["message"];
    assert_eq!(question["parts"][0]["text"], "Please clarify: what exactly do you need?");
    let task_id = last["statusUpdate"]["taskId"].as_str().unwrap();
    let context_id = last["statusUpdate"]["contextId"].as_str().unwrap();

    let mut reply = user_message("I need an echo");
    reply["taskId"] = json!(task_id);
    reply["contextId"] = json!(context_id);
    let second =
        read_sse(rpc_raw(&agent, "SendStreamingMessage", json!({ "message": reply }), Some("1.0")).await)
            .await;
    let kinds: Vec<&str> = second.events.iter().map(|e| kind_of(&e["result"])).collect();
    assert_eq!(kinds, ["statusUpdate", "artifactUpdate", "statusUpdate"]);
    assert_eq!(state_of(&second.events[2]["result"]), Some("TASK_STATE_COMPLETED"));

    let task = rpc(&agent, "GetTask", json!({ "id": task_id })).await["result"].clone();
    let texts: Vec<&str> =
        task["history"].as_array().unwrap().iter().map(|m| m["parts"][0]["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["please clarify this", "Please clarify: what exactly do you need?", "I need an echo"]);
}

#[tokio::test]
async fn get_task_honours_history_length() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let first = rpc(&agent, "SendMessage", json!({ "message": user_message("clarify please") })).await;
    let task_id = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(first["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let mut reply = user_message("answer");
    reply["taskId"] = json!(task_id);
    rpc(&agent, "SendMessage", json!({ "message": reply })).await;

    let all = rpc(&agent, "GetTask", json!({ "id": task_id })).await;
    assert_eq!(all["result"]["history"].as_array().unwrap().len(), 3);
    let one = rpc(&agent, "GetTask", json!({ "id": task_id, "historyLength": 1 })).await;
    let one = one["result"]["history"].as_array().unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["parts"][0]["text"], "answer", "historyLength keeps the most recent messages");
    let none = rpc(&agent, "GetTask", json!({ "id": task_id, "historyLength": 0 })).await;
    assert!(none["result"].get("history").is_none());
    let missing = rpc(&agent, "GetTask", json!({ "id": "nope" })).await;
    assert_eq!(missing["error"]["code"], -32001);
    assert_eq!(missing["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
}

#[tokio::test]
async fn subscribe_starts_with_the_task_snapshot_and_refuses_terminal_tasks() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(a2a_testkit::Script::honest().step_delay(Duration::from_millis(100)))
        .spawn()
        .await
        .unwrap();
    let task = send_returning_immediately(&agent, "slowly").await;
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED");
    let id = task["id"].as_str().unwrap();
    let read = read_sse(rpc_raw(&agent, "SubscribeToTask", json!({ "id": id }), Some("1.0")).await).await;
    assert_eq!(kind_of(&read.events[0]["result"]), "task");
    assert_eq!(read.events[0]["result"]["task"]["id"], id);
    assert_eq!(state_of(&read.events.last().unwrap()["result"]), Some("TASK_STATE_COMPLETED"));

    let again = rpc(&agent, "SubscribeToTask", json!({ "id": id })).await;
    assert_eq!(again["error"]["code"], -32004);
}

#[tokio::test]
async fn cancel_ends_a_running_task_and_refuses_a_finished_one() {
    let agent = ScriptedAgent::builder()
        .script(a2a_testkit::Script::honest().step_delay(Duration::from_millis(200)))
        .spawn()
        .await
        .unwrap();
    let task = send_returning_immediately(&agent, "long").await;
    let id = task["id"].as_str().unwrap();
    let canceled = rpc(&agent, "CancelTask", json!({ "id": id })).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let task = rpc(&agent, "GetTask", json!({ "id": id })).await;
    assert_eq!(
        task["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "the lifecycle stops after a cancel"
    );
    let again = rpc(&agent, "CancelTask", json!({ "id": id })).await;
    assert_eq!(again["error"]["code"], -32002);
    assert_eq!(again["error"]["data"][0]["reason"], "TASK_NOT_CANCELABLE");
}

#[tokio::test]
async fn list_tasks_pages_newest_first_without_artifacts_by_default() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let mut ids = Vec::new();
    for text in ["one", "two", "three"] {
        let sent = rpc(&agent, "SendMessage", json!({ "message": user_message(text) })).await;
        ids.push(sent["result"]["task"]["id"].as_str().unwrap().to_owned());
    }
    let page = rpc(&agent, "ListTasks", json!({ "pageSize": 2 })).await["result"].clone();
    assert_eq!(page["totalSize"], 3);
    assert_eq!(page["pageSize"], 2);
    assert_eq!(page["tasks"][0]["id"], ids[2].as_str());
    assert!(page["tasks"][0].get("artifacts").is_none());
    let token = page["nextPageToken"].as_str().unwrap();
    assert!(!token.is_empty());
    let rest =
        rpc(&agent, "ListTasks", json!({ "pageSize": 2, "pageToken": token, "includeArtifacts": true }))
            .await;
    assert_eq!(rest["result"]["tasks"][0]["id"], ids[0].as_str());
    assert!(rest["result"]["tasks"][0].get("artifacts").is_some());
    assert_eq!(rest["result"]["nextPageToken"], "");
    let far = rpc(&agent, "ListTasks", json!({ "pageToken": usize::MAX.to_string() })).await;
    assert_eq!(far["result"]["tasks"], json!([]), "a token past the end is an empty page, not a crash");
    let bogus = rpc(&agent, "ListTasks", json!({ "pageToken": "abc" })).await;
    assert_eq!(bogus["error"]["code"], -32602);
}

#[tokio::test]
async fn honest_agent_posts_push_callbacks_with_credentials() {
    let hook = WebhookReceiver::spawn().await.unwrap();
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let config = json!({
        "url": hook.url("/hook"), "token": "tok-123",
        "authentication": { "scheme": "Bearer", "credentials": "secret-abc" }
    });
    let sent = rpc(
        &agent,
        "SendMessage",
        json!({ "message": user_message("push me"),
            "configuration": { "returnImmediately": true, "taskPushNotificationConfig": config } }),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap();
    let got = hook.wait_for(4, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 4);
    for callback in &got {
        assert_eq!(callback.path, "/hook");
        assert_eq!(callback.header("authorization"), Some("Bearer secret-abc"));
        assert_eq!(callback.header("x-a2a-notification-token"), Some("tok-123"));
        assert!(callback.header("content-type").unwrap().starts_with("application/json"));
    }
    let kinds: Vec<&str> = got.iter().map(|c| kind_of(&c.body)).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    assert_eq!(got[0].body["task"]["id"], id);
    assert_eq!(state_of(&got[3].body), Some("TASK_STATE_COMPLETED"));
    // The agent records a delivery once the receiver has answered it.
    let recorded = eventually(|| agent.push_callbacks_sent().len() == 4).await;
    assert!(recorded, "the agent's own record lists the four deliveries");
    assert!(agent.push_callbacks_sent().iter().all(|d| d.response_status == Some(200)));

    let listed = rpc(&agent, "ListTaskPushNotificationConfigs", json!({ "taskId": id })).await;
    assert_eq!(listed["result"]["configs"][0]["id"], id, "config id defaults to the task id");
    assert_eq!(listed["result"]["configs"][0]["authentication"]["credentials"], "secret-abc");
}

#[tokio::test]
async fn push_config_created_later_gets_the_remaining_events() {
    let hook = WebhookReceiver::spawn().await.unwrap();
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_push_notifications())
        .script(a2a_testkit::Script::honest().step_delay(Duration::from_millis(60)))
        .spawn()
        .await
        .unwrap();
    let task = send_returning_immediately(&agent, "later").await;
    let id = task["id"].as_str().unwrap();
    let created = rpc(
        &agent,
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": id, "id": "cfg-1", "url": hook.url("/hook2"), "token": "tok-456" }),
    )
    .await;
    assert_eq!(created["result"]["id"], "cfg-1");
    let fetched = rpc(&agent, "GetTaskPushNotificationConfig", json!({ "taskId": id, "id": "cfg-1" })).await;
    assert_eq!(fetched["result"]["url"], hook.url("/hook2"));
    let got = hook.wait_for(3, Duration::from_secs(5)).await;
    assert!(!got.is_empty() && got.len() < 4, "a late config misses the first event(s), got {}", got.len());
    assert_eq!(state_of(&got.last().unwrap().body), Some("TASK_STATE_COMPLETED"));
    assert!(got.iter().all(|c| c.header("authorization").is_none()), "no authentication was configured");
    let deleted =
        rpc(&agent, "DeleteTaskPushNotificationConfig", json!({ "taskId": id, "id": "cfg-1" })).await;
    assert_eq!(deleted["result"], json!({}));
}

#[tokio::test]
async fn undeclared_capabilities_are_refused_like_the_official_servers() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let stream =
        rpc_raw(&agent, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await;
    assert!(stream.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
    let body: Value = stream.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32004);
    let push = rpc(
        &agent,
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": "t", "url": "http://127.0.0.1:9/x" }),
    )
    .await;
    assert_eq!(push["error"]["code"], -32003);
    assert_eq!(push["error"]["data"][0]["reason"], "PUSH_NOTIFICATION_NOT_SUPPORTED");
    let card = rpc(&agent, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(card["error"]["code"], -32004);
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_not_a_crash() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let response = http()
        .post(agent.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700);
    assert!(body["error"]["message"].as_str().unwrap().contains("line 1 column 2"), "where: {body}");
    assert_eq!(body["id"], Value::Null);
    let no_parts =
        rpc(&agent, "SendMessage", json!({ "message": { "messageId": "m", "role": "ROLE_USER" } })).await;
    assert_eq!(no_parts["error"]["code"], -32602);
    assert!(no_parts["error"]["message"].as_str().unwrap().contains("params.message.parts"));
    let mut stray = user_message("hello");
    stray["taskId"] = json!("no-such-task");
    let stray = rpc(&agent, "SendMessage", json!({ "message": stray })).await;
    assert_eq!(stray["error"]["code"], -32001);
}

#[tokio::test]
async fn a_push_config_without_url_is_refused_naming_where_the_url_was_expected() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let inline = rpc(
        &agent,
        "SendMessage",
        json!({ "message": user_message("x"),
            "configuration": { "taskPushNotificationConfig": { "token": "t" } } }),
    )
    .await;
    assert_eq!(inline["error"]["code"], -32602);
    let message = inline["error"]["message"].as_str().unwrap();
    assert!(message.contains("params.configuration.taskPushNotificationConfig.url"), "{message}");
    assert!(
        agent.requests_for("SendMessage").len() == 1
            && rpc(&agent, "ListTasks", json!({})).await["result"]["totalSize"] == 0,
        "a refused send creates no task"
    );

    let sent = rpc(&agent, "SendMessage", json!({ "message": user_message("x") })).await;
    let id = sent["result"]["task"]["id"].clone();
    let created = rpc(&agent, "CreateTaskPushNotificationConfig", json!({ "taskId": id, "url": "" })).await;
    assert_eq!(created["error"]["code"], -32602);
    assert!(created["error"]["message"].as_str().unwrap().starts_with("params.url "), "{created}");
}

#[tokio::test]
async fn an_oversized_or_empty_body_is_a_parse_error_saying_so() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let post = |body: Vec<u8>| {
        http()
            .post(agent.jsonrpc_url())
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let empty: Value = post(Vec::new()).await.unwrap().json().await.unwrap();
    assert_eq!(empty["error"]["code"], -32700);
    assert!(empty["error"]["message"].as_str().unwrap().contains("empty"), "{empty}");
    let huge: Value = post(vec![b' '; 5 * 1024 * 1024]).await.unwrap().json().await.unwrap();
    assert_eq!(huge["error"]["code"], -32700);
    assert!(huge["error"]["message"].as_str().unwrap().contains("4194304 bytes"), "{huge}");
}

#[tokio::test]
async fn webhook_wait_for_takes_an_unbounded_timeout() {
    let hook = WebhookReceiver::spawn().await.unwrap();
    let posted = http().post(hook.url("/once")).json(&json!({ "n": 1 })).send().await.unwrap();
    assert_eq!(posted.status(), 200);
    let got = hook.wait_for(1, Duration::MAX).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body["n"], 1);
}

#[tokio::test]
async fn card_path_both_serves_the_same_card_at_both_well_known_paths() {
    let agent = ScriptedAgent::builder().card_path(CardPath::Both).spawn().await.unwrap();
    assert!(agent.card_url().ends_with("/.well-known/agent-card.json"), "the 1.0 path is preferred");
    let mut cards = Vec::new();
    for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
        let response = http().get(format!("{}{path}", agent.base_url())).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        cards.push(response.json::<Value>().await.unwrap());
    }
    assert_eq!(cards[0], cards[1]);
    assert_eq!(&cards[0], agent.card());
}

#[tokio::test]
async fn clarify_never_completes_even_when_the_message_asks_to_clarify() {
    let agent = ScriptedAgent::builder()
        .script(a2a_testkit::Script::honest().clarify(a2a_testkit::Clarify::Never))
        .spawn()
        .await
        .unwrap();
    let sent = rpc(&agent, "SendMessage", json!({ "message": user_message("please clarify") })).await;
    assert_eq!(sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let asking = ScriptedAgent::builder()
        .script(
            a2a_testkit::Script::honest().clarify(a2a_testkit::Clarify::WhenMessageContains("WHICH".into())),
        )
        .spawn()
        .await
        .unwrap();
    let sent = rpc(&asking, "SendMessage", json!({ "message": user_message("which one?") })).await;
    assert_eq!(sent["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED", "case-insensitive");
}

#[tokio::test]
async fn shutdown_or_drop_stops_the_agent_and_the_webhook_receiver() {
    let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(2)).build().unwrap();
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let card_url = agent.card_url();
    assert!(client.get(&card_url).send().await.is_ok());
    agent.shutdown().await;
    assert!(client.get(&card_url).send().await.is_err(), "still serving after shutdown");

    let dropped = ScriptedAgent::builder().spawn().await.unwrap();
    let card_url = dropped.card_url();
    drop(dropped);
    tokio::task::yield_now().await;
    assert!(client.get(&card_url).send().await.is_err(), "still serving after drop");

    let hook = WebhookReceiver::spawn().await.unwrap();
    let url = hook.url("/x");
    assert!(client.post(&url).send().await.is_ok());
    drop(hook);
    tokio::task::yield_now().await;
    assert!(client.post(&url).send().await.is_err(), "the receiver still answers after drop");
}
