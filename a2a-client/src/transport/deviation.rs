//! Wire deviations read under [`WireReading::Tolerant`](crate::WireReading::Tolerant): which call,
//! which event, which JSON path, what came and how it was read.

use std::fmt;
use std::sync::Mutex;

use a2a_typestate_types::tolerant::{self, Deviation, DeviationKind};
use serde_json::Value;

/// One deviation from the 1.0 wire format an agent sent, read anyway: the call that received it,
/// the event's number on that call's stream (1 for the first event; `None` for a plain answer),
/// and the deviation with its JSON path within the received document (a JSON-RPC answer's paths
/// start at `result`).
///
/// Deviations say how an agent writes the protocol, never whether its card lies: they are kept
/// apart from claim verdicts.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WireDeviation {
    /// The operation that received it (`SendStreamingMessage`, `GetTask`, ...).
    pub call: &'static str,
    /// The event's number on the call's stream, counted from 1; `None` for a non-streaming answer.
    pub event: Option<u64>,
    /// What deviated, where, and how it was read.
    pub deviation: Deviation,
}

impl WireDeviation {
    /// The kind of deviation.
    pub fn kind(&self) -> DeviationKind {
        self.deviation.kind
    }

    /// The JSON path of the deviating value.
    pub fn path(&self) -> &str {
        &self.deviation.path
    }
}

impl fmt::Display for WireDeviation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.event {
            Some(n) => write!(f, "{} event #{n}, {}", self.call, self.deviation),
            None => write!(f, "{} answer, {}", self.call, self.deviation),
        }
    }
}

/// What a document is, for reading it tolerantly.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    StreamResponse,
    SendMessageResponse,
    Task,
}

/// An answer type, with the 1.0 shape tolerant reading rewrites it into before the strict parse
/// (none: it is read as it is). The type says it, so no call names its shape by hand.
pub(crate) trait Tolerated: serde::de::DeserializeOwned {
    const SHAPE: Option<Shape> = None;
}

impl Tolerated for a2a_typestate_types::SendMessageResponse {
    const SHAPE: Option<Shape> = Some(Shape::SendMessageResponse);
}
impl Tolerated for a2a_typestate_types::Task {
    const SHAPE: Option<Shape> = Some(Shape::Task);
}
impl Tolerated for a2a_typestate_types::ListTasksResponse {}
impl Tolerated for a2a_typestate_types::AgentCard {}
impl Tolerated for a2a_typestate_types::TaskPushNotificationConfig {}
impl Tolerated for a2a_typestate_types::ListTaskPushNotificationConfigsResponse {}

/// The deviations read on one connection, in the order they were read. Clones share them (the
/// views of one connection do).
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviationLog {
    read: std::sync::Arc<Mutex<Vec<WireDeviation>>>,
}

/// Most deviations kept per connection: a hostile agent cannot grow the log without bound.
const MAX_KEPT: usize = 1000;

impl DeviationLog {
    /// Rewrites `value` (of `shape`, found at `prefix` in the received document) into the 1.0
    /// shape and records what was rewritten, against `call` and `event`.
    pub(crate) fn tolerate(
        &self,
        call: &'static str,
        event: Option<u64>,
        shape: Shape,
        prefix: &str,
        value: &mut Value,
    ) {
        let found = match shape {
            Shape::StreamResponse => tolerant::stream_response(value),
            Shape::SendMessageResponse => tolerant::send_message_response(value),
            Shape::Task => tolerant::task(value),
        };
        if found.is_empty() {
            return;
        }
        let mut read = self.read.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for deviation in found {
            tracing::debug!(call, ?event, %deviation, "wire deviation read tolerantly");
            if read.len() < MAX_KEPT {
                read.push(WireDeviation { call, event, deviation: deviation.within(prefix) });
            }
        }
    }

    /// Records one deviation found without a rewrite here: in the card the connection was opened
    /// on, or in a 0.3 HTTP+JSON answer (event `event` of a stream; `None` for a plain answer).
    pub(crate) fn record(&self, call: &'static str, event: Option<u64>, deviation: Deviation) {
        tracing::debug!(call, ?event, %deviation, "wire deviation read tolerantly");
        let mut read = self.read.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if read.len() < MAX_KEPT {
            read.push(WireDeviation { call, event, deviation });
        }
    }

    /// Everything recorded so far.
    pub(crate) fn all(&self) -> Vec<WireDeviation> {
        self.read.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}
