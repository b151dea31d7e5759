//! The push receiver, posted to with a plain reqwest client as an agent would.

use std::time::Duration;

use a2a_typestate_client::config::ClientConfig;
use a2a_typestate_client::{ErrorKind, PushArrival, PushReceiver, PushRegistration};
use a2a_typestate_types::TaskId;
use serde_json::{Value, json};

const SHORT: Duration = Duration::from_millis(50);
const LONG: Duration = Duration::from_secs(5);

fn status_update(task: &str, state: &str) -> Value {
    json!({"statusUpdate": {"taskId": task, "contextId": "c1", "status": {"state": state}}})
}

/// Posts as a2a-sdk does: both headers, `application/json`.
async fn post(registration: &PushRegistration, body: &Value) -> u16 {
    post_with(
        registration.url(),
        body,
        Some(registration.credentials()),
        Some(registration.token()),
        "application/json",
    )
    .await
}

async fn post_with(
    url: &str,
    body: &Value,
    bearer: Option<&str>,
    token: Option<&str>,
    content_type: &str,
) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", content_type)
        .body(serde_json::to_vec(body).unwrap());
    if let Some(bearer) = bearer {
        request = request.header("authorization", format!("Bearer {bearer}"));
    }
    if let Some(token) = token {
        request = request.header("x-a2a-notification-token", token);
    }
    request.send().await.unwrap().status().as_u16()
}

async fn receiver() -> PushReceiver {
    PushReceiver::start(&ClientConfig::default()).await.unwrap()
}

async fn delivered(receiver: &PushReceiver, task: &TaskId) -> Value {
    match receiver.next_callback(task, LONG).await.unwrap() {
        PushArrival::Delivered(callback) => {
            assert_eq!(&callback.task_id, task);
            callback.body
        }
        PushArrival::Absent { .. } => panic!("expected a callback for {task}"),
    }
}

async fn assert_absent(receiver: &PushReceiver, task: &TaskId) {
    match receiver.next_callback(task, SHORT).await.unwrap() {
        PushArrival::Absent { waited } => assert!(waited >= SHORT),
        PushArrival::Delivered(callback) => panic!("unexpected callback {callback:?}"),
    }
}

#[tokio::test]
async fn right_credentials_are_accepted_and_handed_to_the_waiter() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let body = status_update("t1", "TASK_STATE_WORKING");
    assert_eq!(post(&registration, &body).await, 200);
    let PushArrival::Delivered(callback) = receiver.next_callback(&task, LONG).await.unwrap() else {
        panic!("expected the callback");
    };
    assert_eq!(callback.body, body);
    assert_eq!(callback.config_id, registration.config_id());
    let typed = callback.stream_response().unwrap();
    assert_eq!(typed.task_id(), Some(&task));
}

#[tokio::test]
async fn a_body_that_is_not_a_1_0_stream_response_is_kept_but_reads_as_bad_input() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let v03 = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": false,
        "status": {"state": "working"}});
    assert_eq!(post(&registration, &v03).await, 200, "0.3 agents are answered too");
    let PushArrival::Delivered(callback) = receiver.next_callback(&task, LONG).await.unwrap() else {
        panic!("expected the callback");
    };
    assert_eq!(callback.stream_response().unwrap_err().kind(), ErrorKind::BadInput);
}

#[tokio::test]
async fn bearer_alone_or_token_alone_is_enough_as_the_official_servers_send() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let working = status_update("t1", "TASK_STATE_WORKING");
    let done = status_update("t1", "TASK_STATE_COMPLETED");
    let url = registration.url();
    assert_eq!(
        post_with(url, &working, Some(registration.credentials()), None, "application/a2a+json").await,
        200
    );
    assert_eq!(
        post_with(url, &done, None, Some(registration.token()), "application/json; charset=utf-8").await,
        200
    );
    assert_eq!(delivered(&receiver, &task).await, working);
    assert_eq!(delivered(&receiver, &task).await, done);
}

#[tokio::test]
async fn wrong_or_missing_credentials_are_rejected_401_and_not_delivered() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let other = receiver.register(&task);
    let body = status_update("t1", "TASK_STATE_WORKING");
    let url = registration.url();
    assert_eq!(post_with(url, &body, Some("guess"), None, "application/json").await, 401);
    assert_eq!(post_with(url, &body, None, Some("guess"), "application/json").await, 401);
    assert_eq!(post_with(url, &body, None, None, "application/json").await, 401);
    // Right token, wrong bearer: every credential presented must be the one issued.
    assert_eq!(
        post_with(url, &body, Some("guess"), Some(registration.token()), "application/json").await,
        401
    );
    // Another registration's credentials do not open this URL.
    assert_eq!(post_with(url, &body, Some(other.credentials()), None, "application/json").await, 401);
    assert_absent(&receiver, &task).await;
}

#[tokio::test]
async fn a_callback_about_another_task_is_rejected_403() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    assert_eq!(post(&registration, &status_update("t2", "TASK_STATE_WORKING")).await, 403);
    assert_absent(&receiver, &task).await;
}

#[tokio::test]
async fn an_unknown_or_unregistered_url_is_404() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let body = status_update("t1", "TASK_STATE_WORKING");
    let unknown = format!("{}/a2a/push/nope", receiver.base_url());
    assert_eq!(
        post_with(&unknown, &body, Some(registration.credentials()), None, "application/json").await,
        404
    );
    receiver.unregister(&registration);
    assert_eq!(post(&registration, &body).await, 404);
}

#[tokio::test]
async fn unreadable_bodies_and_other_content_types_are_rejected_400() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let (url, bearer) = (registration.url(), Some(registration.credentials()));
    let body = status_update("t1", "TASK_STATE_WORKING");
    assert_eq!(post_with(url, &body, bearer, None, "text/plain").await, 400);
    assert_eq!(post_with(url, &json!({"statusUpdate": {}}), bearer, None, "application/json").await, 400);
    let raw = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .bearer_auth(registration.credentials())
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status().as_u16(), 400);
    assert_absent(&receiver, &task).await;
}

#[tokio::test]
async fn duplicate_deliveries_are_handed_over_once() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let working = status_update("t1", "TASK_STATE_WORKING");
    let done = status_update("t1", "TASK_STATE_COMPLETED");
    for body in [&working, &working, &done, &working] {
        assert_eq!(post(&registration, body).await, 200, "duplicates are still acknowledged");
    }
    assert_eq!(delivered(&receiver, &task).await, working);
    assert_eq!(delivered(&receiver, &task).await, done);
    assert_absent(&receiver, &task).await;
}

#[tokio::test]
async fn absence_within_the_bound_is_reported_as_absent() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    receiver.register(&task);
    let start = tokio::time::Instant::now();
    let arrival = receiver.next_callback(&task, Duration::from_millis(200)).await.unwrap();
    assert!(matches!(arrival, PushArrival::Absent { waited } if waited >= Duration::from_millis(200)));
    assert!(start.elapsed() < Duration::from_secs(2), "the wait is bounded");
}

#[tokio::test]
async fn waiting_on_a_task_never_registered_is_a_usage_error() {
    let receiver = receiver().await;
    let err = receiver.next_callback(&TaskId::new("ghost"), SHORT).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn a_registration_for_a_new_task_binds_to_the_first_task_seen() {
    let receiver = receiver().await;
    let registration = receiver.register_for_new_task();
    assert!(registration.to_config_json().get("taskId").is_none());
    assert_eq!(post(&registration, &json!({"task": {"id": "fresh", "status": {}}})).await, 200);
    assert_eq!(post(&registration, &status_update("intruder", "TASK_STATE_WORKING")).await, 403);
    let body = delivered(&receiver, &TaskId::new("fresh")).await;
    assert_eq!(body["task"]["id"], "fresh");
    assert_absent(&receiver, &TaskId::new("fresh")).await;
}

#[tokio::test]
async fn callbacks_that_arrive_before_the_wait_are_kept_in_order() {
    let receiver = receiver().await;
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let states = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"];
    for state in states {
        assert_eq!(post(&registration, &status_update("t1", state)).await, 200);
    }
    for state in states {
        assert_eq!(delivered(&receiver, &task).await["statusUpdate"]["status"]["state"], state);
    }
}

#[tokio::test]
async fn a_dropped_receiver_stops_listening() {
    let receiver = receiver().await;
    let registration = receiver.register(&TaskId::new("t1"));
    drop(receiver);
    tokio::time::sleep(SHORT).await;
    let outcome = reqwest::Client::new()
        .post(registration.url())
        .bearer_auth(registration.credentials())
        .json(&status_update("t1", "TASK_STATE_WORKING"))
        .timeout(Duration::from_secs(2))
        .send()
        .await;
    assert!(outcome.is_err(), "no server answers after drop: {outcome:?}");
}
