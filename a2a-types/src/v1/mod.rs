//! The A2A 1.0 wire model: one Rust type per message of `a2a.proto` that appears as JSON.
//!
//! Field names are the ProtoJSON (lowerCamelCase) names on output; snake_case names are accepted on
//! input. Every item here is re-exported at the crate root.

mod card;
mod enums;
mod events;
mod message;
mod push;
mod requests;
mod security;
mod task;

pub use card::*;
pub use enums::{Role, TaskState};
pub use events::*;
pub use message::*;
pub use push::*;
pub use requests::*;
pub use security::*;
pub use task::*;
