//! `Message` and `Part`: what a client and an agent say to each other.
//!
//! ```
//! use a2a_typestate_types::{parse, Message, PartContent, Role};
//!
//! let msg: Message = parse::from_str(
//!     r#"{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}"#,
//! ).unwrap();
//! assert_eq!(msg.role, Role::User);
//! assert_eq!(msg.parts[0].content, PartContent::Text("hello".into()));
//! assert_eq!(msg, Message::user("hello").with_message_id("m1"));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonText;
use crate::Metadata;
use crate::ids::{ContextId, MessageId, TaskId};
use crate::protojson::{self, is_default};
use crate::v1::enums::Role;

/// One turn of the conversation (`lf.a2a.v1.Message`).
///
/// Agents answer with a `Message` for exchanges that need no task; otherwise messages appear in a
/// task's `history` and `status.message`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Message {
    /// Created by the sender; unique per message.
    #[serde(alias = "message_id", skip_serializing_if = "is_default")]
    pub message_id: MessageId,
    /// The conversation this message belongs to; servers always set it on what they send.
    #[serde(
        alias = "context_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<ContextId>,
    /// The task this message continues; must name an existing task when a client sets it.
    #[serde(
        alias = "task_id",
        deserialize_with = "wire::non_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_id: Option<TaskId>,
    /// Who sent it.
    #[serde(skip_serializing_if = "is_default")]
    pub role: Role,
    /// The content; the protocol requires at least one part (not enforced when reading).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions that shaped this message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Other tasks this message refers to, as context for the agent.
    #[serde(alias = "reference_task_ids", skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<TaskId>,
}

impl Message {
    /// A message with the given sender and parts, and nothing else set.
    pub fn new(message_id: impl Into<MessageId>, role: Role, parts: Vec<Part>) -> Self {
        Self { message_id: message_id.into(), role, parts, ..Self::default() }
    }

    /// Sets the message id, for a sender with its own id scheme (the short constructors
    /// [`Message::user`] and [`Message::agent`] give each message a random one).
    #[must_use]
    pub fn with_message_id(mut self, message_id: impl Into<MessageId>) -> Self {
        self.message_id = message_id.into();
        self
    }

    /// Sets the task this message continues.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<TaskId>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }

    /// Sets the conversation this message belongs to.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<ContextId>) -> Self {
        self.context_id = Some(context_id.into());
        self
    }
}

/// One piece of content (`lf.a2a.v1.Part`): text, bytes, a link or structured data.
///
/// In 1.0 the kind is given by which member is present (`{"text": ..}`, `{"raw": ..}`, ...); there is
/// no `kind` field. A part with none of them, or with two, is refused with an error naming the part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "PartRepr")]
pub struct Part {
    /// The content (`oneof content`).
    #[serde(flatten)]
    pub content: PartContent,
    /// Free-form extension data (`google.protobuf.Struct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// A file name for the content, if it is a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The media type of the content, such as `text/plain` (0.3 called it `mimeType`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

/// What a [`Part`] holds: exactly one member of `oneof content`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PartContent {
    /// Plain text.
    Text(String),
    /// Inline bytes, base64 on the wire.
    Raw(#[serde(with = "protojson::base64_bytes")] Vec<u8>),
    /// A link to the content.
    Url(String),
    /// Any JSON value (`google.protobuf.Value`), `null` included, kept as the text it came in
    /// ([`JsonText::value`] parses it).
    Data(JsonText),
}

impl Part {
    /// A part holding `content` and nothing else.
    pub fn new(content: PartContent) -> Self {
        Self { content, metadata: None, filename: None, media_type: None }
    }

    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(PartContent::Text(text.into()))
    }

    /// An inline bytes part.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        Self::new(PartContent::Raw(bytes.into()))
    }

    /// A link part.
    pub fn url(url: impl Into<String>) -> Self {
        Self::new(PartContent::Url(url.into()))
    }

    /// A file part carried inline, with its media type (such as `image/png`).
    pub fn file_bytes(bytes: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        Self::raw(bytes).with_media_type(media_type)
    }

    /// A file part the agent fetches from `url`, with its media type.
    pub fn file_url(url: impl Into<String>, media_type: impl Into<String>) -> Self {
        Self::url(url).with_media_type(media_type)
    }

    /// A structured data part.
    pub fn data(data: Value) -> Self {
        Self::new(PartContent::Data(JsonText::from_value(&data)))
    }

    /// Sets the media type.
    #[must_use]
    pub fn with_media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// Sets the file name.
    #[must_use]
    pub fn with_filename(mut self, filename: impl Into<String>) -> Self {
        self.filename = Some(filename.into());
        self
    }

    /// The text, when this is a text part.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The JSON value, when this is a data part: kept as the text it came in, so that reading a
    /// large value costs nothing until [`JsonText::value`] parses it.
    pub fn as_data(&self) -> Option<&JsonText> {
        match &self.content {
            PartContent::Data(data) => Some(data),
            _ => None,
        }
    }

    /// The bytes, when this is an inline bytes part (a file carried in the message).
    pub fn as_raw(&self) -> Option<&[u8]> {
        match &self.content {
            PartContent::Raw(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// The link, when this is a link part (a file the reader fetches).
    pub fn as_url(&self) -> Option<&str> {
        match &self.content {
            PartContent::Url(url) => Some(url),
            _ => None,
        }
    }

    /// Its media type: its own, else the one its content implies (`text/plain` for text,
    /// `application/json` for data); `None` for bytes or a link that do not say.
    pub fn implied_media_type(&self) -> Option<&str> {
        if let Some(media_type) = self.media_type.as_deref().filter(|m| !m.is_empty()) {
            return Some(media_type);
        }
        match self.content {
            PartContent::Text(_) => Some("text/plain"),
            PartContent::Data(_) => Some("application/json"),
            _ => None,
        }
    }
}

/// The wire form of a [`Part`]: every oneof member optional, so that "none" and "two" can be told
/// apart and reported instead of guessed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartRepr {
    #[serde(default)]
    text: Option<String>,
    #[serde(default, deserialize_with = "wire::base64_opt")]
    raw: Option<Vec<u8>>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default, deserialize_with = "protojson::present_text")]
    data: Option<JsonText>,
    #[serde(default)]
    metadata: Option<Metadata>,
    #[serde(default, deserialize_with = "wire::non_empty")]
    filename: Option<String>,
    #[serde(default, alias = "media_type", deserialize_with = "wire::non_empty")]
    media_type: Option<String>,
}

impl TryFrom<PartRepr> for Part {
    type Error = String;

    fn try_from(repr: PartRepr) -> Result<Self, String> {
        let mut found = Vec::new();
        if let Some(text) = repr.text {
            found.push(("text", PartContent::Text(text)));
        }
        if let Some(raw) = repr.raw {
            found.push(("raw", PartContent::Raw(raw)));
        }
        if let Some(url) = repr.url {
            found.push(("url", PartContent::Url(url)));
        }
        if let Some(data) = repr.data {
            found.push(("data", PartContent::Data(data)));
        }
        let content = wire::exactly_one("content", &["text", "raw", "url", "data"], found)?;
        Ok(Self { content, metadata: repr.metadata, filename: repr.filename, media_type: repr.media_type })
    }
}

/// Reading helpers shared by the v1 wire types (ProtoJSON leniency the derive does not give).
pub(crate) mod wire {
    use serde::{Deserialize, Deserializer};

    /// A plain proto `string` read into an `Option`: `""` (the proto default) and `null` read as
    /// `None`, so "not set" has one spelling on the Rust side.
    pub(crate) fn non_empty<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + AsRef<str>,
    {
        Ok(Option::<T>::deserialize(d)?.filter(|v| !v.as_ref().is_empty()))
    }

    /// Optional proto `bytes`: base64 in any alphabet, `null` as absent.
    pub(crate) fn base64_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => {
                crate::protojson::base64_bytes::decode(&text).map(Some).map_err(serde::de::Error::custom)
            }
        }
    }

    /// An `int32` written as a number or, as ProtoJSON also allows, as a decimal string.
    pub(crate) fn int32_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Option<i32>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a 32-bit integer")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
                i32::try_from(n)
                    .map(Some)
                    .map_err(|_| E::custom(format!("expected a 32-bit integer, found {n}")))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
                i32::try_from(n)
                    .map(Some)
                    .map_err(|_| E::custom(format!("expected a 32-bit integer, found {n}")))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Self::Value, E> {
                if n.fract() == 0.0 && n >= f64::from(i32::MIN) && n <= f64::from(i32::MAX) {
                    // Exact: integral and in range.
                    #[allow(clippy::cast_possible_truncation)]
                    Ok(Some(n as i32))
                } else {
                    Err(E::custom(format!("expected a 32-bit integer, found {n}")))
                }
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                text.trim()
                    .parse::<i32>()
                    .map(Some)
                    .map_err(|_| E::custom(format!("expected a 32-bit integer, found the string \"{text}\"")))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        d.deserialize_any(V)
    }

    /// A plain `int32`: as [`int32_opt`], with absence as 0 (a `null` member is read as absent
    /// before it gets here: [`NullAsDefault`](crate::protojson::NullAsDefault)).
    pub(crate) fn int32<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
        int32_opt(d).map(Option::unwrap_or_default)
    }

    /// Picks the one member of a oneof that was present, or says which were (none or several).
    pub(crate) fn exactly_one<T>(
        oneof: &str,
        members: &[&str],
        mut found: Vec<(&'static str, T)>,
    ) -> Result<T, String> {
        if found.len() == 1
            && let Some((_, value)) = found.pop()
        {
            return Ok(value);
        }
        let names: Vec<&str> = found.iter().map(|(name, _)| *name).collect();
        let found = if names.is_empty() { "none".to_owned() } else { names.join(" and ") };
        Err(format!("oneof {oneof} must have exactly one of {}; found {found}", members.join(", ")))
    }
}
