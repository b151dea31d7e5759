//! A user's HTTP service in place of the built-in stack (`ClientBuilder::http_service`): what the
//! client guarantees holds over it. The client reads every body itself, bounded; keeps its own
//! deadlines; follows redirects itself and refuses a service that followed one; and everything it
//! sends over HTTP passes through the service (a reqwest-middleware layer counts it all).
//!
//! The same tests as on the built-in stack run over the reqwest adapter in `interop_official`,
//! `interop_authenticated`, `sse_http` and `url_policy_redirect_headers`.
#![cfg(feature = "reqwest")]

mod http_stack_common;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_testkit::{Capabilities, Script, ScriptedAgent};
use a2a_typestate_client::net::{Request, ReqwestService};
use a2a_typestate_client::{Client, ErrorKind, Message, TransportFault};
use a2a_typestate_types::parse::ParseErrorKind;
use axum::body::Body;
use bytes::Bytes;
use http_body_util::Full;
use http_stack_common::reqwest_client;
use tokio::net::TcpListener;

/// Serves `app` on a loopback port; its base URL.
async fn serve(app: axum::Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

fn over(reqwest: impl Into<ReqwestService>) -> Client {
    Client::builder().http_service(ReqwestService::new(reqwest)).build().unwrap()
}

#[tokio::test]
async fn a_card_over_the_limit_is_refused_while_the_adapter_streams_it() {
    // 9 MiB in 64 KiB chunks, no Content-Length: the client stops reading at its 8 MiB card limit.
    let card = axum::routing::get(|| async {
        let chunks =
            futures::stream::iter((0..144).map(|_| Ok::<_, Infallible>(Bytes::from(vec![b' '; 64 * 1024]))));
        Body::from_stream(chunks)
    });
    let base = serve(axum::Router::new().route("/.well-known/agent-card.json", card)).await;
    let err = over(reqwest_client()).discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert_eq!(err.parse_error().map(|e| e.kind()), Some(ParseErrorKind::TooLarge), "{err}");
}

#[tokio::test]
async fn a_body_announced_over_the_limit_is_refused_before_it_is_read() {
    let base =
        serve(axum::Router::new().route("/big", axum::routing::get(|| async { vec![b'x'; 4096] }))).await;
    let client = over(reqwest_client());
    let mut request = Request::new(Bytes::new());
    *request.uri_mut() = format!("{base}/big").parse().unwrap();
    let response = client.http_client().send(request).await.unwrap();
    let err = response.bytes(1024, &base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(err.to_string().contains("response body"), "{err}");
}

#[tokio::test]
async fn a_reqwest_client_that_follows_redirects_is_refused_naming_both_urls() {
    let elsewhere_hits = Arc::new(AtomicUsize::new(0));
    let hits = elsewhere_hits.clone();
    let elsewhere = serve(axum::Router::new().fallback(move || {
        hits.fetch_add(1, Ordering::SeqCst);
        async { "{}" }
    }))
    .await;
    let target = format!("{elsewhere}/.well-known/agent-card.json");
    let redirect = axum::routing::get(move || {
        let target = target.clone();
        async move { axum::response::Redirect::temporary(&target) }
    });
    let base = serve(axum::Router::new().route("/.well-known/agent-card.json", redirect)).await;

    // Built without `redirect::Policy::none()`: reqwest follows the redirect itself.
    let err = over(reqwest::Client::new()).discover(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    let shown = err.to_string();
    assert!(shown.contains(&base) && shown.contains(&elsewhere), "names both urls: {shown}");
    assert!(shown.contains("redirect::Policy::none()"), "says how to build the client: {shown}");
    assert!(!err.is_retryable());

    // Built as documented, the redirect reaches the client's own rules: the card may not come from
    // another origin by default, so nothing is sent there.
    let err = over(reqwest_client()).discover(&base).await.unwrap_err();
    assert_ne!(err.kind(), ErrorKind::Config, "{err}");
    assert_eq!(elsewhere_hits.load(Ordering::SeqCst), 1, "only the following client went there");
}

#[tokio::test]
async fn the_request_timeout_holds_on_the_adapter() {
    let stalled = axum::routing::get(|| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        "never"
    });
    let base = serve(axum::Router::new().route("/.well-known/agent-card.json", stalled)).await;
    let client = Client::builder()
        .request_timeout(Duration::from_millis(200))
        .http_service(ReqwestService::new(reqwest_client()))
        .build()
        .unwrap();
    let err = client.discover(&base).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
}

/// The future a reqwest-middleware layer answers with.
type Answer<'a> = Pin<Box<dyn Future<Output = reqwest_middleware::Result<reqwest::Response>> + Send + 'a>>;

/// A middleware that counts the requests it sees in `seen`.
fn counting(
    seen: Arc<AtomicUsize>,
) -> impl for<'a> Fn(reqwest::Request, &'a mut http::Extensions, reqwest_middleware::Next<'a>) -> Answer<'a>
+ Send
+ Sync
+ 'static {
    move |request, extensions, next| {
        seen.fetch_add(1, Ordering::SeqCst);
        next.run(request, extensions)
    }
}

#[tokio::test]
async fn a_middleware_sees_every_request_the_client_sends() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest())
        .spawn()
        .await
        .unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = counting(seen.clone());
    let counted = reqwest_middleware::ClientBuilder::new(reqwest_client()).with(count).build();
    let client = over(counted);

    let connection = client.connect(&agent.base_url()).await.unwrap();
    connection
        .send_message(a2a_typestate_types::SendMessageRequest::new(
            Message::user("hi").with_message_id("m-1"),
        ))
        .await
        .unwrap();
    let outcome = client
        .run_task(&agent.base_url(), Message::user("hi").with_message_id("m-2"), &Default::default())
        .await
        .unwrap();
    drop(outcome);

    let served = agent.requests().len();
    assert!(served >= 3, "a card, a send, a streamed run: {served}");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        served,
        "every request the agent saw went through the middleware"
    );
}

/// A service of the user's own, in memory: answers every request with `card`, counting them.
#[derive(Clone)]
struct InMemory {
    card: Bytes,
    calls: Arc<AtomicUsize>,
}

impl tower_service::Service<Request> for InMemory {
    type Response = http::Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request) -> Self::Future {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let card = self.card.clone();
        Box::pin(async move {
            let mut response = http::Response::new(Full::new(card));
            response.headers_mut().insert("content-type", http::HeaderValue::from_static("application/json"));
            Ok(response)
        })
    }
}

#[tokio::test]
async fn any_tower_service_can_be_the_stack() {
    let card = br#"{"name":"in memory","description":"","version":"1","skills":[],"capabilities":{},
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
        "supportedInterfaces":[{"url":"http://agent.test/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;
    let calls = Arc::new(AtomicUsize::new(0));
    let service = InMemory { card: Bytes::from_static(card), calls: calls.clone() };
    let client = Client::builder().http_service(service).build().unwrap();
    let discovered = client.discover("http://agent.test").await.unwrap();
    assert_eq!(discovered.card().name, "in memory");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// A service that cannot reach anything, with an error of its own that says nothing about why.
#[derive(Clone)]
struct Unreachable;

impl tower_service::Service<Request> for Unreachable {
    type Response = http::Response<Full<Bytes>>;
    type Error = std::fmt::Error;
    type Future = std::future::Ready<Result<Self::Response, std::fmt::Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), std::fmt::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request) -> Self::Future {
        std::future::ready(Err(std::fmt::Error))
    }
}

#[tokio::test]
async fn a_service_error_that_says_nothing_is_a_transport_fault_not_retried() {
    let client = Client::builder().http_service(Unreachable).build().unwrap();
    let err = client.discover("http://agent.test").await.unwrap_err();
    assert_eq!(err.transport_fault(), Some(TransportFault::Other), "{err}");
    assert!(!err.is_retryable());
    assert_eq!(client.metrics().snapshot().retries, 0);
}

#[tokio::test]
async fn settings_that_belong_to_the_service_are_refused_beside_it() {
    let refused = Client::builder()
        .http_service(ReqwestService::new(reqwest_client()))
        .proxy(a2a_typestate_client::net::Proxy::http("http://proxy.test:3128").unwrap())
        .build()
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Config, "{refused}");
    assert!(refused.to_string().contains("http service"), "{refused}");
}
