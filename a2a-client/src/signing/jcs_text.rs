//! JCS of a document read from its text, at any depth: the card parser keeps an unknown member as
//! text however deep it nests, so the bytes its signature covers must be computable at that depth
//! too. Nothing here recurses: the document is read into a flat tree with an explicit stack, each
//! object's members sorted once, and written out with another explicit stack. Time and memory are
//! linear in the document's size (plus the sort), whatever its shape.

use std::ops::Range;

use serde_json::Number;

use super::jcs::{JcsError, write_number, write_string};

/// What is left out of the canonical form, for the payloads a card signature can cover.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Shaping {
    /// Drop empty strings, arrays and objects at every depth (a container left empty too); the top
    /// level stays.
    pub(crate) drop_empty: bool,
    /// Drop this member of the top-level object (`signatures`).
    pub(crate) drop_top_level: Option<&'static str>,
}

/// The canonical UTF-8 bytes (RFC 8785) of the JSON document `text`, at any nesting depth; the
/// same bytes [`canonicalize`](super::jcs::canonicalize) gives for the document parsed as a
/// `serde_json::Value` (a member given twice keeps its last value).
///
/// ```
/// use a2a_typestate_client::signing::jcs;
///
/// let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
/// assert_eq!(jcs::canonicalize_str(&format!(r#"{{ "b": {deep}, "a": 1.0 }}"#))?,
///     format!(r#"{{"a":1,"b":{deep}}}"#).into_bytes());
/// # Ok::<(), a2a_typestate_client::signing::jcs::JcsError>(())
/// ```
///
/// # Errors
/// [`JcsError::NotJson`] when `text` is not one JSON value; [`JcsError::NotFinite`] for a number
/// out of a double's range.
pub fn canonicalize_str(text: &str) -> Result<Vec<u8>, JcsError> {
    canonicalize_text(text, Shaping::default())
}

/// As [`canonicalize_str`], leaving out what `shaping` says.
pub(crate) fn canonicalize_text(text: &str, shaping: Shaping) -> Result<Vec<u8>, JcsError> {
    let tree = Tree::read(text, shaping)?;
    Ok(tree.write().into_bytes())
}

enum Node {
    /// Canonical text in `Tree::scalars`.
    Scalar(Range<usize>),
    /// Elements, in `Tree::children`.
    Array(Range<usize>),
    /// Members, sorted, in `Tree::children`.
    Object(Range<usize>),
}

#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    /// The member name of each node that is an object member (parallel to `nodes`).
    names: Vec<Option<String>>,
    scalars: String,
    children: Vec<usize>,
    root: usize,
}

/// A container being read: its children so far, and the name of the member whose value is next.
struct Open {
    object: bool,
    members: Vec<usize>,
    name: Option<String>,
}

impl Tree {
    fn read(text: &str, shaping: Shaping) -> Result<Self, JcsError> {
        let mut reader = Reader { text, at: 0 };
        let mut tree = Tree::default();
        let mut stack: Vec<Open> = Vec::new();
        let mut value_done: Option<usize> = None;
        loop {
            let Some(node) = value_done.take() else {
                // A value starts here.
                reader.skip_whitespace();
                match reader.peek() {
                    Some(open @ (b'{' | b'[')) => {
                        reader.at += 1;
                        let object = open == b'{';
                        let mut frame = Open { object, members: Vec::new(), name: None };
                        reader.skip_whitespace();
                        if reader.eat(if object { b'}' } else { b']' }) {
                            value_done = Some(tree.close(frame, stack.is_empty(), shaping));
                            continue;
                        }
                        if object {
                            frame.name = Some(reader.member_name()?);
                        }
                        stack.push(frame);
                    }
                    _ => value_done = Some(tree.scalar(&mut reader)?),
                }
                continue;
            };
            let Some(top) = stack.last_mut() else {
                reader.skip_whitespace();
                if reader.at != text.len() {
                    return Err(reader.error("trailing characters after the document"));
                }
                tree.root = node;
                return Ok(tree);
            };
            tree.names[node] = top.name.take();
            top.members.push(node);
            reader.skip_whitespace();
            if reader.eat(b',') {
                if top.object {
                    top.name = Some(reader.member_name()?);
                }
            } else if reader.eat(if top.object { b'}' } else { b']' }) {
                let frame = stack.pop().unwrap_or_else(|| unreachable!("a frame was on the stack"));
                value_done = Some(tree.close(frame, stack.is_empty(), shaping));
            } else {
                return Err(reader.error("expected ',' or the end of the container"));
            }
        }
    }

    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.names.push(None);
        self.nodes.len() - 1
    }

    fn scalar(&mut self, reader: &mut Reader<'_>) -> Result<usize, JcsError> {
        let start = self.scalars.len();
        match reader.peek() {
            Some(b'"') => {
                let text = reader.string()?;
                write_string(&text, &mut self.scalars);
            }
            Some(b't') if reader.eat_word("true") => self.scalars.push_str("true"),
            Some(b'f') if reader.eat_word("false") => self.scalars.push_str("false"),
            Some(b'n') if reader.eat_word("null") => self.scalars.push_str("null"),
            Some(b'-' | b'0'..=b'9') => {
                let number = reader.number()?;
                write_number(&number, &mut self.scalars)?;
            }
            _ => return Err(reader.error("expected a value")),
        }
        Ok(self.push(Node::Scalar(start..self.scalars.len())))
    }

    fn is_empty(&self, node: usize) -> bool {
        match &self.nodes[node] {
            Node::Scalar(text) => &self.scalars[text.clone()] == "\"\"",
            Node::Array(children) | Node::Object(children) => children.is_empty(),
        }
    }

    fn name(&self, node: usize) -> &str {
        self.names[node].as_deref().unwrap_or_default()
    }

    /// The node of a container read to its end: members sorted by name as UTF-16 code units (a
    /// name given twice keeps its last value), then what `shaping` leaves out removed.
    fn close(&mut self, frame: Open, top_level: bool, shaping: Shaping) -> usize {
        let mut members = frame.members;
        if frame.object {
            // Stable: among equal names the last read stays last, and is the one kept.
            members.sort_by(|a, b| self.name(*a).encode_utf16().cmp(self.name(*b).encode_utf16()));
            let mut kept: Vec<usize> = Vec::with_capacity(members.len());
            for member in members {
                match kept.last_mut() {
                    Some(last) if self.name(*last) == self.name(member) => *last = member,
                    _ => kept.push(member),
                }
            }
            members = kept;
            if let (true, Some(dropped)) = (top_level, shaping.drop_top_level) {
                members.retain(|member| self.name(*member) != dropped);
            }
        }
        if shaping.drop_empty {
            members.retain(|member| !self.is_empty(*member));
        }
        let start = self.children.len();
        self.children.extend(members);
        let range = start..self.children.len();
        self.push(if frame.object { Node::Object(range) } else { Node::Array(range) })
    }

    fn write(&self) -> String {
        enum Step<'a> {
            Node(usize),
            Name(usize),
            Text(&'a str),
        }
        let mut out = String::with_capacity(self.scalars.len());
        let mut steps = vec![Step::Node(self.root)];
        while let Some(step) = steps.pop() {
            match step {
                Step::Text(text) => out.push_str(text),
                Step::Name(node) => {
                    write_string(self.name(node), &mut out);
                    out.push(':');
                }
                Step::Node(node) => match &self.nodes[node] {
                    Node::Scalar(text) => out.push_str(&self.scalars[text.clone()]),
                    Node::Array(children) | Node::Object(children) => {
                        let object = matches!(self.nodes[node], Node::Object(_));
                        out.push(if object { '{' } else { '[' });
                        steps.push(Step::Text(if object { "}" } else { "]" }));
                        for (index, child) in self.children[children.clone()].iter().enumerate().rev() {
                            steps.push(Step::Node(*child));
                            if object {
                                steps.push(Step::Name(*child));
                            }
                            if index > 0 {
                                steps.push(Step::Text(","));
                            }
                        }
                    }
                },
            }
        }
        out
    }
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.text[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    fn error(&self, message: &str) -> JcsError {
        JcsError::NotJson(format!("{message} at byte {}", self.at))
    }

    /// A member name and the `:` after it.
    fn member_name(&mut self) -> Result<String, JcsError> {
        self.skip_whitespace();
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a member name"));
        }
        let name = self.string()?;
        self.skip_whitespace();
        if !self.eat(b':') {
            return Err(self.error("expected ':' after a member name"));
        }
        Ok(name)
    }

    /// A string token, decoded by `serde_json` (escapes, surrogate pairs) so it reads as it does
    /// in a `Value`.
    fn string(&mut self) -> Result<String, JcsError> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut at = start + 1;
        loop {
            match bytes.get(at) {
                None => return Err(self.error("unterminated string")),
                Some(b'\\') => at += 2,
                Some(b'"') => break,
                Some(_) => at += 1,
            }
        }
        self.at = at + 1;
        serde_json::from_str(&self.text[start..self.at])
            .map_err(|e| JcsError::NotJson(format!("string at byte {start}: {e}")))
    }

    /// A number token, read by `serde_json` as a `Value` reads it.
    fn number(&mut self) -> Result<Number, JcsError> {
        let start = self.at;
        while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.at += 1;
        }
        serde_json::from_str(&self.text[start..self.at])
            .map_err(|e| JcsError::NotJson(format!("number at byte {start}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn both(text: &str) -> (Vec<u8>, Vec<u8>) {
        let value: Value = serde_json::from_str(text).unwrap();
        (canonicalize_str(text).unwrap(), super::super::jcs::canonicalize(&value).unwrap())
    }

    #[test]
    fn text_and_value_give_the_same_bytes() {
        for text in [
            r#"{"b": [1.0, 2.5e-3, "\u20ac\n", true, null, {}], "a": {"z": -0, "\ud83d\ude00": 1, "\uff61": 2}}"#,
            r#"[9007199254740993, 1e21, 1E-7, "", [], [[]], {"": ""}]"#,
            r#"{"a": 1, "a": 2}"#,
            r#" "x" "#,
            "[]",
        ] {
            let (text_form, value_form) = both(text);
            assert_eq!(
                String::from_utf8(text_form).unwrap(),
                String::from_utf8(value_form).unwrap(),
                "{text}"
            );
        }
    }

    #[test]
    fn shaping_drops_empties_and_the_top_level_member_only() {
        let text =
            r#"{"signatures": [1], "a": {"signatures": [2], "b": ["", {}, [[]]], "c": ""}, "d": false}"#;
        let shaping = Shaping { drop_empty: true, drop_top_level: Some("signatures") };
        let out = canonicalize_text(text, shaping).unwrap();
        assert_eq!(out, br#"{"a":{"signatures":[2]},"d":false}"#);
    }

    #[test]
    fn nesting_far_past_a_recursive_parser_is_read_without_recursion() {
        let depth = 200_000;
        let text = format!("{}{}", r#"{"a":["#.repeat(depth), "]}".repeat(depth));
        assert_eq!(canonicalize_str(&text).unwrap(), text.as_bytes());
    }

    #[test]
    fn text_that_is_not_one_json_value_is_refused_with_where() {
        for bad in ["{", "[1,]", "{\"a\" 1}", "1 2", "\"unterminated", "[tru]", "{1:2}"] {
            let err = canonicalize_str(bad).unwrap_err();
            assert!(matches!(err, JcsError::NotJson(_)), "{bad}: {err}");
        }
    }
}
