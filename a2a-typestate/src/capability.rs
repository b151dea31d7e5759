//! The three capabilities a card can claim, as runtime values.
//!
//! ```
//! use a2a_typestate::{Capability, CapabilitySet};
//!
//! let depends_on = CapabilitySet::of(&[Capability::Streaming, Capability::PushNotifications]);
//! assert!(depends_on.contains(Capability::Streaming));
//! assert_eq!(Capability::StateTransitionHistory.card_field(), "stateTransitionHistory");
//! ```
//!
//! The type-level markers live in [`Claims`](crate::Claims); this module names the same capabilities for
//! code that decides at run time (verdicts, violations, the dynamic handle).

use std::fmt;

/// A capability an Agent Card can declare and the verifier can check.
///
/// These are the three claims whose over-declaration the design note is about; `extendedAgentCard`
/// is not one of them (it changes which card you read, not how a task behaves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// `capabilities.streaming`: `SendStreamingMessage` and `SubscribeToTask` deliver the task's
    /// updates and artifacts as a stream.
    Streaming,
    /// `capabilities.stateTransitionHistory` (0.3; kept on a 1.0 card only as a legacy field): the
    /// agent keeps the task's history, so `GetTask` can reconstruct states the client missed.
    StateTransitionHistory,
    /// `capabilities.pushNotifications`: the agent POSTs task updates to a registered webhook.
    PushNotifications,
}

impl Capability {
    /// Every capability, in a fixed order.
    pub const ALL: [Capability; 3] =
        [Capability::Streaming, Capability::StateTransitionHistory, Capability::PushNotifications];

    /// The card field that declares it, as written on the wire (`streaming`, ...).
    pub fn card_field(self) -> &'static str {
        match self {
            Self::Streaming => "streaming",
            Self::StateTransitionHistory => "stateTransitionHistory",
            Self::PushNotifications => "pushNotifications",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Self::Streaming => 1,
            Self::StateTransitionHistory => 2,
            Self::PushNotifications => 4,
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.card_field())
    }
}

/// A set of [`Capability`] values: what a card declares, or what a caller depends on.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CapabilitySet(u8);

impl CapabilitySet {
    /// The empty set.
    pub const EMPTY: Self = Self(0);

    /// All three capabilities.
    pub const ALL: Self = Self(7);

    /// A set holding exactly the given capabilities.
    pub fn of(capabilities: &[Capability]) -> Self {
        capabilities.iter().fold(Self::EMPTY, |set, &c| set.with(c))
    }

    /// This set with `capability` added.
    #[must_use]
    pub const fn with(self, capability: Capability) -> Self {
        Self(self.0 | capability.bit())
    }

    /// This set with `capability` removed.
    #[must_use]
    pub const fn without(self, capability: Capability) -> Self {
        Self(self.0 & !capability.bit())
    }

    /// `true` when `capability` is in the set.
    pub const fn contains(self, capability: Capability) -> bool {
        self.0 & capability.bit() != 0
    }

    /// `true` when the set holds nothing.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The capabilities in both sets.
    #[must_use]
    pub const fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// The capabilities in the set, in [`Capability::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Capability> {
        Capability::ALL.into_iter().filter(move |c| self.contains(*c))
    }
}

impl fmt::Debug for CapabilitySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The set in words, in [`Capability::ALL`] order: `streaming, push notifications`, or `none` for
/// the empty set (what a report or a log line shows; [`Debug`](fmt::Debug) lists the card fields).
impl fmt::Display for CapabilitySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, capability) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(match capability {
                Capability::Streaming => "streaming",
                Capability::StateTransitionHistory => "state transition history",
                Capability::PushNotifications => "push notifications",
            })?;
        }
        Ok(())
    }
}

impl FromIterator<Capability> for CapabilitySet {
    fn from_iter<I: IntoIterator<Item = Capability>>(iter: I) -> Self {
        iter.into_iter().fold(Self::EMPTY, Self::with)
    }
}

/// How far a claim has come: absent, declared by the card but unverified, or verified by
/// observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaimStatus {
    /// No claim: the card does not declare it, the agent is a gateway, or the caller does not
    /// depend on it.
    Unclaimed,
    /// Declared by the card; not yet exercised (a claim, not a contract).
    Claimed,
    /// The first transition that exercised it produced what the claim promises.
    Verified,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capability_set_holds_what_was_added_and_nothing_else() {
        let set = CapabilitySet::of(&[Capability::Streaming, Capability::PushNotifications]);
        assert!(set.contains(Capability::Streaming));
        assert!(!set.contains(Capability::StateTransitionHistory));
        assert_eq!(set.iter().collect::<Vec<_>>(), [Capability::Streaming, Capability::PushNotifications]);
        assert!(set.without(Capability::Streaming).without(Capability::PushNotifications).is_empty());
    }

    #[test]
    fn a_capability_set_displays_in_words_and_the_empty_set_as_none() {
        let set = CapabilitySet::of(&[Capability::PushNotifications, Capability::Streaming]);
        assert_eq!(set.to_string(), "streaming, push notifications");
        assert_eq!(CapabilitySet::ALL.to_string(), "streaming, state transition history, push notifications");
        assert_eq!(CapabilitySet::EMPTY.to_string(), "none");
    }
}
