//! The bounds the push receiver works within, with their defaults: configuration, so they sit here
//! below the receiver (which reads them from [`ClientConfig`](super::ClientConfig)); the
//! [`webhook::server`](crate::webhook::server) module re-exports them.

use std::time::Duration;

/// Default cap on open webhook connections: 64.
pub const DEFAULT_WEBHOOK_MAX_CONNECTIONS: usize = 64;
/// Default bound on reading a request head: 5 s.
pub const DEFAULT_WEBHOOK_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Default bound on reading a request body once its head was accepted: 10 s.
pub const DEFAULT_WEBHOOK_BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default largest callback body: 8 MiB (the largest SSE event by default).
pub const DEFAULT_WEBHOOK_MAX_BODY_BYTES: usize = super::DEFAULT_MAX_SSE_EVENT_BYTES;
/// Default number of bodies buffered at once: 4.
pub const DEFAULT_WEBHOOK_MAX_BODIES_IN_FLIGHT: usize = 4;
/// Default largest request head (request line and headers): 16 KiB.
pub const DEFAULT_WEBHOOK_MAX_HEADER_BYTES: usize = 16 * 1024;

/// The bounds the push receiver works within, whatever senders do. Memory is at most about
/// `max_connections * max_header_bytes + max_bodies_in_flight * max_body_bytes` plus the parsed
/// bodies queued for the waiters (64 × 16 KiB + 4 × 8 MiB ≈ 33 MiB of buffers by default), and
/// descriptors at most `max_connections` plus the listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WebhookLimits {
    /// Open connections at most ([`DEFAULT_WEBHOOK_MAX_CONNECTIONS`]).
    pub max_connections: usize,
    /// Longest wait for a request head ([`DEFAULT_WEBHOOK_HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// Longest wait for a body after its head was accepted ([`DEFAULT_WEBHOOK_BODY_READ_TIMEOUT`]).
    pub body_read_timeout: Duration,
    /// Largest body ([`DEFAULT_WEBHOOK_MAX_BODY_BYTES`]); larger ones get 413.
    pub max_body_bytes: usize,
    /// Bodies buffered at once ([`DEFAULT_WEBHOOK_MAX_BODIES_IN_FLIGHT`]); others wait their turn
    /// within their body read timeout.
    pub max_bodies_in_flight: usize,
    /// Largest request head ([`DEFAULT_WEBHOOK_MAX_HEADER_BYTES`]; hyper needs at least 8 KiB).
    pub max_header_bytes: usize,
}

impl Default for WebhookLimits {
    fn default() -> Self {
        Self {
            max_connections: DEFAULT_WEBHOOK_MAX_CONNECTIONS,
            header_read_timeout: DEFAULT_WEBHOOK_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_WEBHOOK_BODY_READ_TIMEOUT,
            max_body_bytes: DEFAULT_WEBHOOK_MAX_BODY_BYTES,
            max_bodies_in_flight: DEFAULT_WEBHOOK_MAX_BODIES_IN_FLIGHT,
            max_header_bytes: DEFAULT_WEBHOOK_MAX_HEADER_BYTES,
        }
    }
}

impl WebhookLimits {
    /// Why these limits cannot work, if they cannot.
    pub(crate) fn problem(&self) -> Option<&'static str> {
        if self.max_connections == 0 || self.max_bodies_in_flight == 0 || self.max_body_bytes == 0 {
            return Some("webhook limits must allow at least one connection, one body and one byte");
        }
        if self.header_read_timeout.is_zero() || self.body_read_timeout.is_zero() {
            return Some("webhook read timeouts must be above zero");
        }
        if self.max_header_bytes < 8192 {
            return Some("webhook max header bytes must be at least 8192");
        }
        None
    }
}
