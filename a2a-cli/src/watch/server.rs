//! The one HTTP server of `a2a watch`: the page (`/`, `/agent?url=`), its live updates (`/events`,
//! server-sent events) and `/metrics`, on hyper's HTTP/1.1 connection loop.
//!
//! Every path answers only a request whose `Host` names this server ([`super::hosts`]: the bound
//! address's names and `--allowed-host`), and 421 any other, so that a page on another site cannot
//! read the fleet by DNS rebinding. With a token, every path asks for it too (`Authorization:
//! Bearer TOKEN`, or `?token=TOKEN` for a browser and its event stream) and answers 401 without it. Bounds: at most [`MAX_CONNECTIONS`]
//! connections at once (more wait in the listen queue), a request head within
//! [`HEADER_READ_TIMEOUT`], and every event stream ends when the watch stops.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use super::Shared;
use super::{metrics, page};

/// Connections served at once.
pub(super) const MAX_CONNECTIONS: usize = 256;
/// The longest a client may take to send a request head.
pub(super) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an idle event stream carries a comment, so proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

type Body = BoxBody<Bytes, Infallible>;

fn full(text: impl Into<Bytes>) -> Body {
    Full::new(text.into()).boxed()
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(full(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

/// Serves `listener` until `stop` turns true.
pub(super) async fn serve(listener: TcpListener, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.changed() => break,
        };
        // Reap finished connections so the set stays as small as the open ones.
        while connections.try_join_next().is_some() {}
        let Ok((stream, _)) = accepted else { continue };
        let shared = Arc::clone(&shared);
        let stop = stop.clone();
        connections.spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                let stop = stop.clone();
                async move { Ok::<_, Infallible>(handle(&request, &shared, stop)) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}

/// The query's value for `name`.
fn query(request: &Request<hyper::body::Incoming>, name: &str) -> Option<String> {
    let query = request.uri().query()?;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

/// Compares in time that does not depend on where the texts differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized(request: &Request<hyper::body::Incoming>, token: &str) -> bool {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same(given.trim().as_bytes(), token.as_bytes()));
    bearer || query(request, "token").is_some_and(|given| same(given.as_bytes(), token.as_bytes()))
}

/// A random nonce for the page's script.
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut text = String::new();
    for _ in 0..2 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(super::store::now_ms());
        text.push_str(&format!("{:016x}", hasher.finish()));
    }
    text
}

fn html(body: String, nonce: Option<&str>) -> Response<Body> {
    let mut response = Response::new(full(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    let script = nonce.map(|n| format!("'nonce-{n}'")).unwrap_or_else(|| "'none'".to_owned());
    if let Ok(policy) = HeaderValue::from_str(&format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src {script}; connect-src 'self'; \
         img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )) {
        headers.insert("content-security-policy", policy);
    }
    response
}

/// Whether `request` names a host this server answers: its `Host` (required), and the authority
/// of an absolute URI when it has one.
fn for_this_server(request: &Request<hyper::body::Incoming>, hosts: &super::hosts::AllowedHosts) -> bool {
    let named = request.headers().get(header::HOST).and_then(|v| v.to_str().ok());
    let authority = request.uri().authority().map(|a| a.as_str());
    named.is_some_and(|host| hosts.allows(host)) && authority.is_none_or(|host| hosts.allows(host))
}

fn handle(
    request: &Request<hyper::body::Incoming>,
    shared: &Shared,
    stop: watch::Receiver<bool>,
) -> Response<Body> {
    if !for_this_server(request, &shared.hosts) {
        // The names allowed are not listed: a page that rebound its own name here reads this.
        return plain(
            StatusCode::MISDIRECTED_REQUEST,
            "this watch answers only requests whose Host names the address it serves (more names: \
             --allowed-host)\n",
        );
    }
    if let Some(token) = &shared.token
        && !authorized(request, token)
    {
        let mut response = plain(
            StatusCode::UNAUTHORIZED,
            "a token is needed: Authorization: Bearer TOKEN, or ?token=TOKEN\n",
        );
        response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    if request.method() != Method::GET {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "only GET is served\n");
    }
    let token = shared.token.as_ref().and_then(|_| query(request, "token"));
    let fragment = query(request, "fragment").is_some();
    match request.uri().path() {
        "/" => {
            let sort = page::Sort::from_query(query(request, "sort").as_deref());
            let main = page::fleet_main(&shared.fleet(), token.as_deref(), sort, super::store::now_ms());
            if fragment {
                html(main, None)
            } else {
                let nonce = nonce();
                html(page::document("a2a watch", &main, &nonce), Some(&nonce))
            }
        }
        "/agent" => {
            let url = query(request, "url").unwrap_or_default();
            let fleet = shared.fleet();
            let Some(agent) = fleet.agents.iter().find(|a| a.url == url) else {
                return plain(StatusCode::NOT_FOUND, "no such agent is watched\n");
            };
            let main = page::agent_main(agent, token.as_deref(), super::store::now_ms());
            if fragment {
                html(main, None)
            } else {
                let nonce = nonce();
                html(page::document(&format!("{} - a2a watch", agent.label), &main, &nonce), Some(&nonce))
            }
        }
        "/metrics" => {
            let mut response = Response::new(full(metrics::render(&shared.fleet())));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        "/events" => events(shared.updates.subscribe(), stop),
        _ => plain(StatusCode::NOT_FOUND, "not found: the page is at /, metrics at /metrics\n"),
    }
}

/// The event stream: `update` with the fleet's version at each change, a comment when idle, until
/// the watch stops.
fn events(updates: watch::Receiver<u64>, stop: watch::Receiver<bool>) -> Response<Body> {
    let stream =
        futures::stream::unfold((updates, stop, true), |(mut updates, mut stop, first)| async move {
            if *stop.borrow() {
                return None;
            }
            if first {
                let version = *updates.borrow_and_update();
                return Some((format!("event: update\ndata: {version}\n\n"), (updates, stop, false)));
            }
            let text = tokio::select! {
                changed = updates.changed() => match changed {
                    Ok(()) => format!("event: update\ndata: {}\n\n", *updates.borrow_and_update()),
                    Err(_) => return None,
                },
                _ = tokio::time::sleep(KEEP_ALIVE) => ": keep-alive\n\n".to_owned(),
                _ = stop.changed() => return None,
            };
            Some((text, (updates, stop, false)))
        })
        .map(|text| Ok::<_, Infallible>(Frame::data(Bytes::from(text))));
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(stream)));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Binds `addr`.
///
/// # Errors
/// A message naming the address when it cannot be bound.
pub(super) async fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))
}
