//! Generators of valid 1.0 Agent Cards (shared by the property tests).

use std::collections::BTreeMap;

use a2a_typestate_types::{
    APIKeySecurityScheme, AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface,
    AgentProvider, AgentSkill, ClientCredentialsOAuthFlow, HTTPAuthSecurityScheme, MutualTlsSecurityScheme,
    OAuth2SecurityScheme, OAuthFlows, OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme,
    StringList,
};
use proptest::prelude::*;
use serde_json::{Value, json};

pub fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ./:+-]{0,12}"
}

pub fn non_empty() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9./:+-]{1,12}"
}

pub fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
    ]
}

/// Extra keys start with `x` and contain a `-`, so they never collide with a known field name.
pub fn extra() -> impl Strategy<Value = serde_json::Map<String, Value>> {
    proptest::collection::btree_map("x-[a-z]{1,6}", json_leaf(), 0..3).prop_map(|m| m.into_iter().collect())
}

/// Unknown card members, as the card keeps them: JSON text.
pub fn unknown() -> impl Strategy<Value = a2a_typestate_types::UnknownFields> {
    extra().prop_map(|m| {
        m.into_iter().map(|(k, v)| (k, a2a_typestate_types::JsonText::from_value(&v))).collect()
    })
}

pub fn interface() -> impl Strategy<Value = AgentInterface> {
    (non_empty(), text(), proptest::option::of(non_empty()), text()).prop_map(
        |(url, protocol_binding, tenant, protocol_version)| AgentInterface {
            url,
            protocol_binding,
            tenant,
            protocol_version,
        },
    )
}

pub fn skill() -> impl Strategy<Value = AgentSkill> {
    (text(), text(), proptest::collection::vec(text(), 0..3), proptest::collection::vec(text(), 0..2))
        .prop_map(|(id, name, tags, examples)| AgentSkill {
            id,
            name: name.clone(),
            description: name,
            tags,
            input_modes: examples.clone(),
            output_modes: examples.clone(),
            examples,
            ..AgentSkill::default()
        })
}

pub fn scheme() -> impl Strategy<Value = SecurityScheme> {
    prop_oneof![
        (text(), text()).prop_map(|(location, name)| SecurityScheme::ApiKey(APIKeySecurityScheme {
            description: String::new(),
            location,
            name
        })),
        (text(), text()).prop_map(|(scheme, bearer_format)| SecurityScheme::HttpAuth(
            HTTPAuthSecurityScheme { description: String::new(), scheme, bearer_format }
        )),
        text().prop_map(|token_url| SecurityScheme::OAuth2(OAuth2SecurityScheme {
            description: String::new(),
            flows: OAuthFlows::ClientCredentials(ClientCredentialsOAuthFlow {
                token_url,
                ..ClientCredentialsOAuthFlow::default()
            }),
            oauth2_metadata_url: String::new(),
        })),
        text().prop_map(|description| SecurityScheme::MutualTls(MutualTlsSecurityScheme { description })),
        non_empty().prop_map(|open_id_connect_url| SecurityScheme::OpenIdConnect(
            OpenIdConnectSecurityScheme { open_id_connect_url, ..OpenIdConnectSecurityScheme::default() }
        )),
    ]
}

pub fn capabilities() -> impl Strategy<Value = AgentCapabilities> {
    (
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::collection::vec(
            text().prop_map(|uri| AgentExtension { uri, ..AgentExtension::default() }),
            0..2,
        ),
        unknown(),
    )
        .prop_map(|(streaming, push_notifications, extended_agent_card, extensions, extra)| {
            AgentCapabilities { streaming, push_notifications, extensions, extended_agent_card, extra }
        })
}

pub fn provider() -> impl Strategy<Value = AgentProvider> {
    (text(), text()).prop_map(|(url, organization)| AgentProvider { url, organization })
}

pub fn signature() -> impl Strategy<Value = AgentCardSignature> {
    (non_empty(), non_empty(), proptest::option::of(extra()))
        .prop_map(|(protected, signature, header)| AgentCardSignature { protected, signature, header })
}

pub fn agent_card() -> impl Strategy<Value = AgentCard> {
    (
        (text(), text(), text(), proptest::collection::vec(interface(), 0..3)),
        (proptest::option::of(non_empty()), proptest::option::of(non_empty()), capabilities()),
        (
            proptest::collection::btree_map(text(), scheme(), 0..3),
            proptest::collection::vec(skill(), 0..3),
            proptest::collection::vec(text(), 0..2),
            unknown(),
        ),
        (proptest::option::of(provider()), proptest::collection::vec(signature(), 0..2)),
    )
        .prop_map(
            |(
                (name, description, version, supported_interfaces),
                (documentation_url, icon_url, capabilities),
                (security_schemes, skills, modes, extra),
                (provider, signatures),
            )| AgentCard {
                name,
                description,
                supported_interfaces,
                provider,
                version,
                documentation_url,
                capabilities,
                security_requirements: security_schemes
                    .keys()
                    .map(|k| SecurityRequirement {
                        schemes: BTreeMap::from([(k.clone(), StringList { list: modes.clone() })]),
                    })
                    .collect(),
                security_schemes,
                default_input_modes: modes.clone(),
                default_output_modes: modes,
                skills,
                signatures,
                icon_url,
                extra,
            },
        )
}
