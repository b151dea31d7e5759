//! The official-SDK peers do what `scripts/peers/` says they do, checked over plain HTTP
//! (reqwest + serde_json, not this project's SDK), so the interop tests built on them rest on
//! verified ground: the honest ones stream, subscribe, cancel and really POST push callbacks; the
//! over-declaring ones claim what they refuse; the silent one stores push configs and never calls.
//!
//! Peers are shared per test binary (`OfficialPeer::shared`), except where a test stops one.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, OfficialSdk, PeerKind, PeerOptions, RunningPeer};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use futures::future::join_all;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

/// Bound on any single HTTP exchange with a peer; a task takes well under a second.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Bound on waiting for the last push callback of a task from an honest peer.
const PUSH_ARRIVAL: Duration = Duration::from_secs(15);
/// How long the silent peer is given to (wrongly) call back after its task completed.
const SILENCE: Duration = Duration::from_millis(1500);
/// The slow peers' pause between events: a task runs for two of these.
const SLOW_STEP: Duration = Duration::from_secs(1);

const HONEST: [PeerKind; 2] = [PeerKind::PythonHonest, PeerKind::JsHonest];
const OVER_DECLARING: [PeerKind; 2] = [PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring];

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    match OfficialPeer::shared(kind).await {
        Ok(peer) => peer,
        Err(e) => panic!("{e}"),
    }
}

/// A peer whose agent pauses [`SLOW_STEP`] between events, one per kind for this binary, so a
/// test can reach a task while it is still running even on a loaded machine.
async fn slow_peer(kind: PeerKind) -> &'static RunningPeer {
    static PYTHON: OnceCell<RunningPeer> = OnceCell::const_new();
    static JS: OnceCell<RunningPeer> = OnceCell::const_new();
    let cell = if kind.sdk() == OfficialSdk::Python { &PYTHON } else { &JS };
    let options = PeerOptions::default().with_step(SLOW_STEP);
    match cell.get_or_try_init(|| OfficialPeer::start_with(kind, options)).await {
        Ok(peer) => {
            assert_eq!(peer.kind(), kind, "slow_peer serves one honest kind per SDK");
            peer
        }
        Err(e) => panic!("{e}"),
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().timeout(REQUEST_TIMEOUT).build().expect("reqwest client")
}

fn user_message(text: &str) -> Value {
    json!({"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "parts": [{"text": text}]})
}

fn follow_up(text: &str, task: &Value) -> Value {
    let mut message = user_message(text);
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    message
}

/// POSTs one JSON-RPC request with `A2A-Version: 1.0`.
async fn post_rpc(peer: &RunningPeer, method: &str, params: Value) -> reqwest::Response {
    http()
        .post(peer.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} to {}: {e}\nstderr:\n{}", peer.kind(), peer.stderr_tail()))
}

/// One JSON-RPC call; returns the whole response object (`result` or `error`).
async fn rpc(peer: &RunningPeer, method: &str, params: Value) -> Value {
    let response = post_rpc(peer, method, params).await;
    response.json().await.unwrap_or_else(|e| panic!("{method} to {}: body is not JSON: {e}", peer.kind()))
}

async fn result_of(peer: &RunningPeer, method: &str, params: Value) -> Value {
    let response = rpc(peer, method, params).await;
    assert!(response.get("error").is_none(), "{method} to {} failed: {response}", peer.kind());
    response["result"].clone()
}

/// A streaming call, read to its end (the servers close the stream at terminal and interrupted
/// states); returns each event's `result`.
async fn stream(peer: &RunningPeer, method: &str, params: Value) -> Vec<Value> {
    let response = post_rpc(peer, method, params).await;
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
    assert!(
        content_type.starts_with("text/event-stream"),
        "{method} to {}: not SSE ({content_type})",
        peer.kind()
    );
    let body = response.text().await.expect("SSE body");
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| {
            let event: Value = serde_json::from_str(data.trim()).expect("SSE data is JSON");
            assert!(event.get("error").is_none(), "{method} to {} streamed an error: {event}", peer.kind());
            event["result"].clone()
        })
        .collect()
}

fn state_of(event: &Value) -> Option<&str> {
    event["statusUpdate"]["status"]["state"].as_str().or_else(|| event["task"]["status"]["state"].as_str())
}

fn first_artifact_text(task: &Value) -> &str {
    task["artifacts"][0]["parts"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn every_peer_card_declares_what_its_kind_claims() {
    let peers = join_all(PeerKind::ALL.map(peer)).await;
    for peer in peers {
        let kind = peer.kind();
        let card: Value =
            http().get(peer.card_url()).send().await.expect("card").json().await.expect("card JSON");
        let capabilities = &card["capabilities"];
        let claims = kind.card_claims();
        assert_eq!(capabilities["streaming"].as_bool(), Some(claims.streaming), "{kind}: {card}");
        assert_eq!(
            capabilities["pushNotifications"].as_bool(),
            Some(claims.push_notifications),
            "{kind}: {card}"
        );
        assert_eq!(
            capabilities["stateTransitionHistory"].as_bool().unwrap_or(false),
            claims.state_transition_history,
            "{kind}: {card}"
        );
        let interfaces = card["supportedInterfaces"].as_array().expect("supportedInterfaces");
        let serves = |binding: &str, url: &str, version: &str| {
            interfaces.iter().any(|i| {
                i["protocolBinding"] == binding && i["url"] == url && i["protocolVersion"] == version
            })
        };
        assert!(serves("JSONRPC", &peer.jsonrpc_url(), "1.0"), "{kind}: {card}");
        assert!(serves("HTTP+JSON", &peer.rest_url(), "1.0"), "{kind}: {card}");
        assert_eq!(serves("JSONRPC", &peer.jsonrpc_url(), "0.3"), kind.speaks_v03(), "{kind}: {card}");
    }
}

#[tokio::test]
async fn send_message_with_a2a_version_1_0_completes_with_the_echo_artifact() {
    join_all(PeerKind::ALL.map(|kind| async move {
        let peer = peer(kind).await;
        let text = format!("hello {kind}");
        let result = result_of(peer, "SendMessage", json!({"message": user_message(&text)})).await;
        let task = &result["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{kind}: {result}");
        assert_eq!(first_artifact_text(task), format!("echo: {text}"), "{kind}: {result}");
    }))
    .await;
}

#[tokio::test]
async fn honest_peers_answer_http_json_message_send_under_their_rest_url() {
    for kind in HONEST {
        let peer = peer(kind).await;
        let response = http()
            .post(format!("{}/message:send", peer.rest_url()))
            .header("A2A-Version", "1.0")
            .json(&json!({"message": user_message("hello rest")}))
            .send()
            .await
            .expect("send");
        assert!(response.status().is_success(), "{kind}: HTTP {}", response.status());
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(body["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{kind}: {body}");
        assert_eq!(first_artifact_text(&body["task"]), "echo: hello rest", "{kind}: {body}");
    }
}

#[tokio::test]
async fn a_request_without_the_version_header_is_refused_as_version_not_supported() {
    for kind in HONEST {
        let peer = peer(kind).await;
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                          "params": {"message": user_message("no header")}});
        let response: Value = http()
            .post(peer.jsonrpc_url())
            .json(&body)
            .send()
            .await
            .expect("send")
            .json()
            .await
            .expect("JSON");
        assert_eq!(response["error"]["code"], -32009, "{kind}: {response}");
    }
}

#[tokio::test]
async fn over_declaring_peers_answer_streaming_with_unsupported_operation_not_sse() {
    for kind in OVER_DECLARING {
        let peer = peer(kind).await;
        let response =
            post_rpc(peer, "SendStreamingMessage", json!({"message": user_message("stream?")})).await;
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
        assert!(content_type.starts_with("application/json"), "{kind}: {content_type}");
        let body: Value = response.json().await.expect("JSON error body");
        assert_eq!(body["error"]["code"], -32004, "{kind}: {body}");
        assert_eq!(body["error"]["data"][0]["reason"], "UNSUPPORTED_OPERATION", "{kind}: {body}");
    }
}

#[tokio::test]
async fn over_declaring_peers_answer_push_config_with_push_notification_not_supported() {
    for kind in OVER_DECLARING {
        let peer = peer(kind).await;
        let task =
            result_of(peer, "SendMessage", json!({"message": user_message("push?")})).await["task"].clone();
        let params = json!({"taskId": task["id"], "url": "http://127.0.0.1:9/never"});
        let response = rpc(peer, "CreateTaskPushNotificationConfig", params).await;
        assert_eq!(response["error"]["code"], -32003, "{kind}: {response}");
        assert_eq!(
            response["error"]["data"][0]["reason"], "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "{kind}: {response}"
        );
    }
}

/// One POST to the webhook: its Authorization header and its JSON body.
type Callback = (Option<String>, Value);

/// A webhook on 127.0.0.1 that records every POST.
#[derive(Clone, Default)]
struct Webhook {
    received: Arc<Mutex<Vec<Callback>>>,
}

impl Webhook {
    async fn start() -> (Webhook, SocketAddr) {
        let webhook = Webhook::default();
        let app =
            axum::Router::new().route("/hook/{name}", post(Webhook::record)).with_state(webhook.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind webhook");
        let addr = listener.local_addr().expect("webhook address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (webhook, addr)
    }

    async fn record(State(webhook): State<Webhook>, headers: HeaderMap, body: String) -> StatusCode {
        let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let json = serde_json::from_str(&body).unwrap_or(Value::String(body));
        webhook.received.lock().expect("webhook log").push((auth, json));
        StatusCode::OK
    }

    fn received(&self) -> Vec<Callback> {
        self.received.lock().expect("webhook log").clone()
    }
}

fn push_config(addr: SocketAddr, kind: PeerKind) -> Value {
    json!({"url": format!("http://{addr}/hook/{kind}"), "token": format!("token-{kind}"),
           "authentication": {"scheme": "Bearer", "credentials": format!("secret-{kind}")}})
}

#[tokio::test]
async fn honest_peers_post_every_event_of_the_task_to_the_push_webhook() {
    let (webhook, addr) = Webhook::start().await;
    for kind in HONEST {
        let peer = peer(kind).await;
        let params = json!({"message": user_message("push me"),
                            "configuration": {"returnImmediately": true,
                                              "taskPushNotificationConfig": push_config(addr, kind)}});
        let task_id = result_of(peer, "SendMessage", params).await["task"]["id"].clone();
        let for_task = |event: &Value| {
            event["task"]["id"] == task_id
                || event["statusUpdate"]["taskId"] == task_id
                || event["artifactUpdate"]["taskId"] == task_id
        };
        let completed = tokio::time::timeout(PUSH_ARRIVAL, async {
            loop {
                let done = webhook
                    .received()
                    .iter()
                    .any(|(_, event)| for_task(event) && state_of(event) == Some("TASK_STATE_COMPLETED"));
                if done {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        let events: Vec<_> = webhook.received().into_iter().filter(|(_, event)| for_task(event)).collect();
        assert!(completed.is_ok(), "{kind}: no COMPLETED callback within {PUSH_ARRIVAL:?}; got {events:?}");
        assert!(
            events.iter().all(|(auth, _)| auth.as_deref() == Some(format!("Bearer secret-{kind}").as_str())),
            "{kind}: callbacks must carry the configured credentials: {events:?}"
        );
        assert!(
            events
                .iter()
                .any(|(_, event)| event["artifactUpdate"]["artifact"]["parts"][0]["text"] == "echo: push me"),
            "{kind}: the artifact was not pushed: {events:?}"
        );
        assert!(events.iter().any(|(_, e)| state_of(e) == Some("TASK_STATE_WORKING")), "{kind}: {events:?}");
    }
}

#[tokio::test]
async fn silent_push_peer_stores_the_config_but_never_calls_the_webhook() {
    let (webhook, addr) = Webhook::start().await;
    let kind = PeerKind::PythonSilentPush;
    let peer = peer(kind).await;
    let params = json!({"message": user_message("hello"),
                        "configuration": {"taskPushNotificationConfig": push_config(addr, kind)}});
    let task = result_of(peer, "SendMessage", params).await["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");

    let configs = result_of(peer, "ListTaskPushNotificationConfigs", json!({"taskId": task["id"]})).await;
    assert_eq!(
        configs["configs"][0]["url"],
        format!("http://{addr}/hook/{kind}"),
        "config not stored: {configs}"
    );

    tokio::time::sleep(SILENCE).await;
    assert_eq!(webhook.received(), Vec::new(), "the silent peer called back");
}

#[tokio::test]
async fn v03_peer_answers_message_send_with_a_0_3_task() {
    let peer = peer(PeerKind::PythonV03).await;
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": uuid::Uuid::new_v4().to_string(), "role": "user",
        "parts": [{"kind": "text", "text": "hello 0.3"}]}}});
    // No A2A-Version header: that is what a 0.3 client sends.
    let response: Value = http()
        .post(peer.jsonrpc_url())
        .json(&request)
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("JSON");
    let task = &response["result"];
    assert_eq!(task["kind"], "task", "{response}");
    assert_eq!(task["status"]["state"], "completed", "{response}");
    assert_eq!(
        task["artifacts"][0]["parts"][0],
        json!({"kind": "text", "text": "echo: hello 0.3"}),
        "{response}"
    );
}

#[tokio::test]
async fn honest_peers_stream_clarify_to_input_required_and_complete_after_the_follow_up() {
    join_all(HONEST.map(|kind| async move {
        let peer = peer(kind).await;
        let first =
            stream(peer, "SendStreamingMessage", json!({"message": user_message("please clarify")})).await;
        let states: Vec<_> = first.iter().filter_map(state_of).collect();
        assert_eq!(
            states,
            ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"],
            "{kind}"
        );
        let task = first[0]["task"].clone();

        let second =
            stream(peer, "SendStreamingMessage", json!({"message": follow_up("an echo", &task)})).await;
        assert_eq!(second.last().and_then(state_of), Some("TASK_STATE_COMPLETED"), "{kind}: {second:?}");
        assert!(
            second.iter().any(|e| e["artifactUpdate"]["artifact"]["parts"][0]["text"] == "echo: an echo"),
            "{kind}: {second:?}"
        );
    }))
    .await;
}

#[tokio::test]
async fn honest_peers_subscribe_to_a_running_task_starting_with_its_snapshot() {
    join_all(HONEST.map(|kind| async move {
        let peer = slow_peer(kind).await;
        let params =
            json!({"message": user_message("watch me"), "configuration": {"returnImmediately": true}});
        let task_id = result_of(peer, "SendMessage", params).await["task"]["id"].clone();
        let events = stream(peer, "SubscribeToTask", json!({"id": task_id})).await;
        assert_eq!(events.first().map(|e| &e["task"]["id"]), Some(&task_id), "{kind}: {events:?}");
        assert_eq!(events.last().and_then(state_of), Some("TASK_STATE_COMPLETED"), "{kind}: {events:?}");
    }))
    .await;
}

#[tokio::test]
async fn honest_peers_cancel_a_running_task() {
    join_all(HONEST.map(|kind| async move {
        let peer = slow_peer(kind).await;
        let params =
            json!({"message": user_message("cancel me"), "configuration": {"returnImmediately": true}});
        let task_id = result_of(peer, "SendMessage", params).await["task"]["id"].clone();
        let canceled = result_of(peer, "CancelTask", json!({"id": task_id})).await;
        assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED", "{kind}: {canceled}");
        let listed = result_of(peer, "GetTask", json!({"id": task_id})).await;
        assert_eq!(listed["status"]["state"], "TASK_STATE_CANCELED", "{kind}: {listed}");
    }))
    .await;
}

#[tokio::test]
async fn python_honest_peer_lists_its_tasks() {
    let peer = peer(PeerKind::PythonHonest).await;
    let task =
        result_of(peer, "SendMessage", json!({"message": user_message("list me")})).await["task"].clone();
    let listed = result_of(peer, "ListTasks", json!({"contextId": task["contextId"]})).await;
    let ids: Vec<_> = listed["tasks"].as_array().expect("tasks").iter().map(|t| &t["id"]).collect();
    assert_eq!(ids, [&task["id"]], "{listed}");
}

async fn card_is_served(url: &str) -> bool {
    http().get(url).timeout(Duration::from_secs(2)).send().await.is_ok()
}

#[tokio::test]
async fn stopping_a_peer_ends_its_process_and_frees_its_port() {
    let peer = OfficialPeer::start(PeerKind::JsHonest).await.unwrap_or_else(|e| panic!("{e}"));
    let card_url = peer.card_url();
    assert!(card_is_served(&card_url).await);
    peer.stop().expect("stop");
    assert!(!card_is_served(&card_url).await, "still serving after stop()");
}

#[tokio::test]
async fn dropping_a_peer_kills_it() {
    let peer = OfficialPeer::start(PeerKind::PythonOverDeclaring).await.unwrap_or_else(|e| panic!("{e}"));
    let card_url = peer.card_url();
    assert!(card_is_served(&card_url).await);
    drop(peer);
    assert!(!card_is_served(&card_url).await, "still serving after drop");
}
