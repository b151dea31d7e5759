//! [`Report`]: an error as `main` prints it.

use std::error::Error as StdError;
use std::fmt;

/// Any error, made to print its message, not its structure, when `main` returns it.
///
/// `fn main() -> Result<(), Box<dyn Error>>` prints the error with `Debug`: for this crate's
/// [`Error`](crate::Error) that is a dump of its fields and of the transport's own errors. A `main`
/// returning `Result<(), Report>` prints the message instead, then each cause the message does not
/// already say, one per line. `?` turns any error, and a `&str` or `String`, into one.
///
/// ```
/// use a2a_typestate_client::{Client, Report};
///
/// fn run() -> Result<(), Report> {
///     let _client = Client::builder().request_timeout(std::time::Duration::ZERO).build()?;
///     Ok(())
/// }
/// let shown = format!("{:?}", run().unwrap_err());
/// assert!(shown.contains("request timeout"), "{shown}");
/// assert!(!shown.contains("Error {"), "no Debug dump: {shown}");
/// ```
pub struct Report(Box<dyn StdError + Send + Sync + 'static>);

impl Report {
    /// The error this report prints.
    pub fn error(&self) -> &(dyn StdError + Send + Sync + 'static) {
        &*self.0
    }
}

impl<E> From<E> for Report
where
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    fn from(error: E) -> Self {
        Self(error.into())
    }
}

impl Report {
    /// Each cause whose text neither the message nor an earlier cause already holds. (The text
    /// module reads chains for the CLI's tables; it depends on this module, so this one reads its own.)
    fn new_causes(&self) -> impl Iterator<Item = String> + '_ {
        let mut shown = self.0.to_string();
        std::iter::successors(self.0.source(), |&cause| cause.source()).filter_map(move |cause| {
            let text = cause.to_string();
            (!shown.contains(&text)).then(|| {
                shown.push_str(&text);
                text
            })
        })
    }
}

/// The message, then `caused by:` and each cause whose text the lines above do not already hold.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)?;
        self.new_causes().try_for_each(|cause| write!(f, "\n  caused by: {cause}"))
    }
}

/// The message alone, as the error writes it; with `{:#}`, on one line with the causes the message
/// does not already say, each after a `: ` (for a log line, or one line per agent of a fan-out).
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)?;
        if f.alternate() {
            self.new_causes().try_for_each(|cause| write!(f, ": {cause}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the agent could not be reached")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_report_prints_the_message_and_each_new_cause_not_the_structure() {
        let report = Report::from(Outer(std::io::Error::other("connection refused")));
        assert_eq!(format!("{report:?}"), "the agent could not be reached\n  caused by: connection refused");
        assert_eq!(report.to_string(), "the agent could not be reached");
        let text: Report = "usage: prog URL".into();
        assert_eq!(format!("{text:?}"), "usage: prog URL");
    }

    #[test]
    fn the_alternate_form_puts_the_new_causes_on_the_messages_line() {
        let report = Report::from(Outer(std::io::Error::other("connection refused")));
        assert_eq!(format!("{report:#}"), "the agent could not be reached: connection refused");
        let text: Report = "usage: prog URL".into();
        assert_eq!(format!("{text:#}"), "usage: prog URL");
    }

    #[test]
    fn a_cause_the_message_already_says_is_not_repeated() {
        #[derive(Debug)]
        struct Says(std::io::Error);
        impl fmt::Display for Says {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "GetTask failed: {}", self.0)
            }
        }
        impl StdError for Says {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&self.0)
            }
        }
        let report = Report::from(Says(std::io::Error::other("no such task")));
        assert_eq!(format!("{report:?}"), "GetTask failed: no such task");
        assert_eq!(format!("{report:#}"), "GetTask failed: no such task");
    }
}
