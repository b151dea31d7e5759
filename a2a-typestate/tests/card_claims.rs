//! Where claims come from: 0.3 cards (converted) and 1.0 cards (legacy field only).

use a2a_typestate::{Capability, CapabilitySet, CardClaims, Deployment};

const V03_OBSERVED_RUN_CARD: &str = r#"{
    "protocolVersion": "0.3.0", "name": "observed", "description": "the design note's agent",
    "url": "http://127.0.0.1:1/", "preferredTransport": "JSONRPC", "version": "1.0.0",
    "capabilities": {"streaming": false, "pushNotifications": true, "stateTransitionHistory": true},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
}"#;

#[test]
fn a_0_3_card_reaches_the_claims_converted_with_its_history_claim() {
    let (_, converted) = a2a_typestate_types::v03::read_any_card(V03_OBSERVED_RUN_CARD.as_bytes()).unwrap();
    let claims = CardClaims::lift(&converted.value, Deployment::Direct);
    assert_eq!(
        claims.declared(),
        CapabilitySet::of(&[Capability::StateTransitionHistory, Capability::PushNotifications])
    );
    assert_eq!(claims.default_input_modes(), ["text/plain"]);
}

#[test]
fn a_native_1_0_card_claims_history_only_through_the_legacy_field() {
    let card = |capabilities: &str| -> a2a_typestate_types::AgentCard {
        a2a_typestate_types::parse::from_str(&format!(
            r#"{{"name":"a","description":"","version":"1","supportedInterfaces":[],"skills":[],
                "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{capabilities}}}"#
        ))
        .unwrap()
    };
    let legacy = CardClaims::lift(&card(r#"{"stateTransitionHistory":true}"#), Deployment::Direct);
    assert!(legacy.declares(Capability::StateTransitionHistory));
    let native = CardClaims::lift(&card(r#"{"streaming":true}"#), Deployment::Direct);
    assert!(!native.declares(Capability::StateTransitionHistory));
}

#[test]
fn a_card_marked_as_gateway_by_extension_yields_no_claims() {
    let json = format!(
        r#"{{"name":"gw","description":"","version":"1","supportedInterfaces":[],"skills":[],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "capabilities":{{"streaming":true,"pushNotifications":true,
                "extensions":[{{"uri":"{}"}}]}}}}"#,
        a2a_typestate::GATEWAY_EXTENSION_URI
    );
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(&json).unwrap();
    let claims = CardClaims::lift(&card, Deployment::Direct);
    assert!(claims.is_gateway());
    assert!(claims.declared().is_empty());
}
