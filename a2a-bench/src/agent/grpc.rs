//! The bench agent's gRPC face: `SendMessage` and `SendStreamingMessage` answered with protobuf
//! messages built directly (no ProtoJSON on the agent's side, unlike the testkit's service), the
//! other methods `UNIMPLEMENTED`.

use a2a_proto::v1 as pb;
use a2a_proto::v1::a2a_service_server::{A2aService, A2aServiceServer};
use tonic::{Request, Response, Status};

/// The path prefix of every gRPC method.
pub(super) const GRPC_PREFIX: &str = "/lf.a2a.v1.A2AService/";

/// The service, ready to be routed under [`GRPC_PREFIX`].
pub(super) fn service(stream_events: usize) -> A2aServiceServer<GrpcAgent> {
    A2aServiceServer::new(GrpcAgent { stream_events })
}

/// Answers as the HTTP faces do; keeps nothing.
#[derive(Debug)]
pub(super) struct GrpcAgent {
    stream_events: usize,
}

type Events = futures::stream::Iter<std::vec::IntoIter<Result<pb::StreamResponse, Status>>>;

/// The `a2a-version` metadata a 1.0 agent requires, or the error it answers without it.
fn admit<M>(request: &Request<M>) -> Result<(String, String), Status> {
    if request.metadata().get("a2a-version").and_then(|v| v.to_str().ok()) != Some("1.0") {
        return Err(Status::failed_precondition("A2A-Version 1.0 required"));
    }
    Ok((uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string()))
}

fn status(state: pb::TaskState) -> Option<pb::TaskStatus> {
    Some(pb::TaskStatus { state: state.into(), ..pb::TaskStatus::default() })
}

fn text_part(text: String) -> pb::Part {
    pb::Part { content: Some(pb::part::Content::Text(text)), ..pb::Part::default() }
}

fn event(payload: pb::stream_response::Payload) -> Result<pb::StreamResponse, Status> {
    Ok(pb::StreamResponse { payload: Some(payload) })
}

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("the bench agent answers SendMessage and SendStreamingMessage only"))
}

#[tonic::async_trait]
impl A2aService for GrpcAgent {
    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        let (id, context_id) = admit(&request)?;
        let text = request
            .get_ref()
            .message
            .as_ref()
            .and_then(|m| m.parts.first())
            .and_then(|p| match &p.content {
                Some(pb::part::Content::Text(text)) => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default();
        let task = pb::Task {
            id,
            context_id,
            status: status(pb::TaskState::Completed),
            artifacts: vec![pb::Artifact {
                artifact_id: "answer".to_owned(),
                name: "answer".to_owned(),
                parts: vec![text_part(format!("echo: {text}"))],
                ..pb::Artifact::default()
            }],
            ..pb::Task::default()
        };
        Ok(Response::new(pb::SendMessageResponse {
            payload: Some(pb::send_message_response::Payload::Task(task)),
        }))
    }

    type SendStreamingMessageStream = Events;

    /// The same events as the HTTP faces' streams, each its own gRPC message.
    async fn send_streaming_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<Events>, Status> {
        use pb::stream_response::Payload;
        let (task_id, context_id) = admit(&request)?;
        let chunks = self.stream_events - 2;
        let mut events = Vec::with_capacity(self.stream_events);
        events.push(event(Payload::Task(pb::Task {
            id: task_id.clone(),
            context_id: context_id.clone(),
            status: status(pb::TaskState::Submitted),
            ..pb::Task::default()
        })));
        for n in 0..chunks {
            events.push(event(Payload::ArtifactUpdate(pb::TaskArtifactUpdateEvent {
                task_id: task_id.clone(),
                context_id: context_id.clone(),
                artifact: Some(pb::Artifact {
                    artifact_id: "answer".to_owned(),
                    parts: vec![text_part(format!("chunk {n} "))],
                    ..pb::Artifact::default()
                }),
                append: n > 0,
                last_chunk: n + 1 == chunks,
                metadata: None,
            })));
        }
        events.push(event(Payload::StatusUpdate(pb::TaskStatusUpdateEvent {
            task_id,
            context_id,
            status: status(pb::TaskState::Completed),
            metadata: None,
        })));
        Ok(Response::new(futures::stream::iter(events)))
    }

    async fn get_task(&self, _: Request<pb::GetTaskRequest>) -> Result<Response<pb::Task>, Status> {
        unimplemented()
    }

    async fn list_tasks(
        &self,
        _: Request<pb::ListTasksRequest>,
    ) -> Result<Response<pb::ListTasksResponse>, Status> {
        unimplemented()
    }

    async fn cancel_task(&self, _: Request<pb::CancelTaskRequest>) -> Result<Response<pb::Task>, Status> {
        unimplemented()
    }

    type SubscribeToTaskStream = Events;

    async fn subscribe_to_task(
        &self,
        _: Request<pb::SubscribeToTaskRequest>,
    ) -> Result<Response<Events>, Status> {
        unimplemented()
    }

    async fn create_task_push_notification_config(
        &self,
        _: Request<pb::TaskPushNotificationConfig>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        unimplemented()
    }

    async fn get_task_push_notification_config(
        &self,
        _: Request<pb::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        unimplemented()
    }

    async fn list_task_push_notification_configs(
        &self,
        _: Request<pb::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<pb::ListTaskPushNotificationConfigsResponse>, Status> {
        unimplemented()
    }

    async fn get_extended_agent_card(
        &self,
        _: Request<pb::GetExtendedAgentCardRequest>,
    ) -> Result<Response<pb::AgentCard>, Status> {
        unimplemented()
    }

    async fn delete_task_push_notification_config(
        &self,
        _: Request<pb::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        unimplemented()
    }
}
