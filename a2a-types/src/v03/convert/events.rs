//! Streaming events and the send/stream result unions.

use super::task::{
    artifact_from_v1, artifact_to_v1, message_from_v1, message_to_v1, optional_context, required_context,
    status_from_v1, status_to_v1, task_from_v1, task_to_v1,
};
use super::{Losses, at, conversions};
use crate::v1;
use crate::v03::{
    SendMessageResult, StreamResult, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent,
};

conversions!(TaskStatusUpdateEvent, v1::TaskStatusUpdateEvent, status_update_to_v1, status_update_from_v1);
conversions!(
    TaskArtifactUpdateEvent,
    v1::TaskArtifactUpdateEvent,
    artifact_update_to_v1,
    artifact_update_from_v1
);
conversions!(StreamResult, v1::StreamResponse, stream_to_v1, stream_from_v1);
conversions!(SendMessageResult, v1::SendMessageResponse, send_result_to_v1, send_result_from_v1);

pub(super) fn status_update_to_v1(
    e: &TaskStatusUpdateEvent,
    path: &str,
    losses: &mut Losses,
) -> v1::TaskStatusUpdateEvent {
    let inferred = e.status.state.ends_stream();
    if e.is_final != inferred {
        let what = if e.is_final {
            "true on a state after which a 1.0 stream stays open: the agent ends the stream here, \
             which 1.0 cannot say"
        } else {
            "false on a terminal or interrupted state: the agent keeps the stream open after it, \
             which 1.0 cannot say"
        };
        losses.lose(at(path, "final"), what);
    }
    v1::TaskStatusUpdateEvent {
        task_id: e.task_id.clone(),
        context_id: optional_context(&e.context_id),
        status: status_to_v1(&e.status, &at(path, "status"), losses),
        metadata: e.metadata.clone(),
    }
}

pub(super) fn status_update_from_v1(
    e: &v1::TaskStatusUpdateEvent,
    path: &str,
    losses: &mut Losses,
) -> TaskStatusUpdateEvent {
    TaskStatusUpdateEvent {
        task_id: e.task_id.clone(),
        context_id: required_context(e.context_id.as_ref(), path, losses),
        status: status_from_v1(&e.status, &at(path, "status"), losses),
        is_final: TaskState::from_v1(e.status.state).ends_stream(),
        metadata: e.metadata.clone(),
    }
}

pub(super) fn artifact_update_to_v1(
    e: &TaskArtifactUpdateEvent,
    path: &str,
    losses: &mut Losses,
) -> v1::TaskArtifactUpdateEvent {
    v1::TaskArtifactUpdateEvent {
        task_id: e.task_id.clone(),
        context_id: optional_context(&e.context_id),
        artifact: artifact_to_v1(&e.artifact, &at(path, "artifact"), losses),
        append: e.append,
        last_chunk: e.last_chunk,
        metadata: e.metadata.clone(),
    }
}

pub(super) fn artifact_update_from_v1(
    e: &v1::TaskArtifactUpdateEvent,
    path: &str,
    losses: &mut Losses,
) -> TaskArtifactUpdateEvent {
    TaskArtifactUpdateEvent {
        task_id: e.task_id.clone(),
        context_id: required_context(e.context_id.as_ref(), path, losses),
        artifact: artifact_from_v1(&e.artifact, &at(path, "artifact"), losses),
        append: e.append,
        last_chunk: e.last_chunk,
        metadata: e.metadata.clone(),
    }
}

// The 1.0 unions wrap their member (`{"task": {...}}`), so paths inside 1.0 results start with the
// member name; 0.3 results are the bare object.

pub(super) fn stream_to_v1(r: &StreamResult, path: &str, losses: &mut Losses) -> v1::StreamResponse {
    match r {
        StreamResult::Task(t) => v1::StreamResponse::Task(task_to_v1(t, path, losses)),
        StreamResult::Message(m) => v1::StreamResponse::Message(message_to_v1(m, path, losses)),
        StreamResult::StatusUpdate(e) => {
            v1::StreamResponse::StatusUpdate(status_update_to_v1(e, path, losses))
        }
        StreamResult::ArtifactUpdate(e) => {
            v1::StreamResponse::ArtifactUpdate(artifact_update_to_v1(e, path, losses))
        }
    }
}

pub(super) fn stream_from_v1(r: &v1::StreamResponse, path: &str, losses: &mut Losses) -> StreamResult {
    match r {
        v1::StreamResponse::Task(t) => StreamResult::Task(task_from_v1(t, &at(path, "task"), losses)),
        v1::StreamResponse::Message(m) => {
            StreamResult::Message(message_from_v1(m, &at(path, "message"), losses))
        }
        v1::StreamResponse::StatusUpdate(e) => {
            StreamResult::StatusUpdate(status_update_from_v1(e, &at(path, "statusUpdate"), losses))
        }
        v1::StreamResponse::ArtifactUpdate(e) => {
            StreamResult::ArtifactUpdate(artifact_update_from_v1(e, &at(path, "artifactUpdate"), losses))
        }
    }
}

pub(super) fn send_result_to_v1(
    r: &SendMessageResult,
    path: &str,
    losses: &mut Losses,
) -> v1::SendMessageResponse {
    match r {
        SendMessageResult::Task(t) => v1::SendMessageResponse::Task(task_to_v1(t, path, losses)),
        SendMessageResult::Message(m) => v1::SendMessageResponse::Message(message_to_v1(m, path, losses)),
    }
}

pub(super) fn send_result_from_v1(
    r: &v1::SendMessageResponse,
    path: &str,
    losses: &mut Losses,
) -> SendMessageResult {
    match r {
        v1::SendMessageResponse::Task(t) => {
            SendMessageResult::Task(task_from_v1(t, &at(path, "task"), losses))
        }
        v1::SendMessageResponse::Message(m) => {
            SendMessageResult::Message(message_from_v1(m, &at(path, "message"), losses))
        }
    }
}
