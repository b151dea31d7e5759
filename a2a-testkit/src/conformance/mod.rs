//! A conformance fleet for any A2A client: agents whose cards lie, or that misbehave, each in one
//! way, which grade the client from their side.
//!
//! Each [`Scenario`] is one scripted agent (with, for one of them, a front that serves its card from
//! another origin). Point the client under test at each scenario's URL with the scenario's message
//! (and its credential, where it has one), the way the client is normally used; then
//! [`ConformanceFleet::grade`] reads what every agent saw (the requests, their order and timing,
//! the credentials they carried, how long each answer was held, how many times the work ran) and
//! gives one [`Grade`] per scenario: what a conforming client does, what this one did, pass or
//! fail. Nothing is asked of the client beyond being pointed at the URLs: any language, any SDK.
//!
//! What "conforming" means is this SDK's rule set (the repository README's "When the SDK refuses a
//! card"): refuse a claim only when the first transition that exercises it contradicts it, never on a
//! transport fault; after a refusal fall back to one single-shot send, unless the task had
//! already finished; bound every wait and every read; send a credential only to the origin it was
//! given for.
//!
//! ```
//! use std::time::Duration;
//!
//! use a2a_testkit::conformance::{ConformanceFleet, Outcome};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), a2a_testkit::TestkitError> {
//! let fleet = ConformanceFleet::spawn(Duration::from_secs(2)).await?;
//! for scenario in fleet.scenarios() {
//!     println!("{}: {} ({})", scenario.id, scenario.url, scenario.card_claims);
//! }
//! // Nothing was pointed at the fleet yet: every scenario is "not run".
//! let scorecard = fleet.grade();
//! assert!(scorecard.grades.iter().all(|g| g.outcome == Outcome::NotRun));
//! fleet.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod front;
mod grade;
mod index;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::TestkitError;
use crate::agent::{DeadInterface, RunningAgent, ScriptedAgent};
use crate::auth::Guard;
use crate::script::{Capabilities, Fault, Lie, Protocol, Script, Stall, Times};

pub use index::IndexServer;

/// How much an answer of [`Scenario::OversizedAnswer`] pads: far more than any answer a client
/// expects.
pub const OVERSIZED_ANSWER_BYTES: u64 = 128 * 1024 * 1024;

/// The most of that answer a client may take in before letting go: room for an answer budget of
/// a few MiB and the connection's buffers on both sides.
pub const OVERSIZED_READ_BOUND: u64 = 32 * 1024 * 1024;

/// The default patience: how long a conforming client may hold a task that never ends before it
/// lets go (its own deadline, set by its user; the drivers set each client's to this).
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(30);

/// One way an agent lies about its card or misbehaves, and the rule a client must keep there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Scenario {
    /// An honest streaming agent: the control. A client must not call it a liar.
    HonestStreamer,
    /// The card claims streaming; the stream is refused with `-32004`.
    StreamingRefused,
    /// The card claims streaming; the task completes on the stream without its artifact. A careless
    /// fallback runs the finished work a second time.
    FinishedTaskRunTwice,
    /// A 0.3 card claims `stateTransitionHistory`; tasks come back without history.
    HistoryForgetter,
    /// The card claims push notifications; no callback ever comes.
    SilentPusher,
    /// The card claims an extended card (behind a bearer token); asking for it answers `-32004`.
    ExtendedCardLiar,
    /// The card's first interface is a port where nothing listens; the second works.
    DeadFirstInterface,
    /// The card, served at the URL the credential was given for, puts the agent's only interface
    /// on another origin, which records every credential it receives.
    CredentialElsewhere,
    /// The first two operation requests get `503 Service Unavailable`: a transport fault.
    TransientUnavailable,
    /// No streaming; the task stays `working` forever.
    WorkingForever,
    /// The card claims streaming; the stream carries `working` forever and never ends.
    EndlessStream,
    /// Every answer is a valid JSON document padded to 128 MiB.
    OversizedAnswer,
}

impl Scenario {
    /// Every scenario, in the order the fleet serves them.
    pub const ALL: [Scenario; 12] = [
        Self::HonestStreamer,
        Self::StreamingRefused,
        Self::FinishedTaskRunTwice,
        Self::HistoryForgetter,
        Self::SilentPusher,
        Self::ExtendedCardLiar,
        Self::DeadFirstInterface,
        Self::CredentialElsewhere,
        Self::TransientUnavailable,
        Self::WorkingForever,
        Self::EndlessStream,
        Self::OversizedAnswer,
    ];

    /// Its name in lists and scorecards (`streaming-refused`).
    pub fn id(self) -> &'static str {
        match self {
            Self::HonestStreamer => "honest-streamer",
            Self::StreamingRefused => "streaming-refused",
            Self::FinishedTaskRunTwice => "finished-task-run-twice",
            Self::HistoryForgetter => "history-forgetter",
            Self::SilentPusher => "silent-pusher",
            Self::ExtendedCardLiar => "extended-card-liar",
            Self::DeadFirstInterface => "dead-first-interface",
            Self::CredentialElsewhere => "credential-elsewhere",
            Self::TransientUnavailable => "transient-unavailable",
            Self::WorkingForever => "working-forever",
            Self::EndlessStream => "endless-stream",
            Self::OversizedAnswer => "oversized-answer",
        }
    }

    /// What the card claims, in the card's words.
    pub fn card_claims(self) -> &'static str {
        match self {
            Self::HonestStreamer
            | Self::StreamingRefused
            | Self::FinishedTaskRunTwice
            | Self::EndlessStream => "streaming",
            Self::HistoryForgetter => "A2A 0.3, stateTransitionHistory",
            Self::SilentPusher => "pushNotifications, a poll-cadence hint",
            Self::ExtendedCardLiar => "extendedAgentCard, an HTTP bearer scheme",
            Self::DeadFirstInterface => "two JSON-RPC interfaces",
            Self::CredentialElsewhere => "an HTTP bearer scheme, its one interface on another origin",
            Self::TransientUnavailable | Self::WorkingForever | Self::OversizedAnswer => "nothing",
        }
    }

    /// What the agent does.
    pub fn truth(self) -> &'static str {
        match self {
            Self::HonestStreamer => "streams the task to its artifact and completion: every claim holds",
            Self::StreamingRefused => "answers SendStreamingMessage with -32004 (unsupported)",
            Self::FinishedTaskRunTwice => {
                "streams the task to completed without its artifact (GetTask has it)"
            }
            Self::HistoryForgetter => "returns every task with an empty history",
            Self::SilentPusher => "accepts push configs and never calls back",
            Self::ExtendedCardLiar => "answers GetExtendedAgentCard with -32004",
            Self::DeadFirstInterface => "nothing listens at the first interface; the second works",
            Self::CredentialElsewhere => "the interface's origin records every credential it receives",
            Self::TransientUnavailable => "answers the first two operation requests 503, then works",
            Self::WorkingForever => "keeps the task working forever",
            Self::EndlessStream => "streams a working event every 10 ms, forever",
            Self::OversizedAnswer => "pads every answer with 128 MiB of spaces (still valid JSON)",
        }
    }

    /// What a conforming client does, by this SDK's rules.
    pub fn conforming(self) -> &'static str {
        match self {
            Self::HonestStreamer => "uses the stream and keeps its answer; runs the work once; no fallback",
            Self::StreamingRefused => {
                "refuses the claim, does not ask for the stream again, falls back to exactly one SendMessage"
            }
            Self::FinishedTaskRunTwice => {
                "keeps the finished task's result: the work runs once, nothing is sent again"
            }
            Self::HistoryForgetter => {
                "abandons history after one empty read, never retries it; the work runs once"
            }
            Self::SilentPusher => {
                "does not wait for a callback past its bound: reads the task itself (or never relied on push)"
            }
            Self::ExtendedCardLiar => {
                "asks for the extended card at most once, then runs the task on the public card"
            }
            Self::DeadFirstInterface => "fails over to the next interface: the work runs once",
            Self::CredentialElsewhere => "sends the credential only to the origin it was given for",
            Self::TransientUnavailable => {
                "retries the transport fault (never refuses on it): the work runs once"
            }
            Self::WorkingForever | Self::EndlessStream => {
                "lets go within its deadline (the patience): no request or open answer past it"
            }
            Self::OversizedAnswer => "stops reading an answer past its budget: takes in at most 32 MiB of it",
        }
    }
}

/// One scenario as served: where to point a client, what to send, and what is expected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioInfo {
    /// [`Scenario::id`].
    pub id: String,
    /// The agent's base URL: its card is under `/.well-known/agent-card.json` (0.3:
    /// `/.well-known/agent.json` too).
    pub url: String,
    /// The text to send: one piece of work, counted each time it runs.
    pub message: String,
    /// A bearer token the client is given for `url`, when the scenario needs one.
    pub bearer_token: Option<String>,
    /// [`Scenario::card_claims`].
    pub card_claims: String,
    /// [`Scenario::truth`].
    pub truth: String,
    /// [`Scenario::conforming`].
    pub conforming: String,
}

/// How a client did on one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It kept the rule.
    Pass,
    /// It broke the rule; the evidence says how.
    Fail,
    /// The client never reached this scenario's agent.
    NotRun,
    /// Still within the patience: the client holds the task and may yet let go in time.
    Pending,
}

/// One scenario's grade, with the evidence the agent recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grade {
    /// [`Scenario::id`].
    pub scenario: String,
    /// Pass, fail, not run or pending.
    pub outcome: Outcome,
    /// What a conforming client does ([`Scenario::conforming`]).
    pub expected: String,
    /// What settles the grade, in a sentence.
    pub verdict: String,
    /// What this client did, as the agent saw it: the requests with their times from the first, and
    /// how many times the work ran.
    pub observed: String,
}

/// Every scenario's grade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scorecard {
    /// The patience the fleet graded with, in milliseconds.
    pub patience_ms: u64,
    /// One grade per scenario, in [`Scenario::ALL`]'s order.
    pub grades: Vec<Grade>,
}

impl Scorecard {
    /// How many scenarios have `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.grades.iter().filter(|g| g.outcome == outcome).count()
    }
}

/// One running scenario.
#[derive(Debug)]
struct Running {
    scenario: Scenario,
    agent: RunningAgent,
    /// The origin the client is pointed at when it is not the agent's own ([`Scenario::CredentialElsewhere`]).
    front: Option<front::CardFront>,
    bearer_token: Option<String>,
}

impl Running {
    fn url(&self) -> String {
        self.front.as_ref().map_or_else(|| self.agent.base_url(), front::CardFront::base_url)
    }

    fn info(&self) -> ScenarioInfo {
        let scenario = self.scenario;
        ScenarioInfo {
            id: scenario.id().to_owned(),
            url: self.url(),
            message: message(scenario),
            bearer_token: self.bearer_token.clone(),
            card_claims: scenario.card_claims().to_owned(),
            truth: scenario.truth().to_owned(),
            conforming: scenario.conforming().to_owned(),
        }
    }
}

/// The message a scenario's client is asked to send.
fn message(scenario: Scenario) -> String {
    format!("conformance: {}", scenario.id())
}

/// The scenarios, running on loopback. Dropping it stops every agent.
#[derive(Debug)]
pub struct ConformanceFleet {
    patience: Duration,
    running: Vec<Running>,
}

impl ConformanceFleet {
    /// Starts every [`Scenario`] on `127.0.0.1`, each on its own port; `patience` is how long a
    /// client may hold a task that never ends ([`DEFAULT_PATIENCE`] for the drivers).
    ///
    /// # Errors
    ///
    /// The first [`TestkitError`] an agent's start returned.
    pub async fn spawn(patience: Duration) -> Result<Self, TestkitError> {
        let mut running = Vec::with_capacity(Scenario::ALL.len());
        for scenario in Scenario::ALL {
            running.push(start(scenario).await?);
        }
        Ok(Self { patience, running })
    }

    /// The patience the fleet grades with.
    pub fn patience(&self) -> Duration {
        self.patience
    }

    /// Every scenario: where to point the client and what to send.
    pub fn scenarios(&self) -> Vec<ScenarioInfo> {
        self.running.iter().map(Running::info).collect()
    }

    /// Grades what each agent saw so far.
    pub fn grade(&self) -> Scorecard {
        let grades = self.running.iter().map(|r| grade::grade(r, self.patience)).collect();
        Scorecard { patience_ms: u64::try_from(self.patience.as_millis()).unwrap_or(u64::MAX), grades }
    }

    /// Grades once no scenario is [`Outcome::Pending`]: a client still within its patience is given
    /// the rest of it (at most the patience and a margin), then graded as it stands.
    pub async fn settled_grade(&self) -> Scorecard {
        let until = tokio::time::Instant::now() + grade::allowance(self.patience);
        loop {
            let scorecard = self.grade();
            if scorecard.count(Outcome::Pending) == 0 || tokio::time::Instant::now() >= until {
                return scorecard;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stops every agent.
    pub async fn shutdown(self) {
        for running in self.running {
            running.agent.shutdown().await;
            if let Some(front) = running.front {
                front.shutdown().await;
            }
        }
    }
}

/// A fresh bearer token: a leak of it anywhere is unambiguous.
fn fresh_token() -> String {
    format!("conformance-{}", uuid::Uuid::new_v4().simple())
}

async fn start(scenario: Scenario) -> Result<Running, TestkitError> {
    let builder = ScriptedAgent::builder().name(scenario.id()).description(scenario.truth());
    let streaming = Capabilities::none().with_streaming();
    let mut bearer_token = None;
    let mut front = None;
    let builder = match scenario {
        Scenario::HonestStreamer => builder.capabilities(streaming),
        Scenario::StreamingRefused => builder.script(Script::honest().with(Lie::StreamingRefused)),
        Scenario::FinishedTaskRunTwice => {
            builder.capabilities(streaming).script(Script::honest().with(Lie::StreamWithoutArtifact))
        }
        Scenario::HistoryForgetter => builder
            .protocol(Protocol::V0_3)
            .card_path(crate::script::CardPath::Both)
            .capabilities(Capabilities::none().with_state_transition_history())
            .script(Script::honest().with(Lie::EmptyHistory)),
        Scenario::SilentPusher => builder
            .capabilities(
                Capabilities::none().with_push_notifications().with_poll_cadence(Duration::from_millis(200)),
            )
            .script(Script::honest().with(Lie::SilentPush)),
        Scenario::ExtendedCardLiar => {
            let token = fresh_token();
            bearer_token = Some(token.clone());
            builder.guard(Guard::bearer(token)).unserved_extended_card()
        }
        Scenario::DeadFirstInterface => builder.dead_interfaces_first(&[DeadInterface::Refused]),
        Scenario::CredentialElsewhere => {
            let token = fresh_token();
            bearer_token = Some(token.clone());
            builder.guard(Guard::bearer(token))
        }
        Scenario::TransientUnavailable => {
            builder.script(Script::honest().with_fault(Fault::ServiceUnavailable(Times::First(2))))
        }
        Scenario::WorkingForever => builder.script(Script::honest().stall(Stall::WorkingForever)),
        Scenario::EndlessStream => {
            builder.capabilities(streaming).script(Script::honest().stall(Stall::WorkingForever))
        }
        Scenario::OversizedAnswer => builder.padded_answers(OVERSIZED_ANSWER_BYTES),
    };
    let agent = builder.spawn().await?;
    if scenario == Scenario::CredentialElsewhere {
        front = Some(front::CardFront::spawn(agent.card().clone()).await?);
    }
    Ok(Running { scenario, agent, front, bearer_token })
}
