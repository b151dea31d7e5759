//! Identifier newtypes.
//!
//! A2A 1.0 ids are plain strings (no `tasks/{id}` resource names). Wrapping each kind in its own type
//! keeps a `TaskId` from being passed where a `ContextId` is expected.
//!
//! ```
//! use a2a_typestate_types::{ContextId, TaskId};
//!
//! let task = TaskId::new("t-1");
//! // On the wire an id is a bare string.
//! assert_eq!(serde_json::to_string(&task).unwrap(), r#""t-1""#);
//! let context: ContextId = serde_json::from_str(r#""c-1""#).unwrap();
//! assert_eq!(context.as_str(), "c-1");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wraps an id string as received on the wire or created by the sender.
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Unwraps the id string.
            pub fn into_string(self) -> String {
                self.0
            }

            /// `true` when the id is the empty string (the ProtoJSON default, meaning "not set").
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_newtype!(
    /// The id of a `Task`, assigned by the agent (clients cannot create a task with their own id).
    TaskId
);
id_newtype!(
    /// The id of a conversation context grouping related tasks and messages.
    ContextId
);
id_newtype!(
    /// The id of a `Message`, created by its sender.
    MessageId
);
impl MessageId {
    /// A fresh id (a random v4 UUID): what a sender uses when it has no id scheme of its own, since
    /// the protocol only asks that each message's id be unique.
    ///
    /// ```
    /// use a2a_typestate_types::MessageId;
    ///
    /// let (a, b) = (MessageId::random(), MessageId::random());
    /// assert_ne!(a, b);
    /// assert_eq!(a.as_str().len(), 36, "hyphenated uuid: {a}");
    /// ```
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }
}

id_newtype!(
    /// The id of an `Artifact`, unique within its task.
    ArtifactId
);
