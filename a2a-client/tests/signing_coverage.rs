//! What a verified signature covers, and what it does not: the extended card is held to the same
//! policy as the public card, a relative interface URL is reported as not bound by the signature,
//! and a card nested as deep as the card parser reads still has a signature that can be checked.

mod signing_common;

use a2a_typestate::Deployment;
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::signing::{CardSignaturePolicy, TrustStore};
use a2a_typestate_client::{Capability, Client, DiscoveredCard, ErrorKind, WellKnownPath};
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};
use signing_common::{b64, pem, signing_input};

/// A card whose interfaces are `interfaces`, requiring a bearer token, declaring an extended card
/// when `extended`.
fn card(name: &str, interfaces: Value, streaming: bool, extended: bool) -> Value {
    json!({
        "name": name, "description": "a card of the signature coverage tests", "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": streaming, "extendedAgentCard": extended},
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
    })
}

fn jsonrpc_at(url: &str) -> Value {
    json!([{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}])
}

/// A key made here, and a trust store that holds its public half as `card-key`.
fn signer() -> (Ed25519KeyPair, TrustStore) {
    let pair = Ed25519KeyPair::generate().unwrap();
    let public = pem("PUBLIC KEY", pair.public_key().as_der().unwrap().as_ref());
    let store = TrustStore::new().with_pem("card-key", &public, "coverage tests").unwrap();
    (pair, store)
}

/// `card` signed with `pair` over its served form.
fn signed(card: &Value, pair: &Ed25519KeyPair) -> Value {
    let (protected, input) = signing_input(&json!({"alg": "EdDSA", "kid": "card-key"}), card);
    let mut card = card.clone();
    card["signatures"] =
        json!([{"protected": protected, "signature": b64(pair.sign(input.as_bytes()).as_ref())}]);
    card
}

fn client(policy: CardSignaturePolicy, store: TrustStore) -> Client {
    Client::builder()
        .card_signature_policy(policy)
        .card_trust_store(store)
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-coverage"))))
        .build()
        .unwrap()
}

/// An agent on 127.0.0.1 serving the card `public(base)` at the well-known path and answering
/// JSON-RPC at `/rpc` with the extended card `extended(base)` (every call is taken for
/// `GetExtendedAgentCard`: the tests make no other).
async fn serve(public: impl Fn(&str) -> Value, extended: impl Fn(&str) -> Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let public = public(&base).to_string();
    let extended = extended(&base);
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = public.clone();
                async move { ([("content-type", "application/json")], card) }
            }),
        )
        .route(
            "/rpc",
            axum::routing::post(move |body: axum::Json<Value>| {
                let answer =
                    json!({"jsonrpc": "2.0", "id": body.0["id"].clone(), "result": extended.clone()});
                async move { axum::Json(answer) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn require_signature_covers_the_extended_card() {
    let (pair, store) = signer();
    let public = |base: &str| signed(&card("public", jsonrpc_at(&format!("{base}/rpc")), false, true), &pair);
    // Unsigned, claiming more and naming another interface.
    let extended = |_: &str| card("extended", jsonrpc_at("http://127.0.0.2:9/elsewhere"), true, true);
    let base = serve(public, extended).await;

    let strict = client(CardSignaturePolicy::Require, store.clone()).connect(&base).await.unwrap();
    assert!(!strict.uses_extended_card(), "an unsigned extended card is not used under Require");
    let error = strict.extended_card_error().expect("the reason is kept");
    assert_eq!(error.kind(), ErrorKind::CardSignature, "{error}");
    assert!(error.card_signature_error().is_some_and(|e| e.is_unsigned()), "{error}");
    assert_eq!(strict.card().card().name, "public", "the public card stays");
    assert!(strict.card().signer().is_some());
    assert!(!strict.card().claims(Deployment::Direct).declares(Capability::Streaming));
    assert!(strict.interface().url.ends_with("/rpc"));

    // The same agent under VerifyIfPresent: the unsigned extended card is used, so the refusal
    // above is the policy's doing.
    let lenient = client(CardSignaturePolicy::VerifyIfPresent, store).connect(&base).await.unwrap();
    assert!(lenient.uses_extended_card(), "{:?}", lenient.extended_card_error());
    assert_eq!(lenient.card().card().name, "extended");
}

#[tokio::test]
async fn a_relative_interface_in_a_signed_card_is_resolved_against_the_serving_url() {
    let (pair, store) = signer();
    let public = |_: &str| signed(&card("relative", jsonrpc_at("/rpc"), false, false), &pair);
    let base = serve(public, |_: &str| json!({})).await;

    let client = client(CardSignaturePolicy::Require, store);
    let relative = client.discover(&base).await.unwrap();
    assert!(relative.signer().is_some(), "a relative url does not stop the card verifying");
    let [unbound] = relative.unbound_interfaces() else { panic!("{:?}", relative.unbound_interfaces()) };
    assert_eq!(unbound.written(), "/rpc");
    assert_eq!(unbound.resolved(), format!("{base}/rpc"));
    assert_eq!(unbound.served_from(), format!("{base}/.well-known/agent-card.json"));
    assert!(unbound.to_string().contains("does not name its host"), "{unbound}");
    // A connection goes where the report says.
    let connection = client.connect(&base).await.unwrap();
    assert_eq!(connection.interface().url, "/rpc");

    // An absolute interface in a signed card is bound by the signature: nothing is reported.
    let absolute =
        |base: &str| signed(&card("absolute", jsonrpc_at(&format!("{base}/rpc")), false, false), &pair);
    let other = serve(absolute, |_: &str| json!({})).await;
    let bound = client.discover(&other).await.unwrap();
    assert!(bound.signer().is_some() && bound.unbound_interfaces().is_empty());
}

/// Nested arrays `depth` deep around `1`, as JSON text (its own canonical form).
fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test]
async fn a_signed_card_nested_as_deep_as_the_parser_accepts_verifies() {
    let (pair, store) = signer();
    let deep = nested(200);
    let base_card = |base: &str| {
        let mut card = card("deep", jsonrpc_at(&format!("{base}/rpc")), false, false);
        card["x-vendor-tree"] = json!("@@deep@@");
        card
    };
    // Signed over the served form with the deep member in its place: the helper's canonicaliser
    // stops at 128 levels, so the member is put into the canonical text by hand (nested arrays of
    // a number are their own canonical form).
    let sign_deep = |card: &Value| {
        let header = json!({"alg": "EdDSA", "kid": "card-key"});
        let protected = b64(header.to_string().as_bytes());
        let canonical = String::from_utf8(signing_common::served_form(card)).unwrap();
        let canonical = canonical.replace(r#""@@deep@@""#, &deep);
        let input = format!("{protected}.{}", b64(canonical.as_bytes()));
        let signature = b64(pair.sign(input.as_bytes()).as_ref());
        let text = card.to_string().replace(r#""@@deep@@""#, &deep);
        let signatures = json!([{"protected": protected, "signature": signature}]).to_string();
        format!("{},\"signatures\":{signatures}}}", text.strip_suffix('}').unwrap())
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let served = sign_deep(&base_card(&base));
    // The card parser reads it (the deep member is kept as text).
    let read = DiscoveredCard::from_bytes(
        served.clone().into_bytes().into(),
        &format!("{base}/.well-known/agent-card.json"),
        WellKnownPath::AgentCard,
    )
    .expect("the card parser accepts this nesting");
    assert!(read.card().extra.get("x-vendor-tree").is_some_and(|raw| raw.get() == deep));
    let signer = store.verify(&read).expect("a correctly signed deep card verifies");
    assert_eq!(signer.key_id(), "card-key");
    // A change at the bottom of the deep member breaks the signature: the nesting is covered.
    assert_eq!(served.matches("[1]").count(), 1);
    let tampered = DiscoveredCard::from_bytes(
        served.replace("[1]", "[2]").into_bytes().into(),
        &format!("{base}/.well-known/agent-card.json"),
        WellKnownPath::AgentCard,
    )
    .unwrap();
    let refused = store.verify(&tampered).expect_err("a changed deep member does not verify");
    assert!(!refused.is_unsigned(), "{refused}");

    // The same through discovery under Require.
    let app = axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get(move || {
            let card = served.clone();
            async move { ([("content-type", "application/json")], card) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    let card = client(CardSignaturePolicy::Require, store).discover(&base).await.unwrap();
    assert!(card.signer().is_some());
}
