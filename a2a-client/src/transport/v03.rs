//! Speaking 0.3 JSON-RPC behind the 1.0 API: requests are converted with `from_v1`, results read in
//! the 0.3 shapes and converted with `to_v1`, so callers only see 1.0 types.
//!
//! A conversion that loses something never does so silently: each loss is logged at `debug` with the
//! operation, the JSON path and what was lost, and counted on the connection
//! (`AgentConnection::conversion_losses`).

use std::sync::atomic::{AtomicU64, Ordering};

use a2a_typestate_types::v03::{self, ConversionLoss, Converted};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

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

    fn record(&self, operation: &str, direction: &str, losses: &[ConversionLoss]) {
        if losses.is_empty() {
            return;
        }
        self.count.fetch_add(losses.len() as u64, Ordering::Relaxed);
        for loss in losses {
            tracing::debug!(operation, direction, path = %loss.path, lost = %loss.what, "0.3 conversion loss");
        }
    }

    /// Takes the converted request value as JSON, recording its losses.
    pub(crate) fn request<T: Serialize>(
        &self,
        operation: &str,
        converted: Converted<T>,
    ) -> Result<Value, Error> {
        self.record(operation, "1.0 -> 0.3", &converted.losses);
        serde_json::to_value(converted.value)
            .map_err(|e| Error::misuse(format!("0.3 {operation} request could not be written: {e}")))
    }

    /// Reads a 0.3 result of type `W` and converts it to 1.0, recording the losses.
    pub(crate) fn result<W, T>(
        &self,
        operation: &'static str,
        value: Value,
        convert: impl FnOnce(&W) -> Converted<T>,
    ) -> Result<T, Error>
    where
        W: DeserializeOwned,
    {
        let wire: W = read(operation, value)?;
        let converted = convert(&wire);
        self.record(operation, "0.3 -> 1.0", &converted.losses);
        Ok(converted.value)
    }
}

/// Decodes one 0.3 stream event of the stream opened with request id `id`: the result read as a 0.3 `StreamResult`, converted; a status update
/// with `final: true` is the last event.
pub(crate) fn decode_event(log: &LossLog, event: &SseEvent, id: &str) -> Result<Decoded, Error> {
    let wire: v03::StreamResult = super::jsonrpc::event_result(event, id, "0.3 stream event")?;
    let last = matches!(&wire, v03::StreamResult::StatusUpdate(update) if update.is_final);
    let converted = wire.to_v1();
    log.record("stream", "0.3 -> 1.0", &converted.losses);
    Ok(Decoded { event: Box::new(converted.value), last })
}
