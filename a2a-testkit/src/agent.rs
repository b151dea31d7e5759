//! Building, starting and observing one scripted agent.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::TestkitError;
use crate::auth::{ClientAuth, Guard, TestPki};
use crate::background::BackgroundServer;
use crate::card::{self, Binding, CardFacts};
use crate::record::{AnswerRecord, PushDelivery, RecordedRequest};
use crate::script::{Capabilities, CardPath, Protocol, Script};
use crate::server::{self, JSONRPC_PATH, REST_PATH};
use crate::store::{AgentState, Shared};

/// How long [`RunningAgent::shutdown`] waits for open streams to finish before dropping them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Entry point: `ScriptedAgent::builder()` configures an agent, `.spawn()` starts it.
#[derive(Debug)]
#[non_exhaustive]
pub struct ScriptedAgent;

impl ScriptedAgent {
    /// An honest 1.0 agent named "scripted-agent" with no capabilities, card at
    /// `/.well-known/agent-card.json`; change what you need.
    pub fn builder() -> ScriptedAgentBuilder {
        ScriptedAgentBuilder::default()
    }

    /// The agent of the design note's observed run, as a 0.3 agent: card at `/.well-known/agent.json`
    /// claiming streaming, `stateTransitionHistory` and `pushNotifications` with `text/plain` input;
    /// every task asks for clarification; after it, `working` then `completed` (`final: true`) with the
    /// artifact missing from the stream (only `tasks/get` has it) and the history empty.
    pub fn observed_run() -> ScriptedAgentBuilder {
        ScriptedAgentBuilder::default()
            .name("observed-run-agent")
            .description("Replays the run recorded in the agent-card lifecycle design note")
            .protocol(Protocol::V0_3)
            .card_path(CardPath::AgentJson)
            .capabilities(Capabilities::none().with_streaming().with_push_notifications())
            .script(Script::observed_run())
    }
}

/// Configures a scripted agent; see [`ScriptedAgent::builder`].
#[derive(Debug, Clone)]
pub struct ScriptedAgentBuilder {
    name: String,
    description: String,
    capabilities: Capabilities,
    script: Script,
    protocol: Protocol,
    card_path: Option<CardPath>,
    input_modes: Vec<String>,
    output_modes: Vec<String>,
    guard: Option<Guard>,
    extended: Option<Capabilities>,
    tls: Option<TestPki>,
    tenant: Option<String>,
    /// The card's interfaces in order; `None` for the version's default.
    bindings: Option<Vec<Binding>>,
    extensions: crate::extensions::ExtensionRules,
    card_lies: CardLies,
    padded_answers: u64,
}

/// The card claims beyond the lifecycle that a builder makes the agent contradict.
#[derive(Debug, Clone, Copy, Default)]
struct CardLies {
    unserved_extended_card: bool,
    retired_interface: bool,
    /// The retired interface is listed first instead of last.
    retired_interface_first: bool,
    denies_task_reads: bool,
    /// Listed before every interface the agent serves: addresses where nothing answers.
    dead_interfaces: &'static [DeadInterface],
}

/// An interface a card lists where no agent answers, as real cards often do (a container's
/// `localhost`, an internal host name, a port long closed): nothing there says anything about the
/// card. All but [`DeadInterface::AcceptsThenCloses`] fail before the connection opens, so nothing
/// was sent there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeadInterface {
    /// A loopback port nothing listens on: the connection is refused.
    Refused,
    /// A host name under `.invalid` (RFC 2606), which never resolves.
    UnresolvableHost,
    /// `https` to the agent's own plain-HTTP port: the TLS handshake fails.
    TlsToPlainHttp,
    /// A loopback port that accepts each connection and closes it at once: the connection opened,
    /// so a request may have reached something.
    AcceptsThenCloses,
}

/// A loopback address where nothing listens, held for as long as the returned socket lives: bound
/// and never listening, so a connection there is refused, and no listener started meanwhile (another
/// agent, a webhook receiver) can be given the port. A port bound and closed at once could be, and
/// a client meant to find nothing there then reached another agent.
fn refusing_loopback_port() -> Result<(SocketAddr, tokio::net::TcpSocket), TestkitError> {
    let socket = tokio::net::TcpSocket::new_v4().map_err(TestkitError::Bind)?;
    socket.bind(SocketAddr::from(([127, 0, 0, 1], 0))).map_err(TestkitError::Bind)?;
    let addr = socket.local_addr().map_err(TestkitError::Bind)?;
    Ok((addr, socket))
}

/// The base URL of an agent that hangs: a loopback port that accepts every connection and never
/// writes a byte, each connection held open for as long as the runtime runs. What a client waits
/// for there is bounded by its own deadlines only.
///
/// # Errors
/// [`TestkitError::Bind`] when no loopback port can be bound.
pub async fn hung_agent() -> Result<String, TestkitError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
    let addr = listener.local_addr().map_err(TestkitError::Bind)?;
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    Ok(format!("http://{addr}/"))
}

/// A loopback address that accepts every connection and closes it at once, for as long as the
/// runtime runs.
async fn closing_loopback_port() -> Result<SocketAddr, TestkitError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
    let addr = listener.local_addr().map_err(TestkitError::Bind)?;
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            drop(socket);
        }
    });
    Ok(addr)
}

/// Writes `null` for the members `card` leaves unset and for the claims it does not make
/// ([`Quirk::NullForUnsetCardMembers`](crate::Quirk::NullForUnsetCardMembers)).
fn null_for_unset_members(card: &mut Value, protocol: Protocol) {
    let null_where_unset = |object: &mut serde_json::Map<String, Value>, members: &[&str]| {
        for member in members {
            let unset = object.get(*member).is_none_or(|v| v == &Value::Bool(false));
            if unset {
                object.insert((*member).to_owned(), Value::Null);
            }
        }
    };
    let (card_members, claims): (&[&str], &[&str]) = match protocol {
        Protocol::V1_0 => (
            &[
                "documentationUrl",
                "iconUrl",
                "provider",
                "securitySchemes",
                "securityRequirements",
                "signatures",
            ],
            &["streaming", "pushNotifications", "stateTransitionHistory", "extendedAgentCard", "extensions"],
        ),
        Protocol::V0_3 => (
            &[
                "documentationUrl",
                "iconUrl",
                "provider",
                "security",
                "securitySchemes",
                "signatures",
                "additionalInterfaces",
                "supportsAuthenticatedExtendedCard",
            ],
            &["streaming", "pushNotifications", "stateTransitionHistory", "extensions"],
        ),
    };
    let skill_members: &[&str] = match protocol {
        Protocol::V1_0 => &["examples", "inputModes", "outputModes", "securityRequirements"],
        Protocol::V0_3 => &["examples", "inputModes", "outputModes", "security"],
    };
    let Some(object) = card.as_object_mut() else { return };
    null_where_unset(object, card_members);
    if let Some(capabilities) = object.get_mut("capabilities").and_then(Value::as_object_mut) {
        null_where_unset(capabilities, claims);
    }
    for skill in object.get_mut("skills").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(skill) = skill.as_object_mut() {
            null_where_unset(skill, skill_members);
        }
    }
}

/// The client every agent POSTs its push callbacks with, built once per process: building one
/// loads the platform's roots (about 30 ms of a debug build's CPU, once per agent before, which a
/// test serving thousands of agents paid thousands of times). It keeps no idle connection, so no
/// connection outlives the runtime that opened it (each `#[tokio::test]` has its own).
fn push_client() -> Result<reqwest::Client, TestkitError> {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(client.clone());
    }
    let built = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .pool_max_idle_per_host(0)
        .build()
        .map_err(TestkitError::HttpClient)?;
    Ok(CLIENT.get_or_init(|| built).clone())
}

/// Where [`ScriptedAgentBuilder::retired_interface`] points: a path the agent does not serve.
pub const RETIRED_INTERFACE_PATH: &str = "/retired-a2a";

impl Default for ScriptedAgentBuilder {
    fn default() -> Self {
        ScriptedAgentBuilder {
            name: "scripted-agent".to_owned(),
            description: "a2a-testkit scripted agent".to_owned(),
            capabilities: Capabilities::none(),
            script: Script::honest(),
            protocol: Protocol::V1_0,
            card_path: None,
            input_modes: vec!["text/plain".to_owned()],
            output_modes: vec!["text/plain".to_owned()],
            bindings: None,
            guard: None,
            extended: None,
            tls: None,
            tenant: None,
            extensions: crate::extensions::ExtensionRules::default(),
            card_lies: CardLies::default(),
            padded_answers: 0,
        }
    }
}

impl ScriptedAgentBuilder {
    /// The card's `name`.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The card's `description`.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// What the card declares (lies in the script may add the claims they contradict).
    #[must_use]
    pub fn capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// How the agent behaves.
    #[must_use]
    pub fn script(mut self, script: Script) -> Self {
        self.script = script;
        self
    }

    /// The protocol version spoken (default 1.0).
    #[must_use]
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Where the card is served (default `/.well-known/agent-card.json`).
    #[must_use]
    pub fn card_path(mut self, card_path: CardPath) -> Self {
        self.card_path = Some(card_path);
        self
    }

    /// The card's `defaultInputModes` (default `text/plain`).
    #[must_use]
    pub fn default_input_modes(mut self, modes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.input_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// The card's `defaultOutputModes` (default `text/plain`).
    #[must_use]
    pub fn default_output_modes(mut self, modes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.output_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// Requires `guard`'s credentials on every A2A request (the card stays public) and names its
    /// scheme in the card (1.0 cards).
    #[must_use]
    pub fn guard(mut self, guard: Guard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// Declares `capabilities.extendedAgentCard` and answers `GetExtendedAgentCard` (behind the
    /// guard) with a card that claims `capabilities` (which may be more than the public card's).
    #[must_use]
    pub fn extended_card(mut self, capabilities: Capabilities) -> Self {
        self.extended = Some(capabilities);
        self
    }

    /// Serves HTTPS with `pki`'s server certificate (for `127.0.0.1` and `localhost`); with
    /// [`Guard::MutualTls`], only clients presenting a certificate of `pki`'s CA get through.
    #[must_use]
    pub fn tls(mut self, pki: TestPki) -> Self {
        self.tls = Some(pki);
        self
    }

    /// Names `tenant` in both interfaces of the (1.0) card, as spec §8.3.2 rule 4 has clients
    /// send it: JSON-RPC requests must carry `params.tenant` (else `-32602`), HTTP+JSON paths
    /// must start with `/{tenant}` (else 404).
    #[must_use]
    pub fn tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// The interfaces the card lists, in this order of preference.
    ///
    /// A 1.0 card lists them in `supportedInterfaces` (default: JSON-RPC, then HTTP+JSON); the
    /// agent serves all three 1.0 bindings whatever the card lists; gRPC is at the agent's origin
    /// ([`RunningAgent::grpc_url`]), in cleartext HTTP/2 (not with [`Self::tls`]).
    ///
    /// A 0.3 card names the first as its `url` and `preferredTransport`, and, when there are more,
    /// lists them all in `additionalInterfaces` (default: JSON-RPC alone). A 0.3 agent serves
    /// JSON-RPC always, and HTTP+JSON 0.3 (the `/v1` routes under [`RunningAgent::rest_url`], with
    /// `kind`-shaped bodies, as BeeAI serves them) when the card lists it; 0.3 has no gRPC here.
    #[must_use]
    pub fn bindings(mut self, bindings: impl IntoIterator<Item = Binding>) -> Self {
        self.bindings = Some(bindings.into_iter().collect());
        self
    }

    /// Declares the extension `uri` in the card (`capabilities.extensions[]`, not required): the
    /// agent activates it on each request that asks for it, and names it in the answer's extensions
    /// header (`A2A-Extensions` in 1.0, `X-A2A-Extensions` in 0.3, gRPC metadata `a2a-extensions`).
    #[must_use]
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.declare(uri.into(), false, true);
        self
    }

    /// As [`Self::extension`], marked `required: true`: the agent answers -32008
    /// (`ExtensionSupportRequiredError`) to any A2A request that does not ask for it.
    #[must_use]
    pub fn required_extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.declare(uri.into(), true, true);
        self
    }

    /// Declares the extension `uri` in the card (not required) and never activates it: the answers
    /// never name it, whatever the request asks for.
    #[must_use]
    pub fn inert_extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.declare(uri.into(), false, false);
        self
    }

    /// Over-declared extension: declares `uri` with `required: true` (a request that does not ask
    /// for it is answered -32008) and never activates it, while the answers name the other
    /// extensions it activates.
    #[must_use]
    pub fn inert_required_extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.declare(uri.into(), true, false);
        self
    }

    /// Answers -32008 to any A2A request that does not ask for `uri`, although the card does not say
    /// the extension is required (nor, unless declared too, that it exists): an agent whose card
    /// under-declares what it requires.
    #[must_use]
    pub fn demands_extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.demanded.push(uri.into());
        self
    }

    /// Over-declared extended card: the card says `extendedAgentCard: true`, and
    /// `GetExtendedAgentCard` answers `-32004` (`UnsupportedOperationError`) to every caller.
    #[must_use]
    pub fn unserved_extended_card(mut self) -> Self {
        self.card_lies.unserved_extended_card = true;
        self
    }

    /// Over-declared interface: a 1.0 card lists, last, a JSON-RPC 1.0 interface at
    /// [`RETIRED_INTERFACE_PATH`], where the agent answers 404 (an endpoint moved and the card not
    /// updated).
    #[must_use]
    pub fn retired_interface(mut self) -> Self {
        self.card_lies.retired_interface = true;
        self
    }

    /// As [`ScriptedAgentBuilder::retired_interface`], with the retired interface listed **first**:
    /// a client that picks interfaces in the card's order meets it before the working ones, and
    /// its fallback is the next declared interface.
    #[must_use]
    pub fn retired_interface_first(mut self) -> Self {
        self.card_lies.retired_interface = true;
        self.card_lies.retired_interface_first = true;
        self
    }

    /// Before the interfaces the agent serves, the card lists one JSON-RPC 1.0 interface per entry
    /// of `dead`, in that order, each at an address where no agent can be reached: an honest card
    /// whose first interfaces a client cannot reach (not a lie: see [`DeadInterface`]).
    #[must_use]
    pub fn dead_interfaces_first(mut self, dead: &'static [DeadInterface]) -> Self {
        self.card_lies.dead_interfaces = dead;
        self
    }

    /// Over-declared open access: the card names no security scheme, and `GetTask` and `ListTasks`
    /// answer 401 to every caller (an ingress guarding task reads the card does not mention). Sends
    /// and streams are served, so the other claims can still be exercised.
    #[must_use]
    pub fn denies_task_reads(mut self) -> Self {
        self.card_lies.denies_task_reads = true;
        self
    }

    /// Pads every JSON answer to an operation with `bytes` spaces before its last brace: still the
    /// same answer, produced as it is sent, and as large as a client without a bound on what it reads
    /// will take in. [`RunningAgent::answers`] shows how much each client read.
    pub fn padded_answers(mut self, bytes: u64) -> Self {
        self.padded_answers = bytes;
        self
    }

    /// Starts the agent on `127.0.0.1` with a free port, inside the current tokio runtime.
    ///
    /// # Errors
    ///
    /// [`TestkitError::Bind`] when no loopback port can be bound, [`TestkitError::HttpClient`] when
    /// the client for push callbacks cannot be built.
    pub async fn spawn(self) -> Result<RunningAgent, TestkitError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
        let addr = listener.local_addr().map_err(TestkitError::Bind)?;
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let base_url = format!("{scheme}://{addr}");
        let jsonrpc_url = format!("{base_url}{JSONRPC_PATH}");
        let rest_url = format!("{base_url}{REST_PATH}");
        let claims = self.script.card_claims(&self.capabilities);
        let bindings = self.bindings.clone().unwrap_or_else(|| match self.protocol {
            Protocol::V1_0 => vec![Binding::JsonRpc, Binding::HttpJson],
            Protocol::V0_3 => vec![Binding::JsonRpc],
        });
        let facts = CardFacts {
            name: &self.name,
            description: &self.description,
            input_modes: &self.input_modes,
            output_modes: &self.output_modes,
            jsonrpc_url: &jsonrpc_url,
            rest_url: &rest_url,
            grpc_url: &base_url,
            bindings: &bindings,
        };
        let mut card = card::card_json(self.protocol, &facts, &claims);
        let guard = self.guard.as_ref();
        // The agent does what its fullest card says: the extended one when it has one.
        let acting = self.extended.as_ref().map_or_else(|| claims.clone(), |e| self.script.card_claims(e));
        let extended_card = self.extended.as_ref().map(|extended| {
            let claims = self.script.card_claims(extended);
            let mut extended = card::card_json(self.protocol, &facts, &claims);
            extended["description"] = serde_json::json!(format!("{} (extended card)", self.description));
            crate::auth::decorate_card(&mut extended, guard, &base_url, true);
            extended
        });
        let declares_extended = extended_card.is_some() || self.card_lies.unserved_extended_card;
        crate::auth::decorate_card(&mut card, guard, &base_url, declares_extended);
        if self.card_lies.retired_interface
            && let Some(interfaces) = card.get_mut("supportedInterfaces").and_then(Value::as_array_mut)
        {
            let retired = serde_json::json!({
                "url": format!("{base_url}{RETIRED_INTERFACE_PATH}"),
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            });
            if self.card_lies.retired_interface_first {
                interfaces.insert(0, retired);
            } else {
                interfaces.push(retired);
            }
        }
        let mut reserved = Vec::new();
        if !self.card_lies.dead_interfaces.is_empty()
            && let Some(interfaces) = card.get_mut("supportedInterfaces").and_then(Value::as_array_mut)
        {
            // Every refusing interface is on one reserved port (a path of its own after the first):
            // a card may list thousands, and a socket each would run out of descriptors.
            let mut refusing = None;
            for (at, dead) in self.card_lies.dead_interfaces.iter().enumerate() {
                let url = match dead {
                    DeadInterface::Refused => {
                        let addr = match refusing {
                            Some(addr) => addr,
                            None => {
                                let (addr, socket) = refusing_loopback_port()?;
                                reserved.push(socket);
                                *refusing.insert(addr)
                            }
                        };
                        if at == 0 {
                            format!("http://{addr}{JSONRPC_PATH}")
                        } else {
                            format!("http://{addr}/dead-{at}{JSONRPC_PATH}")
                        }
                    }
                    DeadInterface::UnresolvableHost => {
                        format!("http://dead-interface-{at}.invalid{JSONRPC_PATH}")
                    }
                    DeadInterface::TlsToPlainHttp => format!("https://{addr}{JSONRPC_PATH}"),
                    DeadInterface::AcceptsThenCloses => {
                        format!("http://{}{JSONRPC_PATH}", closing_loopback_port().await?)
                    }
                };
                let entry =
                    serde_json::json!({"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"});
                interfaces.insert(at, entry);
            }
        }
        if let (Some(tenant), Some(interfaces)) =
            (&self.tenant, card.get_mut("supportedInterfaces").and_then(Value::as_array_mut))
        {
            for interface in interfaces {
                interface["tenant"] = serde_json::json!(tenant);
            }
        }
        let declared = self.extensions.card_entries();
        if !declared.is_empty()
            && let Some(capabilities) = card.get_mut("capabilities").and_then(Value::as_object_mut)
        {
            let entries = capabilities.entry("extensions").or_insert_with(|| Value::Array(Vec::new()));
            if let Some(entries) = entries.as_array_mut() {
                entries.extend(declared);
            }
        }
        if self.script.has_quirk(crate::Quirk::NullForUnsetCardMembers) {
            null_for_unset_members(&mut card, self.protocol);
        }
        let card_bytes = card.to_string().into_bytes();
        let http = push_client()?;
        let card_path = self.card_path.unwrap_or(CardPath::AgentCardJson);
        let shared = Arc::new(Shared {
            protocol: self.protocol,
            behaviour: self.script.behaviour(&acting),
            script: self.script,
            etag: card::etag(&card_bytes),
            card,
            card_bytes,
            card_path,
            started: Instant::now(),
            http,
            state: Mutex::new(AgentState::default()),
            gate: crate::auth::Gate::new(self.guard.clone(), extended_card),
            base_url: base_url.clone(),
            tenant: self.tenant.clone(),
            extensions: self.extensions,
            denies_task_reads: self.card_lies.denies_task_reads,
            serves_v03_rest: self.protocol == Protocol::V0_3 && bindings.contains(&Binding::HttpJson),
            padded_answers: self.padded_answers,
        });
        let app = server::router(Arc::clone(&shared));
        let server = match &self.tls {
            Some(pki) => {
                let client_auth = if matches!(self.guard, Some(Guard::MutualTls)) {
                    ClientAuth::Required
                } else {
                    ClientAuth::None
                };
                let acceptor = pki.acceptor(client_auth)?;
                BackgroundServer::spawn_tls(crate::auth::TlsListener { tcp: listener, acceptor }, app)
            }
            None if matches!(self.guard, Some(Guard::MutualTls)) => {
                return Err(TestkitError::Tls(
                    "a mutual tls guard needs ScriptedAgentBuilder::tls".to_owned(),
                ));
            }
            None => BackgroundServer::spawn(listener, app),
        };
        Ok(RunningAgent { shared, addr, name: self.name, server, _reserved: reserved })
    }
}

/// A started agent. Dropping it stops the server; [`RunningAgent::shutdown`] does so gracefully.
pub struct RunningAgent {
    shared: Arc<Shared>,
    addr: SocketAddr,
    name: String,
    server: BackgroundServer,
    /// The ports of the card's refusing dead interfaces, held while the agent runs.
    _reserved: Vec<tokio::net::TcpSocket>,
}

impl std::fmt::Debug for RunningAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningAgent")
            .field("name", &self.name)
            .field("base_url", &self.base_url())
            .field("protocol", &self.shared.protocol)
            .field("script", &self.shared.script)
            .finish_non_exhaustive()
    }
}

impl RunningAgent {
    /// The card's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The protocol version the agent speaks.
    pub fn protocol(&self) -> Protocol {
        self.shared.protocol
    }

    /// The script the agent follows.
    pub fn script(&self) -> &Script {
        &self.shared.script
    }

    /// The socket address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>` (`https` over TLS), the origin a client discovers the card from.
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The embedded OAuth 2.0 token endpoint (answers only for [`Guard::OAuth2`]).
    pub fn token_url(&self) -> String {
        format!("{}{}", self.base_url(), crate::auth::TOKEN_PATH)
    }

    /// The URL of the card at its (preferred) well-known path.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.base_url(), self.shared.card_path.path())
    }

    /// The JSON-RPC endpoint (`/a2a/jsonrpc`).
    pub fn jsonrpc_url(&self) -> String {
        format!("{}{JSONRPC_PATH}", self.base_url())
    }

    /// The HTTP+JSON base URL (`/a2a/rest`): the 1.0 routes, or for a 0.3 agent whose card lists
    /// HTTP+JSON the 0.3 `/v1` routes below it (other 0.3 agents answer 404 there).
    pub fn rest_url(&self) -> String {
        format!("{}{REST_PATH}", self.base_url())
    }

    /// The gRPC target: the agent's origin, where `lf.a2a.v1.A2AService` is served.
    pub fn grpc_url(&self) -> String {
        self.base_url()
    }

    /// The card exactly as served.
    pub fn card(&self) -> &Value {
        &self.shared.card
    }

    /// How each answer to a JSON-RPC or HTTP+JSON request (and each card) left so far, in the order
    /// the requests arrived: bytes sent, and when the client had all of it or let go.
    pub fn answers(&self) -> Vec<AnswerRecord> {
        self.shared.lock().answers.clone()
    }

    /// Time since the agent started: the clock [`RecordedRequest::at`] and [`AnswerRecord::ended`]
    /// are read on.
    pub(crate) fn since_start(&self) -> Duration {
        self.shared.started.elapsed()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The requests that were the A2A operation `operation` (1.0 name, for example `SendMessage`).
    pub fn requests_for(&self, operation: &str) -> Vec<RecordedRequest> {
        self.shared.lock().requests.iter().filter(|r| r.is(operation)).cloned().collect()
    }

    /// How many tasks the agent started from a message so far: each one a run of the caller's work,
    /// whether it completed, was canceled or is still running. A reply to a task that asked for
    /// input continues that task and is not counted; tasks stored with
    /// [`store_completed_tasks`](Self::store_completed_tasks) are not either. A client that sends
    /// one piece of work twice shows here as two.
    pub fn executions(&self) -> u64 {
        self.shared.lock().executions.values().map(|&count| u64::from(count)).sum()
    }

    /// Stores `count` completed tasks, as if `count` messages had been sent and answered (each task
    /// holds its one user message), for tests that list many tasks without sending them; returns
    /// their ids, oldest first (`ListTasks` answers newest first).
    pub fn store_completed_tasks(&self, count: usize) -> Vec<String> {
        crate::ops::store_completed(&self.shared, count)
    }

    /// [`executions`](Self::executions) by the text of the message that opened each task, to tell
    /// which piece of work ran twice. Also served as JSON at `GET /test/executions`, for a harness
    /// in another process.
    pub fn executions_by_text(&self) -> HashMap<String, u32> {
        self.shared.lock().executions.clone()
    }

    /// Every push callback POSTed so far (none for a silent-push agent), in order.
    pub fn push_callbacks_sent(&self) -> Vec<PushDelivery> {
        self.shared.lock().pushes.clone()
    }

    /// Stops accepting connections and waits up to [`SHUTDOWN_GRACE`] for open streams, then drops them.
    pub async fn shutdown(mut self) {
        self.server.shutdown(SHUTDOWN_GRACE).await;
    }
}
