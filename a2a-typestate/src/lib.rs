//! Claims as types: an Agent Card's capabilities lifted into the type of the task handle, the task
//! lifecycle, and the verifier that refuses cards whose claims the agent contradicts.
//!
//! An Agent Card is a *claim*, not a contract. This crate
//! - lifts `streaming`, `stateTransitionHistory` and `pushNotifications` from a card, once
//!   ([`CardClaims::lift`]), into a [`DynHandle`] and, by narrowing, a typed [`Handle<C>`](Handle) whose
//!   gated operations exist only when the claim does ([`Claims`]);
//! - follows the task's [`Lifecycle`] over `TaskState`;
//! - judges each claim from what the client observed ([`Verifier`], [`verify`] has the rules),
//!   answering verified, pending or refused, with [`Advice`] on what to do;
//! - judges the card's other claims (extended card, extensions, interfaces, output modes,
//!   security) one at a time with a [`ClaimCheck`], under the same rules ([`card_claim`]);
//! - on refusal, hands back the handle downgraded to `Handle<SingleShot>` with an
//!   [`AgentCardLifecycleViolation`].
//!
//! It does no I/O and reads no clock: the client makes the calls and passes elapsed time.
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use a2a_typestate_types::{TaskId, ContextId, TaskState};
//! use a2a_typestate::{
//!     Bounds, CardClaims, Channel, Claims, Deployment, DynHandle, ExchangeModes, NoHistory, NoPush,
//!     Observed, Settlement, Streaming, Handle,
//! };
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{
//!     "name": "echo", "description": "", "version": "1", "supportedInterfaces": [], "skills": [],
//!     "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!     "capabilities": {"streaming": true}
//! }"#)?;
//! let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
//!
//! // The caller depends on streaming: narrow the dynamic handle (it comes back on failure).
//! let mut task: Handle<Claims<Streaming, NoHistory, NoPush>> =
//!     Handle::try_from(DynHandle::new(claims, Bounds::default())).map_err(|e| e.to_string())?;
//! let _permit = task.stream_permit(); // the client needs this to open the stream
//!
//! // The client reports what the stream delivered.
//! let (id, ctx) = (TaskId::new("t1"), ContextId::new("c1"));
//! let ms = Duration::from_millis;
//! let status = |state| Observed::Status {
//!     task_id: id.clone(), context_id: Some(ctx.clone()), state, message: None, via: Channel::Stream,
//!     artifacts: None,
//! };
//! task.observe(ms(0), Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None })?;
//! task.observe(ms(10), status(TaskState::Working))?;
//! task.observe(ms(20), Observed::Artifact { via: Channel::Stream })?;
//! task.observe(ms(30), status(TaskState::Completed))?;
//!
//! match task.settle_streaming(ms(30)) {
//!     Ok(Settlement::Verified(task)) => { let _ = task.rely_on_streaming(); }
//!     Ok(Settlement::Pending(_task, why)) => println!("pending: {why}"),
//!     Err(refusal) => println!("{}", refusal.violation()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod advice;
pub mod bounds;
pub mod capability;
pub mod card;
pub mod card_claim;
pub mod claim_check;
mod claims;
mod handle;
pub mod lifecycle;
mod media_type;
pub mod narrow;
pub mod observe;
pub mod permit;
pub mod rules;
mod state;
mod task;
pub mod verdict;
pub mod verify;
pub mod violation;
pub mod wire;

pub use advice::Advice;
pub use bounds::Bounds;
pub use capability::{Capability, CapabilitySet, ClaimStatus};
pub use card::{CardClaims, Deployment, GATEWAY_EXTENSION_URI, POLL_CADENCE_EXTENSION_URI};
pub use card_claim::{
    Access, CardClaim, CardClaimVerdict, CardClaimViolation, ClaimAnswer, ClaimEvidence, ClaimKind,
    ClaimPending, ExtendedCardAnswer, ExtensionSet, InterfaceAnswer, UnknownClaimKind,
};
pub use claim_check::ClaimCheck;
pub use claims::{
    ClaimSet, Claims, HasHistoryClaim, HasPushClaim, HasStreamingClaim, HasVerifiedHistory, HasVerifiedPush,
    HasVerifiedStreaming, History, HistorySlot, HistoryVerified, NoHistory, NoPush, NoStreaming, Push,
    PushSlot, PushVerified, SettlesHistory, SettlesPush, SettlesStreaming, SingleShot, Streaming,
    StreamingSlot, StreamingVerified, Tracked,
};
pub use handle::TaskHandle;
pub use lifecycle::{FollowUpError, Lifecycle, Step, TaskEnd, TransitionError, TransitionRule};
pub use narrow::{Mismatch, NarrowingError};
pub use observe::{Call, Channel, Elapsed, ExchangeModes, Observed, TransportFault};
pub use permit::{
    CadenceBasis, HistoryPermit, PollPermit, PushPermit, Reliance, SendPermit, SingleShotSend, StreamPermit,
};
pub use state::ObserveError;
pub use task::dyn_task::{DynHandle, MissingClaim};
pub use task::refusal::Refusal;
pub use task::{Handle, HistorySettled, PushSettled, SettleResult, Settlement, StreamingSettled};
pub use verdict::{LifecycleFault, Pending, PendingReason, Verdict};
pub use verify::Verifier;
pub use violation::{AgentCardLifecycleViolation, Contradiction, Evidence};
