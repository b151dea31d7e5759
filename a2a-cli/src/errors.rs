//! Error text for people: the error, then each cause on its own line, so a card's JSON path and the
//! problem at it are never hidden behind a generic message.

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
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let _ = write!(text, "{separator}{cause}");
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
    fn every_cause_is_shown() {
        let err = Outer(std::io::Error::other("capabilities.streaming: expected a boolean"));
        assert_eq!(
            describe(&err),
            "bad input in agent card\n  caused by: capabilities.streaming: expected a boolean"
        );
        assert_eq!(one_line(&err), "bad input in agent card: capabilities.streaming: expected a boolean");
    }
}
