//! What the caller asks of a negotiated task: the capabilities its path depends on, how the agent is
//! reached, and how to answer the agent when it asks for input.

use std::sync::Arc;

use a2a_typestate::{Capability, CapabilitySet, Deployment};

use crate::task::OnUpdate;
use crate::task::follow_up::{DEFAULT_HISTORY_LENGTH, DEFAULT_MAX_FOLLOW_UPS, FollowUp};
use crate::webhook::PushReceiver;

/// What [`Client::run_task`](crate::Client::run_task) does with a refused task that had **not**
/// ended: the agent accepted the task, a claim it depends on was refused before the task reached a
/// terminal state, and its result is not known. (A refused task that had ended keeps its result
/// whatever this says: sending it again would run finished work a second time. A refusal before the
/// agent accepted any task sends the message single-shot whatever this says: that send is the
/// work's first run.)
///
/// The default is [`SendAgain`](Self::SendAgain): the caller asked for a result, and the
/// single-shot send is the path the refusal rules leave. Choose
/// [`EndWithRefusal`](Self::EndWithRefusal) when running the work twice costs more than not
/// getting a result (a payment, an email, a ticket filed).
///
/// ```
/// use a2a_typestate_client::negotiate::{AfterRefusal, Negotiation};
/// use a2a_typestate_client::Capability;
///
/// let negotiation = Negotiation::depending_on(&[Capability::PushNotifications])
///     .after_refusal(AfterRefusal::EndWithRefusal);
/// # let _ = negotiation;
/// assert_eq!(AfterRefusal::default(), AfterRefusal::SendAgain);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AfterRefusal {
    /// Asks the agent to cancel the refused task (`CancelTask`, best effort) so it does not run on
    /// beside the new one, then sends the message again with one single-shot `SendMessage`
    /// ([`TaskPath::Fallback`](super::TaskPath::Fallback)): a second run of the work on the agent,
    /// so [`TaskOutcome::may_have_run_twice`](super::TaskOutcome::may_have_run_twice) is `true`.
    /// The cancel stops the first run; it cannot undo what that run did before it arrived. When
    /// the cancel's answer (or, if the agent says the task can no longer be canceled, one
    /// `GetTask`) shows the task ended on its own in the meantime, its result is kept and nothing
    /// is sent ([`TaskPath::KeptAfterRefusal`](super::TaskPath::KeptAfterRefusal)).
    #[default]
    SendAgain,
    /// Ends the run with the refusal and the task as last seen
    /// ([`TaskPath::EndedWithRefusal`](super::TaskPath::EndedWithRefusal)): nothing is sent again
    /// and nothing is canceled. The agent may still be working on the task; its id is in the
    /// result, to follow (`AgentConnection::get_task`) or cancel.
    EndWithRefusal,
}

/// What the caller's task depends on and how to reach the agent: the input of
/// [`Client::run_task`](crate::Client::run_task).
///
/// Only claims the card declares **and** the caller depends on are checked (refusal condition 1):
/// depending on less is always safe, and an agent that does more than it declares is used as it is.
///
/// ```
/// use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
/// use a2a_typestate_client::Capability;
///
/// let negotiation = Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory])
///     .follow_up(FollowUp::reply("metric"));
/// assert!(negotiation.depends().contains(Capability::Streaming));
/// ```
#[derive(Clone, Debug)]
pub struct Negotiation {
    depends: CapabilitySet,
    deployment: Deployment,
    accepted_output_modes: Vec<String>,
    follow_up: FollowUp,
    history_length: u32,
    max_follow_ups: u32,
    push_receiver: Option<Arc<PushReceiver>>,
    on_update: Option<OnUpdate>,
    after_refusal: AfterRefusal,
}

impl Default for Negotiation {
    /// Depends on nothing: a blocking-free send polled with `GetTask`.
    fn default() -> Self {
        Self {
            depends: CapabilitySet::EMPTY,
            deployment: Deployment::Direct,
            accepted_output_modes: Vec::new(),
            follow_up: FollowUp::none(),
            history_length: DEFAULT_HISTORY_LENGTH,
            max_follow_ups: DEFAULT_MAX_FOLLOW_UPS,
            push_receiver: None,
            on_update: None,
            after_refusal: AfterRefusal::SendAgain,
        }
    }
}

impl Negotiation {
    /// A negotiation whose path depends on `capabilities` (streaming: updates come on a stream;
    /// history: missed states are rebuilt from `GetTask`; push: updates come to a webhook).
    pub fn depending_on(capabilities: &[Capability]) -> Self {
        Self { depends: CapabilitySet::of(capabilities), ..Self::default() }
    }

    /// Sets how the agent is reached: [`Deployment::Gateway`] means its card describes a gateway
    /// and no claim is checked.
    #[must_use]
    pub fn deployment(mut self, deployment: Deployment) -> Self {
        self.deployment = deployment;
        self
    }

    /// Sets the `acceptedOutputModes` sent with every message (empty: any). They take part in
    /// refusal condition 3.
    #[must_use]
    pub fn accepted_output_modes(mut self, modes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.accepted_output_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets how input requests are answered (default: [`FollowUp::none`]).
    #[must_use]
    pub fn follow_up(mut self, follow_up: FollowUp) -> Self {
        self.follow_up = follow_up;
        self
    }

    /// Sets the `historyLength` asked for when the history is relied on (default
    /// [`DEFAULT_HISTORY_LENGTH`]; at least 1, since 0 asks for nothing to rely on).
    #[must_use]
    pub fn history_length(mut self, length: u32) -> Self {
        self.history_length = length.max(1);
        self
    }

    /// Sets how many follow-ups one task may take (default [`DEFAULT_MAX_FOLLOW_UPS`]).
    #[must_use]
    pub fn max_follow_ups(mut self, max: u32) -> Self {
        self.max_follow_ups = max;
        self
    }

    /// Sets the webhook receiver push callbacks come to (default: the client's own, started on the
    /// configured webhook address by the first run that depends on push and shared by every run
    /// after it). Give one to keep a run's callbacks apart from the client's other runs.
    #[must_use]
    pub fn push_receiver(mut self, receiver: Arc<PushReceiver>) -> Self {
        self.push_receiver = Some(receiver);
        self
    }

    /// Calls `on_update` with each update of the task as the run reads it (stream events, send
    /// answers, polled tasks, the fallback's answer), in arrival order: see [`OnUpdate`].
    #[must_use]
    pub fn on_update(mut self, on_update: OnUpdate) -> Self {
        self.on_update = Some(on_update);
        self
    }

    /// Sets what a refused task that had not ended gets (default [`AfterRefusal::SendAgain`]). A
    /// refused task that had ended always keeps its result.
    #[must_use]
    pub fn after_refusal(mut self, after_refusal: AfterRefusal) -> Self {
        self.after_refusal = after_refusal;
        self
    }

    pub(crate) fn after_refusal_policy(&self) -> AfterRefusal {
        self.after_refusal
    }

    pub(crate) fn update_observer(&self) -> Option<&OnUpdate> {
        self.on_update.as_ref()
    }

    /// The capabilities the caller's path depends on.
    pub fn depends(&self) -> CapabilitySet {
        self.depends
    }

    /// How the agent is reached.
    pub fn deployment_kind(&self) -> Deployment {
        self.deployment
    }

    pub(crate) fn accepted(&self) -> &[String] {
        &self.accepted_output_modes
    }

    pub(crate) fn follow_up_policy(&self) -> &FollowUp {
        &self.follow_up
    }

    pub(crate) fn history_len(&self) -> u32 {
        self.history_length
    }

    pub(crate) fn receiver(&self) -> Option<&Arc<PushReceiver>> {
        self.push_receiver.as_ref()
    }

    pub(crate) fn follow_up_budget(&self) -> u32 {
        self.max_follow_ups
    }
}
