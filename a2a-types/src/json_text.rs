//! [`JsonText`]: a JSON value an agent sent, kept as its text until someone reads it.
//!
//! A data part (`google.protobuf.Value`) can hold anything, so it is where a hostile agent can make
//! a small document cost a lot: read into a `serde_json::Value`, each `0` of an array of zeros takes
//! 32 bytes. Kept as text it costs its own bytes; [`JsonText::value`] parses it when asked.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// One JSON value as text. Two are equal when they hold equal JSON values, whatever the whitespace.
#[derive(Clone)]
pub struct JsonText(Box<RawValue>);

impl JsonText {
    /// `value` written as JSON.
    pub fn from_value(value: &Value) -> Self {
        // A `Value` always writes (its object keys are strings); `null` is the unreachable fallback.
        Self(serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }

    /// The value parsed (the text was read as JSON, so it parses again; `Null` otherwise).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.0.get()).unwrap_or_default()
    }

    /// The JSON text as received.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Whether the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.0.get().trim_start().starts_with('{')
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> Self {
        Self::from_value(&value)
    }
}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get() || self.value() == other.value()
    }
}

impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_is_kept_and_parsed_on_demand() {
        let text: JsonText = serde_json::from_str(r#"{"a": [1, 2]}"#).unwrap();
        assert_eq!(text.get(), r#"{"a": [1, 2]}"#);
        assert_eq!(text.value(), json!({"a": [1, 2]}));
        assert!(text.is_object());
        assert_eq!(text, JsonText::from_value(&json!({"a": [1, 2]})));
        assert_eq!(serde_json::to_string(&text).unwrap(), r#"{"a": [1, 2]}"#);
    }

    #[test]
    fn null_is_a_value_too() {
        let text: JsonText = serde_json::from_str("null").unwrap();
        assert_eq!(text.value(), Value::Null);
        assert!(!text.is_object());
    }
}
