//! The A2A 1.0 wire model: one Rust type per message of `a2a.proto` that appears as JSON.
//!
//! Field names are the ProtoJSON (lowerCamelCase) names on output; snake_case names are accepted on
//! input. The types are re-exported at the crate root.

mod enums;

pub use enums::{Role, TaskState};
