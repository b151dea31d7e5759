//! What a scripted agent claims (its card) and how it really behaves (its script).
//!
//! A [`Script`] is honest by default. Each [`Lie`] contradicts one claim of the card, and sets that
//! claim on the card itself, so a lie can never accidentally be the truth. Each [`Fault`] is a
//! transport problem that says nothing about the card (the design note: retry those, never refuse).

use std::time::Duration;

/// Which A2A protocol version the agent speaks on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// A2A 1.0: ProtoJSON enums, wrapped results, `A2A-Version: 1.0` required, JSON-RPC and HTTP+JSON.
    V1_0,
    /// A2A 0.3: `kind` discriminators, lowercase states, `final` flags, JSON-RPC only, no version header.
    V0_3,
}

/// Where the agent serves its card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CardPath {
    /// `/.well-known/agent-card.json`, the 0.3.0+ and 1.0 path.
    AgentCardJson,
    /// `/.well-known/agent.json`, the 0.2.x path many deployed agents still use.
    AgentJson,
    /// Both paths, with the same card.
    Both,
}

impl CardPath {
    /// The path of the preferred card location (the 1.0 one for [`CardPath::Both`]).
    pub fn path(self) -> &'static str {
        match self {
            CardPath::AgentCardJson | CardPath::Both => AGENT_CARD_JSON,
            CardPath::AgentJson => AGENT_JSON,
        }
    }

    pub(crate) fn serves(self, path: &str) -> bool {
        match self {
            CardPath::AgentCardJson => path == AGENT_CARD_JSON,
            CardPath::AgentJson => path == AGENT_JSON,
            CardPath::Both => path == AGENT_CARD_JSON || path == AGENT_JSON,
        }
    }
}

pub(crate) const AGENT_CARD_JSON: &str = "/.well-known/agent-card.json";
pub(crate) const AGENT_JSON: &str = "/.well-known/agent.json";

/// The URI of the poll-cadence extension this SDK reads from `capabilities.extensions`.
///
/// Our convention, not part of A2A: a non-streaming agent may tell clients how often to poll
/// `GetTask` with `{"uri": POLL_CADENCE_EXTENSION_URI, "params": {"intervalMs": N}}`.
pub const POLL_CADENCE_EXTENSION_URI: &str = "https://a2a-rs.dev/ext/poll-cadence/v1";

/// The URI of the gateway extension: a card carrying it in `capabilities.extensions` says it
/// describes a gateway, not the backend that runs the tasks.
///
/// Our convention, not part of A2A (the same value as `a2a_typestate::GATEWAY_EXTENSION_URI`). A
/// client that reads it lifts no claims from the card, since none of them binds the backend.
pub const GATEWAY_EXTENSION_URI: &str = "https://a2a-rs.dev/ext/gateway/v1";

/// The capabilities an agent's card declares.
///
/// Start from [`Capabilities::none`] and add claims; every claim the card makes is one a client may
/// build on, which is why the testkit can make each of them false with a [`Lie`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `capabilities.streaming`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`.
    pub push_notifications: bool,
    /// `capabilities.stateTransitionHistory` (0.3 only; a 1.0 card carries it only when it is `true`,
    /// as an unknown field, the way the lying official peer in the transcripts does).
    pub state_transition_history: bool,
    /// The poll-cadence hint, published as the [`POLL_CADENCE_EXTENSION_URI`] extension.
    pub poll_cadence: Option<Duration>,
    /// Whether the card marks itself as a gateway's with the [`GATEWAY_EXTENSION_URI`] extension.
    pub gateway_extension: bool,
}

impl Capabilities {
    /// A card that claims nothing: no streaming, no push, no history, no poll hint.
    pub fn none() -> Self {
        Self::default()
    }

    /// Adds the `streaming` claim.
    #[must_use]
    pub fn with_streaming(mut self) -> Self {
        self.streaming = true;
        self
    }

    /// Adds the `pushNotifications` claim.
    #[must_use]
    pub fn with_push_notifications(mut self) -> Self {
        self.push_notifications = true;
        self
    }

    /// Adds the `stateTransitionHistory` claim.
    #[must_use]
    pub fn with_state_transition_history(mut self) -> Self {
        self.state_transition_history = true;
        self
    }

    /// Adds a poll-cadence hint of `interval`.
    #[must_use]
    pub fn with_poll_cadence(mut self, interval: Duration) -> Self {
        self.poll_cadence = Some(interval);
        self
    }

    /// Marks the card as a gateway's with the [`GATEWAY_EXTENSION_URI`] extension.
    ///
    /// For a gateway that knows its card describes only itself and says so; pair it with
    /// [`Lie::Gateway`] to also give the agent a backend that behaves differently. It is an
    /// option, not part of [`Lie::Gateway`]: most gateways do not say what they are, and that
    /// unmarked case is the one only the caller's own knowledge can catch.
    #[must_use]
    pub fn with_gateway_extension(mut self) -> Self {
        self.gateway_extension = true;
        self
    }
}

/// One way the agent's behaviour contradicts its card.
///
/// Adding a lie to a [`Script`] also makes the card claim what the lie contradicts (for example
/// [`Lie::EmptyHistory`] makes the card declare `stateTransitionHistory: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lie {
    /// Over-declared streaming: the card says `streaming: true`, but `SendStreamingMessage` and
    /// `SubscribeToTask` answer `-32004` as plain JSON, the way the official servers refuse.
    StreamingRefused,
    /// Over-declared streaming: the agent streams, but never sends the artifact on the stream; it is
    /// only retrievable with `GetTask` (push callbacks still carry it).
    StreamWithoutArtifact,
    /// Over-declared history: the card says `stateTransitionHistory: true`, but every task comes back
    /// without history (omitted in 1.0, `[]` in 0.3).
    EmptyHistory,
    /// Over-declared push: configs are accepted and listed, but no callback is ever POSTed.
    SilentPush,
    /// Over-declared push: callbacks are POSTed with credentials and token other than the configured ones.
    WrongPushCredentials,
    /// Over-declared push, the way a2a-sdk serves a card claiming push from a handler without
    /// push: a config sent inline is ignored (the send succeeds), and every push-config call
    /// (`Create`/`Get`/`List`/`Delete`) answers `-32003`.
    PushConfigUnsupported,
    /// Over-declared push, the way BeeAI (`beeai-framework[a2a]` 0.1.85) serves a card claiming
    /// push with no push store: a config sent inline is ignored (the send succeeds), and every
    /// push-config call answers the generic `-32004` (UnsupportedOperation), not `-32003`.
    PushConfigUnsupportedOperation,
    /// The card says `streaming: false` and gives no poll hint, and `working` lasts this long.
    SlowWorkingWithoutPollHint(Duration),
    /// Under-declared streaming: the card says `streaming: false`, but the agent streams anyway
    /// (safe for a streaming client, per the design note).
    UnderDeclaredStreaming,
    /// A gateway: the card describes the gateway's capabilities, while the behaviour follows a
    /// backend with these capabilities.
    ///
    /// The card is not marked as a gateway's unless the declared [`Capabilities`] ask for it with
    /// [`Capabilities::with_gateway_extension`]. Unmarked is the default because it is the common
    /// and the hard case: the card alone cannot tell a client it is talking to a gateway, so
    /// only the caller's own setting can keep it from refusing a card that never bound the
    /// backend (the design note: for a gateway "no invariant holds"). Marked, the card itself
    /// tells a client to lift no claims.
    Gateway {
        /// What the backend really does.
        backend: Capabilities,
    },
}

/// A way the agent writes or handles the protocol unlike the specification while every claim of
/// its card stays true: a quirk is not a lie, and a client should read it, not refuse the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Quirk {
    /// On a 1.0 stream, every event after the first is written in the 0.3 shape: the bare event
    /// with a `kind` discriminator (`status-update`, `artifact-update`) instead of the
    /// `statusUpdate` / `artifactUpdate` wrapper, and `final` on status updates, but with the 1.0
    /// enum names (`TASK_STATE_WORKING`). Some widely deployed agent frameworks stream this way.
    V03ShapedEventsAfterFirst,
    /// Accepts a push config inline in a send (the send succeeds) but does not keep it; a config
    /// registered with `CreateTaskPushNotificationConfig` is kept and called.
    DropsInlinePushConfig,
    /// Refuses a push config whose URL names a loopback or private address with `-32602`
    /// (invalid params), inline and on the create call, the way SSRF guards in deployed servers do.
    RejectsPrivateWebhookUrls,
    /// Refuses a loopback or private webhook URL inline with `-32602` (invalid params), accepts
    /// the same URL on `CreateTaskPushNotificationConfig`, and never calls it: a stated policy
    /// (a2a-server-lf 0.5.3 behaves so by default). Public webhooks are called as usual.
    NeverCallsPrivateWebhooks,
    /// The answer is streamed as agent messages (three chunks sharing one message id) within the
    /// task, instead of an artifact: the task keeps no artifact, its history holds the answer (Agno
    /// 3.1.10 streams so; with [`Quirk::OnlyStreams`] too, it takes the place of the status-message
    /// chunks). Every claim stays true: there is no artifact for a stream to miss.
    AnswersInMessages,
    /// Not streaming, the agent has no streaming methods at all: `SendStreamingMessage` and
    /// `SubscribeToTask` answer "method not found" (JSON-RPC -32601, HTTP+JSON 404, gRPC
    /// `UNIMPLEMENTED`) rather than -32004, as servers written to serve only `SendMessage` do.
    /// With a card that does not claim streaming it is a quirk; with [`Lie::StreamingRefused`] it
    /// is how that lie is told.
    NoStreamingMethods,
    /// The card writes `null` for every member it leaves unset, as Agno 3.1.10's does: a claim it
    /// does not make is `null` rather than `false` (`"pushNotifications": null`), and the optional
    /// members (documentation and icon URLs, provider, security, signatures, the skills' examples,
    /// modes and security; in 0.3 also `additionalInterfaces` and
    /// `supportsAuthenticatedExtendedCard`, in 1.0 `extendedAgentCard`) are there as `null`. Read
    /// as left out, as the specification's JSON mapping has it, the card claims the same.
    NullForUnsetCardMembers,
    /// `ListTasks` pages through the tasks as usual, but a page asked for with a page token names that
    /// same token as its `nextPageToken`: a client that follows tokens blindly asks for the same page
    /// forever.
    RepeatsPageToken,
    /// `ListTasks` answers every page with every task the agent holds from the page's offset on,
    /// whatever `pageSize` asked, and always names a new next page (the offset plus the size asked):
    /// a client that takes what a page holds, and follows tokens until none is left, holds every task
    /// again per page and never ends.
    OverfullEndlessPages,
    /// Only `SendStreamingMessage` is served: every other operation (JSON-RPC method or HTTP+JSON
    /// route, `GetTask` included) is answered with HTTP `status` and `body` as `text/plain`, no A2A
    /// error in it, the way a server that implements the stream and nothing else answers. The card's
    /// streaming claim stays true: the stream carries the whole answer, in chunks, as `working`
    /// status messages (`echo:`, then the text) and then `completed` (`done`), with no artifact.
    OnlyStreams {
        /// The HTTP status every other operation gets (400, 500...).
        status: u16,
        /// The plain-text body it comes with.
        body: &'static str,
    },
    /// On 0.3 HTTP+JSON, answers and stream events are the 0.3 JSON-RPC results (`kind`
    /// discriminators, lowercase states, `parts`), as the 0.3 specification's JSON-RPC examples
    /// write them, instead of the 0.3 proto's JSON the official SDKs' servers write; a request body
    /// is read in either shape. Without it, a 0.3 HTTP+JSON agent speaks only the proto's JSON.
    V03RestInJsonRpcShape,
    /// Every SSE event's `data` starts with the record separator 0x1E before its JSON, the framing
    /// of a JSON text sequence (RFC 7464), as VoltAgent's A2A server (`@voltagent/a2a-server` 2.0.3)
    /// writes every event of `message/stream`. Applies to every binding that streams over SSE
    /// (JSON-RPC and HTTP+JSON, 1.0 and 0.3); gRPC has no SSE and is left as it is.
    JsonTextSequenceEvents,
    /// On 0.3 JSON-RPC, every task a result carries (a `message/send`, `tasks/get` or
    /// `tasks/cancel` answer, a stream event) is written without its `kind` discriminator, as
    /// VoltAgent's A2A server (`@voltagent/a2a-server` 2.0.3) writes them; its members (`id`,
    /// `contextId`, `status`) still name it a task.
    V03TasksWithoutKind,
    /// On 0.3 JSON-RPC, each stream event is written as PraisonAI's A2A server
    /// (`praisonaiagents` 1.7.17) writes them: the result alone, without the JSON-RPC response
    /// around it, with no `kind` on the result, its messages or its parts, and no `contextId` on a
    /// status or artifact update. Their members still name each object alone.
    BareV03StreamEvents,
}

/// A way the agent answers about a task other than the one it was asked about: neither a lie
/// about a claim nor a quirk, but an answer a client must not take as one about its task.
///
/// The other task and context are named [`Misaddress::other_id`] of the real ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Misaddress {
    /// On every stream, each event after the first names another task and context (the task
    /// itself goes on as it would).
    StreamEventsAfterFirst,
    /// `GetTask` and `CancelTask` answer with another task id and context (the rest is the task's).
    TaskAnswers,
    /// A `SendMessage` answering a message that continues a task (its `taskId` set) names another
    /// task and context; a message starting a task is answered as usual.
    FollowUpAnswers,
}

impl Misaddress {
    /// The id of the other task (or context) an answer about `id` names instead.
    pub fn other_id(id: &str) -> String {
        format!("elsewhere-{id}")
    }
}

/// How many requests or streams a fault hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Times {
    /// Every one.
    Always,
    /// Only the first `n`, so that a retry can succeed.
    First(u32),
}

impl Times {
    pub(crate) fn covers(self, already_hit: u32) -> bool {
        match self {
            Times::Always => true,
            Times::First(n) => already_hit < n,
        }
    }
}

/// A transport fault: says nothing about the card, and a client should retry it.
///
/// Status faults apply to A2A operation requests (JSON-RPC and HTTP+JSON), never to the card, so that
/// discovery still works and the retry of an operation can be observed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// The connection is cut (the response body aborts) after `after_events` complete SSE events.
    ResetMidStream {
        /// Complete events sent before the cut.
        after_events: usize,
        /// How many streams are cut.
        times: Times,
    },
    /// The SSE body ends cleanly in the middle of an event, after `after_events` complete events.
    TruncatedSse {
        /// Complete events sent before the partial one.
        after_events: usize,
        /// How many streams are truncated.
        times: Times,
    },
    /// `502 Bad Gateway` with a plain-text body.
    BadGateway(Times),
    /// `503 Service Unavailable` with `Retry-After: 0`.
    ServiceUnavailable(Times),
    /// Every operation request is answered only after this delay.
    SlowResponses(Duration),
}

/// A way an agent never finishes a task while looking alive: what the client's bounds must end.
/// None of these contradicts a claim, so none is a lie; each is a task without progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stall {
    /// The task stays `submitted`: nothing follows the first snapshot.
    Submitted,
    /// Asks for input; after the answer, asks the same question again (the same message).
    SameQuestion,
    /// Asks for input without a question; after the answer, the same again.
    NoQuestion,
    /// A stream carries keep-alive comments only (one every step delay); the task stays
    /// `submitted`.
    CommentsOnly,
    /// A `working` status event every step delay, forever.
    WorkingForever,
}

/// When the agent POSTs push callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PushTiming {
    /// One per event, as it happens (the official servers do this).
    #[default]
    EveryEvent,
    /// Only the task's terminal state: honest, for a long task the first callback comes late.
    TerminalOnly,
}

/// When the agent asks for clarification (`input-required`) before doing the work.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Clarify {
    /// Never asks.
    Never,
    /// Asks when the first message's text contains this word (case-insensitive), and again after
    /// each reply that contains it.
    WhenMessageContains(String),
    /// Asks on every new task (the observed run does).
    Always,
}

/// The agent's behaviour: honest by default, with lies, faults, clarification and timing on top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub(crate) lies: Vec<Lie>,
    pub(crate) faults: Vec<Fault>,
    pub(crate) clarify: Clarify,
    pub(crate) step_delay: Duration,
    pub(crate) stall: Option<Stall>,
    pub(crate) push_timing: PushTiming,
    pub(crate) quirks: Vec<Quirk>,
    pub(crate) misaddress: Vec<Misaddress>,
    pub(crate) repeated_working: u64,
}

/// The default delay between two lifecycle events: short, so tests stay fast.
pub const DEFAULT_STEP_DELAY: Duration = Duration::from_millis(10);

impl Default for Script {
    fn default() -> Self {
        Self::honest()
    }
}

impl Script {
    /// Does what the card says; asks for clarification when a message contains "clarify".
    pub fn honest() -> Self {
        Script {
            lies: Vec::new(),
            faults: Vec::new(),
            clarify: Clarify::WhenMessageContains("clarify".to_owned()),
            step_delay: DEFAULT_STEP_DELAY,
            stall: None,
            push_timing: PushTiming::EveryEvent,
            quirks: Vec::new(),
            misaddress: Vec::new(),
            repeated_working: 0,
        }
    }

    /// The run from the design note: always asks for clarification first, streams without the
    /// artifact, and keeps no history. Use it with [`crate::ScriptedAgent::observed_run`] to also get
    /// the note's 0.3 card.
    pub fn observed_run() -> Self {
        Script::honest().with(Lie::StreamWithoutArtifact).with(Lie::EmptyHistory).clarify(Clarify::Always)
    }

    /// Adds a lie.
    #[must_use]
    pub fn with(mut self, lie: Lie) -> Self {
        self.lies.push(lie);
        self
    }

    /// Adds a quirk (the card's claims stay true).
    #[must_use]
    pub fn quirk(mut self, quirk: Quirk) -> Self {
        self.quirks.push(quirk);
        self
    }

    /// `true` when the script has `quirk`.
    pub fn has_quirk(&self, quirk: Quirk) -> bool {
        self.quirks.contains(&quirk)
    }

    /// The status and body of [`Quirk::OnlyStreams`], when the script has it.
    pub(crate) fn only_streams(&self) -> Option<(u16, &'static str)> {
        self.quirks.iter().find_map(|quirk| match quirk {
            Quirk::OnlyStreams { status, body } => Some((*status, *body)),
            _ => None,
        })
    }

    /// Makes the agent answer about another task this way.
    #[must_use]
    pub fn misaddress(mut self, misaddress: Misaddress) -> Self {
        self.misaddress.push(misaddress);
        self
    }

    /// `true` when the script answers about another task this way.
    pub fn misaddresses(&self, misaddress: Misaddress) -> bool {
        self.misaddress.contains(&misaddress)
    }

    /// Adds a transport fault.
    #[must_use]
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.faults.push(fault);
        self
    }

    /// Sets when the agent asks for clarification.
    #[must_use]
    pub fn clarify(mut self, clarify: Clarify) -> Self {
        self.clarify = clarify;
        self
    }

    /// Sets the delay between two lifecycle events (default [`DEFAULT_STEP_DELAY`]).
    #[must_use]
    pub fn step_delay(mut self, delay: Duration) -> Self {
        self.step_delay = delay;
        self
    }

    /// Makes every task stall this way (asking for input first where the stall needs a question).
    #[must_use]
    pub fn stall(mut self, stall: Stall) -> Self {
        if matches!(stall, Stall::SameQuestion | Stall::NoQuestion) {
            self.clarify = Clarify::Always;
        }
        self.stall = Some(stall);
        self
    }

    /// Makes each stream carry the task's `WORKING` status update (the one without a message)
    /// `1 + times` times, the same event again and again, before the task goes on (default 0:
    /// once). The repeats are
    /// written by the stream itself, so none is lost to a slow reader and the agent keeps nothing
    /// per repeat: what a stream of any length of events that add nothing costs the client.
    #[must_use]
    pub fn repeat_working(mut self, times: u64) -> Self {
        self.repeated_working = times;
        self
    }

    /// Sets when push callbacks are POSTed (default [`PushTiming::EveryEvent`]).
    #[must_use]
    pub fn push_timing(mut self, timing: PushTiming) -> Self {
        self.push_timing = timing;
        self
    }

    /// The lies in this script.
    pub fn lies(&self) -> &[Lie] {
        &self.lies
    }

    /// The faults in this script.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// True when the script contains no lie (faults do not make an agent dishonest).
    pub fn is_honest(&self) -> bool {
        self.lies.is_empty()
    }

    /// What the card claims once the lies have set the claims they contradict.
    pub(crate) fn card_claims(&self, declared: &Capabilities) -> Capabilities {
        let mut card = declared.clone();
        for lie in &self.lies {
            match lie {
                Lie::StreamingRefused | Lie::StreamWithoutArtifact => card.streaming = true,
                Lie::EmptyHistory => card.state_transition_history = true,
                Lie::SilentPush
                | Lie::WrongPushCredentials
                | Lie::PushConfigUnsupported
                | Lie::PushConfigUnsupportedOperation => {
                    card.push_notifications = true;
                }
                Lie::SlowWorkingWithoutPollHint(_) => {
                    card.streaming = false;
                    card.poll_cadence = None;
                }
                Lie::UnderDeclaredStreaming => card.streaming = false,
                Lie::Gateway { .. } => {}
            }
        }
        card
    }

    /// How the agent really behaves, given what its card claims.
    pub(crate) fn behaviour(&self, card: &Capabilities) -> Behaviour {
        let base = self
            .lies
            .iter()
            .find_map(|lie| match lie {
                Lie::Gateway { backend } => Some(backend.clone()),
                _ => None,
            })
            .unwrap_or_else(|| card.clone());
        let mut behaviour = Behaviour {
            streams: base.streaming,
            push: if base.push_notifications { PushBehaviour::Delivers } else { PushBehaviour::Unsupported },
            keeps_history: true,
            artifact_on_stream: true,
            extra_working: Duration::ZERO,
        };
        for lie in &self.lies {
            match lie {
                Lie::StreamingRefused => behaviour.streams = false,
                Lie::StreamWithoutArtifact => behaviour.artifact_on_stream = false,
                Lie::EmptyHistory => behaviour.keeps_history = false,
                Lie::SilentPush => behaviour.push = PushBehaviour::Silent,
                Lie::WrongPushCredentials => behaviour.push = PushBehaviour::WrongCredentials,
                Lie::PushConfigUnsupported => behaviour.push = PushBehaviour::ConfigCallsUnsupported,
                Lie::PushConfigUnsupportedOperation => {
                    behaviour.push = PushBehaviour::ConfigCallsUnsupportedOperation;
                }
                Lie::SlowWorkingWithoutPollHint(d) => behaviour.extra_working = *d,
                Lie::UnderDeclaredStreaming => behaviour.streams = true,
                Lie::Gateway { .. } => {}
            }
        }
        behaviour
    }
}

/// What the agent does, after lies are applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Behaviour {
    pub(crate) streams: bool,
    pub(crate) push: PushBehaviour,
    pub(crate) keeps_history: bool,
    pub(crate) artifact_on_stream: bool,
    pub(crate) extra_working: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PushBehaviour {
    Unsupported,
    Delivers,
    Silent,
    WrongCredentials,
    /// An inline config is ignored; every push-config call answers `-32003`.
    ConfigCallsUnsupported,
    /// An inline config is ignored; every push-config call answers `-32004`.
    ConfigCallsUnsupportedOperation,
}
