//! The one exit status scheme every `a2a` command follows, so a script reads any command's status
//! the same way.
//!
//! A status says what the run found, worst first: no result (2) is worse than a contradicted card
//! (1), which is worse than deviations under `--strict` (3). A task that waits for the user (4)
//! is neither an answer nor a failure: `a2a send` prints the command that continues it.

use std::process::ExitCode;

/// What a command's run came to, as its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Done: the answer came, the card was read, every claim audited held.
    Done = 0,
    /// An agent contradicted its card (a claim was refused; `send` still prints the answer), a card
    /// is no valid card or its signatures fail, or a conformance scenario or demo check failed.
    Contradicted = 1,
    /// No result: the agent could not be reached or served no card, answered with an error, the
    /// task failed, was rejected or canceled, a bound ran out, an agent could not be audited, or the
    /// command could not start.
    NoResult = 2,
    /// Only with `--strict`: answers deviated from the 1.0 wire format (they were read anyway).
    Deviated = 3,
    /// The task waits for the user (`input-required` or `auth-required`); `send` prints the
    /// command that continues it.
    Waiting = 4,
    /// The command line could not be read (an unknown option, a missing or malformed argument).
    Usage = 64,
}

impl Exit {
    /// The status as the process returns it.
    pub const fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

/// The scheme as `a2a --help` prints it (and the README repeats it).
pub const TABLE: &str = "\
Exit status (every command):
  0   done: the answer came, the card was read, every claim audited held
  1   an agent contradicted its card (send still prints the answer), a card is invalid or its
      signatures fail, or a conformance scenario or demo check failed
  2   no result: unreachable, no card, an error answer, the task failed, was rejected or canceled,
      a bound ran out, an agent not audited, or the command could not start
  3   --strict only: answers deviated from the 1.0 wire format (read anyway)
  4   the task waits for you (input-required, auth-required): send prints the command that
      continues it
  64  the command line could not be read";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_table_lists_every_status_once() {
        for exit in
            [Exit::Done, Exit::Contradicted, Exit::NoResult, Exit::Deviated, Exit::Waiting, Exit::Usage]
        {
            let row = format!("\n  {:<4}", exit.code());
            assert_eq!(TABLE.matches(&row).count(), 1, "{exit:?} has one row: {TABLE}");
        }
    }
}
