//! Reading a card of either shape as a 1.0 [`AgentCard`](crate::v1::AgentCard).

use serde_json::Value;

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
    let value: Value = parse::from_slice_with(bytes, options)?;
    let Some(object) = value.as_object() else {
        return Err(ParseError::new(ParseErrorKind::Shape, "", "expected an Agent Card object"));
    };
    // The same rule as `discovery::offered_interfaces`: an empty `supportedInterfaces` beside a 0.3
    // `url` means the 0.3 fields are all the card offers.
    let interfaces = object.get("supportedInterfaces").or_else(|| object.get("supported_interfaces"));
    let offers_v1 = interfaces.is_some_and(|list| list.as_array().is_none_or(|l| !l.is_empty()));
    if offers_v1 || (interfaces.is_some() && !object.contains_key("url")) {
        let card: v1::AgentCard = parse::from_value(value)?;
        Ok((CardShape::V1, Converted { value: card, losses: Vec::new() }))
    } else {
        let card: AgentCard = parse::from_value(value)?;
        Ok((CardShape::V03, card.to_v1()))
    }
}
