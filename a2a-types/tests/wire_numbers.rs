//! No number from the wire panics, and each is read within the cap its reader is given.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_typestate_types::wire_number::{self, HORIZON, Reading, Unit, WireNumberFault};
use proptest::prelude::*;
use serde_json::{Value, json};

const CAP: Duration = Duration::from_secs(3_600);

/// What a reader made of one value: the value used, and the fault, if any.
type Read = (Option<Duration>, Option<WireNumberFault>);

/// What a reader should make of one value.
fn expect(value: Option<Duration>, fault: Option<WireNumberFault>) -> Read {
    (value, fault)
}

fn got(reading: &Reading<Duration>) -> Read {
    (reading.value(), reading.fault().map(|f| f.kind()))
}

/// The issue's table: each value as a JSON value, in seconds, capped at an hour.
#[test]
fn every_wire_number_is_read_within_the_cap_or_refused_never_a_panic() {
    use WireNumberFault::*;
    let secs = |n| Some(Duration::from_secs(n));
    let table: Vec<(Value, Read)> = vec![
        (json!(0), expect(secs(0), None)),
        (json!(-1), expect(None, Some(Negative))),
        (json!(1u64 << 63), expect(Some(CAP), Some(PastCap))),
        (json!(u64::MAX), expect(Some(CAP), Some(PastCap))),
        (serde_json::from_str("18446744073709551616").unwrap(), expect(Some(CAP), Some(PastCap))),
        (json!(-0.0), expect(secs(0), None)),
        (serde_json::from_str("-0").unwrap(), expect(secs(0), None)),
        (json!(1.5), expect(Some(Duration::from_millis(1_500)), None)),
        (json!(-1.5), expect(None, Some(Negative))),
        (json!(1e19), expect(Some(CAP), Some(PastCap))),
        (json!(i64::MIN), expect(None, Some(Negative))),
        (json!("1e19"), expect(Some(CAP), Some(PastCap))),
        (json!("1e400"), expect(Some(CAP), Some(PastCap))),
        (json!("18446744073709551616"), expect(Some(CAP), Some(PastCap))),
        (json!("-1e400"), expect(None, Some(Negative))),
        (json!("-0.0"), expect(secs(0), None)),
        (json!("60"), expect(secs(60), None)),
        (json!(" 5 "), expect(secs(5), None)),
        (json!("abc"), expect(None, Some(NotANumber))),
        (json!(""), expect(None, Some(NotANumber))),
        (json!("NaN"), expect(None, Some(NotANumber))),
        (json!("inf"), expect(None, Some(NotANumber))),
        (json!("infinity"), expect(None, Some(NotANumber))),
        (json!("+5"), expect(None, Some(NotANumber))),
        (json!("0x10"), expect(None, Some(NotANumber))),
        (json!("5."), expect(None, Some(NotANumber))),
        (json!(".5"), expect(None, Some(NotANumber))),
        (json!("1e"), expect(None, Some(NotANumber))),
        (json!(true), expect(None, Some(NotANumber))),
        (json!(null), expect(None, Some(NotANumber))),
        (json!([1]), expect(None, Some(NotANumber))),
        (json!({"secs": 1}), expect(None, Some(NotANumber))),
    ];
    for (value, expected) in table {
        let reading = wire_number::duration("expires_in", &value, Unit::Seconds, CAP);
        assert_eq!(got(&reading), expected, "{value}");
        if let Value::String(text) = &value {
            let reading = wire_number::duration_text("expires_in", text, Unit::Seconds, CAP);
            assert_eq!(got(&reading), expected, "text {text:?}");
        }
    }
}

#[test]
fn json_refuses_1e400_as_a_number_before_any_reader_sees_it() {
    // serde_json reads no infinity: the document itself is refused, as an error.
    assert!(serde_json::from_str::<Value>("1e400").is_err());
    assert!(serde_json::from_str::<Value>(r#"{"expires_in": 1e400}"#).is_err());
}

#[test]
fn a_fault_names_the_field_and_the_value_cut_short() {
    let long = "9".repeat(500);
    let reading = wire_number::duration_text("Retry-After", &long, Unit::Seconds, CAP);
    let fault = reading.fault().expect("past the cap");
    assert_eq!(fault.field(), "Retry-After");
    assert_eq!(fault.value().chars().count(), 41, "40 characters and the ellipsis");
    assert!(fault.value().ends_with('…'));
    assert_eq!(fault.to_string(), format!("Retry-After is past its cap of 1 h 0 min ({})", fault.value()));
    let fault = wire_number::count("pageSize", &json!("abc"), 100).saturating().unwrap_err();
    assert_eq!(fault.to_string(), r#"pageSize is not a number ("abc")"#);
    let fault = wire_number::count("pageSize", &json!(2.5), 100).saturating().unwrap_err();
    assert_eq!(fault.to_string(), "pageSize is not a whole number (2.5)");
    let fault = wire_number::count("pageSize", &json!(101), 100).exact().unwrap_err();
    assert_eq!(fault.to_string(), "pageSize is past its cap of 100 (101)");
}

#[test]
fn counts_and_sizes_saturate_at_their_cap_and_refuse_fractions() {
    use WireNumberFault::*;
    let table: Vec<(Value, Option<u64>, Option<WireNumberFault>)> = vec![
        (json!(0), Some(0), None),
        (json!(-1), None, Some(Negative)),
        (json!(1u64 << 63), Some(1_000), Some(PastCap)),
        (json!(u64::MAX), Some(1_000), Some(PastCap)),
        (serde_json::from_str("18446744073709551616").unwrap(), Some(1_000), Some(PastCap)),
        (json!(-0.0), Some(0), None),
        (json!(1e3), Some(1_000), None),
        (json!("1e3"), Some(1_000), None),
        (json!("1e19"), Some(1_000), Some(PastCap)),
        (json!("1e400"), Some(1_000), Some(PastCap)),
        (json!(2.5), None, Some(NotWhole)),
        (json!(" 5 "), Some(5), None),
        (json!("abc"), None, Some(NotANumber)),
        (json!(""), None, Some(NotANumber)),
        (json!(true), None, Some(NotANumber)),
        (json!(null), None, Some(NotANumber)),
    ];
    for (value, count, fault) in table {
        let reading = wire_number::count("totalSize", &value, 1_000);
        assert_eq!((reading.value(), reading.fault().map(|f| f.kind())), (count, fault), "{value}");
        let reading = wire_number::size("totalSize", &value, 1_000);
        let count = count.map(|n| usize::try_from(n).unwrap());
        assert_eq!((reading.value(), reading.fault().map(|f| f.kind())), (count, fault), "{value}");
    }
    assert_eq!(
        wire_number::size_text("Content-Length", "18446744073709551616", usize::MAX).value(),
        Some(usize::MAX)
    );
}

#[test]
fn typed_integers_from_a_peer_saturate_and_negative_is_refused() {
    let cap = Duration::from_secs(86_400);
    let read = |n: i128| wire_number::duration_int("ttl_ms", n, Unit::Milliseconds, cap);
    assert_eq!(read(1_500).value(), Some(Duration::from_millis(1_500)));
    assert_eq!(read(u64::MAX.into()).value(), Some(cap));
    assert_eq!(read(i128::MAX).value(), Some(cap));
    assert_eq!(read(-2).fault().map(|f| f.kind()), Some(WireNumberFault::Negative));
}

#[test]
fn milliseconds_are_counted_as_milliseconds() {
    let read = wire_number::duration("intervalMs", &json!(1_500), Unit::Milliseconds, CAP);
    assert_eq!(read.value(), Some(Duration::from_millis(1_500)));
    let read = wire_number::duration("intervalMs", &json!("2.5"), Unit::Milliseconds, CAP);
    assert_eq!(read.value(), Some(Duration::from_micros(2_500)));
    let read = wire_number::duration("intervalMs", &json!(u64::MAX), Unit::Milliseconds, Duration::MAX);
    assert_eq!(read, Reading::Exact(Duration::from_millis(u64::MAX)));
}

#[test]
fn a_time_past_the_horizon_is_the_horizon_never_a_panic() {
    let now = Instant::now();
    assert_eq!(wire_number::instant_after(now, Duration::MAX), now + HORIZON);
    assert_eq!(wire_number::instant_after(now, Duration::from_secs(u64::MAX)), now + HORIZON);
    assert_eq!(wire_number::instant_after(now, Duration::from_secs(5)), now + Duration::from_secs(5));
    // The horizon leaves room for the small sums done after it.
    let _ = wire_number::instant_after(now, Duration::MAX) + Duration::from_secs(3_600);
    let at = SystemTime::now();
    assert_eq!(wire_number::system_time_after(at, Duration::MAX), at + HORIZON);
    assert_eq!(
        wire_number::system_time_after(UNIX_EPOCH, Duration::from_millis(u64::MAX)),
        UNIX_EPOCH + HORIZON
    );
    let far = wire_number::since_unix_epoch(Duration::MAX);
    assert!(far > at && far <= at + HORIZON + Duration::from_secs(60), "a century from now at most");
    assert_eq!(
        wire_number::since_unix_epoch(Duration::from_millis(1_500)),
        UNIX_EPOCH + Duration::from_millis(1_500)
    );
}

fn any_json_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from), // NaN and infinities become null
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ]
}

fn any_number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ \t]{0,2}-?[0-9]{0,30}(\\.[0-9]{0,5})?([eE][+-]?[0-9]{0,4})?[ \t]{0,2}",
        any::<f64>().prop_map(|f| f.to_string()),
        any::<u128>().prop_map(|n| n.to_string()),
        any::<i128>().prop_map(|n| n.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn no_text_panics_a_reader_and_the_cap_holds(text in any_number_text(), cap_ms in any::<u64>()) {
        let cap = Duration::from_millis(cap_ms);
        for unit in [Unit::Seconds, Unit::Milliseconds] {
            let reading = wire_number::duration_text("f", &text, unit, cap);
            prop_assert!(reading.value().is_none_or(|d| d <= cap));
            prop_assert_eq!(reading.value().is_none(), matches!(reading, Reading::Refused(_)));
            if let Some(fault) = reading.fault() {
                prop_assert!(fault.value().chars().count() <= 41);
            }
            let reading = wire_number::duration("f", &Value::String(text.clone()), unit, cap);
            prop_assert!(reading.value().is_none_or(|d| d <= cap));
        }
        prop_assert!(wire_number::count_text("f", &text, cap_ms).value().is_none_or(|n| n <= cap_ms));
        prop_assert!(wire_number::size_text("f", &text, 4_096).value().is_none_or(|n| n <= 4_096));
    }

    #[test]
    fn no_json_number_panics_a_reader_and_the_cap_holds(value in any_json_number(), cap_ms in any::<u64>()) {
        let cap = Duration::from_millis(cap_ms);
        let reading = wire_number::duration("f", &value, Unit::Seconds, cap);
        prop_assert!(reading.value().is_none_or(|d| d <= cap));
        let _ = wire_number::instant_after(Instant::now(), reading.value().unwrap_or(Duration::MAX));
        prop_assert!(wire_number::count("f", &value, cap_ms).value().is_none_or(|n| n <= cap_ms));
    }

    #[test]
    fn a_whole_number_within_the_cap_is_read_exactly(n in any::<u64>(), cap in any::<u64>()) {
        let reading = wire_number::count_text("f", &n.to_string(), cap);
        prop_assert_eq!(reading.value(), Some(n.min(cap)));
        prop_assert_eq!(reading.fault().is_some(), n > cap);
        let reading = wire_number::duration("f", &Value::from(n), Unit::Seconds, Duration::MAX);
        prop_assert_eq!(reading, Reading::Exact(Duration::from_secs(n)));
    }
}
