//! RFC 8785 (JSON Canonicalization Scheme): the RFC's own examples and number table, and
//! properties that must hold for any JSON a card can carry.

use a2a_typestate_client::signing::jcs::{self, JcsError};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn canonical(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    String::from_utf8(jcs::canonicalize(&value).unwrap()).unwrap()
}

/// RFC 8785 §3.2.2 / §3.2.4: the example that exercises literals, numbers and string escapes.
#[test]
fn rfc8785_section_3_2_4_example_canonicalises_byte_for_byte() {
    let input = r#"{
        "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
    }"#;
    assert_eq!(
        canonical(input),
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
         \"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
    );
}

/// RFC 8785 §3.2.3: members sort by UTF-16 code units, so U+1F600 (a surrogate pair starting
/// 0xD83D) sorts before U+FB33 although its code point is larger.
#[test]
fn rfc8785_section_3_2_3_members_sort_by_utf16_code_units() {
    let input = r#"{
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis"
    }"#;
    let text = canonical(input);
    let positions: Vec<usize> = [
        "Carriage Return",
        "One",
        "Control",
        "Latin Small Letter O With Diaeresis",
        "Euro Sign",
        "Emoji: Grinning Face",
        "Hebrew Letter Dalet With Dagesh",
    ]
    .iter()
    // Read the order back from the canonical text itself, not from a map.
    .map(|name| text.find(name).unwrap_or_else(|| panic!("{name} missing from {text}")))
    .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
}

/// RFC 8785 Appendix B: IEEE 754 doubles (as hex) and the ECMAScript text each must be written as.
const APPENDIX_B: &[(u64, &str)] = &[
    (0x0000000000000000, "0"),
    (0x8000000000000000, "0"),
    (0x0000000000000001, "5e-324"),
    (0x8000000000000001, "-5e-324"),
    (0x7fefffffffffffff, "1.7976931348623157e+308"),
    (0xffefffffffffffff, "-1.7976931348623157e+308"),
    (0x4340000000000000, "9007199254740992"),
    (0xc340000000000000, "-9007199254740992"),
    (0x4430000000000000, "295147905179352830000"),
    (0x44b52d02c7e14af5, "9.999999999999997e+22"),
    (0x44b52d02c7e14af6, "1e+23"),
    (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
    (0x444b1ae4d6e2ef4e, "999999999999999700000"),
    (0x444b1ae4d6e2ef4f, "999999999999999900000"),
    (0x444b1ae4d6e2ef50, "1e+21"),
    (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
    (0x3eb0c6f7a0b5ed8d, "0.000001"),
    (0x41b3de4355555553, "333333333.3333332"),
    (0x41b3de4355555554, "333333333.33333325"),
    (0x41b3de4355555555, "333333333.3333333"),
    (0x41b3de4355555556, "333333333.3333334"),
    (0x41b3de4355555557, "333333333.33333343"),
    (0xbecbf647612f3696, "-0.0000033333333333333333"),
    (0x43143ff3c1cb0959, "1424953923781206.2"),
];

#[test]
fn rfc8785_appendix_b_numbers_are_written_as_ecmascript_writes_them() {
    for (bits, expected) in APPENDIX_B {
        let double = f64::from_bits(*bits);
        assert_eq!(jcs::format_double(double).unwrap(), *expected, "{bits:016x}");
        // And through a JSON document: parse the expected text, canonicalise, get it back.
        if double != 0.0 || !expected.starts_with('-') {
            assert_eq!(canonical(&format!("[{expected}]")), format!("[{expected}]"), "{bits:016x}");
        }
    }
}

/// RFC 8785 Appendix B lists NaN and Infinity as having no JSON form.
#[test]
fn rfc8785_appendix_b_nan_and_infinity_are_refused() {
    for bits in [0x7fffffffffffffff_u64, 0x7ff0000000000000] {
        assert!(matches!(jcs::format_double(f64::from_bits(bits)), Err(JcsError::NotFinite(_))));
    }
}

/// Numbers written differently but denoting the same double canonicalise the same: the parse must
/// be exact (a number one ulp off would sign differently).
#[test]
fn numbers_that_denote_the_same_double_canonicalise_alike() {
    assert_eq!(canonical("[1.0, 1e0, 10e-1, 100E-2]"), "[1,1,1,1]");
    assert_eq!(canonical("[0.1000000000000000055511151231257827]"), "[0.1]");
    assert_eq!(canonical("[-0.0, 0e10]"), "[0,0]");
    assert_eq!(canonical("[5e-324, 2.4703282292062328e-324]"), "[5e-324,5e-324]");
}

/// Any JSON value a card could carry, from a small alphabet that reaches every escape and the
/// UTF-16 ordering difference.
fn json_value() -> impl Strategy<Value = Value> {
    let text =
        || proptest::string::string_regex("[a-c\"\\\\\u{0}-\u{1f}\u{7f}é€\u{1f600}\u{fb33} ]{0,6}").unwrap();
    let number = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        text().prop_map(Value::String)
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Writes `value` as JSON with members in reverse order and whitespace between every token.
fn scrambled(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push_str("[ \n");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(" ,\t");
                }
                scrambled(item, out);
            }
            out.push_str("\r\n]");
        }
        Value::Object(members) => {
            out.push_str("{ ");
            for (n, (key, member)) in members.iter().rev().enumerate() {
                if n > 0 {
                    out.push_str("\n, ");
                }
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push_str(" :\t");
                scrambled(member, out);
            }
            out.push_str(" }");
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn canonical_form_is_stable_under_member_order_and_whitespace(value in json_value()) {
        let mut text = String::new();
        scrambled(&value, &mut text);
        let reparsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(jcs::canonicalize(&reparsed).unwrap(), jcs::canonicalize(&value).unwrap());
    }

    #[test]
    fn canonical_form_is_a_fixed_point(value in json_value()) {
        let once = jcs::canonicalize(&value).unwrap();
        let reparsed: Value = serde_json::from_slice(&once).unwrap();
        prop_assert_eq!(jcs::canonicalize(&reparsed).unwrap(), once);
    }
}
