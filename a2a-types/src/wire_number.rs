//! Numbers from the wire, read once and checked: every number an agent, a card server, a token
//! endpoint, a shared-cache peer or a push sender controls, and that becomes a duration, a size or a
//! count, goes through one of these readers before it is used.
//!
//! A reader takes the number as it came (a JSON value, or header or string text) and a cap the
//! caller chose. It never panics. What it gives back is a [`Reading`]: the value exactly, the cap
//! when the number was past it (saturated, with the fault that says so), or a refusal (negative, not
//! a number, not a whole number where one is needed), each fault a [`WireNumber`] naming the field
//! and the value as text, cut short.
//!
//! [`instant_after`] and [`system_time_after`] add a duration to a point in time without the panic
//! `Instant + Duration` has on overflow: past [`HORIZON`] (a century) is taken as the horizon.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_types::wire_number::{self, Unit, WireNumberFault};
//!
//! let year = Duration::from_secs(365 * 86_400);
//! // 2^64 - 1 seconds is taken as the cap, and the fault says so.
//! let read = wire_number::duration_text("expires_in", "18446744073709551615", Unit::Seconds, year);
//! assert_eq!(read.value(), Some(year));
//! assert_eq!(read.fault().map(|f| f.kind()), Some(WireNumberFault::PastCap));
//! // A negative number, or text that is no number, is refused.
//! let read = wire_number::duration(
//!     "expires_in",
//!     &serde_json::json!(-1),
//!     Unit::Seconds,
//!     year,
//! );
//! assert_eq!(read.value(), None);
//! assert_eq!(read.fault().unwrap().to_string(), "expires_in is negative (-1)");
//! ```

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

/// The furthest ahead [`instant_after`] and [`system_time_after`] reach: a century. A later time
/// means "never" to any program running now, and leaves room for the small sums done after it.
pub const HORIZON: Duration = Duration::from_secs(100 * 365 * 86_400);

/// The longest value of a fault's text kept in [`WireNumber::value`], in characters.
const MAX_VALUE_TEXT: usize = 40;

/// The unit a number on the wire counts a duration in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds (`expires_in`, `max-age`, `Age`, `Retry-After`).
    Seconds,
    /// Milliseconds (the poll-cadence extension's `intervalMs`, Redis `PTTL`).
    Milliseconds,
}

/// What was wrong with a number read from the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireNumberFault {
    /// Below zero (`-0` and `-0.0` are zero, not negative).
    Negative,
    /// Not a number: text that is not a decimal number, `true`, `null`, an array or an object.
    NotANumber,
    /// A fraction where a whole number (a size or a count) is needed.
    NotWhole,
    /// Past the cap the caller gave; the reading saturates at the cap.
    PastCap,
}

/// A number from the wire that could not be taken as it came: the field, the value as text (cut
/// to 40 characters) and what was wrong. Holds no more of the document than that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireNumber {
    field: &'static str,
    value: String,
    kind: WireNumberFault,
    cap: Option<String>,
}

impl WireNumber {
    fn new(field: &'static str, value: &str, kind: WireNumberFault) -> Self {
        let mut text: String = value.chars().take(MAX_VALUE_TEXT).collect();
        if text.len() < value.len() {
            text.push('…');
        }
        Self { field, value: text, kind, cap: None }
    }

    fn past(field: &'static str, value: &str, cap: String) -> Self {
        Self { cap: Some(cap), ..Self::new(field, value, WireNumberFault::PastCap) }
    }

    /// The field the number was read from (`expires_in`, `Retry-After`, ...).
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The value as it came, as text, cut to 40 characters (an ellipsis marks the cut).
    pub fn value(&self) -> &str {
        &self.value
    }

    /// What was wrong with it.
    pub fn kind(&self) -> WireNumberFault {
        self.kind
    }
}

impl fmt::Display for WireNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (field, value) = (self.field, &self.value);
        match (self.kind, &self.cap) {
            (WireNumberFault::Negative, _) => write!(f, "{field} is negative ({value})"),
            (WireNumberFault::NotANumber, _) => write!(f, "{field} is not a number ({value})"),
            (WireNumberFault::NotWhole, _) => write!(f, "{field} is not a whole number ({value})"),
            (WireNumberFault::PastCap, Some(cap)) => write!(f, "{field} is past its cap of {cap} ({value})"),
            (WireNumberFault::PastCap, None) => write!(f, "{field} is past its cap ({value})"),
        }
    }
}

impl std::error::Error for WireNumber {}

/// A number read from the wire: exact, saturated at the caller's cap, or refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Reading<T> {
    /// The number as it came, within the cap.
    Exact(T),
    /// The number was past the cap: the cap, and the fault that says so.
    Saturated {
        /// The cap.
        value: T,
        /// The [`WireNumberFault::PastCap`] fault naming the field and the value.
        fault: WireNumber,
    },
    /// Negative, not a number, or not whole: no value.
    Refused(WireNumber),
}

impl<T: Copy> Reading<T> {
    /// The value to use: the number, or the cap when it was past it; `None` when refused.
    pub fn value(&self) -> Option<T> {
        match self {
            Self::Exact(value) | Self::Saturated { value, .. } => Some(*value),
            Self::Refused(_) => None,
        }
    }

    /// What was wrong, when anything was (saturated or refused).
    pub fn fault(&self) -> Option<&WireNumber> {
        match self {
            Self::Exact(_) => None,
            Self::Saturated { fault, .. } | Self::Refused(fault) => Some(fault),
        }
    }

    /// The value, saturated at the cap; the fault when refused.
    pub fn saturating(self) -> Result<T, WireNumber> {
        match self {
            Self::Exact(value) | Self::Saturated { value, .. } => Ok(value),
            Self::Refused(fault) => Err(fault),
        }
    }

    /// The value only when exact; past the cap is a fault too.
    pub fn exact(self) -> Result<T, WireNumber> {
        match self {
            Self::Exact(value) => Ok(value),
            Self::Saturated { fault, .. } | Self::Refused(fault) => Err(fault),
        }
    }
}

/// A non-negative number as read, before a unit or a cap is applied.
#[derive(Clone, Copy, Debug)]
enum Magnitude {
    /// A whole number that fits a `u64`.
    Whole(u64),
    /// A finite, non-negative number written with a fraction or an exponent.
    Real(f64),
    /// Larger than any `u64` or infinite (`1e400`).
    Huge,
}

/// Reads `text` as a decimal number (JSON's grammar: digits, an optional fraction and exponent),
/// ASCII whitespace around it ignored.
fn magnitude_of_text(text: &str) -> Result<Magnitude, WireNumberFault> {
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if !is_decimal(body) {
        return Err(WireNumberFault::NotANumber);
    }
    let magnitude = if body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse::<u64>().map_or(Magnitude::Huge, Magnitude::Whole)
    } else {
        match body.parse::<f64>() {
            Ok(real) if real.is_finite() => Magnitude::Real(real),
            Ok(_) => Magnitude::Huge,
            Err(_) => return Err(WireNumberFault::NotANumber),
        }
    };
    let zero = match magnitude {
        Magnitude::Whole(n) => n == 0,
        Magnitude::Real(real) => real == 0.0,
        Magnitude::Huge => false,
    };
    match (negative, zero) {
        (true, true) => Ok(Magnitude::Whole(0)),
        (true, false) => Err(WireNumberFault::Negative),
        (false, _) => Ok(magnitude),
    }
}

/// `digits ('.' digits)? ([eE] [+-]? digits)?`
fn is_decimal(text: &str) -> bool {
    fn digits(bytes: &[u8]) -> usize {
        bytes.iter().take_while(|b| b.is_ascii_digit()).count()
    }
    let bytes = text.as_bytes();
    let mut at = digits(bytes);
    if at == 0 {
        return false;
    }
    if bytes.get(at) == Some(&b'.') {
        let fraction = digits(&bytes[at + 1..]);
        if fraction == 0 {
            return false;
        }
        at += 1 + fraction;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let exponent = digits(&bytes[at..]);
        if exponent == 0 {
            return false;
        }
        at += exponent;
    }
    at == bytes.len()
}

/// Reads a JSON value: a number, or a string holding one.
fn magnitude_of_value(value: &Value) -> Result<Magnitude, WireNumberFault> {
    match value {
        Value::Number(number) => {
            if let Some(whole) = number.as_u64() {
                Ok(Magnitude::Whole(whole))
            } else if number.as_i64().is_some() {
                Err(WireNumberFault::Negative)
            } else {
                match number.as_f64() {
                    // Matches -0.0 too: a float pattern compares with `==`.
                    Some(0.0) => Ok(Magnitude::Whole(0)),
                    Some(real) if real < 0.0 => Err(WireNumberFault::Negative),
                    Some(real) if real.is_finite() => Ok(Magnitude::Real(real)),
                    Some(_) => Ok(Magnitude::Huge),
                    None => Err(WireNumberFault::NotANumber),
                }
            }
        }
        Value::String(text) => magnitude_of_text(text),
        _ => Err(WireNumberFault::NotANumber),
    }
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text:?}"),
        other => other.to_string(),
    }
}

fn cap_text(cap: Duration) -> String {
    crate::human::HumanDuration(cap).to_string()
}

fn to_duration(
    field: &'static str,
    text: &dyn Fn() -> String,
    magnitude: Magnitude,
    unit: Unit,
    cap: Duration,
) -> Reading<Duration> {
    let exact = match (magnitude, unit) {
        (Magnitude::Whole(n), Unit::Seconds) => Some(Duration::from_secs(n)),
        (Magnitude::Whole(n), Unit::Milliseconds) => Some(Duration::from_millis(n)),
        (Magnitude::Real(real), Unit::Seconds) => Duration::try_from_secs_f64(real).ok(),
        (Magnitude::Real(real), Unit::Milliseconds) => Duration::try_from_secs_f64(real / 1e3).ok(),
        (Magnitude::Huge, _) => None,
    };
    match exact {
        Some(duration) if duration <= cap => Reading::Exact(duration),
        _ => Reading::Saturated { value: cap, fault: WireNumber::past(field, &text(), cap_text(cap)) },
    }
}

fn to_count(field: &'static str, text: &dyn Fn() -> String, magnitude: Magnitude, cap: u64) -> Reading<u64> {
    let exact = match magnitude {
        Magnitude::Whole(n) => Some(n),
        Magnitude::Real(real) if real.fract() != 0.0 => {
            return Reading::Refused(WireNumber::new(field, &text(), WireNumberFault::NotWhole));
        }
        // Whole and finite, but written with an exponent: exact below 2^64, past it otherwise
        // (`as` saturates; the comparison below decides).
        Magnitude::Real(real) if real < 18_446_744_073_709_551_616.0 => Some(real as u64),
        Magnitude::Real(_) | Magnitude::Huge => None,
    };
    match exact {
        Some(n) if n <= cap => Reading::Exact(n),
        _ => Reading::Saturated { value: cap, fault: WireNumber::past(field, &text(), cap.to_string()) },
    }
}

/// A duration from a JSON value (a number, or a string holding one) counted in `unit`, at most
/// `cap`. Fractions are kept to the nanosecond.
pub fn duration(field: &'static str, value: &Value, unit: Unit, cap: Duration) -> Reading<Duration> {
    match magnitude_of_value(value) {
        Ok(magnitude) => to_duration(field, &|| value_text(value), magnitude, unit, cap),
        Err(kind) => Reading::Refused(WireNumber::new(field, &value_text(value), kind)),
    }
}

/// A duration from text (a header value, a string field) counted in `unit`, at most `cap`.
pub fn duration_text(field: &'static str, text: &str, unit: Unit, cap: Duration) -> Reading<Duration> {
    match magnitude_of_text(text) {
        Ok(magnitude) => to_duration(field, &|| text.to_owned(), magnitude, unit, cap),
        Err(kind) => Reading::Refused(WireNumber::new(field, text, kind)),
    }
}

/// A duration from a number a peer sent already typed (a Redis `PTTL`, a TTL in a published
/// event), counted in `unit`, at most `cap`. Pass a `u64` or an `i64` with `.into()`.
pub fn duration_int(field: &'static str, n: i128, unit: Unit, cap: Duration) -> Reading<Duration> {
    let text = || n.to_string();
    match u64::try_from(n) {
        Ok(whole) => to_duration(field, &text, Magnitude::Whole(whole), unit, cap),
        Err(_) if n < 0 => Reading::Refused(WireNumber::new(field, &text(), WireNumberFault::Negative)),
        Err(_) => to_duration(field, &text, Magnitude::Huge, unit, cap),
    }
}

/// A count from a JSON value (a number, or a string holding one), at most `cap`. A fraction is
/// refused ([`WireNumberFault::NotWhole`]); `1e3` is a thousand.
pub fn count(field: &'static str, value: &Value, cap: u64) -> Reading<u64> {
    match magnitude_of_value(value) {
        Ok(magnitude) => to_count(field, &|| value_text(value), magnitude, cap),
        Err(kind) => Reading::Refused(WireNumber::new(field, &value_text(value), kind)),
    }
}

/// A count from text (a header value such as `Content-Length`), at most `cap`.
pub fn count_text(field: &'static str, text: &str, cap: u64) -> Reading<u64> {
    match magnitude_of_text(text) {
        Ok(magnitude) => to_count(field, &|| text.to_owned(), magnitude, cap),
        Err(kind) => Reading::Refused(WireNumber::new(field, text, kind)),
    }
}

/// A size or an index from a JSON value, at most `cap` (a `usize`, so it can size an allocation
/// or index a list on any platform).
pub fn size(field: &'static str, value: &Value, cap: usize) -> Reading<usize> {
    narrow(count(field, value, u64::try_from(cap).unwrap_or(u64::MAX)), cap)
}

/// A size from text (a header value), at most `cap`.
pub fn size_text(field: &'static str, text: &str, cap: usize) -> Reading<usize> {
    narrow(count_text(field, text, u64::try_from(cap).unwrap_or(u64::MAX)), cap)
}

fn narrow(reading: Reading<u64>, cap: usize) -> Reading<usize> {
    let fit = |n: u64| usize::try_from(n).unwrap_or(cap).min(cap);
    match reading {
        Reading::Exact(n) => Reading::Exact(fit(n)),
        Reading::Saturated { value, fault } => Reading::Saturated { value: fit(value), fault },
        Reading::Refused(fault) => Reading::Refused(fault),
    }
}

/// `now + after`, never panicking: a duration past [`HORIZON`] is taken as the horizon. (Should a
/// platform's clock not reach a century ahead, the result is `now`: already passed.)
pub fn instant_after(now: Instant, after: Duration) -> Instant {
    now.checked_add(after.min(HORIZON)).unwrap_or(now)
}

/// A wall-clock time given as the time since the Unix epoch (a timestamp a peer stored), never
/// panicking: a time past what the platform's clock holds is taken as [`HORIZON`] from now.
pub fn since_unix_epoch(since: Duration) -> SystemTime {
    SystemTime::UNIX_EPOCH.checked_add(since).unwrap_or_else(|| system_time_after(SystemTime::now(), HORIZON))
}

/// `at + after` for wall-clock times, never panicking: a duration past [`HORIZON`] is taken as
/// the horizon. (Should the platform's clock not reach a century ahead, the result is `at`.)
pub fn system_time_after(at: SystemTime, after: Duration) -> SystemTime {
    at.checked_add(after.min(HORIZON)).unwrap_or(at)
}
