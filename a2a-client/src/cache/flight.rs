//! Single-flight negotiation. While one task negotiates a claim with an agent on whose claims no
//! task of this cache has settled yet, the other tasks to that agent that depend on the same claims
//! wait for its verdict instead of racing it: a card that lies is refused once, and the tasks that
//! waited go single-shot at once on the mark; after a verification they negotiate as usual (each
//! task still checks the claims it relies on). The wait is bounded: past the bound, or when the
//! leading task ends without a verdict (an error, a transport fault), the others go on as if no
//! task had been first.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::agent_url::AgentBaseUrl;
use crate::shared::{CacheUpdate, Lease, LeaseVerdict};
use crate::{CapabilitySet, DiscoveryCache};

/// Per agent: the negotiation under way, and the claims settled as verified (until a time).
#[derive(Debug, Default)]
pub(super) struct Flights {
    agents: Mutex<HashMap<AgentBaseUrl, Agent>>,
}

#[derive(Debug, Default)]
struct Agent {
    /// The task negotiating now, and what it negotiates; its end wakes the waiters.
    leading: Option<(CapabilitySet, Arc<Notify>)>,
    /// Claims a task verified, and until when that spares the next tasks the wait.
    verified: CapabilitySet,
    verified_until: Option<Instant>,
}

/// What a task does before it negotiates: lead (it is the first), or go on (the claims were
/// settled, the leader ended, or the wait ran out).
#[derive(Debug)]
pub(crate) enum Turn {
    /// This task negotiates first; the others wait until the lead is dropped or settled.
    Lead(Lead),
    /// Negotiate now: what to do about a refusal the wait brought is the suspect mark's to say.
    GoOn {
        /// `true` when this task waited for another's negotiation (it ended, or the bound ran out).
        waited: bool,
    },
}

/// Held by the task negotiating first. However it ends ([`Lead::verified`], [`Lead::refused`], or
/// dropped after an error), the waiters wake and read the cache: the mark, the verified claims, or
/// nothing.
#[derive(Debug)]
pub(crate) struct Lead {
    cache: DiscoveryCache,
    agent: AgentBaseUrl,
    notify: Arc<Notify>,
    /// Whether this replica holds the shared lease too (a backend with leases said so).
    shared: bool,
    verdict: LeaseVerdict,
}

impl Lead {
    /// A claim was refused (the agent is marked): the waiters go single-shot on the mark.
    pub(crate) fn refused(mut self) {
        self.verdict = LeaseVerdict::Refused;
    }

    /// The claims the lead negotiated held: tasks depending on them skip the wait for `ttl`.
    pub(crate) fn verified(mut self, claims: CapabilitySet, ttl: Duration) {
        self.verdict = LeaseVerdict::Verified;
        let until = self.cache.clock.now() + ttl;
        let mut agents = self.cache.negotiations.agents.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = agents.entry(self.agent.clone()).or_default();
        entry.verified = claims.iter().fold(entry.verified, CapabilitySet::with);
        entry.verified_until = Some(until);
        // Released before `Drop` (which wakes the waiters) takes it again.
        drop(agents);
    }
}

impl Drop for Lead {
    fn drop(&mut self) {
        if self.shared {
            // Queued after the refusal's mark, so the others read the mark before the verdict.
            self.cache.send(CacheUpdate::LeaseEnd { agent: self.agent.clone(), verdict: self.verdict });
        }
        let mut agents = self.cache.negotiations.agents.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = agents.get_mut(&self.agent) {
            if entry.leading.as_ref().is_some_and(|(_, notify)| Arc::ptr_eq(notify, &self.notify)) {
                entry.leading = None;
            }
            if entry.leading.is_none() && entry.verified_until.is_none() {
                agents.remove(&self.agent);
            }
        }
        // Under the lock, which a waiter's check after registering takes too: none misses it.
        self.notify.notify_waiters();
    }
}

impl DiscoveryCache {
    /// The turn of a task about to negotiate `at_stake` (the claims it depends on that the card
    /// makes) with `agent`: lead when no task is negotiating them, wait at most `bound` for the
    /// one that is, or go on at once when they were verified lately.
    pub(crate) async fn negotiation_turn(
        &self,
        agent: &AgentBaseUrl,
        at_stake: CapabilitySet,
        bound: Duration,
    ) -> Turn {
        if at_stake.is_empty() {
            return Turn::GoOn { waited: false };
        }
        let deadline = Instant::now() + bound;
        let mut waited = false;
        loop {
            let notify = match self.local_turn(agent, at_stake, waited) {
                Ok(notify) => notify,
                Err(Turn::Lead(lead)) => return self.shared_turn(lead, at_stake, bound, deadline).await,
                Err(turn) => return turn,
            };
            // Registered for the wake-up first, then checked: a lead that ended before the
            // registration is seen gone (the next round reads its end), one that ends after wakes it.
            let mut woken = pin!(notify.notified());
            woken.as_mut().enable();
            waited = true;
            if !self.negotiations.leads(agent, &notify) {
                continue;
            }
            if tokio::time::timeout_at(deadline, woken).await.is_err() {
                tracing::debug!(agent = %agent.as_str(), "waited the bound for another task's negotiation; going on");
                return Turn::GoOn { waited };
            }
        }
    }

    /// One look at this cache's flights: the lead under way to wait for (`Ok`), or the turn.
    fn local_turn(
        &self,
        agent: &AgentBaseUrl,
        at_stake: CapabilitySet,
        waited: bool,
    ) -> Result<Arc<Notify>, Turn> {
        let now = self.clock.now();
        let mut agents = self.negotiations.agents.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = agents.entry(agent.clone()).or_default();
        if entry.verified_until.is_some_and(|until| until <= now) {
            entry.verified = CapabilitySet::EMPTY;
            entry.verified_until = None;
        }
        if at_stake.iter().all(|claim| entry.verified.contains(claim)) {
            return Err(Turn::GoOn { waited });
        }
        match &entry.leading {
            // Another task negotiates claims this one depends on: wait for its verdict.
            Some((leading, notify)) if !leading.intersection(at_stake).is_empty() => Ok(Arc::clone(notify)),
            // A task negotiating other claims is no reason to wait; a task that waited once goes
            // on (its leader ended) rather than lead a second round.
            Some(_) => Err(Turn::GoOn { waited }),
            None if waited => Err(Turn::GoOn { waited }),
            None => {
                let notify = Arc::new(Notify::new());
                entry.leading = Some((at_stake, Arc::clone(&notify)));
                Err(Turn::Lead(Lead {
                    cache: self.clone(),
                    agent: agent.clone(),
                    notify,
                    shared: false,
                    verdict: LeaseVerdict::None,
                }))
            }
        }
    }
}

impl DiscoveryCache {
    /// The lead of this cache's tasks, before it negotiates: with a backend that has leases, the
    /// replicas' lead too. While another replica holds the lease this task waits (asking again every
    /// few milliseconds, at most until `deadline`), and the tasks waiting on it here wait with it.
    async fn shared_turn(
        &self,
        mut lead: Lead,
        at_stake: CapabilitySet,
        bound: Duration,
        deadline: Instant,
    ) -> Turn {
        let Some(backend) = self.backend.get().cloned() else { return Turn::Lead(lead) };
        let mut poll = LEASE_POLL_FIRST;
        loop {
            match backend.lease(&lead.agent, bound).await {
                // No answer (unreachable, no leases): lead alone, as without a backend.
                None => return Turn::Lead(lead),
                Some(Lease::Held) => {
                    lead.shared = true;
                    return Turn::Lead(lead);
                }
                Some(Lease::Ended(LeaseVerdict::Verified)) => {
                    let ttl = self.default_ttl;
                    lead.verified(at_stake, ttl);
                    return Turn::GoOn { waited: true };
                }
                Some(Lease::Ended(LeaseVerdict::Refused)) => {
                    // The mark was shared before the verdict: wait (bounded) until it is here too.
                    while self.is_suspect(&lead.agent).is_none() && Instant::now() < deadline {
                        tokio::time::sleep(LEASE_POLL_FIRST).await;
                    }
                    drop(lead);
                    return Turn::GoOn { waited: true };
                }
                Some(_) if Instant::now() >= deadline => {
                    tracing::debug!(agent = %lead.agent.as_str(), "waited the bound for another replica's negotiation; going on");
                    return Turn::Lead(lead);
                }
                Some(_) => {
                    tokio::time::sleep(poll).await;
                    poll = (poll * 2).min(LEASE_POLL_MAX);
                }
            }
        }
    }
}

/// How often a replica waiting for another's negotiation asks whether it ended: first after 5 ms,
/// then twice as long each time up to 50 ms (a negotiation that ends at once is seen at once; one
/// that waits out a push bound costs a few dozen requests, not hundreds).
const LEASE_POLL_FIRST: Duration = Duration::from_millis(5);
const LEASE_POLL_MAX: Duration = Duration::from_millis(50);

impl Flights {
    /// Whether `notify`'s lead is still the one under way for `agent`.
    fn leads(&self, agent: &AgentBaseUrl, notify: &Arc<Notify>) -> bool {
        let agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        agents
            .get(agent)
            .and_then(|entry| entry.leading.as_ref())
            .is_some_and(|(_, leading)| Arc::ptr_eq(leading, notify))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Capability;

    fn agent() -> AgentBaseUrl {
        AgentBaseUrl::parse("http://agent.example").unwrap()
    }

    const STREAMING: CapabilitySet = CapabilitySet::EMPTY.with(Capability::Streaming);
    const PUSH: CapabilitySet = CapabilitySet::EMPTY.with(Capability::PushNotifications);
    const WAIT: Duration = Duration::from_secs(10);

    #[tokio::test(start_paused = true)]
    async fn one_task_leads_and_the_others_wait_until_it_ends_then_go_on_without_leading() {
        let cache = DiscoveryCache::default();
        let Turn::Lead(lead) = cache.negotiation_turn(&agent(), STREAMING, WAIT).await else {
            panic!("first leads")
        };
        let waiters: Vec<_> = (0..5)
            .map(|_| {
                let cache = cache.clone();
                tokio::spawn(async move { cache.negotiation_turn(&agent(), STREAMING, WAIT).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(waiters.iter().all(|w| !w.is_finished()), "they wait while the lead negotiates");

        let started = Instant::now();
        drop(lead); // ended without a verdict: a refusal (its mark) or an error
        for waiter in waiters {
            assert!(matches!(waiter.await.unwrap(), Turn::GoOn { waited: true }));
        }
        assert_eq!(started.elapsed(), Duration::ZERO, "woken at once, not at the bound");
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_ends_at_its_bound_when_the_lead_never_ends() {
        let cache = DiscoveryCache::default();
        let _stuck = cache.negotiation_turn(&agent(), STREAMING, WAIT).await;
        let started = Instant::now();

        let turn = cache.negotiation_turn(&agent(), STREAMING, Duration::from_millis(250)).await;

        assert!(matches!(turn, Turn::GoOn { waited: true }));
        assert_eq!(started.elapsed(), Duration::from_millis(250));
    }

    #[tokio::test(start_paused = true)]
    async fn verified_claims_spare_the_next_tasks_the_wait_until_their_ttl_ends() {
        let cache = DiscoveryCache::default();
        let Turn::Lead(lead) = cache.negotiation_turn(&agent(), STREAMING, WAIT).await else { panic!() };
        lead.verified(STREAMING, Duration::from_secs(60));

        assert!(matches!(
            cache.negotiation_turn(&agent(), STREAMING, WAIT).await,
            Turn::GoOn { waited: false }
        ));
        // Push was not verified: a task depending on it leads its own negotiation.
        let both = STREAMING.with(Capability::PushNotifications);
        assert!(matches!(cache.negotiation_turn(&agent(), both, WAIT).await, Turn::Lead(_)));

        tokio::time::sleep(Duration::from_secs(61)).await;
        assert!(matches!(cache.negotiation_turn(&agent(), STREAMING, WAIT).await, Turn::Lead(_)), "expired");
    }

    #[tokio::test(start_paused = true)]
    async fn no_wait_for_other_claims_nor_for_no_claim_at_stake() {
        let cache = DiscoveryCache::default();
        let _lead = cache.negotiation_turn(&agent(), STREAMING, WAIT).await;

        assert!(matches!(cache.negotiation_turn(&agent(), PUSH, WAIT).await, Turn::GoOn { waited: false }));
        assert!(matches!(
            cache.negotiation_turn(&agent(), CapabilitySet::EMPTY, WAIT).await,
            Turn::GoOn { waited: false }
        ));
        let other = AgentBaseUrl::parse("http://other.example").unwrap();
        assert!(matches!(cache.negotiation_turn(&other, STREAMING, WAIT).await, Turn::Lead(_)));
    }

    /// However many tasks arrive at once and whenever the leads end, at most one leads at a time
    /// and every task gets its turn within the bound.
    #[tokio::test(start_paused = true)]
    async fn at_most_one_lead_at_a_time_and_every_turn_comes() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cache = DiscoveryCache::default();
        let leading = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..50u64)
            .map(|n| {
                let (cache, leading, most) = (cache.clone(), Arc::clone(&leading), Arc::clone(&most));
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(n * 7 % 23)).await;
                    if let Turn::Lead(lead) = cache.negotiation_turn(&agent(), STREAMING, WAIT).await {
                        let now = leading.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(n % 5 * 10)).await;
                        leading.fetch_sub(1, Ordering::SeqCst);
                        drop(lead);
                    }
                })
            })
            .collect();
        for task in tasks {
            tokio::time::timeout(WAIT * 2, task).await.expect("every turn comes within the bound").unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }
}
