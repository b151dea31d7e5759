//! Server-sent events: `data: <json>\n\n` frames, with the scripted cuts (reset, truncation).

use std::io;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use futures::SinkExt;
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use crate::ops::StreamPlan;
use crate::wire;

/// How each event is framed.
#[derive(Debug, Clone)]
pub(crate) enum Framing {
    /// A JSON-RPC response per event, echoing the request id.
    JsonRpc { id: Value },
    /// The bare StreamResponse (HTTP+JSON).
    Rest,
    /// 0.3 over HTTP+JSON: the event (a 0.3 JSON-RPC result) as the 0.3 proto's `StreamResponse`,
    /// pretty-printed over several CRLF-ended `data:` lines, as a2a-python 0.3 writes it.
    RestV03Proto,
}

/// A scripted way for the stream to break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    None,
    /// Abort the body (the client sees the connection drop) after this many complete events.
    Reset(usize),
    /// Send half of the next event, then end the body cleanly, after this many complete events.
    Truncate(usize),
}

/// How the events are written beyond their framing: the script's wire quirks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Writing {
    /// Events after the first written 0.3-shaped ([`crate::Quirk::V03ShapedEventsAfterFirst`]).
    pub(crate) v03_shaped_after_first: bool,
    /// Each event's `data` preceded by the record separator 0x1E
    /// ([`crate::Quirk::JsonTextSequenceEvents`]).
    pub(crate) record_separator: bool,
    /// A JSON-RPC result that is a 0.3 task written without its `kind`
    /// ([`crate::Quirk::V03TasksWithoutKind`]).
    pub(crate) v03_task_without_kind: bool,
    /// 0.3 JSON-RPC events written as the result alone, without `kind`s and updates without
    /// `contextId` ([`crate::Quirk::BareV03StreamEvents`]).
    pub(crate) bare_v03_events: bool,
}

impl Writing {
    /// `result` as this writing puts it in a JSON-RPC answer or event.
    pub(crate) fn jsonrpc_result(self, result: Value) -> Value {
        match result {
            Value::Object(mut task)
                if self.v03_task_without_kind && task.get("kind") == Some(&"task".into()) =>
            {
                task.remove("kind");
                Value::Object(task)
            }
            other => other,
        }
    }
}

fn frame(framing: &Framing, body: &Value, writing: Writing) -> Bytes {
    let data = match framing {
        Framing::JsonRpc { .. } if writing.bare_v03_events => {
            bare_v03(writing.jsonrpc_result(body.clone())).to_string()
        }
        Framing::JsonRpc { id } => wire::jsonrpc_result(id, writing.jsonrpc_result(body.clone())).to_string(),
        Framing::Rest => body.to_string(),
        Framing::RestV03Proto => {
            let text = crate::proto_v03::sse_frame(&crate::proto_v03::stream_response(body));
            // A multi-line event: the separator opens its first `data:` line, so the joined data
            // starts with it.
            let text = match (writing.record_separator, text.strip_prefix("data: ")) {
                (true, Some(rest)) => format!("data: \u{1e}{rest}"),
                _ => text,
            };
            return Bytes::from(text);
        }
    };
    let separator = if writing.record_separator { "\u{1e}" } else { "" };
    Bytes::from(format!("data: {separator}{data}\n\n"))
}

/// A 0.3 result as a bare event: no `kind` on it, its messages or its parts; no `contextId` on
/// an update (a task keeps its own, which names it a task).
fn bare_v03(mut result: Value) -> Value {
    fn unkind(value: &mut Value) {
        if let Some(object) = value.as_object_mut() {
            object.remove("kind");
            for part in object.get_mut("parts").and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(part) = part.as_object_mut() {
                    part.remove("kind");
                }
            }
        }
    }
    let Some(object) = result.as_object_mut() else { return result };
    let kind = object.remove("kind");
    if kind.as_ref().and_then(Value::as_str) != Some("task") {
        object.remove("contextId");
    }
    if let Some(message) = object.get_mut("status").and_then(|s| s.get_mut("message")) {
        unkind(message);
    }
    for message in object.get_mut("history").and_then(Value::as_array_mut).into_iter().flatten() {
        unkind(message);
    }
    for artifact in object.get_mut("artifacts").and_then(Value::as_array_mut).into_iter().flatten() {
        unkind(artifact);
    }
    if let Some(artifact) = object.get_mut("artifact") {
        unkind(artifact);
    }
    if kind.as_ref().and_then(Value::as_str) == Some("message") {
        unkind(&mut result);
    }
    result
}

/// A 1.0 stream item written the 0.3 way: the wrapped event unwrapped, with a `kind`
/// discriminator (and `final` on a status update); the enum names stay 1.0.
fn v03_shaped(body: &Value, ends_stream: bool) -> Value {
    let Some(object) = body.as_object() else { return body.clone() };
    let (kind, inner) = if let Some(inner) = object.get("statusUpdate") {
        ("status-update", inner)
    } else if let Some(inner) = object.get("artifactUpdate") {
        ("artifact-update", inner)
    } else if let Some(inner) = object.get("task") {
        ("task", inner)
    } else {
        return body.clone();
    };
    let mut reshaped = inner.as_object().cloned().unwrap_or_default();
    reshaped.insert("kind".to_owned(), Value::from(kind));
    if kind == "status-update" {
        reshaped.insert("final".to_owned(), Value::Bool(ends_stream));
    }
    Value::Object(reshaped)
}

/// An SSE response that forwards the plan's events until one ends the stream.
pub(crate) fn sse_response(
    plan: StreamPlan,
    framing: Framing,
    cut: Cut,
    keepalive: Option<std::time::Duration>,
    writing: Writing,
) -> Response {
    let (mut tx, rx) = futures::channel::mpsc::channel::<Result<Bytes, io::Error>>(16);
    let StreamPlan { mut first, mut events, misaddress_after_first } = plan;
    tokio::spawn(async move {
        let mut sent = 0_usize;
        loop {
            let next = match (first.take(), keepalive) {
                (Some(event), _) => Ok(event),
                (None, None) => events.recv().await,
                (None, Some(every)) => match tokio::time::timeout(every, events.recv()).await {
                    Ok(next) => next,
                    Err(_) => {
                        // A keep-alive comment: bytes on the wire, no event.
                        if tx.send(Ok(Bytes::from_static(b": keep-alive\n\n"))).await.is_err() {
                            return;
                        }
                        continue;
                    }
                },
            };
            let event = match next {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            if !event.on_stream {
                continue;
            }
            let body = if misaddress_after_first && sent > 0 {
                crate::ops::misaddress::about_another_task(&event.body)
            } else {
                event.body.clone()
            };
            let bytes = if writing.v03_shaped_after_first && sent > 0 {
                frame(&framing, &v03_shaped(&body, event.ends_stream), writing)
            } else {
                frame(&framing, &body, writing)
            };
            match cut {
                Cut::Reset(after) if sent == after => {
                    let reset = io::Error::new(io::ErrorKind::ConnectionReset, "scripted connection reset");
                    let _ = tx.send(Err(reset)).await;
                    return;
                }
                Cut::Truncate(after) if sent == after => {
                    let half = bytes.len() / 2;
                    let _ = tx.send(Ok(bytes.slice(..half))).await;
                    return;
                }
                _ => {}
            }
            for _ in 1..event.times {
                if tx.send(Ok(bytes.clone())).await.is_err() {
                    return; // The client went away.
                }
            }
            if tx.send(Ok(bytes)).await.is_err() {
                return; // The client went away.
            }
            sent += 1;
            if event.ends_stream {
                break;
            }
        }
    });
    let mut response = Response::new(Body::from_stream(rx));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
