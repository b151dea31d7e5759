//! `a2a card` on a signed card whose interface URL is relative: the signature covers the path, not
//! the host it resolves to (whichever served the card), and the summary says so beside the signer.

mod common;

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::{a2a, serve_card_json, stderr, stdout};
use serde_json::{Value, json};

/// `card` signed over its canonical form (a card with no empty member, so the served form is its
/// JCS) by `pair`, as key `card-key`.
fn signed(card: &Value, pair: &Ed25519KeyPair) -> Value {
    let protected = URL_SAFE_NO_PAD.encode(json!({"alg": "EdDSA", "kid": "card-key"}).to_string());
    let payload = a2a_typestate_client::signing::jcs::canonicalize(card).unwrap();
    let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    let signature = URL_SAFE_NO_PAD.encode(pair.sign(input.as_bytes()).as_ref());
    let mut card = card.clone();
    card["signatures"] = json!([{"protected": protected, "signature": signature}]);
    card
}

#[tokio::test]
async fn a_relative_interface_in_a_signed_card_is_shown_as_not_bound_by_the_signature() {
    let pair = Ed25519KeyPair::generate().unwrap();
    let der = pair.public_key().as_der().unwrap();
    let pem =
        format!("-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n", STANDARD.encode(der.as_ref()));
    let key = std::env::temp_dir().join(format!("a2a-cli-unbound-{}", std::process::id()));
    std::fs::create_dir_all(&key).unwrap();
    let key = key.join("card-key.pem");
    std::fs::write(&key, pem).unwrap();
    let card = json!({
        "name": "relative", "description": "a signed card with a relative interface", "version": "1",
        "supportedInterfaces": [{"url": "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
    });
    let base = serve_card_json(signed(&card, &pair)).await;

    let output = a2a(&["card", "--trust-jwks", key.to_str().unwrap(), &base]).await;
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}\n{}", stderr(&output));
    assert!(
        shown.lines().any(|l| l.trim_start().starts_with("signature") && l.contains("verified:")),
        "{shown}"
    );
    let warning = value_of(&shown, "warning");
    assert!(warning.contains("'/rpc' is relative") && warning.contains(&format!("{base}/rpc")), "{shown}");

    let output = a2a(&["card", "--json", "--trust-jwks", key.to_str().unwrap(), &base]).await;
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let unbound = summary["signature"]["unboundInterfaces"].as_array().cloned().unwrap_or_default();
    assert_eq!(unbound.len(), 1, "{summary}");

    // An unsigned card with the same relative URL has no signature to overstate: nothing is said.
    let unsigned = serve_card_json(card).await;
    let shown = stdout(&a2a(&["card", &unsigned]).await);
    assert!(!shown.lines().any(|l| l.trim_start().starts_with("warning")), "{shown}");
}

/// The VALUE cell of the facts table's `field` row, its lines joined: a long cell wraps onto the
/// lines below it, under its column.
fn value_of(shown: &str, field: &str) -> String {
    let lines: Vec<&str> = shown.lines().collect();
    let column =
        lines.iter().find_map(|l| l.find("VALUE").filter(|_| l.contains("FIELD"))).unwrap_or_default();
    let Some(row) = lines.iter().position(|l| l.trim_start().starts_with(field)) else {
        return String::new();
    };
    let mut value = vec![lines[row].get(column..).unwrap_or_default().trim()];
    for line in &lines[row + 1..] {
        if line.len() <= column || !line[..column].trim().is_empty() {
            break;
        }
        value.push(line[column..].trim());
    }
    value.join(" ")
}
