//! The card capabilities the client verifies, refuses and counts.
// Seam: a2a-typestate names its capability axes too; once it lands, re-export its type here (or convert)
// so metrics, suspect marks and violations speak the same words.

use std::fmt;

/// A capability an Agent Card can declare and the client can catch it lying about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Capability {
    /// `capabilities.streaming`: SendStreamingMessage and SubscribeToTask.
    Streaming,
    /// `capabilities.pushNotifications`: webhook callbacks.
    PushNotifications,
    /// `capabilities.stateTransitionHistory` (0.3; a legacy field on 1.0 cards).
    StateTransitionHistory,
    /// `capabilities.extendedAgentCard`.
    ExtendedAgentCard,
}

impl Capability {
    /// Every capability, in a fixed order (for reports and snapshots).
    pub const ALL: [Capability; 4] = [
        Capability::Streaming,
        Capability::PushNotifications,
        Capability::StateTransitionHistory,
        Capability::ExtendedAgentCard,
    ];

    /// The card's JSON field name, as in `capabilities.<name>`.
    pub fn card_field(self) -> &'static str {
        match self {
            Capability::Streaming => "streaming",
            Capability::PushNotifications => "pushNotifications",
            Capability::StateTransitionHistory => "stateTransitionHistory",
            Capability::ExtendedAgentCard => "extendedAgentCard",
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.card_field())
    }
}
