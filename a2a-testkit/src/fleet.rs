//! The thirteen agents of the design note's run, for the CLI demo and the benchmarks.
//!
//! Three over-declare a lifecycle claim (streaming, history, push), two another card claim (an
//! extended card they do not serve, a retired interface listed first), seven are honest with a mix
//! of capabilities and versions, and one under-declares streaming. Each member carries the truth
//! about its card, so a demo can check its own verdicts.
//!
//! ```
//! use a2a_testkit::fleet::{Claim, Honesty, demo_fleet};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), a2a_testkit::TestkitError> {
//! let fleet = demo_fleet().await?;
//! assert_eq!(fleet.members.len(), 13);
//! let refuser = fleet.member("streaming-refuser").map(|m| m.honesty);
//! assert_eq!(refuser, Some(Honesty::OverDeclares(Claim::Streaming)));
//! for member in fleet.over_declaring() {
//!     println!("{} lies: {}", member.agent.name(), member.agent.card_url());
//! }
//! fleet.shutdown().await;
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use crate::TestkitError;
use crate::agent::{RunningAgent, ScriptedAgent};
use crate::auth::Guard;
use crate::script::{Capabilities, CardPath, Clarify, Lie, Protocol, Script};

/// A card claim that can be true or false.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Claim {
    /// `capabilities.streaming`.
    Streaming,
    /// `capabilities.stateTransitionHistory`.
    StateTransitionHistory,
    /// `capabilities.pushNotifications`.
    PushNotifications,
    /// `capabilities.extendedAgentCard`: `GetExtendedAgentCard` serves a card.
    ExtendedAgentCard,
    /// An entry of `supportedInterfaces`: the URL answers in its binding.
    Interface,
}

impl Claim {
    /// Whether it is one of the three lifecycle claims (streaming, history, push), which a task's
    /// run verifies; the others are judged by what the agent answers beyond one task.
    pub fn is_lifecycle(self) -> bool {
        matches!(self, Self::Streaming | Self::StateTransitionHistory | Self::PushNotifications)
    }
}

/// The bearer token [`demo_fleet`]'s `extended-card-liar` requires: a client must send it to that
/// agent (and only there) for the extended card to be asked for at all.
pub const EXTENDED_CARD_LIAR_TOKEN: &str = "demo-extended-card-token";

/// The truth about a fleet member's card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Honesty {
    /// Every claim holds.
    Honest,
    /// The card claims this and the agent does not honour it (a client must refuse).
    OverDeclares(Claim),
    /// The card denies this and the agent does it anyway (safe to use).
    UnderDeclares(Claim),
}

/// One agent of the fleet and the truth about it.
#[derive(Debug)]
pub struct FleetMember {
    /// The running agent.
    pub agent: RunningAgent,
    /// What is true about its card.
    pub honesty: Honesty,
}

/// The running fleet. Dropping it stops every agent.
#[derive(Debug)]
pub struct Fleet {
    /// The members, in a fixed order (over-declaring ones are not grouped).
    pub members: Vec<FleetMember>,
}

impl Fleet {
    /// The members whose card over-declares something.
    pub fn over_declaring(&self) -> impl Iterator<Item = &FleetMember> {
        self.members.iter().filter(|m| matches!(m.honesty, Honesty::OverDeclares(_)))
    }

    /// Looks a member up by its card name.
    pub fn member(&self, name: &str) -> Option<&FleetMember> {
        self.members.iter().find(|m| m.agent.name() == name)
    }

    /// Shuts every agent down gracefully.
    pub async fn shutdown(self) {
        for member in self.members {
            member.agent.shutdown().await;
        }
    }
}

/// The poll hint the honest non-streaming members publish.
const POLL_HINT: Duration = Duration::from_millis(50);

/// Starts the thirteen agents of the design note's run.
///
/// | name | version | card | truth |
/// |---|---|---|---|
/// | `honest-streamer` | 1.0 | streaming | honest |
/// | `streaming-refuser` | 1.0 | streaming | over-declares streaming (refuses with -32004) |
/// | `honest-pusher` | 1.0 | push, poll hint | honest |
/// | `history-forgetter` | 1.0 | streaming, stateTransitionHistory | over-declares history |
/// | `honest-full` | 1.0 | streaming, push | honest |
/// | `honest-poller` | 1.0 | poll hint | honest |
/// | `silent-pusher` | 1.0 | push, poll hint | over-declares push (never calls back) |
/// | `honest-clarifier` | 1.0 | streaming | honest, always asks for input first |
/// | `quiet-streamer` | 1.0 | nothing | under-declares streaming |
/// | `honest-legacy` | 0.3 (`agent.json`) | streaming, stateTransitionHistory | honest |
/// | `honest-minimal` | 1.0 | nothing, no poll hint | honest |
/// | `extended-card-liar` | 1.0 | an extended card, bearer [`EXTENDED_CARD_LIAR_TOKEN`] | over-declares the extended card (answers -32004) |
/// | `retired-interface` | 1.0 | a retired interface listed first | over-declares that interface (answers 404) |
///
/// # Errors
///
/// The first [`TestkitError`] any agent's start returned.
pub async fn demo_fleet() -> Result<Fleet, TestkitError> {
    let streaming = Capabilities::none().with_streaming();
    let plans: Vec<(&str, Capabilities, Script, Protocol, Honesty)> = vec![
        ("honest-streamer", streaming.clone(), Script::honest(), Protocol::V1_0, Honesty::Honest),
        (
            "streaming-refuser",
            Capabilities::none(),
            Script::honest().with(Lie::StreamingRefused),
            Protocol::V1_0,
            Honesty::OverDeclares(Claim::Streaming),
        ),
        (
            "honest-pusher",
            Capabilities::none().with_push_notifications().with_poll_cadence(POLL_HINT),
            Script::honest(),
            Protocol::V1_0,
            Honesty::Honest,
        ),
        (
            "history-forgetter",
            streaming.clone(),
            Script::honest().with(Lie::EmptyHistory),
            Protocol::V1_0,
            Honesty::OverDeclares(Claim::StateTransitionHistory),
        ),
        (
            "honest-full",
            streaming.clone().with_push_notifications(),
            Script::honest(),
            Protocol::V1_0,
            Honesty::Honest,
        ),
        (
            "honest-poller",
            Capabilities::none().with_poll_cadence(POLL_HINT),
            Script::honest(),
            Protocol::V1_0,
            Honesty::Honest,
        ),
        (
            "silent-pusher",
            Capabilities::none().with_poll_cadence(POLL_HINT),
            Script::honest().with(Lie::SilentPush),
            Protocol::V1_0,
            Honesty::OverDeclares(Claim::PushNotifications),
        ),
        (
            "honest-clarifier",
            streaming.clone(),
            Script::honest().clarify(Clarify::Always),
            Protocol::V1_0,
            Honesty::Honest,
        ),
        (
            "quiet-streamer",
            Capabilities::none(),
            Script::honest().with(Lie::UnderDeclaredStreaming),
            Protocol::V1_0,
            Honesty::UnderDeclares(Claim::Streaming),
        ),
        (
            "honest-legacy",
            streaming.clone().with_state_transition_history(),
            Script::honest(),
            Protocol::V0_3,
            Honesty::Honest,
        ),
        ("honest-minimal", Capabilities::none(), Script::honest(), Protocol::V1_0, Honesty::Honest),
    ];
    let mut members = Vec::with_capacity(plans.len());
    for (name, capabilities, script, protocol, honesty) in plans {
        let card_path = match protocol {
            Protocol::V0_3 => CardPath::AgentJson,
            _ => CardPath::AgentCardJson,
        };
        let agent = ScriptedAgent::builder()
            .name(name)
            .capabilities(capabilities)
            .script(script)
            .protocol(protocol)
            .card_path(card_path)
            .spawn()
            .await?;
        members.push(FleetMember { agent, honesty });
    }
    let extended_card_liar = ScriptedAgent::builder()
        .name("extended-card-liar")
        .guard(Guard::bearer(EXTENDED_CARD_LIAR_TOKEN))
        .unserved_extended_card()
        .spawn()
        .await?;
    members.push(FleetMember {
        agent: extended_card_liar,
        honesty: Honesty::OverDeclares(Claim::ExtendedAgentCard),
    });
    let retired =
        ScriptedAgent::builder().name("retired-interface").retired_interface_first().spawn().await?;
    members.push(FleetMember { agent: retired, honesty: Honesty::OverDeclares(Claim::Interface) });
    Ok(Fleet { members })
}
