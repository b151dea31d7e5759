//! Figures 2 and 4: one workload (`SendMessage` round trips or streams read to their end) driven
//! through one client against one or more agents, with a fixed number of calls in flight.
//!
//! Setup is not timed: each agent is discovered and called once, so connections, card caches and
//! code paths are warm. Then the resident set is read (the baseline), its peak reset, and the
//! calls run; the report gives throughput and the peak above the baseline per call in flight,
//! which is the memory one in-flight task costs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_typestate::Capability;
use a2a_typestate_client::negotiate::{Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::task::OnUpdate;
use a2a_typestate_client::{AgentConnection, Client};
use a2a_typestate_types::discovery::ProtocolBinding;
use a2a_typestate_types::{Message, SendMessageRequest, SendMessageResponse, StreamResponse};
use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;

use crate::fixtures::Wire;
use crate::floor::{self, FloorError};
use crate::memory;

/// Which client makes the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// Hand-written `reqwest` + `serde_json::Value` ([`crate::floor`]).
    Floor,
    /// `a2a_typestate_client::AgentConnection`: typed requests and events, bounded SSE, retries.
    Sdk,
    /// The client's engine, as an orchestrator runs a task: `Client::run_task_on` on the same
    /// connection, the card's claims checked as each call exercises them (streaming for streams),
    /// settled, and the outcome's refusals read: the full claim-checking path.
    SdkEngine,
    /// As [`ClientKind::Sdk`], over the agent's GRPC interface (the testkit agent's card lists one).
    SdkGrpc,
    /// Hand-written on `hyper-util` alone, no reqwest ([`crate::floor::send_message_hyper`]).
    FloorHyper,
    /// `a2a-client-lf` 0.2.9, the official Rust SDK's client (reqwest underneath).
    A2aClientLf,
    /// `a2a-protocol-client` 0.15.0 (hyper-util underneath).
    A2aProtocolClient,
    /// The gRPC floor: tonic's generated client called by hand ([`crate::floor::send_message_grpc`]).
    FloorGrpc,
    /// `a2a-protocol-client` 0.15.0 over gRPC (its `GrpcTransport`, tonic underneath).
    A2aProtocolClientGrpc,
    /// As [`ClientKind::Sdk`], sending through a reqwest client of the user's
    /// (`ClientBuilder::http_service` with `ReqwestService`) instead of the built-in hyper-util stack.
    SdkReqwest,
    /// As [`ClientKind::FloorHyper`], over the agent's HTTP+JSON interface (`message:send`,
    /// `message:stream`).
    FloorRest,
    /// As [`ClientKind::Sdk`], over the agent's HTTP+JSON interface.
    SdkRest,
    /// `a2a-client-lf` 0.2.9 over HTTP+JSON (its REST transport, preferred by name).
    A2aClientLfRest,
    /// `a2a-protocol-client` 0.15.0 over HTTP+JSON (its `RestTransport`).
    A2aProtocolClientRest,
    /// As [`ClientKind::FloorHyper`], speaking 0.3 JSON-RPC (`message/send`, `message/stream`) to the
    /// 0.3 face of the agent: the agent's URL with [`crate::agent::V03_PATH`] appended, as the bench
    /// agent serves it.
    FloorV03,
    /// As [`ClientKind::Sdk`], against the same 0.3 face (the SDK reads its 0.3 card and speaks 0.3).
    SdkV03,
}

impl ClientKind {
    /// The name used in reports.
    pub fn label(self) -> &'static str {
        match self {
            ClientKind::Floor => "reqwest + serde_json (hand-written)",
            ClientKind::Sdk => "a2a-client",
            ClientKind::SdkEngine => "a2a-client engine (run_task)",
            ClientKind::SdkGrpc => "a2a-client over gRPC",
            ClientKind::FloorHyper => "hyper-util + serde_json (hand-written)",
            ClientKind::A2aClientLf => "a2a-client-lf 0.2.9",
            ClientKind::A2aProtocolClient => "a2a-protocol-client 0.15.0",
            ClientKind::FloorGrpc => "tonic + prost (hand-written gRPC)",
            ClientKind::A2aProtocolClientGrpc => "a2a-protocol-client 0.15.0 over gRPC",
            ClientKind::SdkReqwest => "a2a-client over reqwest (adapter)",
            ClientKind::FloorRest => "hyper-util + serde_json over HTTP+JSON (hand-written)",
            ClientKind::SdkRest => "a2a-client over HTTP+JSON",
            ClientKind::A2aClientLfRest => "a2a-client-lf 0.2.9 over HTTP+JSON",
            ClientKind::A2aProtocolClientRest => "a2a-protocol-client 0.15.0 over HTTP+JSON",
            ClientKind::FloorV03 => "hyper-util + serde_json over 0.3 JSON-RPC (hand-written)",
            ClientKind::SdkV03 => "a2a-client over 0.3 JSON-RPC",
        }
    }

    /// The agent this client is pointed at, for an agent's base URL: the 0.3 kinds speak to the
    /// bench agent's 0.3 face below it.
    fn agent_url(self, agent: &str) -> String {
        match self {
            ClientKind::FloorV03 | ClientKind::SdkV03 => {
                format!("{}{}", agent.trim_end_matches('/'), crate::agent::V03_PATH)
            }
            _ => agent.to_owned(),
        }
    }
}

/// What each call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// One `SendMessage` round trip.
    Send,
    /// One `SendStreamingMessage`, read to its last event.
    Stream,
}

/// A benchmark run.
#[derive(Debug, Clone)]
pub struct DriveOptions {
    /// The client.
    pub client: ClientKind,
    /// The workload.
    pub workload: Workload,
    /// Agent base URLs; calls go round-robin.
    pub agents: Vec<String>,
    /// Calls in total (not counting the one warm-up call per agent).
    pub requests: usize,
    /// Calls outstanding at any time.
    pub in_flight: usize,
    /// Events each stream must have (0: any); a stream with another count fails the run.
    pub expect_events: usize,
}

/// The figures of a run, printed as one JSON line.
#[derive(Debug, Clone, Serialize)]
pub struct DriveReport {
    /// The client, in words.
    pub client: String,
    /// The workload.
    pub workload: Workload,
    /// Agents called.
    pub agents: usize,
    /// Calls made.
    pub requests: usize,
    /// Calls in flight.
    pub in_flight: usize,
    /// Events received (1 per `SendMessage`).
    pub events: u64,
    /// Wall time of the calls.
    pub seconds: f64,
    /// Calls per second.
    pub requests_per_second: f64,
    /// Events per second.
    pub events_per_second: f64,
    /// Resident set after setup, before the calls (KiB).
    pub baseline_rss_kib: u64,
    /// Peak resident set during the calls (KiB).
    pub peak_rss_kib: u64,
    /// `(peak - baseline) / in_flight` (KiB): what one call in flight costs.
    pub kib_per_in_flight: f64,
    /// Open file descriptors before the calls (after setup: one pooled connection per agent).
    pub open_files_before: usize,
    /// Open file descriptors after the calls: mostly the idle connections the pool kept.
    pub open_files_after: usize,
    /// The most file descriptors open at once during the calls (sampled every 5 ms): the
    /// connections the run held at its busiest, idle or not.
    pub open_files_peak: usize,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriveError {
    /// The options cannot describe a run.
    #[error("invalid options: {0}")]
    Options(String),
    /// The SDK reported an error.
    #[error("a2a-client call failed")]
    Sdk(#[from] a2a_typestate_client::Error),
    /// A hand-written request failed.
    #[error("hand-written call failed")]
    Floor(#[from] FloorError),
    /// `a2a-client-lf` reported an error.
    #[error("a2a-client-lf call failed: {0}")]
    Lf(#[from] a2a_lf::A2AError),
    /// `a2a-protocol-client` reported an error.
    #[error("a2a-protocol-client call failed")]
    Protocol(#[from] a2a_protocol_client::ClientError),
    /// A call succeeded but its outcome was not the one the workload expects.
    #[error("unexpected outcome: {0}")]
    Outcome(String),
}

type LfClient = a2a_client_lf::A2AClient<Box<dyn a2a_client_lf::Transport>>;

/// One agent, ready for calls through the chosen client.
#[derive(Clone)]
enum Target {
    Floor { http: reqwest::Client, jsonrpc_url: String },
    FloorHyper { http: Arc<floor::HyperClient>, uri: hyper::Uri, url: String, wire: Wire },
    Sdk { connection: AgentConnection },
    Engine { client: Client, connection: AgentConnection, negotiation: Arc<Negotiation> },
    Lf { client: Arc<LfClient> },
    Protocol { client: Arc<a2a_protocol_client::A2aClient> },
    FloorGrpc { client: floor::GrpcClient, url: String },
}

/// What a call answered, in the 1.0 JSON shape whichever client read it: the kind of each event
/// (one for `SendMessage`), the last task state seen, the first artifact text. The comparison
/// checks every client gives the same before it times any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// `task`, `message`, `statusUpdate` or `artifactUpdate`, in order.
    pub kinds: Vec<String>,
    /// The last `status.state` seen.
    pub state: String,
    /// The first artifact's first text part.
    pub text: String,
}

impl Answer {
    /// Records one `SendMessage` result or stream event, given as the client's typed value.
    fn record(&mut self, event: &impl Serialize) -> Result<(), DriveError> {
        let value = serde_json::to_value(event).map_err(|e| DriveError::Outcome(e.to_string()))?;
        self.record_value(&value);
        Ok(())
    }

    /// Records a 0.3 result or event (`kind`-tagged, lower-case states) as its 1.0 form would be.
    fn record_v03(&mut self, value: &Value) {
        let kind = match value["kind"].as_str() {
            Some("artifact-update") => "artifactUpdate",
            Some("status-update") => "statusUpdate",
            Some(other) => other,
            None => "(no kind)",
        };
        let mut body = value.clone();
        if let Some(state) = body.pointer_mut("/status/state") {
            let upper = state.as_str().unwrap_or_default().replace('-', "_").to_uppercase();
            *state = Value::String(format!("TASK_STATE_{upper}"));
        }
        self.record_value(&serde_json::json!({ kind: body }));
    }

    fn record_value(&mut self, value: &Value) {
        let Some((kind, body)) = value.as_object().and_then(|o| o.iter().next()) else {
            self.kinds.push(format!("(not an object: {value})"));
            return;
        };
        self.kinds.push(kind.clone());
        if let Some(state) = body.pointer("/status/state").and_then(Value::as_str) {
            self.state = state.to_owned();
        }
        let artifact = body.pointer("/artifacts/0").or_else(|| body.get("artifact"));
        if self.text.is_empty()
            && let Some(text) = artifact.and_then(|a| a.pointer("/parts/0/text")).and_then(Value::as_str)
        {
            self.text = text.to_owned();
        }
    }
}

fn jsonrpc_url_of(card: &Value, card_url: &str) -> Result<String, DriveError> {
    interface_url_of(card, card_url, "JSONRPC")
}

fn interface_url_of(card: &Value, card_url: &str, binding: &str) -> Result<String, DriveError> {
    card["supportedInterfaces"]
        .as_array()
        .and_then(|list| list.iter().find(|i| i["protocolBinding"] == binding))
        .and_then(|i| i["url"].as_str())
        .map(str::to_owned)
        .ok_or_else(|| DriveError::Outcome(format!("{card_url} offers no {binding} interface")))
}

async fn target(
    client: ClientKind,
    workload: Workload,
    sdk: &Client,
    http: &reqwest::Client,
    agent: &str,
) -> Result<Target, DriveError> {
    match client {
        ClientKind::Floor => {
            let (card, card_url) = fetch_card(http, agent).await?;
            Ok(Target::Floor { http: http.clone(), jsonrpc_url: jsonrpc_url_of(&card, &card_url)? })
        }
        ClientKind::FloorHyper | ClientKind::FloorRest | ClientKind::FloorV03 => {
            let (card, card_url) = fetch_card(http, &client.agent_url(agent)).await?;
            let (url, wire) = match client {
                ClientKind::FloorRest => {
                    let route = match workload {
                        Workload::Send => "message:send",
                        Workload::Stream => "message:stream",
                    };
                    let rest = interface_url_of(&card, &card_url, "HTTP+JSON")?;
                    (format!("{}/{route}", rest.trim_end_matches('/')), Wire::HttpJson)
                }
                ClientKind::FloorV03 => {
                    let url = card["url"]
                        .as_str()
                        .ok_or_else(|| DriveError::Outcome(format!("{card_url} has no 0.3 url")))?;
                    (url.to_owned(), Wire::JsonRpcV03)
                }
                _ => (jsonrpc_url_of(&card, &card_url)?, Wire::JsonRpc),
            };
            let uri = url.parse().map_err(|e| DriveError::Outcome(format!("{url} is not a URI: {e}")))?;
            Ok(Target::FloorHyper { http: Arc::new(floor::hyper_client()), uri, url, wire })
        }
        ClientKind::A2aClientLfRest => {
            let card = a2a_client_lf::agent_card::AgentCardResolver::new(None).resolve(agent).await?;
            let client = a2a_client_lf::A2AClientFactory::builder()
                .preferred_bindings(vec!["HTTP+JSON".to_owned()])
                .build()
                .create_from_card(&card)
                .await?;
            Ok(Target::Lf { client: Arc::new(client) })
        }
        ClientKind::A2aProtocolClientRest => {
            let (card, card_url) = fetch_card(http, agent).await?;
            let url = interface_url_of(&card, &card_url, "HTTP+JSON")?;
            let transport = a2a_protocol_client::transport::rest::RestTransport::new(url.clone())?;
            let client =
                a2a_protocol_client::ClientBuilder::new(url).with_custom_transport(transport).build()?;
            Ok(Target::Protocol { client: Arc::new(client) })
        }
        ClientKind::SdkRest => {
            Ok(Target::Sdk { connection: sdk_over(sdk, agent, ProtocolBinding::HttpJson).await? })
        }
        ClientKind::SdkV03 => Ok(Target::Sdk { connection: sdk.connect(&client.agent_url(agent)).await? }),
        ClientKind::A2aClientLf => {
            let card = a2a_client_lf::agent_card::AgentCardResolver::new(None).resolve(agent).await?;
            let client = a2a_client_lf::A2AClientFactory::builder().build().create_from_card(&card).await?;
            Ok(Target::Lf { client: Arc::new(client) })
        }
        ClientKind::A2aProtocolClient => {
            let card = a2a_protocol_client::resolve_agent_card(agent).await?;
            let client = a2a_protocol_client::A2aClient::from_card(&card)?;
            Ok(Target::Protocol { client: Arc::new(client) })
        }
        ClientKind::FloorGrpc | ClientKind::A2aProtocolClientGrpc => {
            let (card, card_url) = fetch_card(http, agent).await?;
            let url = interface_url_of(&card, &card_url, "GRPC")?;
            if client == ClientKind::FloorGrpc {
                return Ok(Target::FloorGrpc { client: floor::grpc_client(&url).await?, url });
            }
            let transport = a2a_protocol_client::transport::grpc::GrpcTransport::connect(url.clone()).await?;
            let client =
                a2a_protocol_client::ClientBuilder::new(url).with_custom_transport(transport).build()?;
            Ok(Target::Protocol { client: Arc::new(client) })
        }
        ClientKind::Sdk => Ok(Target::Sdk { connection: sdk.connect(agent).await? }),
        ClientKind::SdkReqwest => {
            // Redirects left to the SDK, as the adapter asks; the floor's settings otherwise.
            let reqwest =
                build_reqwest(reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()))?;
            let sdk = Client::builder()
                .http_service(a2a_typestate_client::net::ReqwestService::new(reqwest))
                .build()?;
            Ok(Target::Sdk { connection: sdk.connect(agent).await? })
        }
        ClientKind::SdkEngine => {
            let connection = sdk.connect(agent).await?;
            let depends: &[Capability] = match workload {
                Workload::Send => &[],
                Workload::Stream => &[Capability::Streaming],
            };
            let negotiation = Arc::new(Negotiation::depending_on(depends));
            Ok(Target::Engine { client: sdk.clone(), connection, negotiation })
        }
        ClientKind::SdkGrpc => {
            Ok(Target::Sdk { connection: sdk_over(sdk, agent, ProtocolBinding::Grpc).await? })
        }
    }
}

/// The card of the agent at base URL `agent`, read by hand from its well-known path (the floors'
/// and the rivals' discovery), with the URL it was read from.
async fn fetch_card(http: &reqwest::Client, agent: &str) -> Result<(Value, String), DriveError> {
    let card_url = format!("{}/.well-known/agent-card.json", agent.trim_end_matches('/'));
    let http_err = |source| FloorError::Http { url: card_url.clone(), source };
    let card = http.get(&card_url).send().await.map_err(http_err)?.json().await.map_err(http_err)?;
    Ok((card, card_url))
}

/// An SDK connection over the agent's interface of `binding` (which the SDK would not pick first).
async fn sdk_over(
    sdk: &Client,
    agent: &str,
    binding: ProtocolBinding,
) -> Result<AgentConnection, DriveError> {
    let base = a2a_typestate_client::AgentBaseUrl::parse(agent)?;
    let card = sdk.discover_agent(&base).await?;
    let interface = card
        .offered_interfaces()
        .map_err(|e| DriveError::Outcome(format!("{agent}: {e}")))?
        .iter()
        .find(|i| i.binding == binding)
        .cloned()
        .ok_or_else(|| DriveError::Outcome(format!("{agent} offers no {binding:?} interface")))?;
    Ok(AgentConnection::open(sdk, base, card, interface)?)
}

fn request() -> SendMessageRequest {
    SendMessageRequest::new(Message::user("bench"))
}

/// Checks what the engine's run ended in (negotiated, nothing refused, completed) and returns the
/// events it counted: one for a `SendMessage`, each stream event the run read (`streamed`, their
/// kinds in arrival order) for a stream. With `answer`, records the run as the other clients record
/// their answers: the result the engine put together and the kinds of the events it read.
fn engine_outcome(
    outcome: &TaskOutcome,
    workload: Workload,
    streamed: &[&'static str],
    answer: Option<&mut Answer>,
) -> Result<u64, DriveError> {
    if outcome.path != TaskPath::Negotiated || outcome.refusal.is_some() {
        return Err(DriveError::Outcome(format!("the engine did not verify the card: {outcome}")));
    }
    match &outcome.result {
        SendMessageResponse::Task(task) => completed(task.status.state.as_str())?,
        SendMessageResponse::Message(_) => return Err(DriveError::Outcome("answered a message".into())),
    }
    if let Some(answer) = answer {
        match workload {
            Workload::Send => answer.record(&outcome.result)?,
            Workload::Stream => {
                let result =
                    serde_json::to_value(&outcome.result).map_err(|e| DriveError::Outcome(e.to_string()))?;
                answer.record_value(&result);
                answer.kinds = streamed.iter().map(|kind| (*kind).to_owned()).collect();
            }
        }
    }
    Ok(match workload {
        Workload::Send => 1,
        Workload::Stream => streamed.len() as u64,
    })
}

fn completed(state: &str) -> Result<(), DriveError> {
    if state == "TASK_STATE_COMPLETED" {
        Ok(())
    } else {
        Err(DriveError::Outcome(format!("task ended {state}")))
    }
}

/// One call; returns the events it received. With `answer`, records what the call answered (for
/// the correctness check; off while timing).
async fn call(
    target: &Target,
    workload: Workload,
    expect_events: usize,
    mut answer: Option<&mut Answer>,
) -> Result<u64, DriveError> {
    let events = match (target, workload) {
        (Target::Floor { http, jsonrpc_url }, Workload::Send) => {
            let result = floor::send_message(http, jsonrpc_url, "bench").await?;
            completed(result["task"]["status"]["state"].as_str().unwrap_or_default())?;
            if let Some(answer) = answer {
                answer.record_value(&result);
            }
            1
        }
        (Target::FloorHyper { http, uri, url, wire }, Workload::Send) => {
            let result = floor::send_message_hyper(http, uri, url, *wire, "bench").await?;
            if *wire == Wire::JsonRpcV03 {
                if result["status"]["state"] != "completed" {
                    return Err(DriveError::Outcome(format!("task ended {}", result["status"]["state"])));
                }
                if let Some(answer) = answer {
                    answer.record_v03(&result);
                }
            } else {
                completed(result["task"]["status"]["state"].as_str().unwrap_or_default())?;
                if let Some(answer) = answer {
                    answer.record_value(&result);
                }
            }
            1
        }
        (Target::Floor { http, jsonrpc_url }, Workload::Stream) => {
            let on_event = |event: &Value| {
                if let Some(answer) = answer.as_deref_mut() {
                    answer.record_value(event);
                }
            };
            floor::send_streaming_message(http, jsonrpc_url, "bench", on_event).await? as u64
        }
        (Target::FloorHyper { http, uri, url, wire }, Workload::Stream) => {
            let on_event = |event: &Value| {
                if let Some(answer) = answer.as_deref_mut() {
                    if *wire == Wire::JsonRpcV03 {
                        answer.record_v03(event)
                    } else {
                        answer.record_value(event)
                    }
                }
            };
            floor::send_streaming_message_hyper(http, uri, url, *wire, "bench", on_event).await? as u64
        }
        (Target::FloorGrpc { client, url }, Workload::Send) => {
            let response = floor::send_message_grpc(client, url, "bench").await?;
            let value = serde_json::to_value(&response).map_err(|e| DriveError::Outcome(e.to_string()))?;
            completed(value["task"]["status"]["state"].as_str().unwrap_or_default())?;
            if let Some(answer) = answer {
                answer.record_value(&value);
            }
            1
        }
        (Target::FloorGrpc { client, url }, Workload::Stream) => {
            let on_event = |event: &a2a_proto::v1::StreamResponse| {
                if let Some(answer) = answer.as_deref_mut()
                    && let Ok(value) = serde_json::to_value(event)
                {
                    answer.record_value(&value);
                }
            };
            floor::send_streaming_message_grpc(client, url, "bench", on_event).await? as u64
        }
        (Target::Sdk { connection }, Workload::Send) => {
            let response = connection.send_message(request()).await?;
            match &response {
                SendMessageResponse::Task(task) => completed(task.status.state.as_str())?,
                SendMessageResponse::Message(_) => {
                    return Err(DriveError::Outcome("answered a message".into()));
                }
            }
            if let Some(answer) = answer {
                answer.record(&response)?;
            }
            1
        }
        (Target::Sdk { connection }, Workload::Stream) => {
            let mut stream = connection.send_streaming_message(request()).await?;
            let mut events = 0u64;
            while let Some(event) = stream.next().await {
                let event: StreamResponse = event?;
                if let Some(answer) = answer.as_deref_mut() {
                    answer.record(&event)?;
                }
                events += 1;
            }
            events
        }
        (Target::Engine { client, connection, negotiation }, Workload::Send) => {
            let outcome = client.run_task_on(connection, Message::user("bench"), negotiation).await?;
            engine_outcome(&outcome, workload, &[], answer)?
        }
        (Target::Engine { client, connection, negotiation }, Workload::Stream) => {
            // Each event as the run reads it: the verifier keeps no repeat of the last observation,
            // so its observations are not a count of what the stream carried.
            let streamed = Arc::new(std::sync::Mutex::new(Vec::with_capacity(expect_events)));
            let seen = Arc::clone(&streamed);
            let negotiation = Negotiation::clone(negotiation).on_update(OnUpdate::new(move |event| {
                let kind = match event {
                    StreamResponse::Task(_) => "task",
                    StreamResponse::Message(_) => "message",
                    StreamResponse::StatusUpdate(_) => "statusUpdate",
                    StreamResponse::ArtifactUpdate(_) => "artifactUpdate",
                };
                seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(kind);
            }));
            let outcome = client.run_task_on(connection, Message::user("bench"), &negotiation).await?;
            let streamed =
                std::mem::take(&mut *streamed.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
            engine_outcome(&outcome, workload, &streamed, answer)?
        }
        (Target::Lf { client }, Workload::Send) => {
            let message = a2a_lf::Message::new(a2a_lf::Role::User, vec![a2a_lf::Part::text("bench")]);
            let req =
                a2a_lf::SendMessageRequest { message, configuration: None, metadata: None, tenant: None };
            let response = client.send_message(&req).await?;
            match &response {
                a2a_lf::SendMessageResponse::Task(task) => {
                    if task.status.state != a2a_lf::TaskState::Completed {
                        return Err(DriveError::Outcome(format!("task ended {:?}", task.status.state)));
                    }
                }
                a2a_lf::SendMessageResponse::Message(_) => {
                    return Err(DriveError::Outcome("answered a message".into()));
                }
            }
            if let Some(answer) = answer {
                answer.record(&response)?;
            }
            1
        }
        (Target::Lf { client }, Workload::Stream) => {
            let message = a2a_lf::Message::new(a2a_lf::Role::User, vec![a2a_lf::Part::text("bench")]);
            let req =
                a2a_lf::SendMessageRequest { message, configuration: None, metadata: None, tenant: None };
            let mut stream = client.send_streaming_message(&req).await?;
            let mut events = 0u64;
            while let Some(event) = stream.next().await {
                let event = event?;
                if let Some(answer) = answer.as_deref_mut() {
                    answer.record(&event)?;
                }
                events += 1;
            }
            events
        }
        (Target::Protocol { client }, Workload::Send) => {
            use a2a_protocol_types::message::Message as PMessage;
            let message = PMessage::user_text(uuid::Uuid::new_v4().to_string(), "bench");
            let params = a2a_protocol_types::params::MessageSendParams::new(message);
            let response = client.send_message(params).await?;
            match &response {
                a2a_protocol_types::responses::SendMessageResponse::Task(task) => {
                    if task.status.state != a2a_protocol_types::task::TaskState::Completed {
                        return Err(DriveError::Outcome(format!("task ended {:?}", task.status.state)));
                    }
                }
                _ => return Err(DriveError::Outcome("answered a message".into())),
            }
            if let Some(answer) = answer {
                answer.record(&response)?;
            }
            1
        }
        (Target::Protocol { client }, Workload::Stream) => {
            use a2a_protocol_types::message::Message as PMessage;
            let message = PMessage::user_text(uuid::Uuid::new_v4().to_string(), "bench");
            let params = a2a_protocol_types::params::MessageSendParams::new(message);
            let mut stream = client.stream_message(params).await?;
            let mut events = 0u64;
            while let Some(event) = stream.next().await {
                let event = event?;
                if let Some(answer) = answer.as_deref_mut() {
                    answer.record(&event)?;
                }
                events += 1;
            }
            events
        }
    };
    if workload == Workload::Stream && expect_events > 0 && events != expect_events as u64 {
        return Err(DriveError::Outcome(format!(
            "stream ended after {events} events, expected {expect_events}"
        )));
    }
    Ok(events)
}

/// The reqwest client of the hand-written floor: the settings the SDK's client is built with
/// (connect timeout), and no proxy on loopback.
fn floor_http() -> Result<reqwest::Client, DriveError> {
    build_reqwest(reqwest::Client::builder())
}

/// `builder` with the floor's settings (connect timeout, no proxy on loopback), built.
fn build_reqwest(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, DriveError> {
    builder
        .connect_timeout(Duration::from_secs(10))
        .no_proxy()
        .build()
        .map_err(|source| DriveError::Floor(FloorError::Http { url: String::new(), source }))
}

/// Discovers every agent through `client` and makes one warm-up call to each.
async fn targets(
    client: ClientKind,
    agents: &[String],
    workload: Workload,
    expect: usize,
) -> Result<Arc<Vec<Target>>, DriveError> {
    let http = floor_http()?;
    let sdk = Client::builder().build()?;
    let mut targets = Vec::with_capacity(agents.len());
    for agent in agents {
        let target = target(client, workload, &sdk, &http, agent).await?;
        call(&target, workload, expect, None).await?;
        targets.push(target);
    }
    Ok(Arc::new(targets))
}

/// Makes `requests` calls, round-robin over `targets`, `in_flight` at a time; returns the wall
/// time and the events received.
async fn run_calls(
    targets: &Arc<Vec<Target>>,
    workload: Workload,
    expect: usize,
    requests: usize,
    in_flight: usize,
) -> Result<(f64, u64), DriveError> {
    let next = Arc::new(AtomicUsize::new(0));
    let events = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..in_flight)
        .map(|_| {
            let (targets, next, events) = (targets.clone(), next.clone(), events.clone());
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= requests {
                        return Ok::<(), DriveError>(());
                    }
                    let Some(target) = targets.get(n % targets.len()) else { return Ok(()) };
                    events.fetch_add(call(target, workload, expect, None).await?, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for worker in futures::future::join_all(workers).await {
        worker.map_err(|e| DriveError::Outcome(format!("a worker task failed: {e}")))??;
    }
    Ok((started.elapsed().as_secs_f64(), events.load(Ordering::Relaxed)))
}

/// Runs `options` and reports the figures.
///
/// # Errors
///
/// [`DriveError`] at the first failed call: a benchmark of failing calls would measure nothing.
pub async fn drive(options: &DriveOptions) -> Result<DriveReport, DriveError> {
    if options.agents.is_empty() || options.requests == 0 || options.in_flight == 0 {
        return Err(DriveError::Options(
            "need at least one agent, one request and one call in flight".into(),
        ));
    }
    let targets = targets(options.client, &options.agents, options.workload, options.expect_events).await?;
    let open_files_before = memory::open_files().unwrap_or_default();
    let baseline = memory::resident().unwrap_or_default();
    memory::reset_peak();
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = tokio::spawn({
        let sampling = Arc::clone(&sampling);
        async move {
            let mut most = 0;
            while sampling.load(Ordering::Relaxed) {
                most = most.max(memory::open_files().unwrap_or_default());
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            most
        }
    });
    let (seconds, events) =
        run_calls(&targets, options.workload, options.expect_events, options.requests, options.in_flight)
            .await?;
    sampling.store(false, Ordering::Relaxed);
    let open_files_peak = sampler.await.unwrap_or_default();
    let peak = memory::resident().unwrap_or_default().peak_kib;
    let open_files_after = memory::open_files().unwrap_or_default();
    Ok(DriveReport {
        client: options.client.label().to_owned(),
        workload: options.workload,
        agents: options.agents.len(),
        requests: options.requests,
        in_flight: options.in_flight,
        events,
        seconds,
        requests_per_second: options.requests as f64 / seconds,
        events_per_second: events as f64 / seconds,
        baseline_rss_kib: baseline.current_kib,
        peak_rss_kib: peak,
        kib_per_in_flight: peak.saturating_sub(baseline.current_kib) as f64 / options.in_flight as f64,
        open_files_before,
        open_files_after,
        open_files_peak,
    })
}

/// An interleaved comparison: the clients take turns, one block of calls each, round after round
/// (the order rotating), so that a busy minute on the machine slows them all alike.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The clients compared; the first is the reference the ratios are taken against.
    pub clients: Vec<ClientKind>,
    /// The workload.
    pub workload: Workload,
    /// Agent base URLs.
    pub agents: Vec<String>,
    /// Rounds.
    pub rounds: usize,
    /// Calls per client per round.
    pub block: usize,
    /// Calls in flight.
    pub in_flight: usize,
    /// Events each stream must have (0: any).
    pub expect_events: usize,
}

/// One client's totals in a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    /// The client, in words.
    pub client: String,
    /// Calls made (all rounds).
    pub requests: usize,
    /// Events received.
    pub events: u64,
    /// Time spent in this client's blocks.
    pub seconds: f64,
    /// Calls per second over its blocks.
    pub requests_per_second: f64,
    /// Events per second over its blocks.
    pub events_per_second: f64,
    /// Throughput relative to the first client.
    pub ratio: f64,
    /// The lowest and highest per-round ratio to the first client: the spread the noise left.
    pub ratio_range: (f64, f64),
    /// This process's CPU time over the client's blocks per call (µs): the client's own CPU
    /// when the agent runs in another process (`a2a-bench serve`).
    pub cpu_us_per_call: f64,
    /// The same per event received.
    pub cpu_us_per_event: f64,
}

/// The result of [`compare`], printed as one JSON line.
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    /// The workload.
    pub workload: Workload,
    /// Calls in flight.
    pub in_flight: usize,
    /// Rounds run.
    pub rounds: usize,
    /// One row per client, the reference first.
    pub clients: Vec<CompareRow>,
    /// What every client answered to the check call before timing (the same for all, or the run
    /// fails).
    pub checked: Answer,
}

/// Runs an interleaved comparison.
///
/// # Errors
///
/// [`DriveError`] at the first failed call.
pub async fn compare(options: &CompareOptions) -> Result<CompareReport, DriveError> {
    if options.clients.is_empty() || options.agents.is_empty() || options.rounds == 0 || options.block == 0 {
        return Err(DriveError::Options("need clients, agents, rounds and a block size".into()));
    }
    let (workload, expect) = (options.workload, options.expect_events);
    let mut prepared = Vec::with_capacity(options.clients.len());
    for client in &options.clients {
        prepared.push(targets(*client, &options.agents, workload, expect).await?);
    }
    let checked = check_answers(&options.clients, &prepared, workload, expect).await?;
    let n = prepared.len();
    let mut totals = vec![(0.0f64, 0u64, 0u64); n];
    let mut per_round = vec![Vec::with_capacity(options.rounds); n];
    for round in 0..options.rounds {
        for turn in 0..n {
            let which = (round + turn) % n;
            let Some(targets) = prepared.get(which) else { continue };
            let cpu_before = memory::cpu_ns().unwrap_or_default();
            let (seconds, events) =
                run_calls(targets, workload, expect, options.block, options.in_flight).await?;
            let cpu = memory::cpu_ns().unwrap_or_default().saturating_sub(cpu_before);
            if let (Some(total), Some(rounds)) = (totals.get_mut(which), per_round.get_mut(which)) {
                total.0 += seconds;
                total.1 += events;
                total.2 += cpu;
                rounds.push(seconds);
            }
        }
    }
    let requests = options.rounds * options.block;
    let reference = totals.first().map_or(1.0, |t| t.0);
    let reference_rounds = per_round.first().cloned().unwrap_or_default();
    let clients = options
        .clients
        .iter()
        .zip(totals.iter().zip(&per_round))
        .map(|(client, ((seconds, events, cpu_ns), rounds))| {
            let ratios = reference_rounds.iter().zip(rounds).map(|(r, s)| r / s);
            let ratio_range = ratios.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
            CompareRow {
                client: client.label().to_owned(),
                requests,
                events: *events,
                seconds: *seconds,
                requests_per_second: requests as f64 / seconds,
                events_per_second: *events as f64 / seconds,
                ratio: reference / seconds,
                ratio_range,
                cpu_us_per_call: *cpu_ns as f64 / 1e3 / requests as f64,
                cpu_us_per_event: *cpu_ns as f64 / 1e3 / (*events).max(1) as f64,
            }
        })
        .collect();
    Ok(CompareReport { workload, in_flight: options.in_flight, rounds: options.rounds, clients, checked })
}

/// One call through each client to the first agent, recording what it answered; every client must
/// answer what the first did, and the answer must be a completed task (streams: a task snapshot
/// first, the completed status last).
async fn check_answers(
    clients: &[ClientKind],
    prepared: &[Arc<Vec<Target>>],
    workload: Workload,
    expect: usize,
) -> Result<Answer, DriveError> {
    let mut reference: Option<Answer> = None;
    for (client, targets) in clients.iter().zip(prepared) {
        let Some(target) = targets.first() else { continue };
        let mut answer = Answer::default();
        call(target, workload, expect, Some(&mut answer)).await?;
        let well_formed = answer.state == "TASK_STATE_COMPLETED"
            && answer.kinds.first().map(String::as_str) == Some("task")
            && (workload == Workload::Send
                || answer.kinds.last().map(String::as_str) == Some("statusUpdate"));
        if !well_formed {
            return Err(DriveError::Outcome(format!("{} answered {answer:?}", client.label())));
        }
        match &reference {
            None => reference = Some(answer),
            Some(first) if *first == answer => {}
            Some(first) => {
                return Err(DriveError::Outcome(format!(
                    "{} answered {answer:?}, unlike the first client's {first:?}",
                    client.label()
                )));
            }
        }
    }
    Ok(reference.unwrap_or_default())
}
