//! Error text for people: the error, then each cause on its own line, so a card's JSON path and the
//! problem at it are never hidden behind a generic message. Error text quotes agents, so each link
//! of the chain is cleaned and cut ([`crate::sanitize::message`]), and a cause whose text the error
//! already shows is not repeated.

use std::error::Error as StdError;
use std::fmt::Write as _;

/// `err` and its chain of causes, one per line after the first.
pub(crate) fn describe(err: &(dyn StdError + 'static)) -> String {
    chain(err, "\n  caused by: ")
}

/// `err` and its causes on one line, for JSON reports and table cells.
pub(crate) fn one_line(err: &(dyn StdError + 'static)) -> String {
    chain(err, ": ")
}

fn chain(err: &(dyn StdError + 'static), separator: &str) -> String {
    let mut text = crate::sanitize::message(&err.to_string());
    let mut source = err.source();
    while let Some(cause) = source {
        let shown = crate::sanitize::message(&cause.to_string());
        if !text.contains(&shown) {
            let _ = write!(text, "{separator}{shown}");
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(shown.len() < 3 * crate::sanitize::MESSAGE_MAX_CHARS, "{}", shown.len());
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
