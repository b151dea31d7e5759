//! Signed Agent Cards against the official SDKs' own signers: a card signed by a2a-sdk 1.3.0
//! (`a2a.utils.signing`) and by @a2a-js/sdk 1.3.0 (`generateAgentCardSignature`) verifies with this
//! client and names its signer; the same cards changed by one byte, stripped of their signatures,
//! checked with the wrong key, rewritten to `alg: none`, or re-signed with HMAC keyed by the RSA
//! public key all fail, each with the reason.
//!
//! The peers make fresh keys each run and serve the public halves at `/test/jwks.json`, which is
//! how the tests fill their trust stores. Tampered cards are served from a small loopback server.

mod http_stack_common;
mod signing_common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PeerKind, RunningPeer};
use a2a_typestate::Deployment;
use a2a_typestate_client::signing::{
    Algorithm, CanonicalForm, CardSignatureError, CardSignaturePolicy, SignatureFailureReason, TrustStore,
    TrustedKey,
};
use a2a_typestate_client::{AgentBaseUrl, Capability, Client, DiscoveryCache, Error, ErrorKind};
use a2a_typestate_types::v03::CardShape;
use http_stack_common::HttpStack;
use serde_json::{Value, json};
use signing_common::{b64, serve_card, served_form};

async fn peer(kind: PeerKind) -> &'static RunningPeer {
    OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"))
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap()
}

async fn get_text(url: &str) -> String {
    let response = http().get(url).send().await.unwrap_or_else(|e| panic!("{url}: {e}"));
    assert!(response.status().is_success(), "{url}: {}", response.status());
    response.text().await.unwrap()
}

async fn jwks_of(peer: &RunningPeer) -> Value {
    serde_json::from_str(&get_text(&format!("{}/test/jwks.json", peer.base_url())).await).unwrap()
}

async fn store_of(peer: &RunningPeer) -> TrustStore {
    TrustStore::new().with_jwks(&jwks_of(peer).await, &format!("{} test keys", peer.kind())).unwrap()
}

fn client(policy: CardSignaturePolicy, store: TrustStore) -> Client {
    client_over(HttpStack::HyperUtil, policy, store)
}

/// As [`client`], sending through `stack`.
fn client_over(stack: HttpStack, policy: CardSignaturePolicy, store: TrustStore) -> Client {
    stack
        .builder()
        .card_signature_policy(policy)
        .card_trust_store(store)
        .request_timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn signature_error(err: &Error) -> &CardSignatureError {
    assert_eq!(err.kind(), ErrorKind::CardSignature, "{err:?}");
    assert!(!err.is_retryable());
    err.card_signature_error().unwrap()
}

/// Discovers `base` expecting a signature refusal; checks nothing was cached.
async fn refused(client: &Client, base: &str) -> CardSignatureError {
    let err = client.discover(base).await.expect_err("the card must be refused");
    let agent = AgentBaseUrl::parse(base).unwrap();
    assert!(client.discovery_cache().get(&agent).is_none(), "a refused card is never cached");
    signature_error(&err).clone()
}

fn reasons(err: &CardSignatureError) -> Vec<&SignatureFailureReason> {
    err.failures().iter().map(|f| f.reason()).collect()
}

#[tokio::test]
async fn a_card_signed_by_the_python_sdk_verifies_and_names_its_signer() {
    let peer = peer(PeerKind::PythonSigned).await;
    let client = client(CardSignaturePolicy::Require, store_of(peer).await);
    let card = client
        .discover(peer.base_url())
        .await
        .unwrap_or_else(|e| panic!("{e}: {:?}", e.card_signature_error()));
    let signer = card.signer().expect("verified");
    assert_eq!(signer.key_id(), "python-rsa-1");
    assert_eq!(signer.algorithm(), Algorithm::Rs256);
    assert_eq!(signer.issuer(), Some("python-signed test keys"));
    assert_eq!(signer.signature_index(), 0);
    // The SDK serves merged 0.3 fields (url, protocolVersion...) that its signature does not cover.
    assert_eq!(signer.canonical_form(), CanonicalForm::ProtoView);
    assert!(card.claims(Deployment::Direct).declares(Capability::Streaming));
    let agent = AgentBaseUrl::parse(peer.base_url()).unwrap();
    let cached = client.discovery_cache().get(&agent).expect("a verified card is cached");
    assert_eq!(cached.card().signer(), Some(signer));
}

#[tokio::test]
async fn a_card_signed_by_the_js_sdk_verifies_and_names_its_signer() {
    let peer = peer(PeerKind::JsSigned).await;
    let client = client(CardSignaturePolicy::Require, store_of(peer).await);
    let card = client
        .discover(peer.base_url())
        .await
        .unwrap_or_else(|e| panic!("{e}: {:?}", e.card_signature_error()));
    let signer = card.signer().expect("verified");
    assert_eq!((signer.key_id(), signer.algorithm()), ("js-ec-1", Algorithm::Es256));
    assert!(card.claims(Deployment::Direct).declares(Capability::PushNotifications));
}

#[tokio::test]
async fn the_js_sdks_ed25519_signature_verifies_on_its_own() {
    let peer = peer(PeerKind::JsSigned).await;
    let jwks = jwks_of(peer).await;
    let ed = jwks["keys"].as_array().unwrap().iter().find(|k| k["kid"] == "js-ed-1").unwrap().clone();
    let store = TrustStore::new().with_jwk(&ed, "js ed25519").unwrap();
    let card = client(CardSignaturePolicy::Require, store).discover(peer.base_url()).await.unwrap();
    let signer = card.signer().unwrap();
    assert_eq!(
        (signer.key_id(), signer.algorithm(), signer.signature_index()),
        ("js-ed-1", Algorithm::EdDsa, 1)
    );
}

#[tokio::test]
async fn a_pem_public_key_verifies_the_python_card() {
    let peer = peer(PeerKind::PythonSigned).await;
    let pem = get_text(&format!("{}/test/rsa-public.pem", peer.base_url())).await;
    let store = TrustStore::new().with_pem("python-rsa-1", &pem, "python pem").unwrap();
    let card = client(CardSignaturePolicy::VerifyIfPresent, store).discover(peer.base_url()).await.unwrap();
    assert_eq!(card.signer().map(|s| s.issuer()), Some(Some("python pem")));
}

#[tokio::test]
async fn a_trusted_jku_supplies_the_key_its_signature_names() {
    for stack in HttpStack::each() {
        let peer = peer(PeerKind::PythonSigned).await;
        let jku = format!("{}/test/jwks.json", peer.base_url());
        let store = TrustStore::new().with_trusted_jku(&jku, "python jku").unwrap();
        let card =
            client_over(stack, CardSignaturePolicy::Require, store).discover(peer.base_url()).await.unwrap();
        let signer = card.signer().unwrap();
        assert_eq!((signer.key_id(), signer.signature_index()), ("python-ec-1", 1));
        assert_eq!(signer.jku(), Some(jku.as_str()));
        assert_eq!(signer.issuer(), Some("python jku"));
    }
}

#[tokio::test]
async fn an_untrusted_jku_never_chooses_its_own_key_and_is_never_fetched() {
    let peer = peer(PeerKind::PythonSigned).await;
    let (attacker, jwks_requests) = serve_card(String::new()).await;
    // The attacker's card: the genuine one re-signed by the attacker's key, named by the attacker's jku.
    let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
    let pair =
        aws_lc_rs::signature::EcdsaKeyPair::generate(&aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING)
            .unwrap();
    let protected = b64(
        json!({"alg": "ES256", "kid": "attacker-1", "typ": "JOSE", "jku": format!("{attacker}/jwks.json")})
            .to_string()
            .as_bytes(),
    );
    let input = format!("{protected}.{}", b64(&served_form(&card)));
    let sig = pair.sign(&aws_lc_rs::rand::SystemRandom::new(), input.as_bytes()).unwrap();
    card["signatures"] = json!([{"protected": protected, "signature": b64(sig.as_ref())}]);
    let (base, _) = serve_card(card.to_string()).await;

    let err = refused(&client(CardSignaturePolicy::Require, store_of(peer).await), &base).await;
    let [failure] = err.failures() else { panic!("{err}") };
    assert_eq!(failure.key_id(), Some("attacker-1"));
    assert_eq!(
        failure.reason(),
        &SignatureFailureReason::NoTrustedKey { untrusted_jku: Some(format!("{attacker}/jwks.json")) }
    );
    assert!(err.to_string().contains("is not trusted"), "{err}");
    assert_eq!(jwks_requests.load(Ordering::SeqCst), 0, "an untrusted jku is never fetched");
}

#[tokio::test]
async fn one_byte_changed_in_a_claim_fails_for_both_sdks() {
    for kind in [PeerKind::PythonSigned, PeerKind::JsSigned] {
        let peer = peer(kind).await;
        let genuine = get_text(&peer.card_url()).await;
        // The JSON-RPC interface URL moves to another port: one digit, a claim clients act on.
        let port = peer.port().to_string();
        let other_port =
            format!("{}{}", &port[..port.len() - 1], if port.ends_with('9') { '8' } else { '9' });
        let tampered =
            genuine.replacen(&format!("{port}/a2a/jsonrpc"), &format!("{other_port}/a2a/jsonrpc"), 1);
        assert_eq!(tampered.len(), genuine.len());
        assert_ne!(tampered, genuine);
        let (base, _) = serve_card(tampered).await;
        let err = refused(&client(CardSignaturePolicy::VerifyIfPresent, store_of(peer).await), &base).await;
        assert_eq!(err.failures().len(), 2, "{kind}: {err}");
        assert!(reasons(&err).iter().all(|r| **r == SignatureFailureReason::Mismatch), "{kind}: {err}");
        assert!(err.to_string().contains("signature 0 (kid "), "{err}");
    }
}

#[tokio::test]
async fn a_stripped_signature_fails_under_require_and_reads_as_unsigned_otherwise() {
    for kind in [PeerKind::PythonSigned, PeerKind::JsSigned] {
        let peer = peer(kind).await;
        let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
        card.as_object_mut().unwrap().remove("signatures");
        let (base, _) = serve_card(card.to_string()).await;
        let store = store_of(peer).await;
        let err = refused(&client(CardSignaturePolicy::Require, store.clone()), &base).await;
        assert!(err.is_unsigned(), "{kind}");
        assert_eq!(err.to_string(), "the card has no signature and the policy requires one");
        let unsigned = client(CardSignaturePolicy::VerifyIfPresent, store).discover(&base).await.unwrap();
        assert!(unsigned.signer().is_none() && !unsigned.is_signed(), "{kind}");
    }
}

#[tokio::test]
async fn a_wrong_key_under_the_right_kid_fails_as_a_mismatch() {
    let js = peer(PeerKind::JsSigned).await;
    let peer = peer(PeerKind::PythonSigned).await;
    // The JS peer's keys, renamed to the Python peer's kids: right kind for ES256, wrong key.
    let mut jwks = jwks_of(js).await;
    jwks["keys"][0]["kid"] = json!("python-ec-1");
    let store = TrustStore::new().with_jwks(&jwks, "someone else").unwrap();
    let err = refused(&client(CardSignaturePolicy::Require, store), peer.base_url()).await;
    let [rsa, ec] = err.failures() else { panic!("{err}") };
    assert_eq!(rsa.reason(), &SignatureFailureReason::NoTrustedKey { untrusted_jku: None });
    assert_eq!((ec.key_id(), ec.reason()), (Some("python-ec-1"), &SignatureFailureReason::Mismatch));
}

#[tokio::test]
async fn alg_none_is_refused_before_any_key_is_tried() {
    for (kind, kid) in [(PeerKind::PythonSigned, "python-rsa-1"), (PeerKind::JsSigned, "js-ec-1")] {
        let peer = peer(kind).await;
        let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
        for alg in ["none", "None"] {
            let protected = b64(json!({"alg": alg, "kid": kid, "typ": "JOSE"}).to_string().as_bytes());
            card["signatures"] = json!([{"protected": protected, "signature": ""}]);
            let (base, _) = serve_card(card.to_string()).await;
            let err =
                refused(&client(CardSignaturePolicy::VerifyIfPresent, store_of(peer).await), &base).await;
            assert_eq!(
                reasons(&err),
                [&SignatureFailureReason::AlgorithmNotAllowed(alg.to_owned())],
                "{kind}"
            );
            assert!(err.to_string().contains(&format!("algorithm '{alg}' is not allowed")), "{err}");
        }
    }
}

#[tokio::test]
async fn hmac_keyed_by_the_rsa_public_key_is_refused_even_where_hmac_is_allowed() {
    let peer = peer(PeerKind::PythonSigned).await;
    let pem = get_text(&format!("{}/test/rsa-public.pem", peer.base_url())).await;
    let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
    let protected = b64(json!({"alg": "HS256", "kid": "python-rsa-1", "typ": "JOSE"}).to_string().as_bytes());
    let input = format!("{protected}.{}", b64(&served_form(&card)));
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, pem.as_bytes());
    let tag = aws_lc_rs::hmac::sign(&key, input.as_bytes());
    card["signatures"] = json!([{"protected": protected, "signature": b64(tag.as_ref())}]);
    let (base, _) = serve_card(card.to_string()).await;

    let store = TrustStore::new().with_pem("python-rsa-1", &pem, "python pem").unwrap();
    let err = refused(&client(CardSignaturePolicy::Require, store.clone()), &base).await;
    assert_eq!(reasons(&err), [&SignatureFailureReason::AlgorithmNotAllowed("HS256".into())]);

    let everything = store.with_allowed_algorithms(&Algorithm::ALL);
    let err = refused(&client(CardSignaturePolicy::Require, everything), &base).await;
    let expected = SignatureFailureReason::KeyKindMismatch {
        trusted: "an rsa key".into(),
        needed: "an hmac secret".into(),
    };
    assert_eq!(reasons(&err), [&expected], "{err}");
}

#[tokio::test]
async fn a_genuine_hmac_signature_verifies_where_hmac_is_allowed() {
    let peer = peer(PeerKind::PythonSigned).await;
    let secret = [0x5a_u8; 32];
    let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
    let protected = b64(json!({"alg": "HS256", "kid": "shared-1"}).to_string().as_bytes());
    let input = format!("{protected}.{}", b64(&served_form(&card)));
    let tag = aws_lc_rs::hmac::sign(
        &aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &secret),
        input.as_bytes(),
    );
    card["signatures"] = json!([{"protected": protected, "signature": b64(tag.as_ref())}]);
    let (base, _) = serve_card(card.to_string()).await;
    let store = TrustStore::new()
        .with_key(TrustedKey::hmac_secret("shared-1", &secret, Some("shared")).unwrap())
        .with_allowed_algorithms(&[Algorithm::Hs256]);
    let card = client(CardSignaturePolicy::Require, store).discover(&base).await.unwrap();
    let signer = card.signer().unwrap();
    assert_eq!(
        (signer.algorithm(), signer.canonical_form()),
        (Algorithm::Hs256, CanonicalForm::ServedDocument)
    );
}

#[tokio::test]
async fn a_03_card_signed_over_its_served_json_verifies_and_covers_its_history_claim() {
    let peer = peer(PeerKind::PythonSigned).await;
    let pem = get_text(&format!("{}/test/rsa-public.pem", peer.base_url())).await;
    let store = TrustStore::new().with_pem("python-rsa-1", &pem, "python pem").unwrap();
    let legacy = get_text(&format!("{}/test/v03-card.json", peer.base_url())).await;
    let (base, _) = serve_card(legacy.clone()).await;
    let card = client(CardSignaturePolicy::Require, store.clone()).discover(&base).await.unwrap();
    assert_eq!(card.shape(), CardShape::V03);
    assert_eq!(card.signer().map(|s| s.canonical_form()), Some(CanonicalForm::ServedDocument));
    assert!(card.claims(Deployment::Direct).declares(Capability::StateTransitionHistory));

    let tampered = legacy.replacen("\"0.3.0\"", "\"0.3.1\"", 1);
    assert_ne!(tampered, legacy);
    let (base, _) = serve_card(tampered).await;
    let err = refused(&client(CardSignaturePolicy::Require, store), &base).await;
    assert_eq!(reasons(&err), [&SignatureFailureReason::Mismatch]);
}

#[tokio::test]
async fn a_card_cached_unverified_is_verified_again_by_a_client_that_requires_signatures() {
    let peer = peer(PeerKind::PythonSigned).await;
    let cache = DiscoveryCache::default();
    let ignoring = Client::builder().discovery_cache(cache.clone()).build().unwrap();
    assert!(ignoring.discover(peer.base_url()).await.unwrap().signer().is_none());
    let requiring = Client::builder()
        .discovery_cache(cache.clone())
        .card_signature_policy(CardSignaturePolicy::Require)
        .card_trust_store(store_of(peer).await)
        .build()
        .unwrap();
    let card = requiring.discover(peer.base_url()).await.unwrap();
    let signer = card.signer().expect("verified, not taken unverified from the cache").clone();

    // A suspect mark set now names who signed the claim.
    let agent = AgentBaseUrl::parse(peer.base_url()).unwrap();
    cache.mark_suspect(&agent, Capability::Streaming, "no streamed event");
    assert_eq!(cache.is_suspect(&agent).unwrap().signer(), Some(&signer));
}

#[tokio::test]
async fn a_field_the_signature_does_not_cover_drives_no_claim() {
    let peer = peer(PeerKind::PythonSigned).await;
    let mut card: Value = serde_json::from_str(&get_text(&peer.card_url()).await).unwrap();
    // Injected after signing, outside the 1.0 proto: the proto-view signature still verifies.
    card["capabilities"]["stateTransitionHistory"] = json!(true);
    let (base, _) = serve_card(card.to_string()).await;
    let unchecked = Client::builder().build().unwrap().discover(&base).await.unwrap();
    assert!(unchecked.claims(Deployment::Direct).declares(Capability::StateTransitionHistory));
    let verified = client(CardSignaturePolicy::Require, store_of(peer).await).discover(&base).await.unwrap();
    assert_eq!(verified.signer().map(|s| s.canonical_form()), Some(CanonicalForm::ProtoView));
    assert!(!verified.claims(Deployment::Direct).declares(Capability::StateTransitionHistory));
    assert!(verified.claims(Deployment::Direct).declares(Capability::Streaming), "signed claims stay");
}
