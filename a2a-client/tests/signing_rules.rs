//! The verification rules one at a time, on cards signed here (keys made by the test): header
//! parameters that must be refused, every supported key kind in PEM and JWK form, key-kind binding,
//! key rotation, and a trusted `jku` that cannot be read. The tests that fetch a card or a JWKS run
//! on every HTTP stack (`http_stack_common`).

mod http_stack_common;
mod signing_common;

use a2a_typestate_client::signing::{
    Algorithm, CardSignaturePolicy, SignatureFailureReason, TrustStore, TrustedKey,
};
use a2a_typestate_client::{DiscoveredCard, ErrorKind, WellKnownPath};
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::KeySize;
use aws_lc_rs::signature::{self as sig, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use http_stack_common::HttpStack;
use serde_json::{Value, json};
use signing_common::{b64, pem, serve_card, serve_card_with, signing_input};

const SOURCE: &str = "http://agent.example/.well-known/agent-card.json";

fn card() -> Value {
    json!({
        "name": "signed-here", "description": "a card signed by the test", "version": "1.0.0",
        "supportedInterfaces": [{"url": "http://agent.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "extensions": []},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"], "examples": []}]
    })
}

/// A signer: a key made here, its public half as PEM, and how it signs.
enum Signer {
    Ec(EcdsaKeyPair),
    Ed(Ed25519KeyPair),
    Rsa(RsaKeyPair),
}

impl Signer {
    fn public_pem(&self) -> String {
        let der = match self {
            Signer::Ec(pair) => pair.public_key().as_der().unwrap(),
            Signer::Ed(pair) => pair.public_key().as_der().unwrap(),
            Signer::Rsa(pair) => pair.public_key().as_der().unwrap(),
        };
        pem("PUBLIC KEY", der.as_ref())
    }

    fn sign(&self, alg: Algorithm, input: &str) -> Vec<u8> {
        let rng = SystemRandom::new();
        match self {
            Signer::Ec(pair) => pair.sign(&rng, input.as_bytes()).unwrap().as_ref().to_vec(),
            Signer::Ed(pair) => pair.sign(input.as_bytes()).as_ref().to_vec(),
            Signer::Rsa(pair) => {
                let encoding: &'static dyn sig::RsaEncoding = match alg {
                    Algorithm::Rs256 => &sig::RSA_PKCS1_SHA256,
                    Algorithm::Rs512 => &sig::RSA_PKCS1_SHA512,
                    Algorithm::Ps256 => &sig::RSA_PSS_SHA256,
                    _ => &sig::RSA_PSS_SHA384,
                };
                let mut out = vec![0; pair.public_modulus_len()];
                pair.sign(encoding, &rng, input.as_bytes(), &mut out).unwrap();
                out
            }
        }
    }
}

fn ec(alg: &'static sig::EcdsaSigningAlgorithm) -> Signer {
    Signer::Ec(EcdsaKeyPair::generate(alg).unwrap())
}

fn rsa() -> Signer {
    Signer::Rsa(RsaKeyPair::generate(KeySize::Rsa2048).unwrap())
}

/// `card` with one signature per (signer, protected header) pair.
fn signed(card: &Value, signatures: &[(&Signer, Value)]) -> Value {
    let mut card = card.clone();
    let entries: Vec<Value> = signatures
        .iter()
        .map(|(signer, header)| {
            let alg = Algorithm::from_jws_name(header["alg"].as_str().unwrap()).unwrap();
            let (protected, input) = signing_input(header, &card);
            json!({"protected": protected, "signature": b64(&signer.sign(alg, &input))})
        })
        .collect();
    card["signatures"] = Value::Array(entries);
    card
}

fn discovered(card: &Value) -> DiscoveredCard {
    DiscoveredCard::from_bytes(card.to_string().into_bytes().into(), SOURCE, WellKnownPath::AgentCard)
        .unwrap()
}

/// Modulus and exponent of a PKCS#1 `RSAPublicKey` (DER, long-form lengths of up to two bytes).
fn rsa_components(der: &[u8]) -> (&[u8], &[u8]) {
    fn element(input: &[u8]) -> (&[u8], &[u8]) {
        let (len, at) = match input[1] {
            n if n < 0x80 => (usize::from(n), 2),
            0x81 => (usize::from(input[2]), 3),
            _ => (usize::from(input[2]) << 8 | usize::from(input[3]), 4),
        };
        (&input[at..at + len], &input[at + len..])
    }
    let (sequence, _) = element(der);
    let (n, rest) = element(sequence);
    let (e, _) = element(rest);
    (n.strip_prefix(&[0]).unwrap_or(n), e)
}

fn only_reason(store: &TrustStore, card: &Value) -> SignatureFailureReason {
    let err = store.verify(&discovered(card)).expect_err("must not verify");
    let [failure] = err.failures() else { panic!("{err}") };
    failure.reason().clone()
}

#[test]
fn pem_keys_of_every_supported_kind_verify_their_own_signatures() {
    let cases: Vec<(Signer, Algorithm)> = vec![
        (ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING), Algorithm::Es256),
        (ec(&sig::ECDSA_P384_SHA384_FIXED_SIGNING), Algorithm::Es384),
        (ec(&sig::ECDSA_P521_SHA512_FIXED_SIGNING), Algorithm::Es512),
        (Signer::Ed(Ed25519KeyPair::generate().unwrap()), Algorithm::EdDsa),
        (rsa(), Algorithm::Rs256),
        (rsa(), Algorithm::Ps256),
    ];
    for (signer, alg) in &cases {
        let store = TrustStore::new().with_pem("k", &signer.public_pem(), "pem issuer").unwrap();
        let card = signed(&card(), &[(signer, json!({"alg": alg.jws_name(), "kid": "k", "typ": "JOSE"}))]);
        let who = store.verify(&discovered(&card)).unwrap_or_else(|e| panic!("{alg}: {e}"));
        assert_eq!((who.key_id(), who.algorithm(), who.issuer()), ("k", *alg, Some("pem issuer")));
    }
}

#[test]
fn a_key_never_verifies_for_another_kinds_algorithm() {
    let p256 = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &p256.public_pem(), "x").unwrap();
    let card = signed(&card(), &[(&p256, json!({"alg": "ES384", "kid": "k"}))]);
    let expected = SignatureFailureReason::KeyKindMismatch {
        trusted: "a p-256 key".into(),
        needed: "a p-384 key".into(),
    };
    assert_eq!(only_reason(&store, &card), expected);
}

#[test]
fn a_jwk_pinned_to_one_algorithm_does_not_verify_for_another_of_its_kind() {
    let signer = rsa();
    let Signer::Rsa(pair) = &signer else { unreachable!() };
    let (n, e) = rsa_components(pair.public_key().as_ref());
    let jwk = json!({"kty": "RSA", "kid": "r", "alg": "RS256", "n": b64(n), "e": b64(e)});
    let store = TrustStore::new().with_jwk(&jwk, "x").unwrap();
    let as_rs256 = signed(&card(), &[(&signer, json!({"alg": "RS256", "kid": "r"}))]);
    assert!(store.verify(&discovered(&as_rs256)).is_ok());
    let as_ps256 = signed(&card(), &[(&signer, json!({"alg": "PS256", "kid": "r"}))]);
    assert_eq!(
        only_reason(&store, &as_ps256),
        SignatureFailureReason::KeyPinnedToAnotherAlgorithm { pinned: "RS256".into() }
    );
}

#[test]
fn crit_and_unencoded_payload_headers_are_refused_even_when_the_signature_is_good() {
    let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
    for header in [
        json!({"alg": "ES256", "kid": "k", "crit": ["exp"], "exp": 1}),
        json!({"alg": "ES256", "kid": "k", "b64": false, "crit": []}),
        json!({"alg": "ES256", "kid": "k", "b64": false}),
    ] {
        let card = signed(&card(), &[(&signer, header.clone())]);
        assert!(
            matches!(only_reason(&store, &card), SignatureFailureReason::UnsupportedHeader(_)),
            "{header}"
        );
    }
}

#[test]
fn a_header_without_kid_or_alg_or_not_json_is_malformed() {
    let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
    let no_kid = signed(&card(), &[(&signer, json!({"alg": "ES256"}))]);
    assert_eq!(only_reason(&store, &no_kid), SignatureFailureReason::MalformedHeader("no 'kid'".into()));
    let mut not_json = card();
    not_json["signatures"] = json!([{"protected": b64(b"not json"), "signature": "AA"}]);
    assert!(matches!(only_reason(&store, &not_json), SignatureFailureReason::MalformedHeader(_)));
    let mut no_alg = card();
    no_alg["signatures"] = json!([{"protected": b64(br#"{"kid":"k"}"#), "signature": "AA"}]);
    assert_eq!(only_reason(&store, &no_alg), SignatureFailureReason::MalformedHeader("no 'alg'".into()));
}

#[test]
fn a_parameter_in_both_headers_is_malformed_so_the_unprotected_one_cannot_override() {
    let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
    let mut card = signed(&card(), &[(&signer, json!({"alg": "ES256", "kid": "k"}))]);
    assert!(store.verify(&discovered(&card)).is_ok());
    card["signatures"][0]["header"] = json!({"kid": "other"});
    assert!(matches!(only_reason(&store, &card), SignatureFailureReason::MalformedHeader(_)));
}

#[test]
fn the_first_signature_that_verifies_names_the_signer_so_keys_can_rotate() {
    let (old, new) =
        (ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING), Signer::Ed(Ed25519KeyPair::generate().unwrap()));
    let card = signed(
        &card(),
        &[(&old, json!({"alg": "ES256", "kid": "old"})), (&new, json!({"alg": "EdDSA", "kid": "new"}))],
    );
    // The old key was removed from the store (revoked): the new one still verifies the card.
    let store = TrustStore::new().with_pem("new", &new.public_pem(), "x").unwrap();
    let who = store.verify(&discovered(&card)).unwrap();
    assert_eq!((who.key_id(), who.signature_index()), ("new", 1));
    // And with both trusted, the first in card order names the signer.
    let both = store.with_pem("old", &old.public_pem(), "x").unwrap();
    assert_eq!(both.verify(&discovered(&card)).unwrap().key_id(), "old");
}

#[test]
fn a_signature_that_is_not_base64url_is_reported_as_such() {
    let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
    let mut card = signed(&card(), &[(&signer, json!({"alg": "ES256", "kid": "k"}))]);
    card["signatures"][0]["signature"] = json!("not*base64");
    assert_eq!(only_reason(&store, &card), SignatureFailureReason::BadSignatureEncoding);
}

#[tokio::test]
async fn a_trusted_jku_that_cannot_be_read_fails_with_its_url_and_status() {
    for stack in HttpStack::each() {
        let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
        // A key server that answers 404, and a card whose signature names it as its jku.
        let (server, hits) = serve_card_with(String::new(), 404).await;
        let jku = format!("{server}/keys.json");
        let card = signed(&self::card(), &[(&signer, json!({"alg": "ES256", "kid": "k", "jku": jku}))]);
        let (card_server, _) = serve_card(card.to_string()).await;
        let store = TrustStore::new().with_trusted_jku(&jku, "keys").unwrap();
        let client = stack
            .builder()
            .card_signature_policy(CardSignaturePolicy::Require)
            .card_trust_store(store)
            .build()
            .unwrap();
        let err = client.discover(&card_server).await.expect_err("the jwks is unreadable");
        assert_eq!(err.kind(), ErrorKind::CardSignature);
        let failure = &err.card_signature_error().unwrap().failures()[0];
        assert_eq!(
            failure.reason(),
            &SignatureFailureReason::JwksUnavailable { url: jku.clone(), reason: "http 404".into() }
        );
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1, "the trusted jku was asked once");
    }
}

#[tokio::test]
async fn verify_if_present_accepts_an_unsigned_card_and_require_never_caches_it() {
    for stack in HttpStack::each() {
        let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
        let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
        let (base, _) = serve_card(card().to_string()).await;
        let lenient = stack
            .builder()
            .card_signature_policy(CardSignaturePolicy::VerifyIfPresent)
            .card_trust_store(store.clone())
            .build()
            .unwrap();
        assert!(lenient.discover(&base).await.unwrap().signer().is_none());
        let strict = stack
            .builder()
            .card_signature_policy(CardSignaturePolicy::Require)
            .card_trust_store(store)
            .build()
            .unwrap();
        let err = strict.discover(&base).await.unwrap_err();
        assert!(err.card_signature_error().is_some_and(|e| e.is_unsigned()), "{err}");
        let agent = a2a_typestate_client::AgentBaseUrl::parse(&base).unwrap();
        assert!(strict.discovery_cache().get(&agent).is_none());
    }
}

#[test]
fn an_hmac_secret_is_usable_only_once_its_algorithm_is_allowed() {
    let secret = [9_u8; 48];
    let mut card = card();
    let (protected, input) = signing_input(&json!({"alg": "HS384", "kid": "h"}), &card);
    let tag = aws_lc_rs::hmac::sign(
        &aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA384, &secret),
        input.as_bytes(),
    );
    card["signatures"] = json!([{"protected": protected, "signature": b64(tag.as_ref())}]);
    let store = TrustStore::new().with_key(TrustedKey::hmac_secret("h", &secret, Some("shared")).unwrap());
    assert_eq!(only_reason(&store, &card), SignatureFailureReason::AlgorithmNotAllowed("HS384".into()));
    let store = store.with_allowed_algorithms(&[Algorithm::Hs384]);
    assert_eq!(store.verify(&discovered(&card)).unwrap().algorithm(), Algorithm::Hs384);
}

#[test]
fn only_the_first_sixteen_signatures_are_checked() {
    let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let stranger = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
    let store = TrustStore::new().with_pem("k", &signer.public_pem(), "x").unwrap();
    let header = json!({"alg": "ES256", "kid": "k"});
    let mut signatures: Vec<(&Signer, Value)> = vec![(&stranger, header.clone()); 16];
    signatures.push((&signer, header));
    let card = signed(&card(), &signatures);
    let err = store.verify(&discovered(&card)).expect_err("the good signature is 17th");
    assert_eq!(err.failures().len(), a2a_typestate_client::signing::MAX_SIGNATURES_CHECKED);
    let mut fewer = card.clone();
    fewer["signatures"].as_array_mut().unwrap().drain(..1);
    assert_eq!(store.verify(&discovered(&fewer)).unwrap().signature_index(), 15);
}

#[tokio::test]
async fn a_trusted_jku_that_redirects_is_refused() {
    for stack in HttpStack::each() {
        let signer = ec(&sig::ECDSA_P256_SHA256_FIXED_SIGNING);
        let app = axum::Router::new()
            .route(
                "/keys.json",
                axum::routing::get(|| async { axum::response::Redirect::temporary("/elsewhere.json") }),
            )
            .route("/elsewhere.json", axum::routing::get(|| async { r#"{"keys":[]}"# }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let jku = format!("http://{}/keys.json", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let card = signed(&self::card(), &[(&signer, json!({"alg": "ES256", "kid": "k", "jku": jku}))]);
        let (base, _) = serve_card(card.to_string()).await;
        let store = TrustStore::new().with_trusted_jku(&jku, "keys").unwrap();
        let client = stack
            .builder()
            .card_signature_policy(CardSignaturePolicy::Require)
            .card_trust_store(store)
            .build()
            .unwrap();
        let err = client.discover(&base).await.unwrap_err();
        let failure = &err.card_signature_error().unwrap().failures()[0];
        let SignatureFailureReason::JwksUnavailable { reason, .. } = failure.reason() else {
            panic!("{err}")
        };
        assert!(
            reason.starts_with("redirected to ")
                && reason.ends_with("/elsewhere.json, which is not the trusted url"),
            "{reason}"
        );
    }
}
