//! Why a task was not sent to an agent the availability breaker holds unavailable (see
//! [`Breaker`](crate::Breaker)): data of the error, so it lives beside it.

use std::fmt;
use std::time::Duration;

use a2a_typestate_types::human::HumanDuration;

/// An agent the breaker holds unavailable: why, and when a task may probe it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    pub(crate) failures: u32,
    pub(crate) evidence: String,
    pub(crate) reopens_in: Duration,
    pub(crate) probing: bool,
    pub(crate) opened_by: Option<String>,
}

impl Unavailable {
    /// Tasks in a row that ended in a transport fault before it opened (as the replica that opened
    /// it counted them).
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// The last transport fault, in words.
    pub fn evidence(&self) -> &str {
        &self.evidence
    }

    /// How long until a task may probe the agent.
    pub fn reopens_in(&self) -> Duration {
        self.reopens_in
    }

    /// Whether a probe is under way (the cool-down is over; its answer decides).
    pub fn is_probing(&self) -> bool {
        self.probing
    }

    /// The replica that opened it, when another replica did and it had a name.
    pub fn opened_by(&self) -> Option<&str> {
        self.opened_by.as_deref()
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the availability breaker is open after {} tasks in a row ended in a transport fault",
            self.failures
        )?;
        if let Some(replica) = &self.opened_by {
            write!(f, " (on replica {replica})")?;
        }
        write!(f, "; the last: {}; ", self.evidence)?;
        if self.probing {
            write!(f, "a probe is under way, decided within {}", HumanDuration(self.reopens_in))
        } else {
            write!(f, "one task probes it in {}", HumanDuration(self.reopens_in))
        }
    }
}
