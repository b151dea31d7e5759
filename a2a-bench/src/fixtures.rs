//! The bytes the benchmarks parse: recorded from the official Python server (the wire transcripts in
//! `/work/shared/a2a-spec`), and the 1,000-event stream the bench agent sends.

use serde_json::{Value, json};

/// The Agent Card the official Python peer (a2a-sdk 1.3.0) serves: 513 bytes.
pub const PYTHON_PEER_CARD: &str = r#"{"name":"python-peer","description":"a2a-sdk loopback test peer","supportedInterfaces":[{"url":"http://127.0.0.1:41101/a2a/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://127.0.0.1:41101/a2a/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],"version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"echo","description":"echoes text","tags":["test"]}]}"#;

/// A `statusUpdate` stream event, as the official Python server writes it (SSE `data:`).
pub const STATUS_UPDATE_EVENT: &str = r#"{"result": {"statusUpdate": {"taskId": "1c0c0279-6321-478d-a1d9-f3a05ec8fe79", "contextId": "f15f2903-2e82-4e48-a965-9cac49e1f882", "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-29T20:03:02.609769Z"}}}, "id": "s2", "jsonrpc": "2.0"}"#;

/// An `artifactUpdate` stream event, as the official Python server writes it (SSE `data:`).
pub const ARTIFACT_UPDATE_EVENT: &str = r#"{"result": {"artifactUpdate": {"taskId": "1c0c0279-6321-478d-a1d9-f3a05ec8fe79", "contextId": "f15f2903-2e82-4e48-a965-9cac49e1f882", "artifact": {"artifactId": "a61b345a-f888-46fb-b922-86c9323adb68", "name": "answer", "parts": [{"text": "echo: I need an echo"}]}, "lastChunk": true}}, "id": "s2", "jsonrpc": "2.0"}"#;

/// The `result` members of a stream of `events` events (at least 2): a submitted `Task`, artifact
/// chunks, a completed status update.
pub fn stream_results(task_id: &str, context_id: &str, events: usize) -> Vec<Value> {
    let chunks = events.max(2) - 2;
    let mut results = Vec::with_capacity(chunks + 2);
    results.push(json!({"task": {
        "id": task_id, "contextId": context_id, "status": {"state": "TASK_STATE_SUBMITTED"}
    }}));
    for n in 0..chunks {
        results.push(json!({"artifactUpdate": {
            "taskId": task_id,
            "contextId": context_id,
            "artifact": {"artifactId": "answer", "parts": [{"text": format!("chunk {n} ")}]},
            "append": n > 0,
            "lastChunk": n + 1 == chunks
        }}));
    }
    results.push(json!({"statusUpdate": {
        "taskId": task_id, "contextId": context_id, "status": {"state": "TASK_STATE_COMPLETED"}
    }}));
    results
}

/// One SSE frame carrying a JSON-RPC result.
pub fn sse_frame(id: &Value, result: Value) -> String {
    let envelope = json!({"jsonrpc": "2.0", "id": id, "result": result});
    format!("data: {envelope}\n\n")
}

/// The wire shapes the bench agent answers in, one per binding it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// A2A 1.0 JSON-RPC: each answer and event a JSON-RPC result holding a 1.0 `StreamResponse`.
    JsonRpc,
    /// A2A 1.0 HTTP+JSON: the `SendMessageResponse` and each `StreamResponse` as the body or `data:`.
    HttpJson,
    /// A2A 0.3 JSON-RPC: `kind`-tagged results (`task`, `artifact-update`, `status-update` with
    /// `final`), lower-case states, `kind`-tagged parts.
    JsonRpcV03,
}

/// The SSE frames of a stream in `wire`'s shape, rendered with `format!` instead of building
/// `Value`s, so that the bench agent spends as little as possible per event. `id` is the request's
/// JSON-RPC id as JSON (unused over HTTP+JSON); the ids must be JSON-string-safe (UUIDs are). Over
/// 1.0 JSON-RPC equal, as JSON, to [`stream_results`] in [`sse_frame`]s (tested).
pub fn render_stream(wire: Wire, id: &str, task_id: &str, context_id: &str, events: usize) -> Vec<String> {
    let chunks = events.max(2) - 2;
    let mut frames = Vec::with_capacity(chunks + 2);
    let (head, tail) = match wire {
        Wire::HttpJson => ("data: ".to_owned(), "\n\n"),
        Wire::JsonRpc | Wire::JsonRpcV03 => {
            (format!(r#"data: {{"jsonrpc":"2.0","id":{id},"result":"#), "}\n\n")
        }
    };
    let v03 = wire == Wire::JsonRpcV03;
    frames.push(if v03 {
        format!(
            r#"{head}{{"kind":"task","id":"{task_id}","contextId":"{context_id}","status":{{"state":"submitted"}}}}{tail}"#
        )
    } else {
        format!(
            r#"{head}{{"task":{{"id":"{task_id}","contextId":"{context_id}","status":{{"state":"TASK_STATE_SUBMITTED"}}}}}}{tail}"#
        )
    });
    for n in 0..chunks {
        let (append, last) = (n > 0, n + 1 == chunks);
        frames.push(if v03 {
            format!(
                r#"{head}{{"kind":"artifact-update","taskId":"{task_id}","contextId":"{context_id}","artifact":{{"artifactId":"answer","parts":[{{"kind":"text","text":"chunk {n} "}}]}},"append":{append},"lastChunk":{last}}}{tail}"#
            )
        } else {
            format!(
                r#"{head}{{"artifactUpdate":{{"taskId":"{task_id}","contextId":"{context_id}","artifact":{{"artifactId":"answer","parts":[{{"text":"chunk {n} "}}]}},"append":{append},"lastChunk":{last}}}}}{tail}"#
            )
        });
    }
    frames.push(if v03 {
        format!(
            r#"{head}{{"kind":"status-update","taskId":"{task_id}","contextId":"{context_id}","status":{{"state":"completed"}},"final":true}}{tail}"#
        )
    } else {
        format!(
            r#"{head}{{"statusUpdate":{{"taskId":"{task_id}","contextId":"{context_id}","status":{{"state":"TASK_STATE_COMPLETED"}}}}}}{tail}"#
        )
    });
    frames
}

/// The answer to a `SendMessage` in `wire`'s shape: a completed task whose one artifact says
/// `echo: {text}` (`text` JSON-escaped here).
pub fn render_answer(wire: Wire, id: &str, task_id: &str, context_id: &str, text: &str) -> String {
    let echo = Value::String(format!("echo: {text}"));
    match wire {
        Wire::JsonRpc | Wire::HttpJson => {
            let task = format!(
                r#"{{"task":{{"id":"{task_id}","contextId":"{context_id}","status":{{"state":"TASK_STATE_COMPLETED"}},"artifacts":[{{"artifactId":"answer","name":"answer","parts":[{{"text":{echo}}}]}}]}}}}"#
            );
            if wire == Wire::HttpJson {
                task
            } else {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{task}}}"#)
            }
        }
        Wire::JsonRpcV03 => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"kind":"task","id":"{task_id}","contextId":"{context_id}","status":{{"state":"completed"}},"artifacts":[{{"artifactId":"answer","name":"answer","parts":[{{"kind":"text","text":{echo}}}]}}]}}}}"#
        ),
    }
}

/// The `data:` of each event of a bench-agent stream of `events` events.
pub fn stream_events(events: usize) -> Vec<String> {
    stream_results("5f0c4ad3-8d1e-4c8e-9a55-6f1a3b1e9d20", "c1f3e0b6-2a7d-4f55-8a8e-0b9d6c2f4e11", events)
        .into_iter()
        .map(|result| json!({"jsonrpc": "2.0", "id": 1, "result": result}).to_string())
        .collect()
}

/// A whole SSE body of `events` events.
pub fn sse_body(events: usize) -> String {
    stream_events(events).iter().map(|data| format!("data: {data}\n\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::jsonrpc::JsonRpcResponse;
    use a2a_typestate_types::{AgentCard, StreamResponse, TaskState, parse};

    #[test]
    fn recorded_fixtures_parse_as_the_sdk_types() {
        let card: AgentCard = parse::from_str(PYTHON_PEER_CARD).unwrap();
        assert_eq!(card.name, "python-peer");
        for data in [STATUS_UPDATE_EVENT, ARTIFACT_UPDATE_EVENT] {
            let item = parse::from_str::<JsonRpcResponse<StreamResponse>>(data).unwrap();
            assert!(item.into_result().is_ok(), "{data}");
        }
    }

    #[test]
    fn a_bench_stream_has_exactly_the_events_asked_for_and_ends_completed() {
        let events = stream_events(1_000);
        assert_eq!(events.len(), 1_000);
        let items: Vec<StreamResponse> = events
            .iter()
            .map(|data| {
                parse::from_str::<JsonRpcResponse<StreamResponse>>(data).unwrap().into_result().unwrap()
            })
            .collect();
        assert!(matches!(items.first(), Some(StreamResponse::Task(_))));
        assert!(
            matches!(items.last(), Some(StreamResponse::StatusUpdate(u)) if u.status.state == TaskState::Completed)
        );
        assert_eq!(items.iter().filter(|i| matches!(i, StreamResponse::ArtifactUpdate(_))).count(), 998);
        assert_eq!(sse_body(3).matches("\n\ndata: ").count(), 2);
    }

    #[test]
    fn http_json_frames_are_the_built_results_without_the_envelope() {
        let built = stream_results("t1", "c1", 5);
        let rendered = render_stream(Wire::HttpJson, "", "t1", "c1", 5);
        assert_eq!(rendered.len(), built.len());
        for (rendered, built) in rendered.iter().zip(&built) {
            let data = rendered.strip_prefix("data: ").and_then(|d| d.strip_suffix("\n\n")).unwrap();
            assert_eq!(&serde_json::from_str::<Value>(data).unwrap(), built);
        }
    }

    #[test]
    fn every_answer_and_frame_is_json_and_the_echo_is_escaped() {
        for wire in [Wire::JsonRpc, Wire::HttpJson, Wire::JsonRpcV03] {
            let answer = render_answer(wire, "7", "t1", "c1", "say \"hi\"");
            let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{wire:?}: {e}"));
            assert!(answer.to_string().contains(r#"echo: say \"hi\""#), "{wire:?}: {answer}");
            for frame in render_stream(wire, "7", "t1", "c1", 4) {
                let data = frame.strip_prefix("data: ").and_then(|d| d.strip_suffix("\n\n")).unwrap();
                serde_json::from_str::<Value>(data).unwrap_or_else(|e| panic!("{wire:?}: {e}: {data}"));
            }
        }
    }

    #[test]
    fn rendered_frames_are_the_built_frames() {
        let id = json!("req-7");
        let built: Vec<String> =
            stream_results("t1", "c1", 5).into_iter().map(|result| sse_frame(&id, result)).collect();
        let rendered = render_stream(Wire::JsonRpc, &id.to_string(), "t1", "c1", 5);
        assert_eq!(rendered.len(), built.len());
        for (rendered, built) in rendered.iter().zip(&built) {
            assert!(rendered.starts_with("data: ") && rendered.ends_with("\n\n"), "{rendered:?}");
            let as_json =
                |frame: &str| -> Value { serde_json::from_str(&frame[6..frame.len() - 2]).unwrap() };
            assert_eq!(as_json(rendered), as_json(built));
        }
    }
}
