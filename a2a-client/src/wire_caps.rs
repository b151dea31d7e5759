//! The caps on numbers the client reads from the wire, in one place, and the tokio-clock form of
//! [`wire_number::instant_after`]. Every number an agent, a card server, a token endpoint or a
//! shared-cache peer controls, and that becomes a duration, goes through
//! [`a2a_typestate_types::wire_number`] with one of these caps: past it, the cap is used and the
//! fault is logged at debug level; nothing read from the wire panics the process.

use std::time::Duration;

use a2a_typestate_types::wire_number::{self, Reading};

/// The longest token lifetime (`expires_in`) taken as given: a year. A longer one is taken as a
/// year, so such a token is fetched again within a year at the latest.
pub(crate) const MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(365 * 86_400);

/// The largest `Cache-Control: max-age` and `Age` honoured: 2^31 seconds, as RFC 9111 §1.2.2 tells
/// a cache to take any larger delta-seconds.
pub(crate) const MAX_DELTA_SECONDS: Duration = Duration::from_secs(1 << 31);

/// The longest `Retry-After` read: a day. Longer is taken as a day (still past any retry policy's
/// largest delay, so the error is returned at once).
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(86_400);

/// The longest TTL or freshness a shared-cache peer can hand this replica (a suspect mark, a route,
/// a breaker, a card's freshness): a year.
pub(crate) const MAX_SHARED_TTL: Duration = Duration::from_secs(365 * 86_400);

/// `now + after` on tokio's clock, never panicking: past a century is a century
/// ([`wire_number::HORIZON`]).
pub(crate) fn instant_after(now: tokio::time::Instant, after: Duration) -> tokio::time::Instant {
    tokio::time::Instant::from_std(wire_number::instant_after(now.into_std(), after))
}

/// The value of `reading` to use, its fault (if any) logged at debug level with what was done.
pub(crate) fn logged<T: Copy>(reading: Reading<T>, instead: &str) -> Option<T> {
    match &reading {
        Reading::Exact(_) => {}
        Reading::Saturated { fault, .. } => tracing::debug!(%fault, "wire number taken as its cap"),
        Reading::Refused(fault) => tracing::debug!(%fault, instead, "wire number not used"),
    }
    reading.value()
}

/// A TTL a shared-cache peer sent in milliseconds (a `u64` in an event, an `i64` from `PTTL`):
/// at most [`MAX_SHARED_TTL`]; negative is zero (already expired).
pub(crate) fn shared_ttl_ms(field: &'static str, ms: impl Into<i128>) -> Duration {
    let reading =
        wire_number::duration_int(field, ms.into(), wire_number::Unit::Milliseconds, MAX_SHARED_TTL);
    logged(reading, "taken as expired").unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn headers(pairs: &[(http::header::HeaderName, &str)]) -> http::header::HeaderMap {
        let mut map = http::header::HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = http::header::HeaderValue::from_str(value) {
                map.append(name.clone(), value);
            }
        }
        map
    }

    fn number_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[ ]?-?[0-9]{0,30}(\\.[0-9]{0,4})?([eE][+-]?[0-9]{0,4})?[ ]?",
            any::<u128>().prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|n| n.to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        /// Whatever `max-age` and `Age` say, the card's lifetime is at most 2^31 s (or the default
        /// when neither is read), and the instant it ends at is reached without a panic.
        #[test]
        fn no_cache_header_panics_and_a_card_lifetime_is_at_most_2_pow_31_seconds(
            max_age in number_text(),
            age in number_text(),
        ) {
            let default_ttl = Duration::from_secs(300);
            let map = headers(&[
                (http::header::CACHE_CONTROL, &format!("max-age={max_age}")),
                (http::header::AGE, &age),
            ]);
            let freshness = crate::cache::Freshness::from_headers(&map, default_ttl);
            prop_assert!(freshness.lifetime <= MAX_DELTA_SECONDS.max(default_ttl));
            let now = tokio::time::Instant::now();
            prop_assert!(instant_after(now, freshness.lifetime) >= now);
        }

        /// Whatever `Retry-After` says, the wait read is at most a day.
        #[test]
        fn no_retry_after_panics_and_the_wait_is_at_most_a_day(value in number_text()) {
            let map = headers(&[(http::header::RETRY_AFTER, &value)]);
            prop_assert!(crate::retry::retry_after(&map).is_none_or(|wait| wait <= MAX_RETRY_AFTER));
        }

        /// Whatever TTL a peer sends, in an event or from `PTTL`, it is at most a year.
        #[test]
        fn no_peer_ttl_panics_and_it_is_at_most_a_year(ms in any::<i64>(), wide in any::<u64>()) {
            prop_assert!(shared_ttl_ms("PTTL", ms) <= MAX_SHARED_TTL);
            prop_assert!(shared_ttl_ms("ttl_ms", wide) <= MAX_SHARED_TTL);
        }
    }

    #[test]
    fn a_peer_ttl_past_a_year_is_a_year_and_a_negative_one_is_expired() {
        assert_eq!(shared_ttl_ms("ttl_ms", u64::MAX), MAX_SHARED_TTL);
        assert_eq!(shared_ttl_ms("PTTL", -2_i64), Duration::ZERO);
        assert_eq!(shared_ttl_ms("ttl_ms", 1_500_u64), Duration::from_millis(1_500));
    }
}
