//! The compile-fail suite of `a2a-typestate` (trybuild), kept in its own unpublished member as serde
//! and tokio do.
//!
//! `tests/ui/fail/*.rs` hold one misuse each, named after the mistake, with the compiler's
//! diagnostic beside it in a `.stderr` file: the source of truth for what a user sees.
//! `tests/ui/pass/*.rs` show the intended flows compile. The toolchain is pinned in
//! `rust-toolchain.toml` so the diagnostics stay stable; regenerate with
//! `TRYBUILD=overwrite cargo test -p ui-tests` and review the diff.
//!
//! This library only holds the fixtures those files share, so each file shows just its point.
//!
//! The member also holds what spans packages and so belongs in none of the published ones: the
//! workspace README's code blocks (doctests) and `tests/workspace_files.rs`, which checks that text
//! two packages each carry (the proto, the quickstart) stays the same.
//!
//! ```
//! let task = ui_tests::dyn_task(r#"{"streaming":true}"#);
//! assert!(task.stream_permit().is_ok());
//! ```
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

use std::sync::Arc;

use a2a_typestate::{Bounds, CardClaims, Deployment, DynHandle};
use a2a_typestate_types::AgentCard;

/// A plain-text agent card with the given `capabilities` JSON object; `None` when it does not
/// parse (fixtures pass literal JSON, so that never happens in the suite).
pub fn card(capabilities: &str) -> Option<AgentCard> {
    let json = format!(
        r#"{{"name":"agent","description":"","version":"1","supportedInterfaces":[],"skills":[],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "capabilities":{capabilities}}}"#
    );
    a2a_typestate_types::parse::from_str(&json).ok()
}

/// The claims lifted from [`card`] for a directly reached agent.
///
/// # Panics
/// When the fixture's `capabilities` JSON does not parse: a typo in a fixture must fail the suite
/// loudly, not quietly become a card that claims nothing.
#[allow(clippy::panic)]
pub fn claims(capabilities: &str) -> Arc<CardClaims> {
    let Some(card) = card(capabilities) else {
        panic!("ui-tests fixture: capabilities {capabilities} do not make a valid agent card");
    };
    Arc::new(CardClaims::lift(&card, Deployment::Direct))
}

/// A fresh dynamic task handle against an agent with the given capabilities.
pub fn dyn_task(capabilities: &str) -> DynHandle {
    DynHandle::new(claims(capabilities), Bounds::default())
}

/// The workspace README's code blocks, compiled as doctests so its quickstart cannot rot. They live
/// here because the workspace README belongs to no published package; each published crate's own
/// README is compiled by that crate.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct WorkspaceReadmeDoctests;
