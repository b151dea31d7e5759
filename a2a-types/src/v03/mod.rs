//! The A2A 0.3 wire shapes, and their conversion to and from 1.0.
//!
//! Many deployed agents still speak 0.3: `kind` discriminators (`"task"`, `"status-update"`,
//! parts `"text"`/`"file"`/`"data"`), lowercase states (`"input-required"`), roles `"user"`/`"agent"`,
//! `final` on status updates, and a card with `url` + `preferredTransport` + `additionalInterfaces`
//! and `capabilities.stateTransitionHistory`. The types here read and write exactly that (from
//! `a2a-v0.3.0.schema.json`), with the same path-carrying errors as the 1.0 types.
//!
//! ```
//! use a2a_typestate_types::{parse, v03};
//!
//! let event: v03::StreamResult = parse::from_str(
//!     r#"{"kind":"status-update","taskId":"t1","contextId":"c1","final":true,
//!         "status":{"state":"input-required"}}"#,
//! )
//! .unwrap();
//! let converted = event.to_v1();
//! assert!(converted.losses.is_empty()); // `final` is what 1.0 infers from the state
//! assert_eq!(converted.value.state(), Some(a2a_typestate_types::TaskState::InputRequired));
//!
//! let err = parse::from_str::<v03::Message>(
//!     r#"{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"image"}]}"#,
//! )
//! .unwrap_err();
//! assert_eq!(err.path(), "parts[0]");
//! ```
//!
//! # Reading
//!
//! - Unknown fields are ignored, except on [`AgentCard`] and [`AgentCapabilities`], which keep them in
//!   `extra` and write them back.
//! - `kind` is required where the schema requires it; a missing or unknown `kind`, or a member the
//!   `kind` requires, is an error at the object's path; errors inside a member keep their full path
//!   (`status.state`, `parts[0].text`). Members of another kind are read with that kind's type
//!   (a task's stray numeric `taskId` is refused), the price of exact paths without buffering.
//! - File `bytes` are read from standard or URL-safe base64, padded or not, and written standard
//!   padded.
//! - The card's `protocolVersion` is optional (0.2.x cards lack it), the other schema-required card
//!   fields are required. Inside the card (skills, interfaces, provider, extensions, signatures,
//!   OAuth flows) and in artifacts, push configs and params, a member left out takes its default, as
//!   in 1.0.
//! - A member written `null` reads as the member left out
//!   ([`NullAsDefault`](crate::protojson::NullAsDefault)): its default, or, for a required one, the
//!   same "missing field" error.
//!
//! # Conversion
//!
//! Each 0.3 type with a 1.0 counterpart has `to_v1(&self) -> Converted<v1 type>` and
//! `from_v1(&v1 type) -> Converted<Self>`: card, task, status, message, part, artifact, both events,
//! the stream and send results, push configs and send params (plus `tasks/get` and id params). A
//! conversion never drops information silently: whatever the target cannot hold is listed in
//! [`Converted::losses`], each with the JSON path (in the source document) and what was lost.
//!
//! How fields map, where it is not a rename:
//!
//! - Card `url` + `preferredTransport` (default `"JSONRPC"`) + `additionalInterfaces` become
//!   `supportedInterfaces`, in that order, each with `protocolVersion` = the card's `protocolVersion`
//!   cut to `Major.Minor` (`"0.3.0"` becomes `"0.3"`; `"0.3"` when absent). Back: the first interface
//!   gives `url`/`preferredTransport`, the rest `additionalInterfaces`, and its version the card's
//!   `protocolVersion`.
//! - `capabilities.stateTransitionHistory` does not exist in 1.0. It is kept, unchanged, in the 1.0
//!   `AgentCapabilities.extra["stateTransitionHistory"]`, where
//!   `AgentCapabilities::legacy_state_transition_history()` reads it: this is how a 0.3 card's history
//!   claim reaches the typestate layer, which verifies it like the other claims. Back, that entry
//!   becomes the field again.
//! - `supportsAuthenticatedExtendedCard` <-> `capabilities.extendedAgentCard`; `security` <->
//!   `securityRequirements` (`{name: scopes}` <-> `{"schemes": {name: {"list": scopes}}}`, also on
//!   skills); schemes tagged by `type` <-> the `SecurityScheme` oneof members; API key `in` <->
//!   `location`.
//! - States map by name; `unknown` <-> `TASK_STATE_UNSPECIFIED`. File parts `{bytes|uri, mimeType,
//!   name}` <-> `raw`/`url` with `mediaType`/`filename`. `kind`s are added on output.
//! - `final`: 1.0 ends a stream by closing it, at terminal and interrupted states. So 0.3 -> 1.0 loses
//!   nothing when `final` is what 1.0 infers (`true` exactly for terminal and interrupted states), and
//!   reports a loss when it disagrees (`final: true` on `working`: the agent ends the stream early;
//!   `final: false` on `completed`: more events follow), because only the 0.3 field says so. 1.0 -> 0.3
//!   sets `final` to `true` for terminal and interrupted states.
//! - `blocking: false` <-> `returnImmediately: true`; an absent or `true` `blocking` is 1.0's default.
//! - Push `authentication.schemes[0]` <-> `authentication.scheme`.
//!
//! Reported losses, 0.3 -> 1.0:
//! - A card `protocolVersion` with a patch part (`"0.3.0"`), which 1.0 interfaces cannot carry.
//! - `final` that disagrees with the state (above).
//! - An OAuth scheme with several flows (1.0 holds one: the first of authorizationCode,
//!   clientCredentials, implicit, password is kept), or with none (the scheme is left out).
//! - Push `authentication.schemes` beyond the first, or an empty list (1.0 requires one scheme, so the
//!   authentication is left out).
//! - Unknown card or capability members named like 1.0 fields (`supportedInterfaces`,
//!   `extendedAgentCard`...): a merged 0.3+1.0 card, better read as 1.0 (see [`read_any_card`]).
//! - `metadata` of `tasks/get` params and of [`TaskIdParams::to_v1_subscribe`] (those 1.0 requests
//!   have none).
//!
//! Reported losses, 1.0 -> 0.3:
//! - `tenant` on interfaces, push configs and requests.
//! - Interfaces whose `protocolVersion` differs from the first one's (0.3 has one per card; they are
//!   still listed), and a card with no interface (0.3 requires a `url`; written as `""`).
//! - The `deviceCode` OAuth flow (the scheme is written with no flow) and `pkceRequired: true`.
//! - A missing `contextId` on a task or event, or `taskId` on a task push config (required in 0.3;
//!   written as `""`), and a `taskId` on a config converted to a bare [`PushNotificationConfig`].
//! - `ROLE_UNSPECIFIED` (written as `"user"`).
//! - `filename`/`mediaType` on a text or data part, and a `data` that is not a JSON object (0.3 data
//!   parts hold objects; it is wrapped as `{"value": ...}`).
//! - A 1.0 card `extra` member named like a 0.3 card field (a merged card's `url`,
//!   `protocolVersion`...) whose value differs from the one converted from the 1.0 fields.
//!
//! Not reported, because no information is lost: `false`/empty 1.0 defaults that 0.3 leaves out,
//! `blocking: true` (the 1.0 default), and `preferredTransport` absent (it means `"JSONRPC"`).
//!
//! # Over HTTP+JSON
//!
//! The servers built on the official SDKs speak 0.3 over HTTP+JSON as the 0.3 gRPC proto's messages
//! in ProtoJSON (`{"message": {"role": "ROLE_USER", "content": [{"text": ..}]}}`, answers
//! `{"task": {..}}`), not in the JSON-RPC shape above: [`proto_json`] rewrites between the two, so
//! that the same types and conversions serve both bindings.
//!
//! # Either card shape
//!
//! [`read_any_card`] reads a card document of either version as a 1.0 card: with
//! `supportedInterfaces` it is 1.0; otherwise it is read as 0.3 and converted, with its losses.

mod any_card;
mod card;
mod convert;
mod events;
mod jsonrpc;
mod kinded;
mod message;
mod params;
pub mod proto_json;
mod push;
mod security;
mod task;

pub use any_card::{CardShape, read_any_card, read_any_card_with};
pub use card::*;
pub use convert::{ConversionLoss, Converted};
pub use events::*;
pub use jsonrpc::Method;
pub use message::*;
pub use params::*;
pub use push::*;
pub use security::*;
pub use task::*;
