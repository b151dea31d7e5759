//! The A2A 1.0 wire model: one Rust type per message of `a2a.proto` that appears as JSON.
//!
//! Field names are the ProtoJSON (lowerCamelCase) names on output; snake_case names are accepted on
//! input. Every item here is re-exported at the crate root.
//!
//! ```
//! use a2a_typestate_types::{parse, Message, SendMessageRequest, Task, TaskState};
//!
//! // Written in lowerCamelCase, enums by name, defaults left out.
//! let request = SendMessageRequest::new(Message::user("hello").with_message_id("m-1"));
//! assert_eq!(
//!     serde_json::to_string(&request).unwrap(),
//!     r#"{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}"#
//! );
//!
//! // Read with snake_case names and an enum number just as well.
//! let task: Task = parse::from_str(r#"{"id":"t-1","context_id":"c-1","status":{"state":3}}"#).unwrap();
//! assert_eq!(task.state(), TaskState::Completed);
//! ```

mod answer;
mod card;
mod enums;
mod events;
mod message;
mod message_builder;
mod push;
mod requests;
mod security;
mod task;

pub use card::*;
pub use enums::{Role, TaskState};
pub use events::*;
pub use message::*;
pub use message_builder::MessageBuilder;
pub use push::*;
pub use requests::*;
pub use security::*;
pub use task::*;
