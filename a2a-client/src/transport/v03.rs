//! Speaking 0.3 (over JSON-RPC or HTTP+JSON) behind the 1.0 API: requests are converted with
//! `from_v1`, results read in the 0.3 shapes and converted with `to_v1`, so callers only see 1.0
//! types.
//!
//! A conversion that loses something never does so silently: each loss is logged at `debug` with the
//! operation, the JSON path and what was lost, and counted on the connection
//! (`AgentConnection::conversion_losses`).

use std::sync::atomic::{AtomicU64, Ordering};

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use a2a_typestate_types::tolerant;
use a2a_typestate_types::v03::{self, ConversionLoss, Converted, proto_json};
use serde_json::Value;

use super::deviation::DeviationLog;
use super::{Decoded, read};
use crate::Error;
use crate::sse::SseEvent;

/// Counts conversion losses and logs each one. Clones share the count (the views of one
/// connection do).
#[derive(Clone, Debug, Default)]
pub(crate) struct LossLog {
    count: std::sync::Arc<AtomicU64>,
}

impl LossLog {
    /// Total losses so far.
    pub(crate) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Counts and logs `losses`, met in `operation` converting in `direction` (`0.3 -> 1.0`).
    pub(crate) fn record(&self, operation: &str, direction: &str, losses: &[ConversionLoss]) {
        if losses.is_empty() {
            return;
        }
        self.count.fetch_add(losses.len() as u64, Ordering::Relaxed);
        for loss in losses {
            tracing::debug!(operation, direction, path = %loss.path, lost = %loss.what, "0.3 conversion loss");
        }
    }

    /// Takes the converted request, recording its losses.
    pub(crate) fn request<T>(&self, operation: &str, converted: Converted<T>) -> T {
        self.record(operation, "1.0 -> 0.3", &converted.losses);
        converted.value
    }

    /// Converts a 0.3 result to 1.0, recording the losses.
    pub(crate) fn result<W, T>(
        &self,
        operation: &'static str,
        wire: &W,
        convert: impl FnOnce(&W) -> Converted<T>,
    ) -> T {
        let converted = convert(wire);
        self.record(operation, "0.3 -> 1.0", &converted.losses);
        converted.value
    }
}

/// Decodes one event of a 0.3 JSON-RPC stream opened with request id `id`: its `result` read as a
/// 0.3 `StreamResult` ([`decoded`]). Under tolerant reading (`tolerant` given: the deviations, the
/// call and the event's number) a result without its `kind` whose members name the object alone
/// is read as that object, a deviation recorded ([`tolerant::v03_missing_kind`]).
pub(crate) fn decode_event(
    log: &LossLog,
    tolerant: Option<(&DeviationLog, &'static str, u64)>,
    event: &SseEvent,
    id: &str,
) -> Result<Decoded, Error> {
    let Some((deviations, call, number)) = tolerant else {
        let wire: v03::StreamResult = super::jsonrpc::event_result(event, id, WHAT)?;
        return Ok(decoded(log, wire));
    };
    let mut value = super::jsonrpc::tolerant_event_result(event, id, deviations, call, number)?;
    missing_kind(Some(deviations), call, Some(number), "result", &mut value);
    Ok(decoded(log, read(WHAT, value)?))
}

/// Under tolerant reading (`deviations` given), puts back the `kind` a 0.3 result (found at
/// `prefix` in the answer to `call`, event `event` of a stream) left out when its members name the
/// object alone, then the `kind` of the messages and parts inside it, then an empty `contextId`
/// where a task or update has none, and records each;
/// nothing otherwise.
pub(crate) fn missing_kind(
    deviations: Option<&DeviationLog>,
    call: &'static str,
    event: Option<u64>,
    prefix: &str,
    value: &mut Value,
) {
    let Some(deviations) = deviations else { return };
    if let Some(deviation) = tolerant::v03_missing_kind(value) {
        deviations.record(call, event, deviation.within(prefix));
    }
    for deviation in tolerant::v03_missing_inner_kinds(value) {
        deviations.record(call, event, deviation.within(prefix));
    }
    if let Some(deviation) = tolerant::v03_missing_context(value) {
        deviations.record(call, event, deviation.within(prefix));
    }
}

/// Decodes one event of a 0.3 HTTP+JSON stream, event `number` of the `call`: its `data` is the
/// 0.3 proto's `StreamResponse` as ProtoJSON, rewritten into the 0.3 result it stands for
/// ([`proto_json::stream_response`]) and [`decoded`] as a JSON-RPC 0.3 event is; an error the agent
/// sent in its place is that error. An event already in the JSON-RPC shape is read as one under
/// tolerant reading (`deviations` given), a deviation recorded, and refused otherwise.
pub(crate) fn decode_rest_event(
    log: &LossLog,
    deviations: Option<&DeviationLog>,
    call: &'static str,
    number: u64,
    event: SseEvent,
) -> Result<Decoded, Error> {
    let mut value = super::rest::event_value(event)?;
    let found = proto_json::stream_response(&mut value).map_err(|e| Error::bad_input(WHAT, e))?;
    accept_read(log, deviations, call, Some(number), WHAT, found)?;
    Ok(decoded(log, read(WHAT, value)?))
}

/// Takes what reading one 0.3 HTTP+JSON answer (or event `event` of a stream) to `call` found: its
/// losses recorded; an answer in the 0.3 JSON-RPC shape recorded as a wire deviation when
/// `deviations` is given (tolerant reading), refused as bad input (`what`) otherwise.
pub(crate) fn accept_read(
    log: &LossLog,
    deviations: Option<&DeviationLog>,
    call: &'static str,
    event: Option<u64>,
    what: &'static str,
    read: proto_json::Read,
) -> Result<(), Error> {
    log.record(call, "0.3 proto -> 0.3", &read.losses);
    let Some(deviation) = read.deviation else { return Ok(()) };
    match deviations {
        Some(deviations) => {
            deviations.record(call, event, deviation);
            Ok(())
        }
        None => {
            let message = format!("found {}; read it with WireReading::Tolerant", deviation.found);
            Err(Error::bad_input(what, ParseError::new(ParseErrorKind::Shape, deviation.path, message)))
        }
    }
}

const WHAT: &str = "0.3 stream event";

/// A 0.3 stream result converted, its losses recorded; a status update with `final: true` is the
/// last event of its stream, whichever binding carried it.
fn decoded(log: &LossLog, wire: v03::StreamResult) -> Decoded {
    let last = matches!(&wire, v03::StreamResult::StatusUpdate(update) if update.is_final);
    let converted = wire.to_v1();
    log.record("stream", "0.3 -> 1.0", &converted.losses);
    Decoded { event: Box::new(converted.value), last }
}

/// The 0.3 answer to a push-config listing (a bare array of configs), converted one by one.
pub(crate) fn configs_to_v1(
    list: &Vec<v03::TaskPushNotificationConfig>,
) -> Converted<Vec<a2a_typestate_types::TaskPushNotificationConfig>> {
    let mut losses = Vec::new();
    let mut value = Vec::with_capacity(list.len());
    for config in list {
        let converted = config.to_v1();
        losses.extend(converted.losses);
        value.push(converted.value);
    }
    Converted { value, losses }
}
