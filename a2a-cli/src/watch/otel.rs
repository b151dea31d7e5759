//! OpenTelemetry (feature `otel`): the watch's state as instruments of the global meter provider, for
//! a process that runs a [`Watch`](super::Watch) and installs a provider (the `a2a` binary installs
//! none: there `/metrics` is the way out). The instruments are made when the watch starts, under the
//! instrumentation scope [`INSTRUMENTATION_SCOPE`]; the observable ones read the fleet at each
//! collection, the histogram is recorded as each audit ends.
//!
//! | instrument | kind | attributes |
//! |---|---|---|
//! | [`CLAIM_VERDICT`] | observable gauge: 1 for each claim's current verdict | `a2a.agent`, `a2a.agent.url`, `a2a.claim`, `a2a.verdict` |
//! | [`MARKS_ACTIVE`] | observable gauge: claims refused now | `a2a.agent`, `a2a.agent.url` |
//! | [`AUDITS`] | observable counter | `a2a.agent`, `a2a.agent.url` |
//! | [`AUDIT_ERRORS`] | observable counter | `a2a.agent`, `a2a.agent.url`, `error.type` (`not_audited`, `timeout`, `card_fetch`) |
//! | [`AUDIT_DURATION`] (`s`) | histogram | `a2a.agent.url` |

use std::sync::{Arc, Weak};
use std::time::Duration;

use opentelemetry::metrics::{Histogram, ObservableCounter, ObservableGauge};
use opentelemetry::{InstrumentationScope, KeyValue};

use super::Shared;

/// The instrumentation scope the watch's instruments are made under.
pub const INSTRUMENTATION_SCOPE: &str = "a2a-typestate-cli";
/// Observable gauge: 1 for each claim's current verdict.
pub const CLAIM_VERDICT: &str = "a2a.watch.claim.verdict";
/// Observable gauge: the claims refused now, per agent.
pub const MARKS_ACTIVE: &str = "a2a.watch.marks.active";
/// Observable counter: audits ended, per agent.
pub const AUDITS: &str = "a2a.watch.audits";
/// Observable counter: audits that could not run and cards that could not be fetched.
pub const AUDIT_ERRORS: &str = "a2a.watch.audit.errors";
/// Histogram of audit durations in seconds.
pub const AUDIT_DURATION: &str = "a2a.watch.audit.duration";

/// The instruments of one watch; the observable ones stop reporting when the watch is gone.
pub(super) struct Instruments {
    audit_duration: Histogram<f64>,
    _claim_verdict: ObservableGauge<u64>,
    _marks_active: ObservableGauge<u64>,
    _audits: ObservableCounter<u64>,
    _audit_errors: ObservableCounter<u64>,
}

impl std::fmt::Debug for Instruments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instruments").finish_non_exhaustive()
    }
}

fn agent(label: &str, url: &str) -> [KeyValue; 2] {
    [KeyValue::new("a2a.agent", label.to_owned()), KeyValue::new("a2a.agent.url", url.to_owned())]
}

/// Runs `read` on the fleet, if the watch is still there.
fn with_fleet(shared: &Weak<Shared>, read: impl FnOnce(&super::store::Fleet)) {
    if let Some(shared) = shared.upgrade() {
        read(&shared.fleet());
    }
}

impl Instruments {
    /// The instruments, from the global meter provider.
    pub(super) fn from_global(shared: &Arc<Shared>) -> Self {
        let scope = InstrumentationScope::builder(INSTRUMENTATION_SCOPE)
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let meter = opentelemetry::global::meter_with_scope(scope);
        let (s1, s2, s3, s4) =
            (Arc::downgrade(shared), Arc::downgrade(shared), Arc::downgrade(shared), Arc::downgrade(shared));
        Self {
            audit_duration: meter
                .f64_histogram(AUDIT_DURATION)
                .with_unit("s")
                .with_description("How long each audit took")
                .build(),
            _claim_verdict: meter
                .u64_observable_gauge(CLAIM_VERDICT)
                .with_description("1 for each claim's current verdict")
                .with_callback(move |observer| {
                    with_fleet(&s1, |fleet| {
                        for a in &fleet.agents {
                            for (claim, current) in &a.current {
                                let mut attributes = agent(&a.label, &a.url).to_vec();
                                attributes.push(KeyValue::new("a2a.claim", claim.clone()));
                                attributes.push(KeyValue::new("a2a.verdict", current.verdict.clone()));
                                observer.observe(1, &attributes);
                            }
                        }
                    });
                })
                .build(),
            _marks_active: meter
                .u64_observable_gauge(MARKS_ACTIVE)
                .with_description("Claims refused now: the suspect marks a client would hold")
                .with_callback(move |observer| {
                    with_fleet(&s2, |fleet| {
                        for a in &fleet.agents {
                            observer.observe(a.refused_now() as u64, &agent(&a.label, &a.url));
                        }
                    });
                })
                .build(),
            _audits: meter
                .u64_observable_counter(AUDITS)
                .with_description("Audits ended, whatever they found")
                .with_callback(move |observer| {
                    with_fleet(&s3, |fleet| {
                        for a in &fleet.agents {
                            observer.observe(a.counters.audits, &agent(&a.label, &a.url));
                        }
                    });
                })
                .build(),
            _audit_errors: meter
                .u64_observable_counter(AUDIT_ERRORS)
                .with_description("Audits that could not run and cards that could not be fetched")
                .with_callback(move |observer| {
                    with_fleet(&s4, |fleet| {
                        for a in &fleet.agents {
                            for (kind, count) in &a.counters.errors {
                                let mut attributes = agent(&a.label, &a.url).to_vec();
                                attributes.push(KeyValue::new("error.type", *kind));
                                observer.observe(*count, &attributes);
                            }
                        }
                    });
                })
                .build(),
        }
    }

    /// Records one audit's duration.
    pub(super) fn audit(&self, url: &str, duration: Duration) {
        self.audit_duration.record(duration.as_secs_f64(), &[KeyValue::new("a2a.agent.url", url.to_owned())]);
    }
}
