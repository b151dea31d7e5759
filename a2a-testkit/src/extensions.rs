//! The A2A extensions a scripted agent declares, requires and activates.
//!
//! Each extension its card declares is activated when a request asks for it (the `A2A-Extensions`
//! header in 1.0, `X-A2A-Extensions` in 0.3, the `a2a-extensions` gRPC metadata), and the answer
//! names the activated ones in the same header (or response metadata). A request that does not ask
//! for one the agent requires is answered -32008 (`ExtensionSupportRequiredError`).

use axum::http::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::script::Protocol;
use crate::wire::A2aError;

/// What the agent does with extensions: the ones its card declares, and the ones it refuses to
/// work without (declared required, or not declared so at all).
#[derive(Debug, Clone, Default)]
pub(crate) struct ExtensionRules {
    /// In the card's order.
    pub(crate) declared: Vec<Declared>,
    /// Refused without, whatever the card says.
    pub(crate) demanded: Vec<String>,
}

/// One extension the card declares.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub(crate) uri: String,
    /// Marked `required: true` (and refused without).
    pub(crate) required: bool,
    /// Activated when asked for; `false`: declared and never activated.
    pub(crate) activates: bool,
}

impl ExtensionRules {
    /// The card's `capabilities.extensions` entries.
    pub(crate) fn card_entries(&self) -> Vec<Value> {
        self.declared
            .iter()
            .map(|e| json!({"uri": e.uri, "description": "a2a-testkit scripted extension", "required": e.required}))
            .collect()
    }

    /// Adds one to the card's list.
    pub(crate) fn declare(&mut self, uri: String, required: bool, activates: bool) {
        self.declared.push(Declared { uri, required, activates });
    }

    /// The extensions a request asks for, in either version's header.
    fn requested(headers: &HeaderMap) -> Vec<String> {
        ["a2a-extensions", "x-a2a-extensions"]
            .into_iter()
            .flat_map(|name| headers.get_all(name).iter())
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .filter(|uri| !uri.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The extensions a request with `headers` activates; -32008 when it does not ask for one the
    /// agent requires.
    pub(crate) fn admit(&self, headers: &HeaderMap) -> Result<Vec<String>, A2aError> {
        let requested = Self::requested(headers);
        let required = self.declared.iter().filter(|e| e.required).map(|e| &e.uri);
        if let Some(missing) = required.chain(&self.demanded).find(|uri| !requested.contains(uri)) {
            return Err(A2aError::extension_support_required(missing));
        }
        let mut activated = Vec::new();
        for declared in self.declared.iter().filter(|e| e.activates) {
            if requested.contains(&declared.uri) && !activated.contains(&declared.uri) {
                activated.push(declared.uri.clone());
            }
        }
        Ok(activated)
    }
}

/// Names `activated` in the answer's headers, under the header of `protocol`.
pub(crate) fn echo(protocol: Protocol, activated: &[String], headers: &mut HeaderMap) {
    if activated.is_empty() {
        return;
    }
    let name = match protocol {
        Protocol::V1_0 => "a2a-extensions",
        Protocol::V0_3 => "x-a2a-extensions",
    };
    if let Ok(value) = HeaderValue::from_str(&activated.join(",")) {
        headers.insert(name, value);
    }
}
