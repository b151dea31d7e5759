//! Benchmarks for the A2A SDK: parsing and verification against a plain `serde_json::Value` floor,
//! client overhead against a hand-written `reqwest` request, and throughput against the official
//! Python and JS clients. See `BENCHMARKS.md` at the workspace root for the figures and how to
//! reproduce each one.
//!
//! The pieces: a minimal agent to call on every binding ([`BenchAgent`]), the hand-written floors,
//! one per binding ([`floor`]), the drivers that time a workload through each client ([`drive`]),
//! the fleet workload, with or without a task journal ([`fleet`]), the
//! replicas' mark latency ([`marks`]), and the process's peak memory
//! ([`memory`]).
//!
//! ```
//! use a2a_bench::drive::{ClientKind, DriveOptions, Workload, drive};
//! use a2a_bench::{BenchAgent, BenchAgentConfig};
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: 10 }).await?;
//! let options = DriveOptions {
//!     client: ClientKind::Sdk,
//!     workload: Workload::Stream,
//!     agents: vec![agent.base_url()],
//!     requests: 4,
//!     in_flight: 2,
//!     expect_events: 10,
//! };
//! let report = drive(&options).await?;
//! assert_eq!(report.events, 40);
//! println!("{:.0} events/s", report.events_per_second);
//! # Ok(())
//! # }
//! ```
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod fixtures;
pub mod fleet;
pub mod floor;
pub mod marks;
pub mod memory;

pub use agent::{BenchAgent, BenchAgentConfig, BenchAgentError};
pub use memory::{Resident, reset_peak, resident};
pub mod drive;
