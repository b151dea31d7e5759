//! What people read: a duration as people write one (`118 µs`, `7.7 ms`, `10.0 s`, `2 min 5 s`).
//! Text for machines (JSON, metric labels, span attributes) keeps its exact forms elsewhere.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_types::human::HumanDuration;
//!
//! assert_eq!(HumanDuration(Duration::from_micros(118)).to_string(), "118 µs");
//! assert_eq!(HumanDuration(Duration::from_nanos(7_705_735)).to_string(), "7.7 ms");
//! assert_eq!(HumanDuration(Duration::from_nanos(10_005_835_067)).to_string(), "10.0 s");
//! assert_eq!(HumanDuration(Duration::from_secs(30)).to_string(), "30 s");
//! assert_eq!(HumanDuration(Duration::from_secs(125)).to_string(), "2 min 5 s");
//! ```

use std::fmt;
use std::time::Duration;

/// A duration shown to people: whole units below a millisecond, one decimal where it tells
/// something (under 10 ms, under a minute but not a whole number of seconds), minutes and seconds,
/// hours and minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HumanDuration(pub Duration);

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        let nanos = d.as_nanos();
        let secs = d.as_secs();
        if nanos < 1_000 {
            write!(f, "{nanos} ns")
        } else if nanos < 1_000_000 {
            write!(f, "{} µs", nanos / 1_000)
        } else if nanos < 10_000_000 {
            write!(f, "{:.1} ms", d.as_secs_f64() * 1e3)
        } else if nanos < 1_000_000_000 {
            write!(f, "{} ms", nanos / 1_000_000)
        } else if secs < 60 && d.subsec_nanos() == 0 {
            write!(f, "{secs} s")
        } else if secs < 60 {
            write!(f, "{:.1} s", d.as_secs_f64())
        } else if secs < 3_600 {
            write!(f, "{} min {} s", secs / 60, secs % 60)
        } else {
            write!(f, "{} h {} min", secs / 3_600, secs % 3_600 / 60)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each unit's boundary shows in the next unit up, never as `1000 ms` or `60.0 s`.
    #[test]
    fn a_duration_at_a_units_boundary_is_shown_in_the_next_unit() {
        let shown = |d: Duration| HumanDuration(d).to_string();
        assert_eq!(shown(Duration::from_nanos(999)), "999 ns");
        assert_eq!(shown(Duration::from_nanos(1_000)), "1 µs");
        assert_eq!(shown(Duration::from_nanos(999_999)), "999 µs");
        assert_eq!(shown(Duration::from_millis(1)), "1.0 ms");
        assert_eq!(shown(Duration::from_nanos(9_999_999)), "10.0 ms");
        assert_eq!(shown(Duration::from_millis(10)), "10 ms");
        assert_eq!(shown(Duration::from_nanos(999_999_999)), "999 ms");
        assert_eq!(shown(Duration::from_secs(1)), "1 s");
        assert_eq!(shown(Duration::from_millis(1_001)), "1.0 s");
        assert_eq!(shown(Duration::from_millis(59_999)), "60.0 s");
        assert_eq!(shown(Duration::from_secs(60)), "1 min 0 s");
        assert_eq!(shown(Duration::from_secs(3_600)), "1 h 0 min");
    }

    /// Over every scale, the text read back is within its unit's rounding of the duration.
    #[test]
    fn the_text_reads_back_within_its_rounding() {
        let mut nanos: u128 = 1;
        while nanos < 10_u128.pow(13) {
            for step in [1_u128, 3, 7] {
                let d = Duration::from_nanos((nanos * step) as u64);
                let text = HumanDuration(d).to_string();
                let read = read_back(&text);
                let error = (read - d.as_secs_f64()).abs();
                let unit = match text.rsplit(' ').next() {
                    Some("ns") => 1e-9,
                    Some("µs") => 1e-6,
                    Some("ms") if text.contains('.') => 1e-4,
                    Some("ms") => 1e-3,
                    Some("s") if !text.contains("min") => 0.1,
                    _ => 60.0,
                };
                assert!(error <= unit, "{d:?} shown as {text:?}, read back {read}");
            }
            nanos *= 10;
        }
    }

    fn read_back(text: &str) -> f64 {
        let words: Vec<&str> = text.split(' ').collect();
        words
            .chunks(2)
            .map(|pair| {
                let value: f64 = pair[0].parse().unwrap();
                value
                    * match pair[1] {
                        "ns" => 1e-9,
                        "µs" => 1e-6,
                        "ms" => 1e-3,
                        "s" => 1.0,
                        "min" => 60.0,
                        "h" => 3_600.0,
                        other => panic!("unit {other}"),
                    }
            })
            .sum()
    }
}
