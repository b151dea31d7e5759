//! 0.3 `Message` and its `kind`-tagged parts.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::kinded::{self, ObjectRepr};
use crate::Metadata;
use crate::ids::{ContextId, MessageId, TaskId};

/// Who sent a 0.3 message, written `"user"` or `"agent"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The client side.
    User,
    /// The remote agent.
    Agent,
}

/// A 0.3 message (`"kind": "message"`).
///
/// The `kind` member is written on output and required on input; it is not a field because it never
/// varies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "message", rename_all = "camelCase", try_from = "ObjectRepr")]
pub struct Message {
    /// Created by the sender.
    pub message_id: MessageId,
    /// The conversation the message belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ContextId>,
    /// The task the message belongs to, when one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// Who sent it.
    pub role: Role,
    /// The content.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions the message uses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Tasks the message refers to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<TaskId>,
}

impl TryFrom<ObjectRepr> for Message {
    type Error = String;

    fn try_from(repr: ObjectRepr) -> Result<Self, String> {
        match repr.into_object(&["message"])? {
            kinded::Object::Message(message) => Ok(message),
            _ => Err(kinded::UNREACHABLE_KIND.to_owned()),
        }
    }
}

/// One piece of 0.3 content, told apart by `kind`: `"text"`, `"file"` or `"data"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", try_from = "PartRepr")]
pub enum Part {
    /// `{"kind": "text", "text": ...}`.
    #[serde(rename = "text")]
    Text(TextPart),
    /// `{"kind": "file", "file": {"bytes" | "uri", "mimeType", "name"}}`.
    #[serde(rename = "file")]
    File(FilePart),
    /// `{"kind": "data", "data": {...}}`.
    #[serde(rename = "data")]
    Data(DataPart),
}

impl Part {
    /// A text part without metadata.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextPart { text: text.into(), metadata: None })
    }
}

/// The body of a `"text"` part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The body of a `"file"` part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FilePart {
    /// The file, inline or by reference.
    pub file: FileContent,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The body of a `"data"` part: 0.3 only carries JSON objects here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DataPart {
    /// The structured content.
    pub data: Map<String, Value>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A 0.3 file: `FileWithBytes` or `FileWithUri`, with its media type and name.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "FileRepr")]
pub struct FileContent {
    /// Where the content is.
    pub source: FileSource,
    /// The media type, such as `image/png` (`mimeType` on the wire).
    pub mime_type: Option<String>,
    /// The file name.
    pub name: Option<String>,
}

/// Where a 0.3 file's content is: inline bytes (base64 on the wire) or a URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileSource {
    /// `"bytes"`: the content itself.
    Bytes(Vec<u8>),
    /// `"uri"`: where to fetch it.
    Uri(String),
}

impl Serialize for FileContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match &self.source {
            FileSource::Bytes(bytes) => {
                map.serialize_entry("bytes", &base64::engine::general_purpose::STANDARD.encode(bytes))?;
            }
            FileSource::Uri(uri) => map.serialize_entry("uri", uri)?,
        }
        if let Some(mime_type) = &self.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        if let Some(name) = &self.name {
            map.serialize_entry("name", name)?;
        }
        map.end()
    }
}

/// Every member a 0.3 file may carry; [`FileContent`] checks that exactly one source is present.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileRepr {
    #[serde(default, deserialize_with = "optional_base64")]
    bytes: Option<Vec<u8>>,
    uri: Option<String>,
    mime_type: Option<String>,
    name: Option<String>,
}

fn optional_base64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(text) => {
            crate::protojson::base64_bytes::decode(&text).map(Some).map_err(serde::de::Error::custom)
        }
    }
}

impl TryFrom<FileRepr> for FileContent {
    type Error = String;

    fn try_from(repr: FileRepr) -> Result<Self, String> {
        let source = match (repr.bytes, repr.uri) {
            (Some(bytes), None) => FileSource::Bytes(bytes),
            (None, Some(uri)) => FileSource::Uri(uri),
            (None, None) => return Err("a file must have exactly one of bytes, uri; found none".to_owned()),
            (Some(_), Some(_)) => {
                return Err("a file must have exactly one of bytes, uri; found bytes and uri".to_owned());
            }
        };
        Ok(Self { source, mime_type: repr.mime_type, name: repr.name })
    }
}

/// Every member a 0.3 part may carry; [`Part`] picks the one its `kind` names.
///
/// Reading through a plain struct (not serde's internally tagged enum, which buffers) keeps the JSON
/// path of an error inside the part, such as `parts[0].text`.
#[derive(Deserialize)]
struct PartRepr {
    kind: Option<String>,
    text: Option<String>,
    file: Option<FileContent>,
    data: Option<Map<String, Value>>,
    metadata: Option<Metadata>,
}

const PART_KINDS: &str = "\"text\", \"file\", \"data\"";

impl TryFrom<PartRepr> for Part {
    type Error = String;

    fn try_from(repr: PartRepr) -> Result<Self, String> {
        let metadata = repr.metadata;
        match repr.kind.as_deref() {
            Some("text") => {
                let text = kinded::required(repr.text, "text", "text")?;
                Ok(Self::Text(TextPart { text, metadata }))
            }
            Some("file") => {
                let file = kinded::required(repr.file, "file", "file")?;
                Ok(Self::File(FilePart { file, metadata }))
            }
            Some("data") => {
                let data = kinded::required(repr.data, "data", "data")?;
                Ok(Self::Data(DataPart { data, metadata }))
            }
            Some(other) => Err(format!("unknown part kind \"{other}\"; expected one of {PART_KINDS}")),
            None => Err(format!("missing field `kind`; expected one of {PART_KINDS}")),
        }
    }
}
