//! Reading a card of either shape as a 1.0 [`AgentCard`](crate::v1::AgentCard).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{AgentCard, Converted};
use crate::parse::{self, ParseError, ParseErrorKind, ParseOptions};
use crate::v1;

/// Which shape a card document has, as [`read_any_card`] decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardShape {
    /// A 1.0 card: it has `supportedInterfaces` (a2a-sdk's merged 0.3-compatible cards included, whose
    /// 0.3 members stay in `extra`).
    V1,
    /// A 0.3 (or 0.2.x) card: no `supportedInterfaces`; it was read as 0.3 and converted.
    V03,
}

/// Reads a card of either shape as a 1.0 card, so callers verify one model.
///
/// A document with a non-empty `supportedInterfaces` (either spelling), or one without a 0.3 `url`, is
/// read as 1.0, losslessly. Any other is
/// read as a 0.3 card and converted with [`AgentCard::to_v1`], whose `losses` are returned; its
/// `stateTransitionHistory` claim is then readable through
/// [`AgentCapabilities::legacy_state_transition_history`](crate::v1::AgentCapabilities::legacy_state_transition_history).
///
/// ```
/// use a2a_typestate_types::v03::{read_any_card, CardShape};
///
/// let (shape, card) = read_any_card(
///     br#"{"name":"a","description":"d","url":"https://a.example/rpc","version":"1","protocolVersion":"0.3",
///          "capabilities":{"stateTransitionHistory":true},"defaultInputModes":["text/plain"],
///          "defaultOutputModes":["text/plain"],"skills":[]}"#,
/// )
/// .unwrap();
/// assert_eq!(shape, CardShape::V03);
/// assert!(card.losses.is_empty());
/// assert_eq!(card.value.capabilities.legacy_state_transition_history(), Some(true));
/// assert_eq!(card.value.supported_interfaces[0].protocol_version, "0.3");
/// ```
///
/// # Errors
/// A [`ParseError`] with the JSON path when the document is too large (default
/// [`ParseOptions`]), not JSON, not an object, or not a valid card of the shape it was taken for.
pub fn read_any_card(bytes: &[u8]) -> Result<(CardShape, Converted<v1::AgentCard>), ParseError> {
    read_any_card_with(bytes, ParseOptions::default())
}

/// [`read_any_card`] with a chosen size limit.
///
/// # Errors
/// As [`read_any_card`].
pub fn read_any_card_with(
    bytes: &[u8],
    options: ParseOptions,
) -> Result<(CardShape, Converted<v1::AgentCard>), ParseError> {
    // The shape is decided from a shallow read that borrows the few members it looks at and skips the
    // rest, then the document is parsed once as the card it is: the whole document is never held as
    // a `serde_json::Value` (some 16 to 32 bytes for every 2-byte `0,` of an array).
    // serde reads a struct from an array too: only an object is probed.
    let object = bytes.trim_ascii_start().first() == Some(&b'{');
    let probe = match serde_json::from_slice::<ShapeProbe<'_>>(bytes) {
        Ok(probe) if object && bytes.len() <= options.document_limit() => probe,
        // Too large, not JSON, not an object, or an object the probe cannot read (a member given
        // twice): the path-tracking parser says what is wrong, or reads it the long way.
        _ => return read_any_card_as_value(bytes, options),
    };
    let interfaces = probe.interfaces.or(probe.interfaces_snake);
    let offers_v1 = interfaces.is_some_and(|list| {
        let text = list.get().trim();
        !text.starts_with('[') || !text[1..].trim_start().starts_with(']')
    });
    if offers_v1 || (interfaces.is_some() && probe.url.is_none()) {
        let card: v1::AgentCard = parse::from_slice_with(bytes, options)?;
        Ok((CardShape::V1, Converted { value: card, losses: Vec::new() }))
    } else {
        let card: AgentCard = parse::from_slice_with(bytes, options)?;
        Ok((CardShape::V03, card.to_v1()))
    }
}

fn read_any_card_as_value(
    bytes: &[u8],
    options: ParseOptions,
) -> Result<(CardShape, Converted<v1::AgentCard>), ParseError> {
    let value: serde_json::Value = parse::from_slice_with(bytes, options)?;
    let Some(object) = value.as_object() else { return Err(not_an_object()) };
    // A member written `null` is left out, as the card readers read it.
    let member = |name: &str| object.get(name).filter(|value| !value.is_null());
    let interfaces = member("supportedInterfaces").or_else(|| member("supported_interfaces"));
    let offers_v1 = interfaces.is_some_and(|list| list.as_array().is_none_or(|l| !l.is_empty()));
    if offers_v1 || (interfaces.is_some() && member("url").is_none()) {
        let card: v1::AgentCard = parse::from_value(value)?;
        Ok((CardShape::V1, Converted { value: card, losses: Vec::new() }))
    } else {
        let card: AgentCard = parse::from_value(value)?;
        Ok((CardShape::V03, card.to_v1()))
    }
}

fn not_an_object() -> ParseError {
    ParseError::new(ParseErrorKind::Shape, "", "expected an Agent Card object")
}

/// The members `read_any_card` decides the shape from; every other member is skipped unread.
/// A member written `null` counts as absent, as the card readers read it
/// ([`NullAsDefault`](crate::protojson::NullAsDefault)).
#[derive(Deserialize)]
struct ShapeProbe<'a> {
    #[serde(rename = "supportedInterfaces", borrow, default, deserialize_with = "present")]
    interfaces: Option<&'a RawValue>,
    #[serde(rename = "supported_interfaces", borrow, default, deserialize_with = "present")]
    interfaces_snake: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    url: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(|raw| Some(raw).filter(|raw| raw.get().trim() != "null"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V03: &str = r#""name":"a","description":"d","url":"https://a.example/rpc","version":"1","protocolVersion":"0.3","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]"#;

    #[test]
    fn the_shallow_probe_decides_as_the_value_reading_did() {
        let cases = [
            (format!("{{{V03}}}"), CardShape::V03),
            (format!("{{{V03},\"supportedInterfaces\":[ ]}}"), CardShape::V03),
            (format!("{{{V03},\"supportedInterfaces\":[]}}"), CardShape::V03),
            (r#"{"supportedInterfaces":[],"name":"x"}"#.to_owned(), CardShape::V1),
        ];
        for (doc, shape) in cases {
            let (read, _) = read_any_card(doc.as_bytes()).unwrap();
            assert_eq!(read, shape, "{doc}");
            let (slow, _) = read_any_card_as_value(doc.as_bytes(), ParseOptions::default()).unwrap();
            assert_eq!(slow, shape, "{doc}");
        }
        // A null member is absent, whichever way it is read: this card is read as the 0.3 card it is.
        let doc = format!("{{{V03},\"supportedInterfaces\":null}}");
        assert_eq!(
            read_any_card(doc.as_bytes()).map(|r| r.0).map_err(|e| e.path().to_owned()),
            read_any_card_as_value(doc.as_bytes(), ParseOptions::default())
                .map(|r| r.0)
                .map_err(|e| e.path().to_owned())
        );
    }

    #[test]
    fn documents_the_probe_cannot_read_get_the_same_errors() {
        assert_eq!(read_any_card(b"[1]").unwrap_err().message(), "expected an Agent Card object");
        assert_eq!(read_any_card(b"{").unwrap_err().kind(), ParseErrorKind::Syntax);
        let small = ParseOptions::default().max_document_bytes(4);
        assert_eq!(read_any_card_with(b"{\"a\":1}", small).unwrap_err().kind(), ParseErrorKind::TooLarge);
    }
}
