//! `a2a card --trust-jwks FILE` (alias `--trust-key`) takes the key files real fleets hand out: a
//! JWKS, the single JWK the official SDK's signer exports, or a PEM public key.

mod common;

use std::path::{Path, PathBuf};

use common::{a2a, serve_card, stderr, stdout};
use serde_json::Value;

/// A card signed (EdDSA over its JCS form) with the Ed25519 key below, made once outside the test
/// so the test needs no signer of its own.
const SIGNED_CARD: &str = r#"{"name":"signed-fleet-agent","description":"a card signed with one Ed25519 key","version":"1.0.0","skills":[{"id":"echo","name":"echo","description":"echoes","tags":["echo"]}],"capabilities":{"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"supportedInterfaces":[{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"signatures":[{"protected":"eyJhbGciOiJFZERTQSIsImtpZCI6ImZsZWV0LWVkLTEifQ","signature":"UReb2ivtprsTzfePDP3QfodPKOJ7Y4nyjlvPAMchLJ1yT36Yao9rra9ZDG7TBvf5Y8Yo6X46pOBmCnajLgIQCg"}]}"#;

/// The signer's public key as one JWK, kid `fleet-ed-1`.
const JWK: &str = r#"{"kty":"OKP","crv":"Ed25519","kid":"fleet-ed-1","x":"A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg","alg":"EdDSA","use":"sig"}"#;

/// The same key as PEM (SubjectPublicKeyInfo).
const PEM: &str = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAA6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=\n-----END PUBLIC KEY-----\n";

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-fleets-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

async fn signature_with(option: &str, file: &Path, base: &str) -> Value {
    let output = a2a(&["card", "--json", "--require-signature", option, file.to_str().unwrap(), base]).await;
    assert!(output.status.success(), "{option} {}: {}\n{}", file.display(), stderr(&output), stdout(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    summary["signature"].clone()
}

#[tokio::test]
async fn trust_jwks_takes_a_single_jwk_a_jwks_or_a_pem_key() {
    let base = serve_card(SIGNED_CARD).await;
    let jwk = write("signer.jwk.json", JWK);
    let jwks = write("signer.jwks.json", &format!(r#"{{"keys":[{JWK}]}}"#));
    // A PEM block names no key: the file's name does.
    let pem = write("fleet-ed-1.pem", PEM);
    for file in [&jwk, &jwks, &pem] {
        for option in ["--trust-jwks", "--trust-key"] {
            let signature = signature_with(option, file, &base).await;
            assert_eq!(signature["status"], "verified", "{option} {}: {signature:#}", file.display());
            assert_eq!(signature["keyId"], "fleet-ed-1", "{signature:#}");
            assert_eq!(signature["algorithm"], "EdDSA", "{signature:#}");
        }
    }
}

#[tokio::test]
async fn a_key_file_that_is_no_key_says_what_it_takes() {
    let base = serve_card(SIGNED_CARD).await;
    let file = write("not-a-key.json", r#"{"name":"x"}"#);
    let output = a2a(&["card", "--trust-key", file.to_str().unwrap(), &base]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("not-a-key.json"), "names the file: {said}");
    assert!(said.contains("neither a jwk") && said.contains("pem public key"), "{said}");
}
