//! The A2A wire model, in protocol 1.0 and 0.3.
//!
//! - [`v1`] (re-exported at the root): every message of `a2a.proto` that appears as JSON, with the
//!   ProtoJSON rules A2A 1.0 uses on the wire.
//! - [`parse`]: size-limited parsing whose errors name the JSON path that failed.
//! - [`ids`]: newtypes for task, context, message and artifact ids.
//! - [`wire_number`]: a number from the wire as a duration, size or count, capped and checked.
//! - Reading an answer where the agent put it: `text()`, `data()` and `file(name)` on a [`Message`],
//!   an [`Artifact`], a [`Task`] and a [`SendMessageResponse`] (see [`Task::text`]).
//!
//! ```
//! use a2a_typestate_types::{parse, TaskState};
//!
//! let state: TaskState = parse::from_str(r#""TASK_STATE_COMPLETED""#).unwrap();
//! assert!(state.is_terminal());
//! ```
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod discovery;
pub mod error;
pub mod human;
pub mod ids;
pub mod json_text;
pub mod jsonrpc;
pub mod parse;
pub mod protojson;
pub mod tolerant;
pub mod unknown;
pub mod v03;
pub mod v1;
pub mod wire_number;

pub use ids::{ArtifactId, ContextId, MessageId, TaskId};
pub use json_text::JsonText;
pub use unknown::{Metadata, UnknownFields};
pub use v1::*;
