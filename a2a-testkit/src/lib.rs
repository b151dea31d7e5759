//! Scripted A2A agents that behave or misbehave on purpose, and a harness for the official SDK servers.
//!
//! A [`ScriptedAgent`] is a real A2A server (axum, in-process, on `127.0.0.1` with a free port). It
//! serves an Agent Card and both bindings (JSON-RPC at `/a2a/jsonrpc`, HTTP+JSON under `/a2a/rest`),
//! speaks A2A 1.0 or 0.3, streams with SSE, keeps tasks with history, and POSTs push callbacks. Its
//! behaviour is a [`Script`]: honest by default, with each [`Lie`] (a card claim the agent does not
//! honour) and each [`Fault`] (a transport problem) switchable on its own. It records what it
//! received, so a test can assert on requests, for example that a refused task was not retried.
//!
//! The wire JSON is written here with `serde_json` from the specification and the official servers'
//! transcripts, independently of the `a2a-types` crate, so a bug in those types cannot cancel itself
//! out in tests.
//!
//! # Example
//!
//! An agent whose card claims `stateTransitionHistory` but whose tasks come back without history:
//!
//! ```
//! use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
//! use serde_json::{Value, json};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = ScriptedAgent::builder()
//!     .name("forgetful")
//!     .capabilities(Capabilities::none().with_streaming())
//!     .script(Script::honest().with(Lie::EmptyHistory))
//!     .spawn()
//!     .await?;
//!
//! let http = reqwest::Client::builder().no_proxy().build()?;
//! let card: Value = http.get(agent.card_url()).send().await?.json().await?;
//! assert_eq!(card["capabilities"]["stateTransitionHistory"], true);
//!
//! let sent: Value = http
//!     .post(agent.jsonrpc_url())
//!     .header("A2A-Version", "1.0")
//!     .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
//!         "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}))
//!     .send()
//!     .await?
//!     .json()
//!     .await?;
//! assert_eq!(sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
//! assert!(sent["result"]["task"].get("history").is_none());
//! assert_eq!(agent.requests_for("SendMessage").len(), 1);
//! agent.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # What an agent does
//!
//! - **Card** at `/.well-known/agent-card.json` or the 0.2/0.3 `/.well-known/agent.json`
//!   ([`CardPath`]), with a weak `ETag` and `Cache-Control: public, max-age=60`; `If-None-Match`
//!   gets `304`. A 1.0 card has `supportedInterfaces` for both bindings; a 0.3 card has `url`,
//!   `preferredTransport` and `stateTransitionHistory`.
//! - **Version**: a 1.0 agent requires `A2A-Version: 1.0` (header or query) and answers `-32009`
//!   (HTTP+JSON: `400 FAILED_PRECONDITION`) otherwise; a 0.3 agent ignores the header.
//! - **Lifecycle** of a new task: `submitted` (the Task), `working`, then either `input-required`
//!   (when the script asks for clarification) or an artifact `echo: <text>` and `completed` with
//!   the message `done`. A reply to `input-required` plays `working`, artifact, `completed`. Each
//!   step waits [`Script::step_delay`] (default [`DEFAULT_STEP_DELAY`]). Streams close at
//!   `input-required` and at terminal states. `SendMessage` blocks until then unless
//!   `returnImmediately` (0.3: `blocking: false`) is set.
//! - **Operations**: `SendMessage`, `SendStreamingMessage`, `GetTask` (honours `historyLength`),
//!   `ListTasks` (1.0 only; pages of `pageSize` tasks, 50 by default, newest first; seed many tasks
//!   with [`RunningAgent::store_completed_tasks`]), `CancelTask`, `SubscribeToTask` (first event: the Task snapshot),
//!   the four push-config operations; `GetExtendedAgentCard` answers `-32004` unless the agent
//!   has an extended card ([`ScriptedAgentBuilder::extended_card`]).
//! - **Credentials** ([`auth`]): an agent may require a bearer token, an API key in a header,
//!   query or cookie, HTTP basic, an OAuth 2.0 token from its own token endpoint, or a client
//!   certificate ([`Guard`]); without them it answers 401.
//! - **Push**: one POST per event to every config of the task; the body is the StreamResponse (1.0)
//!   or the Task (0.3), with `Authorization: <scheme> <credentials>` when the config has
//!   `authentication` and `X-A2A-Notification-Token` when it has a `token`.
//! - **Quirks** ([`Quirk`], [`Script::quirk`]): ways deployed agents write or handle the protocol
//!   unlike the spec while their card stays true: 0.3-shaped events after the first on a 1.0
//!   stream, inline push configs accepted and dropped, webhook URLs on loopback or private
//!   addresses refused with `-32602`, a `ListTasks` page token named again as the next one, every
//!   operation but the stream answered with a plain-text HTTP error. A client should read them,
//!   not refuse the card.
//! - **Capability checks** like the official servers: streaming methods answer `-32004` as plain
//!   JSON when the agent does not stream; push-config methods answer `-32003` without push.
//!
//! # Poll-cadence extension
//!
//! A card may tell clients how often to poll a non-streaming agent, with an `AgentExtension` in
//! `capabilities.extensions`: `{"uri": "https://a2a-rs.dev/ext/poll-cadence/v1", "params":
//! {"intervalMs": N}}` ([`POLL_CADENCE_EXTENSION_URI`], set with [`Capabilities::with_poll_cadence`]).
//! This is this SDK's convention, not part of A2A.
//!
//! # Gateways
//!
//! [`Lie::Gateway`] serves a card that describes the gateway while the tasks follow a backend
//! with other capabilities. By default the card does not say it is a gateway's: that is the
//! common case, and the one a client can only handle with its own knowledge of the deployment.
//! A gateway that does say so carries `{"uri": "https://a2a-rs.dev/ext/gateway/v1"}` in
//! `capabilities.extensions` ([`GATEWAY_EXTENSION_URI`], set with
//! [`Capabilities::with_gateway_extension`]), and a client reading it lifts no claims from the
//! card. Also this SDK's convention, not part of A2A.
//!
//! # Testing your own orchestrator
//!
//! Nothing here depends on this project's client: point any A2A client or orchestrator at
//! [`RunningAgent::base_url`] (or [`RunningAgent::card_url`]) and assert on what the agent
//! received. Each [`Lie`] breaks one rule of the design note your code should apply
//! (refuse, do not retry the task, fall back to one plain `SendMessage`); each [`Fault`] is one it
//! should retry and never refuse on. [`fleet::demo_fleet`] starts thirteen labelled agents at once;
//! [`conformance::ConformanceFleet`] starts twelve and grades whatever client was pointed at them.
//!
//! ```
//! use a2a_testkit::{Lie, Script, ScriptedAgent};
//! use serde_json::{Value, json};
//!
//! /// Stand-in for the code under test: stream if the card says so, else (or on refusal) send once.
//! async fn my_orchestrator(base_url: &str) -> Result<Value, reqwest::Error> {
//!     let http = reqwest::Client::builder().no_proxy().build()?;
//!     let card_url = format!("{base_url}/.well-known/agent-card.json");
//!     let card: Value = http.get(card_url).send().await?.json().await?;
//!     let endpoint = card["supportedInterfaces"][0]["url"].as_str().unwrap_or_default().to_owned();
//!     let call = |method: &str, id: &str| {
//!         http.post(&endpoint).header("A2A-Version", "1.0").json(&json!({
//!             "jsonrpc": "2.0", "id": 1, "method": method, "params": {"message":
//!                 {"messageId": id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}))
//!     };
//!     if card["capabilities"]["streaming"] == true {
//!         let response = call("SendStreamingMessage", "m-1").send().await?;
//!         let content_type = response.headers()["content-type"].to_str().unwrap_or_default();
//!         let refused = content_type.starts_with("application/json"); // a -32004 error, not SSE
//!         if !refused {
//!             return Ok(json!({"streamed": response.text().await?}));
//!         }
//!     }
//!     call("SendMessage", "m-2").send().await?.json().await
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let liar = ScriptedAgent::builder().script(Script::honest().with(Lie::StreamingRefused)).spawn().await?;
//! let outcome = my_orchestrator(&liar.base_url()).await?;
//! assert_eq!(outcome["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
//! // The refused stream was not retried, and the fallback was one single-shot send.
//! assert_eq!(liar.requests_for("SendStreamingMessage").len(), 1);
//! assert_eq!(liar.requests_for("SendMessage").len(), 1);
//! // The stream was refused before a task existed: the work ran once.
//! assert_eq!(liar.executions(), 1);
//! # Ok(())
//! # }
//! ```
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

mod agent;
pub mod auth;
mod background;
mod card;
pub mod conformance;
mod extensions;
pub mod fleet;
pub mod frameworks;
mod lifecycle;
pub mod official;
mod ops;
mod proto_v03;
mod query;
mod record;
mod script;
mod server;
mod store;
mod stream;
mod webhook;
mod wire;

pub use agent::{
    DeadInterface, RETIRED_INTERFACE_PATH, RunningAgent, SHUTDOWN_GRACE, ScriptedAgent, ScriptedAgentBuilder,
    hung_agent,
};
pub use auth::{Guard, KeyLocation, OAuth2Guard, TestPki};
pub use card::Binding;
pub use record::{PushDelivery, RecordedRequest};
pub use script::{
    Capabilities, CardPath, Clarify, DEFAULT_STEP_DELAY, Fault, GATEWAY_EXTENSION_URI, Lie, Misaddress,
    POLL_CADENCE_EXTENSION_URI, Protocol, PushTiming, Quirk, Script, Stall, Times,
};
pub use webhook::{ReceivedCallback, WebhookReceiver};

/// Why a scripted agent or webhook receiver could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestkitError {
    /// No loopback port could be bound.
    #[error("cannot bind a listener on 127.0.0.1")]
    Bind(#[source] std::io::Error),
    /// The HTTP client that POSTs push callbacks could not be built.
    #[error("cannot build the http client for push callbacks")]
    HttpClient(#[source] reqwest::Error),
    /// TLS material could not be generated or loaded, or a guard needs TLS that was not set.
    #[error("tls setup failed: {0}")]
    Tls(String),
}
