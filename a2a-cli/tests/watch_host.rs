//! `a2a watch` answers only its own Host: a request whose `Host` names another site (a page that
//! rebound its own name to the watch's address) is refused on every route, and the page still
//! answers its loopback names and the names allowed with `--allowed-host`.

mod common;

use std::time::Duration;

use a2a_testkit::ScriptedAgent;
use a2a_typestate::Deployment;
use a2a_typestate_cli::watch::{Retention, Watch, WatchOptions};
use a2a_typestate_client::audit::AuditOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Every route the server has, and one it has not.
const ROUTES: [&str; 5] = ["/", "/metrics", "/events", "/agent?url=", "/no-such-page"];

fn options(allowed_hosts: &[&str]) -> WatchOptions {
    WatchOptions {
        interval: Duration::from_secs(3600),
        listen: "127.0.0.1:0".parse().unwrap(),
        allowed_hosts: allowed_hosts.iter().map(|h| (*h).to_owned()).collect(),
        retention: Retention { keep: 10, max_age: Duration::from_secs(3600) },
        audit: AuditOptions { push_arrival_bound: Duration::from_secs(1), ..AuditOptions::default() },
        ..WatchOptions::default()
    }
}

/// Sends `GET path` to the watch with `host` as its `Host` header (none when `None`), as a browser
/// would after a rebinding; returns the status and the body (an event stream's first bytes).
async fn get(watch: &Watch, path: &str, host: Option<&str>) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(watch.address()).await.unwrap();
    let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
    let request = format!("GET {path} HTTP/1.1\r\n{host}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0; 64 * 1024];
    let mut read = 0;
    // Enough for a status line and a page; an event stream never ends, so stop at its first event.
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer[read..])).await
    {
        if n == 0 {
            break;
        }
        read += n;
        if String::from_utf8_lossy(&answer[..read]).contains("event: update") || read == answer.len() {
            break;
        }
    }
    let text = String::from_utf8_lossy(&answer[..read]).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

async fn watching(name: &str, allowed_hosts: &[&str]) -> (Watch, a2a_testkit::RunningAgent) {
    let agent = ScriptedAgent::builder().name(name).spawn().await.unwrap();
    let watch =
        Watch::start(vec![(agent.base_url(), Deployment::Direct)], options(allowed_hosts)).await.unwrap();
    (watch, agent)
}

#[tokio::test]
async fn a_request_naming_another_host_is_refused_on_every_route() {
    let name = format!("fleet-secret-{}", uuid::Uuid::new_v4().simple());
    let (watch, agent) = watching(&name, &[]).await;
    let port = watch.address().port();
    let foreign = [
        Some(format!("evil.example:{port}")),
        Some("evil.example".to_owned()),
        Some(format!("127.0.0.1.evil.example:{port}")),
        Some(format!("localhost:{}", port.wrapping_add(1))),
        None,
    ];
    for route in ROUTES {
        let path =
            if route.ends_with('=') { format!("{route}{}", agent.base_url()) } else { route.to_owned() };
        for host in &foreign {
            let (status, body) = get(&watch, &path, host.as_deref()).await;
            assert!([421, 403, 400].contains(&status), "{path} with Host {host:?} answered {status}: {body}");
            assert!(
                !body.contains(&name) && !body.contains(&agent.base_url()),
                "{path}: the fleet leaked: {body}"
            );
        }
    }
    watch.stop().await;
}

#[tokio::test]
async fn the_page_still_answers_its_loopback_names() {
    let name = format!("fleet-{}", uuid::Uuid::new_v4().simple());
    let (watch, agent) = watching(&name, &[]).await;
    let port = watch.address().port();
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")] {
        for route in ["/", "/metrics"] {
            let (status, body) = get(&watch, route, Some(&host)).await;
            assert_eq!(status, 200, "{route} with Host {host}: {body}");
            assert!(body.contains(&agent.base_url()), "{route} with Host {host} shows the fleet: {body}");
        }
        let (status, _) = get(&watch, "/events", Some(&host)).await;
        assert_eq!(status, 200, "/events with Host {host}");
    }
    // What a browser and reqwest send, from the page's own URL.
    let answered =
        reqwest::Client::builder().no_proxy().build().unwrap().get(watch.url()).send().await.unwrap();
    assert_eq!(answered.status(), 200);
    watch.stop().await;
}

#[tokio::test]
async fn a_name_allowed_with_allowed_host_is_answered_and_no_other() {
    let allowed = "watch.example.internal";
    let (watch, _agent) = watching("allowed", &[allowed]).await;
    let port = watch.address().port();
    assert_eq!(get(&watch, "/metrics", Some(&format!("{allowed}:{port}"))).await.0, 200);
    assert_eq!(get(&watch, "/metrics", Some(&format!("WATCH.example.internal:{port}"))).await.0, 200);
    for other in [format!("other.example.internal:{port}"), allowed.to_owned()] {
        assert_ne!(get(&watch, "/metrics", Some(&other)).await.0, 200, "{other}");
    }
    watch.stop().await;
}

#[tokio::test]
async fn an_allowed_host_no_host_header_can_hold_is_a_usage_error_naming_it() {
    let output =
        common::a2a(&["watch", "--allowed-host", "http://watch.example/", "http://127.0.0.1:9"]).await;
    assert_eq!(output.status.code(), Some(64));
    let said = common::stderr(&output);
    assert!(said.contains("--allowed-host") && said.contains("http://watch.example/"), "{said}");
}
