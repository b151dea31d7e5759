//! Permits: the values a gated operation hands the client, which needs one to make the call.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_typestate::{Bounds, CadenceBasis, CardClaims, Claims, Deployment, DynHandle, Handle};
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"], "capabilities": {}}"#)?;
//! let handle = DynHandle::new(Arc::new(CardClaims::lift(&card, Deployment::Direct)), Bounds::default());
//! let task: Handle<Claims> = Handle::try_from(handle)?;
//! // No streaming and no declared cadence: poll at the client's own bounded interval.
//! let poll = task.poll_permit();
//! assert_eq!(poll.basis(), CadenceBasis::Client);
//! // `task.stream_permit()` would not compile: this handle holds no streaming claim.
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The handle does no I/O. A method such as [`Handle::stream_permit`](crate::Handle::stream_permit)
//! exists only on handles whose type holds the claim, and returns a permit with the ids the call
//! needs. Code whose streaming, `GetTask`-with-history and push-registration calls take the permit
//! as an argument cannot even write a call the card never claimed. Permits have private fields and
//! no public constructor.

use std::time::Duration;

use a2a_typestate_types::{ContextId, TaskId};

use crate::capability::Capability;

/// Permission to open a stream: `SendStreamingMessage`, or `SubscribeToTask` once the task exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamPermit {
    pub(crate) task_id: Option<TaskId>,
    pub(crate) context_id: Option<ContextId>,
    pub(crate) verified: bool,
}

impl StreamPermit {
    /// The task to `SubscribeToTask` to; `None` before the agent assigned one (send a streaming
    /// message instead).
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    /// The task's context, to carry in a follow-up message.
    pub fn context_id(&self) -> Option<&ContextId> {
        self.context_id.as_ref()
    }

    /// `true` while the claim is unverified: if the stream ends in a terminal state without an
    /// artifact, confirm with one `GetTask` and feed its result to the verifier.
    pub fn must_confirm_artifacts(&self) -> bool {
        !self.verified
    }
}

/// Permission to call `GetTask` for the task's history and reconstruct states the client missed.
/// Feed the result as [`Observed::History`](crate::Observed::History).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryPermit {
    pub(crate) task_id: Option<TaskId>,
}

impl HistoryPermit {
    /// The task whose history to fetch; `None` before the agent assigned one.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }
}

/// Permission to register a push-notification config (inline in `SendMessage` or with
/// `CreateTaskPushNotificationConfig`). Feed the acceptance as
/// [`Observed::PushRegistered`](crate::Observed::PushRegistered), then each callback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushPermit {
    pub(crate) task_id: Option<TaskId>,
    pub(crate) arrival_bound: Duration,
}

impl PushPermit {
    /// The task to register for; `None` means register inline with the first `SendMessage`.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    /// How long to wait for the first callback before telling the verifier time has passed.
    pub fn arrival_bound(&self) -> Duration {
        self.arrival_bound
    }
}

/// Permission to send on a tracked handle with `SendMessage` (blocking, or `returnImmediately`
/// followed by polling with a [`PollPermit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendPermit {
    pub(crate) task_id: Option<TaskId>,
    pub(crate) context_id: Option<ContextId>,
}

impl SendPermit {
    /// The task a follow-up continues (`None` for a first message).
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    /// The context a follow-up continues.
    pub fn context_id(&self) -> Option<&ContextId> {
        self.context_id.as_ref()
    }
}

/// Where a poll interval comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CadenceBasis {
    /// The card declared it (poll-cadence extension).
    Card,
    /// The card gave no basis; the client's own bounded interval applies.
    Client,
}

/// How to poll `GetTask` for this task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollPermit {
    pub(crate) interval: Duration,
    pub(crate) basis: CadenceBasis,
}

impl PollPermit {
    /// The interval between polls.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Whether the card or the client set the interval.
    pub fn basis(&self) -> CadenceBasis {
        self.basis
    }
}

/// The lifecycle-agnostic fallback: one blocking `SendMessage` (no streaming, no push config, no
/// `returnImmediately`), with no expectation of intermediate states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleShotSend {
    pub(crate) _private: (),
}

/// Permission to rely on a verified claim: drop the safety net the client keeps while a claim is
/// unverified (streaming: no `GetTask` confirmation of artifacts and no poll fallback; history:
/// no local transcript beside the agent's; push: no polling beside the webhook).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reliance {
    pub(crate) capability: Capability,
}

impl Reliance {
    /// The verified capability relied on.
    pub fn capability(&self) -> Capability {
        self.capability
    }
}
