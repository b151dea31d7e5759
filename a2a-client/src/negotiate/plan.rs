//! What the caller asks of a negotiated task: the capabilities its path depends on, how the agent is
//! reached, and how to answer the agent when it asks for input.

use std::fmt;
use std::sync::Arc;

use a2a_typestate::{Capability, CapabilitySet, Deployment};
use a2a_typestate_types::{ContextId, Message, TaskId, TaskState};

use crate::webhook::PushReceiver;

/// How many messages of history the client asks for when it relies on the agent's history: 100.
pub const DEFAULT_HISTORY_LENGTH: u32 = 100;

/// How many follow-up messages one task may take before the client stops answering: 8. Bounds the
/// conversation with an agent that keeps asking.
pub const DEFAULT_MAX_FOLLOW_UPS: u32 = 8;

/// The agent paused the task and asks the client for something (`INPUT_REQUIRED`, or
/// `AUTH_REQUIRED`): what a [`FollowUp`] policy answers.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    /// The paused task.
    pub task_id: TaskId,
    /// Its context: the follow-up carries it with the task id (spec §3.4.3).
    pub context_id: Option<ContextId>,
    /// `INPUT_REQUIRED` or `AUTH_REQUIRED`.
    pub state: TaskState,
    /// What the agent said with the state (its question), if anything.
    pub question: Option<Message>,
}

type Answer = dyn Fn(&InputRequest) -> Option<Message> + Send + Sync;

/// How the client answers an agent that asks for input. The answer's `taskId` and `contextId` are
/// set by the client to the paused task's, so a policy only writes the content.
///
/// ```
/// use a2a_typestate_client::negotiate::FollowUp;
/// use a2a_typestate_types::Message;
///
/// // Always answer with the same text (the design note's observed run needs one clarification).
/// let policy = FollowUp::reply("use metric units");
/// // Or decide from the agent's question.
/// let policy = FollowUp::with(|request| {
///     let asked = request.question.as_ref().and_then(Message::text).unwrap_or_default();
///     (!asked.is_empty()).then(|| Message::user_text(uuid::Uuid::new_v4().to_string(), "yes"))
/// });
/// # let _ = policy;
/// ```
#[derive(Clone, Default)]
pub struct FollowUp {
    answer: Option<Arc<Answer>>,
}

impl FollowUp {
    /// Never answers: a task that asks for input ends the run with the paused task as its result.
    pub fn none() -> Self {
        Self { answer: None }
    }

    /// Answers every request with a text message holding `text`.
    pub fn reply(text: impl Into<String>) -> Self {
        let text = text.into();
        Self::with(move |_| Some(Message::user(text.clone())))
    }

    /// Answers with what `answer` returns; `None` stops answering (the paused task is the result).
    pub fn with(answer: impl Fn(&InputRequest) -> Option<Message> + Send + Sync + 'static) -> Self {
        Self { answer: Some(Arc::new(answer)) }
    }

    /// The follow-up message for `request`, with its task and context ids set, or `None` (the
    /// send gives it a random id when the policy wrote none).
    pub(crate) fn answer(&self, request: &InputRequest) -> Option<Message> {
        let answer = self.answer.as_ref()?;
        let mut message = answer(request)?;
        message.task_id = Some(request.task_id.clone());
        message.context_id = request.context_id.clone();
        Some(message)
    }
}

impl fmt::Debug for FollowUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FollowUp").field("answers", &self.answer.is_some()).finish()
    }
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

    /// Sets the webhook receiver push callbacks come to (default: each run that depends on push
    /// starts its own on the configured webhook address). Share one when that address is a fixed
    /// port behind a public URL, so concurrent runs do not compete for it.
    #[must_use]
    pub fn push_receiver(mut self, receiver: Arc<PushReceiver>) -> Self {
        self.push_receiver = Some(receiver);
        self
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
