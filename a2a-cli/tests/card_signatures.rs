//! `a2a card --trust-jwks FILE URL`: a card signed by the official Python SDK is shown with its
//! verified signer, in text and JSON; the same card changed after signing is refused with the
//! failing signature named.

mod common;

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PeerKind, RunningPeer};
use common::{a2a, serve_card_json, stderr, stdout};
use serde_json::Value;

async fn signed_peer() -> &'static RunningPeer {
    OfficialPeer::shared(PeerKind::PythonSigned).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn get_json(url: &str) -> Value {
    let http = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap();
    http.get(url).send().await.unwrap().json().await.unwrap()
}

/// Writes the peer's per-run JWKS to a file the command can read.
async fn jwks_file(peer: &RunningPeer) -> std::path::PathBuf {
    let jwks = get_json(&format!("{}/test/jwks.json", peer.base_url())).await;
    let path = std::env::temp_dir().join(format!("a2a-cli-python-signed-{}.jwks.json", std::process::id()));
    std::fs::write(&path, jwks.to_string()).unwrap();
    path
}

#[tokio::test]
async fn a_signed_card_shows_its_verified_signer_in_text_and_json() {
    let peer = signed_peer().await;
    let jwks = jwks_file(peer).await;
    let jwks = jwks.to_str().unwrap();
    let output = a2a(&["card", "--trust-jwks", jwks, "--require-signature", peer.base_url()]).await;
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}\n{}", stderr(&output));
    let line = shown.lines().find(|l| l.trim_start().starts_with("signature")).unwrap_or_default();
    assert!(line.contains("verified:") && line.contains("kid 'python-rsa-1', RS256"), "{shown}");

    let output = a2a(&["card", "--json", "--trust-jwks", jwks, peer.base_url()]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["signature"]["status"], "verified");
    assert_eq!(summary["signature"]["keyId"], "python-rsa-1");
    assert_eq!(summary["signature"]["algorithm"], "RS256");
    assert_eq!(summary["signature"]["count"], 2);

    let output = a2a(&["card", "--json", peer.base_url()]).await;
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["signature"]["status"], "not checked", "no trust store given");
}

#[tokio::test]
async fn a_card_changed_after_signing_is_refused_naming_each_signature() {
    let peer = signed_peer().await;
    let jwks = jwks_file(peer).await;
    let mut card = get_json(&peer.card_url()).await;
    card["name"] = Value::from("python-signed, changed");
    let base = serve_card_json(card).await;
    let output = a2a(&["card", "--trust-jwks", jwks.to_str().unwrap(), &base]).await;
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.contains("agent card signature check failed"), "{said}");
    assert!(
        said.contains("signature 0 (kid 'python-rsa-1', alg RS256): signature does not match the card"),
        "{said}"
    );
    assert!(said.contains("signature 1 (kid 'python-ec-1', alg ES256)"), "{said}");
    assert!(stdout(&output).is_empty());
}
