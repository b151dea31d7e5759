//! The client-side bounds the verifier measures elapsed time against.
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate::Bounds;
//!
//! let bounds = Bounds::default().with_push_arrival(Duration::from_secs(30));
//! assert_eq!(bounds.push_arrival(), Duration::from_secs(30));
//! assert_eq!(bounds.poll_interval(), Duration::from_secs(2)); // the default is kept
//! ```

use std::time::Duration;

/// Every wait the verifier judges is bounded; each bound has a default a caller can change.
///
/// | bound | default | what it bounds |
/// | --- | --- | --- |
/// | [`poll_interval`](Self::poll_interval) | 2 s | `GetTask` polling when the card declares no cadence |
/// | [`working_unobservable`](Self::working_unobservable) | 30 s | how long `WORKING` may last, without streaming or a declared cadence, before it is a lifecycle fault |
/// | [`push_arrival`](Self::push_arrival) | 10 s | how long after registration the first push callback may take |
///
/// A card-declared poll cadence is clamped to 100 ms ..= 60 s before use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    poll_interval: Duration,
    working_unobservable: Duration,
    push_arrival: Duration,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            poll_interval: Duration::from_secs(2),
            working_unobservable: Duration::from_secs(30),
            push_arrival: Duration::from_secs(10),
        }
    }
}

impl Bounds {
    /// Shortest card-declared poll cadence honoured.
    pub const MIN_CARD_CADENCE: Duration = Duration::from_millis(100);
    /// Longest card-declared poll cadence honoured.
    pub const MAX_CARD_CADENCE: Duration = Duration::from_secs(60);

    /// The client's own `GetTask` poll interval (default 2 s).
    pub fn poll_interval(&self) -> Duration {
        self.poll_interval
    }

    /// How long `WORKING` may last unobserved before it is a lifecycle fault (default 30 s).
    pub fn working_unobservable(&self) -> Duration {
        self.working_unobservable
    }

    /// How long the first push callback may take after registration (default 10 s).
    pub fn push_arrival(&self) -> Duration {
        self.push_arrival
    }

    /// Sets the client's poll interval.
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets the bound on an unobservable `WORKING`.
    #[must_use]
    pub fn with_working_unobservable(mut self, bound: Duration) -> Self {
        self.working_unobservable = bound;
        self
    }

    /// Sets the bound on push arrival.
    #[must_use]
    pub fn with_push_arrival(mut self, bound: Duration) -> Self {
        self.push_arrival = bound;
        self
    }
}
