//! The state both task handles share: claim statuses, the lifecycle and the verifier.

use std::fmt;
use std::sync::Arc;

use crate::bounds::Bounds;
use crate::capability::{Capability, ClaimStatus};
use crate::card::CardClaims;
use crate::lifecycle::{FollowUpError, Lifecycle, Step, TransitionError};
use crate::observe::{Channel, Elapsed, Observed};
use crate::permit::{CadenceBasis, HistoryPermit, PollPermit, PushPermit, SendPermit, StreamPermit};
use crate::verdict::{Pending, PendingReason, Verdict};
use crate::verify::Verifier;
use crate::violation::AgentCardLifecycleViolation;

/// The state shared by the typed and the dynamic handle. `slots` is `None` for a single-shot
/// handle; otherwise the runtime mirror of the type parameter.
#[derive(Debug)]
pub(crate) struct HandleState {
    pub(crate) slots: Option<[ClaimStatus; 3]>,
    pub(crate) lifecycle: Lifecycle,
    pub(crate) verifier: Verifier,
}

impl HandleState {
    pub(crate) fn new(card: Arc<CardClaims>, bounds: Bounds) -> Self {
        let declared = card.declared();
        let slots = Capability::ALL
            .map(|c| if declared.contains(c) { ClaimStatus::Claimed } else { ClaimStatus::Unclaimed });
        Self {
            slots: Some(slots),
            lifecycle: Lifecycle::new(),
            verifier: Verifier::new(card, declared, bounds),
        }
    }

    pub(crate) fn status(&self, capability: Capability) -> ClaimStatus {
        let index = Capability::ALL.iter().position(|c| *c == capability).unwrap_or(0);
        self.slots.and_then(|s| s.get(index).copied()).unwrap_or(ClaimStatus::Unclaimed)
    }

    pub(crate) fn set_slots(&mut self, slots: Option<[ClaimStatus; 3]>) {
        self.slots = slots;
        let held =
            Capability::ALL.into_iter().filter(|c| self.status(*c) != ClaimStatus::Unclaimed).collect();
        self.verifier.set_depends_on(held);
    }

    pub(crate) fn set_status(&mut self, capability: Capability, status: ClaimStatus) {
        if let Some(mut slots) = self.slots {
            if let Some(index) = Capability::ALL.iter().position(|c| *c == capability)
                && let Some(slot) = slots.get_mut(index)
            {
                *slot = status;
            }
            self.set_slots(Some(slots));
        }
    }

    pub(crate) fn observe(&mut self, at: Elapsed, observed: Observed) -> Result<Option<Step>, ObserveError> {
        let result = match &observed {
            Observed::Status { task_id, context_id, state, via, .. } => {
                match self.lifecycle.advance(task_id, context_id.as_ref(), *state) {
                    Ok(step) => Ok(Some(step)),
                    // Push is at-least-once and unordered: an old delivery is no protocol deviation.
                    Err(err) if *via == Channel::Push && !err.rule.is_about_identity() => {
                        Ok(Some(Step::Stale(*state)))
                    }
                    Err(err) => Err(err.into()),
                }
            }
            Observed::MessageSent { task_id: Some(task_id), context_id, .. } => match context_id {
                Some(context_id) => {
                    self.lifecycle.follow_up(task_id, context_id).map(|()| None).map_err(Into::into)
                }
                None => Err(ObserveError::FollowUp(FollowUpError::MissingContextId)),
            },
            _ => Ok(None),
        };
        // The verifier records everything, disallowed transitions included: they are evidence too.
        self.verifier.observe(at, observed);
        result
    }

    pub(crate) fn settle(&mut self, capability: Capability, now: Elapsed) -> Outcome {
        match self.verifier.verdict(capability, now) {
            Some(Verdict::Verified(_)) => {
                self.set_status(capability, ClaimStatus::Verified);
                Outcome::Verified
            }
            Some(Verdict::Refused(violation)) => Outcome::Refused(violation),
            Some(Verdict::Pending(pending)) => Outcome::Pending(pending),
            None => Outcome::Pending(Pending::new(PendingReason::NotExercised)),
        }
    }

    pub(crate) fn stream_permit(&self) -> StreamPermit {
        StreamPermit {
            task_id: self.lifecycle.task_id().cloned(),
            context_id: self.lifecycle.context_id().cloned(),
            verified: self.status(Capability::Streaming) == ClaimStatus::Verified,
        }
    }

    pub(crate) fn history_permit(&self) -> HistoryPermit {
        HistoryPermit { task_id: self.lifecycle.task_id().cloned() }
    }

    pub(crate) fn push_permit(&self) -> PushPermit {
        PushPermit {
            task_id: self.lifecycle.task_id().cloned(),
            arrival_bound: self.verifier.bounds().push_arrival(),
        }
    }

    pub(crate) fn send_permit(&self) -> SendPermit {
        SendPermit {
            task_id: self.lifecycle.task_id().cloned(),
            context_id: self.lifecycle.context_id().cloned(),
        }
    }

    pub(crate) fn poll_permit(&self) -> PollPermit {
        let card_cadence = self.verifier.card().poll_cadence().is_some();
        PollPermit {
            interval: self.verifier.poll_interval(),
            basis: if card_cadence { CadenceBasis::Card } else { CadenceBasis::Client },
        }
    }
}

pub(crate) enum Outcome {
    Verified,
    Pending(Pending),
    Refused(AgentCardLifecycleViolation),
}

/// Why an observation did not fit the task's lifecycle. It is still recorded for the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObserveError {
    /// The agent reported a transition the spec does not allow (a protocol deviation, not a
    /// capability refusal).
    Transition(TransitionError),
    /// The client's follow-up message does not fit the task.
    FollowUp(FollowUpError),
    /// A single-shot handle tracks no lifecycle.
    SingleShot,
}

impl From<TransitionError> for ObserveError {
    fn from(err: TransitionError) -> Self {
        Self::Transition(err)
    }
}

impl From<FollowUpError> for ObserveError {
    fn from(err: FollowUpError) -> Self {
        Self::FollowUp(err)
    }
}

impl fmt::Display for ObserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transition(err) => err.fmt(f),
            Self::FollowUp(err) => err.fmt(f),
            Self::SingleShot => f.write_str("a single-shot task handle tracks no lifecycle"),
        }
    }
}

impl std::error::Error for ObserveError {}
