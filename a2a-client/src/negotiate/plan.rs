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
/// The default is [`FollowToEnd`](Self::FollowToEnd): the work runs once and its answer is kept.
/// Choose [`SendAgain`](Self::SendAgain) when a fresh single-shot run is worth a second execution,
/// and [`EndWithRefusal`](Self::EndWithRefusal) when the caller would rather decide itself (the
/// task's id is in the result).
///
/// ```
/// use a2a_typestate_client::negotiate::{AfterRefusal, Negotiation};
/// use a2a_typestate_client::Capability;
///
/// let negotiation = Negotiation::depending_on(&[Capability::PushNotifications])
///     .after_refusal(AfterRefusal::EndWithRefusal);
/// # let _ = negotiation;
/// assert_eq!(AfterRefusal::default(), AfterRefusal::FollowToEnd);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AfterRefusal {
    /// Follows the refused task to its end with `GetTask` polling, within the task deadline,
    /// checking no claim on the way, and keeps what it ended in
    /// ([`TaskPath::KeptAfterRefusal`](super::TaskPath::KeptAfterRefusal)): the work runs once, and
    /// its answer is the outcome's. The refusal (and the agent's suspect mark) stands: it is about
    /// the card's claim, not the task.
    #[default]
    FollowToEnd,
    /// Asks the agent to cancel the refused task (`CancelTask`, best effort) so it does not run on
    /// beside the new one, then sends the message again with one single-shot `SendMessage`
    /// ([`TaskPath::Fallback`](super::TaskPath::Fallback)): a second run of the work on the agent,
    /// so [`TaskOutcome::may_have_run_twice`](super::TaskOutcome::may_have_run_twice) is `true`.
    /// The cancel stops the first run; it cannot undo what that run did before it arrived. When
    /// the cancel's answer (or, if the agent says the task can no longer be canceled, one
    /// `GetTask`) shows the task ended on its own in the meantime, its result is kept and nothing
    /// is sent ([`TaskPath::KeptAfterRefusal`](super::TaskPath::KeptAfterRefusal)).
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
/// # What each choice costs
///
/// Requests are those of one task that completes without asking for input; latency is past the
/// agent's own time.
///
/// | Negotiation | Requests | Latency past the task's end | What it checks |
/// |---|---|---|---|
/// | [`default()`](Self::default) | the stream when the card claims it: one `SendStreamingMessage` (one `GetTask` more when the stream ends without its artifacts); else as `depending_on(&[])` | none on a stream | the streaming claim, when made |
/// | `depending_on(&[])` | one `SendMessage`, then one `GetTask` per poll (every 0.5 s, growing to 2 s by default: [`PollCadence`](crate::PollCadence)) | up to one poll interval | nothing |
/// | `depending_on(&[Streaming])` | as the default; on a card that does not claim it, one stream attempt first (an agent that streams anyway is used) | none on a stream | the streaming claim |
/// | `+ StateTransitionHistory` | one `GetTask` with `historyLength` at the end | one round trip | the history claim |
/// | `+ PushNotifications` | the webhook config inline in the first send, one `GetTaskPushNotificationConfig` | up to the push arrival bound when no callback comes | the push claim |
///
/// A refusal adds what its [`AfterRefusal`] says (by default `GetTask` polls until the refused
/// task ends), and an agent marked suspect costs one `SendMessage` and nothing else.
///
/// ```
/// use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
/// use a2a_typestate_client::Capability;
///
/// let negotiation = Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory])
///     .follow_up(FollowUp::reply("metric"));
/// assert!(negotiation.depends().contains(Capability::Streaming));
/// // The default streams when the card claims it, and checks that claim.
/// assert!(Negotiation::default().depends().contains(Capability::Streaming));
/// ```
#[derive(Clone, Debug)]
pub struct Negotiation {
    depends: CapabilitySet,
    /// Whether a stream the card does not claim is tried (the caller depends on it), or the task
    /// is polled at once (the default's "stream when claimed").
    try_unclaimed_stream: bool,
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
    /// Streams when the card claims streaming (and checks that claim), else sends and polls with
    /// `GetTask`: the cheapest path the card offers, since a stream ends the wait the moment the
    /// task does, and a poll only at its next interval.
    fn default() -> Self {
        Self { try_unclaimed_stream: false, ..Self::depending_on(&[Capability::Streaming]) }
    }
}

impl Negotiation {
    /// A negotiation whose path depends on `capabilities` (streaming: updates come on a stream;
    /// history: missed states are rebuilt from `GetTask`; push: updates come to a webhook).
    pub fn depending_on(capabilities: &[Capability]) -> Self {
        Self {
            depends: CapabilitySet::of(capabilities),
            try_unclaimed_stream: true,
            deployment: Deployment::Direct,
            accepted_output_modes: Vec::new(),
            follow_up: FollowUp::none(),
            history_length: DEFAULT_HISTORY_LENGTH,
            max_follow_ups: DEFAULT_MAX_FOLLOW_UPS,
            push_receiver: None,
            on_update: None,
            after_refusal: AfterRefusal::FollowToEnd,
        }
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

    /// Sets what a refused task that had not ended gets (default [`AfterRefusal::FollowToEnd`]). A
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

    /// Whether a stream the card does not claim is tried before polling.
    pub(crate) fn tries_unclaimed_stream(&self) -> bool {
        self.try_unclaimed_stream
    }
}
