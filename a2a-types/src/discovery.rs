//! Which protocol versions and bindings an agent offers, read from any card (1.0 or 0.3 shape).
//!
//! A client fetches a card before it knows which protocol version the agent speaks, so this module
//! works on raw JSON rather than on [`AgentCard`](crate::AgentCard):
//!
//! - 1.0 cards list `supportedInterfaces` in order of preference (spec §8.3.1). An entry without a
//!   `protocolVersion` (REQUIRED, but Microsoft Agent Framework's documented card leaves it out) is
//!   read as 1.0, the version whose member lists it; a 0.3 interface there names its version.
//! - 0.3 cards name a main `url` with its `preferredTransport` (JSONRPC when absent), then
//!   `additionalInterfaces` (`{url, transport}`); the version is the card's `protocolVersion`.
//! - A card with both (a2a-sdk's 0.3-compatible cards merge 0.3 fields into a 1.0 card) is read from
//!   `supportedInterfaces` alone, which already lists the 0.3 endpoint.
//!
//! ```
//! use a2a_typestate_types::discovery::{offered_interfaces, select_interface, ProtocolBinding, ProtocolVersion};
//!
//! let card = serde_json::json!({
//!     "url": "https://a.example/rpc", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
//!     "additionalInterfaces": [{"url": "https://a.example/rest", "transport": "HTTP+JSON"}]
//! });
//! let offered = offered_interfaces(&card).unwrap();
//! assert_eq!(offered.len(), 2);
//! assert_eq!(offered[0].protocol_version, ProtocolVersion::V0_3);
//!
//! let versions = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
//! let chosen = select_interface(&offered, &versions, &[ProtocolBinding::HttpJson]);
//! assert_eq!(chosen.map(|i| i.url.as_str()), Some("https://a.example/rest"));
//! ```

use std::fmt;

use serde_json::Value;

use crate::parse::{self, ParseError, describe, shape_error};

/// An A2A protocol version as a card declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    /// `"1.0"`: ProtoJSON payloads, the `A2A-Version: 1.0` header.
    V1_0,
    /// `"0.3"` (cards often write `"0.3.0"`), also what an empty version means.
    V0_3,
    /// Any other version, as written on the card.
    Other(String),
}

impl ProtocolVersion {
    /// Reads a version string. Only major and minor count (spec §3.6: patch versions are not part of
    /// the protocol version), so `"0.3.0"` is [`V0_3`](Self::V0_3); `""` is 0.3 too.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        let mut parts = text.split('.');
        let major_minor = (parts.next(), parts.next());
        match major_minor {
            (Some(""), None) => Self::V0_3,
            (Some("1"), Some("0")) => Self::V1_0,
            (Some("0"), Some("3")) => Self::V0_3,
            _ => Self::Other(text.to_owned()),
        }
    }

    /// The `Major.Minor` form to send in `A2A-Version`, such as `"1.0"`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
            Self::Other(text) => text,
        }
    }

    /// How much a client should prefer this version: lower is better (1.0, then 0.3, then others).
    fn rank(&self) -> u8 {
        match self {
            Self::V1_0 => 0,
            Self::V0_3 => 1,
            Self::Other(_) => 2,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A transport binding as a card declares it (`protocolBinding` in 1.0, `transport` in 0.3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolBinding {
    /// `"JSONRPC"`: JSON-RPC 2.0 over HTTP, with SSE for streams.
    JsonRpc,
    /// `"HTTP+JSON"`: the REST binding.
    HttpJson,
    /// `"GRPC"`.
    Grpc,
    /// A custom binding (spec §5.8: should be a URI), as written on the card.
    Other(String),
}

impl ProtocolBinding {
    /// Reads a binding name; the core names are matched without regard to ASCII case.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        if text.eq_ignore_ascii_case("JSONRPC") {
            Self::JsonRpc
        } else if text.eq_ignore_ascii_case("HTTP+JSON") {
            Self::HttpJson
        } else if text.eq_ignore_ascii_case("GRPC") {
            Self::Grpc
        } else {
            Self::Other(text.to_owned())
        }
    }

    /// The name as the spec writes it, such as `"HTTP+JSON"`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::JsonRpc => "JSONRPC",
            Self::HttpJson => "HTTP+JSON",
            Self::Grpc => "GRPC",
            Self::Other(text) => text,
        }
    }
}

impl fmt::Display for ProtocolBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One endpoint an agent offers: a protocol version over a binding at a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfferedInterface {
    /// The protocol version spoken at this endpoint.
    pub protocol_version: ProtocolVersion,
    /// The binding used at this endpoint.
    pub binding: ProtocolBinding,
    /// The endpoint URL.
    pub url: String,
    /// The tenant to send with every request to this endpoint (spec §8.3.2 rule 4); 0.3 has none.
    pub tenant: Option<String>,
}

/// The interfaces a card offers, in the agent's order of preference.
///
/// # Errors
/// A [`ParseError`] naming the path when the card is not an object, offers no interface at all, or
/// an interface has no URL, no binding, or a field of the wrong type.
pub fn offered_interfaces(card: &Value) -> Result<Vec<OfferedInterface>, ParseError> {
    let Some(object) = card.as_object() else {
        return Err(shape_error("", format!("expected an agent card object, found {}", describe(card))));
    };
    if let Some((key, list)) = field(object, "supportedInterfaces", "supported_interfaces") {
        let offered = v1_interfaces(key, list)?;
        if !offered.is_empty() {
            return Ok(offered);
        }
        if !object.contains_key("url") {
            return Err(shape_error(key, "the card offers no interface: supportedInterfaces is empty"));
        }
        // An empty 1.0 list beside 0.3 fields: the 0.3 fields are all the card offers.
    }
    if object.contains_key("url") {
        return v03_interfaces(object);
    }
    Err(shape_error("", "the card offers no interface: expected supportedInterfaces (1.0) or url (0.3)"))
}

/// [`offered_interfaces`] on the raw bytes of a card, with the size limit of [`parse::from_slice`].
///
/// Only the members that name interfaces are read into a `Value`; the rest of the document is
/// checked for syntax and skipped, so a large card costs no more than its interfaces.
///
/// # Errors
/// As [`offered_interfaces`], and a syntax or size error when the bytes are not a JSON document
/// within the limit.
pub fn offered_interfaces_from_slice(bytes: &[u8]) -> Result<Vec<OfferedInterface>, ParseError> {
    let card: InterfaceMembers = parse::from_slice(bytes)?;
    offered_interfaces(&card.0)
}

/// The members of a card [`offered_interfaces`] reads, in both spellings.
const INTERFACE_MEMBERS: &[&str] = &[
    "supportedInterfaces",
    "supported_interfaces",
    "url",
    "protocolVersion",
    "protocol_version",
    "preferredTransport",
    "preferred_transport",
    "additionalInterfaces",
    "additional_interfaces",
];

/// A document reduced to its [`INTERFACE_MEMBERS`] (an object), or to its kind (anything else, so
/// the error can say what was found).
struct InterfaceMembers(Value);

impl<'de> serde::Deserialize<'de> for InterfaceMembers {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an agent card")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
                let mut kept = serde_json::Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if INTERFACE_MEMBERS.contains(&key.as_str()) {
                        kept.insert(key, map.next_value()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Value::Object(kept))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Value::Array(Vec::new()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
                Ok(Value::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
                Ok(Value::from(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
                Ok(Value::from(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
                Ok(Value::from(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Value, E> {
                Ok(Value::String(String::new()))
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
        }
        d.deserialize_any(Members).map(InterfaceMembers)
    }
}

/// Picks the interface a client should use: among those whose version is in `versions` and binding
/// in `bindings`, the newest protocol version (1.0 before 0.3), then the earliest on the card.
///
/// Returns `None` when the agent offers nothing the client can speak.
pub fn select_interface<'a>(
    offered: &'a [OfferedInterface],
    versions: &[ProtocolVersion],
    bindings: &[ProtocolBinding],
) -> Option<&'a OfferedInterface> {
    offered
        .iter()
        .filter(|i| versions.contains(&i.protocol_version) && bindings.contains(&i.binding))
        // `min_by_key` keeps the first of equal keys, so card order breaks ties.
        .min_by_key(|i| i.protocol_version.rank())
}

fn v1_interfaces(key: &str, list: &Value) -> Result<Vec<OfferedInterface>, ParseError> {
    let Some(items) = list.as_array() else {
        return Err(shape_error(key, format!("expected an array of interfaces, found {}", describe(list))));
    };
    let mut offered = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let path = format!("{key}[{index}]");
        let Some(entry) = item.as_object() else {
            return Err(shape_error(
                &path,
                format!("expected an interface object, found {}", describe(item)),
            ));
        };
        let url = required_string(entry, &path, "url", "url")?;
        let binding = required_string(entry, &path, "protocolBinding", "protocol_binding")?;
        let version = optional_string(entry, &path, "protocolVersion", "protocol_version")?;
        let tenant = optional_string(entry, &path, "tenant", "tenant")?.filter(|t| !t.is_empty());
        offered.push(OfferedInterface {
            protocol_version: match version.as_deref().map(str::trim) {
                None | Some("") => ProtocolVersion::V1_0,
                Some(version) => ProtocolVersion::parse(version),
            },
            binding: ProtocolBinding::parse(&binding),
            url,
            tenant,
        });
    }
    Ok(offered)
}

fn v03_interfaces(card: &serde_json::Map<String, Value>) -> Result<Vec<OfferedInterface>, ParseError> {
    let version = optional_string(card, "", "protocolVersion", "protocol_version")?;
    let version = ProtocolVersion::parse(version.as_deref().unwrap_or(""));
    let url = required_string(card, "", "url", "url")?;
    let transport = optional_string(card, "", "preferredTransport", "preferred_transport")?
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "JSONRPC".to_owned());
    let mut offered = vec![OfferedInterface {
        protocol_version: version.clone(),
        binding: ProtocolBinding::parse(&transport),
        url,
        tenant: None,
    }];
    let Some((key, list)) = field(card, "additionalInterfaces", "additional_interfaces") else {
        return Ok(offered);
    };
    let Some(items) = list.as_array() else {
        return Err(shape_error(key, format!("expected an array of interfaces, found {}", describe(list))));
    };
    for (index, item) in items.iter().enumerate() {
        let path = format!("{key}[{index}]");
        let Some(entry) = item.as_object() else {
            return Err(shape_error(
                &path,
                format!("expected an interface object, found {}", describe(item)),
            ));
        };
        let candidate = OfferedInterface {
            protocol_version: version.clone(),
            binding: ProtocolBinding::parse(&required_string(entry, &path, "transport", "transport")?),
            url: required_string(entry, &path, "url", "url")?,
            tenant: None,
        };
        // 0.3 cards usually repeat the main interface here (the spec's own sample does).
        if !offered.contains(&candidate) {
            offered.push(candidate);
        }
    }
    Ok(offered)
}

/// The value of a field under its lowerCamelCase or snake_case name, with the name found; `null`
/// counts as absent (ProtoJSON).
fn field<'a>(
    object: &'a serde_json::Map<String, Value>,
    camel: &'static str,
    snake: &'static str,
) -> Option<(&'static str, &'a Value)> {
    [camel, snake].into_iter().find_map(|name| object.get(name).filter(|v| !v.is_null()).map(|v| (name, v)))
}

fn optional_string(
    object: &serde_json::Map<String, Value>,
    path: &str,
    camel: &'static str,
    snake: &'static str,
) -> Result<Option<String>, ParseError> {
    match field(object, camel, snake) {
        None => Ok(None),
        Some((_, Value::String(text))) => Ok(Some(text.clone())),
        Some((name, other)) => {
            Err(shape_error(&join(path, name), format!("expected a string, found {}", describe(other))))
        }
    }
}

fn required_string(
    object: &serde_json::Map<String, Value>,
    path: &str,
    camel: &'static str,
    snake: &'static str,
) -> Result<String, ParseError> {
    match optional_string(object, path, camel, snake)? {
        Some(text) if !text.trim().is_empty() => Ok(text),
        _ => Err(shape_error(&join(path, camel), "expected a non-empty string, found none")),
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::parse::ParseErrorKind;

    fn iface(version: ProtocolVersion, binding: ProtocolBinding, url: &str) -> OfferedInterface {
        OfferedInterface { protocol_version: version, binding, url: url.to_owned(), tenant: None }
    }

    #[test]
    fn v1_card_offers_supported_interfaces_in_card_order() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0",
             "tenant": "t1"},
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ]});
        let offered = offered_interfaces(&card).unwrap();
        assert_eq!(
            offered,
            vec![
                OfferedInterface {
                    tenant: Some("t1".to_owned()),
                    ..iface(ProtocolVersion::V1_0, ProtocolBinding::HttpJson, "http://a/rest")
                },
                iface(ProtocolVersion::V1_0, ProtocolBinding::JsonRpc, "http://a/rpc"),
            ]
        );
    }

    #[test]
    fn a_supported_interface_without_a_version_is_read_as_1_0() {
        // The member that lists it is 1.0's: a 0.3 interface there names its version.
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": ""}]});
        assert_eq!(offered_interfaces(&card).unwrap()[0].protocol_version, ProtocolVersion::V1_0);
        // Microsoft Agent Framework's documented card, served by a2a-sdk with its 0.3 members.
        let card = json!({"supportedInterfaces": [{"url": "http://a/", "protocolBinding": "JSONRPC"}],
            "url": "http://a/", "preferredTransport": "JSONRPC", "protocolVersion": "0.3"});
        assert_eq!(
            offered_interfaces(&card).unwrap(),
            [iface(ProtocolVersion::V1_0, ProtocolBinding::JsonRpc, "http://a/")]
        );
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]});
        assert_eq!(offered_interfaces(&card).unwrap()[0].protocol_version, ProtocolVersion::V0_3);
    }

    #[test]
    fn empty_tenant_from_the_js_sdk_means_no_tenant() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "tenant": "", "protocolVersion": "1.0"}]});
        assert_eq!(offered_interfaces(&card).unwrap()[0].tenant, None);
    }

    #[test]
    fn snake_case_names_are_read() {
        let card = json!({"supported_interfaces": [
            {"url": "http://a/rpc", "protocol_binding": "GRPC", "protocol_version": "1.0"}]});
        assert_eq!(
            offered_interfaces(&card).unwrap(),
            vec![iface(ProtocolVersion::V1_0, ProtocolBinding::Grpc, "http://a/rpc")]
        );
    }

    #[test]
    fn v0_3_card_offers_main_url_first_then_additional_interfaces_without_repeats() {
        let card = json!({
            "url": "http://a/rpc", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
            "additionalInterfaces": [
                {"url": "http://a/rpc", "transport": "JSONRPC"},
                {"url": "http://a/rest", "transport": "HTTP+JSON"},
            ]
        });
        assert_eq!(
            offered_interfaces(&card).unwrap(),
            vec![
                iface(ProtocolVersion::V0_3, ProtocolBinding::JsonRpc, "http://a/rpc"),
                iface(ProtocolVersion::V0_3, ProtocolBinding::HttpJson, "http://a/rest"),
            ]
        );
    }

    #[test]
    fn v0_3_card_without_preferred_transport_is_jsonrpc() {
        let card = json!({"url": "http://a/rpc", "protocolVersion": "0.3.0"});
        assert_eq!(offered_interfaces(&card).unwrap()[0].binding, ProtocolBinding::JsonRpc);
    }

    #[test]
    fn card_with_both_shapes_is_read_from_supported_interfaces_only() {
        // a2a-sdk 1.3.0 with 0.3 compatibility on (transcript section 9).
        let card = json!({
            "supportedInterfaces": [
                {"url": "http://a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                {"url": "http://a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            ],
            "preferredTransport": "JSONRPC", "protocolVersion": "0.3", "url": "http://a/jsonrpc"
        });
        let offered = offered_interfaces(&card).unwrap();
        assert_eq!(offered.len(), 3);
        assert_eq!(offered[2], iface(ProtocolVersion::V0_3, ProtocolBinding::JsonRpc, "http://a/jsonrpc"));
    }

    #[test]
    fn missing_url_is_an_error_naming_the_interface() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC"}, {"protocolBinding": "JSONRPC"}]});
        let err = offered_interfaces(&card).unwrap_err();
        assert_eq!(err.to_string(), "supportedInterfaces[1].url: expected a non-empty string, found none");
    }

    #[test]
    fn wrong_type_is_an_error_naming_the_field() {
        let card = json!({"supportedInterfaces": [{"url": 7, "protocolBinding": "JSONRPC"}]});
        let err = offered_interfaces(&card).unwrap_err();
        assert_eq!(err.to_string(), "supportedInterfaces[0].url: expected a string, found a number");
        let card = json!({"url": "http://a", "additionalInterfaces": {"url": "x"}});
        let err = offered_interfaces(&card).unwrap_err();
        assert_eq!(err.path(), "additionalInterfaces");
    }

    #[test]
    fn card_offering_nothing_is_an_error() {
        let err = offered_interfaces(&json!({"name": "x"})).unwrap_err();
        assert!(err.to_string().contains("offers no interface"), "{err}");
        let err = offered_interfaces(&json!({"supportedInterfaces": []})).unwrap_err();
        assert_eq!(err.path(), "supportedInterfaces");
        let err = offered_interfaces(&json!([1])).unwrap_err();
        assert_eq!(err.to_string(), "document: expected an agent card object, found an array");
    }

    #[test]
    fn bytes_are_size_limited_and_syntax_checked() {
        assert_eq!(offered_interfaces_from_slice(b"{").unwrap_err().kind(), ParseErrorKind::Syntax);
        let offered = offered_interfaces_from_slice(br#"{"url":"http://a"}"#).unwrap();
        assert_eq!(offered[0].url, "http://a");
    }

    #[test]
    fn versions_compare_major_and_minor_only() {
        assert_eq!(ProtocolVersion::parse("1.0"), ProtocolVersion::V1_0);
        assert_eq!(ProtocolVersion::parse("1.0.0"), ProtocolVersion::V1_0);
        assert_eq!(ProtocolVersion::parse("0.3.0"), ProtocolVersion::V0_3);
        assert_eq!(ProtocolVersion::parse("0.2.5"), ProtocolVersion::Other("0.2.5".to_owned()));
        assert_eq!(ProtocolVersion::parse("1.1"), ProtocolVersion::Other("1.1".to_owned()));
        assert_eq!(ProtocolVersion::V1_0.to_string(), "1.0");
    }

    #[test]
    fn bindings_read_core_names_and_keep_custom_ones() {
        assert_eq!(ProtocolBinding::parse("HTTP+JSON"), ProtocolBinding::HttpJson);
        assert_eq!(ProtocolBinding::parse("jsonrpc"), ProtocolBinding::JsonRpc);
        let custom = ProtocolBinding::parse("https://example.com/ws");
        assert_eq!(custom.as_str(), "https://example.com/ws");
    }

    #[test]
    fn selection_prefers_1_0_over_0_3_then_card_order() {
        let offered = vec![
            iface(ProtocolVersion::V0_3, ProtocolBinding::JsonRpc, "http://a/old"),
            iface(ProtocolVersion::V1_0, ProtocolBinding::Grpc, "http://a/grpc"),
            iface(ProtocolVersion::V1_0, ProtocolBinding::HttpJson, "http://a/rest"),
            iface(ProtocolVersion::V1_0, ProtocolBinding::JsonRpc, "http://a/rpc"),
        ];
        let both = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
        let bindings = [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson];
        let chosen = select_interface(&offered, &both, &bindings).map(|i| i.url.as_str());
        assert_eq!(chosen, Some("http://a/rest"));
        let chosen = select_interface(&offered, &[ProtocolVersion::V0_3], &bindings).map(|i| i.url.as_str());
        assert_eq!(chosen, Some("http://a/old"));
        assert_eq!(select_interface(&offered, &both, &[ProtocolBinding::Other("x".to_owned())]), None);
    }
}
