//! URLs a hostile card or card server sends the client to: redirects, link-local and metadata
//! addresses, other schemes.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_typestate_client::url_policy::{AddressPolicy, CardRedirects, UrlPolicy};
use a2a_typestate_client::{Client, ErrorKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A tiny HTTP/1.1 server on loopback answering each path with a fixed response; counts requests.
async fn serve(routes: HashMap<String, String>) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        for _ in 0..50 {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let mut buffer = vec![0u8; 8192];
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buffer[..n]).into_owned();
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            log.lock().unwrap().push(path.clone());
            let answer = routes.get(&path).cloned().unwrap_or_else(|| {
                "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
            });
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    (base, seen)
}

fn card(interface_url: &str) -> String {
    format!(
        r#"{{"name":"a","description":"","version":"1","skills":[],"capabilities":{{}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "supportedInterfaces":[{{"url":"{interface_url}","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}]}}"#
    )
}

fn ok(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn redirect(to: &str) -> String {
    format!("HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
}

const CARD: &str = "/.well-known/agent-card.json";

#[tokio::test]
async fn a_card_redirect_to_another_port_is_not_followed_by_default() {
    let (elsewhere, elsewhere_seen) =
        serve(HashMap::from([(CARD.to_owned(), ok(&card("http://127.0.0.1:9/a2a")))])).await;
    let (base, _) = serve(HashMap::from([(CARD.to_owned(), redirect(&format!("{elsewhere}{CARD}")))])).await;
    let err = Client::builder().build().unwrap().discover(&base).await.unwrap_err();
    assert_eq!(err.status(), Some(302), "{err}");
    assert!(elsewhere_seen.lock().unwrap().is_empty(), "the other origin was contacted");

    let open = UrlPolicy::default().card_redirects(CardRedirects::AnyOrigin);
    let discovered = Client::builder().url_policy(open).build().unwrap().discover(&base).await.unwrap();
    assert_eq!(discovered.source_url(), format!("{elsewhere}{CARD}"), "credited to where it came from");
}

#[tokio::test]
async fn a_same_origin_card_redirect_is_followed_and_the_card_credited_to_its_real_url() {
    let routes = HashMap::from([
        (CARD.to_owned(), redirect("/cards/real.json")),
        ("/cards/real.json".to_owned(), ok(&card("http://127.0.0.1:9/a2a"))),
    ]);
    let (base, _) = serve(routes).await;
    let discovered = Client::builder().build().unwrap().discover(&base).await.unwrap();
    assert_eq!(discovered.source_url(), format!("{base}/cards/real.json"));
}

#[tokio::test]
async fn a_redirect_to_a_metadata_address_is_refused_even_when_any_origin_is_allowed() {
    let (base, _) =
        serve(HashMap::from([(CARD.to_owned(), redirect("http://169.254.169.254/latest/meta-data"))])).await;
    let open = UrlPolicy::default().card_redirects(CardRedirects::AnyOrigin);
    let err = Client::builder().url_policy(open).build().unwrap().discover(&base).await.unwrap_err();
    assert_eq!(err.status(), Some(302), "{err}");
}

#[tokio::test]
async fn an_interface_on_a_link_local_address_is_never_contacted() {
    let (base, _) = serve(HashMap::from([(CARD.to_owned(), ok(&card("http://169.254.169.254/a2a")))])).await;
    let err = Client::builder().build().unwrap().connect(&base).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    assert!(err.to_string().contains("url policy"), "{err}");
}

#[tokio::test]
async fn the_strict_policy_refuses_a_loopback_interface() {
    let (base, _) = serve(HashMap::from([(CARD.to_owned(), ok(&card("http://127.0.0.1:9/a2a")))])).await;
    let strict = UrlPolicy::default().addresses(AddressPolicy::Strict);
    let err = Client::builder().url_policy(strict).build().unwrap().connect(&base).await.unwrap_err();
    assert!(err.to_string().contains("strict address policy"), "{err}");
}

#[tokio::test]
async fn a_push_url_at_a_metadata_address_is_never_handed_to_an_agent() {
    let (base, seen) = serve(HashMap::new()).await;
    let (card_base, _) = serve(HashMap::from([(CARD.to_owned(), ok(&card(&format!("{base}/a2a"))))])).await;
    let client = Client::builder().build().unwrap();
    let connection = client.connect(&card_base).await.unwrap();
    let config =
        a2a_typestate_types::TaskPushNotificationConfig::new("http://169.254.169.254/latest/meta-data")
            .with_task_id(a2a_typestate_types::TaskId::new("t1"));
    let err = connection.create_task_push_notification_config(config.clone()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    assert!(err.to_string().contains("169.254.169.254"), "{err}");

    let mut request = a2a_typestate_types::SendMessageRequest::new(
        a2a_typestate_types::Message::user("hi").with_message_id("m"),
    );
    request.configuration = Some(a2a_typestate_types::SendMessageConfiguration {
        task_push_notification_config: Some(config),
        ..Default::default()
    });
    let err = connection.send_message(request).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    assert!(seen.lock().unwrap().is_empty(), "the agent was contacted: {:?}", seen.lock().unwrap());
}

/// The policy is checked on the address a name resolves to, not only on the name as written: a
/// name that resolves to a metadata address is refused before anything is connected, whatever it
/// looks like, and the strict policy refuses a name that resolves to loopback.
#[tokio::test]
async fn a_name_is_refused_for_the_address_it_resolves_to() {
    let (base, seen) = serve(HashMap::new()).await;
    let port = base.rsplit(':').next().unwrap().to_owned();
    let metadata = "169.254.169.254".parse().unwrap();
    let client = Client::builder().resolve("innocent.example", metadata).build().unwrap();
    let error = client.discover(&format!("http://innocent.example:{port}")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    let said = error.to_string();
    assert!(said.contains("169.254.169.254") && said.contains("metadata"), "{said}");
    assert_eq!(error.transport_fault(), None, "a policy refusal is neither retried nor failed over");

    // The same name resolved to loopback: allowed by default, refused by the strict policy.
    let loopback = "127.0.0.1".parse().unwrap();
    let allowed = Client::builder().resolve("innocent.example", loopback).build().unwrap();
    let fetched = allowed.discover(&format!("http://innocent.example:{port}")).await;
    assert!(fetched.is_err_and(|e| e.status() == Some(404)), "the override reached the server");
    assert!(!seen.lock().unwrap().is_empty());
    let strict = UrlPolicy::default().addresses(AddressPolicy::Strict);
    let strict = Client::builder().url_policy(strict).resolve("innocent.example", loopback).build().unwrap();
    let error = strict.discover(&format!("http://innocent.example:{port}")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    assert!(error.to_string().contains("loopback"), "{error}");
}
