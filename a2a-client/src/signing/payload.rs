//! The bytes a card signature can cover: the card canonicalised three ways, each a fixed function of
//! the served document.
//!
//! Spec §8.4.1 says: drop `signatures`, drop default values by proto presence rules, then JCS. The
//! official SDKs (a2a-sdk 1.3.0, @a2a-js/sdk 1.3.0) sign the card as their proto model writes it,
//! with `signatures` dropped and then every empty string, array and object removed, including
//! REQUIRED ones the spec's example keeps (an empty `skills`). Signers differ, so a signature is
//! checked against each form below; which one matched is reported in
//! [`CardSigner::canonical_form`](super::CardSigner::canonical_form).

use a2a_typestate_types::AgentCard;
use serde_json::{Map, Value};

use super::jcs::{self, JcsError};
use super::jcs_text::{self, Shaping};

/// Which canonical form of the card a signature matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CanonicalForm {
    /// The document exactly as served, without `signatures` and with empty strings, arrays and
    /// objects removed. Covers every field served, unknown ones included (and so a 0.3 card
    /// signed as it is served).
    ServedDocument,
    /// The card in the 1.0 model (a 0.3 card converted), fields outside the 1.0 proto left out,
    /// with empty values removed: what the official SDKs sign. Fields outside the proto (0.3
    /// leftovers, vendor additions, a legacy `stateTransitionHistory`) are not covered, so they
    /// drive no claim on a card verified this way.
    ProtoView,
    /// As [`CanonicalForm::ProtoView`] but keeping REQUIRED fields even when empty: spec §8.4.1 as
    /// written.
    SpecPresence,
}

impl CanonicalForm {
    /// Whether a signature over this form covers every field of the served document.
    pub fn covers_unknown_fields(self) -> bool {
        self == CanonicalForm::ServedDocument
    }
}

/// The candidate payloads of one card, most covering first, without duplicates.
#[derive(Debug)]
pub(crate) struct Payloads {
    pub(crate) forms: Vec<(CanonicalForm, Vec<u8>)>,
}

impl Payloads {
    /// Canonicalises `raw` (the document as served, read from its text at any depth the card
    /// parser accepts) and `card` (its 1.0 reading).
    pub(crate) fn of(raw: &[u8], card: &AgentCard) -> Result<Self, JcsError> {
        let mut forms: Vec<(CanonicalForm, Vec<u8>)> = Vec::with_capacity(3);
        let mut push = |form, bytes: Vec<u8>| {
            if !forms.iter().any(|(_, seen)| *seen == bytes) {
                forms.push((form, bytes));
            }
        };
        let text = std::str::from_utf8(raw).map_err(|e| JcsError::NotJson(format!("not utf-8: {e}")))?;
        let served = Shaping { drop_empty: true, drop_top_level: Some("signatures") };
        push(CanonicalForm::ServedDocument, jcs_text::canonicalize_text(text, served)?);
        // Serialising a card to a Value cannot fail (string keys, finite numbers from JSON); if it
        // ever did, that form is simply not offered.
        if let Ok(view) = serde_json::to_value(covered_view(card)) {
            push(CanonicalForm::ProtoView, jcs::canonicalize(&without_empty(view.clone()))?);
            push(CanonicalForm::SpecPresence, jcs::canonicalize(&view)?);
        }
        Ok(Self { forms })
    }
}

/// The card as the proto-view forms see it: no `signatures`, no fields outside the 1.0 proto. The
/// claims of a card verified in such a form are lifted from this.
pub(crate) fn covered_view(card: &AgentCard) -> AgentCard {
    let mut view = card.clone();
    view.signatures.clear();
    view.extra.clear();
    view.capabilities.extra.clear();
    view
}

/// `value` with empty strings, arrays and objects removed at every depth; a container that becomes
/// empty is removed too. The top level stays (an empty card is `{}`).
fn without_empty(value: Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(clean_object(members)),
        Value::Array(items) => Value::Array(items.into_iter().filter_map(cleaned).collect()),
        other => other,
    }
}

fn clean_object(members: Map<String, Value>) -> Map<String, Value> {
    members.into_iter().filter_map(|(key, value)| cleaned(value).map(|value| (key, value))).collect()
}

fn cleaned(value: Value) -> Option<Value> {
    match value {
        Value::String(text) if text.is_empty() => None,
        Value::Array(items) => {
            let items: Vec<Value> = items.into_iter().filter_map(cleaned).collect();
            (!items.is_empty()).then_some(Value::Array(items))
        }
        Value::Object(members) => {
            let members = clean_object(members);
            (!members.is_empty()).then_some(Value::Object(members))
        }
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_values_go_at_every_depth_but_false_zero_and_null_stay() {
        let value =
            json!({"a": "", "b": [], "c": {"d": [""], "e": {}}, "f": false, "g": 0, "h": null, "i": [1, ""]});
        assert_eq!(without_empty(value), json!({"f": false, "g": 0, "h": null, "i": [1]}));
    }

    #[test]
    fn the_served_form_drops_signatures_and_keeps_unknown_fields() {
        let json = json!({"name": "a", "signatures": [{"protected": "x", "signature": "y"}], "vendor": 1});
        let card: AgentCard = serde_json::from_value(json.clone()).unwrap();
        let payloads = Payloads::of(json.to_string().as_bytes(), &card).unwrap();
        let (form, bytes) = &payloads.forms[0];
        assert_eq!(*form, CanonicalForm::ServedDocument);
        assert_eq!(bytes, br#"{"name":"a","vendor":1}"#);
        let proto = payloads.forms.iter().find(|(form, _)| *form == CanonicalForm::ProtoView).unwrap();
        assert!(!String::from_utf8_lossy(&proto.1).contains("vendor"));
    }

    #[test]
    fn the_spec_form_keeps_required_empties_as_the_spec_example_does() {
        let json = json!({"name": "Example Agent", "description": "",
            "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []}, "skills": []});
        let card: AgentCard = serde_json::from_value(json.clone()).unwrap();
        let payloads = Payloads::of(json.to_string().as_bytes(), &card).unwrap();
        let spec = payloads.forms.iter().find(|(form, _)| *form == CanonicalForm::SpecPresence).unwrap();
        let text = String::from_utf8_lossy(&spec.1);
        assert!(text.contains(r#""capabilities":{"pushNotifications":false,"streaming":false}"#), "{text}");
        assert!(text.contains(r#""description":"""#) && text.contains(r#""skills":[]"#), "{text}");
    }
}
