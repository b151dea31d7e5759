//! Errors from real reqwest failures: classified without string matching, and free of secrets.

use std::error::Error as _;
use std::time::Duration;

use a2a_typestate_client::{Error, ErrorKind, TransportFault};

fn chain(err: &Error) -> String {
    let mut text = format!("{err} | {err:?}");
    let mut source = err.source();
    while let Some(s) = source {
        text.push_str(&format!(" | {s} | {s:?}"));
        source = s.source();
    }
    text
}

#[tokio::test]
async fn a_refused_connection_is_a_retryable_connect_fault_without_the_query_or_user_info() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://user:hunter2@127.0.0.1:{port}/rpc?token=s3cret");
    let err = Error::from(reqwest::Client::new().get(&url).send().await.unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(err.is_connect() && err.is_retryable());
    assert_eq!(err.url(), Some(format!("http://127.0.0.1:{port}/rpc").as_str()));
    let text = chain(&err);
    assert!(!text.contains("s3cret") && !text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn a_request_timeout_is_a_retryable_timeout() {
    // A listener that accepts and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let _hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let outcome = reqwest::Client::new()
        .get(format!("http://{addr}/"))
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    let err = Error::from(outcome.unwrap_err());
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.transport_fault(), Some(TransportFault::Timeout));
    assert!(err.is_retryable());
}
