//! JSON-RPC 2.0 over HTTP, for both 1.0 (`SendMessage`...) and 0.3 (`message/send`...): the requests
//! are POSTed to the interface URL as `application/json`, answers come with HTTP 200 carrying either
//! `result` or `error`, and streams are SSE whose every `data:` is one such response.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde_json::Value;

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};

use super::{Endpoint, is_event_stream, protocol, read_json_unbounded, unexpected};
use crate::retry::retry_after;
use crate::sse::SseEvent;
use crate::{Error, ProtocolError};

/// A fresh request id. A retried request keeps its id: it is the same request sent again.
///
/// One random v4 UUID per process, then a counter: unique within the process (what matching answers
/// to requests needs) and unguessable across processes, without asking the OS for random bytes on
/// every call (a `getrandom` system call per request showed in the profile).
pub(crate) fn new_id() -> String {
    static PROCESS: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let process = PROCESS.get_or_init(|| uuid::Uuid::new_v4().simple().to_string());
    format!("{process}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The request envelope with the id `id`, written straight to the body (no intermediate `Value`).
#[derive(Serialize)]
struct Envelope<'a> {
    jsonrpc: &'static str,
    id: &'a str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

fn envelope<'a>(id: &'a str, method: &'a str, params: Option<Value>) -> Envelope<'a> {
    Envelope { jsonrpc: "2.0", id, method, params }
}

fn post(endpoint: &Endpoint, body: &Envelope<'_>, accept: &str) -> reqwest::RequestBuilder {
    endpoint
        .request(reqwest::Method::POST, endpoint.url.clone())
        .header(reqwest::header::ACCEPT, accept)
        .json(body)
}

/// Calls `method` once with request id `id` and returns its `result`. A retry passes the same id (from
/// one [`new_id`] outside the retry loop): it is the same request sent again.
pub(crate) async fn call(
    endpoint: &Endpoint,
    id: &str,
    method: &str,
    params: Option<Value>,
) -> Result<Value, Error> {
    let body = envelope(id, method, params);
    let request = post(endpoint, &body, "application/json").build().map_err(Error::from)?;
    let url = request.url().to_string();
    // One bound for the whole exchange, headers and body together: one timer per attempt.
    endpoint
        .bounded(&url, async {
            let response = endpoint.send_unbounded(request, &url).await?;
            let status = response.status().as_u16();
            if !response.status().is_success() {
                return Err(error_answer(endpoint, response, status, &url).await);
            }
            let answer = read_json_unbounded(response, &url, endpoint.client.documents()).await?;
            result_of(answer, id, "json-rpc response").map_err(|e| e.with_url(&url))
        })
        .await
}

/// Sends a streaming `method`: the response when it is an event stream; an A2A error when the agent
/// answered plain JSON instead (as the official servers do for -32004). `id` is the request id,
/// from [`new_id`]: every event of the stream must answer it ([`event_result`]).
pub(crate) async fn open(
    endpoint: &Endpoint,
    id: &str,
    method: &str,
    params: Option<Value>,
) -> Result<reqwest::Response, Error> {
    let body = envelope(id, method, params);
    let url = endpoint.url.to_string();
    let response = endpoint.send(post(endpoint, &body, "text/event-stream")).await?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(error_answer(endpoint, response, status, &url).await);
    }
    if is_event_stream(&response) {
        return Ok(response);
    }
    let answer = endpoint.read_json(response, &url).await?;
    Err(match result_of(answer, id, "json-rpc response") {
        Err(error) => error.with_url(&url),
        Ok(_) => unexpected("json-rpc response", "expected an event stream, got a plain JSON result")
            .with_url(&url),
    })
}

/// The `result` of one SSE event of a JSON-RPC stream opened with request id `id`.
pub(crate) fn event_result(event: SseEvent, id: &str) -> Result<Value, Error> {
    let answer: Value = a2a_typestate_types::parse::from_slice_fast(event.data.as_bytes())
        .map_err(|e| Error::bad_input("json-rpc stream event", e))?;
    result_of(answer, id, "json-rpc stream event")
}

/// `result` of a JSON-RPC response to request `id`, or its `error` as a protocol error.
///
/// A response with another id answers someone else's request (a cross-wired proxy or a server bug):
/// reading it as ours would feed the verifier another task's states, so it is bad input at `id`. A
/// null id is what JSON-RPC 2.0 sends when the server could not read the request's id; a missing one
/// is tolerated as lax servers omit it. Both official servers echo the id on every answer and event.
fn result_of(mut answer: Value, id: &str, what: &'static str) -> Result<Value, Error> {
    let Some(object) = answer.as_object_mut() else {
        return Err(unexpected(what, "expected a json-rpc response object"));
    };
    match object.get("id") {
        None | Some(Value::Null) => {}
        Some(Value::String(answered)) if answered == id => {}
        Some(answered) => {
            return Err(Error::bad_input(
                what,
                ParseError::new(
                    ParseErrorKind::Shape,
                    "id",
                    format!("the response answers request id {answered}, not {id:?}"),
                ),
            ));
        }
    }
    if let Some(error) = object.get("error").filter(|e| !e.is_null()) {
        return Err(Error::protocol(ProtocolError::from_jsonrpc(error)));
    }
    match object.remove("result") {
        Some(result) => Ok(result),
        None => Err(unexpected(what, "a json-rpc response needs a result or an error")),
    }
}

/// The error for a non-2xx answer: a JSON-RPC error when the body holds one, else the status.
async fn error_answer(endpoint: &Endpoint, response: reqwest::Response, status: u16, url: &str) -> Error {
    let wait = retry_after(response.headers());
    if status == 401 || status == 403 {
        return endpoint.rejected(status, url);
    }
    if (502..=504).contains(&status) {
        return Error::from_status(status, Some(url)).with_retry_after(wait);
    }
    match endpoint.read_json(response, url).await {
        Ok(body) => match body.get("error").filter(|e| e.is_object()) {
            Some(error) => protocol(ProtocolError::from_jsonrpc(error), url),
            None => Error::from_status(status, Some(url)),
        },
        Err(_) => Error::from_status(status, Some(url)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use serde_json::json;

    fn sse(data: &str) -> SseEvent {
        SseEvent { event: None, data: data.to_owned(), id: None }
    }

    #[test]
    fn a_stream_event_yields_its_result() {
        let result =
            event_result(sse(r#"{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t"}}}"#), "1").unwrap();
        assert_eq!(result, json!({"task": {"id": "t"}}));
    }

    #[test]
    fn an_error_inside_a_stream_is_the_agents_protocol_error() {
        let data = r#"{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"Task not found"}}"#;
        let err = event_result(SseEvent { event: Some("error".into()), ..sse(data) }, "1").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol);
        assert_eq!(err.protocol_error().and_then(ProtocolError::code), Some(-32001));
    }

    #[test]
    fn an_unreadable_event_is_bad_input_with_a_path() {
        let err = event_result(sse("{\"jsonrpc\":"), "1").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        let err = event_result(sse(r#"{"jsonrpc":"2.0","id":"1"}"#), "1").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput, "neither result nor error");
        let err = event_result(sse("[1]"), "1").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
    }

    #[test]
    fn request_ids_are_never_repeated_within_the_process() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 1000);
    }

    #[test]
    fn requests_carry_a_fresh_id_and_params_only_when_given() {
        let written = |id: &str, method: &str, params| serde_json::to_value(envelope(id, method, params));
        let with = written(&new_id(), "GetTask", Some(json!({"id": "t"}))).unwrap();
        assert_eq!((with["jsonrpc"].as_str(), with["method"].as_str()), (Some("2.0"), Some("GetTask")));
        assert_eq!(with["params"], json!({"id": "t"}));
        let without = written(&new_id(), "agent/getAuthenticatedExtendedCard", None).unwrap();
        assert!(without.get("params").is_none());
        assert_ne!(with["id"], without["id"]);
    }

    #[test]
    fn a_response_to_another_request_id_is_bad_input_at_its_id() {
        let err = event_result(sse(r#"{"jsonrpc":"2.0","id":"other","result":{}}"#), "mine").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        assert_eq!(err.parse_error().map(ParseError::path), Some("id"));
        let numeric = result_of(json!({"jsonrpc": "2.0", "id": 7, "result": {}}), "7", "json-rpc response");
        assert!(numeric.is_err(), "we send string ids: a number answers someone else");
    }

    #[test]
    fn a_null_or_missing_response_id_is_accepted() {
        let null = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
        let err = result_of(null, "mine", "json-rpc response").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol, "the server could not read our id");
        let missing = json!({"jsonrpc": "2.0", "result": {"ok": true}});
        assert_eq!(result_of(missing, "mine", "json-rpc response").unwrap(), json!({"ok": true}));
    }
}
