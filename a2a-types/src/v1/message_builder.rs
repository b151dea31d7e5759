//! [`MessageBuilder`]: a `Message` part by part, with a fresh id unless one is given.
//!
//! ```
//! use a2a_typestate_types::{Message, Part, PartContent, Role};
//!
//! let msg = Message::builder(Role::User)
//!     .text("summarise the attached report")
//!     .part(Part::file_bytes(b"%PDF-1.7".to_vec(), "application/pdf").with_filename("report.pdf"))
//!     .data(serde_json::json!({"maxWords": 100}))
//!     .context_id("ctx-1")
//!     .build();
//! assert_eq!(msg.role, Role::User);
//! assert_eq!(msg.parts.len(), 3);
//! assert_eq!(msg.parts[1].filename.as_deref(), Some("report.pdf"));
//! assert!(!msg.message_id.is_empty(), "a random id, since none was set");
//! ```

use serde_json::Value;

use crate::ids::{ContextId, MessageId, TaskId};
use crate::v1::enums::Role;
use crate::v1::message::{Message, Part};

impl Message {
    /// A builder for a message from `role`; see [`MessageBuilder`].
    pub fn builder(role: Role) -> MessageBuilder {
        MessageBuilder::new(role)
    }

    /// A client message holding one text part, with a fresh [`MessageId::random`] id: the common
    /// way to start or continue a task. [`with_message_id`](Message::with_message_id) sets an id of
    /// your own, [`with_task_id`](Message::with_task_id) and
    /// [`with_context_id`](Message::with_context_id) the task and conversation it continues.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let msg = Message::user("hello");
    /// assert_eq!((msg.role, msg.text().as_deref()), (Role::User, Some("hello")));
    /// assert_ne!(msg.message_id, Message::user("hello").message_id, "each message its own id");
    /// ```
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(MessageId::random(), Role::User, vec![Part::text(text)])
    }

    /// An agent message holding one text part, with a fresh [`MessageId::random`] id.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// assert_eq!(Message::agent("done").role, Role::Agent);
    /// ```
    pub fn agent(text: impl Into<String>) -> Self {
        Self::new(MessageId::random(), Role::Agent, vec![Part::text(text)])
    }
}

/// Builds a [`Message`]: parts in the order added, then [`build`](Self::build).
///
/// The message id is a fresh [`MessageId::random`] unless [`message_id`](Self::message_id) sets
/// one. The protocol requires at least one part; the builder does not refuse a message without
/// one (an agent will), so that a message can be read back as it was built.
///
/// ```
/// use a2a_typestate_types::{Message, MessageId, Role};
///
/// let msg = Message::builder(Role::User)
///     .message_id("m-7")
///     .text("and the second chart?")
///     .task_id("task-1")
///     .reference_task("task-0")
///     .extension("https://example.com/ext/citations/v1")
///     .metadata("priority", serde_json::json!("high"))
///     .build();
/// assert_eq!(msg.message_id, MessageId::new("m-7"));
/// assert_eq!(msg.task_id.as_ref().map(|t| t.as_str()), Some("task-1"));
/// assert_eq!(msg.reference_task_ids.len(), 1);
/// assert_eq!(msg.metadata.as_ref().and_then(|m| m.value("priority")), Some(serde_json::json!("high")));
/// ```
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct MessageBuilder {
    message: Message,
}

impl MessageBuilder {
    /// A builder for a message from `role`, with no parts yet.
    pub fn new(role: Role) -> Self {
        Self { message: Message { role, ..Message::default() } }
    }

    /// Sets the message id (otherwise [`build`](Self::build) makes a random one; an empty id, the
    /// ProtoJSON "not set", counts as none).
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// assert_eq!(Message::builder(Role::User).message_id("m-1").text("hi").build().message_id.as_str(), "m-1");
    /// ```
    pub fn message_id(mut self, message_id: impl Into<MessageId>) -> Self {
        self.message.message_id = message_id.into();
        self
    }

    /// Adds a text part.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let msg = Message::builder(Role::User).text("one").text("two").build();
    /// assert_eq!(msg.text().as_deref(), Some("one\ntwo"));
    /// ```
    pub fn text(self, text: impl Into<String>) -> Self {
        self.part(Part::text(text))
    }

    /// Adds a file part carried inline (`raw`, base64 on the wire), with its media type.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, PartContent, Role};
    ///
    /// let msg = Message::builder(Role::User).file_bytes(vec![0x89, b'P'], "image/png").build();
    /// assert_eq!(msg.parts[0].content, PartContent::Raw(vec![0x89, b'P']));
    /// assert_eq!(msg.parts[0].media_type.as_deref(), Some("image/png"));
    /// ```
    pub fn file_bytes(self, bytes: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        self.part(Part::file_bytes(bytes, media_type))
    }

    /// Adds a file part the agent fetches from `url`, with its media type.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, PartContent, Role};
    ///
    /// let msg = Message::builder(Role::User).file_url("https://files.example/a.csv", "text/csv").build();
    /// assert_eq!(msg.parts[0].content, PartContent::Url("https://files.example/a.csv".into()));
    /// ```
    pub fn file_url(self, url: impl Into<String>, media_type: impl Into<String>) -> Self {
        self.part(Part::file_url(url, media_type))
    }

    /// Adds a structured data part (any JSON value).
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let msg = Message::builder(Role::User).data(serde_json::json!({"city": "Oslo"})).build();
    /// assert_eq!(serde_json::to_string(&msg.parts[0]).unwrap(), r#"{"data":{"city":"Oslo"}}"#);
    /// ```
    pub fn data(self, data: Value) -> Self {
        self.part(Part::data(data))
    }

    /// Adds a part as it is (for a file name, part metadata, or any other field of [`Part`]).
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Part, Role};
    ///
    /// let msg = Message::builder(Role::User).part(Part::text("hi").with_media_type("text/markdown")).build();
    /// assert_eq!(msg.parts[0].media_type.as_deref(), Some("text/markdown"));
    /// ```
    pub fn part(mut self, part: Part) -> Self {
        self.message.parts.push(part);
        self
    }

    /// Sets one entry of the message's free-form `metadata`.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let msg = Message::builder(Role::User).text("hi").metadata("trace", serde_json::json!(7)).build();
    /// assert_eq!(msg.metadata.unwrap().value("trace"), Some(serde_json::json!(7)));
    /// ```
    pub fn metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.message.metadata.get_or_insert_with(Default::default).insert_value(key, &value);
        self
    }

    /// Adds the URI of an extension that shaped this message.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let msg = Message::builder(Role::User).text("hi").extension("https://ext.example/v1").build();
    /// assert_eq!(msg.extensions, ["https://ext.example/v1"]);
    /// ```
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.message.extensions.push(uri.into());
        self
    }

    /// Adds another task this message refers to, as context for the agent.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role, TaskId};
    ///
    /// let msg = Message::builder(Role::User).text("like before").reference_task("t-0").build();
    /// assert_eq!(msg.reference_task_ids, [TaskId::new("t-0")]);
    /// ```
    pub fn reference_task(mut self, task_id: impl Into<TaskId>) -> Self {
        self.message.reference_task_ids.push(task_id.into());
        self
    }

    /// Sets the conversation this message belongs to.
    ///
    /// ```
    /// use a2a_typestate_types::{ContextId, Message, Role};
    ///
    /// let msg = Message::builder(Role::User).text("hi").context_id("c-1").build();
    /// assert_eq!(msg.context_id, Some(ContextId::new("c-1")));
    /// ```
    pub fn context_id(mut self, context_id: impl Into<ContextId>) -> Self {
        self.message.context_id = Some(context_id.into());
        self
    }

    /// Sets the task this message continues (it must name an existing task).
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role, TaskId};
    ///
    /// let msg = Message::builder(Role::User).text("yes").task_id("t-1").build();
    /// assert_eq!(msg.task_id, Some(TaskId::new("t-1")));
    /// ```
    pub fn task_id(mut self, task_id: impl Into<TaskId>) -> Self {
        self.message.task_id = Some(task_id.into());
        self
    }

    /// The message, with a fresh random id unless one was set.
    ///
    /// ```
    /// use a2a_typestate_types::{Message, Role};
    ///
    /// let builder = Message::builder(Role::User).text("hi");
    /// assert_ne!(builder.clone().build().message_id, builder.build().message_id);
    /// ```
    pub fn build(self) -> Message {
        let Self { mut message } = self;
        if message.message_id.is_empty() {
            message.message_id = MessageId::random();
        }
        message
    }
}
