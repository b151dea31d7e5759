//! The Agent Card, in the 1.0 shape or the 0.3 shape, and its ETag.

use serde_json::{Map, Value, json};

use crate::script::{Capabilities, GATEWAY_EXTENSION_URI, POLL_CADENCE_EXTENSION_URI, Protocol};

/// The parts of the card that are not capabilities.
#[derive(Debug, Clone)]
pub(crate) struct CardFacts<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) input_modes: &'a [String],
    pub(crate) output_modes: &'a [String],
    pub(crate) jsonrpc_url: &'a str,
    pub(crate) rest_url: &'a str,
    pub(crate) grpc_url: &'a str,
    /// The 1.0 card's interfaces, in order of preference.
    pub(crate) bindings: &'a [Binding],
}

/// A binding the scripted agent serves, for the order of a 1.0 card's `supportedInterfaces`
/// ([`ScriptedAgentBuilder::bindings`](crate::ScriptedAgentBuilder::bindings)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Binding {
    /// `JSONRPC` at `/a2a/jsonrpc`.
    JsonRpc,
    /// `HTTP+JSON` under `/a2a/rest`.
    HttpJson,
    /// `GRPC` at the agent's origin (`lf.a2a.v1.A2AService`, HTTP/2 in cleartext).
    Grpc,
}

impl Binding {
    /// Every binding: the two a card lists by default, then gRPC.
    pub const ALL: [Binding; 3] = [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc];

    /// The card's `protocolBinding` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::HttpJson => "HTTP+JSON",
            Binding::Grpc => "GRPC",
        }
    }
}

/// Builds the card JSON for `protocol` from what it claims.
pub(crate) fn card_json(protocol: Protocol, facts: &CardFacts<'_>, claims: &Capabilities) -> Value {
    let mut capabilities = Map::new();
    capabilities.insert("streaming".to_owned(), json!(claims.streaming));
    capabilities.insert("pushNotifications".to_owned(), json!(claims.push_notifications));
    if protocol == Protocol::V0_3 || claims.state_transition_history {
        capabilities.insert("stateTransitionHistory".to_owned(), json!(claims.state_transition_history));
    }
    let mut extensions = Vec::new();
    if let Some(interval) = claims.poll_cadence {
        extensions.push(json!({
            "uri": POLL_CADENCE_EXTENSION_URI,
            "description": "How often to poll GetTask while the task is working",
            "required": false,
            "params": { "intervalMs": u64::try_from(interval.as_millis()).unwrap_or(u64::MAX) }
        }));
    }
    if claims.gateway_extension {
        extensions.push(json!({
            "uri": GATEWAY_EXTENSION_URI,
            "description": "This card describes a gateway, not the backend that runs the tasks",
            "required": false
        }));
    }
    if !extensions.is_empty() {
        capabilities.insert("extensions".to_owned(), Value::Array(extensions));
    }
    let skills = json!([{
        "id": "echo", "name": "echo", "description": "echoes text", "tags": ["test"]
    }]);
    match protocol {
        Protocol::V1_0 => json!({
            "name": facts.name,
            "description": facts.description,
            "supportedInterfaces": facts.bindings.iter().map(|binding| {
                let url = match binding {
                    Binding::JsonRpc => facts.jsonrpc_url,
                    Binding::HttpJson => facts.rest_url,
                    Binding::Grpc => facts.grpc_url,
                };
                json!({ "url": url, "protocolBinding": binding.as_str(), "protocolVersion": "1.0" })
            }).collect::<Vec<_>>(),
            "version": "1.0.0",
            "capabilities": capabilities,
            "defaultInputModes": facts.input_modes,
            "defaultOutputModes": facts.output_modes,
            "skills": skills
        }),
        Protocol::V0_3 => {
            // 0.3 is served over JSON-RPC and HTTP+JSON here; the first listed is the card's `url`.
            let served: Vec<(&str, &str)> = facts
                .bindings
                .iter()
                .filter_map(|binding| match binding {
                    Binding::JsonRpc => Some((facts.jsonrpc_url, binding.as_str())),
                    Binding::HttpJson => Some((facts.rest_url, binding.as_str())),
                    Binding::Grpc => None,
                })
                .collect();
            let (url, transport) = served.first().copied().unwrap_or((facts.jsonrpc_url, "JSONRPC"));
            let mut card = json!({
                "protocolVersion": "0.3.0",
                "name": facts.name,
                "description": facts.description,
                "url": url,
                "preferredTransport": transport,
                "version": "1.0.0",
                "capabilities": capabilities,
                "defaultInputModes": facts.input_modes,
                "defaultOutputModes": facts.output_modes,
                "skills": skills
            });
            if served.len() > 1 {
                // As the 0.3 specification's sample does, the main interface is listed again.
                card["additionalInterfaces"] = served
                    .iter()
                    .map(|(url, transport)| json!({ "url": url, "transport": transport }))
                    .collect();
            }
            card
        }
    }
}

/// A weak ETag over the card bytes (FNV-1a, stable across runs and platforms).
pub(crate) fn etag(bytes: &[u8]) -> String {
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    format!("W/\"{hash:016x}\"")
}

/// True when an `If-None-Match` value matches `etag` (a list, `*`, weak or strong forms).
pub(crate) fn if_none_match_hits(header: &str, etag: &str) -> bool {
    let bare = etag.trim_start_matches("W/");
    header
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == bare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_accepts_weak_strong_and_lists() {
        let tag = etag(b"card");
        assert!(if_none_match_hits(&tag, &tag));
        assert!(if_none_match_hits(tag.trim_start_matches("W/"), &tag));
        assert!(if_none_match_hits(&format!("\"other\", {tag}"), &tag));
        assert!(!if_none_match_hits("\"other\"", &tag));
    }
}
