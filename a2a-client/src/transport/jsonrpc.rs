//! JSON-RPC 2.0 over HTTP, for both 1.0 (`SendMessage`...) and 0.3 (`message/send`...): the requests
//! are POSTed to the interface URL as `application/json`, answers come with HTTP 200 carrying either
//! `result` or `error`, and streams are SSE whose every `data:` is one such response.

use serde_json::{Value, json};

use super::{Endpoint, is_event_stream, protocol, unexpected};
use crate::sse::SseEvent;
use crate::{Error, ProtocolError};

/// The request envelope, with a fresh id.
fn envelope(method: &str, params: Option<Value>) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    match params {
        Some(params) => json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        None => json!({"jsonrpc": "2.0", "id": id, "method": method}),
    }
}

fn post(endpoint: &Endpoint, body: &Value, accept: &str) -> reqwest::RequestBuilder {
    endpoint
        .request(reqwest::Method::POST, endpoint.url.clone())
        .header(reqwest::header::ACCEPT, accept)
        .json(body)
}

/// Calls `method` once and returns its `result`.
pub(crate) async fn call(endpoint: &Endpoint, method: &str, params: Option<Value>) -> Result<Value, Error> {
    let body = envelope(method, params);
    let url = endpoint.url.to_string();
    // One bound for the whole exchange: headers and body together.
    endpoint
        .bounded(&url, async {
            let response = endpoint.send(post(endpoint, &body, "application/json")).await?;
            let status = response.status().as_u16();
            if !response.status().is_success() {
                return Err(error_answer(endpoint, response, status, &url).await);
            }
            let answer = endpoint.read_json(response, &url).await?;
            result_of(answer, "json-rpc response").map_err(|e| e.with_url(&url))
        })
        .await
}

/// Sends a streaming `method`: the response when it is an event stream; an A2A error when the agent
/// answered plain JSON instead (as the official servers do for -32004).
pub(crate) async fn open(
    endpoint: &Endpoint,
    method: &str,
    params: Option<Value>,
) -> Result<reqwest::Response, Error> {
    let body = envelope(method, params);
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
    Err(match result_of(answer, "json-rpc response") {
        Err(error) => error.with_url(&url),
        Ok(_) => unexpected("json-rpc response", "expected an event stream, got a plain JSON result")
            .with_url(&url),
    })
}

/// The `result` of one SSE event of a JSON-RPC stream.
pub(crate) fn event_result(event: SseEvent) -> Result<Value, Error> {
    let answer: Value =
        a2a_types::parse::from_str(&event.data).map_err(|e| Error::bad_input("json-rpc stream event", e))?;
    result_of(answer, "json-rpc stream event")
}

/// `result` of a JSON-RPC response, or its `error` as a protocol error.
fn result_of(mut answer: Value, what: &'static str) -> Result<Value, Error> {
    let Some(object) = answer.as_object_mut() else {
        return Err(unexpected(what, "expected a json-rpc response object"));
    };
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
    if (502..=504).contains(&status) {
        return Error::from_status(status, Some(url));
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

    fn sse(data: &str) -> SseEvent {
        SseEvent { event: None, data: data.to_owned(), id: None }
    }

    #[test]
    fn a_stream_event_yields_its_result() {
        let result = event_result(sse(r#"{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t"}}}"#)).unwrap();
        assert_eq!(result, json!({"task": {"id": "t"}}));
    }

    #[test]
    fn an_error_inside_a_stream_is_the_agents_protocol_error() {
        let data = r#"{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"Task not found"}}"#;
        let err = event_result(SseEvent { event: Some("error".into()), ..sse(data) }).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol);
        assert_eq!(err.protocol_error().and_then(ProtocolError::code), Some(-32001));
    }

    #[test]
    fn an_unreadable_event_is_bad_input_with_a_path() {
        let err = event_result(sse("{\"jsonrpc\":")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        let err = event_result(sse(r#"{"jsonrpc":"2.0","id":"1"}"#)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput, "neither result nor error");
        let err = event_result(sse("[1]")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
    }

    #[test]
    fn requests_carry_a_fresh_id_and_params_only_when_given() {
        let with = envelope("GetTask", Some(json!({"id": "t"})));
        assert_eq!((with["jsonrpc"].as_str(), with["method"].as_str()), (Some("2.0"), Some("GetTask")));
        let without = envelope("agent/getAuthenticatedExtendedCard", None);
        assert!(without.get("params").is_none());
        assert_ne!(with["id"], without["id"]);
    }
}
