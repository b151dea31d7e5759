//! What real fleets serve that the testkit does not: redirects that never end, interface URLs
//! written the way other SDKs' samples write them.

mod transport_common;

use std::collections::HashMap;

use a2a_testkit::{Binding, Capabilities, ScriptedAgent};
use a2a_typestate_client::{Client, ErrorKind};
use a2a_typestate_types::discovery::ProtocolBinding;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use transport_common::scenarios;

/// A tiny HTTP/1.1 server on loopback answering each path with a fixed response (404 elsewhere),
/// for at most 50 requests.
async fn serve(routes: HashMap<&'static str, String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        for _ in 0..50 {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let mut buffer = vec![0u8; 8192];
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buffer[..n]).into_owned();
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let answer = routes.get(path.as_str()).cloned().unwrap_or_else(|| {
                "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
            });
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    base
}

fn redirect(to: &str) -> String {
    format!("HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
}

fn ok(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

const CARD: &str = "/.well-known/agent-card.json";

#[tokio::test]
async fn a_redirect_loop_is_named_as_a_loop() {
    let base = serve(HashMap::from([
        (CARD, redirect("/cards/a.json")),
        ("/cards/a.json", redirect("/cards/b.json")),
        ("/cards/b.json", redirect(CARD)),
    ]))
    .await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    let message = err.to_string();
    assert!(message.contains("redirect loop"), "{message}");
    assert!(
        message
            .contains(&format!("{base}{CARD} -> {base}/cards/a.json -> {base}/cards/b.json -> {base}{CARD}")),
        "the loop is shown hop by hop: {message}"
    );
    assert!(!message.contains("unexpected http status"), "{message}");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert!(!err.is_retryable(), "a loop answers the same way again");
}

#[tokio::test]
async fn a_redirect_to_itself_is_a_loop_and_a_long_chain_is_too_many() {
    let base = serve(HashMap::from([(CARD, redirect(CARD))])).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert!(err.to_string().contains(&format!("redirect loop: {base}{CARD} -> {base}{CARD}")), "{err}");

    let mut routes = HashMap::from([(CARD, redirect("/hop/0"))]);
    let hops: Vec<&'static str> =
        (0..12).map(|n| &*Box::leak(format!("/hop/{n}").into_boxed_str())).collect();
    for pair in hops.windows(2) {
        routes.insert(pair[0], redirect(pair[1]));
    }
    let base = serve(routes).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert!(err.to_string().contains("more than 10 redirects"), "{err}");
}

#[tokio::test]
async fn a_grpc_interface_written_host_port_is_reached() {
    let agent = ScriptedAgent::builder()
        .name("grpc-only")
        .capabilities(Capabilities::none().with_streaming())
        .bindings([Binding::Grpc])
        .spawn()
        .await
        .unwrap();
    // The card as the official Python SDK's samples write it: the gRPC target, no scheme, served
    // from another port than the agent's, so joining it to the card's URL cannot reach it.
    let mut card = agent.card().clone();
    let target = agent.addr().to_string();
    card["supportedInterfaces"][0]["url"] = serde_json::Value::String(target.clone());
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "GRPC", "{card:#}");
    let card_server = serve(HashMap::from([(CARD, ok(&card.to_string()))])).await;

    let connection = transport_common::client().connect(&card_server).await.unwrap();
    assert_eq!(connection.interface().binding, ProtocolBinding::Grpc);
    // Reached, and reported: 1.0 wants an absolute URL there.
    let deviations = connection.wire_deviations();
    assert_eq!(deviations.len(), 1, "{deviations:?}");
    assert_eq!(deviations[0].kind(), a2a_typestate_types::tolerant::DeviationKind::GrpcTargetUrl);
    assert_eq!(deviations[0].path(), "supportedInterfaces[0].url");
    assert!(deviations[0].to_string().contains(&target), "{}", deviations[0]);
    scenarios::send_message_waits_for_the_completed_task(&connection).await;
    let sent = agent.requests_for("SendMessage");
    assert_eq!(sent.len(), 1, "the call reached the agent at http://{target}");
    assert_eq!(sent[0].path, "/lf.a2a.v1.A2AService/SendMessage");
}
