//! [`Advice`]: what the caller does next, the one answer every verdict and every refusal gives.
//! It sits below the verdicts and the violations that both answer with it.

/// What the caller should do next. The one question every verdict answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Advice {
    /// Nothing is wrong yet: keep observing (the task may be honest but slow).
    KeepObserving,
    /// The claim holds: go on relying on it.
    Proceed,
    /// A transport fault: retry the call with backoff. Says nothing about the card.
    Retry,
    /// The stream ended in a terminal state without artifacts: call `GetTask` once to learn
    /// whether the artifacts exist (that result settles the streaming claim).
    ConfirmWithGetTask,
    /// The card over-declared: do not retry this task against this agent, mark the card
    /// capability-suspect, and use a single-shot `SendMessage` with no expectation of
    /// intermediate states.
    FallBackToSingleShot,
    /// Abandon the task; do not retry it, because a retry reproduces the same divergence.
    Abandon,
}
