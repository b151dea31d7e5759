//! Errors from real transport failures: classified without string matching, and free of secrets.

mod auth_common;

use std::error::Error as _;
use std::time::Duration;

use a2a_typestate_client::{Client, Error, ErrorKind, RetryPolicy, TransportFault};

use auth_common::{serve_card, text};

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
    let rpc = format!("http://user:hunter2@127.0.0.1:{port}/rpc?token=s3cret");
    let card = serde_json::json!({
        "name": "closed", "description": "d", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
        "supportedInterfaces": [{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    });
    let base = serve_card(card).await;
    let client = Client::builder().retry_policy(RetryPolicy::no_retry()).build().unwrap();
    let err = client.connect(&base).await.unwrap().send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
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
    let client = Client::builder()
        .retry_policy(RetryPolicy::no_retry())
        .request_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let err = client.discover(&format!("http://{addr}")).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.transport_fault(), Some(TransportFault::Timeout));
    assert!(err.is_retryable());
}
