//! Benchmarks for the A2A SDK: parsing and verification against a plain `serde_json::Value` floor,
//! client overhead against a hand-written `reqwest` request, and throughput against the official
//! Python and JS clients. See `BENCHMARKS.md` at the workspace root for the figures and how to
//! reproduce each one.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod fixtures;
pub mod floor;
pub mod memory;

pub use agent::{BenchAgent, BenchAgentConfig, BenchAgentError};
pub use memory::{Resident, reset_peak, resident};
pub mod drive;
