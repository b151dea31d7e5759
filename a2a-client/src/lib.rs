//! An A2A (Agent2Agent) client that checks what an agent's card claims against what the agent does.
//!
//! An Agent Card is a claim, not a contract: a card can parse, be served with HTTP 200, and still
//! declare streaming, state-transition history or push notifications that the agent never delivers.
//! This client puts the claims your code depends on into the type of the task handle, checks each
//! claim at the first call that exercises it, refuses a card that over-declares, marks the agent
//! capability-suspect, and falls back to one single-shot `SendMessage`. A contradiction is never an
//! `Err`: it is a refusal you handle, carrying the handle you can still use.
//!
//! # A task on a typed handle: `Client::task::<C>`
//!
//! [`Client::task`] discovers the agent (through the [`DiscoveryCache`]) and hands out a
//! [`Task<C>`](Task) whose type holds the claims `C` your code relies on, for example
//! `Claims<Streaming>`. The calls that exercise a claim exist only on a handle whose type holds it
//! (a compile error otherwise). After the call that exercises the claim, `settle_*` says what
//! became of it: [`Settlement::Verified`] (a handle whose type says the claim held),
//! [`Settlement::Pending`] (not decided yet, and why), or a [`Refusal`]. The refusal names the
//! contradiction and carries a [`Task<SingleShot>`](Task), whose only call is the single-shot
//! `send_message`: that is the fallback. An agent already marked suspect comes back as
//! [`TaskEntry::Suspect`], so the task goes single-shot at once with no negotiation round trip.
//!
//! Here the agent's card claims streaming, and the agent answers `SendStreamingMessage` with
//! "not supported" (the scripted agent stands in for a real one):
//!
//! ```
//! use a2a_typestate_client::negotiate::AfterRefusal;
//! use a2a_typestate_client::{Claims, Client, Message, Settlement, Streaming, Task, TaskEntry};
//! # use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let agent = ScriptedAgent::builder()
//! #     .capabilities(Capabilities::none().with_streaming())
//! #     .script(Script::honest().with(Lie::StreamingRefused))
//! #     .spawn()
//! #     .await?;
//! # let url = agent.base_url();
//! let client = Client::builder().build()?;
//!
//! let mut task: Task<Claims<Streaming>> = match client.task(&url).await? {
//!     TaskEntry::Claimed(task) => task,
//!     TaskEntry::Suspect(single_shot, mark) => {
//!         // Caught lying before, and the mark has not expired: no negotiation at all.
//!         println!("{mark}");
//!         single_shot.fall_back(Message::user("weather in Lisbon"), AfterRefusal::FollowToEnd).await?;
//!         return Ok(());
//!     }
//! };
//! task.send_streaming_message(Message::user("weather in Lisbon")).await?;
//! match task.settle_streaming() {
//!     Ok(Settlement::Verified(task)) => {
//!         let _ = task.handle().rely_on_streaming(); // compiles only on a verified handle
//!     }
//!     Ok(Settlement::Pending(_task, why)) => println!("not settled yet: {why}"),
//!     Err(refusal) => {
//!         // The card lied. The agent is marked suspect; the refusal carries the fallback.
//!         println!("refused: {}", refusal.violation());
//!         let question = Message::user("weather in Lisbon");
//!         let fallback = refusal.into_task().fall_back(question, AfterRefusal::FollowToEnd).await?;
//!         assert_eq!(fallback.text().as_deref(), Some("echo: weather in Lisbon"));
//!         assert!(!fallback.may_have_run_twice(), "refused before the agent accepted a task");
//!     }
//! }
//!
//! // The next task on this agent goes single-shot at once.
//! let next = client.task::<Claims<Streaming>>(&url).await?;
//! assert!(next.suspect_mark().is_some());
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! [`Task::fall_back`] on the single-shot handle never runs finished work twice: a refusal that came
//! after the task ended (a stream without the artifact `GetTask` has, a push callback that never
//! came) keeps that task's answer and sends nothing ([`negotiate::Fallback::Kept`]); a task the
//! agent never accepted (here, refused at the stream) is sent once; one still running is canceled
//! and sent again, or left, as [`negotiate::AfterRefusal`] says. [`Client::run_task`] acts on its
//! refusals through the same call. `send_message` on the single-shot handle is the raw send, which
//! reads nothing the refused task left.
//!
//! A claim the card does not make is not silently dropped: `client.task::<C>` is an
//! [`ErrorKind::Misuse`] error naming the missing claim. To hold whatever the card claims, take a
//! [`DynTask`] with [`Client::dyn_task`] and narrow it with `Task::try_from`, which hands the
//! handle back when it does not fit.
//!
//! # Many agents, one call: `Client::run_task`
//!
//! [`Client::run_task`] is the dynamic form for code that holds many agents. It runs the same calls
//! on a [`DynTask`], picks the path from what you depend on ([`negotiate::Negotiation`]) and what
//! the card claims, answers the agent's questions through a [`negotiate::FollowUp`] policy, settles,
//! and on a refusal keeps the result of a task that had ended, or sends the fallback itself. The
//! [`negotiate::TaskOutcome`] says which path gave the result, what was verified and what was
//! refused, and whether the work may have run twice:
//!
//! ```
//! use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskPath};
//! use a2a_typestate_client::{Capability, Client, Message};
//! # use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let agent = ScriptedAgent::builder()
//! #     .capabilities(Capabilities::none().with_streaming())
//! #     .script(Script::honest().with(Lie::StreamingRefused))
//! #     .spawn()
//! #     .await?;
//! # let url = agent.base_url();
//! let client = Client::builder().build()?;
//! let negotiation = Negotiation::depending_on(&[Capability::Streaming])
//!     .follow_up(FollowUp::reply("metric units, please"));
//!
//! let outcome = client.run_task(&url, Message::user("weather in Lisbon"), &negotiation).await?;
//! match &outcome.path {
//!     TaskPath::Negotiated => println!("verified: {}", outcome.verified),
//!     TaskPath::KeptAfterRefusal => println!("{outcome}"), // refused at the end: its result, run once
//!     TaskPath::Fallback => println!("{outcome}"), // the refusal, then the fallback's result
//!     TaskPath::SingleShotBecauseSuspect(mark) => println!("suspect ({mark}): single-shot"),
//!     other => println!("{other}"),
//! }
//! // The agent refused the stream before accepting a task: the fallback was the work's only run.
//! assert_eq!(outcome.path, TaskPath::Fallback);
//! assert!(!outcome.may_have_run_twice());
//! // The answer, wherever the agent put it (artifacts, messages or the status message).
//! assert_eq!(outcome.text().as_deref(), Some("echo: weather in Lisbon"));
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! For the raw A2A operations with no claim checked (every call over JSON-RPC, HTTP+JSON or gRPC,
//! 1.0 or 0.3), [`Client::connect`] returns an [`AgentConnection`].
//!
//! # Errors
//!
//! Every fallible call returns the one [`Error`] type. Ask it [`Error::kind`] to decide what to
//! do, and [`Error::is_retryable`] whether trying again later can help:
//!
//! | [`ErrorKind`] | what happened | what to do |
//! | --- | --- | --- |
//! | `Transport` | the network or an intermediary failed (connect, reset, timeout, 502/503/504) after the retry budget | retry later; the agent is not marked |
//! | `Status` | an HTTP status that is no A2A answer (a bare 404, an HTML 500) | check the URL or the agent |
//! | `Auth` | 401 or 403, or no credentials meet the card's security requirements | fix the credentials ([`auth`]) |
//! | `Protocol` | an A2A error from the agent ([`ProtocolError`]) | read its code |
//! | `LifecycleViolation` | the agent contradicted its card where the advice is to abandon | do not retry against this agent |
//! | `LifecycleFault` | no observable progress within the client's bounds, or the task deadline ran out | abandon the task |
//! | `BadInput` | a card, answer, event or callback could not be read (the error names the JSON path) | report it to the agent's owner |
//! | `Config` | the builder was given values it cannot use | fix the configuration |
//! | `Misuse` | a call the handle cannot serve (the card lacks a claim the type holds) | a bug in the calling code |
//! | `CardSignature` | the card's signatures do not satisfy the [`CardSignaturePolicy`] | see [`Error::card_signature_error`] |
//! | `Listing` | a listing that pages for the caller ([`TaskPages`]) met a page token again, was answered a page holding more tasks than it asked for, or ran past its page bound | see [`Error::listing_fault`] |
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
//! assert!(!err.is_retryable());
//! # Ok::<(), a2a_typestate_client::Error>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `grpc` | off | the third binding: A2A 1.0 over gRPC (tonic). An agent whose card prefers a `GRPC` interface is reached over it, every operation and both server streams included |
//! | `redis` | off | `shared::redis`: a Redis backend for the discovery cache, so orchestrator replicas share cards and suspect marks |
//! | `reqwest` | off | [`net::ReqwestService`](crate::net): a user's `reqwest::Client` or `reqwest_middleware::ClientWithMiddleware` as the HTTP stack under every HTTP binding, discovery and token and key fetches ([`ClientBuilder::http_service`]) |
//! | `test-util` | off | internals for this workspace's benchmarks, fuzzing and tests (the SSE parser, a manual cache clock); not part of the stable API, left out of the API reference |
//!
//! The API reference on docs.rs is built with `grpc`, `redis` and `reqwest`; each item that needs a feature
//! says which.
//!
//! # What else is here
//!
//! The checked configuration ([`ClientBuilder`]), retry with backoff ([`RetryPolicy`]), card
//! discovery with an HTTP-aware shared cache and capability-suspect marks ([`discovery`],
//! [`DiscoveryCache`], [`shared`]), signed-card verification against a trust store you give
//! ([`signing`]), the push-notification receiver ([`webhook`]), counters ([`Metrics`]), one tracing
//! span per task ([`task_span`]), the URL policy ([`url_policy`]), and credentials for agents that
//! require them: security schemes, providers, interceptors and TLS settings ([`auth`]). The wire
//! model is re-exported as [`types`], and the typestate's claim markers and verdicts at the root,
//! so this one crate is enough to depend on.
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod agent_url;
pub mod audit;
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
pub mod extensions;
mod front_door;
pub mod journal;
pub mod metrics;
pub mod negotiate;
pub mod net;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
mod protocol_error;
mod recovery;
pub mod retry;
mod secret;
pub mod signing;
/// The bounded SSE parser: internal, public only for the workspace's benchmarks, fuzzing and tests
/// (feature `test-util`); not part of the stable API.
#[cfg(feature = "test-util")]
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
pub mod sse;
#[cfg(not(feature = "test-util"))]
mod sse;
pub mod task;
pub mod task_events;
pub mod task_span;
#[cfg(test)]
mod test_support;
pub mod text;
pub mod transport;
pub mod url_policy;
pub mod webhook;
mod wire_caps;

// What the client's signatures use, so one crate is enough for an orchestrator: the claim markers
// and their traits (compiler diagnostics name them by these paths), the verdict model, and the
// wire types every call takes or returns (the whole model is `types`).
pub use a2a_typestate::{
    Advice, AgentCardLifecycleViolation, Bounds, Capability, CapabilitySet, CardClaim, CardClaimVerdict,
    CardClaimViolation, CardClaims, ClaimAnswer, ClaimKind, ClaimSet, ClaimStatus, Claims, Contradiction,
    Deployment, Elapsed, Evidence, ExchangeModes, HasHistoryClaim, HasPushClaim, HasStreamingClaim,
    HasVerifiedHistory, HasVerifiedPush, HasVerifiedStreaming, History, HistorySettled, HistorySlot,
    HistoryVerified, LifecycleFault, NarrowingError, NoHistory, NoPush, NoStreaming, Observed, Pending,
    PendingReason, Push, PushSettled, PushSlot, PushVerified, Refusal, SettleResult, Settlement,
    SettlesHistory, SettlesPush, SettlesStreaming, SingleShot, Streaming, StreamingSettled, StreamingSlot,
    StreamingVerified, Tracked, Verdict,
};
/// The A2A wire model, re-exported whole from the `a2a-typestate-types` crate so that this crate is
/// the only one to depend on: every request and answer a call takes or returns
/// ([`Task`](types::Task), [`Message`], [`Part`](types::Part), [`Artifact`](types::Artifact), the
/// stream events, the Agent Card). An answer's text, data and files are read with `text()`,
/// `data()` and `file(name)` on the message, artifact, task or `SendMessage` result that holds them.
///
/// The examples below are those of `a2a-typestate-types` and name it as that crate does,
/// `a2a_typestate_types`; from this crate, the same items are `a2a_typestate_client::types::..`.
#[doc(inline)]
pub use a2a_typestate_types as types;
pub use a2a_typestate_types::{Message, MessageId, SendMessageResponse, TaskState};
pub use agent_url::{AgentBaseUrl, WellKnownPath};
#[cfg(feature = "test-util")]
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
pub use cache::ManualClock;
pub use cache::shared;
pub use cache::{Breaker, CachedCard, DiscoveryCache, SuspectClaim, SuspectMark};
pub use card::DiscoveredCard;
pub use client::Client;
pub use config::{
    CallOptions, ClientBuilder, ClientConfig, PollCadence, SuspectMarks, TaskBudget, WireReading,
};
pub use connection::AgentConnection;
pub use error::{Error, ErrorKind, ListingFault, ProtocolError, Report, TransportFault, Unavailable};
pub use extensions::ActivatedExtensions;
pub use metrics::{Metrics, MetricsSnapshot};
pub use retry::RetryPolicy;
pub use shared::{BackendStatus, CacheBackend};
pub use signing::{CardSignaturePolicy, CardSigner, TrustStore};
pub use task::{Answer, DynTask, Task, TaskCall, TaskEntry};
pub use transport::deviation::WireDeviation;
pub use transport::{EventStream, StreamEnd, TaskFollow, TaskPages, TaskPoll};
pub use webhook::{PushArrival, PushCallback, PushReceiver, PushRegistration};

/// This crate's README (its crates.io page): its code blocks, compiled as doctests so the
/// quickstart cannot rot. The workspace README's blocks are compiled by the `ui-tests` member.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
