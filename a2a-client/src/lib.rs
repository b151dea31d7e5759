//! An A2A (Agent2Agent) client that checks what an agent's card claims against what the agent does.
//!
//! This crate holds the client's infrastructure: the checked configuration ([`ClientBuilder`]), the one
//! error type ([`Error`], asked with [`Error::kind`] and [`Error::is_retryable`]), a bounded SSE parser
//! (`sse`, internal), retry with backoff ([`RetryPolicy`]), card discovery with an HTTP-aware shared cache and
//! capability-suspect marks ([`discovery`], [`DiscoveryCache`]), signed-card verification against a
//! caller's trust store ([`signing`]), the push-notification receiver ([`webhook`]), counters
//! ([`Metrics`]), and credentials for agents that require them: security schemes, providers,
//! interceptors and TLS settings ([`auth`]).
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{Client, ErrorKind};
//!
//! let client = Client::builder().push_arrival_bound(Duration::from_secs(10)).build()?;
//! assert_eq!(client.config().push_arrival_bound(), Duration::from_secs(10));
//!
//! let err = Client::builder().request_timeout(Duration::ZERO).build().unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Config);
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod agent_url;
pub mod auth;
mod budget;
mod cache;
mod card;
mod client;
pub mod config;
pub mod connection;
mod defaults;
pub mod discovery;
pub mod error;
mod front_door;
pub mod metrics;
pub mod negotiate;
pub mod net;
mod protocol_error;
pub mod retry;
mod secret;
pub mod signing;
/// The bounded SSE parser: internal, public only for the workspace's benchmarks, fuzzing and tests
/// (feature `test-util`); not part of the stable API.
#[cfg(feature = "test-util")]
pub mod sse;
#[cfg(not(feature = "test-util"))]
mod sse;
pub mod task;
pub mod task_span;
#[cfg(test)]
mod test_support;
pub mod transport;
pub mod url_policy;
pub mod webhook;

// What the client's signatures use, so one crate is enough for an orchestrator: the claim markers
// and their traits (compiler diagnostics name them by these paths), the verdict model, and the
// wire types every call takes or returns (the whole model is `types`).
pub use a2a_typestate::{
    Advice, AgentCardLifecycleViolation, Capability, CapabilitySet, ClaimSet, ClaimStatus, Claims,
    Contradiction, Deployment, Evidence, HasHistoryClaim, HasPushClaim, HasStreamingClaim,
    HasVerifiedHistory, HasVerifiedPush, HasVerifiedStreaming, History, HistorySettled, HistorySlot,
    HistoryVerified, LifecycleFault, NarrowingError, NoHistory, NoPush, NoStreaming, Pending, PendingReason,
    Push, PushSettled, PushSlot, PushVerified, Refusal, SettleResult, Settlement, SettlesHistory,
    SettlesPush, SettlesStreaming, SingleShot, Streaming, StreamingSettled, StreamingSlot, StreamingVerified,
    Tracked, Verdict,
};
pub use a2a_typestate_types as types;
pub use a2a_typestate_types::{Message, MessageId, SendMessageResponse, TaskState};
pub use agent_url::{AgentBaseUrl, WellKnownPath};
#[cfg(feature = "test-util")]
pub use cache::ManualClock;
pub use cache::shared;
pub use cache::{CachedCard, DiscoveryCache, SuspectMark};
pub use card::DiscoveredCard;
pub use client::Client;
pub use config::{ClientBuilder, ClientConfig, PollCadence, SuspectMarks, WireReading};
pub use connection::AgentConnection;
pub use error::{Error, ErrorKind, ProtocolError, TransportFault};
pub use metrics::{Metrics, MetricsSnapshot};
pub use retry::RetryPolicy;
pub use shared::{BackendStatus, CacheBackend};
pub use signing::{CardSignaturePolicy, CardSigner, TrustStore};
pub use task::{Answer, DynTask, Task, TaskCall, TaskEntry};
pub use transport::deviation::WireDeviation;
pub use transport::{EventStream, StreamEnd, TaskPoll};
pub use webhook::{PushArrival, PushCallback, PushReceiver, PushRegistration};

/// The workspace README's code blocks, compiled as doctests so the quickstart cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
