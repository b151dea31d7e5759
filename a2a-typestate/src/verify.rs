//! The verifier: observations in, one verdict per claim out. No I/O, no clock.
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use a2a_typestate::{
//!     Bounds, Call, Capability, CapabilitySet, CardClaims, Deployment, ExchangeModes, Observed, Verifier,
//! };
//!
//! let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(r#"{"name": "a", "description": "",
//!     "version": "1", "supportedInterfaces": [], "skills": [], "defaultInputModes": ["text/plain"],
//!     "defaultOutputModes": ["text/plain"], "capabilities": {"streaming": true}}"#)?;
//! let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
//! let mut verifier = Verifier::new(claims, CapabilitySet::of(&[Capability::Streaming]), Bounds::default());
//! let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
//! verifier.observe(Duration::ZERO, sent);
//! // The agent answers the streaming call with its own "not supported": it contradicts its card.
//! let unsupported = Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 };
//! verifier.observe(Duration::from_millis(3), unsupported);
//! let violation = verifier.refusal(Duration::from_millis(3)).ok_or("expected a refusal")?;
//! assert_eq!(violation.capability(), Capability::Streaming);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The refusal rules
//!
//! A claim is refused only when **all three** hold:
//! 1. the card declares the capability **and** the caller's negotiation path depends on it;
//! 2. the **first** transition that exercises it produces a state the capability cannot explain:
//!    - streaming: the streaming call is answered `UnsupportedOperationError` (-32004), or the
//!      terminal state arrives on the stream with no streamed artifact while `GetTask` returns
//!      artifacts (a stream that carried the answer to its end as messages is verified when the
//!      agent does not serve that `GetTask`: the stream is then the only channel);
//!    - state-transition history: the first `GetTask` relied on returns an empty history;
//!    - push: the push-config call is answered `PushNotificationNotSupportedError` (-32003) or
//!      `UnsupportedOperationError` (-32004) while the agent holds no config of ours, or the
//!      task reached its terminal state after the config was registered (and not found dropped,
//!      [`Observed::PushDropped`]) and no callback at all
//!      (about any transition) arrived within [`Bounds::push_arrival`] of that terminal
//!      transition. Absence is judged against the task's transitions, not the wall clock: an agent
//!      that pushes only when a long task completes is honest. Silence the agent explained is not
//!      absence: when it refused the webhook URL itself on a push-config call (-32602 invalid
//!      params, a host it will not call) and no callback came, push stays pending
//!      ([`PendingReason::WebhookUrlRefused`]); nor when the webhook was a loopback or private
//!      address and the agent is reached elsewhere: out of its reach, a silence is no evidence
//!      ([`PendingReason::WebhookOutOfReach`]);
//! 3. that transition was reachable through the card's `defaultInputModes` / `defaultOutputModes`
//!    ([`rules::reachable`], the one reading for every claim): the agent's own "not supported" to
//!    the capability's own call counts whatever the modes; any other contradiction counts when the
//!    last message sent before it used only declared input media types and accepted at least one
//!    declared output type (or any), media types compared by meaning (`text` is `text/plain`).
//!
//! What never refuses: transport faults (reset, 502, 503, 504, timeouts: advice
//! [`Advice::Retry`](crate::Advice::Retry)), nor an artifact missing from a stream a transport
//! fault cut before its terminal state (it may have been lost in transit); a first `WORKING` alone; an agent doing more than it
//! declares (streaming with `streaming: false` is fine); anything about a gateway (it has no claims).
//!
//! Once the first exercising transition settled a claim, later events do not change it.
//!
//! Separately, a task that shows no progress past [`Bounds::unobservable`] (no new state, status
//! message or artifact since the client's last message or the agent's last progress: the same
//! state polled again, the same question asked again, keep-alive comments, identical `WORKING`
//! events, states it already reported alternating with each other), or that runs past [`Bounds::task_deadline`], is a [`LifecycleFault`]: not a transport
//! fault, not a refusal. This holds on every channel; without streaming it is how a `WORKING`
//! left unobservable by the client's bounded polling ends.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use a2a_typestate_types::error::A2aErrorCode;
use a2a_typestate_types::{MessageId, TaskState};

use crate::bounds::Bounds;
use crate::capability::{Capability, CapabilitySet};
use crate::card::CardClaims;
use crate::observe::{Call, Channel, Elapsed, Observed, TransportFault};
use crate::rules::{self, Reach, Reachability};
use crate::verdict::{LifecycleFault, Pending, PendingReason, Verdict};
use crate::violation::{AgentCardLifecycleViolation, Contradiction, Evidence};

/// Judges a task's claims from what was observed about it.
///
/// Plain data: usable from async code (it is `Send + Sync`), cheap to clone, no I/O, and time is an
/// argument. [`Handle`](crate::Handle) embeds one; it can also be used on its own.
///
/// Each rule reads the observations as they are recorded, once: an event loop asks for the verdicts
/// and the lifecycle deadline after every event, so nothing here re-reads the whole log per question
/// (which made a long stream cost quadratic time).
#[derive(Clone, Debug)]
pub struct Verifier {
    card: Arc<CardClaims>,
    depends_on: CapabilitySet,
    bounds: Bounds,
    log: Vec<(Elapsed, Observed)>,
    /// Observations made, kept or not.
    counted: u64,
    /// The last state and the last artifact kept: what a state or artifact not kept is counted as.
    last_status: Option<usize>,
    last_artifact: Option<usize>,
    /// The first terminal state seen on any channel.
    first_terminal: Option<usize>,
    progress: ProgressRule,
    streaming: StreamingRule,
    history: HistoryRule,
    push: PushRule,
}

impl Verifier {
    /// A verifier for a task against the agent whose card gave `card`, for a caller whose
    /// negotiation path depends on `depends_on`.
    pub fn new(card: Arc<CardClaims>, depends_on: CapabilitySet, bounds: Bounds) -> Self {
        Self {
            card,
            depends_on,
            bounds,
            log: Vec::new(),
            counted: 0,
            last_status: None,
            last_artifact: None,
            first_terminal: None,
            progress: ProgressRule::default(),
            streaming: StreamingRule::default(),
            history: HistoryRule::default(),
            push: PushRule::default(),
        }
    }

    /// The claims checked: declared by the card and depended on by the caller (condition 1).
    pub fn checked(&self) -> CapabilitySet {
        let card = &self.card;
        card.declared().iter().filter(|c| rules::checked(card, true, self.depends_on.contains(*c))).collect()
    }

    /// The card's claims.
    pub fn card(&self) -> &CardClaims {
        &self.card
    }

    /// The bounds in use.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    pub(crate) fn set_depends_on(&mut self, depends_on: CapabilitySet) {
        self.depends_on = depends_on;
    }

    /// Records an observation made `at` (elapsed since the task handle was created) and returns its
    /// sequence number, the one [`Evidence`] cites. Observations are expected in time order.
    ///
    /// Every observation reaches the rules, but what is kept is bounded, whatever the agent sends:
    /// one equal to the last entry kept (the same state again, another artifact chunk) adds
    /// nothing and is counted, not kept; past [`Bounds::events_kept`], a state or an artifact that
    /// is not terminal is not kept either. Either way its number is the entry it repeats: the last
    /// kept one, or the last kept of its kind ([`Verifier::observations_counted`] counts them all).
    pub fn observe(&mut self, at: Elapsed, observed: Observed) -> usize {
        self.counted += 1;
        let seq = match self.kept_as(&observed) {
            Some(twin) => twin,
            None => self.log.len(),
        };
        let kept = seq == self.log.len();
        let terminal_before = self.first_terminal.is_some();
        self.progress.record(at, &observed);
        self.streaming.record(seq, &observed, terminal_before);
        self.history.record(seq, &observed);
        self.push.record(seq, at, &observed);
        if self.first_terminal.is_none()
            && matches!(&observed, Observed::Status { state, .. } if state.is_terminal())
        {
            self.first_terminal = Some(seq);
        }
        if kept {
            match &observed {
                Observed::Status { .. } => self.last_status = Some(seq),
                Observed::Artifact { .. } => self.last_artifact = Some(seq),
                _ => {}
            }
            self.log.push((at, observed));
        }
        seq
    }

    /// The kept entry `observed` is counted as instead of being kept itself, if any.
    fn kept_as(&self, observed: &Observed) -> Option<usize> {
        let last = self.log.len().checked_sub(1)?;
        if self.log[last].1 == *observed {
            return Some(last);
        }
        if self.log.len() < self.bounds.events_kept() {
            return None;
        }
        match observed {
            Observed::Status { state, .. } if !state.is_terminal() => self.last_status,
            Observed::Artifact { .. } => self.last_artifact,
            _ => None,
        }
    }

    /// How many observations were made, kept or not (see [`Verifier::observe`]).
    pub fn observations_counted(&self) -> u64 {
        self.counted
    }

    /// What was kept of what was observed, in order: every observation but the repeats and, past
    /// [`Bounds::events_kept`], the states and artifacts that were not terminal
    /// ([`Verifier::observe`]).
    pub fn observations(&self) -> &[(Elapsed, Observed)] {
        &self.log
    }

    /// The verdict on `capability` at elapsed time `now`, or `None` when it is not checked
    /// (condition 1 fails: not declared, not depended on, or the agent is a gateway).
    pub fn verdict(&self, capability: Capability, now: Elapsed) -> Option<Verdict> {
        if !self.checked().contains(capability) {
            return None;
        }
        Some(match capability {
            Capability::Streaming => self.streaming(),
            Capability::StateTransitionHistory => self.history(),
            Capability::PushNotifications => self.push(now),
        })
    }

    /// The verdict on every checked claim at `now`.
    pub fn verdicts(&self, now: Elapsed) -> Vec<(Capability, Verdict)> {
        self.checked().iter().filter_map(|c| Some((c, self.verdict(c, now)?))).collect()
    }

    /// The refusal that decides at `now`: the one whose evidence came first, if any.
    pub fn refusal(&self, now: Elapsed) -> Option<AgentCardLifecycleViolation> {
        self.refusals(now).into_iter().next()
    }

    /// Every refusal among the checked claims at `now`, the first by evidence first: the one place
    /// that orders them, so every handle and driver names the same one as deciding.
    pub fn refusals(&self, now: Elapsed) -> Vec<AgentCardLifecycleViolation> {
        let mut refusals: Vec<_> = self
            .verdicts(now)
            .into_iter()
            .filter_map(|(_, v)| match v {
                Verdict::Refused(violation) => Some(violation),
                _ => None,
            })
            .collect();
        refusals.sort_by_key(|violation| violation.evidence().seq);
        refusals
    }

    /// The refusal that decides once a settle found `refused`, and the other refusals at `now`: the
    /// first by evidence decides, whichever claim the settle was asked about.
    pub(crate) fn deciding_refusal(
        &self,
        refused: AgentCardLifecycleViolation,
        now: Elapsed,
    ) -> (AgentCardLifecycleViolation, Vec<AgentCardLifecycleViolation>) {
        let mut refusals = self.refusals(now).into_iter();
        let deciding = refusals.next().unwrap_or(refused);
        let others = refusals.filter(|v| v.capability() != deciding.capability()).collect();
        (deciding, others)
    }

    /// The poll interval to use: the card's declared cadence (clamped), else the client's bound.
    pub fn poll_interval(&self) -> Duration {
        match self.card.poll_cadence() {
            Some(cadence) => Bounds::card_cadence(cadence),
            None => self.bounds.poll_interval(),
        }
    }

    /// A lifecycle fault at `now`, if any: the task has not ended and showed no progress for
    /// longer than [`Bounds::unobservable`], or `now` is past [`Bounds::task_deadline`].
    ///
    /// Progress is a message the client sent, an artifact update, or a state, status message and
    /// artifact count not seen before since that message (outside push, which is unordered):
    /// alternating between states already reported is no progress. Nothing is a fault before the
    /// first message is sent, or once a terminal state was seen.
    pub fn lifecycle_fault(&self, now: Elapsed) -> Option<LifecycleFault> {
        let (since, state) = self.last_progress()?;
        let deadline = self.bounds.task_deadline();
        if now > deadline {
            return Some(LifecycleFault::DeadlineExceeded { state, deadline });
        }
        let bound = self.bounds.unobservable();
        (now.saturating_sub(since) > bound).then_some(LifecycleFault::NoProgress { state, since, bound })
    }

    /// When a lifecycle fault fires if nothing more is observed: the end of the no-progress bound
    /// or the task deadline, whichever comes first; `None` once the task ended or before anything
    /// was sent. What an event loop sleeps until.
    pub fn lifecycle_deadline(&self) -> Option<Elapsed> {
        let (since, _) = self.last_progress()?;
        Some(since.saturating_add(self.bounds.unobservable()).min(self.bounds.task_deadline()))
    }

    /// When the task last made progress and the state it is in; `None` once it ended or before
    /// the first message ([`ProgressRule`] keeps the answer as observations come).
    fn last_progress(&self) -> Option<(Elapsed, Option<TaskState>)> {
        if self.progress.ended {
            return None;
        }
        Some((self.progress.last_progress?, self.progress.last_status.as_ref().map(|status| status.0)))
    }

    fn evidence(&self, seq: usize) -> Option<Evidence> {
        let (at, observed) = self.log.get(seq)?;
        Some(Evidence { seq, at: *at, observed: observed.clone() })
    }

    /// Conditions 2 and 3: a contradiction at `seq` refuses only when it was reachable through the
    /// card's declared modes ([`rules::reachable`]): the agent's own "not supported" to the
    /// capability's own call always is; any other contradiction is read against the modes of the
    /// last message sent before it.
    fn contradicted(&self, capability: Capability, contradiction: Contradiction, seq: usize) -> Verdict {
        let Some(evidence) = self.evidence(seq) else {
            return Verdict::Pending(Pending::new(PendingReason::NotExercised));
        };
        let reach =
            match contradiction {
                Contradiction::AgentSaysUnsupported { .. } | Contradiction::MethodMissing { .. } => {
                    Reach::OwnCall
                }
                _ => Reach::Exchange(self.log.get(..seq).unwrap_or_default().iter().rev().find_map(
                    |(_, o)| match o {
                        Observed::MessageSent { modes, .. } => Some(modes),
                        _ => None,
                    },
                )),
            };
        let divergence = || {
            Box::new(AgentCardLifecycleViolation::new(capability, contradiction.clone(), evidence.clone()))
        };
        match rules::reachable(&self.card, reach) {
            Reachability::Declared => {
                Verdict::Refused(AgentCardLifecycleViolation::new(capability, contradiction, evidence))
            }
            Reachability::OutsideDeclaredModes => {
                Verdict::Pending(Pending::new(PendingReason::OutsideDeclaredModes {
                    divergence: divergence(),
                }))
            }
            Reachability::ModesUnknown => {
                Verdict::Pending(Pending::new(PendingReason::ModesUnknown { divergence: divergence() }))
            }
        }
    }

    fn verified(&self, seq: usize) -> Verdict {
        match self.evidence(seq) {
            Some(evidence) => Verdict::Verified(evidence),
            None => Verdict::Pending(Pending::new(PendingReason::NotExercised)),
        }
    }

    /// The reason to report while nothing is settled: a trailing transport fault or protocol error
    /// on a call of interest beats the capability's own waiting reason.
    fn pending(&self, relevant: impl Fn(Call) -> bool, otherwise: PendingReason) -> Verdict {
        let latest = self.log.iter().rev().find_map(|(_, o)| match o {
            Observed::TransportFault { call, fault } if relevant(*call) => {
                Some(Some(PendingReason::TransportFault { call: *call, fault: *fault }))
            }
            Observed::AgentError { call, code } if relevant(*call) => {
                Some(Some(PendingReason::ProtocolError { call: *call, code: *code }))
            }
            Observed::Status { .. } | Observed::Artifact { .. } | Observed::History { .. } => Some(None),
            Observed::PushCallback { .. } | Observed::StreamClosed => Some(None),
            _ => None,
        });
        Verdict::Pending(Pending::new(latest.flatten().unwrap_or(otherwise)))
    }

    fn terminal_before(&self, seq: usize) -> bool {
        self.first_terminal.is_some_and(|terminal| terminal < seq)
    }

    fn streaming(&self) -> Verdict {
        let rule = &self.streaming;
        if let Some((seq, call, code)) = rule.unsupported {
            let contradiction = Contradiction::AgentSaysUnsupported { call, code };
            return self.contradicted(Capability::Streaming, contradiction, seq);
        }
        if let Some((seq, call)) = rule.method_missing.filter(|_| rule.binding_answered && !rule.stream_seen)
        {
            // The binding is understood and the stream's method is not: the agent has none.
            return self.contradicted(Capability::Streaming, Contradiction::MethodMissing { call }, seq);
        }
        let Some(terminal) = rule.terminal_on_stream else {
            let waiting =
                if rule.stream_seen { PendingReason::AwaitingTerminal } else { PendingReason::NotExercised };
            return self.pending(Call::is_streaming, waiting);
        };
        match (rule.confirmed, rule.interrupted) {
            _ if rule.streamed_artifacts > 0 => self.verified(terminal),
            (Some(0), _) => self.verified(terminal),
            // The agent does not serve the `GetTask` that would compare (its own error, or an HTTP
            // error outside the protocol): the stream is the only channel, and it carried the
            // answer to its end.
            (None, None) if rule.confirmation_refused && rule.answered => self.verified(terminal),
            // A cut stream may have lost the artifact in transit: that says nothing about the card.
            (Some(_), Some(fault)) => {
                Verdict::Pending(Pending::new(PendingReason::StreamInterrupted { fault }))
            }
            (Some(n), None) => self.contradicted(
                Capability::Streaming,
                Contradiction::NoArtifactStreamed { artifacts_via_get_task: n },
                terminal,
            ),
            (None, _) => self.pending(|call| call == Call::GetTask, PendingReason::ArtifactsUnconfirmed),
        }
    }

    fn history(&self) -> Verdict {
        match self.history.relied {
            Some((seq, 0)) => {
                self.contradicted(Capability::StateTransitionHistory, Contradiction::EmptyHistory, seq)
            }
            Some((seq, _)) => self.verified(seq),
            None => self.pending(|call| call == Call::GetTask, PendingReason::NotExercised),
        }
    }

    fn push(&self, now: Elapsed) -> Verdict {
        let bound = self.bounds.push_arrival();
        let rule = &self.push;
        match rule.settled {
            Some(PushSettled::Unsupported { seq, code }) => {
                let contradiction =
                    Contradiction::AgentSaysUnsupported { call: Call::PushNotificationConfig, code };
                return self.contradicted(Capability::PushNotifications, contradiction, seq);
            }
            // A callback about any transition honours the claim, unless it came later than the
            // bound after the terminal transition (by then the client had stopped waiting).
            Some(PushSettled::Callback { seq, at }) => {
                return match rule.terminal_after_registration {
                    Some((terminal, ended_at)) if at.saturating_sub(ended_at) > bound => self.contradicted(
                        Capability::PushNotifications,
                        Contradiction::NoPushCallback { waited: at.saturating_sub(ended_at), bound },
                        terminal,
                    ),
                    _ => self.verified(seq),
                };
            }
            None => {}
        }
        let Some(reg_seq) = rule.registered else {
            return self.pending(|call| call == Call::PushNotificationConfig, PendingReason::NotExercised);
        };
        if self.terminal_before(reg_seq) {
            return Verdict::Pending(Pending::new(PendingReason::NothingLeftToPush));
        }
        match rule.terminal_after_registration {
            Some((seq, at)) if now.saturating_sub(at) > bound => match rule.url_refused {
                // The agent said it will not call this URL: its silence there is what it announced.
                Some(code) => Verdict::Pending(Pending::new(PendingReason::WebhookUrlRefused {
                    call: Call::PushNotificationConfig,
                    code,
                })),
                // The webhook was out of the agent's reach: its silence there is no evidence.
                None if rule.out_of_reach => Verdict::Pending(Pending::new(PendingReason::WebhookOutOfReach)),
                // The client's receiver turned connections away meanwhile: the loss may be ours.
                None if rule.turned_away => Verdict::Pending(Pending::new(PendingReason::ReceiverTurnedAway)),
                None => self.contradicted(
                    Capability::PushNotifications,
                    Contradiction::NoPushCallback { waited: now.saturating_sub(at), bound },
                    seq,
                ),
            },
            Some((_, at)) => Verdict::Pending(Pending::new(PendingReason::AwaitingPushCallback {
                deadline: Some(at.saturating_add(bound)),
            })),
            None => Verdict::Pending(Pending::new(PendingReason::AwaitingPushCallback { deadline: None })),
        }
    }
}

/// A status as progress sees it: the same state, status message and artifact count again is no
/// progress.
type StatusKey = (TaskState, Option<MessageId>, Option<usize>);

/// The most statuses the no-progress rule remembers: 4,096 digests (64 KiB), however many
/// distinct statuses an agent sends. Past it a status not remembered counts as progress (each is
/// new anyway, and the task deadline bounds the run), so the bound only makes the rule more lenient.
const SEEN_STATUSES_MAX: usize = 4096;

/// The digest a status is remembered by: 8 bytes, whatever length the agent gave its message id.
fn digest(status: &StatusKey) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    status.hash(&mut hasher);
    hasher.finish()
}

/// What the no-progress rule ([`Verifier::lifecycle_fault`]) has read so far.
///
/// A status is progress only the first time it is seen since the client's last message (the status
/// that message answered counts as seen): an agent that flips between states it already reported
/// (`WORKING`, `SUBMITTED`, `WORKING`...) with no new status message or artifact has shown nothing
/// new, however often it flips, and the same question after the answer is none.
#[derive(Clone, Debug, Default)]
struct ProgressRule {
    last_progress: Option<Elapsed>,
    /// The last status's state, and its digest.
    last_status: Option<(TaskState, u64)>,
    /// Digests of the statuses seen since the last message, at most [`SEEN_STATUSES_MAX`].
    seen: HashSet<u64>,
    /// A terminal state was seen outside push: the task ended, nothing is a fault any more.
    ended: bool,
}

impl ProgressRule {
    fn record(&mut self, at: Elapsed, observed: &Observed) {
        if self.ended {
            return;
        }
        match observed {
            Observed::MessageSent { .. } => {
                // What the agent says next answers the message: new unless it repeats the status
                // the client was answering.
                self.seen.clear();
                self.seen.extend(self.last_status.map(|(_, digest)| digest));
                self.last_progress = Some(at);
            }
            Observed::Artifact { .. } | Observed::AgentMessage { .. } => self.last_progress = Some(at),
            Observed::Status { state, message, via, artifacts, .. } if *via != Channel::Push => {
                if state.is_terminal() {
                    self.ended = true;
                    return;
                }
                let status = digest(&(*state, message.clone(), *artifacts));
                if !self.seen.contains(&status) {
                    self.last_progress = Some(at);
                    if self.seen.len() < SEEN_STATUSES_MAX {
                        self.seen.insert(status);
                    }
                }
                self.last_status = Some((*state, status));
            }
            _ => {}
        }
    }
}

/// What the streaming rule has read so far ([`Verifier::streaming`] judges it).
#[derive(Clone, Debug, Default)]
struct StreamingRule {
    streamed_artifacts: usize,
    stream_seen: bool,
    terminal_on_stream: Option<usize>,
    /// The artifact count of the first `GetTask` after the terminal state on the stream.
    confirmed: Option<usize>,
    interrupted: Option<TransportFault>,
    /// The agent's own "not supported" to a streaming call before any stream or terminal state:
    /// the first exercising transition, so nothing after it counts.
    unsupported: Option<(usize, Call, i32)>,
    /// The agent's "method not found" to a streaming call before any stream (or an HTTP+JSON
    /// route not there): a client that speaks another binding or version hears the same, so it
    /// says nothing of streaming until the agent answered another call in this binding
    /// ([`binding_answered`](Self::binding_answered)).
    method_missing: Option<(usize, Call)>,
    /// The agent answered a call other than a stream in the protocol (a task, or an error of its
    /// own other than "method not found"): it speaks the binding the stream was asked in.
    binding_answered: bool,
    /// The stream carried answer content: an agent message, or a status with its message.
    answered: bool,
    /// After the terminal state on the stream, `GetTask` was answered with an error (the agent's
    /// own, or HTTP outside the protocol), not a transport fault: it cannot compare the artifacts.
    confirmation_refused: bool,
}

impl StreamingRule {
    fn record(&mut self, seq: usize, observed: &Observed, terminal_before: bool) {
        if self.unsupported.is_some() {
            return;
        }
        self.binding_answered |= match observed {
            Observed::Status { via, .. } => *via != Channel::Stream && *via != Channel::Push,
            Observed::AgentError { call, code } => {
                !call.is_streaming() && !is(*code, A2aErrorCode::MethodNotFound)
            }
            Observed::BindingUnderstood { .. } => true,
            _ => false,
        };
        match observed {
            Observed::AgentError { call, code }
                if call.is_streaming()
                    && is(*code, A2aErrorCode::MethodNotFound)
                    && !self.stream_seen
                    && !terminal_before =>
            {
                self.method_missing.get_or_insert((seq, *call));
            }
            Observed::CallFailed { call, status: 404 | 405 | 501 }
                if call.is_streaming() && !self.stream_seen && !terminal_before =>
            {
                self.method_missing.get_or_insert((seq, *call));
            }
            Observed::TransportFault { call, fault }
                if call.is_streaming() && self.terminal_on_stream.is_none() =>
            {
                self.interrupted.get_or_insert(*fault);
            }
            Observed::AgentError { call, code }
                if call.is_streaming()
                    && is(*code, A2aErrorCode::UnsupportedOperation)
                    && !self.stream_seen
                    && !terminal_before =>
            {
                self.unsupported = Some((seq, *call, *code));
            }
            Observed::Status { via: Channel::Stream, state, artifacts, message, .. } => {
                self.stream_seen = true;
                self.answered |= message.is_some();
                self.streamed_artifacts = self.streamed_artifacts.max(artifacts.unwrap_or(0));
                if state.is_terminal() && self.terminal_on_stream.is_none() {
                    self.terminal_on_stream = Some(seq);
                }
            }
            Observed::Artifact { via: Channel::Stream } => {
                self.stream_seen = true;
                self.streamed_artifacts += 1;
            }
            Observed::AgentMessage { via: Channel::Stream } => {
                self.stream_seen = true;
                self.answered = true;
            }
            Observed::AgentError { call: Call::GetTask, .. }
            | Observed::CallFailed { call: Call::GetTask, .. }
                if self.terminal_on_stream.is_some() && self.confirmed.is_none() =>
            {
                self.confirmation_refused = true;
            }
            Observed::Status { via: Channel::GetTask, artifacts: Some(n), .. }
                if self.terminal_on_stream.is_some() && self.confirmed.is_none() =>
            {
                self.confirmed = Some(*n);
            }
            _ => {}
        }
    }
}

/// The history rule's one question: the first history the client relied on (asked for more than
/// none), and how many entries it held.
#[derive(Clone, Debug, Default)]
struct HistoryRule {
    relied: Option<(usize, usize)>,
}

impl HistoryRule {
    fn record(&mut self, seq: usize, observed: &Observed) {
        if self.relied.is_some() {
            return;
        }
        if let Observed::History { requested_length, entries } = observed
            && *requested_length != Some(0)
        {
            self.relied = Some((seq, *entries));
        }
    }
}

/// What the push rule has read so far ([`Verifier::push`] judges it, with the time).
#[derive(Clone, Debug, Default)]
struct PushRule {
    registered: Option<usize>,
    /// Whether the agent holds a config now: accepted and not found dropped since.
    held: bool,
    /// The agent's own refusal of the webhook URL (-32602), which explains a silence there.
    url_refused: Option<i32>,
    /// The webhook registered was out of the agent's reach, which explains a silence there.
    out_of_reach: bool,
    /// The client's receiver turned connections away while the task waited.
    turned_away: bool,
    terminal_after_registration: Option<(usize, Elapsed)>,
    /// The observation that settled the claim; nothing after it counts.
    settled: Option<PushSettled>,
}

#[derive(Clone, Copy, Debug)]
enum PushSettled {
    /// "Not supported" while the agent held no config of ours.
    Unsupported { seq: usize, code: i32 },
    /// The first callback.
    Callback { seq: usize, at: Elapsed },
}

impl PushRule {
    fn record(&mut self, seq: usize, at: Elapsed, observed: &Observed) {
        if self.settled.is_some() {
            return;
        }
        match observed {
            // "Not supported" while the agent holds no config of ours (none yet, or the one it
            // took was found dropped, even after the task ended): the card's claim is denied.
            Observed::AgentError { call: Call::PushNotificationConfig, code }
                if says_unsupported(*code) && !self.held =>
            {
                self.settled = Some(PushSettled::Unsupported { seq, code: *code });
            }
            Observed::AgentError { call: Call::PushNotificationConfig, code }
                if is(*code, A2aErrorCode::InvalidParams) =>
            {
                self.url_refused.get_or_insert(*code);
            }
            Observed::WebhookOutOfReach => self.out_of_reach = true,
            Observed::ReceiverTurnedAway => self.turned_away = true,
            Observed::PushRegistered => {
                self.held = true;
                self.registered.get_or_insert(seq);
            }
            // A config the agent dropped registers nothing: wait for the next registration.
            Observed::PushDropped => {
                self.held = false;
                if self.terminal_after_registration.is_none() {
                    self.registered = None;
                }
            }
            Observed::PushCallback { .. } => self.settled = Some(PushSettled::Callback { seq, at }),
            Observed::Status { state, via, .. }
                if *via != Channel::Push
                    && state.is_terminal()
                    && self.registered.is_some()
                    && self.terminal_after_registration.is_none() =>
            {
                self.terminal_after_registration = Some((seq, at));
            }
            _ => {}
        }
    }
}

/// `true` when `code` is the agent saying it does not do what was asked: the capability's own
/// error (`PushNotificationNotSupportedError`) or the generic `UnsupportedOperationError`, which
/// servers answer to an operation they do not implement.
fn says_unsupported(code: i32) -> bool {
    is(code, A2aErrorCode::PushNotificationNotSupported) || is(code, A2aErrorCode::UnsupportedOperation)
}

/// `true` when the agent's error `code` is the protocol's `named` error (the one code table is
/// `a2a_typestate_types::error::A2aErrorCode`).
fn is(code: i32, named: A2aErrorCode) -> bool {
    A2aErrorCode::from_code(i64::from(code)) == named
}

#[cfg(test)]
mod push_rules {
    use std::sync::Arc;
    use std::time::Duration;

    use a2a_typestate_types::{TaskId, TaskState};

    use super::*;
    use crate::card::Deployment;
    use crate::observe::ExchangeModes;

    fn push_verifier() -> Verifier {
        let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(
            r#"{"name":"a","description":"","version":"1","supportedInterfaces":[],"skills":[],
                "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
                "capabilities":{"pushNotifications":true}}"#,
        )
        .expect("a valid card");
        let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
        Verifier::new(claims, CapabilitySet::of(&[Capability::PushNotifications]), Bounds::default())
    }

    fn sent() -> Observed {
        Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None }
    }

    fn polled(state: TaskState) -> Observed {
        Observed::Status {
            task_id: TaskId::new("t1"),
            context_id: None,
            state,
            message: None,
            via: Channel::GetTask,
            artifacts: Some(0),
        }
    }

    fn push_config_error(code: i32) -> Observed {
        Observed::AgentError { call: Call::PushNotificationConfig, code }
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Refused inline for its URL, accepted by the create call, then never called: a run whose
    /// silence the agent announced.
    fn url_refused_then_silent() -> Verifier {
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), polled(TaskState::Working));
        verifier.observe(secs(0), push_config_error(-32602));
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(1), polled(TaskState::Completed));
        verifier
    }

    #[test]
    fn silence_after_the_agent_refused_the_webhook_url_is_unverifiable_not_refused() {
        let verifier = url_refused_then_silent();
        let bound = verifier.bounds().push_arrival();
        let past = secs(1) + bound + secs(1);
        let verdict = verifier.verdict(Capability::PushNotifications, past);
        let Some(Verdict::Pending(pending)) = &verdict else { panic!("not refused, pending: {verdict:?}") };
        assert_eq!(
            pending.reason(),
            &PendingReason::WebhookUrlRefused { call: Call::PushNotificationConfig, code: -32602 }
        );
        assert!(pending.to_string().contains("webhook URL the agent accepts"), "{pending}");
        assert!(verifier.refusal(past).is_none());
    }

    #[test]
    fn silence_at_a_webhook_out_of_the_agents_reach_is_unverifiable_not_refused() {
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), Observed::WebhookOutOfReach);
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(1), polled(TaskState::Completed));
        let past = secs(1) + verifier.bounds().push_arrival() + secs(1);
        let verdict = verifier.verdict(Capability::PushNotifications, past);
        assert!(
            matches!(&verdict, Some(Verdict::Pending(p)) if p.reason() == &PendingReason::WebhookOutOfReach),
            "{verdict:?}"
        );
        // A callback within the bound still verifies it: the agent reached it after all.
        let mut reached = push_verifier();
        reached.observe(Duration::ZERO, sent());
        reached.observe(secs(0), Observed::WebhookOutOfReach);
        reached.observe(secs(0), Observed::PushRegistered);
        reached.observe(secs(1), polled(TaskState::Completed));
        reached.observe(secs(2), Observed::PushCallback { state: Some(TaskState::Completed) });
        assert!(reached.verdict(Capability::PushNotifications, past).is_some_and(|v| v.is_verified()));
    }

    #[test]
    fn silence_while_the_clients_receiver_turned_connections_away_is_unverifiable() {
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(1), polled(TaskState::Completed));
        verifier.observe(secs(2), Observed::ReceiverTurnedAway);
        let past = secs(1) + verifier.bounds().push_arrival() + secs(1);
        let verdict = verifier.verdict(Capability::PushNotifications, past);
        assert!(
            matches!(&verdict, Some(Verdict::Pending(p)) if p.reason() == &PendingReason::ReceiverTurnedAway),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_callback_after_the_url_was_refused_elsewhere_still_verifies_push() {
        let mut verifier = url_refused_then_silent();
        verifier.observe(secs(2), Observed::PushCallback { state: Some(TaskState::Completed) });
        assert!(verifier.verdict(Capability::PushNotifications, secs(3)).is_some_and(|v| v.is_verified()));
    }

    #[test]
    fn another_error_on_a_push_config_call_does_not_explain_the_silence() {
        // Only "invalid params" says the agent will not call the URL; an internal error on the
        // config call, followed by an accepted registration and silence, is still the lie.
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), push_config_error(-32603));
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(1), polled(TaskState::Completed));
        let past = secs(1) + verifier.bounds().push_arrival() + secs(1);
        let refused = verifier.refusal(past).expect("unexplained silence refuses");
        assert!(matches!(refused.contradiction(), Contradiction::NoPushCallback { .. }));
    }

    #[test]
    fn silence_with_no_url_refusal_on_record_is_still_refused() {
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(1), polled(TaskState::Completed));
        let past = secs(1) + verifier.bounds().push_arrival() + secs(1);
        let refused = verifier.refusal(past).expect("unexplained silence refuses");
        assert!(matches!(refused.contradiction(), Contradiction::NoPushCallback { .. }));
    }

    #[test]
    fn not_supported_after_the_inline_config_was_found_dropped_refuses_even_once_the_task_ended() {
        let mut verifier = push_verifier();
        verifier.observe(Duration::ZERO, sent());
        verifier.observe(secs(0), Observed::PushRegistered);
        verifier.observe(secs(0), polled(TaskState::Completed));
        // GetTaskPushNotificationConfig did not return it; the create call answered -32003.
        verifier.observe(secs(0), Observed::PushDropped);
        verifier.observe(secs(0), push_config_error(-32003));
        let refused = verifier.refusal(secs(0)).expect("the agent's own not supported refuses at once");
        assert_eq!(
            refused.contradiction(),
            &Contradiction::AgentSaysUnsupported { call: Call::PushNotificationConfig, code: -32003 }
        );
    }
}

#[cfg(test)]
mod method_missing_rules {
    use std::sync::Arc;
    use std::time::Duration;

    use a2a_typestate_types::{TaskId, TaskState};

    use super::*;
    use crate::card::Deployment;
    use crate::observe::ExchangeModes;

    fn streaming_verifier() -> Verifier {
        let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(
            r#"{"name":"a","description":"","version":"1","supportedInterfaces":[],"skills":[],
                "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
                "capabilities":{"streaming":true}}"#,
        )
        .expect("a valid card");
        let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
        Verifier::new(claims, CapabilitySet::of(&[Capability::Streaming]), Bounds::default())
    }

    fn status(via: Channel, state: TaskState) -> Observed {
        Observed::Status {
            task_id: TaskId::new("t1"),
            context_id: None,
            state,
            message: None,
            via,
            artifacts: None,
        }
    }

    /// The stream's own failures: whether each says the method is not there.
    fn stream_failures() -> Vec<(Observed, bool)> {
        let call = Call::SendStreamingMessage;
        let mut failures: Vec<_> = [404, 405, 501, 400, 500, 502]
            .into_iter()
            .map(|status| (Observed::CallFailed { call, status }, matches!(status, 404 | 405 | 501)))
            .collect();
        for code in [-32601, -32603, -32600, -32001] {
            failures.push((Observed::AgentError { call, code }, code == -32601));
        }
        failures.push((Observed::TransportFault { call, fault: TransportFault::Reset }, false));
        failures
    }

    /// What else the agent said on the same interface: whether each shows it speaks the binding.
    fn other_answers() -> Vec<(Observed, bool)> {
        vec![
            (Observed::BindingUnderstood { call: Call::GetTask, code: -32001 }, true),
            (Observed::AgentError { call: Call::GetTask, code: -32001 }, true),
            (Observed::AgentError { call: Call::SendMessage, code: -32602 }, true),
            (status(Channel::SendResponse, TaskState::Working), true),
            (status(Channel::GetTask, TaskState::Working), true),
            (Observed::AgentError { call: Call::GetTask, code: -32601 }, false),
            (Observed::AgentError { call: Call::SendMessage, code: -32601 }, false),
            (Observed::CallFailed { call: Call::GetTask, status: 404 }, false),
            (Observed::TransportFault { call: Call::GetTask, fault: TransportFault::Reset }, false),
        ]
    }

    #[test]
    fn a_missing_stream_method_refuses_streaming_only_where_the_agent_answers_the_binding() {
        for (failure, says_missing) in stream_failures() {
            for (other, speaks_binding) in other_answers() {
                for other_first in [false, true] {
                    let mut verifier = streaming_verifier();
                    let sent = Observed::MessageSent {
                        modes: ExchangeModes::text(),
                        task_id: None,
                        context_id: None,
                    };
                    verifier.observe(Duration::ZERO, sent);
                    let (a, b) = if other_first { (&other, &failure) } else { (&failure, &other) };
                    verifier.observe(Duration::ZERO, a.clone());
                    verifier.observe(Duration::ZERO, b.clone());
                    let verdict = verifier.verdict(Capability::Streaming, Duration::ZERO).expect("claimed");
                    let case =
                        format!("{failure} then/with {other} (other first: {other_first}): {verdict:?}");
                    match verdict {
                        Verdict::Refused(violation) => {
                            assert!(says_missing && speaks_binding, "refused: {case}");
                            assert_eq!(
                                violation.contradiction(),
                                &Contradiction::MethodMissing { call: Call::SendStreamingMessage },
                                "{case}"
                            );
                            assert_eq!(
                                violation.evidence().observed,
                                failure,
                                "the stream's answer is the evidence: {case}"
                            );
                        }
                        _ => assert!(!(says_missing && speaks_binding), "not refused: {case}"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_stream_that_opens_after_a_missing_method_answer_is_not_a_missing_method() {
        let mut verifier = streaming_verifier();
        let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
        verifier.observe(Duration::ZERO, sent);
        verifier
            .observe(Duration::ZERO, Observed::AgentError { call: Call::SendStreamingMessage, code: -32601 });
        verifier.observe(Duration::ZERO, Observed::BindingUnderstood { call: Call::GetTask, code: -32001 });
        verifier.observe(Duration::ZERO, status(Channel::Stream, TaskState::Working));
        let verdict = verifier.verdict(Capability::Streaming, Duration::ZERO).expect("claimed");
        assert!(!matches!(verdict, Verdict::Refused(_)), "{verdict:?}");
    }
}

#[cfg(test)]
mod kept_tests {
    use super::*;
    use crate::card::Deployment;
    use crate::observe::ExchangeModes;
    use crate::{Capability, CardClaims, Channel};
    use a2a_typestate_types::{TaskId, TaskState};

    fn status(state: TaskState, message: Option<&str>) -> Observed {
        Observed::Status {
            task_id: TaskId::from("t"),
            context_id: None,
            state,
            message: message.map(a2a_typestate_types::MessageId::from),
            via: Channel::Stream,
            artifacts: None,
        }
    }

    /// The same stream, seen by a verifier keeping every observation and by one keeping few.
    fn both(stream: &[Observed]) -> (Verifier, Verifier) {
        let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(
            r#"{"name":"a","description":"","version":"1","supportedInterfaces":[],"skills":[],
                "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
                "capabilities":{"streaming":true}}"#,
        )
        .expect("a valid card");
        let card = Arc::new(CardClaims::lift(&card, Deployment::Direct));
        let depends = CapabilitySet::of(&[Capability::Streaming]);
        let mut all =
            Verifier::new(Arc::clone(&card), depends, Bounds::default().with_events_kept(usize::MAX));
        let mut few = Verifier::new(card, depends, Bounds::default().with_events_kept(16));
        for (n, observed) in stream.iter().enumerate() {
            let at = Duration::from_millis(n as u64);
            all.observe(at, observed.clone());
            few.observe(at, observed.clone());
        }
        (all, few)
    }

    #[test]
    fn repeats_and_states_past_the_bound_are_counted_not_kept_and_change_no_verdict() {
        let mut stream =
            vec![Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None }];
        stream.extend(std::iter::repeat_n(status(TaskState::Working, None), 5_000));
        for n in 0..5_000 {
            stream.push(status(TaskState::Working, Some(&format!("m{n}"))));
            stream.push(Observed::Artifact { via: Channel::Stream });
        }
        stream.push(status(TaskState::Completed, None));
        stream.push(Observed::StreamClosed);
        let (all, few) = both(&stream);
        assert!(few.observations().len() <= 20, "{} kept", few.observations().len());
        assert_eq!(few.observations_counted(), stream.len() as u64);
        let now = Duration::from_secs(1);
        let verdict =
            |v: &Verifier| format!("{:?}", v.verdict(Capability::Streaming, now).map(|v| v.is_verified()));
        assert_eq!(verdict(&all), verdict(&few));
        assert!(few.verdict(Capability::Streaming, now).is_some_and(|v| v.is_verified()), "honest: verified");
        assert!(matches!(few.observations().last(), Some((_, Observed::StreamClosed))));
    }

    #[test]
    fn the_no_progress_rule_remembers_a_bounded_number_of_statuses_however_many_are_new() {
        let mut rule = ProgressRule::default();
        let sent = Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None };
        rule.record(Duration::ZERO, &sent);
        let long_id = "m".repeat(10_000);
        for n in 0..(3 * SEEN_STATUSES_MAX) {
            let at = Duration::from_millis(n as u64 + 1);
            rule.record(at, &status(TaskState::Working, Some(&format!("{long_id}{n}"))));
            assert_eq!(rule.last_progress, Some(at), "a new status message is progress");
        }
        assert!(rule.seen.len() <= SEEN_STATUSES_MAX, "{} remembered", rule.seen.len());
        // A status seen before the bound filled is still no progress when it comes again.
        let again = Duration::from_secs(3600);
        rule.record(again, &status(TaskState::Working, Some(&format!("{long_id}0"))));
        assert_ne!(rule.last_progress, Some(again));
    }
}
