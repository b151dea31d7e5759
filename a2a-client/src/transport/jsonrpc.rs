//! JSON-RPC 2.0 over HTTP, for both 1.0 (`SendMessage`...) and 0.3 (`message/send`...): the requests
//! are POSTed to the interface URL as `application/json`, answers come with HTTP 200 carrying either
//! `result` or `error`, and streams are SSE whose every `data:` is one such response.
//!
//! A request is written once ([`Request`]) and its bytes sent as they are on every attempt. An
//! answer is read once, straight from its bytes into the typed envelope ([`answer`]); only an
//! answer that does not read, or is not our result, is read again through a `Value` to say why.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};

use super::{Endpoint, MAX_RESPONSE_BYTES, is_event_stream, json_body, protocol, read, unexpected};
use crate::net::read_budgeted;
use crate::retry::retry_after;
use crate::sse::SseEvent;
use crate::{Error, ProtocolError};

/// A fresh request id.
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

/// The request envelope, written straight to the body (no intermediate `Value`).
#[derive(Serialize)]
struct Envelope<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: &'a str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

/// One JSON-RPC request, written once: a retried request is the same request sent again, with the
/// same id and the same bytes.
#[derive(Debug)]
pub(crate) struct Request {
    id: String,
    body: Bytes,
}

impl Request {
    /// `method` with `params` (none for methods that take none) under a fresh id.
    pub(crate) fn new<P: Serialize + ?Sized>(method: &str, params: Option<&P>) -> Result<Self, Error> {
        let id = new_id();
        let envelope = Envelope { jsonrpc: "2.0", id: &id, method, params };
        let body = serde_json::to_vec(&envelope)
            .map_err(|e| Error::misuse(format!("request could not be written: {e}")))?;
        Ok(Self { id, body: Bytes::from(body) })
    }

    /// The request id every answer and stream event must carry.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }
}

fn post(endpoint: &Endpoint, request: &Request, accept: &'static str) -> crate::net::Request {
    let body = Some(("application/json", request.body.clone()));
    endpoint.request(http::Method::POST, endpoint.uri.clone(), accept, body)
}

/// Rewrites an answer's `result` under tolerant reading, recording what deviated.
pub(crate) type Tolerate<'a> = &'a (dyn Fn(&mut Value) + Sync);

/// Sends `request` once and reads its `result` as `T` (`what` names it in errors).
///
/// Under tolerant reading (`tolerate`), an answer whose bytes hold nothing a rewrite would change
/// ([`may_deviate`](a2a_typestate_types::tolerant::may_deviate)) is read straight into `T` as a strict
/// one is; any other goes through a `Value` that `tolerate` rewrites. Either way the body's room in
/// the document budget is held until `T` is read, `Value` included.
pub(crate) async fn call<T: DeserializeOwned>(
    endpoint: &Endpoint,
    request: &Request,
    what: &'static str,
    tolerate: Option<Tolerate<'_>>,
) -> Result<T, Error> {
    let http = post(endpoint, request, "application/json");
    let url = endpoint.url.as_str();
    // One bound for the whole exchange, headers and body together: one timer per attempt.
    endpoint
        .bounded(url, async {
            let response = endpoint.send_unbounded(http, url).await?;
            let status = response.status().as_u16();
            if !response.status().is_success() {
                return Err(error_answer(endpoint, response, status, url).await);
            }
            // The room in the document budget is held until the body is parsed.
            let body = read_budgeted(response, MAX_RESPONSE_BYTES, url, endpoint.client.documents()).await?;
            let body = &body.bytes;
            let direct = tolerate.is_none() || !a2a_typestate_types::tolerant::may_deviate(body);
            if direct && let Some(result) = our_result(body, &request.id) {
                return Ok(result);
            }
            let answer = json_body(body, url)?;
            let mut result =
                result_of(answer, &request.id, "json-rpc response").map_err(|e| e.with_url(url))?;
            if let Some(tolerate) = tolerate {
                tolerate(&mut result);
            }
            read(what, result)
        })
        .await
}

/// Sends a streaming request: the response when it is an event stream; an A2A error when the agent
/// answered plain JSON instead (as the official servers do for -32004). Every event of the stream
/// must answer the request's id ([`event_result`]).
pub(crate) async fn open(endpoint: &Endpoint, request: &Request) -> Result<crate::net::Response, Error> {
    let url = endpoint.url.as_str();
    let response = endpoint.send(post(endpoint, request, "text/event-stream"), url).await?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(error_answer(endpoint, response, status, url).await);
    }
    if is_event_stream(&response) {
        return Ok(response);
    }
    let answer = endpoint.read_json(response, url).await?;
    Err(match result_of(answer, &request.id, "json-rpc response") {
        Err(error) => error.with_url(url),
        Ok(_) => {
            unexpected("json-rpc response", "expected an event stream, got a plain JSON result").with_url(url)
        }
    })
}

/// The `result` of one SSE event of a JSON-RPC stream opened with request id `id`, read as `T`
/// (`what` names it in errors).
pub(crate) fn event_result<T: DeserializeOwned>(
    event: &SseEvent,
    id: &str,
    what: &'static str,
) -> Result<T, Error> {
    if let Some(result) = our_result(event.data.as_bytes(), id) {
        return Ok(result);
    }
    let answer: Value = a2a_typestate_types::parse::from_slice_fast(event.data.as_bytes())
        .map_err(|e| Error::bad_input("json-rpc stream event", e))?;
    read(what, result_of(answer, id, "json-rpc stream event")?)
}

/// As [`event_result`] into a `Value`, under tolerant reading: an event written as the result
/// alone, without its JSON-RPC response, is that result, a deviation recorded for event `number` of
/// `call` ([`tolerant::bare_stream_event`](a2a_typestate_types::tolerant::bare_stream_event)).
pub(crate) fn tolerant_event_result(
    event: &SseEvent,
    id: &str,
    deviations: &crate::transport::deviation::DeviationLog,
    call: &'static str,
    number: u64,
) -> Result<Value, Error> {
    let answer: Value = a2a_typestate_types::parse::from_slice_fast(event.data.as_bytes())
        .map_err(|e| Error::bad_input("json-rpc stream event", e))?;
    if let Some(deviation) = a2a_typestate_types::tolerant::bare_stream_event(&answer) {
        deviations.record(call, Some(number), deviation);
        return Ok(answer);
    }
    result_of(answer, id, "json-rpc stream event")
}

/// The typed envelope of an answer: what the one-pass read needs to tell our result from anything
/// else. The id is borrowed (ours never need unescaping); any other id shape fails the read and is
/// explained by the second pass.
#[derive(Deserialize)]
#[serde(bound = "T: DeserializeOwned")]
struct Answer<'a, T> {
    #[serde(borrow)]
    id: Option<&'a str>,
    error: Option<IgnoredAny>,
    result: Option<T>,
}

/// The answer in `body` read in one pass as the `result` of type `T` to request `id`; `None` when it
/// is anything else (not JSON, another id, an error, no result, a result of another shape), which
/// the caller reads again through a `Value` ([`result_of`], then [`read`]) to say exactly what.
pub(crate) fn our_result<T: DeserializeOwned>(body: &[u8], id: &str) -> Option<T> {
    match super::straight(body) {
        Some(Answer { id: answered, error: None, result: Some(result) })
            if answered.is_none_or(|answered| answered == id) =>
        {
            Some(result)
        }
        _ => None,
    }
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

/// The error for a non-2xx answer: a JSON-RPC error when the body holds one, else the status with
/// the start of the body.
async fn error_answer(endpoint: &Endpoint, response: crate::net::Response, status: u16, url: &str) -> Error {
    let wait = retry_after(response.headers());
    if status == 401 || status == 403 {
        return endpoint.rejected(status, url);
    }
    if (502..=504).contains(&status) {
        return Error::from_status(status, Some(url)).with_retry_after(wait);
    }
    let agent_error = |body: &Value| {
        body.get("error").filter(|e| e.is_object()).map(|e| protocol(ProtocolError::from_jsonrpc(e), url))
    };
    endpoint.status_answer(response, status, url, agent_error).await
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
        let result: Value =
            event_result(&sse(r#"{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t"}}}"#), "1", "event")
                .unwrap();
        assert_eq!(result, json!({"task": {"id": "t"}}));
    }

    #[test]
    fn an_error_inside_a_stream_is_the_agents_protocol_error() {
        let data = r#"{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"Task not found"}}"#;
        let err = event_result::<Value>(&SseEvent { event: Some("error".into()), ..sse(data) }, "1", "event")
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol);
        assert_eq!(err.protocol_error().and_then(ProtocolError::code), Some(-32001));
    }

    #[test]
    fn an_unreadable_event_is_bad_input_with_a_path() {
        let err = event_result::<Value>(&sse("{\"jsonrpc\":"), "1", "event").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        let err = event_result::<Value>(&sse(r#"{"jsonrpc":"2.0","id":"1"}"#), "1", "event").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput, "neither result nor error");
        let err = event_result::<Value>(&sse("[1]"), "1", "event").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
    }

    #[test]
    fn request_ids_are_never_repeated_within_the_process() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 1000);
    }

    #[test]
    fn requests_carry_a_fresh_id_and_params_only_when_given() {
        let written = |request: Request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            assert_eq!(body["id"].as_str(), Some(request.id()), "the body carries the request's id");
            body
        };
        let with = written(Request::new("GetTask", Some(&json!({"id": "t"}))).unwrap());
        assert_eq!((with["jsonrpc"].as_str(), with["method"].as_str()), (Some("2.0"), Some("GetTask")));
        assert_eq!(with["params"], json!({"id": "t"}));
        let without = written(Request::new::<Value>("agent/getAuthenticatedExtendedCard", None).unwrap());
        assert!(without.get("params").is_none());
        assert_ne!(with["id"], without["id"]);
    }

    #[test]
    fn a_response_to_another_request_id_is_bad_input_at_its_id() {
        let err =
            event_result::<Value>(&sse(r#"{"jsonrpc":"2.0","id":"other","result":{}}"#), "mine", "event")
                .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        assert_eq!(err.parse_error().map(ParseError::path), Some("id"));
        let numeric = result_of(json!({"jsonrpc": "2.0", "id": 7, "result": {}}), "7", "json-rpc response");
        assert!(numeric.is_err(), "we send string ids: a number answers someone else");
    }

    #[test]
    fn the_one_pass_read_takes_only_our_result() {
        let ours = br#"{"jsonrpc":"2.0","id":"mine","result":{"ok":true}}"#;
        assert_eq!(our_result::<Value>(ours, "mine"), Some(json!({"ok": true})));
        assert_eq!(our_result::<Value>(br#"{"id":null,"result":1}"#, "mine"), Some(json!(1)));
        assert_eq!(our_result::<Value>(br#"{"result":1}"#, "mine"), Some(json!(1)));
        for other in [
            &br#"{"id":"other","result":1}"#[..],
            br#"{"id":7,"result":1}"#,
            br#"{"id":"mine","error":{"code":-32001},"result":1}"#,
            br#"{"id":"mine"}"#,
            br#"{"id":"mine","result":"#,
        ] {
            assert_eq!(our_result::<Value>(other, "mine"), None, "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn a_result_of_the_wrong_shape_is_explained_with_its_path() {
        let event = sse(r#"{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t","status":"done"}}}"#);
        let err =
            event_result::<a2a_typestate_types::StreamResponse>(&event, "1", "stream event").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        let path = err.parse_error().map(ParseError::path).unwrap_or_default().to_owned();
        assert!(path.starts_with("task"), "{path}: {err}");
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
