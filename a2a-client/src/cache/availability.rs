//! Availability: a breaker per agent, kept in the discovery cache beside the suspect marks and
//! shared like them, but never a mark. A mark says the card lied; an open breaker says only that
//! nothing answered, which says nothing about the card.
//!
//! Closed, a task goes to the agent as usual. When [`Breaker::after`] tasks in a row ended in a
//! transport fault (every interface the task tried refused the connection, timed out or answered
//! 502–504, past the retry budget), the breaker opens for the cool-down: tasks to the agent fail at
//! once with an [`ErrorKind::Transport`](crate::ErrorKind) error that names the breaker and when it
//! lets a task through again, and nothing is sent. Past the cool-down it is half-open: one task
//! goes through (the probe) while the others still fail fast; an answer of any kind closes it, a
//! transport fault opens it again for another cool-down. A probe that never reports (its future
//! dropped) holds the others back for one cool-down at most.

use std::time::Duration;

use tokio::time::Instant;

use super::DiscoveryCache;
use crate::agent_url::AgentBaseUrl;
use crate::defaults::{DEFAULT_BREAKER_COOL_DOWN, DEFAULT_BREAKER_FAILURES};
use crate::error::Unavailable;
use crate::shared::CacheUpdate;

/// When an agent that does not answer is held unavailable, and for how long (set with
/// [`ClientBuilder::availability_breaker`](crate::ClientBuilder::availability_breaker)).
///
/// ```
/// use std::time::Duration;
/// use a2a_typestate_client::Breaker;
///
/// let breaker = Breaker::after(5).cool_down(Duration::from_secs(60));
/// assert_eq!(breaker.failures(), 5);
/// assert!(Breaker::off().is_off());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
    cool_down: Duration,
}

impl Default for Breaker {
    /// Opens after [`DEFAULT_BREAKER_FAILURES`] tasks in a row ended in a transport fault, for
    /// [`DEFAULT_BREAKER_COOL_DOWN`].
    fn default() -> Self {
        Self { failures: DEFAULT_BREAKER_FAILURES, cool_down: DEFAULT_BREAKER_COOL_DOWN }
    }
}

impl Breaker {
    /// Opens after `failures` tasks in a row to one agent ended in a transport fault (zero: never).
    pub const fn after(failures: u32) -> Self {
        Self { failures, cool_down: DEFAULT_BREAKER_COOL_DOWN }
    }

    /// How long the breaker stays open before one task may probe the agent.
    #[must_use]
    pub const fn cool_down(self, cool_down: Duration) -> Self {
        Self { cool_down, ..self }
    }

    /// No breaker: every task goes to the agent and waits out its own retry budget.
    pub const fn off() -> Self {
        Self { failures: 0, cool_down: Duration::ZERO }
    }

    /// Whether the breaker never opens.
    pub const fn is_off(&self) -> bool {
        self.failures == 0 || self.cool_down.is_zero()
    }

    /// Tasks in a row ending in a transport fault that open it.
    pub const fn failures(&self) -> u32 {
        self.failures
    }

    /// How long it stays open.
    pub const fn cool_down_for(&self) -> Duration {
        self.cool_down
    }
}

/// An agent's availability as this cache holds it.
#[derive(Clone, Debug, Default)]
pub(super) struct Availability {
    /// Tasks in a row that ended in a transport fault.
    failures: u32,
    evidence: String,
    /// While `Some` and in the future: open. Past: half-open.
    open_until: Option<Instant>,
    /// How long it opened for: also the longest a probe may take.
    cool_down: Duration,
    /// The probe of a half-open breaker, since when.
    probe_since: Option<Instant>,
    opened_by: Option<String>,
}

impl Availability {
    /// What an open breaker (`until` its end) says at `now`: past its end, a probe is under way.
    fn unavailable(&self, until: Instant, now: Instant) -> Unavailable {
        let probing = until <= now;
        let reopens_at = match self.probe_since {
            Some(since) if probing => crate::wire_caps::instant_after(since, self.cool_down),
            _ => until,
        };
        Unavailable {
            failures: self.failures,
            evidence: self.evidence.clone(),
            reopens_in: reopens_at.saturating_duration_since(now),
            probing,
            opened_by: self.opened_by.clone(),
        }
    }
}

/// What [`DiscoveryCache::availability_gate`] lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// The breaker is closed.
    Closed,
    /// The breaker is half-open and this task is its probe.
    Probe,
}

/// What a task's end did to the breaker ([`DiscoveryCache::task_reached`] and
/// [`DiscoveryCache::task_unreached`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    None,
    Opened,
    Closed,
}

impl DiscoveryCache {
    /// Whether `agent` is held unavailable now (its breaker open or probing), and why.
    pub fn unavailable(&self, agent: &AgentBaseUrl) -> Option<Unavailable> {
        let now = self.clock.now();
        let state = self.lock();
        let held = state.availability.get(agent)?;
        let until = held.open_until?;
        // Half-open with no probe under way: the next task goes.
        if until <= now && held.probe_since.is_none() {
            return None;
        }
        Some(held.unavailable(until, now))
    }

    /// Every agent held unavailable now.
    pub fn unavailable_agents(&self) -> Vec<(AgentBaseUrl, Unavailable)> {
        let agents: Vec<AgentBaseUrl> = self.lock().availability.keys().cloned().collect();
        agents.into_iter().filter_map(|agent| self.unavailable(&agent).map(|u| (agent, u))).collect()
    }

    /// Whether a task may go to `agent` now: `Err` while its breaker is open, or half-open with a
    /// probe under way.
    pub(crate) fn availability_gate(
        &self,
        agent: &AgentBaseUrl,
        breaker: Breaker,
    ) -> Result<Gate, Unavailable> {
        if breaker.is_off() {
            return Ok(Gate::Closed);
        }
        let now = self.clock.now();
        let mut state = self.lock();
        let Some(held) = state.availability.get_mut(agent) else { return Ok(Gate::Closed) };
        let Some(until) = held.open_until else { return Ok(Gate::Closed) };
        // Half-open, and no probe under way, or one that never reported for a cool-down.
        let probe_under_way = held
            .probe_since
            .is_some_and(|since| now < crate::wire_caps::instant_after(since, held.cool_down));
        if until <= now && !probe_under_way {
            held.probe_since = Some(now);
            return Ok(Gate::Probe);
        }
        Err(held.unavailable(until, now))
    }

    /// A task to `agent` got an answer of any kind: the breaker closes (shared when it was open).
    pub(crate) fn task_reached(&self, agent: &AgentBaseUrl) -> Change {
        let was_open = self.lock().availability.remove(agent).is_some_and(|held| held.open_until.is_some());
        if was_open {
            self.send(CacheUpdate::Available { agent: agent.clone() });
            return Change::Closed;
        }
        Change::None
    }

    /// A task to `agent` ended in a transport fault (`evidence`): counted; the breaker opens at
    /// `breaker`'s count, or again when this was the probe of a half-open one (shared either way).
    pub(crate) fn task_unreached(&self, agent: &AgentBaseUrl, breaker: Breaker, evidence: &str) -> Change {
        if breaker.is_off() {
            return Change::None;
        }
        let now = self.clock.now();
        let opened = {
            let mut state = self.lock();
            let held = state.availability.entry(agent.clone()).or_default();
            held.failures = held.failures.saturating_add(1);
            held.evidence = super::summary(evidence);
            let open = match held.open_until {
                // Already open: a task that set out before it opened.
                Some(until) if until > now => false,
                Some(_) => true,
                None => held.failures >= breaker.failures,
            };
            if open {
                held.open_until = Some(crate::wire_caps::instant_after(now, breaker.cool_down));
                held.cool_down = breaker.cool_down;
                held.probe_since = None;
                held.opened_by = None;
            }
            open.then(|| (held.failures, held.evidence.clone()))
        };
        let Some((failures, evidence)) = opened else { return Change::None };
        self.send(CacheUpdate::Unavailable {
            agent: agent.clone(),
            failures,
            evidence,
            ttl: breaker.cool_down,
        });
        Change::Opened
    }
}

/// The local cache's side of a breaker another replica opened or closed.
impl super::LocalReplica {
    /// Applies a breaker another replica opened on `agent`: held unavailable for `ttl` (at most a
    /// year), unless it is held so longer here. Returns whether anything changed.
    pub fn apply_unavailable(
        &self,
        agent: &AgentBaseUrl,
        failures: u32,
        evidence: &str,
        ttl: Duration,
        opened_by: Option<String>,
    ) -> bool {
        if ttl.is_zero() {
            return false;
        }
        // A peer's TTL is at most a year here, whatever it sent.
        let ttl = ttl.min(crate::wire_caps::MAX_SHARED_TTL);
        let until = crate::wire_caps::instant_after(self.cache.clock.now(), ttl);
        let mut state = self.cache.lock();
        let held = state.availability.entry(agent.clone()).or_default();
        if held.open_until.is_some_and(|held| held >= until) {
            return false;
        }
        *held = Availability {
            failures,
            evidence: super::summary(evidence),
            open_until: Some(until),
            cool_down: ttl,
            probe_since: None,
            opened_by,
        };
        true
    }

    /// Applies a breaker another replica closed (the agent answered it). Returns whether one was
    /// held here.
    pub fn apply_available(&self, agent: &AgentBaseUrl) -> bool {
        self.cache.lock().availability.remove(agent).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COOL: Duration = Duration::from_secs(30);

    fn setup() -> (DiscoveryCache, crate::ManualClock, AgentBaseUrl, Breaker) {
        let (cache, clock) =
            DiscoveryCache::with_manual_clock(Duration::from_secs(300), Duration::from_secs(3600));
        let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
        (cache, clock, agent, Breaker::after(3).cool_down(COOL))
    }

    /// Fails `n` tasks in a row and returns what the last did to the breaker.
    fn fail(cache: &DiscoveryCache, agent: &AgentBaseUrl, breaker: Breaker, n: u32) -> Change {
        let mut last = Change::None;
        for _ in 0..n {
            last = cache.task_unreached(agent, breaker, "transport fault: connection failed");
        }
        last
    }

    #[test]
    fn it_opens_at_the_count_of_faults_in_a_row_and_not_before() {
        let (cache, _clock, agent, breaker) = setup();
        assert_eq!(fail(&cache, &agent, breaker, 2), Change::None);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Closed));
        assert_eq!(fail(&cache, &agent, breaker, 1), Change::Opened);
        let held = cache.availability_gate(&agent, breaker).unwrap_err();
        assert_eq!((held.failures(), held.reopens_in(), held.is_probing()), (3, COOL, false));
        assert!(cache.suspect_marks(&agent).is_empty(), "a breaker is never a mark");
    }

    #[test]
    fn an_answer_between_faults_starts_the_count_again() {
        let (cache, _clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 2);
        assert_eq!(cache.task_reached(&agent), Change::None, "nothing was open to close");
        assert_eq!(fail(&cache, &agent, breaker, 2), Change::None);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Closed));
    }

    #[test]
    fn past_the_cool_down_one_probe_goes_and_the_others_still_fail_fast() {
        let (cache, clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 3);
        clock.advance(COOL);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Probe));
        let other = cache.availability_gate(&agent, breaker).unwrap_err();
        assert!(other.is_probing(), "{other}");
        assert!(other.to_string().contains("a probe is under way"), "{other}");
        assert_eq!(cache.task_reached(&agent), Change::Closed);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Closed));
        assert!(cache.unavailable(&agent).is_none());
    }

    #[test]
    fn a_failed_probe_opens_it_for_another_cool_down() {
        let (cache, clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 3);
        clock.advance(COOL);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Probe));
        assert_eq!(fail(&cache, &agent, breaker, 1), Change::Opened);
        assert_eq!(cache.availability_gate(&agent, breaker).unwrap_err().reopens_in(), COOL);
    }

    #[test]
    fn a_probe_that_never_reports_holds_the_others_back_one_cool_down_at_most() {
        let (cache, clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 3);
        clock.advance(COOL);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Probe));
        clock.advance(COOL - Duration::from_millis(1));
        assert!(cache.availability_gate(&agent, breaker).is_err());
        clock.advance(Duration::from_millis(1));
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Probe), "the lost probe is replaced");
    }

    #[test]
    fn a_fault_of_a_task_that_set_out_before_it_opened_does_not_lengthen_it() {
        let (cache, clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 3);
        clock.advance(Duration::from_secs(10));
        assert_eq!(fail(&cache, &agent, breaker, 1), Change::None);
        assert_eq!(cache.unavailable(&agent).unwrap().reopens_in(), Duration::from_secs(20));
    }

    #[test]
    fn an_answer_while_open_closes_it() {
        let (cache, _clock, agent, breaker) = setup();
        fail(&cache, &agent, breaker, 3);
        assert_eq!(cache.task_reached(&agent), Change::Closed);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Closed));
    }

    #[test]
    fn off_never_opens() {
        let (cache, _clock, agent, _) = setup();
        for off in [Breaker::off(), Breaker::after(0), Breaker::after(3).cool_down(Duration::ZERO)] {
            assert_eq!(fail(&cache, &agent, off, 10), Change::None);
            assert_eq!(cache.availability_gate(&agent, off), Ok(Gate::Closed));
        }
    }

    #[test]
    fn another_replicas_breaker_applies_until_its_ttl_and_its_close_ends_it() {
        let (cache, clock, agent, breaker) = setup();
        let replica = crate::shared::LocalReplica { cache: cache.clone() };
        assert!(replica.apply_unavailable(&agent, 4, "timed out", COOL, Some("replica-2".into())));
        let held = cache.availability_gate(&agent, breaker).unwrap_err();
        assert_eq!((held.failures(), held.opened_by()), (4, Some("replica-2")));
        assert!(held.to_string().contains("on replica replica-2"), "{held}");
        assert!(
            !replica.apply_unavailable(&agent, 4, "timed out", COOL / 2, None),
            "a shorter one changes nothing"
        );
        clock.advance(COOL);
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Probe));
        assert!(replica.apply_available(&agent));
        assert_eq!(cache.availability_gate(&agent, breaker), Ok(Gate::Closed));
    }
}
