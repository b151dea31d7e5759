//! The start of the body an agent answered an unexpected HTTP status with, made fit to quote in an
//! error: a 500's body is usually the only place that says why.
//!
//! At most [`SNIPPET_BYTES`] of the body are kept. Control characters go (line breaks and tabs
//! become one space), and so do terminal escape sequences (`ESC [ ... final`, `ESC ] ... BEL`) so
//! that quoting an agent cannot recolour or move a terminal. Errors never hold credentials: a
//! body may echo the request back, so values that look like one (after `Bearer` or `Basic`, in a
//! URL's user info, or named like `token`, `password`, `secret`, `api_key`...) are replaced with
//! `***`. That is a heuristic over text the client did not write; a caller that shows bodies to
//! people should clean them again for its medium.

/// The most bytes of a body an error quotes: 200.
pub(crate) const SNIPPET_BYTES: usize = 200;

/// What replaces a value that looks like a credential.
const MASK: &str = "***";

/// Names whose value is masked when `=` or `:` follows them (compared without case; `api_key`
/// also matches `x-api-key` and `apikey` through `api-key`/`apikey`).
const SECRET_NAMES: [&str; 11] = [
    "token",
    "password",
    "passwd",
    "secret",
    "api_key",
    "api-key",
    "apikey",
    "authorization",
    "credential",
    "session",
    "cookie",
];

/// The text an error quotes for `body`, read up to `SNIPPET_BYTES` (`more`: the body went on past
/// what `body` holds): `None` when nothing printable is left.
pub(crate) fn snippet(body: &[u8], more: bool) -> Option<Box<str>> {
    let cut = body.len() > SNIPPET_BYTES;
    let head = &body[..body.len().min(SNIPPET_BYTES)];
    // A character the cut split in two is left out rather than shown as a replacement character.
    let text = match std::str::from_utf8(head) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(e) if e.error_len().is_none() => String::from_utf8_lossy(&head[..e.valid_up_to()]),
        Err(_) => String::from_utf8_lossy(head),
    };
    let cleaned = mask_credentials(&printable(&text));
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        return None;
    }
    let ellipsis = if cut || more { "…" } else { "" };
    Some(format!("{cleaned}{ellipsis}").into_boxed_str())
}

/// `text` without escape sequences and control characters; runs of whitespace become one space.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \).
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                // Any other escape is ESC and one character.
                _ => {}
            },
            // The 8-bit CSI: the same sequence without ESC.
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            c if c.is_whitespace() || c.is_control() => {
                if c.is_whitespace() && !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` with values that look like credentials replaced by [`MASK`].
fn mask_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = userinfo_end(rest) {
            // `scheme://user:password@host`: everything between `//` and `@` goes.
            let scheme_end = rest.find("//").map_or(0, |at| at + 2);
            out.push_str(&rest[..scheme_end]);
            out.push_str(MASK);
            rest = &rest[after..];
            continue;
        }
        let lower = rest.get(..rest.len().min(16)).unwrap_or(rest).to_ascii_lowercase();
        let scheme = ["bearer ", "basic "].into_iter().find(|s| lower.starts_with(s));
        let name = SECRET_NAMES.into_iter().find(|n| lower.starts_with(n));
        let skipped = match (scheme, name) {
            (Some(scheme), _) => Some(scheme.len()),
            (None, Some(name)) => after_separator(&rest[name.len()..]).map(|gap| name.len() + gap),
            _ => None,
        };
        if let Some(skipped) = skipped
            && at_word_start(text, rest)
        {
            out.push_str(&rest[..skipped]);
            let value = &rest[skipped..];
            // `Authorization: Bearer xyz`: the scheme stays, the next round masks what follows it.
            let opens_scheme = ["bearer ", "basic "]
                .into_iter()
                .any(|s| value.get(..s.len()).is_some_and(|v| v.eq_ignore_ascii_case(s)));
            if name.is_some() && scheme.is_none() && opens_scheme {
                rest = value;
                continue;
            }
            let end =
                value.find(|c: char| c.is_whitespace() || "\"'&,;}<>)".contains(c)).unwrap_or(value.len());
            if end > 0 {
                out.push_str(MASK);
            }
            rest = &value[end..];
            continue;
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// Whether `rest` (a tail of `text`) starts a word: not in the middle of letters or digits.
fn at_word_start(text: &str, rest: &str) -> bool {
    let before = &text[..text.len() - rest.len()];
    !before.chars().next_back().is_some_and(char::is_alphanumeric)
}

/// After a secret's name: optional quotes and spaces, `=` or `:`, optional spaces and an opening
/// quote. The length of that separator, when there is one.
fn after_separator(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    // A name may run on (`token_type`, `api_key_id`): only quotes and spaces before the separator.
    while at < bytes.len() && matches!(bytes[at], b'"' | b'\'' | b' ') {
        at += 1;
    }
    if !matches!(bytes.get(at), Some(b'=' | b':')) {
        return None;
    }
    at += 1;
    while at < bytes.len() && matches!(bytes[at], b'"' | b'\'' | b' ') {
        at += 1;
    }
    Some(at)
}

/// When `text` starts with a URL carrying user info (`scheme://user@` or `scheme://user:pw@`): the
/// offset just past its `@`.
fn userinfo_end(text: &str) -> Option<usize> {
    let scheme_len = text.find("://")?;
    let scheme = &text[..scheme_len];
    if scheme.is_empty() || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) {
        return None;
    }
    // Only at the scheme's first letter, so a scheme is not matched from its middle.
    let authority = &text[scheme_len + 3..];
    let end = authority.find(|c: char| "/?#".contains(c) || c.is_whitespace()).unwrap_or(authority.len());
    let at = authority[..end].rfind('@')?;
    Some(scheme_len + 3 + at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(body: &str) -> String {
        snippet(body.as_bytes(), false).map(String::from).unwrap_or_default()
    }

    #[test]
    fn a_short_body_is_quoted_whole_on_one_line() {
        assert_eq!(
            shown("Internal Server Error\r\nthe database is down\n"),
            "Internal Server Error the database is down"
        );
    }

    #[test]
    fn a_long_body_is_cut_to_its_first_bytes_and_says_so() {
        let body = format!("{}{}", "a".repeat(SNIPPET_BYTES), "tail that is never shown");
        let quoted = shown(&body);
        assert_eq!(quoted, format!("{}…", "a".repeat(SNIPPET_BYTES)));
        // A character split by the cut is left out, not replaced.
        let body = format!("{}é", "b".repeat(SNIPPET_BYTES - 1));
        assert_eq!(shown(&body), format!("{}…", "b".repeat(SNIPPET_BYTES - 1)));
    }

    #[test]
    fn escape_sequences_and_control_characters_are_removed() {
        let body = "\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}after\u{1b}]8;;http://x\u{1b}\\link \u{9b}2Jdone\u{0}\u{7f}";
        assert_eq!(shown(body), "red afterlink done");
    }

    #[test]
    fn values_that_look_like_credentials_are_masked() {
        for (body, secret) in [
            ("echo: Authorization: Bearer eyJhbGciOi.abc.def was refused", "eyJhbGciOi"),
            ("basic dXNlcjpwYXNz is not accepted", "dXNlcjpwYXNz"),
            ("see http://alice:hunter2@agent.example/x", "hunter2"),
            ("{\"api_key\": \"sk-123456\", \"ok\": false}", "sk-123456"),
            ("bad request: token=abc123&x=1", "abc123"),
            ("Password: swordfish", "swordfish"),
            ("X-API-Key: k-777 rejected", "k-777"),
        ] {
            let quoted = shown(body);
            assert!(!quoted.contains(secret), "{secret} in {quoted:?}");
            assert!(quoted.contains(MASK), "{quoted:?}");
        }
        // Words that only contain a name are left alone.
        assert_eq!(shown("tokens: 3, passwords_checked"), "tokens: 3, passwords_checked");
    }

    #[test]
    fn a_body_with_nothing_printable_is_no_snippet() {
        assert_eq!(snippet(b" \r\n\t\x1b[0m", false), None);
        assert_eq!(snippet(b"", true), None);
    }
}
