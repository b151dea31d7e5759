//! The card's other claims against the official SDK servers, which can declare them: the audit
//! verifies an honest agent's extended card, required extension, interfaces and security, and
//! refuses none of them.

mod common;

use a2a_testkit::official::{OfficialPeer, PEER_BEARER_TOKEN, PEER_REQUIRED_EXTENSION, PeerKind};
use common::{a2a_with_env, stderr, stdout};
use serde_json::Value;

/// Audits `url` with `--json --all-interfaces` (and the peers' bearer token in the environment,
/// named by `--bearer-env` when `bearer`); returns the exit status and the agent's card claims.
async fn audit_all_interfaces(url: &str, bearer: bool) -> (Option<i32>, Vec<Value>) {
    let mut args = vec!["audit", "--json", "--all-interfaces", "--push-arrival-bound", "10s"];
    if bearer {
        args.extend(["--bearer-env", "PEER_TOKEN"]);
    }
    args.push(url);
    let output = a2a_with_env(&args, &[("PEER_TOKEN", PEER_BEARER_TOKEN)]).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    let claims = report["agents"][0]["cardClaims"].as_array().cloned().unwrap_or_default();
    (output.status.code(), claims)
}

fn verdicts(claims: &[Value], kind: &str) -> Vec<String> {
    claims
        .iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| c["verdict"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn the_honest_official_peers_have_every_declared_interface_verified() {
    for kind in [
        PeerKind::PythonHonest,
        PeerKind::JsHonest,
        PeerKind::PythonV03,
        PeerKind::PythonGrpc,
        PeerKind::JsGrpc,
    ] {
        let peer = OfficialPeer::start(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let (status, claims) = audit_all_interfaces(peer.base_url(), false).await;
        assert_eq!(status, Some(0), "{kind}: {claims:#?}");
        let interfaces = verdicts(&claims, "interfaces");
        assert!(!interfaces.is_empty(), "{kind}: no interface checked: {claims:#?}");
        assert!(interfaces.iter().all(|v| v == "verified"), "{kind}: {claims:#?}");
        assert!(claims.iter().all(|c| c["verdict"] != "refused"), "{kind}: {claims:#?}");
        peer.stop().unwrap();
    }
}

#[tokio::test]
async fn the_official_extensions_peer_has_its_required_extension_verified() {
    let peer = OfficialPeer::start(PeerKind::PythonExtensions).await.unwrap_or_else(|e| panic!("{e}"));
    let (status, claims) = audit_all_interfaces(peer.base_url(), false).await;
    assert_eq!(status, Some(0), "{claims:#?}");
    let extensions: Vec<&Value> = claims.iter().filter(|c| c["kind"] == "extensions").collect();
    assert_eq!(extensions.len(), 1, "only the required extension is depended on: {claims:#?}");
    assert!(extensions[0]["claim"].as_str().unwrap_or("").contains(PEER_REQUIRED_EXTENSION));
    assert_eq!(extensions[0]["verdict"], "verified", "{claims:#?}");
    assert_eq!(verdicts(&claims, "security"), ["verified"], "{claims:#?}");
    peer.stop().unwrap();
}

#[tokio::test]
async fn the_authenticated_official_peers_have_their_extended_card_and_security_verified() {
    for kind in PeerKind::AUTHENTICATED {
        let peer = OfficialPeer::start(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let (status, claims) = audit_all_interfaces(peer.base_url(), true).await;
        assert_eq!(status, Some(0), "{kind}: {claims:#?}");
        assert_eq!(verdicts(&claims, "extended-card"), ["verified"], "{kind}: {claims:#?}");
        // The card requires the bearer scheme, and a call without it is answered 401.
        assert_eq!(verdicts(&claims, "security"), ["verified"], "{kind}: {claims:#?}");
        assert!(claims.iter().all(|c| c["verdict"] != "refused"), "{kind}: {claims:#?}");
        peer.stop().unwrap();
    }
}
