//! The HTTP side: routes the card, JSON-RPC, HTTP+JSON (1.0, and 0.3 under `/v1` when the card lists
//! it) and gRPC requests, checks the version header, records every request and applies the scripted
//! transport faults.

use std::sync::Arc;

use axum::Router;
use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::card;
use crate::ops::{self, Op, Outcome};
use crate::record::RecordedRequest;
use crate::script::{Fault, Protocol};
use crate::store::Shared;
use crate::stream::{self, Cut, Framing};
use crate::wire::{self, A2aError};

mod answering;
mod grpc;
mod rest;
mod rest_v03;

use crate::query::query_pairs;
use answering::Answering;
use rest::rest_route;
use rest_v03::{rest_v03_error, rest_v03_route};

/// Where the JSON-RPC endpoint lives under the agent's base URL.
pub(crate) const JSONRPC_PATH: &str = "/a2a/jsonrpc";
/// Where the HTTP+JSON endpoints live under the agent's base URL.
pub(crate) const REST_PATH: &str = "/a2a/rest";
/// Largest request body the agent reads.
pub(crate) const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// Where a harness in another process reads the agent's executions (`RunningAgent::executions_by_text`).
const EXECUTIONS_PATH: &str = "/test/executions";

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let grpc = grpc::service(Arc::clone(&shared));
    Router::new()
        .route_service(&format!("{}{{method}}", grpc::GRPC_PREFIX), grpc)
        .fallback(handle)
        .with_state(shared)
}

/// What a request is, decided before it is recorded.
#[derive(Debug)]
enum Route {
    Card,
    JsonRpc { op: Option<Op>, rpc_method: Option<String> },
    Rest(Result<(Op, Value), A2aError>),
    NotFound,
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().map(str::to_owned);
    let bytes = to_bytes(body, BODY_LIMIT).await;
    // The body as JSON, or what was wrong with it (said in the JSON-RPC parse error).
    let json: Result<Value, String> = match &bytes {
        Ok(bytes) if bytes.is_empty() => Err("the body is empty".to_owned()),
        Ok(bytes) => serde_json::from_slice(bytes).map_err(|e| format!("the body is not JSON ({e})")),
        Err(_) => Err(format!("the body could not be read in full (the limit is {BODY_LIMIT} bytes)")),
    };
    if path == EXECUTIONS_PATH && parts.method == Method::GET {
        let executions = shared.lock().executions.clone();
        return axum::Json(executions).into_response();
    }
    let route = classify(&shared, &parts.method, &path, query.as_deref(), json.as_ref().ok());
    let request =
        record(&shared, &parts.method, &parts.headers, &path, query.clone(), &route, json.clone().ok());
    let operation = matches!(route, Route::JsonRpc { .. } | Route::Rest(_));
    let answering = Answering::begin(&shared, request);
    let response = respond(&shared, &parts, &path, query, &bytes, json, route).await;
    answering.attach(response, operation)
}

/// The answer to a recorded request: the agent's gates and scripted faults, then the operation.
async fn respond(
    shared: &Arc<Shared>,
    parts: &axum::http::request::Parts,
    path: &str,
    query: Option<String>,
    bytes: &Result<axum::body::Bytes, axum::Error>,
    json: Result<Value, String>,
    route: Route,
) -> Response {
    let raw = bytes.as_ref().map(|b| b.as_ref()).unwrap_or_default();
    if let Some(answer) = shared.gate.serve(&shared.base_url, path, &parts.headers, raw) {
        return answer;
    }
    if matches!(route, Route::JsonRpc { .. } | Route::Rest(_))
        && let Some(denied) = shared.gate.check(&parts.headers, query.as_deref())
    {
        return denied;
    }
    let op = match &route {
        Route::JsonRpc { op, .. } => *op,
        Route::Rest(Ok((op, _))) => Some(*op),
        _ => None,
    };
    if shared.denies_task_reads && matches!(op, Some(Op::GetTask | Op::ListTasks)) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"a2a-testkit\"")],
            "Unauthorized",
        )
            .into_response();
    }

    if let Some((status, body)) = shared.script.only_streams()
        && op.is_some_and(|op| op != Op::SendStreamingMessage)
    {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response();
    }

    // The extensions the request activates, or the -32008 it gets for one the agent requires.
    let admitted = shared.extensions.admit(&parts.headers);
    let mut response = match route {
        Route::Card => return serve_card(shared, &parts.method, &parts.headers),
        Route::NotFound => return (StatusCode::NOT_FOUND, "Not Found").into_response(),
        Route::JsonRpc { op, .. } => {
            if let Some(fault) = transport_fault(shared).await {
                return fault;
            }
            let refused = admitted.as_ref().err();
            jsonrpc(shared, &parts.headers, query.as_deref(), json, op, refused).await
        }
        Route::Rest(route) => {
            if let Some(fault) = transport_fault(shared).await {
                return fault;
            }
            if let Some(error) = version_error(shared, &parts.headers, query.as_deref()) {
                return rest_error(shared, &error);
            }
            if let Err(error) = &admitted {
                return rest_error(shared, error);
            }
            match route {
                Ok((op, params)) => rest(shared, op, params).await,
                Err(error) => rest_error(shared, &error),
            }
        }
    };
    if let Ok(activated) = &admitted {
        crate::extensions::echo(shared.protocol, activated, response.headers_mut());
    }
    response
}

fn classify(
    shared: &Shared,
    method: &Method,
    path: &str,
    query: Option<&str>,
    json: Option<&Value>,
) -> Route {
    if shared.card_path.serves(path) && (method == Method::GET || method == Method::HEAD) {
        return Route::Card;
    }
    if path == JSONRPC_PATH && method == Method::POST {
        let rpc_method = json.and_then(|b| b.get("method")).and_then(Value::as_str).map(str::to_owned);
        let op = rpc_method.as_deref().and_then(|m| Op::from_jsonrpc(shared.protocol, m));
        return Route::JsonRpc { op, rpc_method };
    }
    if shared.protocol == Protocol::V1_0
        && let Some(rest_path) = path.strip_prefix(REST_PATH)
    {
        let rest_path = match &shared.tenant {
            Some(tenant) => match rest_path.strip_prefix(&format!("/{tenant}")) {
                Some(inside) => inside,
                None => return Route::NotFound,
            },
            None => rest_path,
        };
        return match rest_route(method, rest_path, query, json) {
            Some(route) => Route::Rest(route),
            None => Route::NotFound,
        };
    }
    if shared.protocol == Protocol::V0_3
        && shared.serves_v03_rest
        && let Some(rest_path) = path.strip_prefix(REST_PATH)
    {
        let json_rpc_shape = shared.script.has_quirk(crate::Quirk::V03RestInJsonRpcShape);
        return match rest_v03_route(method, rest_path, query, json, json_rpc_shape) {
            Some(route) => Route::Rest(route),
            None => Route::NotFound,
        };
    }
    Route::NotFound
}

fn record(
    shared: &Shared,
    method: &Method,
    headers: &HeaderMap,
    path: &str,
    query: Option<String>,
    route: &Route,
    body: Option<Value>,
) -> usize {
    let (operation, rpc_method) = match route {
        Route::JsonRpc { op, rpc_method } => (op.map(|o| o.name().to_owned()), rpc_method.clone()),
        Route::Rest(Ok((op, _))) => (Some(op.name().to_owned()), None),
        _ => (None, None),
    };
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned())
        })
        .collect();
    let recorded = RecordedRequest {
        http_method: method.as_str().to_owned(),
        path: path.to_owned(),
        query,
        operation,
        rpc_method,
        body,
        headers,
        at: shared.started.elapsed(),
    };
    let mut state = shared.lock();
    state.requests.push(recorded);
    state.requests.len() - 1
}

fn serve_card(shared: &Shared, method: &Method, headers: &HeaderMap) -> Response {
    let cache =
        [(header::ETAG, shared.etag.clone()), (header::CACHE_CONTROL, "public, max-age=60".to_owned())];
    let revalidated = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| card::if_none_match_hits(v, &shared.etag));
    if revalidated {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    let body = if method == Method::HEAD { Vec::new() } else { shared.card_bytes.clone() };
    (StatusCode::OK, cache, [(header::CONTENT_TYPE, "application/json".to_owned())], body).into_response()
}

/// The first status fault that still applies, after any scripted slowness.
pub(crate) async fn transport_fault(shared: &Shared) -> Option<Response> {
    for fault in &shared.script.faults {
        if let Fault::SlowResponses(delay) = fault {
            tokio::time::sleep(*delay).await;
        }
    }
    let mut state = shared.lock();
    for (index, fault) in shared.script.faults.iter().enumerate() {
        let (times, status) = match fault {
            Fault::BadGateway(times) => (*times, StatusCode::BAD_GATEWAY),
            Fault::ServiceUnavailable(times) => (*times, StatusCode::SERVICE_UNAVAILABLE),
            _ => continue,
        };
        let hits = state.fault_hits.entry(index).or_insert(0);
        if times.covers(*hits) {
            *hits += 1;
            let reason = status.canonical_reason().unwrap_or("error");
            let mut response = (status, reason).into_response();
            if status == StatusCode::SERVICE_UNAVAILABLE {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("0"));
            }
            return Some(response);
        }
    }
    None
}

/// The cut the script applies to a stream that is about to start.
pub(crate) fn stream_cut(shared: &Shared) -> Cut {
    let mut state = shared.lock();
    for (index, fault) in shared.script.faults.iter().enumerate() {
        let (times, cut) = match fault {
            Fault::ResetMidStream { after_events, times } => (*times, Cut::Reset(*after_events)),
            Fault::TruncatedSse { after_events, times } => (*times, Cut::Truncate(*after_events)),
            _ => continue,
        };
        let hits = state.fault_hits.entry(index).or_insert(0);
        if times.covers(*hits) {
            *hits += 1;
            return cut;
        }
    }
    Cut::None
}

/// A 1.0 agent requires `A2A-Version: 1.0` (header or query); missing means 0.3 (spec 3.6).
/// A 0.3 agent predates the header and ignores it.
pub(crate) fn version_error(shared: &Shared, headers: &HeaderMap, query: Option<&str>) -> Option<A2aError> {
    if shared.protocol != Protocol::V1_0 {
        return None;
    }
    let from_header = headers.get("a2a-version").and_then(|v| v.to_str().ok()).map(str::trim);
    let from_query =
        query_pairs(query).into_iter().find(|(k, _)| k.eq_ignore_ascii_case("a2a-version")).map(|(_, v)| v);
    let requested = from_header.map(str::to_owned).or(from_query).filter(|v| !v.is_empty());
    let requested = requested.unwrap_or_else(|| "0.3".to_owned());
    (requested != "1.0").then(|| A2aError::version_not_supported(&requested))
}

fn json_response(status: StatusCode, content_type: &'static str, body: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body.to_string()).into_response()
}

async fn jsonrpc(
    shared: &Arc<Shared>,
    headers: &HeaderMap,
    query: Option<&str>,
    json: Result<Value, String>,
    op: Option<Op>,
    refused: Option<&A2aError>,
) -> Response {
    let protocol = shared.protocol;
    let failure = |id: &Value, error: A2aError| {
        json_response(StatusCode::OK, "application/json", &wire::jsonrpc_failure(protocol, id, &error))
    };
    let body = match json {
        Ok(body) => body,
        Err(why) => return failure(&Value::Null, A2aError::parse_error(&why)),
    };
    let id = body.get("id").cloned().unwrap_or(Value::Null);
    if body.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return failure(&id, A2aError::invalid_request("`jsonrpc` must be \"2.0\""));
    }
    if body.get("method").and_then(Value::as_str).is_none() {
        return failure(&id, A2aError::invalid_request("`method` must be a string"));
    }
    if let Some(error) = version_error(shared, headers, query) {
        return failure(&id, error);
    }
    if let Some(error) = refused {
        return failure(&id, error.clone());
    }
    let Some(op) = op else {
        return failure(&id, A2aError::method_not_found());
    };
    let params = body.get("params").cloned().unwrap_or_else(|| json!({}));
    if let Some(tenant) = &shared.tenant
        && params.get("tenant").and_then(Value::as_str) != Some(tenant.as_str())
    {
        return failure(&id, A2aError::invalid_params(format!("params.tenant must be {tenant:?}")));
    }
    match ops::execute(shared, op, params).await {
        Outcome::Json(result) => {
            let result = writing(shared).jsonrpc_result(result);
            json_response(StatusCode::OK, "application/json", &wire::jsonrpc_result(&id, result))
        }
        Outcome::Error(error) => failure(&id, error),
        Outcome::Stream(plan) => stream::sse_response(
            plan,
            Framing::JsonRpc { id },
            stream_cut(shared),
            keepalive(shared),
            writing(shared),
        ),
    }
}

async fn rest(shared: &Arc<Shared>, op: Op, params: Value) -> Response {
    // 0.3 predates the binding's media type.
    let media_type = match shared.protocol {
        Protocol::V1_0 => "application/a2a+json",
        Protocol::V0_3 => "application/json",
    };
    let proto =
        shared.protocol == Protocol::V0_3 && !shared.script.has_quirk(crate::Quirk::V03RestInJsonRpcShape);
    match ops::execute(shared, op, params).await {
        Outcome::Json(result) if proto => {
            json_response(StatusCode::OK, media_type, &proto_answer(op, &result))
        }
        Outcome::Json(result) => json_response(StatusCode::OK, media_type, &result),
        Outcome::Error(error) => rest_error(shared, &error),
        Outcome::Stream(plan) => {
            let framing = if proto { Framing::RestV03Proto } else { Framing::Rest };
            stream::sse_response(plan, framing, stream_cut(shared), keepalive(shared), writing(shared))
        }
    }
}

/// A 0.3 operation's result (in the JSON-RPC shape the operations write) as the proto answer of its
/// HTTP+JSON route ([`crate::proto_v03`]).
fn proto_answer(op: Op, result: &Value) -> Value {
    use crate::proto_v03 as proto;
    match op {
        Op::SendMessage => proto::send_message_response(result),
        Op::GetTask | Op::CancelTask => proto::task(result),
        Op::CreatePushConfig | Op::GetPushConfig => proto::task_push_config(result),
        Op::ListPushConfigs => proto::config_list(result),
        Op::DeletePushConfig => json!({}),
        // The 0.3 card JSON, as a2a-python serves it.
        Op::GetExtendedAgentCard | Op::ListTasks | Op::SendStreamingMessage | Op::SubscribeToTask => {
            result.clone()
        }
    }
}

/// How results and stream events are written: 0.3-shaped after the first
/// ([`Quirk::V03ShapedEventsAfterFirst`], 1.0 only), each behind a record separator
/// ([`Quirk::JsonTextSequenceEvents`]), 0.3 tasks without `kind` ([`Quirk::V03TasksWithoutKind`]),
/// 0.3 events bare ([`Quirk::BareV03StreamEvents`]).
fn writing(shared: &Shared) -> stream::Writing {
    stream::Writing {
        v03_shaped_after_first: shared.protocol == crate::Protocol::V1_0
            && shared.script.has_quirk(crate::Quirk::V03ShapedEventsAfterFirst),
        record_separator: shared.script.has_quirk(crate::Quirk::JsonTextSequenceEvents),
        v03_task_without_kind: shared.protocol == crate::Protocol::V0_3
            && shared.script.has_quirk(crate::Quirk::V03TasksWithoutKind),
        bare_v03_events: shared.protocol == crate::Protocol::V0_3
            && shared.script.has_quirk(crate::Quirk::BareV03StreamEvents),
    }
}

/// How often a stream sends keep-alive comments: only for [`Stall::CommentsOnly`](crate::Stall).
fn keepalive(shared: &Shared) -> Option<std::time::Duration> {
    (shared.script.stall == Some(crate::Stall::CommentsOnly)).then_some(shared.script.step_delay)
}

/// An HTTP+JSON error: a `google.rpc.Status` in 1.0, an HTTP status with `{"message"}` in 0.3.
fn rest_error(shared: &Shared, error: &A2aError) -> Response {
    if shared.protocol == Protocol::V0_3 {
        return rest_v03_error(error);
    }
    let status = StatusCode::from_u16(error.http_status).unwrap_or(StatusCode::BAD_REQUEST);
    json_response(status, "application/json", &error.rest_status())
}
