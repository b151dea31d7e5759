//! The push receiver against hostile senders: every resource a sender can make it hold is bounded, and a
//! genuine callback still arrives. Memory and time figures are measured by `a2a-bench hostile-webhook`
//! (RELIABILITY.md), not here; these tests check the behaviour.

use std::time::Duration;

use a2a_typestate_client::config::ClientConfig;
use a2a_typestate_client::webhook::WebhookLimits;
use a2a_typestate_client::{Client, PushArrival, PushReceiver, PushRegistration};
use a2a_typestate_types::TaskId;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn config(limits: WebhookLimits) -> ClientConfig {
    Client::builder().webhook_limits(limits).build().unwrap().config().clone()
}

fn body() -> Vec<u8> {
    br#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#.to_vec()
}

fn path(registration: &PushRegistration) -> String {
    let url = registration.url();
    url[url.find("/a2a/").unwrap()..].to_owned()
}

/// Reads until the peer closes or `bound` passes; returns what was read and whether it closed.
async fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> (String, bool) {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    let closed = tokio::time::timeout(bound, async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .is_ok();
    (String::from_utf8_lossy(&seen).into_owned(), closed)
}

async fn genuine_post(registration: &PushRegistration) -> u16 {
    reqwest::Client::new()
        .post(registration.url())
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", registration.credentials()))
        .body(body())
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn an_unauthenticated_8_mib_post_is_refused_from_its_head_before_any_body_is_sent() {
    let receiver = PushReceiver::start(&ClientConfig::default()).await.unwrap();
    let registration = receiver.register(&TaskId::new("t1"));
    let mut stream = TcpStream::connect(receiver.local_addr()).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer guess\r\ncontent-length: {}\r\n\r\n",
        path(&registration),
        8 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // Not one byte of the announced body is sent: the answer can only come from the head.
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(3)).await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(closed, "the connection is closed after the answer");
}

#[tokio::test]
async fn an_authenticated_body_over_the_limit_is_refused_413_from_its_length() {
    let limits = WebhookLimits { max_body_bytes: 1024, ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let registration = receiver.register(&TaskId::new("t1"));
    let mut stream = TcpStream::connect(receiver.local_addr()).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-a2a-notification-token: {}\r\ncontent-length: 1000000\r\n\r\n",
        path(&registration),
        registration.token()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(3)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
}

#[tokio::test]
async fn a_head_that_never_ends_is_cut_at_the_header_read_timeout() {
    let limits =
        WebhookLimits { header_read_timeout: Duration::from_millis(300), ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let mut stream = TcpStream::connect(receiver.local_addr()).await.unwrap();
    stream.write_all(b"POST /a2a/push/x HTTP/1.1\r\nhost: x\r\n").await.unwrap();
    let start = tokio::time::Instant::now();
    let (_, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(closed, "the receiver closes a connection whose head is late");
    assert!(start.elapsed() < Duration::from_secs(3), "closed after {:?}", start.elapsed());
}

#[tokio::test]
async fn a_body_that_never_ends_is_cut_at_the_body_read_timeout() {
    let limits = WebhookLimits { body_read_timeout: Duration::from_millis(300), ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let registration = receiver.register(&TaskId::new("t1"));
    let mut stream = TcpStream::connect(receiver.local_addr()).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-a2a-notification-token: {}\r\ncontent-length: 100\r\n\r\n{{",
        path(&registration),
        registration.token()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let start = tokio::time::Instant::now();
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(closed && start.elapsed() < Duration::from_secs(3), "{answer} after {:?}", start.elapsed());
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn idle_connections_past_the_cap_do_not_keep_a_genuine_callback_out() {
    let limits = WebhookLimits { max_connections: 16, ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    // 200 connections that never send a byte, well past the cap of 16 (bounded: 200, all local).
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(receiver.local_addr()).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(genuine_post(&registration).await, 200);
    match receiver.next_callback(&task, Duration::from_secs(2)).await.unwrap() {
        PushArrival::Delivered(callback) => assert_eq!(callback.task_id, task),
        PushArrival::Absent { .. } => panic!("the genuine callback was kept out by idle connections"),
    }
    // The receiver closed the idle connections it evicted: at most the cap are still open.
    let mut still_open = 0;
    for stream in &mut idle {
        let mut byte = [0u8; 1];
        if let Err(_elapsed) = tokio::time::timeout(Duration::from_millis(5), stream.read(&mut byte)).await {
            still_open += 1;
        }
    }
    assert!(still_open <= 16, "{still_open} idle connections still open past a cap of 16");
}

#[tokio::test]
async fn slow_unauthenticated_heads_do_not_keep_a_genuine_callback_out() {
    let limits = WebhookLimits { max_connections: 8, ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let task = TaskId::new("t1");
    let registration = receiver.register(&task);
    let mut slow = Vec::new();
    for _ in 0..50 {
        let mut stream = TcpStream::connect(receiver.local_addr()).await.unwrap();
        stream.write_all(b"POST /a2a/push/nope HTTP/1.1\r\nx-drip: ").await.unwrap();
        slow.push(stream);
    }
    assert_eq!(genuine_post(&registration).await, 200);
    assert!(matches!(
        receiver.next_callback(&task, Duration::from_secs(2)).await.unwrap(),
        PushArrival::Delivered(_)
    ));
}

#[tokio::test]
async fn other_methods_are_405_and_other_paths_404() {
    let receiver = PushReceiver::start(&ClientConfig::default()).await.unwrap();
    let registration = receiver.register(&TaskId::new("t1"));
    let client = reqwest::Client::new();
    assert_eq!(client.get(registration.url()).send().await.unwrap().status().as_u16(), 405);
    let other = format!("http://{}/elsewhere", receiver.local_addr());
    assert_eq!(client.post(other).send().await.unwrap().status().as_u16(), 404);
}

#[test]
fn limits_that_cannot_work_are_a_config_error() {
    let err = Client::builder()
        .webhook_limits(WebhookLimits { max_bodies_in_flight: 0, ..WebhookLimits::default() })
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), a2a_typestate_client::ErrorKind::Config);
}

/// Opens `count` connections to `receiver` that each present `registration`'s valid token and then
/// drip a body that never ends: one agent holding the receiver with its own credentials.
async fn hold_with_valid_token(
    receiver: &PushReceiver,
    registration: &PushRegistration,
    count: usize,
) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..count {
        let Ok(mut stream) = TcpStream::connect(receiver.local_addr()).await else { continue };
        let head = format!(
            "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-a2a-notification-token: {}\r\ncontent-length: 100000\r\n\r\n{{",
            path(registration),
            registration.token()
        );
        let _ = stream.write_all(head.as_bytes()).await;
        held.push(stream);
    }
    held
}

#[tokio::test]
async fn one_agent_holding_the_receiver_with_its_own_token_exhausts_only_its_own_share() {
    let limits = WebhookLimits { max_connections: 16, ..WebhookLimits::default() };
    let receiver = PushReceiver::start(&config(limits)).await.unwrap();
    let hog = receiver.register(&TaskId::new("hog"));
    // `genuine_post` sends a callback about task t1.
    let honest_task = TaskId::new("t1");
    let honest = receiver.register(&honest_task);
    // Five times the cap of slow bodies, each with the hog's own valid token.
    let mut held = hold_with_valid_token(&receiver, &hog, 80).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    assert_eq!(genuine_post(&honest).await, 200, "the honest agent's callback is served");
    assert!(matches!(
        receiver.next_callback(&honest_task, Duration::from_secs(2)).await.unwrap(),
        PushArrival::Delivered(_)
    ));
    // The hog met its own limit: past its share, its requests were answered 429.
    let mut refused = 0;
    for stream in &mut held {
        let (answer, _) = read_until_closed(stream, Duration::from_millis(20)).await;
        refused += usize::from(answer.starts_with("HTTP/1.1 429"));
    }
    assert!(refused >= 80 - 16, "only {refused} of the hog's 80 connections were held to its share");
}
