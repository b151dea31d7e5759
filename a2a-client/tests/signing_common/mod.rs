//! Helpers shared by the card-signature tests: the served canonical form a signer covers, base64url,
//! a loopback server for hand-made cards.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_typestate_client::signing::jcs;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// The served-document canonical form of a card (what a signer of the whole document covers):
/// `signatures` dropped, empty strings, arrays and objects removed, JCS.
pub fn served_form(card: &Value) -> Vec<u8> {
    fn clean(value: &Value) -> Option<Value> {
        match value {
            Value::String(s) if s.is_empty() => None,
            Value::Array(items) => {
                let items: Vec<Value> = items.iter().filter_map(clean).collect();
                (!items.is_empty()).then_some(Value::Array(items))
            }
            Value::Object(members) => {
                let members: serde_json::Map<String, Value> =
                    members.iter().filter_map(|(k, v)| clean(v).map(|v| (k.clone(), v))).collect();
                (!members.is_empty()).then_some(Value::Object(members))
            }
            other => Some(other.clone()),
        }
    }
    let mut card = card.clone();
    card.as_object_mut().unwrap().remove("signatures");
    jcs::canonicalize(&clean(&card).unwrap()).unwrap()
}

/// base64url without padding.
pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The JWS signing input for `protected` (a header object) over `card`'s served form.
pub fn signing_input(protected: &Value, card: &Value) -> (String, String) {
    let protected = b64(protected.to_string().as_bytes());
    let input = format!("{protected}.{}", b64(&served_form(card)));
    (protected, input)
}

/// Serves `card` at `/.well-known/agent-card.json` on 127.0.0.1 until the test ends; every other
/// path answers `other_status` with an empty JWKS, and the requests to them are counted.
pub async fn serve_card_with(card: String, other_status: u16) -> (String, Arc<AtomicUsize>) {
    let others = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&others);
    let status = axum::http::StatusCode::from_u16(other_status).unwrap();
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = card.clone();
                async move { ([("content-type", "application/json")], card) }
            }),
        )
        .fallback(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { (status, r#"{"keys":[]}"#) }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), others)
}

/// [`serve_card_with`] answering 200 on the other paths.
pub async fn serve_card(card: String) -> (String, Arc<AtomicUsize>) {
    serve_card_with(card, 200).await
}

/// A PEM block of `der` under `label`.
pub fn pem(label: &str, der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> =
        body.as_bytes().chunks(64).map(|chunk| std::str::from_utf8(chunk).unwrap()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
}
