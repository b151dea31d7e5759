//! No `intervalMs` a card writes panics the claims' lift: the declared cadence is a positive number
//! of milliseconds, at most a day, and every poll loop clamps it to the bounds.

use std::time::Duration;

use a2a_typestate::{Bounds, CardClaims, Deployment, POLL_CADENCE_EXTENSION_URI};
use proptest::prelude::*;

fn cadence(interval_ms: &str) -> Option<Option<Duration>> {
    let json = format!(
        r#"{{"name":"a","description":"","version":"1","supportedInterfaces":[],"skills":[],
            "defaultInputModes":[],"defaultOutputModes":[],
            "capabilities":{{"extensions":[{{"uri":"{POLL_CADENCE_EXTENSION_URI}","params":{{"intervalMs":{interval_ms}}}}}]}}}}"#
    );
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(&json).ok()?;
    Some(CardClaims::lift(&card, Deployment::Direct).poll_cadence())
}

const DAY: Duration = Duration::from_secs(86_400);

#[test]
fn a_declared_cadence_past_a_day_is_a_day_and_anything_but_a_positive_number_is_none() {
    let table: [(&str, Option<Option<Duration>>); 11] = [
        ("1500", Some(Some(Duration::from_millis(1_500)))),
        ("2.5", Some(Some(Duration::from_micros(2_500)))),
        ("18446744073709551615", Some(Some(DAY))),
        ("18446744073709551616", Some(Some(DAY))),
        ("1e300", Some(Some(DAY))),
        ("1e400", None), // the card itself does not parse: JSON carries no infinity
        ("0", Some(None)),
        ("-0.0", Some(None)),
        ("-1", Some(None)),
        (r#""1500""#, Some(None)),
        ("null", Some(None)),
    ];
    for (interval_ms, expected) in table {
        assert_eq!(cadence(interval_ms), expected, "intervalMs {interval_ms}");
    }
}

proptest! {
    #[test]
    fn no_interval_ms_panics_and_the_cadence_is_within_a_day(
        interval_ms in prop_oneof![
            "-?[0-9]{1,30}(\\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?",
            any::<u64>().prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|n| format!("{n:e}")),
        ],
    ) {
        if let Some(Some(declared)) = cadence(&interval_ms) {
            prop_assert!(!declared.is_zero() && declared <= DAY);
            let used = Bounds::card_cadence(declared);
            prop_assert!(used >= Bounds::MIN_CARD_CADENCE && used <= Bounds::MAX_CARD_CADENCE);
        }
    }
}
