//! ProtoJSON helpers shared by the wire types.
//!
//! A2A 1.0 JSON is the ProtoJSON mapping of `a2a.proto`. Serde's derive does most of it; what it does
//! not do is here: enums written by name but read by name or number, `bytes` read from any base64
//! alphabet, default values left out on output, `null` read as the default of any member of any
//! message ([`NullAsDefault`], which every [`parse`](crate::parse) entry point reads through), and
//! `google.protobuf.Value` fields where an explicit `null` still counts as present (it matters for
//! oneof members).
//!
//! ```
//! use a2a_typestate_types::protojson::{base64_bytes, enum_name, is_default};
//! use a2a_typestate_types::Role;
//!
//! assert_eq!(enum_name(Role::Agent), "ROLE_AGENT");
//! // Standard and URL-safe base64, padded or not, all read the same bytes.
//! assert_eq!(base64_bytes::decode("+/+/").unwrap(), base64_bytes::decode("-_-_").unwrap());
//! assert_eq!(base64_bytes::decode("aGk").unwrap(), b"hi");
//! assert!(is_default(&0_i32) && !is_default(&"x"));
//! ```

use serde::{Deserialize, Deserializer};

mod null;
pub use null::NullAsDefault;

/// `skip_serializing_if` predicate: ProtoJSON omits fields that hold their default value.
pub fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A proto enum with its ProtoJSON names and numbers.
pub trait ProtoEnum: Sized + Copy + 'static {
    /// The proto type name, used in error messages (`TaskState`).
    const TYPE_NAME: &'static str;
    /// An example name, used in error messages (`TASK_STATE_WORKING`).
    const EXAMPLE: &'static str;
    /// Every value with its ProtoJSON name and number.
    const VALUES: &'static [(Self, &'static str, i32)];
    /// The value used for an unknown number on input (the proto's `*_UNSPECIFIED`).
    const UNSPECIFIED: Self;
}

/// Implements `Serialize` (by name) and `Deserialize` (by name or number) for a [`ProtoEnum`].
#[macro_export]
#[doc(hidden)]
macro_rules! proto_enum_serde {
    ($ty:ty) => {
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($crate::protojson::enum_name(*self))
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::protojson::deserialize_enum(d)
            }
        }
    };
}

/// The ProtoJSON name of an enum value.
pub fn enum_name<E: ProtoEnum + PartialEq>(value: E) -> &'static str {
    E::VALUES.iter().find(|(v, _, _)| *v == value).map_or("", |(_, name, _)| name)
}

/// Reads a [`ProtoEnum`] from its name or its number. Unknown numbers read as the unspecified value,
/// as protobuf does for open enums; unknown names are an error that names the type.
pub fn deserialize_enum<'de, D: Deserializer<'de>, E: ProtoEnum>(d: D) -> Result<E, D::Error> {
    struct V<E>(std::marker::PhantomData<E>);
    impl<E: ProtoEnum> serde::de::Visitor<'_> for V<E> {
        type Value = E;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "a {} name such as \"{}\" or its number", E::TYPE_NAME, E::EXAMPLE)
        }
        fn visit_str<Er: serde::de::Error>(self, s: &str) -> Result<E, Er> {
            E::VALUES.iter().find(|(_, name, _)| *name == s).map(|(v, _, _)| *v).ok_or_else(|| {
                Er::custom(format!(
                    "unknown {} \"{s}\"; expected a name such as \"{}\"",
                    E::TYPE_NAME,
                    E::EXAMPLE
                ))
            })
        }
        fn visit_i64<Er: serde::de::Error>(self, n: i64) -> Result<E, Er> {
            Ok(E::VALUES
                .iter()
                .find(|(_, _, num)| i64::from(*num) == n)
                .map_or(E::UNSPECIFIED, |(v, _, _)| *v))
        }
        fn visit_u64<Er: serde::de::Error>(self, n: u64) -> Result<E, Er> {
            Ok(E::VALUES
                .iter()
                .find(|(_, _, num)| u64::try_from(*num).ok() == Some(n))
                .map_or(E::UNSPECIFIED, |(v, _, _)| *v))
        }
        fn visit_unit<Er: serde::de::Error>(self) -> Result<E, Er> {
            // ProtoJSON: `null` for a non-message field means the default.
            Ok(E::UNSPECIFIED)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// `serde(with = "...")` for proto `bytes`: written as standard padded base64; read from standard or
/// URL-safe base64, padded or not.
pub mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes bytes as standard padded base64.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    /// Reads base64 in any of the four alphabets ProtoJSON accepts.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        decode(&text).map_err(serde::de::Error::custom)
    }

    /// Decodes standard or URL-safe base64, padded or not.
    ///
    /// # Errors
    /// A message saying the text is not base64.
    pub fn decode(text: &str) -> Result<Vec<u8>, String> {
        let url_safe = text.contains(['-', '_']);
        let padded = text.ends_with('=');
        let engine = match (url_safe, padded) {
            (false, true) => &STANDARD,
            (false, false) => &STANDARD_NO_PAD,
            (true, true) => &URL_SAFE,
            (true, false) => &URL_SAFE_NO_PAD,
        };
        engine.decode(text).map_err(|e| format!("expected base64 bytes, found text that is not base64 ({e})"))
    }
}

/// `deserialize_with` for a `google.protobuf.Value` held in an `Option`: an explicit `null` reads as
/// `Some(null)`, so "member present with a null value" differs from "member absent". Pair it with
/// `#[serde(default)]`.
pub fn present_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<crate::JsonText>, D::Error> {
    crate::JsonText::deserialize(d).map(Some)
}

/// As [`present_text`], read into a `Value`.
pub fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// Implements `Deserialize` for a oneof enum whose JSON form is an object with exactly one member.
///
/// Members are matched by their lowerCamelCase or snake_case name without allocating the key; unknown
/// members are ignored (a newer proto may add some), and a member written as `null` counts as absent
/// (ProtoJSON's reading of `null` for a message field). No member, or more than one, is an error that
/// names the oneof, the members it allows and what was found. The member is read straight into its
/// variant: no intermediate struct holding every member, no list of what was found (a stream event is
/// read this way, once per event).
macro_rules! oneof_deserialize {
    ($ty:ident, $oneof:literal, [$(($variant:ident, $camel:literal, $snake:literal, $inner:ty)),+ $(,)?]) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const MEMBERS: &[(&str, &str)] = &[$(($camel, $snake)),+];
                struct OneofVisitor;
                impl<'de> ::serde::de::Visitor<'de> for OneofVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "an object with exactly one of {}", $crate::protojson::oneof_names(MEMBERS))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$ty, A::Error> {
                        let mut found: Option<(&'static str, $ty)> = None;
                        while let Some(member) = map.next_key_seed($crate::protojson::OneofMember(MEMBERS))? {
                            let read = match member {
                                $(Some($camel) => {
                                    map.next_value::<Option<$inner>>()?.map(|inner| ($camel, $ty::$variant(inner)))
                                })+
                                _ => {
                                    map.next_value::<::serde::de::IgnoredAny>()?;
                                    continue;
                                }
                            };
                            let Some((name, value)) = read else { continue };
                            if let Some((first, _)) = &found {
                                return Err(::serde::de::Error::custom(format!(
                                    "oneof {} must have exactly one of {}; found {} and {}",
                                    $oneof,
                                    $crate::protojson::oneof_names(MEMBERS),
                                    first,
                                    name
                                )));
                            }
                            found = Some((name, value));
                        }
                        found.map(|(_, value)| value).ok_or_else(|| {
                            ::serde::de::Error::custom(format!(
                                "oneof {} must have exactly one of {}; found none",
                                $oneof,
                                $crate::protojson::oneof_names(MEMBERS)
                            ))
                        })
                    }
                }
                d.deserialize_map(OneofVisitor)
            }
        }
    };
}
pub(crate) use oneof_deserialize;

/// The members of a oneof by their lowerCamelCase names, for messages.
pub(crate) fn oneof_names(members: &[(&str, &str)]) -> String {
    members.iter().map(|(camel, _)| *camel).collect::<Vec<_>>().join(", ")
}

/// A oneof's member key: the lowerCamelCase name of the member it names (by either spelling), `None`
/// for any other key. Matched on the borrowed key, so reading it allocates nothing.
pub(crate) struct OneofMember(pub(crate) &'static [(&'static str, &'static str)]);

impl<'de> serde::de::DeserializeSeed<'de> for OneofMember {
    type Value = Option<&'static str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<&'static str>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl serde::de::Visitor<'_> for OneofMember {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Option<&'static str>, E> {
        Ok(self.0.iter().find(|(camel, snake)| key == *camel || key == *snake).map(|(camel, _)| *camel))
    }
}

#[cfg(test)]
mod tests {
    use super::base64_bytes::decode;

    #[test]
    fn base64_accepts_every_alphabet_and_padding() {
        let expected = vec![0xfb, 0xff, 0xbf];
        assert_eq!(decode("+/+/").unwrap(), expected);
        assert_eq!(decode("-_-_").unwrap(), expected);
        assert_eq!(decode("aGk=").unwrap(), b"hi");
        assert_eq!(decode("aGk").unwrap(), b"hi");
    }

    #[test]
    fn base64_rejects_garbage_with_a_message() {
        assert!(decode("@@@").unwrap_err().contains("not base64"));
    }
}
