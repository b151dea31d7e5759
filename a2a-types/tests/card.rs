//! The Agent Card rules: ProtoJSON names, lossless round trips, legacy fields, oneof errors, and the
//! cards the official SDK servers really send (wire-transcripts-a2a-sdk-1.3.0.md).

mod strategies;

use std::collections::BTreeMap;

use a2a_typestate_types::{
    APIKeySecurityScheme, AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface,
    AgentProvider, AgentSkill, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow, DeviceCodeOAuthFlow,
    HTTPAuthSecurityScheme, MutualTlsSecurityScheme, OAuth2SecurityScheme, OAuthFlows,
    OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme, StringList, parse,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use strategies::card::agent_card;

/// a2a-sdk 1.3.0, transcript section 1.
const PYTHON_CARD: &str = r#"{"name":"python-peer","description":"a2a-sdk loopback test peer","supportedInterfaces":[{"url":"http://127.0.0.1:41101/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41101/a2a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],"version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"echo","description":"echoes text","tags":["test"]}]}"#;

/// a2a-sdk 1.3.0 lying peer, transcript section 5: claims the removed `stateTransitionHistory`.
const PYTHON_LYING_CARD: &str = r#"{"name":"python-peer","description":"a2a-sdk loopback test peer","supportedInterfaces":[{"url":"http://127.0.0.1:41103/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41103/a2a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],"version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":true,"stateTransitionHistory":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"echo","description":"echoes text","tags":["test"]}]}"#;

/// a2a-sdk 1.3.0 with 0.3 compatibility, transcript section 9: 0.3 fields merged into a 1.0 card.
const PYTHON_COMPAT_CARD: &str = r#"{"name":"python-peer","description":"a2a-sdk loopback test peer","supportedInterfaces":[{"url":"http://127.0.0.1:41105/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41105/a2a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41105/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],"version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"echo","description":"echoes text","tags":["test"]}],"preferredTransport":"JSONRPC","protocolVersion":"0.3","url":"http://127.0.0.1:41105/a2a/jsonrpc"}"#;

/// @a2a-js/sdk 1.3.0, transcript section 10: writes every default (`""`, `[]`, `{}`, `false`).
const JS_CARD: &str = r#"{"name":"js-peer","description":"@a2a-js/sdk loopback test peer","version":"1.0.0","supportedInterfaces":[{"url":"http://127.0.0.1:41201/a2a/jsonrpc","protocolBinding":"JSONRPC","tenant":"","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41201/a2a/rest","protocolBinding":"HTTP+JSON","tenant":"","protocolVersion":"1.0"}],"documentationUrl":"","signatures":[],"securitySchemes":{},"securityRequirements":[],"capabilities":{"streaming":true,"pushNotifications":true,"extensions":[],"extendedAgentCard":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"echo","description":"echoes text","tags":["test"],"examples":[],"inputModes":[],"outputModes":[],"securityRequirements":[]}]}"#;

fn card(text: &str) -> AgentCard {
    parse::from_str(text).unwrap()
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

// --- Path-carrying errors -------------------------------------------------------------------------

#[test]
fn wrong_type_inside_capabilities_names_the_full_path() {
    let err = parse::from_str::<AgentCard>(r#"{"capabilities":{"streaming":"yes"}}"#).unwrap_err();
    assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");
}

#[test]
fn wrong_type_deep_in_skills_names_the_index() {
    let err = parse::from_str::<AgentCard>(r#"{"skills":[{"id":"a"},{"id":7}]}"#).unwrap_err();
    assert_eq!(err.path(), "skills[1].id");
    assert!(err.message().starts_with("expected a string"), "{err}");
}

#[test]
fn card_that_is_not_an_object_is_refused() {
    let err = parse::from_str::<AgentCard>("[]").unwrap_err();
    assert!(err.to_string().contains("expected an AgentCard object"), "{err}");
}

// --- oneof wrappers -----------------------------------------------------------------------------

#[test]
fn security_scheme_without_a_member_is_an_error_naming_the_scheme() {
    let err = parse::from_str::<AgentCard>(r#"{"securitySchemes":{"oauth":{}}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "securitySchemes.oauth: oneof scheme must have exactly one of apiKeySecurityScheme, \
         httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme; \
         found none"
    );
}

#[test]
fn security_scheme_with_two_members_is_an_error_naming_both() {
    let text = r#"{"securitySchemes":{"both":{
        "mtlsSecurityScheme":{},"httpAuthSecurityScheme":{"scheme":"Bearer"}}}}"#;
    let err = parse::from_str::<AgentCard>(text).unwrap_err();
    assert_eq!(err.path(), "securitySchemes.both");
    assert!(err.message().ends_with("found mtlsSecurityScheme and httpAuthSecurityScheme"), "{err}");
}

#[test]
fn oauth_flows_without_a_flow_is_an_error_naming_the_flows() {
    let text = r#"{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{}}}}}"#;
    let err = parse::from_str::<AgentCard>(text).unwrap_err();
    assert_eq!(err.path(), "securitySchemes.o.oauth2SecurityScheme.flows");
    assert!(err.message().starts_with("oneof flow must have exactly one of authorizationCode"), "{err}");
    assert!(err.message().ends_with("found none"), "{err}");
}

#[test]
fn unknown_oneof_member_is_ignored_beside_a_known_one() {
    let scheme: SecurityScheme =
        parse::from_str(r#"{"futureScheme":{"x":1},"mtlsSecurityScheme":{"description":"m"}}"#).unwrap();
    assert_eq!(scheme, SecurityScheme::MutualTls(MutualTlsSecurityScheme { description: "m".into() }));
}

#[test]
fn security_scheme_is_written_as_its_single_member() {
    let scheme = SecurityScheme::ApiKey(APIKeySecurityScheme {
        description: String::new(),
        location: "header".into(),
        name: "X-Key".into(),
    });
    assert_eq!(to_json(&scheme), json!({"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}));
}

#[test]
fn every_oauth_flow_reads_and_writes_under_its_proto_name() {
    let cases = [
        json!({"authorizationCode": {"authorizationUrl": "a", "tokenUrl": "t", "scopes": {"r": "read"},
            "pkceRequired": true}}),
        json!({"clientCredentials": {"tokenUrl": "t", "refreshUrl": "r", "scopes": {}}}),
        json!({"deviceCode": {"deviceAuthorizationUrl": "d", "tokenUrl": "t", "scopes": {"r": "read"}}}),
        json!({"implicit": {"authorizationUrl": "a", "scopes": {"r": "read"}}}),
        json!({"password": {"tokenUrl": "t"}}),
    ];
    for case in cases {
        let flows: OAuthFlows = parse::from_value(case.clone()).unwrap();
        assert_eq!(to_json(&flows), case);
    }
}

// --- ProtoJSON names ----------------------------------------------------------------------------

#[test]
fn snake_case_names_are_accepted_on_input_and_camel_case_written() {
    let text = r#"{"name":"n","description":"d","version":"1",
        "supported_interfaces":[{"url":"u","protocol_binding":"JSONRPC","protocol_version":"1.0"}],
        "documentation_url":"https://doc","icon_url":"https://icon",
        "capabilities":{"push_notifications":true,"extended_agent_card":true},
        "security_schemes":{"o":{"oauth2_security_scheme":{"flows":{"client_credentials":{"token_url":"t"}},
            "oauth2_metadata_url":"m"}},
            "oidc":{"open_id_connect_security_scheme":{"open_id_connect_url":"o"}},
            "h":{"http_auth_security_scheme":{"scheme":"Bearer","bearer_format":"JWT"}}},
        "security_requirements":[{"schemes":{"o":{"list":["read"]}}}],
        "default_input_modes":["text/plain"],"default_output_modes":["text/plain"],
        "skills":[{"id":"s","input_modes":["a"],"output_modes":["b"],"security_requirements":[{}]}]}"#;
    let card = card(text);
    assert_eq!(card.supported_interfaces[0].protocol_binding, "JSONRPC");
    assert_eq!(card.documentation_url.as_deref(), Some("https://doc"));
    assert_eq!(card.capabilities.push_notifications, Some(true));
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    assert!(card.capabilities.extra.is_empty());
    assert!(card.extra.is_empty(), "snake_case names must not be treated as unknown: {:?}", card.extra);
    let SecurityScheme::OAuth2(oauth) = &card.security_schemes["o"] else { panic!("not oauth2") };
    assert_eq!(oauth.oauth2_metadata_url, "m");
    assert_eq!(card.skills[0].input_modes, ["a"]);

    let out = to_json(&card);
    let text = out.to_string();
    for snake in [
        "supported_interfaces",
        "protocol_binding",
        "push_notifications",
        "oauth2_security_scheme",
        "token_url",
        "bearer_format",
        "open_id_connect_url",
        "input_modes",
        "default_input_modes",
    ] {
        assert!(!text.contains(snake), "{snake} written in snake_case: {text}");
    }
    assert_eq!(out["securitySchemes"]["h"]["httpAuthSecurityScheme"]["bearerFormat"], "JWT");
    assert_eq!(out["capabilities"]["extendedAgentCard"], true);
}

#[test]
fn defaults_are_omitted_but_required_fields_are_always_written() {
    let out = to_json(&AgentCard::default());
    assert_eq!(
        out,
        json!({"name": "", "description": "", "supportedInterfaces": [], "version": "",
               "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []})
    );
}

#[test]
fn explicit_false_capability_is_kept_because_the_field_is_optional() {
    let caps: AgentCapabilities = parse::from_str(r#"{"streaming":false}"#).unwrap();
    assert_eq!(caps.streaming, Some(false));
    assert_eq!(caps.push_notifications, None);
    assert_eq!(to_json(&caps), json!({"streaming": false}));
}

#[test]
fn missing_fields_take_their_defaults() {
    assert_eq!(card("{}"), AgentCard::default());
    let skill: AgentSkill = parse::from_str(r#"{"id":"s"}"#).unwrap();
    assert_eq!(skill, AgentSkill { id: "s".into(), ..AgentSkill::default() });
}

#[test]
fn oauth2_scheme_without_flows_is_an_error_naming_the_scheme() {
    let err =
        parse::from_str::<AgentCard>(r#"{"securitySchemes":{"o":{"oauth2SecurityScheme":{}}}}"#).unwrap_err();
    assert_eq!(err.path(), "securitySchemes.o.oauth2SecurityScheme");
    assert!(err.message().contains("flows"), "{err}");
}

#[test]
fn null_fields_read_as_their_defaults() {
    let card = card(r#"{"name":null,"skills":null,"capabilities":{"streaming":null,"extensions":null}}"#);
    assert_eq!(card.name, "");
    assert!(card.skills.is_empty());
    assert_eq!(card.capabilities.streaming, None);
}

// --- Lossless reading ---------------------------------------------------------------------------

#[test]
fn legacy_state_transition_history_stays_readable_on_a_1_0_card() {
    let card = card(PYTHON_LYING_CARD);
    assert_eq!(card.capabilities.legacy_state_transition_history(), Some(true));
    let snake: AgentCapabilities = parse::from_str(r#"{"state_transition_history":false}"#).unwrap();
    assert_eq!(snake.legacy_state_transition_history(), Some(false));
    assert_eq!(AgentCapabilities::default().legacy_state_transition_history(), None);
    let not_bool: AgentCapabilities = parse::from_str(r#"{"stateTransitionHistory":"yes"}"#).unwrap();
    assert_eq!(not_bool.legacy_state_transition_history(), None);
}

#[test]
fn unknown_fields_of_card_and_capabilities_round_trip() {
    let card = card(PYTHON_COMPAT_CARD);
    assert_eq!(card.extra.value("preferredTransport").unwrap_or_default(), "JSONRPC");
    assert_eq!(card.extra.value("url").unwrap_or_default(), "http://127.0.0.1:41105/a2a/jsonrpc");
    let original: Value = serde_json::from_str(PYTHON_COMPAT_CARD).unwrap();
    assert_eq!(to_json(&card), original);

    let lying = self::card(PYTHON_LYING_CARD);
    let original: Value = serde_json::from_str(PYTHON_LYING_CARD).unwrap();
    assert_eq!(to_json(&lying), original);
    assert_eq!(to_json(&lying)["capabilities"]["stateTransitionHistory"], true);
}

#[test]
fn known_name_put_in_extra_by_hand_does_not_duplicate_the_field() {
    let mut card = AgentCard { name: "typed".into(), ..AgentCard::default() };
    card.extra.insert_value("name", &json!("shadow"));
    let text = serde_json::to_string(&card).unwrap();
    assert_eq!(text.matches("\"name\"").count(), 1, "{text}");
    assert_eq!(to_json(&card)["name"], "typed");
}

// --- Real cards ---------------------------------------------------------------------------------

#[test]
fn python_sdk_card_parses_and_writes_back_byte_for_byte_equal_json() {
    let card = card(PYTHON_CARD);
    assert_eq!(card.name, "python-peer");
    assert_eq!(card.supported_interfaces.len(), 2);
    assert_eq!(card.supported_interfaces[1].protocol_binding, "HTTP+JSON");
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.skills[0].tags, ["test"]);
    assert_eq!(serde_json::to_string(&card).unwrap(), PYTHON_CARD);
}

#[test]
fn js_sdk_card_with_every_default_written_parses() {
    let card = card(JS_CARD);
    assert_eq!(card.documentation_url, None, "an empty documentationUrl means not set");
    assert_eq!(card.supported_interfaces[0].tenant, None, "an empty tenant means none");
    assert_eq!(card.capabilities.extended_agent_card, Some(false));
    assert!(card.signatures.is_empty() && card.security_schemes.is_empty());
    assert!(card.extra.is_empty());
    let out = to_json(&card);
    assert!(out.get("documentationUrl").is_none() && out.get("signatures").is_none());
    assert!(out["supportedInterfaces"][0].get("tenant").is_none());
}

#[test]
fn full_card_with_every_field_round_trips() {
    let card = full_card();
    let back: AgentCard = parse::from_value(to_json(&card)).unwrap();
    assert_eq!(back, card);
    let out = to_json(&card);
    assert_eq!(out["signatures"][0]["protected"], "eyJhbGciOiJFUzI1NiJ9");
    assert_eq!(out["securityRequirements"][0]["schemes"]["oauth"]["list"][0], "read");
    assert_eq!(out["provider"]["organization"], "Example");
    assert_eq!(out["capabilities"]["extensions"][0]["params"]["k"], "v");
}

fn full_card() -> AgentCard {
    let scopes = BTreeMap::from([("read".to_owned(), "Read".to_owned())]);
    AgentCard {
        name: "full".into(),
        description: "every field".into(),
        supported_interfaces: vec![AgentInterface {
            url: "https://a.example/rpc".into(),
            protocol_binding: "JSONRPC".into(),
            tenant: Some("t".into()),
            protocol_version: "1.0".into(),
        }],
        provider: Some(AgentProvider { url: "https://example.com".into(), organization: "Example".into() }),
        version: "2.1.0".into(),
        documentation_url: Some("https://a.example/doc".into()),
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(false),
            extensions: vec![AgentExtension {
                uri: "https://ext".into(),
                description: "e".into(),
                required: true,
                params: Some(serde_json::Map::from_iter([("k".to_owned(), json!("v"))])),
            }],
            extended_agent_card: Some(true),
            extra: a2a_typestate_types::UnknownFields::new(),
        },
        security_schemes: BTreeMap::from([
            (
                "key".to_owned(),
                SecurityScheme::ApiKey(APIKeySecurityScheme {
                    description: "k".into(),
                    location: "header".into(),
                    name: "X-Key".into(),
                }),
            ),
            (
                "bearer".to_owned(),
                SecurityScheme::HttpAuth(HTTPAuthSecurityScheme {
                    description: String::new(),
                    scheme: "Bearer".into(),
                    bearer_format: "JWT".into(),
                }),
            ),
            (
                "oauth".to_owned(),
                SecurityScheme::OAuth2(OAuth2SecurityScheme {
                    description: String::new(),
                    flows: OAuthFlows::AuthorizationCode(AuthorizationCodeOAuthFlow {
                        authorization_url: "https://auth".into(),
                        token_url: "https://token".into(),
                        refresh_url: "https://refresh".into(),
                        scopes: scopes.clone(),
                        pkce_required: true,
                    }),
                    oauth2_metadata_url: "https://meta".into(),
                }),
            ),
            (
                "cc".to_owned(),
                SecurityScheme::OAuth2(OAuth2SecurityScheme {
                    description: String::new(),
                    flows: OAuthFlows::ClientCredentials(ClientCredentialsOAuthFlow {
                        token_url: "https://token".into(),
                        refresh_url: String::new(),
                        scopes: scopes.clone(),
                    }),
                    oauth2_metadata_url: String::new(),
                }),
            ),
            (
                "device".to_owned(),
                SecurityScheme::OAuth2(OAuth2SecurityScheme {
                    description: String::new(),
                    flows: OAuthFlows::DeviceCode(DeviceCodeOAuthFlow {
                        device_authorization_url: "https://device".into(),
                        token_url: "https://token".into(),
                        refresh_url: String::new(),
                        scopes,
                    }),
                    oauth2_metadata_url: String::new(),
                }),
            ),
            (
                "oidc".to_owned(),
                SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
                    description: String::new(),
                    open_id_connect_url: "https://oidc".into(),
                }),
            ),
            ("mtls".to_owned(), SecurityScheme::MutualTls(MutualTlsSecurityScheme::default())),
        ]),
        security_requirements: vec![SecurityRequirement {
            schemes: BTreeMap::from([("oauth".to_owned(), StringList { list: vec!["read".into()] })]),
        }],
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["application/json".into()],
        skills: vec![AgentSkill {
            id: "s".into(),
            name: "skill".into(),
            description: "does".into(),
            tags: vec!["t".into()],
            examples: vec!["e".into()],
            input_modes: vec!["text/plain".into()],
            output_modes: vec!["text/plain".into()],
            security_requirements: vec![SecurityRequirement::default()],
        }],
        signatures: vec![AgentCardSignature {
            protected: "eyJhbGciOiJFUzI1NiJ9".into(),
            signature: "c2ln".into(),
            header: Some(serde_json::Map::from_iter([("kid".to_owned(), json!("k1"))])),
        }],
        icon_url: Some("https://a.example/icon.png".into()),
        extra: [("x-vendor".to_owned(), a2a_typestate_types::JsonText::from_value(&json!({"a": [1, 2]})))]
            .into_iter()
            .collect(),
    }
}

// --- Property: any card survives a write and a read ---------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_card_survives_writing_and_reading_back(card in agent_card()) {
        let text = serde_json::to_string(&card).unwrap();
        let back: AgentCard = parse::from_str(&text).unwrap();
        prop_assert_eq!(back, card);
    }
}
