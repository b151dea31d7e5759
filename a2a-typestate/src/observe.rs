//! What the client observed about a task: the verifier's only input.
//!
//! ```
//! use a2a_typestate_types::{TaskId, TaskState};
//! use a2a_typestate::{Call, Channel, ExchangeModes, Observed, TransportFault};
//!
//! // One value per thing seen; the client passes the elapsed time beside it.
//! let seen = [
//!     Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None },
//!     Observed::Status {
//!         task_id: TaskId::new("t1"), context_id: None, state: TaskState::Working, message: None,
//!         via: Channel::Stream, artifacts: None,
//!     },
//!     Observed::TransportFault { call: Call::SendStreamingMessage, fault: TransportFault::Reset },
//! ];
//! assert_eq!(seen[2].to_string(), "connection reset on SendStreamingMessage");
//! ```
//!
//! Plain data with no I/O and no clock: the client (which does the I/O) builds an [`Observed`]
//! for each thing it saw and passes the elapsed time since the task handle was created. Everything
//! the three refusal conditions need is here: the states and artifacts and through which channel
//! they came, the history `GetTask` returned, push callbacks, the agent's protocol errors and the
//! call that got them, transport faults, and the media types of each message sent (condition 3).

use std::fmt;
use std::time::Duration;

use a2a_typestate_types::{ContextId, MessageId, TaskId, TaskState};

use crate::media_type::{media_type_covers, media_type_matches};

/// Time elapsed since the task handle was created: the clock is an input, never read here.
pub type Elapsed = Duration;

/// Through which channel an observation arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// The response to a (blocking or `returnImmediately`) `SendMessage`.
    SendResponse,
    /// An event on a `SendStreamingMessage` or `SubscribeToTask` stream.
    Stream,
    /// A `GetTask` result.
    GetTask,
    /// A push callback POSTed to the client's webhook.
    Push,
}

/// The A2A operation a protocol error answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Call {
    /// `SendMessage`.
    SendMessage,
    /// `SendStreamingMessage`.
    SendStreamingMessage,
    /// `SubscribeToTask`.
    SubscribeToTask,
    /// `GetTask`.
    GetTask,
    /// `CancelTask`.
    CancelTask,
    /// `Create`/`Get`/`List`/`DeleteTaskPushNotificationConfig`, or `SendMessage` carrying a
    /// `taskPushNotificationConfig`.
    PushNotificationConfig,
}

impl Call {
    /// `true` for the calls that exercise a streaming claim.
    pub fn is_streaming(self) -> bool {
        matches!(self, Self::SendStreamingMessage | Self::SubscribeToTask)
    }
}

/// A fault below the protocol: evidence about the network, never about the card. The one
/// transport-fault type of the workspace: the client reports its errors in these words too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportFault {
    /// The connection could not be opened.
    Connect,
    /// A bound ran out: connect, request, or SSE idle.
    Timeout,
    /// The connection broke after it was opened (reset, body cut short).
    Reset,
    /// A stream ended in the middle of an event: the agent or an intermediary dropped it.
    Truncated,
    /// An intermediary or the agent reported itself unavailable: HTTP 502, 503 or 504.
    Unavailable(u16),
    /// Any other fault below HTTP (TLS, redirect loop...). Not retried: repeating it changes nothing.
    Other,
}

impl TransportFault {
    /// Whether repeating the request can reasonably succeed.
    pub fn is_retryable(self) -> bool {
        !matches!(self, TransportFault::Other)
    }
}

impl fmt::Display for TransportFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportFault::Connect => f.write_str("connection failed"),
            TransportFault::Timeout => f.write_str("timed out"),
            TransportFault::Reset => f.write_str("connection reset"),
            TransportFault::Truncated => f.write_str("stream ended mid-event"),
            TransportFault::Unavailable(status) => write!(f, "service unavailable (http {status})"),
            TransportFault::Other => f.write_str("transport error"),
        }
    }
}

/// The media types a message exchange used: what reaches condition 3 of the refusal rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExchangeModes {
    /// The media types of the parts the client sent (`text/plain` for a text part without one).
    pub input: Vec<String>,
    /// The `acceptedOutputModes` the client asked for (empty: any).
    pub accepted_output: Vec<String>,
}

impl ExchangeModes {
    /// An exchange sending `input` media types and accepting `accepted_output` (empty: any).
    pub fn new<I, O>(input: I, accepted_output: O) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
        O: IntoIterator,
        O::Item: Into<String>,
    {
        Self {
            input: input.into_iter().map(Into::into).collect(),
            accepted_output: accepted_output.into_iter().map(Into::into).collect(),
        }
    }

    /// A plain-text message accepting any output: the common case.
    pub fn text() -> Self {
        Self::new(["text/plain"], std::iter::empty::<String>())
    }

    /// `true` when the card's default modes made this exchange reachable: every input media type
    /// matches one of `default_input`, and the accepted outputs (if any were named) overlap
    /// `default_output`, media types compared by meaning ([`media_type_covers`],
    /// [`media_type_matches`]).
    pub fn reachable_through(&self, default_input: &[String], default_output: &[String]) -> bool {
        let inputs_declared = !self.input.is_empty()
            && self.input.iter().all(|used| default_input.iter().any(|d| media_type_covers(d, used)));
        let outputs_declared = self.accepted_output.is_empty()
            || self
                .accepted_output
                .iter()
                .any(|used| default_output.iter().any(|d| media_type_matches(d, used)));
        inputs_declared && outputs_declared
    }
}

/// How the answer that exercised a claim was reached: what clause 3 reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach<'a> {
    /// The agent's own answer to the claim's own call: evidence whatever the modes.
    OwnCall,
    /// A transition that followed a message exchange with these modes; `None` when no sent message
    /// is on record.
    Exchange(Option<&'a ExchangeModes>),
}

/// One thing the client observed about a task.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Observed {
    /// The client sent a message: the first one, or a follow-up to the task. Its media types
    /// decide whether what follows was reachable through the card's default modes.
    MessageSent {
        /// The media types the message used and the output it accepts.
        modes: ExchangeModes,
        /// The task it continues (`None` for a first message).
        task_id: Option<TaskId>,
        /// The context it continues.
        context_id: Option<ContextId>,
    },
    /// A task status, with the task's artifact count when a whole `Task` came with it.
    Status {
        /// The task.
        task_id: TaskId,
        /// Its context, when the update carries one.
        context_id: Option<ContextId>,
        /// The state reported.
        state: TaskState,
        /// The id of the status message the agent sent with the state (its question, when it asks
        /// for input), if any: the same state with the same message is no progress.
        message: Option<MessageId>,
        /// Through which channel.
        via: Channel,
        /// The number of artifacts in the `Task` snapshot, if this was a whole `Task` (a status
        /// update event carries none).
        artifacts: Option<usize>,
    },
    /// An artifact update (a `TaskArtifactUpdateEvent`).
    Artifact {
        /// Through which channel.
        via: Channel,
    },
    /// The stream closed cleanly (not cut: a cut is a [`TransportFault`]).
    StreamClosed,
    /// `GetTask` returned the task's history, which the client relied on to reconstruct states
    /// it missed.
    History {
        /// The `historyLength` asked for (`Some(0)` asks for none: nothing is relied on).
        requested_length: Option<u32>,
        /// How many messages came back.
        entries: usize,
    },
    /// The webhook the client is about to register is out of the agent's reach as far as the
    /// addresses say (a loopback or private webhook, an agent elsewhere): no callback there is
    /// evidence of nothing.
    WebhookOutOfReach,
    /// The client's webhook receiver turned connections away (at its connection or body limit)
    /// while the task waited for a callback: one may have been lost on the client's side, so the
    /// absence of a callback is no evidence.
    ReceiverTurnedAway,
    /// The client registered a push-notification config for the task (inline in `SendMessage` or
    /// with `CreateTaskPushNotificationConfig`) and the agent accepted it.
    PushRegistered,
    /// The agent accepted a push config but does not hold it: `GetTaskPushNotificationConfig`
    /// for the task does not return it. The registration before it no longer counts; callbacks are
    /// awaited only for a later [`Observed::PushRegistered`].
    PushDropped,
    /// An authenticated push callback for the task arrived at the client's webhook.
    PushCallback {
        /// The state it reported, if it carried one.
        state: Option<TaskState>,
    },
    /// A message from the agent, within a task, arrived through `via`: part of the task's answer
    /// (agents that stream their answer as messages rather than an artifact).
    AgentMessage {
        /// Through which channel.
        via: Channel,
    },
    /// The agent answered a call with an HTTP error outside the protocol's error model (no A2A or
    /// JSON-RPC error in the body: a framework's own 400, a 404 or 405): the call is not served
    /// there.
    CallFailed {
        /// The call it answered.
        call: Call,
        /// The HTTP status.
        status: u16,
    },
    /// The agent answered a call with an A2A / JSON-RPC error.
    AgentError {
        /// The call it answered.
        call: Call,
        /// The error code (`-32004`, `-32003`, ...).
        code: i32,
    },
    /// The agent answered a check made in the binding of the calls before it (a `GetTask` for a
    /// task id no one assigned) with its own error `code` (its "task not found"): it speaks this
    /// binding, so a "method not found" there is about the method.
    BindingUnderstood {
        /// The check's call.
        call: Call,
        /// The error code it answered.
        code: i32,
    },
    /// A transport fault on some call: retryable, never a refusal.
    TransportFault {
        /// The call it hit.
        call: Call,
        /// What happened.
        fault: TransportFault,
    },
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MessageSent { modes, .. } => write!(f, "message sent with input {:?}", modes.input),
            Self::Status { state, via, artifacts: Some(n), .. } => {
                write!(f, "{state} with {n} artifact(s) via {via:?}")
            }
            Self::Status { state, via, .. } => write!(f, "{state} via {via:?}"),
            Self::Artifact { via } => write!(f, "artifact update via {via:?}"),
            Self::StreamClosed => f.write_str("stream closed"),
            Self::History { entries, .. } => write!(f, "GetTask history with {entries} message(s)"),
            Self::WebhookOutOfReach => f.write_str("webhook out of the agent's reach"),
            Self::ReceiverTurnedAway => f.write_str("the webhook receiver turned connections away"),
            Self::PushRegistered => f.write_str("push config accepted by the agent"),
            Self::PushDropped => {
                f.write_str("push config dropped (GetTaskPushNotificationConfig does not return it)")
            }
            Self::PushCallback { .. } => f.write_str("push callback"),
            Self::AgentMessage { via } => write!(f, "agent message via {via:?}"),
            Self::CallFailed { call, status } => write!(f, "http {status} on {call:?}"),
            Self::AgentError { call, code } => write!(f, "error {code} on {call:?}"),
            Self::BindingUnderstood { call, code } => {
                write!(f, "error {code} on {call:?}: the agent speaks this binding")
            }
            Self::TransportFault { call, fault } => write!(f, "{fault} on {call:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exchange_is_reachable_only_when_every_input_type_is_declared() {
        let declared_in = modes(&["text/plain", "application/json"]);
        let declared_out = modes(&["text/plain"]);
        assert!(ExchangeModes::text().reachable_through(&declared_in, &declared_out));
        let image = ExchangeModes::new(["text/plain", "image/png"], ["text/plain"]);
        assert!(!image.reachable_through(&declared_in, &declared_out));
    }

    #[test]
    fn exchange_accepting_only_undeclared_outputs_is_not_reachable() {
        let declared = modes(&["text/plain"]);
        let wants_audio = ExchangeModes::new(["text/plain"], ["audio/mpeg"]);
        assert!(!wants_audio.reachable_through(&declared, &declared));
        let wants_either = ExchangeModes::new(["text/plain"], ["audio/mpeg", "text/plain"]);
        assert!(wants_either.reachable_through(&declared, &declared));
    }

    #[test]
    fn a_card_declaring_no_input_modes_makes_nothing_reachable() {
        assert!(!ExchangeModes::text().reachable_through(&[], &[]));
    }
}
