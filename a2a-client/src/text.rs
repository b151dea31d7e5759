//! Text for people: what an agent wrote, made safe to show, and errors with every cause.
//!
//! Everything an agent writes (its card's name and descriptions, its error messages, the JSON paths
//! of its mistakes) reaches a person through here: control characters (C0, DEL, C1, so CR, LF and
//! ESC too) and Unicode bidi controls are removed, so an agent cannot forge table rows, move the cursor,
//! recolour the screen or reorder what is shown; line breaks and tabs become one space. Past
//! [`MESSAGE_MAX_CHARS`] (a flood bound: an agent can send megabytes of description) the text is cut,
//! with the number of characters left out said at the cut. A label (a name on a dashboard, a metric's
//! label) is cut at [`LABEL_MAX_CHARS`]. JSON output keeps the whole text: serde_json escapes every
//! control character there.
//!
//! [`describe`] and [`one_line`] lay out an error and its chain of causes, each link cleaned and cut,
//! and a cause whose text the error already shows not repeated: a card's JSON path and the problem
//! at it are never hidden behind a generic message.
//!
//! ```
//! let agent_said = "done\r\nerror: forged line\u{1b}[31m";
//! assert_eq!(a2a_typestate_client::text::message(agent_said), "done error: forged line[31m");
//! ```

use std::error::Error as StdError;
use std::fmt::Write as _;

/// The longest label (an agent's or a claim's name on a dashboard or a metric), in characters: 160.
pub const LABEL_MAX_CHARS: usize = 160;
/// The longest text shown to a person (one error, one cause of it, one table cell, one name), in
/// characters: 2,000.
pub const MESSAGE_MAX_CHARS: usize = 2_000;

/// Whether `c` reorders or hides text: the bidi embeddings, overrides and isolates and the direction
/// marks.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without control or bidi characters (line breaks and tabs become one space), whole.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(64 * 1024));
    let mut last_was_break = false;
    for c in text.chars() {
        if matches!(c, '\n' | '\r' | '\t') {
            if !last_was_break {
                out.push(' ');
            }
            last_was_break = true;
            continue;
        }
        last_was_break = false;
        if c.is_control() || is_bidi_control(c) {
            continue;
        }
        out.push(c);
    }
    out
}

/// `text` cleaned and cut to `max` characters.
pub fn cut(text: &str, max: usize) -> String {
    // Only the head is cleaned: a 100 MB message costs a count of its characters, not a copy.
    let head_bytes = text.char_indices().nth(max.saturating_mul(4)).map_or(text.len(), |(at, _)| at);
    let cleaned = clean(&text[..head_bytes]);
    let total = cleaned.chars().count() + text[head_bytes..].chars().count();
    if total <= max {
        return cleaned;
    }
    let keep = max.saturating_sub(1);
    let kept: String = cleaned.chars().take(keep).collect();
    format!("{kept}… ({} more characters)", total - keep)
}

/// A label's text (a name on a dashboard or a metric).
pub fn label(text: &str) -> String {
    cut(text, LABEL_MAX_CHARS)
}

/// Agent text for a person: a message line, a table cell, a name.
pub fn message(text: &str) -> String {
    cut(text, MESSAGE_MAX_CHARS)
}

/// `err` and its chain of causes, one per line after the first.
pub fn describe(err: &(dyn StdError + 'static)) -> String {
    chain(err, "\n  caused by: ")
}

/// `err` and its causes on one line, for JSON reports and table cells.
pub fn one_line(err: &(dyn StdError + 'static)) -> String {
    chain(err, ": ")
}

fn chain(err: &(dyn StdError + 'static), separator: &str) -> String {
    let mut text = message(&err.to_string());
    let mut source = err.source();
    while let Some(cause) = source {
        let shown = message(&cause.to_string());
        if !text.contains(&shown) {
            let _ = write!(text, "{separator}{shown}");
        }
        source = cause.source();
    }
    text
}

/// An error fetching the card at `base`, in words that say what to check and where; `layout` lays
/// out the error's chain of causes ([`describe`] for a terminal, [`one_line`] for a table cell or a
/// JSON field).
pub fn card_fetch_error(
    base: &str,
    err: &crate::Error,
    layout: fn(&(dyn StdError + 'static)) -> String,
) -> String {
    // The client's own words say what was asked (for a base URL: each well-known path and its
    // answer), what a card that is not JSON was served as, and how many attempts a fault took.
    let text = layout(err);
    match (err.status(), err.url()) {
        // A card URL given as it is, answered with nothing there.
        (Some(status @ (404 | 410)), Some(url)) if !text.starts_with("no agent card") => {
            // The start of the answer's body, when it had one, says what the server thinks is there.
            let body = err.body_snippet().map(|b| format!(": {}", message(b))).unwrap_or_default();
            format!("no agent card at {}: it answered {status}{body}", message(url))
        }
        (_, Some(_)) => text,
        // An error that names no URL (one that is not a URL at all) says which argument it is about.
        (_, None) => format!("`{base}`: {text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_cannot_forge_a_row() {
        assert_eq!(clean("weather\r\n  bot  verified"), "weather   bot  verified");
        assert!(!clean("a\rb\nc\u{2028}").contains(['\r', '\n']));
    }

    #[test]
    fn escape_sequences_and_c1_controls_are_removed() {
        assert_eq!(clean("\u{1b}[2J\u{1b}]0;title\u{7}red\u{9b}31m"), "[2J]0;titlered31m");
        assert!(!clean("\u{7f}\u{0}x").contains(['\u{7f}', '\0']));
    }

    #[test]
    fn bidi_overrides_are_removed() {
        assert_eq!(clean("safe\u{202E}gpj.exe\u{2066}x\u{2069}\u{200F}"), "safegpj.exex");
    }

    #[test]
    fn ordinary_text_is_kept_whole() {
        assert_eq!(clean("Météo — 天气 ✓"), "Météo — 天气 ✓");
        assert_eq!(message("short"), "short");
    }

    #[test]
    fn long_text_is_cut_and_says_how_much_was_left_out() {
        let long = "x".repeat(1000);
        let shown = label(&long);
        assert_eq!(shown.chars().take_while(|c| *c == 'x').count(), LABEL_MAX_CHARS - 1);
        let left_out = long.len() - (LABEL_MAX_CHARS - 1);
        assert!(shown.ends_with(&format!("… ({left_out} more characters)")), "{shown}");
        assert_eq!(message(&long), long, "below the flood bound, nothing is cut");
        let huge = "y".repeat(10 * MESSAGE_MAX_CHARS);
        let shown = message(&huge);
        assert!(shown.chars().count() < MESSAGE_MAX_CHARS + 40, "{}", shown.len());
        assert!(shown.ends_with("… (18001 more characters)"), "{shown}");
    }

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("bad input in agent card")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn agent_text_in_errors_is_cleaned_cut_and_shown_once() {
        let said = format!("boom\r\nerror: forged line\u{1b}[31m{}", "z".repeat(100_000));
        let err = Outer(std::io::Error::other(said));
        let shown = describe(&err);
        assert_eq!(shown.lines().count(), 2, "{}", &shown[..200]);
        assert!(!shown.contains('\u{1b}'));
        assert!(shown.len() < 3 * MESSAGE_MAX_CHARS, "{}", shown.len());
        #[derive(Debug)]
        struct Repeats(std::io::Error);
        impl std::fmt::Display for Repeats {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "agent said: {}", self.0)
            }
        }
        impl StdError for Repeats {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&self.0)
            }
        }
        let err = Repeats(std::io::Error::other("no such task"));
        assert_eq!(describe(&err), "agent said: no such task");
    }

    #[test]
    fn every_cause_is_shown() {
        let err = Outer(std::io::Error::other("capabilities.streaming: expected a boolean"));
        assert_eq!(
            describe(&err),
            "bad input in agent card\n  caused by: capabilities.streaming: expected a boolean"
        );
        assert_eq!(one_line(&err), "bad input in agent card: capabilities.streaming: expected a boolean");
    }
}
