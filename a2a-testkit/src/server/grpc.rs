//! The gRPC binding of the scripted agent: `lf.a2a.v1.A2AService` on the same port as the other two
//! (HTTP/2 in cleartext), running the same operations, script, lies, faults and stalls.
//!
//! Requests arrive as protobuf messages and are handed to the operations as their ProtoJSON (what
//! the other bindings carry); answers go back the same way. Errors are `google.rpc.Status` with the
//! gRPC code of the error's A2A type and an `ErrorInfo` naming its reason. The scripted faults show
//! as gRPC can show them: a 502/503 fault is `UNAVAILABLE`, and either cut of a stream (reset or
//! truncated) ends it with `CANCELLED`, since a gRPC message cannot arrive in half. There are no
//! keep-alive comments in gRPC, so [`Stall::CommentsOnly`](crate::Stall) is a silent stream here.

use std::sync::Arc;

use a2a_proto::v1 as pb;
use a2a_proto::v1::a2a_service_server::{A2aService, A2aServiceServer};
use axum::http::HeaderMap;
use futures::SinkExt;
use futures::channel::mpsc;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tonic::{Code, Request, Response, Status};
use tonic_types::{ErrorDetails, StatusExt as _};

use crate::ops::{self, Op, Outcome, StreamPlan};
use crate::record::RecordedRequest;
use crate::script::Protocol;
use crate::store::Shared;
use crate::stream::Cut;
use crate::wire::A2aError;

/// The path prefix of every gRPC method.
pub(crate) const GRPC_PREFIX: &str = "/lf.a2a.v1.A2AService/";

/// The service, ready to be routed under [`GRPC_PREFIX`].
pub(crate) fn service(shared: Arc<Shared>) -> A2aServiceServer<GrpcAgent> {
    A2aServiceServer::new(GrpcAgent { shared }).max_decoding_message_size(super::BODY_LIMIT)
}

/// The scripted agent behind the gRPC service.
#[derive(Debug)]
pub(crate) struct GrpcAgent {
    shared: Arc<Shared>,
}

type Events = mpsc::Receiver<Result<pb::StreamResponse, Status>>;

impl GrpcAgent {
    /// Records the request, then checks what the HTTP bindings check before an operation runs: the
    /// guard, the scripted faults, the version, the tenant. The request as ProtoJSON when admitted.
    async fn admit<M: Serialize>(
        &self,
        op: Op,
        request: &Request<M>,
    ) -> Result<(Value, Vec<String>), Status> {
        let shared = &self.shared;
        let headers: HeaderMap = request.metadata().clone().into_headers();
        let params = serde_json::to_value(request.get_ref()).map_err(|e| Status::internal(e.to_string()))?;
        let recorded = RecordedRequest {
            http_method: "POST".to_owned(),
            path: format!("{GRPC_PREFIX}{}", op.name()),
            query: None,
            operation: Some(op.name().to_owned()),
            rpc_method: None,
            body: Some(params.clone()),
            headers: headers
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                .collect(),
            at: shared.started.elapsed(),
        };
        shared.lock().requests.push(recorded);
        if let Some(denied) = shared.gate.check(&headers, None) {
            let message = format!("the guard answered http {}", denied.status().as_u16());
            return Err(match denied.status().as_u16() {
                403 => Status::permission_denied(message),
                _ => Status::unauthenticated(message),
            });
        }
        if shared.denies_task_reads && matches!(op, Op::GetTask | Op::ListTasks) {
            return Err(Status::unauthenticated("the guard answered http 401"));
        }
        if let Some(fault) = super::transport_fault(shared).await {
            return Err(Status::unavailable(format!("scripted http {}", fault.status().as_u16())));
        }
        if shared.protocol != Protocol::V1_0 {
            return Err(Status::unimplemented(
                "this agent speaks protocol 0.3, which has no gRPC binding here",
            ));
        }
        if let Some(error) = super::version_error(shared, &headers, None) {
            return Err(status_of(&error));
        }
        let activated = shared.extensions.admit(&headers).map_err(|error| status_of(&error))?;
        if let Some(tenant) = &shared.tenant
            && params.get("tenant").and_then(Value::as_str) != Some(tenant.as_str())
        {
            return Err(status_of(&A2aError::invalid_params(format!("tenant must be {tenant:?}"))));
        }
        Ok((params, activated))
    }

    async fn unary<M: Serialize, R: DeserializeOwned>(
        &self,
        op: Op,
        request: Request<M>,
    ) -> Result<Response<R>, Status> {
        let (params, activated) = self.admit(op, &request).await?;
        match ops::execute(&self.shared, op, params).await {
            Outcome::Json(result) => Ok(echoed(Response::new(from_json(result)?), &activated)),
            Outcome::Error(error) => Err(status_of(&error)),
            Outcome::Stream(_) => Err(Status::internal("a unary operation produced a stream")),
        }
    }

    async fn stream<M: Serialize>(&self, op: Op, request: Request<M>) -> Result<Response<Events>, Status> {
        let (params, activated) = self.admit(op, &request).await?;
        match ops::execute(&self.shared, op, params).await {
            Outcome::Stream(plan) => {
                Ok(echoed(Response::new(forward(plan, super::stream_cut(&self.shared))), &activated))
            }
            // A unary answer to a streaming call: one message, as a stream of one.
            Outcome::Json(result) => {
                let (mut tx, rx) = mpsc::channel(1);
                let event = from_json(result);
                let _ = tx.try_send(event);
                drop(tx.close().await);
                Ok(echoed(Response::new(rx), &activated))
            }
            Outcome::Error(error) => Err(status_of(&error)),
        }
    }
}

/// Forwards the plan's events as stream messages until one ends the stream, cut as scripted.
fn forward(plan: StreamPlan, cut: Cut) -> Events {
    let (mut tx, rx) = mpsc::channel(16);
    let StreamPlan { mut first, mut events, misaddress_after_first } = plan;
    tokio::spawn(async move {
        let mut sent = 0_usize;
        loop {
            let event = match first.take() {
                Some(event) => event,
                None => match events.recv().await {
                    Ok(event) => event,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
            };
            if !event.on_stream {
                continue;
            }
            if matches!(cut, Cut::Reset(after) | Cut::Truncate(after) if sent == after) {
                let _ = tx.send(Err(Status::cancelled("scripted stream cut"))).await;
                return;
            }
            let body = if misaddress_after_first && sent > 0 {
                crate::ops::misaddress::about_another_task(&event.body)
            } else {
                event.body.clone()
            };
            let message = from_json::<pb::StreamResponse>(body);
            for _ in 1..event.times {
                if tx.send(message.clone()).await.is_err() {
                    return; // The client went away.
                }
            }
            if tx.send(message).await.is_err() {
                return; // The client went away.
            }
            sent += 1;
            if event.ends_stream {
                break;
            }
        }
    });
    rx
}

/// `response` with the activated extensions named in its metadata (`a2a-extensions`).
fn echoed<T>(mut response: Response<T>, activated: &[String]) -> Response<T> {
    if !activated.is_empty()
        && let Ok(value) = tonic::metadata::AsciiMetadataValue::try_from(activated.join(",").as_str())
    {
        response.metadata_mut().insert("a2a-extensions", value);
    }
    response
}

fn from_json<R: DeserializeOwned>(value: Value) -> Result<R, Status> {
    serde_json::from_value(value)
        .map_err(|e| Status::internal(format!("the answer has no protobuf form: {e}")))
}

/// The `google.rpc.Status` of an A2A error: its gRPC code, message and `ErrorInfo`.
fn status_of(error: &A2aError) -> Status {
    let code = code_named(error.grpc_status);
    match error.reason {
        Some(reason) => {
            let details = ErrorDetails::with_error_info(
                reason,
                crate::wire::A2A_ERROR_DOMAIN,
                std::collections::HashMap::new(),
            );
            Status::with_error_details(code, error.message.clone(), details)
        }
        None => Status::new(code, error.message.clone()),
    }
}

fn code_named(name: &str) -> Code {
    match name {
        "NOT_FOUND" => Code::NotFound,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "UNIMPLEMENTED" => Code::Unimplemented,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "UNAVAILABLE" => Code::Unavailable,
        "INTERNAL" => Code::Internal,
        _ => Code::Unknown,
    }
}

#[tonic::async_trait]
impl A2aService for GrpcAgent {
    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        self.unary(Op::SendMessage, request).await
    }

    type SendStreamingMessageStream = Events;

    async fn send_streaming_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream(Op::SendStreamingMessage, request).await
    }

    async fn get_task(&self, request: Request<pb::GetTaskRequest>) -> Result<Response<pb::Task>, Status> {
        self.unary(Op::GetTask, request).await
    }

    async fn list_tasks(
        &self,
        request: Request<pb::ListTasksRequest>,
    ) -> Result<Response<pb::ListTasksResponse>, Status> {
        self.unary(Op::ListTasks, request).await
    }

    async fn cancel_task(
        &self,
        request: Request<pb::CancelTaskRequest>,
    ) -> Result<Response<pb::Task>, Status> {
        self.unary(Op::CancelTask, request).await
    }

    type SubscribeToTaskStream = Events;

    async fn subscribe_to_task(
        &self,
        request: Request<pb::SubscribeToTaskRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream(Op::SubscribeToTask, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<pb::TaskPushNotificationConfig>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        self.unary(Op::CreatePushConfig, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<pb::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        self.unary(Op::GetPushConfig, request).await
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<pb::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<pb::ListTaskPushNotificationConfigsResponse>, Status> {
        self.unary(Op::ListPushConfigs, request).await
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<pb::GetExtendedAgentCardRequest>,
    ) -> Result<Response<pb::AgentCard>, Status> {
        self.unary(Op::GetExtendedAgentCard, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<pb::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        let (params, activated) = self.admit(Op::DeletePushConfig, &request).await?;
        match ops::execute(&self.shared, Op::DeletePushConfig, params).await {
            Outcome::Error(error) => Err(status_of(&error)),
            _ => Ok(echoed(Response::new(pbjson_types::Empty {}), &activated)),
        }
    }
}
