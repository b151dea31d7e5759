//! Parsing with errors that say what was wrong and where.
//!
//! Every entry point here refuses documents over a size limit before parsing, tracks the JSON path of
//! the value being read, turns serde's messages into `capabilities.streaming: expected a boolean,
//! found a string`, and reads a member written `null` as that member's default
//! ([`NullAsDefault`]).
//!
//! ```
//! use a2a_typestate_types::parse::{self, ParseOptions};
//! use a2a_typestate_types::TaskState;
//!
//! let state: TaskState = parse::from_str(r#""TASK_STATE_WORKING""#).unwrap();
//! assert_eq!(state, TaskState::Working);
//!
//! let err = parse::from_str_with::<TaskState>("\"x\"", ParseOptions::default().max_document_bytes(2))
//!     .unwrap_err();
//! assert!(err.to_string().contains("over the limit"));
//! ```

use std::fmt;

use serde::de::DeserializeOwned;

use crate::protojson::NullAsDefault;

/// The default largest document accepted: 8 MiB.
///
/// Large enough for any card or task with inline artifacts seen in practice, small enough that a
/// hostile agent cannot make the client buffer unbounded input.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 8 * 1024 * 1024;

/// Limits applied before and during parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    max_document_bytes: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self { max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES }
    }
}

impl ParseOptions {
    /// Sets the largest document accepted, in bytes ([`DEFAULT_MAX_DOCUMENT_BYTES`] by default).
    #[must_use]
    pub fn max_document_bytes(mut self, limit: usize) -> Self {
        self.max_document_bytes = limit;
        self
    }

    /// The largest document accepted, in bytes.
    pub fn document_limit(&self) -> usize {
        self.max_document_bytes
    }
}

/// What kind of problem a [`ParseError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The document is larger than [`ParseOptions::max_document_bytes`]; it was not parsed.
    TooLarge,
    /// The bytes are not JSON (or end early).
    Syntax,
    /// The JSON is well formed but does not fit the A2A shape expected at the path.
    Shape,
}

/// A document that could not be read, with the JSON path where it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    path: String,
    message: String,
}

impl ParseError {
    /// Builds an error for a value at `path` (dot and bracket notation, empty for the root).
    pub fn new(kind: ParseErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { kind, path: path.into(), message: message.into() }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The JSON path of the offending value, such as `capabilities.streaming` or `skills[0].id`;
    /// empty when the problem is the document as a whole.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Returns the error with `prefix` put in front of its path, for documents nested in others.
    #[must_use]
    pub fn within(mut self, prefix: &str) -> Self {
        self.path = join_path(prefix, &self.path);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "document: {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses `bytes` as `T` with the default [`ParseOptions`].
///
/// # Errors
/// A [`ParseError`] naming the path and the problem when the document is too large, not JSON, or not
/// of the shape `T` expects.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ParseError> {
    from_slice_with(bytes, ParseOptions::default())
}

/// Parses `text` as `T` with the default [`ParseOptions`].
///
/// # Errors
/// As [`from_slice`].
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    from_slice_with(text.as_bytes(), ParseOptions::default())
}

/// Parses `text` as `T` with the given options.
///
/// # Errors
/// As [`from_slice`].
pub fn from_str_with<T: DeserializeOwned>(text: &str, options: ParseOptions) -> Result<T, ParseError> {
    from_slice_with(text.as_bytes(), options)
}

/// Parses `bytes` as `T` with the given options.
///
/// # Errors
/// As [`from_slice`].
pub fn from_slice_with<T: DeserializeOwned>(bytes: &[u8], options: ParseOptions) -> Result<T, ParseError> {
    if bytes.len() > options.max_document_bytes {
        return Err(ParseError::new(
            ParseErrorKind::TooLarge,
            "",
            format!(
                "document of {} bytes is over the limit of {} bytes",
                bytes.len(),
                options.max_document_bytes
            ),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(NullAsDefault::new(&mut de)).map_err(from_path_error)?;
    de.end().map_err(|e| from_json_error("", &e))?;
    Ok(value)
}

/// As [`from_slice`], faster on the common path: parses with plain `serde_json`, and only when that
/// fails parses again with path tracking, so the error still names the JSON path.
///
/// Path tracking makes a typed parse 1.35-1.7 times slower (BENCHMARKS.md, figure 1); a well-formed
/// answer does not need it. Accepts and refuses exactly the documents [`from_slice`] does.
///
/// # Errors
/// As [`from_slice`].
pub fn from_slice_fast<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ParseError> {
    if bytes.len() <= DEFAULT_MAX_DOCUMENT_BYTES
        && let Some(value) = untracked(bytes)
    {
        return Ok(value);
    }
    from_slice(bytes)
}

/// As [`from_value`], faster on the common path: reads `value` with plain `serde_json` (borrowing
/// it), and only when that fails reads it again with path tracking to name the path in the error.
///
/// # Errors
/// As [`from_value`].
pub fn from_value_fast<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ParseError> {
    match T::deserialize(NullAsDefault::new(&value)) {
        Ok(typed) => Ok(typed),
        Err(_) => from_value(value),
    }
}

/// Converts an already parsed JSON value into `T`, with the same path-carrying errors.
///
/// # Errors
/// A [`ParseError`] with kind [`ParseErrorKind::Shape`] naming where the value does not fit.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ParseError> {
    serde_path_to_error::deserialize(NullAsDefault::new(value)).map_err(from_path_error)
}

/// `bytes` read as `T` without path tracking (the whole document, nothing after it); `None` when it
/// does not read.
fn untracked<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(NullAsDefault::new(&mut de)).ok()?;
    de.end().ok()?;
    Some(value)
}

fn from_path_error(err: serde_path_to_error::Error<serde_json::Error>) -> ParseError {
    let path = err.path().to_string();
    let path = if path == "." { String::new() } else { path };
    from_json_error(&path, err.inner())
}

fn from_json_error(path: &str, err: &serde_json::Error) -> ParseError {
    use serde_json::error::Category;
    let kind = match err.classify() {
        Category::Io | Category::Syntax | Category::Eof => ParseErrorKind::Syntax,
        Category::Data => ParseErrorKind::Shape,
    };
    let message = match kind {
        ParseErrorKind::Shape => humanize(&strip_position(&err.to_string())),
        _ => format!("{err}"),
    };
    ParseError::new(kind, path, message)
}

/// Drops serde_json's trailing ` at line L column C`, which says nothing once the path is known.
fn strip_position(message: &str) -> String {
    match message.rsplit_once(" at line ") {
        Some((head, position)) if position.contains(" column ") => head.to_owned(),
        _ => message.to_owned(),
    }
}

/// Rewrites serde's `invalid type: string "x", expected a boolean` as `expected a boolean, found a
/// string`; other messages pass through.
fn humanize(message: &str) -> String {
    let Some(rest) = message.strip_prefix("invalid type: ") else {
        return message.to_owned();
    };
    let Some((found, expected)) = rest.split_once(", expected ") else {
        return message.to_owned();
    };
    let found = if found.starts_with("string") {
        "a string"
    } else if found.starts_with("boolean") {
        "a boolean"
    } else if found.starts_with("integer") {
        "an integer"
    } else if found.starts_with("floating point") {
        "a number"
    } else if found.starts_with("map") {
        "an object"
    } else if found.starts_with("sequence") {
        "an array"
    } else if found.starts_with("null") || found.starts_with("unit") {
        "null"
    } else {
        found
    };
    format!("expected {expected}, found {found}")
}

/// A [`ParseErrorKind::Shape`] error at `path`: the readers of hand-walked JSON build theirs here.
pub(crate) fn shape_error(path: &str, message: impl Into<String>) -> ParseError {
    ParseError::new(ParseErrorKind::Shape, path, message)
}

/// What kind of JSON value `value` is, as an error message names it ("found a number").
pub(crate) fn describe(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Caps {
        streaming: Option<bool>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Card {
        capabilities: Caps,
    }

    #[test]
    fn shape_error_names_path_and_expectation() {
        let err = from_str::<Card>(r#"{"capabilities":{"streaming":"yes"}}"#).unwrap_err();
        assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");
        assert_eq!(err.kind(), ParseErrorKind::Shape);
    }

    #[test]
    fn oversized_document_is_refused_before_parsing() {
        let err = from_slice_with::<Card>(b"{not even json", ParseOptions::default().max_document_bytes(4))
            .unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::TooLarge);
    }

    #[test]
    fn syntax_error_is_reported_as_syntax() {
        let err = from_str::<Card>("{").unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax);
    }

    #[test]
    fn trailing_garbage_is_a_syntax_error() {
        let err = from_str::<Card>(r#"{"capabilities":{}} x"#).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax);
    }

    #[test]
    fn within_prefixes_paths() {
        let err = ParseError::new(ParseErrorKind::Shape, "[0].id", "m").within("skills");
        assert_eq!(err.path(), "skills[0].id");
    }

    #[test]
    fn fast_parse_reads_what_the_tracked_parse_reads() {
        let card: Card = from_slice_fast(br#"{"capabilities":{"streaming":true}}"#).unwrap();
        assert_eq!(card.capabilities.streaming, Some(true));
        let card: Card = from_value_fast(serde_json::json!({"capabilities": {}})).unwrap();
        assert_eq!(card.capabilities.streaming, None);
    }

    #[test]
    fn fast_parse_errors_still_name_the_path() {
        let doc = r#"{"capabilities":{"streaming":"yes"}}"#;
        let err = from_slice_fast::<Card>(doc.as_bytes()).unwrap_err();
        assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        let err = from_value_fast::<Card>(value).unwrap_err();
        assert_eq!(err.to_string(), "capabilities.streaming: expected a boolean, found a string");
    }

    #[test]
    fn fast_parse_refuses_trailing_garbage_and_oversized_documents() {
        let err = from_slice_fast::<Card>(br#"{"capabilities":{}} x"#).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax);
        let mut huge = vec![b' '; DEFAULT_MAX_DOCUMENT_BYTES];
        huge.extend_from_slice(br#"{"capabilities":{}}"#);
        assert_eq!(from_slice_fast::<Card>(&huge).unwrap_err().kind(), ParseErrorKind::TooLarge);
    }
}
