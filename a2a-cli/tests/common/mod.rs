//! Running the built `a2a` binary the way a user does, and tiny servers for cards the testkit does not
//! serve.

#![allow(dead_code)] // each test file uses its own part of this module

pub mod browser;

use std::process::Output;

/// Runs the built binary with `args`, stdout and stderr captured (so neither is a terminal), with the
/// environment variables that force or forbid colour removed.
pub async fn a2a(args: &[&str]) -> Output {
    a2a_with_env(args, &[]).await
}

/// The proxy variables the binary reads, each removed unless `env` sets it.
const PROXY_VARIABLES: [&str; 8] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// As [`a2a`], with `env` set (and no proxy variable but those in `env`).
pub async fn a2a_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().await.expect("the a2a binary runs")
}

/// As [`a2a`], with `input` written to its stdin (a pipe) and then closed.
pub async fn a2a_with_stdin(args: &[&str], input: &str) -> Output {
    use tokio::io::AsyncWriteExt as _;
    let mut command = command(args, &[]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("the a2a binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input.as_bytes()).await.expect("stdin takes the input");
    drop(stdin);
    child.wait_with_output().await.expect("the a2a binary runs")
}

/// The binary with `args` and `env`, the variables that would change its output removed.
pub fn command(args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"));
    for name in PROXY_VARIABLES {
        command.env_remove(name);
    }
    command
        .envs(env.iter().copied())
        .args(args)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .kill_on_drop(true);
    command
}

/// Stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Serves `body` as the agent card at `/.well-known/agent-card.json` (and 404 elsewhere) on loopback;
/// returns the base URL. The server lives as long as the test's runtime.
pub async fn serve_card(body: &'static str) -> String {
    let app = axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get(move || async move { ([("content-type", "application/json")], body) }),
    );
    serve(app).await
}

/// Serves `card` as the agent card at `/.well-known/agent-card.json` on loopback; returns the base URL.
pub async fn serve_card_json(card: serde_json::Value) -> String {
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(move || async move { axum::Json(card) }));
    serve(app).await
}

/// A server that answers 404 to everything; returns its base URL.
pub async fn serve_nothing() -> String {
    serve(axum::Router::new()).await
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// True when `text` holds an ANSI escape sequence.
pub fn has_escape_codes(text: &str) -> bool {
    text.contains('\x1b')
}

/// A front for two agents, forwarding to `honest` until `lying` is set and to `liar` after: one
/// deployment replaced by another behind the same URL. Cards are rewritten to name the front, so
/// every call goes through it; with `etag` false they are served without an `ETag`. A backend that
/// does not answer is a 502.
pub async fn flippable(
    honest: &a2a_testkit::RunningAgent,
    liar: &a2a_testkit::RunningAgent,
    lying: std::sync::Arc<std::sync::atomic::AtomicBool>,
    etag: bool,
) -> String {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = format!("http://{}", listener.local_addr().unwrap());
    let backends = Arc::new([honest.base_url(), liar.base_url()]);
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let me = front.clone();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let (backends, http, lying, me) =
            (Arc::clone(&backends), http.clone(), Arc::clone(&lying), me.clone());
        async move {
            let backend = &backends[usize::from(lying.load(Ordering::SeqCst))];
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, 16 << 20).await.unwrap_or_default();
            let target = format!("{backend}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
            let mut forward = http.request(parts.method.clone(), target).body(body);
            for (name, value) in &parts.headers {
                if name != axum::http::header::HOST && name != axum::http::header::CONTENT_LENGTH {
                    forward = forward.header(name, value);
                }
            }
            let Ok(answer) = forward.send().await else {
                return axum::http::Response::builder().status(502).body(axum::body::Body::empty()).unwrap();
            };
            let mut response = axum::http::Response::builder().status(answer.status());
            for (name, value) in answer.headers() {
                let dropped = name == axum::http::header::CONTENT_LENGTH
                    || name == axum::http::header::TRANSFER_ENCODING
                    || (!etag && name == axum::http::header::ETAG);
                if !dropped {
                    response = response.header(name, value);
                }
            }
            if parts.uri.path().starts_with("/.well-known/") {
                let card = answer.text().await.unwrap_or_default().replace(backend.as_str(), &me);
                return response.body(axum::body::Body::from(card)).unwrap();
            }
            response.body(axum::body::Body::from_stream(answer.bytes_stream())).unwrap()
        }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    front
}
