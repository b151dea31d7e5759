//! Conversion between the 0.3 shapes and the 1.0 model, reporting what the target cannot hold.
//!
//! The mapping rules and the full list of reported losses are in the [`v03`](super) module docs.

use std::fmt;

mod card;
mod events;
mod push;
mod security;
mod task;

/// The result of a conversion: the converted value and everything it could not carry.
///
/// An empty [`losses`](Self::losses) means the value holds all the information of the source.
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a conversion may have lost information; look at `losses`"]
pub struct Converted<T> {
    /// The converted value.
    pub value: T,
    /// What the target version cannot express, in source order.
    pub losses: Vec<ConversionLoss>,
}

impl<T> Converted<T> {
    /// `true` when nothing was lost.
    pub fn is_lossless(&self) -> bool {
        self.losses.is_empty()
    }

    /// The value when nothing was lost; otherwise the whole result back, losses included.
    ///
    /// # Errors
    /// `self`, unchanged, when [`losses`](Self::losses) is not empty.
    pub fn lossless(self) -> Result<T, Self> {
        if self.losses.is_empty() { Ok(self.value) } else { Err(self) }
    }
}

/// One piece of information a conversion could not carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionLoss {
    /// The JSON path of the value in the source document (`capabilities.pushNotifications`,
    /// `status.message.parts[0].filename`); empty for the document as a whole.
    pub path: String,
    /// What was lost and why, such as `tenant "acme" has no 0.3 form`.
    pub what: String,
}

impl fmt::Display for ConversionLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "document: {}", self.what)
        } else {
            write!(f, "{}: {}", self.path, self.what)
        }
    }
}

/// Collects losses while a conversion walks the source.
#[derive(Default)]
struct Losses(Vec<ConversionLoss>);

impl Losses {
    fn lose(&mut self, path: String, what: impl Into<String>) {
        self.0.push(ConversionLoss { path, what: what.into() });
    }

    fn finish<T>(self, value: T) -> Converted<T> {
        Converted { value, losses: self.0 }
    }
}

/// A 1.0 string field whose empty value (the proto default) means "not set" in 0.3.
fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// `prefix` followed by the member `field` (`status` + `message` = `status.message`).
fn at(prefix: &str, field: &str) -> String {
    if prefix.is_empty() { field.to_owned() } else { format!("{prefix}.{field}") }
}

/// `prefix` followed by an array index (`parts` + 0 = `parts[0]`).
fn index(prefix: &str, i: usize) -> String {
    format!("{prefix}[{i}]")
}

/// Writes `to_v1` and `from_v1` for a 0.3 type from the two walking functions.
macro_rules! conversions {
    ($v03:ty, $v1:ty, $to:path, $from:path) => {
        impl $v03 {
            /// Converts to the 1.0 model; `losses` lists what 1.0 cannot hold (see the
            /// [`v03`](crate::v03) docs).
            pub fn to_v1(&self) -> $crate::v03::Converted<$v1> {
                let mut losses = $crate::v03::convert::Losses::default();
                let value = $to(self, "", &mut losses);
                losses.finish(value)
            }

            /// Converts from the 1.0 model; `losses` lists what 0.3 cannot hold (see the
            /// [`v03`](crate::v03) docs).
            pub fn from_v1(value: &$v1) -> $crate::v03::Converted<Self> {
                let mut losses = $crate::v03::convert::Losses::default();
                let value = $from(value, "", &mut losses);
                losses.finish(value)
            }
        }
    };
}
use conversions;
