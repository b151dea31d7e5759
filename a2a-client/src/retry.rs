//! Exponential backoff with jitter and a budget, for transport faults only.
//!
//! A call is repeated only when its error [`is_retryable`](crate::Error::is_retryable): connect
//! failures, resets, 502/503/504. Protocol errors, bad input and lifecycle violations return
//! at once: repeating them asks the same agent the same question and gets the same answer. A
//! timeout is not repeated either: the attempt already waited the whole request timeout, and
//! waiting it again would let one hung agent cost a multiple of the bound the caller set. A send
//! that may have reached the agent is never repeated ([`Error::may_have_run`](crate::Error::may_have_run)).
//!
//! A 502/503/504 with `Retry-After: <seconds>` ([`Error::retry_after`](crate::Error::retry_after)) is
//! not retried sooner than it asks; when it asks for more than the policy's largest delay, the error
//! is returned at once (the wait stays bounded, and the caller can read what was asked).
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{Client, RetryPolicy};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // A port nobody listens on: every attempt is a connect fault, retried until the budget is spent.
//! let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
//! let policy = RetryPolicy::new(3, Duration::from_millis(1), Duration::from_millis(5), 1.0).unwrap();
//! let client = Client::builder().retry_policy(policy).build().unwrap();
//! let url = format!("http://127.0.0.1:{port}");
//! let mut attempts = 0;
//! let answer = policy
//!     .run(|_attempt| {
//!         attempts += 1;
//!         client.discover(&url)
//!     })
//!     .await;
//! assert!(answer.unwrap_err().is_connect());
//! assert!(attempts >= 3, "{attempts}");
//! # });
//! ```

use a2a_typestate_types::human::HumanDuration;
use std::future::Future;
use std::time::Duration;

use crate::{Error, Metrics};

/// Default number of attempts, the first included: 3.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// Default delay ceiling before the first retry: 200 ms (doubling per retry).
pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(200);
/// Default largest delay between attempts: 5 s.
pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(5);
/// Default jitter: 1.0, "full jitter" (each delay drawn uniformly from zero to its ceiling).
pub const DEFAULT_JITTER: f64 = 1.0;

/// How often and how patiently a transport fault is retried.
///
/// The delay before retry `n` (1-based) has the ceiling `min(max_delay, base_delay * 2^(n-1))`; the
/// fraction `jitter` of it is drawn at random, so `jitter = 1` is full jitter and `jitter = 0` is
/// plain exponential backoff.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
    jitter: f64,
}

impl Default for RetryPolicy {
    /// 3 attempts, 200 ms base, 5 s cap, full jitter.
    fn default() -> Self {
        Self {
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            base_delay: DEFAULT_BASE_DELAY,
            max_delay: DEFAULT_MAX_DELAY,
            jitter: DEFAULT_JITTER,
        }
    }
}

/// Which attempt a retried operation is on (1 for the first call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Attempt(pub u32);

impl RetryPolicy {
    /// A policy with `max_attempts` attempts (the first included) and the given backoff.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when `max_attempts` is zero, `max_delay` is below `base_delay`, or
    /// `jitter` is outside `0..=1`.
    pub fn new(
        max_attempts: u32,
        base_delay: Duration,
        max_delay: Duration,
        jitter: f64,
    ) -> Result<Self, Error> {
        if max_attempts == 0 {
            return Err(Error::config("retry max attempts must be at least 1"));
        }
        if max_delay < base_delay {
            return Err(Error::config("retry max delay must not be below the base delay"));
        }
        if !(0.0..=1.0).contains(&jitter) {
            return Err(Error::config(format!("retry jitter must be within 0 and 1, got {jitter}")));
        }
        Ok(Self { max_attempts, base_delay, max_delay, jitter })
    }

    /// A policy that never retries.
    pub fn no_retry() -> Self {
        Self { max_attempts: 1, ..Self::default() }
    }

    /// Attempts allowed, the first included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// Delay ceiling before the first retry.
    pub fn base_delay(&self) -> Duration {
        self.base_delay
    }

    /// Largest delay between attempts.
    pub fn max_delay(&self) -> Duration {
        self.max_delay
    }

    /// Fraction of each delay drawn at random.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The ceiling of the delay before retry `retry` (1-based).
    pub fn ceiling(&self, retry: u32) -> Duration {
        let exponent = i32::try_from(retry.saturating_sub(1)).unwrap_or(i32::MAX);
        let grown = self.base_delay.as_secs_f64() * 2f64.powi(exponent);
        if grown.is_finite() && grown < self.max_delay.as_secs_f64() {
            Duration::from_secs_f64(grown)
        } else {
            self.max_delay
        }
    }

    /// The delay before retry `retry` given a random `unit` in `[0, 1)`.
    pub fn delay(&self, retry: u32, unit: f64) -> Duration {
        let ceiling = self.ceiling(retry).as_secs_f64();
        let unit = unit.clamp(0.0, 1.0);
        Duration::from_secs_f64(ceiling * (1.0 - self.jitter) + ceiling * self.jitter * unit)
    }

    /// Runs `op` until it succeeds, fails with an error that is not retryable, or the budget is spent;
    /// returns the last outcome.
    ///
    /// # Errors
    /// The first non-retryable error, or the last retryable one once the attempts are spent. Either
    /// carries the attempts made and the time they took ([`Error::attempts`], [`Error::elapsed`]),
    /// and says them in its `Display` when there was more than one.
    pub async fn run<T, F, Fut>(&self, op: F) -> Result<T, Error>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        self.run_inner(None, random_unit, op).await
    }

    /// As [`RetryPolicy::run`], counting each retry in `metrics`.
    ///
    /// # Errors
    /// As [`RetryPolicy::run`].
    pub async fn run_counted<T, F, Fut>(&self, metrics: &Metrics, op: F) -> Result<T, Error>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        self.run_inner(Some(metrics), random_unit, op).await
    }

    async fn run_inner<T, F, Fut>(
        &self,
        metrics: Option<&Metrics>,
        mut random: impl FnMut() -> f64,
        mut op: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let started = tokio::time::Instant::now();
        let mut attempt = 1;
        let give_up = |error: Error, attempt: u32| Err(error.with_attempts(attempt, started.elapsed()));
        loop {
            match op(Attempt(attempt)).await {
                Ok(value) => return Ok(value),
                Err(error) if error.is_retryable() && !error.is_timeout() && attempt < self.max_attempts => {
                    let backoff = self.delay(attempt, random());
                    let delay = match error.retry_after() {
                        Some(asked) if asked > self.max_delay => return give_up(error, attempt),
                        Some(asked) => backoff.max(asked),
                        None => backoff,
                    };
                    tracing::debug!(attempt, ?delay, %error, "retrying after transport fault");
                    if let Some(metrics) = metrics {
                        metrics.record_retry();
                    }
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                Err(error) => return give_up(error, attempt),
            }
        }
    }

    /// As [`RetryPolicy::run_counted`], all attempts and the waits between them within `deadline`
    /// (the client's operation deadline): when it passes, a timeout naming `url`, the deadline and
    /// the attempt it cut, with the attempts made and the time spent.
    pub(crate) async fn run_within<T, F, Fut>(
        &self,
        metrics: &Metrics,
        deadline: Duration,
        request_timeout: Duration,
        url: &str,
        mut op: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let started = tokio::time::Instant::now();
        let mut attempts = 0;
        let run = self.run_counted(metrics, |attempt| {
            attempts = attempt.0;
            op(attempt)
        });
        match tokio::time::timeout(deadline, run).await {
            Ok(outcome) => outcome,
            Err(_) => {
                let (deadline, request_timeout) = (HumanDuration(deadline), HumanDuration(request_timeout));
                let cause = format!(
                    "the operation deadline of {deadline} passed during attempt {attempts} \
                     (each attempt bounded by the request timeout of {request_timeout})"
                );
                Err(Error::transport(crate::TransportFault::Timeout, Some(cause.into()))
                    .with_attempts(attempts, started.elapsed())
                    .with_url(url))
            }
        }
    }
}

/// The wait a response asks for in `Retry-After`, when given in delta-seconds (RFC 9110 §10.2.3):
/// at most a day (longer is taken as a day, past any policy's largest delay); an HTTP-date, a
/// negative number or text that is no number is not read.
pub(crate) fn retry_after(headers: &http::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    let reading = a2a_typestate_types::wire_number::duration_text(
        "Retry-After",
        value,
        a2a_typestate_types::wire_number::Unit::Seconds,
        crate::wire_caps::MAX_RETRY_AFTER,
    );
    crate::wire_caps::logged(reading, "no wait asked for")
}

/// A uniformly distributed number in `[0, 1)` from the OS random source (via a v4 UUID).
fn random_unit() -> f64 {
    let bits = uuid::Uuid::new_v4().as_u128() as u64 >> 11;
    bits as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, TransportFault};
    use std::sync::atomic::{AtomicU32, Ordering};
    use tokio::time::Instant;

    fn exact(attempts: u32) -> RetryPolicy {
        RetryPolicy::new(attempts, Duration::from_millis(100), Duration::from_millis(300), 0.0).unwrap()
    }

    async fn failing_with(policy: &RetryPolicy, make: fn() -> Error) -> (Result<(), Error>, u32) {
        let calls = AtomicU32::new(0);
        let outcome = policy
            .run(|_| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move { Err::<(), _>(make()) }
            })
            .await;
        (outcome, calls.load(Ordering::SeqCst))
    }

    #[tokio::test(start_paused = true)]
    async fn transport_faults_are_retried_until_the_budget_is_spent() {
        let start = Instant::now();
        let (outcome, calls) = failing_with(&exact(4), || Error::from_status(503, None)).await;
        assert_eq!(calls, 4);
        assert_eq!(outcome.unwrap_err().status(), Some(503), "the last error is returned");
        // 100 + 200 + 300 (capped) ms of backoff, no jitter.
        assert_eq!(start.elapsed(), Duration::from_millis(600));
    }

    #[tokio::test(start_paused = true)]
    async fn the_last_error_carries_the_attempts_and_their_total_time() {
        let (outcome, _) = failing_with(&exact(4), || Error::from_status(503, None)).await;
        let err = outcome.unwrap_err();
        assert_eq!((err.attempts(), err.elapsed()), (Some(4), Some(Duration::from_millis(600))));
        assert_eq!(
            err.to_string(),
            "transport fault: service unavailable (http 503) after 4 attempts in 0.6 s in all"
        );
        let (outcome, _) = failing_with(&exact(4), || Error::from_status(404, None)).await;
        assert_eq!(outcome.unwrap_err().attempts(), Some(1), "refused at once, and said so");
    }

    #[tokio::test(start_paused = true)]
    async fn the_operation_deadline_cuts_the_attempts_and_says_where() {
        let policy = exact(5);
        let metrics = Metrics::default();
        let started = Instant::now();
        let outcome: Result<(), Error> = policy
            .run_within(
                &metrics,
                Duration::from_millis(260),
                Duration::from_secs(1),
                "http://a.example/",
                |_| async { Err(Error::from_status(503, None)) },
            )
            .await;
        let err = outcome.unwrap_err();
        assert_eq!(started.elapsed(), Duration::from_millis(260));
        // 503 at 0, 100 ms backoff, 503 at 100, 200 ms backoff: cut while waiting for attempt 3.
        assert_eq!(err.attempts(), Some(2));
        assert!(err.is_timeout());
        assert_eq!(
            err.to_string(),
            "transport fault: timed out after 2 attempts in 0.3 s in all (http://a.example/)"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_is_not_waited_for_twice() {
        let (outcome, calls) = failing_with(&exact(5), || Error::timeout(Duration::from_secs(30))).await;
        assert_eq!(calls, 1, "a hung agent costs one request timeout, not one per attempt");
        let err = outcome.unwrap_err();
        assert!(err.is_timeout() && err.is_retryable(), "the caller may still try again: {err}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_send_that_may_have_reached_the_agent_is_never_retried() {
        for fault in [TransportFault::Reset, TransportFault::Truncated, TransportFault::Unavailable(504)] {
            let calls = AtomicU32::new(0);
            let outcome: Result<(), Error> = exact(5)
                .run(|_| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move { Err(Error::transport(fault, None).sent_unanswered()) }
                })
                .await;
            assert_eq!(calls.load(Ordering::SeqCst), 1, "{fault}");
            let err = outcome.unwrap_err();
            assert!(err.may_have_run() && !err.is_retryable(), "{fault}: {err}");
        }
        for proves_not_taken in
            [TransportFault::Connect, TransportFault::Unavailable(502), TransportFault::Unavailable(503)]
        {
            let err = Error::transport(proves_not_taken, None).sent_unanswered();
            assert!(!err.may_have_run() && err.is_retryable(), "{proves_not_taken}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn lifecycle_violations_are_refused_never_retried() {
        let violation = || Error::from(crate::test_support::streaming_violation());
        let (outcome, calls) = failing_with(&exact(5), violation).await;
        assert_eq!(calls, 1);
        assert_eq!(outcome.unwrap_err().kind(), ErrorKind::LifecycleViolation);
    }

    #[tokio::test(start_paused = true)]
    async fn protocol_and_status_errors_are_not_retried() {
        let (_, calls) = failing_with(&exact(5), || Error::from_status(404, None)).await;
        assert_eq!(calls, 1);
        let (_, calls) = failing_with(&exact(5), || {
            Error::protocol(crate::ProtocolError::from_jsonrpc(&serde_json::json!({"code": -32004})))
        })
        .await;
        assert_eq!(calls, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn success_after_a_reset_returns_the_value_and_counts_the_retry() {
        let metrics = Metrics::default();
        let calls = AtomicU32::new(0);
        let value = exact(3)
            .run_counted(&metrics, |attempt| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move {
                    if attempt == Attempt(1) {
                        Err(Error::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset)))
                    } else {
                        Ok(attempt.0)
                    }
                }
            })
            .await
            .unwrap();
        assert_eq!(value, 2);
        assert_eq!(metrics.snapshot().retries, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn full_jitter_keeps_each_delay_within_its_ceiling() {
        let policy = RetryPolicy::new(3, Duration::from_millis(100), Duration::from_secs(1), 1.0).unwrap();
        let start = Instant::now();
        let mut draws = [0.99, 0.5].into_iter();
        let _ = policy
            .run_inner(
                None,
                || draws.next().unwrap_or(0.0),
                |_| async { Err::<(), _>(Error::from_status(502, None)) },
            )
            .await;
        // 0.99 * 100 ms + 0.5 * 200 ms.
        assert_eq!(start.elapsed(), Duration::from_millis(199));
        for _ in 0..1000 {
            let unit = random_unit();
            assert!((0.0..1.0).contains(&unit));
            assert!(policy.delay(2, unit) <= policy.ceiling(2));
        }
    }

    fn unavailable_asking(wait: Duration) -> Error {
        Error::from_status(503, None).with_retry_after(Some(wait))
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_waited_for_when_longer_than_the_backoff() {
        let start = Instant::now();
        let (outcome, calls) =
            failing_with(&exact(2), || unavailable_asking(Duration::from_millis(250))).await;
        assert_eq!(calls, 2);
        assert_eq!(start.elapsed(), Duration::from_millis(250), "not the 100 ms backoff");
        assert_eq!(outcome.unwrap_err().retry_after(), Some(Duration::from_millis(250)));
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_beyond_the_largest_delay_returns_the_error_at_once() {
        let start = Instant::now();
        let (outcome, calls) = failing_with(&exact(5), || unavailable_asking(Duration::from_secs(60))).await;
        assert_eq!(calls, 1, "waiting less than asked would only be refused again");
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert_eq!(outcome.unwrap_err().retry_after(), Some(Duration::from_secs(60)));
    }

    #[test]
    fn retry_after_is_read_in_seconds_and_only_on_transport_faults() {
        let mut headers = http::header::HeaderMap::new();
        headers.insert(http::header::RETRY_AFTER, " 7 ".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert(http::header::RETRY_AFTER, "Fri, 31 Dec 1999 23:59:59 GMT".parse().unwrap());
        assert_eq!(retry_after(&headers), None, "an HTTP-date is not read");
        let status = Error::from_status(401, None).with_retry_after(Some(Duration::from_secs(7)));
        assert_eq!(status.retry_after(), None);
    }

    #[test]
    fn ceilings_double_and_saturate() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.ceiling(1), Duration::from_millis(200));
        assert_eq!(policy.ceiling(2), Duration::from_millis(400));
        assert_eq!(policy.ceiling(10), Duration::from_secs(5));
        assert_eq!(policy.ceiling(u32::MAX), Duration::from_secs(5));
    }

    #[test]
    fn invalid_budgets_are_configuration_errors() {
        let d = Duration::from_millis(10);
        assert_eq!(RetryPolicy::new(0, d, d, 0.5).unwrap_err().kind(), ErrorKind::Config);
        assert!(RetryPolicy::new(1, d * 2, d, 0.5).is_err());
        assert!(RetryPolicy::new(1, d, d, 1.5).is_err());
        assert!(RetryPolicy::new(1, d, d, f64::NAN).is_err());
    }
}
