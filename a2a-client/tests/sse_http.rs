//! The SSE parser over real HTTP responses: odd chunking, truncation, idleness and cancellation,
//! each on every HTTP stack (`http_stack_common`).

mod http_stack_common;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use a2a_typestate_client::TransportFault;
use a2a_typestate_client::sse::{SseLimits, SseStream};
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use http_stack_common::HttpStack;
use tokio::sync::{mpsc, oneshot};

/// Serves one `text/event-stream` response whose chunks come from `chunks`.
async fn sse_server(chunks: mpsc::Receiver<Bytes>) -> String {
    let body = futures::stream::unfold(chunks, |mut rx| async move {
        rx.recv().await.map(|chunk| (Ok::<_, Infallible>(chunk), rx))
    });
    let body = std::sync::Arc::new(std::sync::Mutex::new(Some(Body::from_stream(body))));
    let app = axum::Router::new().route(
        "/stream",
        axum::routing::get(move || {
            let body = body.lock().unwrap().take().unwrap_or_default();
            async move {
                let response: Response =
                    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response();
                response
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/stream")
}

async fn open(stack: HttpStack, url: &str, limits: SseLimits) -> SseStream {
    let http = stack.builder().build().unwrap().http_client().clone();
    let mut request = a2a_typestate_client::net::Request::new(Default::default());
    *request.uri_mut() = url.parse().unwrap();
    let response = http.send(request).await.unwrap();
    assert_eq!(response.status(), 200);
    SseStream::from_response(response, limits)
}

fn limits(idle: Duration) -> SseLimits {
    SseLimits { idle_timeout: idle, ..SseLimits::default() }
}

#[tokio::test]
async fn events_split_across_http_chunks_arrive_whole() {
    for stack in HttpStack::each() {
        let (tx, rx) = mpsc::channel(16);
        let url = sse_server(rx).await;
        let first = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1"}}}"#;
        let second = r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1"}}}"#;
        let wire = format!(": ping\r\n\r\ndata: {first}\r\n\r\nevent: error\ndata: {second}\n\n");
        tokio::spawn(async move {
            for piece in wire.as_bytes().chunks(7) {
                tx.send(Bytes::copy_from_slice(piece)).await.unwrap();
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        let events: Vec<_> = open(stack, &url, SseLimits::default()).await.collect().await;
        let events: Vec<_> = events.into_iter().map(Result::unwrap).collect();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data, first);
        assert!(!events[0].is_error());
        assert_eq!(events[1].data, second);
        assert!(events[1].is_error());
    }
}

#[tokio::test]
async fn a_response_closed_mid_event_is_reported_truncated() {
    for stack in HttpStack::each() {
        let (tx, rx) = mpsc::channel(16);
        let url = sse_server(rx).await;
        tx.send(Bytes::from_static(b"data: {\"task\":{}}\n\ndata: {\"statusUp")).await.unwrap();
        drop(tx);
        let mut events = open(stack, &url, SseLimits::default()).await;
        assert!(events.next().await.unwrap().is_ok());
        let err = events.next().await.unwrap().unwrap_err();
        assert_eq!(err.transport_fault(), Some(TransportFault::Truncated));
        assert!(events.next().await.is_none());
    }
}

#[tokio::test]
async fn a_stalled_response_ends_with_an_idle_timeout() {
    for stack in HttpStack::each() {
        let (tx, rx) = mpsc::channel(16);
        let url = sse_server(rx).await;
        tx.send(Bytes::from_static(b"data: first\n\n")).await.unwrap();
        let mut events = open(stack, &url, limits(Duration::from_millis(200))).await;
        assert_eq!(events.next().await.unwrap().unwrap().data, "first");
        let err = events.next().await.unwrap().unwrap_err();
        assert!(err.is_timeout(), "{err:?}");
        drop(tx);
    }
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    for stack in HttpStack::each() {
        let (tx, rx) = mpsc::channel(1);
        let url = sse_server(rx).await;
        let (closed_tx, closed_rx) = oneshot::channel();
        tokio::spawn(async move {
            // Ping until the client is gone: a send fails once hyper has dropped the body.
            while tx.send(Bytes::from_static(b"data: tick\n\n")).await.is_ok() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let _ = closed_tx.send(());
        });
        let mut events = open(stack, &url, SseLimits::default()).await;
        assert_eq!(events.next().await.unwrap().unwrap().data, "tick");
        drop(events);
        tokio::time::timeout(Duration::from_secs(5), closed_rx)
            .await
            .expect("the server saw the connection close")
            .unwrap();
    }
}
