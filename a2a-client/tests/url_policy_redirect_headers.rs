//! A redirect to another origin is a URL the server chose: what the request carried as a secret
//! (every header marked sensitive, the client's secret default headers included) stays behind, on
//! every HTTP stack (`http_stack_common`): redirects are the client's, whichever stack sends.

mod http_stack_common;

use std::sync::{Arc, Mutex};

use a2a_typestate_client::auth::Secret;
use a2a_typestate_client::url_policy::{CardRedirects, UrlPolicy};
use http_stack_common::HttpStack;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const CARD: &str = "/.well-known/agent-card.json";

/// A loopback HTTP/1.1 server answering every request with `answer(base)`; keeps each request head.
async fn serve(answer: impl Fn(&str) -> String + Send + 'static) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let heads = Arc::new(Mutex::new(Vec::new()));
    let (log, own) = (heads.clone(), base.clone());
    tokio::spawn(async move {
        for _ in 0..20 {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let mut buffer = vec![0u8; 8192];
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            log.lock().unwrap().push(String::from_utf8_lossy(&buffer[..n]).to_ascii_lowercase());
            let _ = stream.write_all(answer(&own).as_bytes()).await;
        }
    });
    (base, heads)
}

fn card() -> String {
    let body = r#"{"name":"a","description":"","version":"1","skills":[],"capabilities":{},
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
        "supportedInterfaces":[{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_card_redirect_to_another_origin_carries_no_secret_header() {
    for stack in HttpStack::each() {
        let (elsewhere, elsewhere_heads) = serve(|_| card()).await;
        let target = format!("{elsewhere}{CARD}");
        let (base, base_heads) = serve(move |_| {
            format!(
                "HTTP/1.1 302 Found\r\nlocation: {target}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        })
        .await;
        let client = stack
            .builder()
            .url_policy(UrlPolicy::default().card_redirects(CardRedirects::AnyOrigin))
            .default_header("X-Api-Key", Secret::new("default-SECRET-1"))
            .build()
            .unwrap();
        client.discover(&base).await.unwrap();

        assert!(
            base_heads.lock().unwrap()[0].contains("x-api-key: default-secret-1"),
            "sent where the user sent it"
        );
        let followed = elsewhere_heads.lock().unwrap();
        assert_eq!(followed.len(), 1, "the redirect was followed");
        assert!(
            !followed[0].contains("x-api-key"),
            "the secret header left for another origin:\n{}",
            followed[0]
        );
    }
}

#[tokio::test]
async fn a_same_origin_card_redirect_keeps_the_clients_headers() {
    for stack in HttpStack::each() {
        let (base, heads) = serve(|base| {
        format!("HTTP/1.1 302 Found\r\nlocation: {base}/real.json\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
    })
    .await;
        // Every hop redirects within the origin (until the redirect limit): each keeps the header.
        let client =
            stack.builder().default_header("X-Api-Key", Secret::new("default-SECRET-2")).build().unwrap();
        let _ = client.discover(&base).await;
        let heads = heads.lock().unwrap();
        assert!(heads.len() >= 2, "{heads:?}");
        assert!(heads.iter().all(|h| h.contains("x-api-key: default-secret-2")), "{heads:?}");
    }
}
