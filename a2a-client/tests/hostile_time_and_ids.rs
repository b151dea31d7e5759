//! Time bounds that hold against slow or hostile agents, and retries that send the same request again.

mod transport_common;

use std::error::Error as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_testkit::{Fault, Script, Times};
use a2a_typestate_client::{Client, ErrorKind, RetryPolicy};
use a2a_typestate_types::GetTaskRequest;
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use transport_common::{agent, client, connect_over, text};

fn chain(err: &a2a_typestate_client::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[tokio::test]
async fn a_retried_send_message_keeps_its_json_rpc_id() {
    let agent = agent(Script::honest().with_fault(Fault::BadGateway(Times::First(2)))).await;
    let client = client();
    let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await;
    connection.send_message(text("again")).await.unwrap();
    let ids: Vec<_> =
        agent.requests_for("SendMessage").iter().map(|r| r.body.as_ref().unwrap()["id"].clone()).collect();
    assert_eq!(ids.len(), 3, "two 502s, then the answer");
    assert!(ids.iter().all(|id| *id == ids[0] && id.is_string()), "{ids:?}");
    connection.send_message(text("next")).await.unwrap();
    let next = agent.requests_for("SendMessage").last().unwrap().body.as_ref().unwrap()["id"].clone();
    assert_ne!(next, ids[0], "a new call has a new id");
}

#[tokio::test]
async fn the_operation_deadline_bounds_all_attempts_together_and_the_error_says_both_bounds() {
    // Each attempt is a 503 after 200 ms: retried, until the deadline cuts the third.
    let agent = agent(
        Script::honest()
            .with_fault(Fault::SlowResponses(Duration::from_millis(200)))
            .with_fault(Fault::ServiceUnavailable(Times::Always)),
    )
    .await;
    let client = Client::builder()
        .request_timeout(Duration::from_millis(300))
        .operation_deadline(Duration::from_millis(500))
        .retry_policy(RetryPolicy::new(5, Duration::from_millis(10), Duration::from_millis(20), 0.0).unwrap())
        .build()
        .unwrap();
    let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await;
    let started = std::time::Instant::now();
    let err = connection.get_task(GetTaskRequest::new("t")).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "waited {:?}", started.elapsed());
    let said = chain(&err);
    assert!(
        said.contains("operation deadline of 500 ms") && said.contains("request timeout of 300 ms"),
        "{said}"
    );
}

#[tokio::test]
async fn a_send_that_times_out_is_one_attempt_naming_its_request_timeout() {
    let agent = agent(Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(5)))).await;
    let retry = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(20), 0.0).unwrap();
    let client =
        Client::builder().request_timeout(Duration::from_millis(200)).retry_policy(retry).build().unwrap();
    let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await;
    let err = connection.send_message(text("slow")).await.unwrap_err();
    let said = chain(&err);
    assert_eq!(err.attempts(), Some(1), "{said}");
    assert!(said.contains("request timeout of 200 ms"), "{said}");
    assert!(err.may_have_run(), "{said}");
    assert_eq!(agent.requests_for("SendMessage").len(), 1);
}

#[tokio::test]
async fn an_oversized_response_head_is_bad_input_and_not_retried() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        // Bounded: at most 10 connections, each answered once.
        for _ in 0..10 {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer).await;
                let mut head = String::from("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n");
                for i in 0..20_000 {
                    head.push_str(&format!("x-filler-{i}: {}\r\n", "f".repeat(40)));
                }
                head.push_str("content-length: 2\r\n\r\n{}");
                let _ = stream.write_all(head.as_bytes()).await;
            });
        }
    });
    let client = Client::builder().build().unwrap();
    let err = client.discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{}", chain(&err));
    assert!(!err.is_retryable());
    assert!(chain(&err).contains("response head"), "{}", chain(&err));
    // Discovery may try both well-known paths, but no attempt is repeated.
    assert!(accepted.load(Ordering::SeqCst) <= 2, "{} connections", accepted.load(Ordering::SeqCst));
}
