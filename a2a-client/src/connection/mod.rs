//! [`AgentConnection`]: one agent, one selected interface, every A2A operation on it.
//!
//! [`Client::connect`] discovers the card (through the cache) and selects the interface to use:
//! protocol 1.0 before 0.3, then the card's order, among JSON-RPC and HTTP+JSON. Whatever the agent
//! speaks, callers use the 1.0 types; a 0.3 agent's requests and results are converted, and what a
//! conversion loses is logged and counted ([`AgentConnection::conversion_losses`]).
//!
//! gRPC is spoken for 1.0 with the `grpc` feature, in the card's order like the other two; 0.3 over
//! JSON-RPC and over HTTP+JSON (its `/v1` routes, as BeeAI serves them). Not spoken: 0.3 over gRPC.
//! A card offering only interfaces this client does not speak is a [`crate::ErrorKind::Protocol`]
//! error from [`Client::connect`] that lists what was offered.
//!
//! ```no_run
//! use a2a_typestate_client::types::SendMessageRequest;
//! use a2a_typestate_client::{Client, Message};
//! use futures::StreamExt;
//!
//! # async fn demo() -> Result<(), a2a_typestate_client::Error> {
//! let client = Client::builder().build()?;
//! let agent = client.connect("http://localhost:9999").await?;
//! let mut events = agent.send_streaming_message(SendMessageRequest::new(Message::user("hi").with_message_id("m1"))).await?;
//! while let Some(event) = events.next().await {
//!     println!("{}", event?.kind());
//! }
//! println!("ended: {:?}", events.end());
//! # Ok(()) }
//! ```
//!
//! Non-streaming calls are retried on transport faults (the client's [`RetryPolicy`](crate::RetryPolicy));
//! streams are retried only until their first event, never after: reattach with
//! [`AgentConnection::resubscribe`].

use std::fmt;
use std::sync::Arc;

use a2a_typestate_types::discovery::{OfferedInterface, ProtocolBinding, ProtocolVersion, select_interface};
use a2a_typestate_types::jsonrpc::Method;
use a2a_typestate_types::tolerant;
use a2a_typestate_types::{
    AgentCard, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskId, v03,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent_url::AgentBaseUrl;
use crate::card::DiscoveredCard;
use crate::transport::deviation::{DeviationLog, Shape, Tolerated};
use crate::transport::event_text::EventReading;
#[cfg(feature = "grpc")]
use crate::transport::grpc;
use crate::transport::poll::Cadence;
use crate::transport::rest::Call;
use crate::transport::v03::LossLog;
use crate::transport::{
    Decoded, Endpoint, EventStream, TaskFollow, TaskPages, TaskPoll, Wire, jsonrpc, read, rest,
};

mod binding;
mod claims;
mod extended;
mod options;
mod push;
mod unanswered;
use crate::{Client, Error};
use binding::Binding;

/// The protocol versions this client speaks, in order of preference.
pub const SUPPORTED_VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
/// The bindings this client speaks (JSON-RPC and HTTP+JSON for 1.0 and 0.3; gRPC with the `grpc`
/// feature, 1.0 only: [`Client::connect`] picks among the interfaces whose version and binding it
/// can pair).
#[cfg(not(feature = "grpc"))]
pub const SUPPORTED_BINDINGS: &[ProtocolBinding] = &[ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson];
/// The bindings this client speaks (JSON-RPC and HTTP+JSON for 1.0 and 0.3; gRPC with the `grpc`
/// feature, 1.0 only: [`Client::connect`] picks among the interfaces whose version and binding it
/// can pair).
#[cfg(feature = "grpc")]
pub const SUPPORTED_BINDINGS: &[ProtocolBinding] =
    &[ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc];

/// One agent, one selected interface (version, binding, URL, tenant), ready for calls.
///
/// Cheap to clone: clones share the interface, the client and the loss counter.
#[derive(Clone)]
pub struct AgentConnection {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    losses: LossLog,
    /// Deviations read under `WireReading::Tolerant`.
    deviations: DeviationLog,
    /// The public card, when the extended card took its place.
    public_card: Option<DiscoveredCard>,
    /// Why the extended card the card declares is not in use, when it was asked for and failed.
    extended_card_error: Option<Error>,
}

impl fmt::Debug for AgentConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let endpoint = &self.inner.endpoint;
        f.debug_struct("AgentConnection")
            .field("agent", &endpoint.agent)
            .field("interface", &endpoint.interface)
            .finish_non_exhaustive()
    }
}

impl AgentConnection {
    /// [`Client::connect`]: discovers the agent and opens the interface it prefers among those this
    /// client speaks.
    pub(crate) async fn discover(client: &Client, agent: &str) -> Result<AgentConnection, Error> {
        let agent = AgentBaseUrl::parse(agent)?;
        let card = client.discover_agent(&agent).await?;
        let offered = card
            .offered_interfaces()
            .map_err(|e| Error::bad_input("agent card", e.clone()).with_url(card.source_url()))?;
        // An interface marked suspect is skipped while its mark holds, unless every one is.
        let marked = |i: &OfferedInterface| {
            client.config().suspect_marks() == crate::SuspectMarks::On
                && client
                    .discovery_cache()
                    .claim_mark(&agent, &crate::SuspectClaim::Interface { url: i.url.clone() })
                    .is_some()
        };
        // The interface that answered after another could not be reached goes first while that is
        // remembered: the next task does not wait out the dead one again.
        let answering = client.discovery_cache().answering_interface(&agent).and_then(|url| {
            offered.iter().find(|i| i.url == url && !marked(i) && Wire::of(i).is_some()).cloned()
        });
        let Some(chosen) = answering
            .or_else(|| choose_interface(offered, marked))
            .or_else(|| choose_interface(offered, |_| false))
        else {
            // At most ten are named: a card can list any number.
            let mut listed: Vec<String> = offered
                .iter()
                .take(10)
                .map(|i| format!("{} over {}", i.protocol_version, i.binding))
                .collect();
            if offered.len() > 10 {
                listed.push(format!("and {} more", offered.len() - 10));
            }
            return Err(Error::protocol_answer(format!(
                "the agent offers no interface this client speaks (offered: {})",
                listed.join(", ")
            ))
            .with_url(card.source_url()));
        };
        Ok(AgentConnection::open(client, agent, card, chosen)?.with_extended_card().await)
    }
}

/// The interface to use among `offered`, leaving out those `skip` names: protocol 1.0 before 0.3,
/// then the card's order, among those this client speaks. The one place an interface is chosen.
fn choose_interface(
    offered: &[OfferedInterface],
    skip: impl Fn(&OfferedInterface) -> bool,
) -> Option<OfferedInterface> {
    let left: Vec<OfferedInterface> = offered.iter().filter(|i| !skip(i)).cloned().collect();
    select_interface(&left, &SUPPORTED_VERSIONS, SUPPORTED_BINDINGS)
        .filter(|i| Wire::of(i).is_some())
        .or_else(|| left.iter().find(|i| Wire::of(i).is_some()))
        .cloned()
}

impl AgentConnection {
    /// A connection to `interface`, one of the interfaces `card` offers (for callers that select the
    /// interface themselves, such as a negotiation layer).
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when this client does not speak the interface's version over its
    /// binding (1.0 over JSON-RPC, HTTP+JSON or, with `grpc`, gRPC; 0.3 over JSON-RPC or HTTP+JSON),
    /// or its URL is not http(s).
    pub fn open(
        client: &Client,
        agent: AgentBaseUrl,
        card: DiscoveredCard,
        interface: OfferedInterface,
    ) -> Result<Self, Error> {
        let endpoint = Endpoint::new(client.clone(), agent, card, interface)?;
        Ok(Self::from_endpoint(endpoint).without_marked_extensions())
    }

    fn from_endpoint(endpoint: Endpoint) -> Self {
        let deviations = DeviationLog::default();
        for deviation in endpoint.card.deviations().into_iter().chain(grpc_target_deviation(&endpoint)) {
            deviations.record("AgentCard", None, deviation);
        }
        let inner = Inner {
            endpoint,
            losses: LossLog::default(),
            deviations,
            public_card: None,
            extended_card_error: None,
        };
        Self { inner: Arc::new(inner) }
    }

    fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }

    /// The agent's base URL.
    pub fn agent(&self) -> &AgentBaseUrl {
        &self.endpoint().agent
    }

    /// The card this connection goes by: the extended card when it was fetched with the
    /// connection's credentials (see [`crate::auth`]), else the public card the interface was
    /// selected from. Its claims are lifted as the public card's are, and may claim more.
    pub fn card(&self) -> &DiscoveredCard {
        &self.endpoint().card
    }

    /// The selected interface (version, binding, URL as the card wrote it, tenant).
    pub fn interface(&self) -> &OfferedInterface {
        &self.endpoint().interface
    }

    /// The client this connection sends through.
    pub fn client(&self) -> &Client {
        &self.endpoint().client
    }

    /// How many things 0.3 conversions could not carry so far (always 0 for a 1.0 agent); each is
    /// logged at `debug` level with its JSON path.
    pub fn conversion_losses(&self) -> u64 {
        self.inner.losses.count()
    }

    /// The deviations from the 1.0 wire format read on this connection so far, in order: empty
    /// unless the client reads tolerantly ([`WireReading::Tolerant`](crate::WireReading::Tolerant)).
    /// Clones of a connection share them.
    pub fn wire_deviations(&self) -> Vec<crate::WireDeviation> {
        self.inner.deviations.all()
    }

    fn tolerant(&self) -> bool {
        self.client().config().wire_reading() == crate::WireReading::Tolerant
    }

    /// Under tolerant reading, rewrites a plain answer to `call` into the 1.0 shape of `T`, recording
    /// what deviated (paths start at `prefix`: `result` for JSON-RPC).
    fn tolerate_answer<T: Tolerated>(&self, call: Method, prefix: &str, value: &mut Value) {
        if let Some(shape) = T::SHAPE
            && self.tolerant()
        {
            self.inner.deviations.tolerate(call.as_str(), None, shape, prefix, value);
        }
    }

    fn wire(&self) -> Wire {
        self.endpoint().wire
    }

    /// Runs one operation on the binding: with the feature `otel`, its duration and outcome are
    /// recorded in the client's metrics (by operation, binding and version); otherwise it only runs.
    pub(crate) async fn measured<T>(
        &self,
        operation: Method,
        call: impl std::future::Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        #[cfg(feature = "otel")]
        {
            let started = std::time::Instant::now();
            let result = call.await;
            let (binding, version) = self.binding().label();
            let error = result.as_ref().err().map(|e| format!("{:?}", e.kind()).to_lowercase());
            self.endpoint().client.metrics().record_call(crate::otel::CallRecord {
                operation: operation.as_str(),
                binding,
                version,
                error,
                elapsed: started.elapsed(),
            });
            result
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = operation;
            call.await
        }
    }

    /// The binding this connection's wire speaks: the one place a connection tells its wires apart.
    fn binding(&self) -> &'static dyn Binding {
        match self.wire() {
            Wire::JsonRpc => &binding::JsonRpc,
            Wire::HttpJson => &binding::HttpJson,
            #[cfg(feature = "grpc")]
            Wire::Grpc => &binding::Grpc,
            Wire::JsonRpcV03 => &binding::JsonRpcV03::BINDING,
            Wire::HttpJsonV03 => &binding::HttpJsonV03::BINDING,
        }
    }

    /// Checks the webhook URL a request would hand the agent against the client's URL policy: an agent
    /// told to post to a metadata or link-local address would be made to attack its own network.
    fn check_push_url(
        &self,
        config: Option<&a2a_typestate_types::TaskPushNotificationConfig>,
    ) -> Result<(), Error> {
        match config {
            Some(config) => self.endpoint().client.config().url_policy().check(&config.url),
            None => Ok(()),
        }
    }

    /// Fills a send's unset `historyLength` from the call options (writing a configuration only
    /// when they set one).
    fn send_history_length(&self, req: &mut SendMessageRequest) {
        let mut history_length = req.configuration.as_ref().and_then(|c| c.history_length);
        self.fill_history_length(&mut history_length);
        if history_length.is_some() {
            req.configuration.get_or_insert_with(Default::default).history_length = history_length;
        }
    }

    /// Fills a 1.0 request's `tenant` from the interface when the caller left it unset.
    fn tenant(&self, tenant: &mut Option<String>) {
        if tenant.is_none() && !self.wire().is_v03() {
            *tenant = self.endpoint().tenant().map(str::to_owned);
        }
    }

    /// A 1.0 JSON-RPC call, retried on transport faults. The request is written once; the answer is
    /// read straight into `T`, except under tolerant reading, which rewrites it as JSON first.
    async fn rpc<P: Serialize, T: Tolerated>(
        &self,
        method: Method,
        what: &'static str,
        params: &P,
    ) -> Result<T, Error> {
        let request = jsonrpc::Request::new(method.as_str(), Some(params))?;
        let endpoint = self.endpoint();
        let tolerate = |value: &mut Value| self.tolerate_answer::<T>(method, "result", value);
        let tolerate: Option<jsonrpc::Tolerate<'_>> = self.tolerant().then_some(&tolerate);
        // Read into a box: the answer (a `Task` inline is hundreds of bytes) then moves up through
        // the timer, the retry policy and the deadline as a pointer, and out of the box once.
        let answer: Box<T> = endpoint.retrying(|_| jsonrpc::call(endpoint, &request, what, tolerate)).await?;
        Ok(*answer)
    }

    /// A gRPC call, retried on transport faults.
    #[cfg(feature = "grpc")]
    async fn grpc<P: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        what: &'static str,
        params: &P,
    ) -> Result<T, Error> {
        let params = to_json_text(params)?;
        let endpoint = self.endpoint();
        let answer = endpoint.retrying(|_| grpc::call(endpoint, method, &params)).await?;
        grpc::convert::read(what, &answer)
    }

    /// gRPC `SendMessage`, retried on transport faults; the request written once.
    #[cfg(feature = "grpc")]
    async fn grpc_send_message(&self, request: &SendMessageRequest) -> Result<SendMessageResponse, Error> {
        let request = grpc::convert::direct::send_message_request(request)?;
        let endpoint = self.endpoint();
        endpoint.retrying(|_| grpc::send_message(endpoint, &request)).await
    }

    /// A gRPC server stream, retried on transport faults until its first message.
    #[cfg(feature = "grpc")]
    async fn stream_grpc(&self, opening: grpc::Opening) -> Result<EventStream, Error> {
        grpc::open_stream(self.endpoint(), &opening).await
    }

    /// A 0.3 JSON-RPC call, retried on transport faults; the 0.3 result read as `W`, straight from
    /// the answer unless `tolerate` rewrites it (as [`AgentConnection::rpc`] reads a 1.0 one).
    async fn rpc_v03<P: Serialize, W: DeserializeOwned>(
        &self,
        method: v03::Method,
        what: &'static str,
        params: Option<&P>,
        tolerate: Option<jsonrpc::Tolerate<'_>>,
    ) -> Result<W, Error> {
        let request = jsonrpc::Request::new(method.as_str(), params)?;
        let endpoint = self.endpoint();
        // Read into a box, as `rpc` does.
        let answer: Box<W> = endpoint.retrying(|_| jsonrpc::call(endpoint, &request, what, tolerate)).await?;
        Ok(*answer)
    }

    /// A 0.3 HTTP+JSON call, retried on transport faults; returns the raw 0.3 result.
    async fn rest_v03(&self, call: Call<'_>) -> Result<Value, Error> {
        let endpoint = self.endpoint();
        let call = call.prepare(endpoint)?;
        endpoint.retrying(|_| rest::call(endpoint, &call)).await
    }

    /// An HTTP+JSON call, retried on transport faults. The answer is read straight into `T`,
    /// except under tolerant reading, which rewrites it as JSON first.
    async fn rest<T: Tolerated>(
        &self,
        method: Method,
        what: &'static str,
        call: Call<'_>,
    ) -> Result<T, Error> {
        let endpoint = self.endpoint();
        let call = call.prepare(endpoint)?;
        // Read into a box, as `rpc` does: the answer moves up through the layers as a pointer.
        let answer: Box<T> = if self.tolerant() {
            let tolerate = |value: &mut Value| self.tolerate_answer::<T>(method, "", value);
            endpoint.retrying(|_| rest::call_tolerant(endpoint, &call, what, &tolerate)).await?
        } else {
            endpoint.retrying(|_| rest::call_typed(endpoint, &call, what)).await?
        };
        Ok(*answer)
    }

    /// Sends a message and waits for the answer (a task, or a direct message).
    ///
    /// Without `returnImmediately` the agent answers once the task is terminal or interrupted, so the
    /// wait is bounded by the client's request timeout.
    ///
    /// A send is retried only after a fault that proves the agent did not take it (the connection
    /// never opened, a 502 or 503). After a timeout, a reset or a 504 the work may be running, so
    /// the send is not made again: the error says so ([`Error::may_have_run`]), and
    /// [`AgentConnection::find_sent_task`] looks for the task it may have started.
    ///
    /// # Errors
    /// A transport fault once the retry budget is spent; [`crate::ErrorKind::Protocol`] for the
    /// agent's error (-32008 when it requires an extension the call did not ask for:
    /// [`ProtocolError::is_extension_support_required`](crate::ProtocolError::is_extension_support_required));
    /// [`crate::ErrorKind::BadInput`] when the answer cannot be read; [`crate::ErrorKind::Config`],
    /// with nothing sent, when the card marks an extension required that the call does not ask for
    /// ([`Error::required_extension`] names it; every call checks this).
    pub async fn send_message(&self, mut req: SendMessageRequest) -> Result<SendMessageResponse, Error> {
        self.tenant(&mut req.tenant);
        self.check_push_url(
            req.configuration.as_ref().and_then(|c| c.task_push_notification_config.as_ref()),
        )?;
        self.check_required_extensions()?;
        self.send_history_length(&mut req);
        self.measured(Method::SendMessage, crate::transport::sending(self.binding().send_message(self, req)))
            .await
    }

    /// Sends a message and streams the task's events (`SendStreamingMessage`).
    ///
    /// An agent that answers with a plain JSON error instead of a stream (as the official servers do
    /// when they cannot stream) gives that error here, not a broken stream.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; a stream that fails before its first event is retried
    /// like a send: only when the fault proves the agent did not take it.
    pub async fn send_streaming_message(&self, mut req: SendMessageRequest) -> Result<EventStream, Error> {
        self.tenant(&mut req.tenant);
        self.check_push_url(
            req.configuration.as_ref().and_then(|c| c.task_push_notification_config.as_ref()),
        )?;
        self.check_required_extensions()?;
        self.send_history_length(&mut req);
        let send = crate::transport::sending(self.binding().send_streaming_message(self, req));
        self.measured(Method::SendStreamingMessage, send).await
    }

    /// The task, with at most `historyLength` history messages when set.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; -32001 (`TaskNotFoundError`) for an unknown task.
    pub async fn get_task(&self, mut req: GetTaskRequest) -> Result<Task, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.fill_history_length(&mut req.history_length);
        self.measured(Method::GetTask, self.binding().get_task(self, req)).await
    }

    /// One page of the agent's tasks: the raw `ListTasks`. To read every page, use
    /// [`AgentConnection::list_all_tasks`].
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; [`crate::ErrorKind::Misuse`] for a 0.3 agent, since 0.3
    /// has no `ListTasks` (nothing is sent).
    pub async fn list_tasks(&self, mut req: ListTasksRequest) -> Result<ListTasksResponse, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.fill_history_length(&mut req.history_length);
        self.measured(Method::ListTasks, self.binding().list_tasks(self, req)).await
    }

    /// Every task `request` matches, as one stream that asks for page after page (each a
    /// [`AgentConnection::list_tasks`] call with the last page's `nextPageToken`), bounded by the
    /// page size, a page count ([`TaskBudget::pages`](crate::TaskBudget::pages)), a task count, the
    /// tasks a page may hold and a page token met again: see [`TaskPages`].
    ///
    /// ```no_run
    /// use a2a_typestate_client::Client;
    /// use a2a_typestate_client::types::ListTasksRequest;
    /// use futures::StreamExt;
    ///
    /// # async fn demo() -> Result<(), a2a_typestate_client::Error> {
    /// let agent = Client::builder().build()?.connect("http://localhost:9999").await?;
    /// let request = ListTasksRequest { page_size: Some(100), ..Default::default() };
    /// let mut tasks = agent.list_all_tasks(request).max_pages(20);
    /// while let Some(task) = tasks.next().await {
    ///     let task = task?;
    ///     println!("{} {}", task.id, task.state());
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// Nothing is sent until the stream is first polled. On a 0.3 agent its one item is the
    /// [`crate::ErrorKind::Misuse`] error [`AgentConnection::list_tasks`] gives, since 0.3 has no
    /// `ListTasks`.
    pub fn list_all_tasks(&self, request: ListTasksRequest) -> TaskPages {
        let connection = self.clone();
        let list_page: crate::transport::pages::ListPage = Box::new(move |request| {
            let connection = connection.clone();
            Box::pin(async move { connection.list_tasks(request).await })
        });
        let max_pages = self.client().config().task_budget().pages();
        TaskPages::new(list_page, request, self.agent().as_str(), max_pages)
    }

    /// Asks the agent to cancel the task; returns the task as the agent left it.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; -32002 (`TaskNotCancelableError`) for a finished task.
    pub async fn cancel_task(&self, mut req: CancelTaskRequest) -> Result<Task, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.measured(Method::CancelTask, self.binding().cancel_task(self, req)).await
    }

    /// Follows a running task (`SubscribeToTask`; 0.3 `tasks/resubscribe`): the first event is the
    /// task's current snapshot.
    ///
    /// # Errors
    /// As [`AgentConnection::send_streaming_message`]; -32004 for a task already terminal.
    pub async fn subscribe_to_task(&self, mut req: SubscribeToTaskRequest) -> Result<EventStream, Error> {
        self.tenant(&mut req.tenant);
        self.check_required_extensions()?;
        self.measured(Method::SubscribeToTask, self.binding().subscribe_to_task(self, req)).await
    }

    /// Reattaches to `task` after its stream dropped: a new `SubscribeToTask`, whose first event is
    /// the task snapshot (events that happened while detached are only visible in that snapshot).
    ///
    /// # Errors
    /// As [`AgentConnection::subscribe_to_task`].
    pub async fn resubscribe(&self, task: &TaskId) -> Result<EventStream, Error> {
        self.subscribe_to_task(SubscribeToTaskRequest { tenant: None, id: task.clone() }).await
    }

    /// The card the agent shows to authenticated callers (`GetExtendedAgentCard`; 0.3
    /// `agent/getAuthenticatedExtendedCard`), in the 1.0 model.
    ///
    /// # Errors
    /// As [`AgentConnection::send_message`]; -32004 when the card does not declare one, -32007 when
    /// it declares one that is not configured.
    pub async fn get_extended_agent_card(&self) -> Result<AgentCard, Error> {
        self.check_required_extensions()?;
        Ok(self.extended_card_document().await?.card().clone())
    }

    /// Polls `GetTask` for `id` until the task is terminal or interrupted: at the interval the card
    /// declares with `a2a_typestate::POLL_CADENCE_EXTENSION_URI` (clamped by
    /// [`Bounds::card_cadence`](a2a_typestate::Bounds::card_cadence), as a task's own polls are), else at the client's
    /// [`PollCadence`](crate::PollCadence) (growing to its cap). See [`TaskPoll`].
    pub fn poll_task(&self, id: &TaskId) -> TaskPoll {
        self.poll_task_with(GetTaskRequest::new(id.clone()))
    }

    /// As [`AgentConnection::poll_task`], each poll sending `request` (to ask for a `historyLength`,
    /// say).
    pub fn poll_task_with(&self, request: GetTaskRequest) -> TaskPoll {
        let connection = self.clone();
        let get_task: crate::transport::poll::GetTask = Box::new(move |request| {
            let connection = connection.clone();
            Box::pin(async move { connection.get_task(request).await })
        });
        TaskPoll::new(get_task, request, self.poll_cadence(), &self.client().config().verifier_bounds())
    }

    /// Follows task `id` by polling `GetTask`: each new state once, until the task is terminal or
    /// interrupted (`input-required`, `auth-required`). The stream view of
    /// [`AgentConnection::poll_task`]'s loop ([`TaskPoll::new_states`]), so under the same bounds: the
    /// card's declared cadence clamped by [`Bounds::card_cadence`](a2a_typestate::Bounds::card_cadence),
    /// else the client's [`PollCadence`](crate::PollCadence); the task deadline, past which it ends with
    /// [`LifecycleFault::DeadlineExceeded`](a2a_typestate::LifecycleFault::DeadlineExceeded). For an
    /// agent that does not stream; to ask for a `historyLength`, use
    /// `poll_task_with(request).new_states()`.
    ///
    /// ```no_run
    /// use a2a_typestate_client::Client;
    /// use a2a_typestate_client::types::TaskId;
    /// use futures::StreamExt;
    ///
    /// # async fn demo() -> Result<(), a2a_typestate_client::Error> {
    /// let agent = Client::builder().build()?.connect("http://localhost:9999").await?;
    /// let mut states = agent.follow_task(&TaskId::new("task-1"));
    /// while let Some(task) = states.next().await {
    ///     println!("now {}", task?.state());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn follow_task(&self, id: &TaskId) -> TaskFollow {
        self.poll_task(id).new_states()
    }

    /// The cadence [`AgentConnection::poll_task`] uses.
    fn poll_cadence(&self) -> Cadence {
        let claims = self.card().claims(a2a_typestate::Deployment::Direct);
        Cadence::new(claims.poll_cadence(), self.client().config().poll_cadence())
    }

    async fn stream_v1<P: Serialize>(&self, method: Method, params: &P) -> Result<EventStream, Error> {
        let request = jsonrpc::Request::new(method.as_str(), Some(params))?;
        let endpoint = self.endpoint();
        let answering: Arc<str> = request.id().into();
        const WHAT: &str = "stream event";
        let Some(inner) = self.tolerant().then(|| Arc::clone(&self.inner)) else {
            return endpoint
                .open_stream(
                    || jsonrpc::open(endpoint, &request),
                    EventReading::Strict,
                    move |event| {
                        let event = jsonrpc::event_result::<Box<StreamResponse>>(&event, &answering, WHAT)?;
                        Ok(Decoded { event, last: false })
                    },
                )
                .await;
        };
        let events = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let call = method.as_str();
        endpoint
            .open_stream(
                || jsonrpc::open(endpoint, &request),
                EventReading::new(true, &inner.deviations, call),
                move |event| {
                    let number = events.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    let data = event.data.as_bytes();
                    if let Some(read) =
                        read_clean(data, || jsonrpc::our_result::<Box<StreamResponse>>(data, &answering))
                    {
                        return Ok(Decoded { event: read, last: false });
                    }
                    let log = &inner.deviations;
                    let mut value = jsonrpc::tolerant_event_result(&event, &answering, log, call, number)?;
                    log.tolerate(call, Some(number), Shape::StreamResponse, "result", &mut value);
                    Ok(Decoded { event: read::<Box<StreamResponse>>(WHAT, value)?, last: false })
                },
            )
            .await
    }

    async fn stream_rest(&self, operation: &'static str, call: Call<'_>) -> Result<EventStream, Error> {
        let endpoint = self.endpoint();
        let call = call.prepare_stream(endpoint)?;
        let inner = self.tolerant().then(|| Arc::clone(&self.inner));
        let events = Arc::new(std::sync::atomic::AtomicU64::new(0));
        endpoint
            .open_stream(
                || rest::open(endpoint, &call),
                EventReading::new(self.tolerant(), &self.inner.deviations, operation),
                move |event| {
                    let number = events.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    // Read once, straight into the event, unless tolerant reading rewrites it.
                    let straight =
                        || crate::transport::straight::<Box<StreamResponse>>(event.data.as_bytes());
                    let clean = if inner.is_none() {
                        straight()
                    } else {
                        read_clean(event.data.as_bytes(), straight)
                    };
                    if let Some(clean) = clean {
                        return Ok(Decoded { event: clean, last: false });
                    }
                    let mut value = rest::event_value(event)?;
                    if let Some(inner) = &inner {
                        let log = &inner.deviations;
                        log.tolerate(operation, Some(number), Shape::StreamResponse, "", &mut value);
                    }
                    Ok(Decoded { event: read::<Box<StreamResponse>>("stream event", value)?, last: false })
                },
            )
            .await
    }

    /// A 0.3 HTTP+JSON stream of `call_name` (the 1.0 operation): each event the proto's
    /// `StreamResponse`, decoded as a JSON-RPC 0.3 stream's events are once rewritten.
    async fn stream_rest_v03(&self, call_name: &'static str, call: Call<'_>) -> Result<EventStream, Error> {
        let endpoint = self.endpoint();
        let call = call.prepare_stream(endpoint)?;
        let inner = Arc::clone(&self.inner);
        let tolerant = self.tolerant();
        let events = Arc::new(std::sync::atomic::AtomicU64::new(0));
        endpoint
            .open_stream(
                || rest::open(endpoint, &call),
                EventReading::new(tolerant, &self.inner.deviations, call_name),
                move |event| {
                    let number = events.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    let deviations = tolerant.then_some(&inner.deviations);
                    crate::transport::v03::decode_rest_event(
                        &inner.losses,
                        deviations,
                        call_name,
                        number,
                        event,
                    )
                },
            )
            .await
    }

    async fn stream_v03(&self, method: v03::Method, params: Value) -> Result<EventStream, Error> {
        let request = jsonrpc::Request::new(method.as_str(), Some(&params))?;
        let endpoint = self.endpoint();
        let inner = Arc::clone(&self.inner);
        let answering: Arc<str> = request.id().into();
        let (tolerant, call) = (self.tolerant(), method.v1_name());
        let events = Arc::new(std::sync::atomic::AtomicU64::new(0));
        endpoint
            .open_stream(
                || jsonrpc::open(endpoint, &request),
                EventReading::new(tolerant, &self.inner.deviations, call),
                move |event| {
                    let number = events.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    let tolerance = tolerant.then_some((&inner.deviations, call, number));
                    crate::transport::v03::decode_event(&inner.losses, tolerance, &event, &answering)
                },
            )
            .await
    }
}

/// The deviation of a gRPC interface written as its target (`host:port`) in the card, which the
/// connection reached as `scheme://host:port`.
fn grpc_target_deviation(endpoint: &Endpoint) -> Option<tolerant::Deviation> {
    let interface = &endpoint.interface;
    crate::agent_url::written_as_grpc_target(interface)?;
    // gRPC is a 1.0 binding: the interface is one of the card's `supportedInterfaces`.
    let index = endpoint.card.offered_interfaces().ok()?.iter().position(|offered| offered == interface)?;
    Some(tolerant::Deviation {
        path: format!("supportedInterfaces[{index}].url"),
        kind: tolerant::DeviationKind::GrpcTargetUrl,
        found: format!("the gRPC target {:?}", interface.url),
        read_as: format!("reached as {}", endpoint.url),
    })
}

/// Under tolerant reading, the event `read` straight from `data` when nothing in it is a deviation
/// the rewrite records: no mark in its bytes ([`tolerant::may_deviate`]), a strict read that
/// succeeds, and a context named ([`names_its_context`]). `None`: read it through the rewrite.
fn read_clean(
    data: &[u8],
    read: impl FnOnce() -> Option<Box<StreamResponse>>,
) -> Option<Box<StreamResponse>> {
    if tolerant::may_deviate(data) {
        return None;
    }
    read().filter(|event| names_its_context(event))
}

/// Whether an update names its context, which 1.0 requires: one that does not is a deviation the
/// tolerant rewrite records, so it is read through it.
fn names_its_context(event: &StreamResponse) -> bool {
    let context = match event {
        StreamResponse::StatusUpdate(update) => &update.context_id,
        StreamResponse::ArtifactUpdate(update) => &update.context_id,
        StreamResponse::Task(_) | StreamResponse::Message(_) => return true,
    };
    context.as_ref().is_some_and(|context| !context.as_str().is_empty())
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::misuse(format!("request could not be written: {e}")))
}

/// A request's JSON text: an HTTP+JSON body sent as it is, or gRPC's ProtoJSON read per attempt.
pub(in crate::connection) fn to_json_text<T: Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(value).map_err(|e| Error::misuse(format!("request could not be written: {e}")))
}
