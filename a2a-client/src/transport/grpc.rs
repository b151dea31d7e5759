//! The 1.0 gRPC binding (spec §10): the `lf.a2a.v1.A2AService` of `a2a.proto` over HTTP/2, with the
//! service parameters (`a2a-version: 1.0`, credentials) as metadata, errors as `google.rpc.Status`
//! with an `ErrorInfo` in its details, and `SendStreamingMessage` / `SubscribeToTask` as server
//! streams of `StreamResponse`.
//!
//! Each call takes and gives ProtoJSON text, as the HTTP bindings' bodies are; `convert` turns it
//! into protobuf messages and back, the one place the model meets the generated types. The bounds are
//! the other bindings': the request timeout for a whole unary call (also sent as `grpc-timeout`),
//! the connect timeout, [`MAX_RESPONSE_BYTES`](super::MAX_RESPONSE_BYTES) per answer, and for a
//! stream the SSE idle bound between two messages and the SSE event size per message.
//!
//! The channel is opened on first use and shared by every call on the connection (HTTP/2
//! multiplexes them). `http://` interface URLs are spoken in cleartext (h2c), `https://` with TLS
//! checked by the HTTP stack's verifier (the system's roots and any added) and presenting its client
//! identity; the stack's proxy does not apply to gRPC.

pub(crate) mod convert;
mod status;

use std::sync::OnceLock;
use std::time::Duration;

use a2a_proto::v1 as pb;
use a2a_proto::v1::a2a_service_client::A2aServiceClient;
use a2a_typestate_types::SendMessageResponse;
use a2a_typestate_types::jsonrpc::Method;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue};
use tonic::transport::Channel;

use super::{Decoded, Endpoint, EventStream};
use crate::{Error, TransportFault};
use convert::{from_proto, to_proto};

/// The metadata key of the protocol version (the `A2A-Version` service parameter, lowercased as gRPC
/// metadata keys are).
pub const A2A_VERSION_METADATA: &str = "a2a-version";

type GrpcClient = A2aServiceClient<Channel>;

/// The lazily opened channel of one endpoint.
#[derive(Debug, Default)]
pub(crate) struct GrpcChannel {
    channel: OnceLock<Result<Channel, String>>,
}

impl Endpoint {
    /// A client on this endpoint's channel (opened on first use, inside the runtime), decoding
    /// messages of at most `max_message` bytes.
    fn grpc_client(&self, max_message: usize) -> Result<GrpcClient, Error> {
        let opened = self.grpc.channel.get_or_init(|| {
            let mut target = self.url.clone();
            target.set_path("");
            target.set_query(None);
            let config = self.client.config();
            let endpoint = tonic::transport::Endpoint::from_shared(target.to_string())
                .map_err(|e| format!("interface url {} is not a grpc target: {e}", self.url))?
                .connect_timeout(config.connect_timeout())
                .user_agent(config.user_agent())
                .map_err(|e| format!("user agent: {e}"))?
                .tcp_nodelay(true);
            let endpoint = if self.url.scheme() == "https" {
                // The HTTP stack's own verifier (its roots, system and added) and identity, so an
                // agent is checked over gRPC exactly as over the other bindings.
                let (verifier, identity) = self.client.http_client().grpc_tls();
                let mut config = tonic::transport::ClientTlsConfig::new();
                if let Some(identity) = identity {
                    config =
                        config.identity(tonic::transport::Identity::from_pem(identity.pem(), identity.pem()));
                }
                endpoint
                    .tls_config_with_verifier(config, verifier.clone())
                    .map_err(|e| format!("tls: {e}"))?
            } else {
                endpoint
            };
            // Connections resolve under the URL policy, as on the other bindings.
            let mut connector = hyper_util::client::legacy::connect::HttpConnector::new_with_resolver(
                crate::net::PolicyResolver::new(config.url_policy, &config.resolve),
            );
            connector.enforce_http(false);
            connector.set_nodelay(true);
            Ok(endpoint.connect_with_connector_lazy(connector))
        });
        let channel = opened.as_ref().map_err(|why| Error::config(why.clone()))?;
        Ok(A2aServiceClient::new(channel.clone())
            .max_decoding_message_size(max_message)
            .max_encoding_message_size(super::MAX_RESPONSE_BYTES))
    }

    /// The URL named in errors: the interface URL and the method's path.
    fn grpc_url(&self, method: Method) -> String {
        let base = self.url.as_str().trim_end_matches('/');
        format!("{base}/{}/{}", a2a_proto::SERVICE_NAME, method.as_str())
    }

    /// Records the extensions the agent says it activated in an answer's metadata.
    fn record_activated_metadata(&self, metadata: &tonic::metadata::MetadataMap) {
        let named = metadata
            .get_all(crate::extensions::A2A_EXTENSIONS_METADATA)
            .into_iter()
            .map(|v| v.as_encoded_bytes());
        self.scope.activated.record(named);
    }

    /// A request for `message` with the version, the extensions, the call's headers and the
    /// credentials as metadata: the auth layer and
    /// the interceptors write their headers on a stand-in HTTP request, and those headers are sent.
    async fn grpc_request<P>(&self, message: P, attempt: u32) -> Result<tonic::Request<P>, Error> {
        use crate::auth::{Interceptor as _, RequestContext};
        let mut carrier = crate::net::Request::new(bytes::Bytes::new());
        *carrier.method_mut() = http::Method::POST;
        *carrier.uri_mut() = self.uri.clone();
        // The caller's trace context, sent as metadata with the rest of the carrier's headers.
        #[cfg(feature = "otel")]
        crate::otel::inject_trace_context(carrier.headers_mut());
        // The headers given for this agent's origin go as metadata too (`origin_header`).
        self.client.http_client().add_origin_headers(&self.uri, carrier.headers_mut());
        let context = RequestContext { agent: &self.agent, attempt };
        if self.auth.sends_credentials() {
            self.auth.before(&mut carrier, &context).await?;
        }
        for interceptor in &self.client.auth().interceptors {
            interceptor.before(&mut carrier, &context).await?;
        }
        let mut request = tonic::Request::new(message);
        let metadata = request.metadata_mut();
        metadata.insert(A2A_VERSION_METADATA, AsciiMetadataValue::from_static("1.0"));
        if let Some(Ok(value)) =
            self.scope.extensions_value().map(|v| AsciiMetadataValue::try_from(v.as_bytes()))
        {
            metadata.insert(crate::extensions::A2A_EXTENSIONS_METADATA, value);
        }
        // The call's own headers, then what the auth layer and the interceptors wrote (the
        // credentials' value wins over a call header of the same name, as over HTTP).
        for (name, value) in self.scope.headers() {
            let Ok(key) = AsciiMetadataKey::from_bytes(name.as_str().as_bytes()) else { continue };
            if carrier.headers().contains_key(name) {
                continue;
            }
            if let Ok(value) = AsciiMetadataValue::try_from(value.as_bytes()) {
                metadata.append(key, value);
            }
        }
        for (name, value) in carrier.headers() {
            let Ok(key) = AsciiMetadataKey::from_bytes(name.as_str().as_bytes()) else { continue };
            if let Ok(value) = AsciiMetadataValue::try_from(value.as_bytes()) {
                metadata.append(key, value);
            }
        }
        if carrier.uri().query().is_some() {
            tracing::debug!(agent = %self.agent.as_str(), "a credential placed in the query has no gRPC form and is not sent");
        }
        Ok(request)
    }
}

/// One unary call: `attempt(1)`, bounded by the request timeout and counted against the agent;
/// `attempt(2)` after `UNAUTHENTICATED` when a credential provider can refresh.
async fn unary<T, Fut>(endpoint: &Endpoint, url: &str, attempt: impl Fn(u32) -> Fut) -> Result<T, Error>
where
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    endpoint
        .bounded(url, async {
            match attempt(1).await {
                Err(error)
                    if error.status() == Some(401)
                        && endpoint.auth.sends_credentials()
                        && endpoint.auth.refresh_after_rejection() =>
                {
                    attempt(2).await
                }
                other => other,
            }
        })
        .await
}

/// One exchange of a unary rpc: `$message` sent with the service parameters and `grpc-timeout`,
/// the answer's message (its activated extensions recorded).
macro_rules! exchange {
    ($endpoint:expr, $rpc:ident, $message:expr, $attempt:expr, $timeout:expr, $url:expr) => {{
        let mut client = $endpoint.grpc_client(super::MAX_RESPONSE_BYTES)?;
        let mut request = $endpoint.grpc_request($message, $attempt).await?;
        request.set_timeout($timeout);
        $endpoint.record_request();
        let started = std::time::Instant::now();
        let answer =
            client.$rpc(request).await.map_err(|s| past_deadline($endpoint, s, $url, started, $timeout))?;
        $endpoint.record_activated_metadata(answer.metadata());
        answer.into_inner()
    }};
}

/// `SendMessage`, its request and answer moved field by field ([`convert::direct`]).
pub(crate) async fn send_message(
    endpoint: &Endpoint,
    request: &pb::SendMessageRequest,
) -> Result<SendMessageResponse, Error> {
    let url = &endpoint.grpc_url(Method::SendMessage);
    let timeout = endpoint.request_timeout();
    unary(endpoint, url, |attempt| async move {
        let answer = exchange!(endpoint, send_message, request.clone(), attempt, timeout, url);
        convert::direct::send_message_response("SendMessage result", answer)
    })
    .await
}

/// One unary call of `method` with ProtoJSON `params`; the answer as ProtoJSON text (`{}` for
/// `DeleteTaskPushNotificationConfig`), read with [`convert::read`].
pub(crate) async fn call(endpoint: &Endpoint, method: Method, params: &[u8]) -> Result<Vec<u8>, Error> {
    let url = &endpoint.grpc_url(method);
    let timeout = endpoint.request_timeout();
    unary(endpoint, url, |attempt| async move {
        macro_rules! text {
            ($request:ty, $rpc:ident, $what:literal) => {{
                let message: $request = to_proto(concat!($what, " request"), params)?;
                from_proto(
                    concat!($what, " result"),
                    &exchange!(endpoint, $rpc, message, attempt, timeout, url),
                )
            }};
        }
        match method {
            Method::GetTask => text!(pb::GetTaskRequest, get_task, "GetTask"),
            Method::ListTasks => text!(pb::ListTasksRequest, list_tasks, "ListTasks"),
            Method::CancelTask => text!(pb::CancelTaskRequest, cancel_task, "CancelTask"),
            Method::CreateTaskPushNotificationConfig => text!(
                pb::TaskPushNotificationConfig,
                create_task_push_notification_config,
                "CreateTaskPushNotificationConfig"
            ),
            Method::GetTaskPushNotificationConfig => text!(
                pb::GetTaskPushNotificationConfigRequest,
                get_task_push_notification_config,
                "GetTaskPushNotificationConfig"
            ),
            Method::ListTaskPushNotificationConfigs => text!(
                pb::ListTaskPushNotificationConfigsRequest,
                list_task_push_notification_configs,
                "ListTaskPushNotificationConfigs"
            ),
            Method::DeleteTaskPushNotificationConfig => text!(
                pb::DeleteTaskPushNotificationConfigRequest,
                delete_task_push_notification_config,
                "DeleteTaskPushNotificationConfig"
            ),
            Method::GetExtendedAgentCard => {
                text!(pb::GetExtendedAgentCardRequest, get_extended_agent_card, "GetExtendedAgentCard")
            }
            Method::SendMessage | Method::SendStreamingMessage | Method::SubscribeToTask => {
                Err(Error::misuse(format!("{} has a call of its own", method.as_str())))
            }
        }
    })
    .await
}

/// The error for a unary call's `status`. The agent (or its HTTP/2 stack) may reset the stream as
/// the deadline sent in `grpc-timeout` passes, a hair before the local bound fires: a transport
/// fault after the deadline is that deadline, a timeout.
fn past_deadline(
    endpoint: &Endpoint,
    status: tonic::Status,
    url: &str,
    started: std::time::Instant,
    timeout: Duration,
) -> Error {
    let error = status::to_error(Some(&endpoint.auth), status, url);
    if error.transport_fault().is_some() && started.elapsed() >= timeout {
        return Error::transport(
            TransportFault::Timeout,
            Some(
                format!("no complete answer within {}", a2a_typestate_types::human::HumanDuration(timeout))
                    .into(),
            ),
        )
        .with_url(url);
    }
    error
}

/// The request that opens a gRPC server stream (boxed: a `SendMessageRequest` is 480 bytes).
pub(crate) enum Opening {
    SendStreamingMessage(Box<pb::SendMessageRequest>),
    SubscribeToTask(pb::SubscribeToTaskRequest),
}

/// Opens the stream. Retried on transport faults until the first message is read, never after (as
/// the SSE bindings are); each later message must come within the SSE idle bound and fit the SSE
/// event size.
pub(crate) async fn open_stream(endpoint: &Endpoint, opening: &Opening) -> Result<EventStream, Error> {
    let url = endpoint.grpc_url(match opening {
        Opening::SendStreamingMessage(_) => Method::SendStreamingMessage,
        Opening::SubscribeToTask(_) => Method::SubscribeToTask,
    });
    let config = endpoint.client.config();
    let idle = config.sse_idle_timeout();
    let max_event = config.max_sse_event_bytes();
    endpoint
        .retrying(|_| {
            let url = url.clone();
            async move {
                let mut client = endpoint.grpc_client(max_event)?;
                let opened = async {
                    endpoint.record_request();
                    let answer = match opening {
                        Opening::SendStreamingMessage(message) => {
                            client
                                .send_streaming_message(endpoint.grpc_request((**message).clone(), 1).await?)
                                .await
                        }
                        Opening::SubscribeToTask(message) => {
                            client.subscribe_to_task(endpoint.grpc_request(message.clone(), 1).await?).await
                        }
                    };
                    answer.map_err(|s| status::to_error(Some(&endpoint.auth), s, &url))
                };
                let answer = endpoint.bounded(&url, opened).await?;
                endpoint.record_activated_metadata(answer.metadata());
                let messages = answer.into_inner();
                let mut events = events(messages, idle, url, endpoint.client.documents().clone());
                match events.next().await {
                    Some(Ok(first)) => Ok(EventStream::new(Some(first), events)),
                    Some(Err(error)) => Err(error),
                    None => Ok(EventStream::new(None, events)),
                }
            }
        })
        .await
}

/// The stream's messages as decoded events, each within `idle` of the one before; the first error
/// ends it. Each message is turned into its event within the document budget (its encoded size),
/// as an SSE event is.
fn events(
    messages: tonic::Streaming<pb::StreamResponse>,
    idle: Duration,
    url: String,
    budget: crate::budget::DocumentBudget,
) -> BoxStream<'static, Result<Decoded, Error>> {
    /// What the stream carries from one message to the next: boxed, so each message moves a
    /// pointer in and out of the read, not the tonic stream; never cloned per message.
    struct Reading {
        messages: tonic::Streaming<pb::StreamResponse>,
        url: String,
        budget: crate::budget::DocumentBudget,
    }
    futures::stream::unfold(Some(Box::new(Reading { messages, url, budget })), move |state| async move {
        let mut reading = state?;
        // A message already read needs no timer: the idle bound is armed only to wait.
        let next = match reading.messages.message().now_or_never() {
            Some(ready) => Ok(ready),
            None => tokio::time::timeout(idle, reading.messages.message()).await,
        };
        let item = match next {
            Err(_) => Err(Error::transport(
                TransportFault::Timeout,
                Some(
                    format!(
                        "no stream message within the idle bound of {}",
                        a2a_typestate_types::human::HumanDuration(idle)
                    )
                    .into(),
                ),
            )
            .with_url(&reading.url)),
            Ok(Ok(Some(message))) => {
                let _room = reading.budget.reserve(prost::Message::encoded_len(&message)).await;
                convert::direct::stream_response(message)
                    .map(|event| Decoded { event: Box::new(event), last: false })
            }
            Ok(Ok(None)) => return None,
            Ok(Err(status)) => Err(status::to_error(None, status, &reading.url)),
        };
        let next = if item.is_ok() { Some(reading) } else { None };
        Some((item, next))
    })
    .boxed()
}
