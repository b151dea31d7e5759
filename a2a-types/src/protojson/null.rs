//! [`NullAsDefault`]: a member written `null` reads as the member left out, in every message.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// What `null` means at a position of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Null {
    /// A member of a message: `null` reads as the member's empty value.
    Absent,
    /// The document itself, an element of an array, a value of a map: `null` is read as it is.
    Itself,
}

/// A deserializer that reads a member written `null` as that member left out, in every message of
/// both versions; everything else is read by the deserializer it wraps, unchanged.
///
/// ProtoJSON accepts `null` for any field and reads it as the field's default; only a
/// `google.protobuf.Value` keeps it (as `NullValue`), and `null` is no element of a repeated field
/// and no value of a map. Agents write it for every member they leave unset (Agno's cards carry
/// `"tags": null`, `"extensions": null`, `"provider": null`...), so the model reads it once, here,
/// for every message of both versions, rather than field by field.
///
/// How it knows what a member is: a message is read through `deserialize_struct` (serde's derive
/// does this, and so do the hand-written card readers), a proto map or `Struct` through
/// `deserialize_map`, a repeated field through `deserialize_seq`. Only the values of a struct are
/// members. A member asked for as a sequence, map, message, string, number, boolean or bytes that is
/// `null` reads as the empty one, which is what the derive's `#[serde(default)]` gives the member
/// left out; an `Option` reads `None`; a value read without a type hint (`deserialize_any`: a
/// `serde_json::Value`, a [`JsonText`](crate::JsonText), an enum read by name or number) sees the
/// `null` itself, so a `Value` keeps it and an enum reads its unspecified value. Elements of arrays
/// and values of maps are never rewritten: `["a", null]` still fails where a string is expected,
/// with the path of the element.
///
/// A member that has no empty value (a 0.3 enum, a oneof) is refused when it is `null` as when it is
/// missing.
///
/// A `null` member is **not a deviation**: nothing is recorded in a connection's deviation log and
/// strict reading does not fail on it. The ProtoJSON mapping makes every parser accept `null` for
/// every field, so an agent that writes it conforms; listing it would flag every agent whose
/// framework dumps its models with their unset members (Pydantic's default) for following the
/// mapping, and bury the deviations that change what an answer means. A `null` array element or map
/// value does not conform, and is refused.
///
/// Every [`parse`](crate::parse) entry point reads through it; a caller that reads with
/// `serde_json` directly wraps its deserializer the same way:
///
/// ```
/// use a2a_typestate_types::protojson::NullAsDefault;
/// use a2a_typestate_types::AgentSkill;
/// use serde::Deserialize;
///
/// let json = r#"{"id":"s","name":"n","description":"d","tags":null,"examples":null}"#;
/// let mut de = serde_json::Deserializer::from_str(json);
/// let skill = AgentSkill::deserialize(NullAsDefault::new(&mut de)).unwrap();
/// assert!(skill.tags.is_empty() && skill.examples.is_empty());
/// ```
#[derive(Debug)]
pub struct NullAsDefault<D> {
    inner: D,
    null: Null,
}

impl<D> NullAsDefault<D> {
    /// Wraps the deserializer of a whole document.
    pub fn new(inner: D) -> Self {
        Self { inner, null: Null::Itself }
    }

    fn at(inner: D, null: Null) -> Self {
        Self { inner, null }
    }
}

/// The type hints whose `null` member has an empty value to read instead.
#[derive(Clone, Copy)]
enum Shape {
    Bool,
    Signed,
    Unsigned,
    Float,
    Str,
    Bytes,
    Unit,
    UnitStruct(&'static str),
    Seq,
    Map,
    Struct(&'static str, &'static [&'static str]),
}

impl Shape {
    /// The empty value of this shape, handed to `visitor`.
    fn empty<'de, V: Visitor<'de>, E: de::Error>(self, visitor: V) -> Result<V::Value, E> {
        match self {
            Shape::Bool => visitor.visit_bool(false),
            Shape::Signed => visitor.visit_i64(0),
            Shape::Unsigned => visitor.visit_u64(0),
            Shape::Float => visitor.visit_f64(0.0),
            Shape::Str => visitor.visit_borrowed_str(""),
            Shape::Bytes => visitor.visit_borrowed_bytes(&[]),
            Shape::Unit | Shape::UnitStruct(_) => visitor.visit_unit(),
            Shape::Seq => visitor.visit_seq(Empty(PhantomData)),
            Shape::Map | Shape::Struct(..) => visitor.visit_map(Empty(PhantomData)),
        }
    }

    /// Reads a present value of this shape from `d`, its children read by their own rules.
    fn read<'de, D: Deserializer<'de>, V: Visitor<'de>>(
        self,
        d: D,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        match self {
            Shape::Bool => d.deserialize_bool(visitor),
            Shape::Signed => d.deserialize_i64(visitor),
            Shape::Unsigned => d.deserialize_u64(visitor),
            Shape::Float => d.deserialize_f64(visitor),
            Shape::Str => d.deserialize_str(visitor),
            Shape::Bytes => d.deserialize_bytes(visitor),
            Shape::Unit => d.deserialize_unit(visitor),
            Shape::UnitStruct(name) => d.deserialize_unit_struct(name, visitor),
            Shape::Seq => d.deserialize_seq(Wrap::new(visitor, Null::Itself)),
            Shape::Map => d.deserialize_map(Wrap::new(visitor, Null::Itself)),
            Shape::Struct(name, fields) => {
                d.deserialize_struct(name, fields, Wrap::new(visitor, Null::Absent))
            }
        }
    }
}

impl<'de, D: Deserializer<'de>> NullAsDefault<D> {
    /// Reads a value of `shape`: a `null` member as its empty value, anything else as it is.
    fn shaped<V: Visitor<'de>>(self, shape: Shape, visitor: V) -> Result<V::Value, D::Error> {
        match self.null {
            Null::Absent => self.inner.deserialize_option(OrEmpty { shape, visitor }),
            Null::Itself => shape.read(self.inner, visitor),
        }
    }
}

/// Reads a value the caller asked for exactly (the integer and float widths stay the inner
/// deserializer's), its `null` as the empty value when it is a member.
macro_rules! shaped {
    ($($method:ident => $shape:expr),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            match self.null {
                Null::Absent => self.inner.deserialize_option(OrEmpty { shape: $shape, visitor }),
                Null::Itself => self.inner.$method(visitor),
            }
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for NullAsDefault<D> {
    type Error = D::Error;

    /// No type hint (`Value`, `JsonText`, enums by name or number, untagged readers): the value as
    /// it is, `null` included.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(visitor)
    }

    shaped! {
        deserialize_bool => Shape::Bool,
        deserialize_i8 => Shape::Signed,
        deserialize_i16 => Shape::Signed,
        deserialize_i32 => Shape::Signed,
        deserialize_i64 => Shape::Signed,
        deserialize_i128 => Shape::Signed,
        deserialize_u8 => Shape::Unsigned,
        deserialize_u16 => Shape::Unsigned,
        deserialize_u32 => Shape::Unsigned,
        deserialize_u64 => Shape::Unsigned,
        deserialize_u128 => Shape::Unsigned,
        deserialize_f32 => Shape::Float,
        deserialize_f64 => Shape::Float,
        deserialize_str => Shape::Str,
        deserialize_string => Shape::Str,
        deserialize_bytes => Shape::Bytes,
        deserialize_byte_buf => Shape::Bytes,
        deserialize_unit => Shape::Unit,
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_char(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_option(Wrap::new(visitor, self.null))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.shaped(Shape::UnitStruct(name), visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // serde_json's own types (`RawValue`, arbitrary-precision numbers) talk to it through
        // private names: they must reach it untouched.
        if name.starts_with("$serde_json::") {
            return self.inner.deserialize_newtype_struct(name, visitor);
        }
        self.inner.deserialize_newtype_struct(name, Wrap::new(visitor, self.null))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.shaped(Shape::Seq, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_tuple(len, Wrap::new(visitor, Null::Itself))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_tuple_struct(name, len, Wrap::new(visitor, Null::Itself))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.shaped(Shape::Map, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.shaped(Shape::Struct(name, fields), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_enum(name, variants, Wrap::new(visitor, Null::Itself))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_identifier(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_ignored_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The visitor of a member asked for with a type hint: `null` (which the inner deserializer
/// reports as none) gives the hint's empty value; anything else is read with the hint.
struct OrEmpty<V> {
    shape: Shape,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for OrEmpty<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.shape.empty(self.visitor)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.shape.empty(self.visitor)
    }

    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.shape.read(d, self.visitor)
    }
}

/// A visitor passed down to the inner deserializer: what it hands back (a map, a sequence, an
/// option's content, a newtype's content, an enum) is wrapped so its own members are read by the
/// same rule.
struct Wrap<V> {
    visitor: V,
    /// What `null` means for the value this visitor reads (its option content, its newtype content);
    /// a map's values are members when that value is a message, read with [`Null::Absent`].
    null: Null,
}

impl<V> Wrap<V> {
    fn new(visitor: V, null: Null) -> Self {
        Self { visitor, null }
    }
}

macro_rules! forward_visits {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.visitor.$method(value)
        })*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visits! {
        visit_bool(bool),
        visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64), visit_i128(i128),
        visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64), visit_u128(u128),
        visit_f32(f32), visit_f64(f64),
        visit_char(char),
        visit_str(&str), visit_borrowed_str(&'de str), visit_string(String),
        visit_bytes(&[u8]), visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>),
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.visitor.visit_some(NullAsDefault::at(d, self.null))
    }

    fn visit_newtype_struct<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.visitor.visit_newtype_struct(NullAsDefault::at(d, self.null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(Elements(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Members { map, null: self.null })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Variant(data))
    }
}

/// A seed whose value is read at a position where `null` means `null`.
struct At<S> {
    seed: S,
    null: Null,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for At<S> {
    type Value = S::Value;

    fn deserialize<D2: Deserializer<'de>>(self, d: D2) -> Result<S::Value, D2::Error> {
        self.seed.deserialize(NullAsDefault::at(d, self.null))
    }
}

/// The elements of an array: never rewritten themselves, their members are.
struct Elements<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Elements<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(At { seed, null: Null::Itself })
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// The entries of an object: the values are members when the object is a message
/// ([`Null::Absent`]), map values otherwise. Keys pass through unread.
struct Members<A> {
    map: A,
    null: Null,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(At { seed, null: self.null })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An externally tagged enum's content: read like an array element.
struct Variant<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Variant<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), A::Error> {
        self.0.variant_seed(seed).map(|(value, variant)| (value, Variant(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(At { seed, null: Null::Itself })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap::new(visitor, Null::Itself))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap::new(visitor, Null::Absent))
    }
}

/// An empty array or object, for a `null` member read as one.
struct Empty<E>(PhantomData<E>);

impl<'de, E: de::Error> SeqAccess<'de> for Empty<E> {
    type Error = E;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, _: T) -> Result<Option<T::Value>, E> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

impl<'de, E: de::Error> MapAccess<'de> for Empty<E> {
    type Error = E;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _: K) -> Result<Option<K::Value>, E> {
        Ok(None)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, _: T) -> Result<T::Value, E> {
        Err(E::custom("internal error: a value asked of an empty object"))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::Value;

    use super::NullAsDefault;

    fn read<T: for<'de> Deserialize<'de>>(json: &str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_str(json);
        T::deserialize(NullAsDefault::new(&mut de)).map_err(|e| e.to_string())
    }

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(default)]
    struct Inner {
        flag: bool,
        count: u32,
        name: String,
    }

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(default)]
    struct Outer {
        list: Vec<String>,
        inner: Inner,
        map: BTreeMap<String, Value>,
        value: Option<Value>,
        maybe: Option<Inner>,
        nested: Vec<Inner>,
    }

    #[test]
    fn a_null_member_reads_as_the_member_left_out() {
        let nulls = r#"{"list":null,"inner":{"flag":null,"count":null,"name":null},"map":null,"maybe":null}"#;
        assert_eq!(read::<Outer>(nulls), read::<Outer>("{}"));
    }

    #[test]
    fn members_of_messages_inside_arrays_are_members_too() {
        let outer = read::<Outer>(r#"{"nested":[{"name":null,"count":3}]}"#).unwrap();
        assert_eq!(outer.nested, [Inner { count: 3, ..Inner::default() }]);
    }

    #[test]
    fn array_elements_and_map_values_keep_their_null() {
        assert!(read::<Outer>(r#"{"list":["a",null]}"#).unwrap_err().contains("null"));
        let outer = read::<Outer>(r#"{"map":{"k":null},"value":null}"#).unwrap();
        assert_eq!(outer.map.get("k"), Some(&Value::Null));
        assert_eq!(outer.value, None, "an Option member that is null is None");
    }

    #[test]
    fn a_null_document_is_not_a_member() {
        assert!(read::<Inner>("null").is_err());
        assert_eq!(read::<Option<Inner>>("null"), Ok(None));
    }

    #[test]
    fn present_values_read_as_they_would_without_it() {
        let json = r#"{"list":["a"],"inner":{"flag":true,"count":7,"name":"n"},"map":{"k":[1]}}"#;
        let outer = read::<Outer>(json).unwrap();
        assert_eq!(outer.inner, Inner { flag: true, count: 7, name: "n".to_owned() });
        assert!(read::<Outer>(r#"{"inner":{"count":"x"}}"#).unwrap_err().contains("expected u32"));
    }
}
