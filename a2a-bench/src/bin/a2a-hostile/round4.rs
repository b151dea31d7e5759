//! The fourth hostile round's agent (`serve-round4`): costs an agent sets by repeating itself.
//!
//! `tiny-events`: a stream of the same tiny `WORKING` status update, `count` times or without end,
//! over JSON-RPC SSE, HTTP+JSON SSE or gRPC. Each event adds nothing to what the client knows.

use std::convert::Infallible;
use std::pin::Pin;

use a2a_proto::v1 as pb;
use a2a_proto::v1::a2a_service_server::{A2aService, A2aServiceServer};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use tonic::{Request, Response, Status};

/// Repeated events written per SSE chunk (the agent is not what is measured).
const FRAMES_PER_CHUNK: u64 = 64;

const WORKING_TASK: &str = r#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}"#;
const WORKING: &str =
    r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
const ARTIFACT: &str = r#"{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"ok"}]}}}"#;
const COMPLETED: &str =
    r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#;
const COMPLETED_TASK: &str = r#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"ok"}]}]}"#;

/// Serves the agent of `kind` on `binding` until killed, its URL printed first.
pub(crate) async fn serve(kind: &str, binding: &str, count: u64, port: u16) {
    use axum::routing::{get, post};
    if kind != "tiny-events" {
        return eprintln!("serve-round4 takes tiny-events, not {kind}");
    }
    let (binding_name, path) = match binding {
        "jsonrpc" => ("JSONRPC", "/a2a"),
        "rest" => ("HTTP+JSON", ""),
        "grpc" => ("GRPC", ""),
        other => return eprintln!("--binding takes jsonrpc, rest or grpc, not {other}"),
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = serde_json::json!({
        "name": kind, "description": "fourth hostile round: the same event again", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}{path}"), "protocolBinding": binding_name, "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    })
    .to_string();
    let jsonrpc = move |body: Bytes| async move {
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let id = request["id"].to_string();
        let frame = move |result: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        match request["method"].as_str().unwrap_or_default() {
            "SendStreamingMessage" => sse(count, frame),
            "GetTask" => json(frame(COMPLETED_TASK)),
            _ => json(frame(&format!(r#"{{"task":{COMPLETED_TASK}}}"#))),
        }
    };
    let bare = |result: &str| result.to_owned();
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { ([("content-type", "application/json")], card) }),
        )
        .route("/a2a", post(jsonrpc))
        .route("/message:stream", post(move || async move { sse(count, bare) }))
        .route("/message:send", post(|| async { json(format!(r#"{{"task":{COMPLETED_TASK}}}"#)) }))
        .route("/tasks/{id}", get(|| async { json(COMPLETED_TASK.to_owned()) }))
        .route_service("/lf.a2a.v1.A2AService/{method}", A2aServiceServer::new(TinyEvents { count }));
    println!("{base}");
    let _ = axum::serve(listener, app).await;
}

fn json(body: String) -> axum::response::Response {
    axum::response::Response::builder()
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body))
        .expect("response")
}

/// The SSE stream: a working task, `count` identical working updates (0: without end), an artifact
/// and completion, each event's data made by `frame`.
fn sse(count: u64, frame: impl Fn(&str) -> String + Send + 'static) -> axum::response::Response {
    let event = |data: String| format!("data: {data}\n\n");
    let chunk = Bytes::from(event(frame(WORKING)).repeat(usize::try_from(FRAMES_PER_CHUNK).unwrap_or(1)));
    let single = Bytes::from(event(frame(WORKING)));
    let (chunks, rest) = (count / FRAMES_PER_CHUNK, count % FRAMES_PER_CHUNK);
    let head = futures::stream::once(futures::future::ready(Bytes::from(event(frame(&format!(
        r#"{{"task":{WORKING_TASK}}}"#
    ))))));
    let tail = Bytes::from(format!("{}{}", event(frame(ARTIFACT)), event(frame(COMPLETED))));
    let repeated: Pin<Box<dyn Stream<Item = Bytes> + Send>> = if count == 0 {
        Box::pin(futures::stream::repeat(chunk))
    } else {
        Box::pin(
            futures::stream::repeat(chunk)
                .take(usize::try_from(chunks).unwrap_or(usize::MAX))
                .chain(futures::stream::repeat(single).take(usize::try_from(rest).unwrap_or(0)))
                .chain(futures::stream::once(futures::future::ready(tail))),
        )
    };
    axum::response::Response::builder()
        .header("content-type", "text/event-stream")
        .body(axum::body::Body::from_stream(head.chain(repeated).map(Ok::<_, Infallible>)))
        .expect("response")
}

/// The gRPC face: the same events, each its own message.
#[derive(Debug)]
struct TinyEvents {
    count: u64,
}

type Events = Pin<Box<dyn Stream<Item = Result<pb::StreamResponse, Status>> + Send>>;

fn status(state: pb::TaskState) -> Option<pb::TaskStatus> {
    Some(pb::TaskStatus { state: state.into(), ..pb::TaskStatus::default() })
}

fn completed_task() -> pb::Task {
    pb::Task {
        id: "t1".to_owned(),
        context_id: "c1".to_owned(),
        status: status(pb::TaskState::Completed),
        artifacts: vec![artifact()],
        ..pb::Task::default()
    }
}

fn artifact() -> pb::Artifact {
    pb::Artifact {
        artifact_id: "a1".to_owned(),
        parts: vec![pb::Part {
            content: Some(pb::part::Content::Text("ok".to_owned())),
            ..pb::Part::default()
        }],
        ..pb::Artifact::default()
    }
}

fn update(state: pb::TaskState) -> pb::StreamResponse {
    pb::StreamResponse {
        payload: Some(pb::stream_response::Payload::StatusUpdate(pb::TaskStatusUpdateEvent {
            task_id: "t1".to_owned(),
            context_id: "c1".to_owned(),
            status: status(state),
            metadata: None,
        })),
    }
}

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("the tiny-events agent streams, and answers GetTask and SendMessage"))
}

#[tonic::async_trait]
impl A2aService for TinyEvents {
    async fn send_message(
        &self,
        _: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        Ok(Response::new(pb::SendMessageResponse {
            payload: Some(pb::send_message_response::Payload::Task(completed_task())),
        }))
    }

    type SendStreamingMessageStream = Events;

    async fn send_streaming_message(
        &self,
        _: Request<pb::SendMessageRequest>,
    ) -> Result<Response<Events>, Status> {
        use pb::stream_response::Payload;
        let first = pb::StreamResponse {
            payload: Some(Payload::Task(pb::Task {
                id: "t1".to_owned(),
                context_id: "c1".to_owned(),
                status: status(pb::TaskState::Working),
                ..pb::Task::default()
            })),
        };
        let head = futures::stream::once(futures::future::ready(first));
        let working = futures::stream::repeat_with(|| update(pb::TaskState::Working));
        let events: Pin<Box<dyn Stream<Item = pb::StreamResponse> + Send>> = if self.count == 0 {
            Box::pin(head.chain(working))
        } else {
            let tail = [
                pb::StreamResponse {
                    payload: Some(Payload::ArtifactUpdate(pb::TaskArtifactUpdateEvent {
                        task_id: "t1".to_owned(),
                        context_id: "c1".to_owned(),
                        artifact: Some(artifact()),
                        append: false,
                        last_chunk: true,
                        metadata: None,
                    })),
                },
                update(pb::TaskState::Completed),
            ];
            Box::pin(
                head.chain(working.take(usize::try_from(self.count).unwrap_or(usize::MAX)))
                    .chain(futures::stream::iter(tail)),
            )
        };
        Ok(Response::new(Box::pin(events.map(Ok))))
    }

    async fn get_task(&self, _: Request<pb::GetTaskRequest>) -> Result<Response<pb::Task>, Status> {
        Ok(Response::new(completed_task()))
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
