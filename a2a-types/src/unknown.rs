//! [`UnknownFields`]: the members of a card that its schema does not define, kept as JSON text.
//!
//! A card is a set of claims, so reading it loses nothing: a vendor member, a 0.3 leftover on a 1.0
//! card, the removed `stateTransitionHistory` all write back as they came. They are kept as text
//! rather than as `serde_json::Value` because a `Value` can cost far more than the bytes it was read
//! from (each `0` of an array of zeros becomes a 32-byte `Value`): as text, an unknown member of N
//! bytes costs N bytes, whatever it holds. It is parsed only when asked for, with
//! [`UnknownFields::value`]. Each member is a [`JsonText`], as data parts are.
//!
//! ```
//! use a2a_typestate_types::{parse, AgentCard};
//! use serde_json::json;
//!
//! let card: AgentCard = parse::from_str(r#"{"name":"a","x-vendor":{"tier": "gold"}}"#).unwrap();
//! assert_eq!(card.extra.get("x-vendor").map(|raw| raw.get()), Some(r#"{"tier": "gold"}"#));
//! assert_eq!(card.extra.value("x-vendor"), Some(json!({"tier": "gold"})));
//! ```

use std::collections::BTreeMap;
use std::collections::btree_map;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::JsonText;

/// Metadata (`google.protobuf.Struct`) of a message, task, artifact, part, event or request: its
/// members kept as JSON text, as a card's unknown members are, since an agent fills them freely.
/// Read one with [`UnknownFields::value`]; write one with [`UnknownFields::insert_value`].
///
/// ```
/// use a2a_typestate_types::{Metadata, Task, parse};
/// use serde_json::json;
///
/// let task: Task = parse::from_str(r#"{"id":"t1","metadata":{"trace":[1,2]}}"#).unwrap();
/// let metadata: &Metadata = task.metadata.as_ref().unwrap();
/// assert_eq!(metadata.value("trace"), Some(json!([1, 2])));
/// ```
pub type Metadata = UnknownFields;

/// Members a type does not define, by name, each kept as the JSON text it was read from.
///
/// Names are kept in sorted order (as `serde_json::Map` keeps them without `preserve_order`); a
/// name given twice keeps its last value, as a JSON object read into a map does. Two sets are equal
/// when they hold the same names with equal JSON values, whatever the whitespace.
#[derive(Clone, Default, PartialEq)]
pub struct UnknownFields(BTreeMap<String, JsonText>);

impl UnknownFields {
    /// No members.
    pub fn new() -> Self {
        Self::default()
    }

    /// The JSON text of member `key`.
    pub fn get(&self, key: &str) -> Option<&JsonText> {
        self.0.get(key)
    }

    /// Member `key` parsed as a `Value`.
    pub fn value(&self, key: &str) -> Option<Value> {
        self.get(key).map(JsonText::value)
    }

    /// Member `key` when it is a JSON boolean.
    pub fn bool(&self, key: &str) -> Option<bool> {
        match self.get(key)?.get().trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// Whether member `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Sets member `key` to `text`, returning the text it replaces.
    pub fn insert(&mut self, key: impl Into<String>, text: JsonText) -> Option<JsonText> {
        self.0.insert(key.into(), text)
    }

    /// Sets member `key` to `value` written as JSON, returning the text it replaces.
    pub fn insert_value(&mut self, key: impl Into<String>, value: &Value) -> Option<JsonText> {
        self.insert(key, JsonText::from_value(value))
    }

    /// Removes member `key`, returning its text.
    pub fn remove(&mut self, key: &str) -> Option<JsonText> {
        self.0.remove(key)
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members in name order, with their JSON text.
    pub fn iter(&self) -> btree_map::Iter<'_, String, JsonText> {
        self.0.iter()
    }

    /// Reads the next value of `map` as member `key`: what a visitor calls for a name it does not know.
    ///
    /// # Errors
    /// The map's error when the value is not well-formed JSON.
    pub fn read_next<'de, A: MapAccess<'de>>(&mut self, key: String, map: &mut A) -> Result<(), A::Error> {
        let text = map.next_value::<JsonText>()?;
        self.insert(key, text);
        Ok(())
    }
}

impl fmt::Debug for UnknownFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter()).finish()
    }
}

impl FromIterator<(String, JsonText)> for UnknownFields {
    fn from_iter<I: IntoIterator<Item = (String, JsonText)>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

impl IntoIterator for UnknownFields {
    type Item = (String, JsonText);
    type IntoIter = btree_map::IntoIter<String, JsonText>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a UnknownFields {
    type Item = (&'a String, &'a JsonText);
    type IntoIter = btree_map::Iter<'a, String, JsonText>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for UnknownFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter())
    }
}

impl<'de> serde::Deserialize<'de> for UnknownFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldsVisitor;
        impl<'de> Visitor<'de> for FieldsVisitor {
            type Value = UnknownFields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UnknownFields, A::Error> {
                let mut fields = UnknownFields::new();
                while let Some(key) = map.next_key::<String>()? {
                    fields.read_next(key, &mut map)?;
                }
                Ok(fields)
            }
        }
        d.deserialize_map(FieldsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_members_write_back_as_they_came() {
        let fields: UnknownFields = serde_json::from_str(r#"{"b": [1, 2], "a": {"x" :true}}"#).unwrap();
        assert_eq!(serde_json::to_string(&fields).unwrap(), r#"{"a":{"x" :true},"b":[1, 2]}"#);
        assert_eq!(fields.value("a"), Some(json!({"x": true})));
        assert_eq!(fields.bool("a"), None);
    }

    #[test]
    fn equal_values_are_equal_whatever_the_whitespace() {
        let spaced: UnknownFields = serde_json::from_str(r#"{"a": [1, 2]}"#).unwrap();
        let tight: UnknownFields = serde_json::from_str(r#"{"a":[1,2]}"#).unwrap();
        let other: UnknownFields = serde_json::from_str(r#"{"a":[2,1]}"#).unwrap();
        assert_eq!(spaced, tight);
        assert_ne!(spaced, other);
    }

    #[test]
    fn a_member_given_twice_keeps_its_last_value() {
        let fields: UnknownFields = serde_json::from_str(r#"{"a": true, "a": false}"#).unwrap();
        assert_eq!((fields.len(), fields.bool("a")), (1, Some(false)));
    }

    #[test]
    fn read_from_a_value_too() {
        let fields: UnknownFields = serde_json::from_value(json!({"a": {"b": null}})).unwrap();
        assert_eq!(fields.get("a").map(JsonText::get), Some(r#"{"b":null}"#));
    }
}
