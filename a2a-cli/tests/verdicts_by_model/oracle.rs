//! The oracle: the verdict THE RULES give each claim of a truth, written from the rules as the
//! README and `docs/architecture.md` state them, not from the SDK's code (nothing here calls
//! `a2a_typestate::rules` or the verifier).
//!
//! 1. A claim is refused only when the card declares it and the caller's path depends on it; a
//!    gateway's card declares nothing.
//! 2. The first transition that exercises it produces a state the capability cannot explain.
//! 3. That transition was reachable through the card's declared default modes, except that the
//!    agent's own "not supported" (-32004 to the streaming call, -32003 or -32004 to a push-config
//!    call) counts whatever the modes. Media types compare by meaning.
//!
//! A contradiction that fails clause 3 is unverifiable, never refused; a transition that honours
//! the claim verifies it, whatever reached it (clause 3 holds back refusals, not proofs). Transport faults never
//! refuse; an unreachable interface is a fallback to the next one. Under-declaring is safe.

use std::collections::{BTreeMap, BTreeSet};

use a2a_typestate::Capability;

use super::truth::{Deployment, HistoryTruth, PushTruth, StreamingTruth, Truth, WebhookPolicy};
use a2a_testkit::DeadInterface;

/// What a path can say about one claim, in the rules' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The first exercising transition honoured it.
    Verified,
    /// All three clauses held.
    Refused,
    /// A contradiction (or a silence the agent announced) that cannot be held against the card,
    /// or a claim a gateway's card cannot make.
    Unverifiable,
    /// Nothing settled it (the task never reached the agent).
    Unsettled,
}

/// The oracle's answer for one truth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// A gateway: its card binds nothing, so no claim is lifted, checked or refused.
    pub gateway: bool,
    /// A declared interface opened a connection and closed it: a transport fault, so the task
    /// fails, and nothing is refused or marked.
    pub transport_failure: bool,
    /// One verdict per lifecycle claim the card declares.
    pub claims: BTreeMap<Capability, Verdict>,
    /// Claims a task may leave unexercised, timing alone deciding: push registered only by the
    /// create call (the agent drops inline configs, or refuses our URL inline and takes it there),
    /// which can land after the task ended, when nothing is left to push.
    pub may_go_unexercised: BTreeSet<Capability>,
    /// The card's `defaultOutputModes` claim, for the audit's first probe (it accepts only the
    /// declared output modes); `None` for a gateway (its card claims nothing).
    pub output_modes: Option<Verdict>,
}

impl Expected {
    /// The claims the rules refuse when the task exercises them.
    pub fn refused(&self) -> impl Iterator<Item = Capability> + '_ {
        self.claims.iter().filter(|(_, v)| **v == Verdict::Refused).map(|(c, _)| *c)
    }

    /// Whether a run is sure to refuse a claim, whatever the timing.
    pub fn surely_refuses(&self) -> bool {
        self.refused().any(|c| !self.may_go_unexercised.contains(&c))
    }

    /// Whether `seen` is what the rules say of `capability`.
    pub fn allows(&self, capability: Capability, seen: Verdict) -> bool {
        self.claims.get(&capability) == Some(&seen)
            || (seen == Verdict::Unsettled && self.may_go_unexercised.contains(&capability))
    }
}

/// A media type's type and subtype, lowercased, parameters dropped (an empty subtype when none is
/// written, as in `text`).
fn essence(media_type: &str) -> (String, String) {
    let base = media_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    match base.split_once('/') {
        Some((kind, sub)) => (kind.trim().to_owned(), sub.trim().to_owned()),
        None => (base, String::new()),
    }
}

/// Whether the declared range `declared` covers the media type `used`, by meaning: case and
/// parameters do not matter, `*/*` covers anything, and `text` is `text/*`.
pub fn covers(declared: &str, used: &str) -> bool {
    let (d_kind, d_sub) = essence(declared);
    let (u_kind, u_sub) = essence(used);
    let wild = |part: &str| part.is_empty() || part == "*";
    !d_kind.is_empty() && (wild(&d_kind) || d_kind == u_kind) && (wild(&d_sub) || d_sub == u_sub)
}

/// The media type of the audit's probe (and of every path's message here, so the three paths are
/// asked the same thing): text when the card takes text or declares no input mode, else a JSON
/// data part when it takes `application/json`, else text (which then reaches nothing declared).
pub fn probe_media_type(input_modes: &[&str]) -> &'static str {
    let takes = |used: &str| input_modes.iter().any(|declared| covers(declared, used));
    if input_modes.is_empty() || takes("text/plain") || !takes("application/json") {
        "text/plain"
    } else {
        "application/json"
    }
}

/// The verdict THE RULES give every claim `truth`'s card declares.
pub fn expected(truth: &Truth) -> Expected {
    let input_modes = [truth.input_mode];
    let probe = probe_media_type(&input_modes);
    // Clause 3: the message's media type is declared, and the output modes it accepts are the
    // card's own (or any), which always meet the card's.
    let reachable = input_modes.iter().any(|declared| covers(declared, probe));
    let declared: Vec<Capability> = [
        (truth.declares_streaming(), Capability::Streaming),
        (truth.declares_history(), Capability::StateTransitionHistory),
        (truth.declares_push(), Capability::PushNotifications),
    ]
    .into_iter()
    .filter_map(|(declared, capability)| declared.then_some(capability))
    .collect();

    // A gateway's card declares nothing the caller can hold it to (clause 1).
    let gateway = truth.deployment != Deployment::Direct;
    // Interfaces are tried in the card's order; one whose connection never opened is skipped, one
    // that opened and closed is a transport fault, which never refuses.
    let transport_failure = truth.dead_interfaces().contains(&DeadInterface::AcceptsThenCloses);
    if gateway || transport_failure {
        let verdict = if gateway { Verdict::Unverifiable } else { Verdict::Unsettled };
        return Expected {
            gateway,
            transport_failure,
            claims: declared.into_iter().map(|c| (c, verdict)).collect(),
            may_go_unexercised: BTreeSet::new(),
            output_modes: (!gateway).then_some(Verdict::Unsettled),
        };
    }
    // A contradiction reached through the message refuses only through declared modes.
    let contradiction = if reachable { Verdict::Refused } else { Verdict::Unverifiable };
    let claims: BTreeMap<Capability, Verdict> = declared
        .into_iter()
        .map(|capability| {
            let verdict = match capability {
                Capability::Streaming => match truth.streaming {
                    StreamingTruth::Honest => Verdict::Verified,
                    // The agent's own "not supported" to the streaming call: whatever the modes.
                    StreamingTruth::Refused => Verdict::Refused,
                    // An agent that answers in messages keeps no artifact: there is none for the
                    // stream to leave out, and the stream carried the whole answer.
                    StreamingTruth::WithoutArtifact if truth.answers_in_messages => Verdict::Verified,
                    StreamingTruth::WithoutArtifact => contradiction,
                    StreamingTruth::NotDeclared | StreamingTruth::UnderDeclared => {
                        unreachable!("not declared")
                    }
                },
                Capability::StateTransitionHistory => match truth.history {
                    HistoryTruth::Honest => Verdict::Verified,
                    HistoryTruth::Empty => contradiction,
                    HistoryTruth::NotDeclared => unreachable!("not declared"),
                },
                Capability::PushNotifications => match truth.push {
                    // The agent's own "not supported" to a push-config call, before any URL is
                    // looked at: whatever the modes and whatever its webhook policy.
                    PushTruth::ConfigUnsupported | PushTruth::ConfigUnsupportedOperation => Verdict::Refused,
                    // It refused our webhook URL itself (-32602, a private host): a silence it
                    // announced is no lie, and no proof either.
                    _ if truth.webhook_policy != WebhookPolicy::CallsAny => Verdict::Unverifiable,
                    PushTruth::Honest => Verdict::Verified,
                    PushTruth::Silent | PushTruth::WrongCredentials => contradiction,
                    PushTruth::NotDeclared | PushTruth::UnderDeclared => unreachable!("not declared"),
                },
            };
            (capability, verdict)
        })
        .collect();
    // The agent always answers text: honest for any output mode that covers text/plain (an
    // answer that honours a claim verifies it whatever reached it: clause 3 only holds back a
    // refusal), over-declared for the others.
    let output_modes =
        if covers(truth.output_mode, "text/plain") { Verdict::Verified } else { contradiction };
    // The create call is the only way in when the inline config is dropped or refused, and the
    // create call takes the webhook; the task may end before it does.
    let only_created =
        matches!(
            (truth.webhook_policy, truth.drops_inline_push),
            (WebhookPolicy::CallsAny, true) | (WebhookPolicy::NeverCallsPrivate, _)
        ) && matches!(truth.push, PushTruth::Honest | PushTruth::Silent | PushTruth::WrongCredentials);
    let may_go_unexercised =
        claims.keys().copied().filter(|c| *c == Capability::PushNotifications && only_created).collect();
    Expected { gateway, transport_failure, claims, may_go_unexercised, output_modes: Some(output_modes) }
}
