//! Agent-provided text made safe to show a person.
//!
//! Everything an agent writes (its card's name and descriptions, its error messages, the JSON paths
//! of its mistakes) reaches the terminal through here: control characters (C0, DEL, C1, so CR, LF and
//! ESC too) and Unicode bidi controls are removed, so an agent cannot forge table rows, move the cursor,
//! recolour the screen or reorder what is shown; line breaks and tabs become one space. Past
//! [`MESSAGE_MAX_CHARS`] (a flood bound: an agent can send megabytes of description) the text is cut,
//! with the number of characters left out said at the cut; a table wraps what is below it and never
//! cuts it ([`crate::table`]). A label on `a2a watch`'s page and metrics is cut at
//! [`LABEL_MAX_CHARS`]. `--json` output keeps the whole text: serde_json escapes every control
//! character there.

/// The longest label (an agent's or a claim's name on `a2a watch`'s page and metrics), in
/// characters: 160.
pub(crate) const LABEL_MAX_CHARS: usize = 160;
/// The longest text shown to a person (one error, one cause of it, one table cell, one name), in
/// characters: 2,000.
pub(crate) const MESSAGE_MAX_CHARS: usize = 2_000;

/// Whether `c` reorders or hides text: the bidi embeddings, overrides and isolates and the direction
/// marks.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without control or bidi characters (line breaks and tabs become one space), whole.
pub(crate) fn clean(text: &str) -> String {
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
pub(crate) fn cut(text: &str, max: usize) -> String {
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

/// A label's text (`a2a watch`'s page and metrics).
pub(crate) fn label(text: &str) -> String {
    cut(text, LABEL_MAX_CHARS)
}

/// Agent text for a person: a message line, a table cell, a name.
pub(crate) fn message(text: &str) -> String {
    cut(text, MESSAGE_MAX_CHARS)
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
}
