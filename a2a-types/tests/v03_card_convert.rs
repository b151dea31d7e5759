//! Converting 0.3 Agent Cards to 1.0 and back: the design note's observed card, what each direction
//! cannot carry, and how `url` / `preferredTransport` / `additionalInterfaces` become interfaces.

mod common;

use a2a_typestate_types::{v1, v03};
use common::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------------
// The design note's observed run
// ---------------------------------------------------------------------------------------------------

#[test]
fn design_note_card_reaches_v1_with_its_state_transition_history_claim() {
    let card: v03::AgentCard = read(&fixture("design-note-observed-card.json"));
    let converted = card.to_v1();
    let v1 = &converted.value;
    assert_eq!(v1.capabilities.legacy_state_transition_history(), Some(true));
    assert_eq!(v1.capabilities.push_notifications, Some(true));
    assert_eq!(v1.capabilities.streaming, Some(true));
    assert_eq!(v1.default_input_modes, ["text/plain"]);
    // The only thing 1.0 cannot hold is the patch part of "0.3.0".
    assert_eq!(loss_paths(&converted), ["protocolVersion"]);
    assert_eq!(v1.supported_interfaces[0].protocol_version, "0.3");

    // The claim survives 1.0 JSON too: it is written back where 1.0 readers find it.
    let reread: v1::AgentCard = read(&serde_json::to_string(v1).unwrap());
    assert_eq!(reread.capabilities.legacy_state_transition_history(), Some(true));

    let back = v03::AgentCard::from_v1(v1).lossless().unwrap();
    assert_eq!(back.capabilities.state_transition_history, Some(true));
    assert!(back.capabilities.extra.is_empty(), "the claim is a field again, not an extra");
}

#[test]
fn design_note_final_event_converts_without_loss_because_completed_ends_a_v1_stream() {
    let event: v03::StreamResult = read(
        r#"{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed"}}"#,
    );
    let converted = event.to_v1();
    assert!(converted.is_lossless());
    assert_eq!(converted.value.state(), Some(v1::TaskState::Completed));
}

// ---------------------------------------------------------------------------------------------------
// Cards: what 1.0 -> 0.3 and 0.3 -> 1.0 cannot carry
// ---------------------------------------------------------------------------------------------------

fn v1_card(interfaces: serde_json::Value) -> v1::AgentCard {
    read(
        &json!({"name":"n","description":"d","version":"1","supportedInterfaces":interfaces,
            "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]})
        .to_string(),
    )
}

#[test]
fn v1_interface_tenant_is_reported() {
    let card = v1_card(
        json!([{"url":"https://a/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3","tenant":"acme"}]),
    );
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[0].tenant"]);
    assert_eq!(converted.value.url, "https://a/rpc");
}

#[test]
fn v1_interfaces_of_another_version_than_the_first_are_reported() {
    let card = v1_card(json!([
        {"url":"https://a/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
        {"url":"https://a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
        {"url":"https://a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}
    ]));
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[1].protocolVersion"]);
    assert_eq!(converted.value.protocol_version.as_deref(), Some("0.3"));
    assert_eq!(converted.value.additional_interfaces.len(), 2);
}

#[test]
fn v1_card_without_interfaces_reports_the_missing_url() {
    let converted = v03::AgentCard::from_v1(&v1_card(json!([])));
    assert_eq!(loss_paths(&converted), ["supportedInterfaces"]);
}

#[test]
fn merged_card_v1_members_are_reported_not_shadowed() {
    let card: v03::AgentCard = read(&transcript(MERGED_CARD));
    let converted = card.to_v1();
    assert_eq!(loss_paths(&converted), ["supportedInterfaces"]);
    assert_eq!(converted.value.supported_interfaces.len(), 1, "built from url + preferredTransport");
}

#[test]
fn v1_reading_of_the_merged_card_converts_to_v03_reporting_the_disagreeing_interfaces() {
    let card: v1::AgentCard = read(&transcript(MERGED_CARD));
    let converted = v03::AgentCard::from_v1(&card);
    // The first interface is 1.0, so the card-level protocolVersion "0.3" the agent wrote disagrees
    // with the converted "1.0", and the 0.3 interface is listed under 1.0.
    assert_eq!(loss_paths(&converted), ["supportedInterfaces[2].protocolVersion", "protocolVersion"]);
}

#[test]
fn card_without_preferred_transport_or_protocol_version_means_jsonrpc_0_3() {
    let card: v03::AgentCard = read(
        r#"{"name":"n","description":"d","url":"https://a/rpc","version":"1","capabilities":{},
            "defaultInputModes":[],"defaultOutputModes":[],"skills":[]}"#,
    );
    let converted = card.to_v1();
    assert!(converted.is_lossless());
    let interface = &converted.value.supported_interfaces[0];
    assert_eq!(
        (interface.protocol_binding.as_str(), interface.protocol_version.as_str()),
        ("JSONRPC", "0.3")
    );
}

fn oauth_card(flows: Value) -> v03::AgentCard {
    read(
        &json!({"name":"n","description":"d","url":"https://a/rpc","version":"1","protocolVersion":"0.3",
            "capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],
            "securitySchemes":{"oauth":{"type":"oauth2","flows":flows}}})
        .to_string(),
    )
}

#[test]
fn oauth_scheme_with_two_flows_keeps_the_first_and_reports_the_other() {
    let card = oauth_card(json!({
        "clientCredentials":{"tokenUrl":"https://t","scopes":{}},
        "password":{"tokenUrl":"https://t","scopes":{}}
    }));
    let converted = card.to_v1();
    assert_eq!(loss_paths(&converted), ["securitySchemes.oauth.flows.password"]);
    let v1::SecurityScheme::OAuth2(scheme) = &converted.value.security_schemes["oauth"] else { panic!() };
    assert!(matches!(scheme.flows, v1::OAuthFlows::ClientCredentials(_)));
}

#[test]
fn oauth_scheme_without_flow_is_reported_and_left_out() {
    let converted = oauth_card(json!({})).to_v1();
    assert_eq!(loss_paths(&converted), ["securitySchemes.oauth.flows"]);
    assert!(converted.value.security_schemes.is_empty());
}

#[test]
fn v1_device_code_flow_and_pkce_are_reported() {
    let mut card = v1_card(json!([{"url":"https://a","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]));
    card.security_schemes = read(
        r#"{"device":{"oauth2SecurityScheme":{"flows":{"deviceCode":{"deviceAuthorizationUrl":"https://d","tokenUrl":"https://t","scopes":{}}}}},
            "code":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"authorizationUrl":"https://a","tokenUrl":"https://t","scopes":{},"pkceRequired":true}}}}}"#,
    );
    let converted = v03::AgentCard::from_v1(&card);
    assert_eq!(
        loss_paths(&converted),
        [
            "securitySchemes.code.oauth2SecurityScheme.flows.authorizationCode.pkceRequired",
            "securitySchemes.device.oauth2SecurityScheme.flows.deviceCode",
        ]
    );
}

#[test]
fn api_key_in_becomes_location_and_back() {
    let scheme: v03::SecurityScheme = read(r#"{"type":"apiKey","in":"query","name":"key"}"#);
    let v03::SecurityScheme::ApiKey(key) = &scheme else { panic!() };
    assert_eq!(key.location, "query");
    assert_eq!(to_json(&scheme), json!({"type":"apiKey","in":"query","name":"key"}));
}
