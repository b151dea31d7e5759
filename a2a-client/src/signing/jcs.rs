//! The JSON Canonicalization Scheme (JCS, RFC 8785): the one byte string a JSON value signs as.
//!
//! ```
//! use a2a_typestate_client::signing::jcs;
//!
//! let value = serde_json::json!({"b": [1.0, 2.5e-3, "\u{20ac}\n"], "a": null});
//! assert_eq!(jcs::canonicalize(&value)?, r#"{"a":null,"b":[1,0.0025,"€\n"]}"#.as_bytes());
//! # Ok::<(), a2a_typestate_client::signing::jcs::JcsError>(())
//! ```
//!
//! A card signature covers these bytes, so two implementations agree on a signature only if they
//! agree on every byte here. The rules:
//!
//! - no whitespace; objects and arrays written as `{"k":v,...}` and `[v,...]`;
//! - object members sorted by their names as UTF-16 code units (not by UTF-8 bytes, not by code
//!   points: the two disagree for names with characters above U+FFFF);
//! - strings as UTF-8 with only `"`, `\` and the C0 controls escaped, the controls with a short
//!   escape where JSON has one (`\b \f \n \r \t`) and `\u00xx` in lowercase hex otherwise;
//! - numbers as IEEE 754 doubles written by ECMAScript's `Number.prototype.toString` (RFC 8785
//!   §3.2.2.3), which the `ryu-js` crate implements; `-0` is written `0`.
//!
//! Integers beyond 2^53 are read as the nearest double, as an ECMAScript `JSON.parse` reads them,
//! so a card that relies on more precision has no canonical form that two verifiers agree on.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

pub use super::jcs_text::canonicalize_str;

pub use crate::error::card_signature::{JcsError, MAX_DEPTH};

/// The canonical UTF-8 bytes of `value`.
///
/// # Errors
/// [`JcsError::TooDeep`] past [`MAX_DEPTH`] levels; [`JcsError::NotFinite`] for a non-finite number.
pub fn canonicalize(value: &Value) -> Result<Vec<u8>, JcsError> {
    let mut out = String::new();
    write_value(value, &mut out, 0)?;
    Ok(out.into_bytes())
}

fn write_value(value: &Value, out: &mut String, depth: usize) -> Result<(), JcsError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(number, out)?,
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(JcsError::TooDeep);
            }
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(item, out, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(members) => {
            if depth >= MAX_DEPTH {
                return Err(JcsError::TooDeep);
            }
            out.push('{');
            for (index, (name, member)) in sorted_members(members).into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(member, out, depth + 1)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// The members of `object` ordered by their names' UTF-16 code units (RFC 8785 §3.2.3).
fn sorted_members(object: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<_> = object.iter().collect();
    members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    members
}

/// A JSON string as RFC 8785 §3.2.2.2 writes it.
pub(super) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A JSON number as ECMAScript writes the double it denotes (RFC 8785 §3.2.2.3).
pub(super) fn write_number(number: &Number, out: &mut String) -> Result<(), JcsError> {
    // `as f64` rounds to the nearest double, ties to even: what JSON.parse does with a long integer.
    let double = match (number.as_u64(), number.as_i64(), number.as_f64()) {
        (Some(unsigned), _, _) => unsigned as f64,
        (None, Some(signed), _) => signed as f64,
        (None, None, Some(double)) => double,
        (None, None, None) => return Err(JcsError::NotFinite(number.to_string())),
    };
    out.push_str(&format_double(double)?);
    Ok(())
}

/// ECMAScript's `Number.prototype.toString` of a finite double (`-0` gives `0`).
///
/// # Errors
/// [`JcsError::NotFinite`] for NaN and the infinities, which JSON cannot carry.
pub fn format_double(double: f64) -> Result<String, JcsError> {
    if !double.is_finite() {
        return Err(JcsError::NotFinite(double.to_string()));
    }
    if double == 0.0 {
        return Ok("0".to_owned());
    }
    let mut buffer = ryu_js::Buffer::new();
    Ok(buffer.format_finite(double).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn minus_zero_is_written_as_zero() {
        assert_eq!(format_double(-0.0).unwrap(), "0");
    }

    #[test]
    fn non_finite_numbers_have_no_canonical_form() {
        assert!(matches!(format_double(f64::NAN), Err(JcsError::NotFinite(_))));
        assert!(matches!(format_double(f64::INFINITY), Err(JcsError::NotFinite(_))));
    }

    #[test]
    fn nesting_past_the_limit_is_refused_not_overflowed() {
        let mut deep = json!(1);
        for _ in 0..=MAX_DEPTH {
            deep = json!([deep]);
        }
        assert_eq!(canonicalize(&deep), Err(JcsError::TooDeep));
    }

    #[test]
    fn controls_use_short_escapes_where_json_has_them_and_lowercase_hex_otherwise() {
        let value = json!("\u{8}\u{c}\n\r\t\u{1f}\u{7f}\u{2028}");
        assert_eq!(canonicalize(&value).unwrap(), "\"\\b\\f\\n\\r\\t\\u001f\u{7f}\u{2028}\"".as_bytes());
    }

    #[test]
    fn large_integers_round_to_the_nearest_double_like_json_parse() {
        let value: Value =
            serde_json::from_str("[9007199254740993, 18446744073709551615, -9007199254740993]").unwrap();
        assert_eq!(
            canonicalize(&value).unwrap(),
            b"[9007199254740992,18446744073709552000,-9007199254740992]"
        );
    }
}
