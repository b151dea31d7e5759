//! The HTTP+JSON binding (NOTES §4): paths relative to the interface URL, each with a `/{tenant}`
//! prefix when the interface names a tenant; bodies sent as `application/a2a+json`; the remaining
//! fields of GET and DELETE requests as camelCase query parameters; errors as `google.rpc.Status`;
//! streams as SSE whose every `data:` is a bare `StreamResponse`.
//!
//! 0.3 over HTTP+JSON travels the same way, with its own routes (under `/v1`, written by its
//! binding), `application/json` bodies and no version header; its errors are an HTTP status and a
//! bare `{"message"}` ([`ErrorBodies::V03`]).

use serde_json::Value;

use serde::de::DeserializeOwned;

use super::{
    A2A_JSON_MEDIA_TYPE, Endpoint, MAX_RESPONSE_BYTES, is_event_stream, json_body, protocol, read, unexpected,
};
use crate::budget::Body;
use crate::net::read_budgeted;
use crate::sse::SseEvent;
use crate::{Error, ProtocolError};

/// One HTTP+JSON call: verb, path segments (written as they go on the wire: a route's literal
/// words, and each id already made one opaque segment by [`segment`]), the request message whose
/// non-path fields become the query (GET, DELETE) or the body (POST).
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) verb: http::Method,
    pub(crate) segments: Vec<String>,
    pub(crate) message: Option<Payload>,
    /// The request fields already carried in the path, left out of query and body.
    pub(crate) path_fields: &'a [&'a str],
    /// How the agent's error answers to this call are read.
    pub(crate) errors: ErrorBodies,
}

/// A call's request message.
#[derive(Debug)]
pub(crate) enum Payload {
    /// Taken apart: the tenant and the path's fields go in the path, the rest in the query (GET,
    /// DELETE) or the body (POST).
    Fields(Value),
    /// A POST's body as it is: a message with no tenant and no field in the path, written once
    /// as JSON without a JSON value in between.
    Body(bytes::Bytes),
}

/// How the error answers of an HTTP+JSON call are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorBodies {
    /// 1.0: a `google.rpc.Status`, whose ErrorInfo reason names the A2A error.
    RpcStatus,
    /// 0.3: what a2a-python's 0.3 REST app (which BeeAI serves) writes: the HTTP status of the error
    /// (its table: 404 task not found, 409 not cancelable, 501 not supported, 415, 422, 502...)
    /// and a bare `{"message"}`. The status alone leaves some errors ambiguous, so the call says
    /// what they are on its route.
    V03(V03Errors),
}

/// What the ambiguous 0.3 HTTP statuses mean on one route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct V03Errors {
    /// The code a 404 with a message stands for: -32001 on a task's routes, -32007 for the
    /// authenticated card.
    pub(crate) not_found: i64,
    /// The code a 501 stands for: -32003 on the push-config routes, -32004 elsewhere.
    pub(crate) not_supported: i64,
    /// The request carried a push config: a 501 whose message names push notifications is -32003.
    pub(crate) carries_push: bool,
}

impl V03Errors {
    /// The A2A code an error answered with `status` and `message` stands for on this route; `None`
    /// for a status a2a-python's table gives no A2A error (405, say: the web framework's own).
    pub(crate) fn code(self, status: u16, message: &str) -> Option<i64> {
        Some(match status {
            404 => self.not_found,
            409 => -32002,
            501 if self.carries_push && message.to_ascii_lowercase().contains("push") => -32003,
            501 => self.not_supported,
            415 => -32005,
            502 => -32006,
            422 => -32602,
            400 => -32600,
            500 => -32603,
            _ => return None,
        })
    }
}

impl Call<'_> {
    /// The call's URL: the interface URL's path, then the tenant (made one segment by
    /// [`segment`]) and the call's segments, then the query. Written by hand: a URL parser reads
    /// dot segments, encoded or not, as "this" and "up".
    fn url(&self, endpoint: &Endpoint) -> Result<String, Error> {
        let base = &endpoint.url;
        if base.cannot_be_a_base() {
            return Err(Error::protocol_answer(format!("interface url {base} cannot take a path")));
        }
        let mut url = format!("{}{}", &base[..url::Position::BeforePath], base.path().trim_end_matches('/'));
        let tenant = match &self.message {
            Some(Payload::Fields(message)) => message.get("tenant").and_then(Value::as_str),
            Some(Payload::Body(_)) | None => None,
        };
        if let Some(tenant) = tenant.or(endpoint.tenant()).filter(|t| !t.is_empty()) {
            url.push('/');
            url.push_str(&segment(tenant));
        }
        for written in &self.segments {
            url.push('/');
            url.push_str(written);
        }
        if self.verb == http::Method::GET || self.verb == http::Method::DELETE {
            let pairs = self.query_pairs();
            if !pairs.is_empty() {
                url.push('?');
                url.push_str(
                    &url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish(),
                );
            }
        }
        Ok(url)
    }

    /// The message's fields, minus the path ones and the tenant (in the path already).
    fn remaining(&self) -> Option<serde_json::Map<String, Value>> {
        let Some(Payload::Fields(message)) = &self.message else {
            return None;
        };
        let mut fields = message.as_object()?.clone();
        fields.remove("tenant");
        for name in self.path_fields {
            fields.remove(*name);
        }
        Some(fields)
    }

    fn query_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for (name, value) in self.remaining().unwrap_or_default() {
            match value {
                Value::Array(items) => {
                    pairs.extend(items.iter().filter_map(scalar).map(|v| (name.clone(), v)))
                }
                other => pairs.extend(scalar(&other).map(|v| (name.clone(), v))),
            }
        }
        pairs
    }

    /// The request for a call that is answered with one message, written once: every attempt
    /// sends it again as it is.
    pub(crate) fn prepare(&self, endpoint: &Endpoint) -> Result<Prepared, Error> {
        self.prepared(endpoint, ACCEPT_ANSWER)
    }

    /// As [`Call::prepare`], for a call answered with an event stream.
    pub(crate) fn prepare_stream(&self, endpoint: &Endpoint) -> Result<Prepared, Error> {
        self.prepared(endpoint, "text/event-stream")
    }

    fn prepared(&self, endpoint: &Endpoint, accept: &'static str) -> Result<Prepared, Error> {
        let url = self.url(endpoint)?;
        let uri = crate::net::uri_of(&url)?;
        let mut body = None;
        if self.verb == http::Method::POST {
            let bytes = match &self.message {
                Some(Payload::Body(bytes)) => bytes.clone(),
                _ => serde_json::to_vec(&Value::Object(self.remaining().unwrap_or_default()))
                    .map_err(|e| Error::misuse(format!("request could not be written: {e}")))?
                    .into(),
            };
            // 0.3 predates the binding's media type.
            let media_type = if endpoint.wire.is_v03() { "application/json" } else { A2A_JSON_MEDIA_TYPE };
            body = Some((media_type, bytes));
        }
        let request = endpoint.request(self.verb.clone(), uri, accept, body);
        Ok(Prepared { request, url, errors: self.errors })
    }
}

/// `id` as one opaque path segment: every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`)
/// percent-encoded (so a `/`, a `:` that would name another route's verb, a `?` or a `%` stay
/// inside it), and the dots of an id made of dots alone too (`..` is `%2E%2E`, never "up"). The one
/// way a task, push-config or tenant id goes into an HTTP+JSON path.
pub(crate) fn segment(id: &str) -> String {
    use std::fmt::Write as _;
    let dots_only = !id.is_empty() && id.bytes().all(|b| b == b'.');
    let mut written = String::with_capacity(id.len());
    for byte in id.bytes() {
        let unreserved = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~');
        if unreserved && !(dots_only && byte == b'.') {
            written.push(char::from(byte));
        } else {
            let _ = write!(written, "%{byte:02X}");
        }
    }
    written
}

/// A call's request, written once, its URL for errors, and how its error answers are read.
#[derive(Debug)]
pub(crate) struct Prepared {
    request: crate::net::Request,
    url: String,
    errors: ErrorBodies,
}

#[cfg(test)]
impl Prepared {
    pub(crate) fn request(&self) -> &crate::net::Request {
        &self.request
    }
}

/// A query parameter value: strings as they are, numbers and booleans as JSON writes them.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// What a non-streaming call accepts back: the binding's media type, or plain JSON.
const ACCEPT_ANSWER: &str = "application/a2a+json, application/json";

/// Makes `call` once and returns the response message (`{}` for an empty body).
pub(crate) async fn call(endpoint: &Endpoint, call: &Prepared) -> Result<Value, Error> {
    let (body, status) = answer(endpoint, call).await?;
    message_of(&body.bytes, status, &call.url)
}

/// Makes `call` once and reads the response message straight from its bytes into `T` (`what`
/// names it in errors). Only a body that does not read as `T` is read again through a `Value`, to
/// tell the agent's error (a `google.rpc.Status`) from bad input, with its path.
pub(crate) async fn call_typed<T: DeserializeOwned>(
    endpoint: &Endpoint,
    call: &Prepared,
    what: &'static str,
) -> Result<T, Error> {
    let (body, status) = answer(endpoint, call).await?;
    if let Some(message) = super::straight(&body.bytes) {
        return Ok(message);
    }
    read(what, message_of(&body.bytes, status, &call.url)?).map_err(|e| e.with_url(&call.url))
}

/// Makes `call` once and reads the response message as `T` under tolerant reading: straight from
/// its bytes when nothing in them is a deviation a rewrite would change
/// ([`may_deviate`](a2a_typestate_types::tolerant::may_deviate)), else through a `Value` that
/// `tolerate` rewrites, within the body's room in the document budget until `T` is read.
pub(crate) async fn call_tolerant<T: DeserializeOwned>(
    endpoint: &Endpoint,
    call: &Prepared,
    what: &'static str,
    tolerate: &(dyn Fn(&mut Value) + Sync),
) -> Result<T, Error> {
    let (body, status) = answer(endpoint, call).await?;
    if !a2a_typestate_types::tolerant::may_deviate(&body.bytes)
        && let Some(message) = super::straight(&body.bytes)
    {
        return Ok(message);
    }
    let mut message = message_of(&body.bytes, status, &call.url)?;
    tolerate(&mut message);
    read(what, message).map_err(|e| e.with_url(&call.url))
}

/// Sends `call` once: the body of a 2xx answer (held in the document budget until dropped), its
/// status and the URL; the agent's error otherwise. One bound for the whole exchange, headers and
/// body together: one timer per attempt.
async fn answer(endpoint: &Endpoint, call: &Prepared) -> Result<(Body, u16), Error> {
    let url = call.url.as_str();
    endpoint
        .bounded(url, async {
            let response = endpoint.send_unbounded(crate::net::copy(&call.request), url).await?;
            let status = response.status().as_u16();
            if !response.status().is_success() {
                return Err(error_answer(endpoint, response, status, url, call.errors).await);
            }
            let body = read_budgeted(response, MAX_RESPONSE_BYTES, url, endpoint.client.documents()).await?;
            Ok((body, status))
        })
        .await
}

/// The response message in `body`, or the agent's error when it is a `google.rpc.Status`.
fn message_of(body: &[u8], status: u16, url: &str) -> Result<Value, Error> {
    let message = json_body(body, url)?;
    match agent_error(&message, status, url) {
        Some(error) => Err(error),
        None => Ok(message),
    }
}

/// The agent's error when `body` (answered with `status`) is a `google.rpc.Status`.
fn agent_error(body: &Value, status: u16, url: &str) -> Option<Error> {
    ProtocolError::is_rpc_status_body(body)
        .then(|| protocol(ProtocolError::from_rpc_status(status, body), url))
}

/// Opens a streaming call: the response when it is an event stream, the agent's error otherwise.
pub(crate) async fn open(endpoint: &Endpoint, call: &Prepared) -> Result<crate::net::Response, Error> {
    let url = call.url.as_str();
    let response = endpoint.send(crate::net::copy(&call.request), url).await?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(error_answer(endpoint, response, status, url, call.errors).await);
    }
    if is_event_stream(&response) {
        return Ok(response);
    }
    let body = endpoint.read_json(response, url).await?;
    Err(agent_error(&body, status, url).unwrap_or_else(|| {
        unexpected("http+json response", "expected an event stream, got a plain JSON body").with_url(url)
    }))
}

/// The `StreamResponse` JSON of one SSE event, or the error the agent sent in its place.
pub(crate) fn event_value(event: SseEvent) -> Result<Value, Error> {
    let value: Value = a2a_typestate_types::parse::from_slice_fast(event.data.as_bytes())
        .map_err(|e| Error::bad_input("http+json stream event", e))?;
    if ProtocolError::is_rpc_status_body(&value) {
        let status = value.pointer("/error/code").and_then(Value::as_u64).unwrap_or(0);
        return Err(Error::protocol(ProtocolError::from_rpc_status(
            u16::try_from(status).unwrap_or(0),
            &value,
        )));
    }
    Ok(value)
}

/// The error for a non-2xx answer: the `google.rpc.Status` when the body is one (or, for 0.3, the
/// status with the body's message), else the status with the start of the body.
async fn error_answer(
    endpoint: &Endpoint,
    response: crate::net::Response,
    status: u16,
    url: &str,
    errors: ErrorBodies,
) -> Error {
    if status == 401 || status == 403 {
        return endpoint.rejected(status, url);
    }
    endpoint
        .status_answer(response, status, url, |body| match errors {
            ErrorBodies::RpcStatus => agent_error(body, status, url),
            ErrorBodies::V03(route) => {
                agent_error(body, status, url).or_else(|| v03_error(body, status, url, route))
            }
        })
        .await
}

/// The agent's 0.3 error when `body` (answered with `status`) is one: an object with a `message`
/// (a2a-python writes `{"message"}`), or a JSON-RPC error object under `error`. Anything else is no
/// A2A error and the status says it all: a proxy's page, an empty body, or the web framework's own
/// `{"detail": "Not Found"}` for a route it does not have (FastAPI's), which must not read as "task
/// not found".
fn v03_error(body: &Value, status: u16, url: &str, route: V03Errors) -> Option<Error> {
    let object = body.get("error").filter(|e| e.is_object()).unwrap_or(body);
    let message = object.get("message").and_then(Value::as_str)?;
    let code = route.code(status, message)?;
    Some(protocol(ProtocolError::from_v03_rest(status, object, code), url))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agent_url::{AgentBaseUrl, WellKnownPath};
    use crate::card::DiscoveredCard;
    use a2a_typestate_types::discovery::{OfferedInterface, ProtocolBinding, ProtocolVersion};
    use serde_json::json;

    pub(crate) fn endpoint(url: &str, tenant: Option<&str>) -> Endpoint {
        let card = br#"{"name":"a","description":"d","version":"1","capabilities":{},
            "defaultInputModes":[],"defaultOutputModes":[],"skills":[],
            "supportedInterfaces":[{"url":"http://agent.example/rest","protocolBinding":"HTTP+JSON",
            "protocolVersion":"1.0"}]}"#;
        let source = "http://agent.example/.well-known/agent-card.json";
        let card =
            DiscoveredCard::from_bytes(card.as_slice().into(), source, WellKnownPath::AgentCard).unwrap();
        let interface = OfferedInterface {
            protocol_version: ProtocolVersion::V1_0,
            binding: ProtocolBinding::HttpJson,
            url: url.to_owned(),
            tenant: tenant.map(str::to_owned),
        };
        let client = crate::Client::builder().build().unwrap();
        Endpoint::new(client, AgentBaseUrl::parse("http://agent.example").unwrap(), card, interface).unwrap()
    }

    fn call<'a>(
        verb: http::Method,
        segments: &[&str],
        message: Value,
        path_fields: &'a [&'a str],
    ) -> Call<'a> {
        Call {
            verb,
            segments: segments.iter().map(|s| (*s).to_owned()).collect(),
            message: Some(Payload::Fields(message)),
            path_fields,
            errors: ErrorBodies::RpcStatus,
        }
    }

    #[test]
    fn paths_are_relative_to_the_interface_url_with_the_tenant_first() {
        let endpoint = endpoint("http://agent.example/a2a/rest/", Some("acme"));
        let send = call(http::Method::POST, &["message:send"], json!({"message": {}}), &[]);
        assert_eq!(send.url(&endpoint).unwrap().as_str(), "http://agent.example/a2a/rest/acme/message:send");
        let untenanted = endpoint_without_tenant();
        assert_eq!(send.url(&untenanted).unwrap().as_str(), "http://agent.example/a2a/rest/message:send");
    }

    fn endpoint_without_tenant() -> Endpoint {
        endpoint("http://agent.example/a2a/rest", None)
    }

    #[test]
    fn a_tenant_the_caller_set_wins_over_the_interface_tenant_and_is_not_repeated() {
        let endpoint = endpoint("http://agent.example/rest", Some("acme"));
        let get = call(http::Method::GET, &["tasks", "t1"], json!({"tenant": "other", "id": "t1"}), &["id"]);
        assert_eq!(get.url(&endpoint).unwrap().as_str(), "http://agent.example/rest/other/tasks/t1");
    }

    #[test]
    fn ids_are_percent_encoded_as_one_path_segment() {
        let endpoint = endpoint_without_tenant();
        let id = segment("a/b c?");
        let get = call(http::Method::GET, &["tasks", &id], json!({"id": "a/b c?"}), &["id"]);
        assert_eq!(get.url(&endpoint).unwrap().as_str(), "http://agent.example/a2a/rest/tasks/a%2Fb%20c%3F");
    }

    #[test]
    fn an_id_that_is_a_dot_segment_or_names_a_verb_stays_one_segment() {
        assert_eq!(segment(".."), "%2E%2E");
        assert_eq!(segment("."), "%2E");
        assert_eq!(segment("v1.2"), "v1.2", "dots inside an id are plain");
        assert_eq!(segment("t:cancel"), "t%3Acancel", "a colon cannot name another route's verb");
        assert_eq!(segment("50%"), "50%25");
        let endpoint = endpoint("http://agent.example/rest", Some(".."));
        let dots = segment("..");
        let get = call(http::Method::GET, &["tasks", &dots], json!({"id": ".."}), &["id"]);
        assert_eq!(get.url(&endpoint).unwrap(), "http://agent.example/rest/%2E%2E/tasks/%2E%2E");
    }

    #[test]
    fn get_fields_travel_as_camel_case_query_parameters_without_path_fields() {
        let endpoint = endpoint_without_tenant();
        let message = json!({"id": "t1", "historyLength": 0, "includeArtifacts": true,
            "status": "TASK_STATE_WORKING", "tenant": "x"});
        let get = call(http::Method::GET, &["tasks"], message, &["id"]);
        let url = get.url(&endpoint).unwrap();
        let url = url::Url::parse(&url).unwrap();
        let mut pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        pairs.sort();
        let expected =
            [("historyLength", "0"), ("includeArtifacts", "true"), ("status", "TASK_STATE_WORKING")];
        assert_eq!(pairs, expected.map(|(k, v)| (k.to_owned(), v.to_owned())));
    }

    #[test]
    fn a_0_3_error_is_the_agents_only_with_a_message_and_a_status_of_its_table() {
        let route = V03Errors { not_found: -32001, not_supported: -32004, carries_push: false };
        let code = |body: Value, status| {
            v03_error(&body, status, "http://a", route)
                .and_then(|e| e.protocol_error().and_then(ProtocolError::code))
        };
        assert_eq!(code(json!({"message": "Task not found: t"}), 404), Some(-32001));
        assert_eq!(code(json!({"detail": "Not Found"}), 404), None, "the web framework's own 404");
        assert_eq!(code(json!({"message": "Method Not Allowed"}), 405), None);
        let named = json!({"error": {"code": -32004, "message": "streaming is off"}});
        assert_eq!(code(named, 400), Some(-32004), "a code the body names wins over the status");
    }

    #[test]
    fn post_bodies_leave_the_tenant_and_path_fields_out() {
        let endpoint = endpoint_without_tenant();
        let cancel = call(
            http::Method::POST,
            &["tasks", "t1:cancel"],
            json!({"id": "t1", "tenant": "x", "metadata": {}}),
            &["id"],
        );
        assert_eq!(cancel.remaining(), json!({"metadata": {}}).as_object().cloned());
        assert!(!cancel.url(&endpoint).unwrap().contains('?'), "POST fields never go to the query");
    }
}
