//! What a call on a task handle comes back with. An agent's answer that contradicts a claim is not
//! an error (the way a 404 is a response in reqwest, not an `Err`): the call records it, the turn
//! ends, and `settle_*` turns it into the refusal.

use a2a_typestate::AgentCardLifecycleViolation;

/// The outcome of a call that may exercise a claim: what the agent answered, or the contradiction
/// of a claim the handle holds.
///
/// ```
/// use a2a_typestate_client::Answer;
///
/// let answer: Answer<u32> = Answer::Answered(7);
/// assert_eq!(answer.answered(), Some(&7));
/// assert!(answer.contradiction().is_none());
/// ```
#[derive(Clone, Debug)]
pub enum Answer<T> {
    /// The agent answered: the task (or direct message) as last seen, or what was fetched.
    Answered(T),
    /// What the agent did contradicts a claim the handle holds (an explicit "not supported", an
    /// empty history, a stream without the artifact...). The turn ended there; `settle_*` returns
    /// the refusal carrying the single-shot handle, and the task is not to be retried on this agent.
    Contradicted(AgentCardLifecycleViolation),
}

impl<T> Answer<T> {
    /// The answer, unless a claim was contradicted.
    pub fn answered(&self) -> Option<&T> {
        match self {
            Self::Answered(answer) => Some(answer),
            Self::Contradicted(_) => None,
        }
    }

    /// The answer by value, unless a claim was contradicted.
    pub fn into_answered(self) -> Option<T> {
        match self {
            Self::Answered(answer) => Some(answer),
            Self::Contradicted(_) => None,
        }
    }

    /// The contradiction, when the call saw one.
    pub fn contradiction(&self) -> Option<&AgentCardLifecycleViolation> {
        match self {
            Self::Answered(_) => None,
            Self::Contradicted(violation) => Some(violation),
        }
    }

    /// `true` when the call saw a claim contradicted.
    pub fn is_contradicted(&self) -> bool {
        matches!(self, Self::Contradicted(_))
    }
}
