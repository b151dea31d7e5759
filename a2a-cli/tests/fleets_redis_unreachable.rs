//! `a2a demo --replicas N --redis URL` with that Redis down: the report says the Redis was
//! unreachable and what that means for the checks, instead of "using URL" and a failed check.

mod common;

use common::{a2a, stderr, stdout};
use serde_json::Value;

/// A loopback URL where nothing listens: a port just bound and let go.
async fn redis_url_of_nothing() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("redis://127.0.0.1:{port}/")
}

#[tokio::test]
async fn the_replicas_demo_says_when_redis_is_unreachable() {
    let url = redis_url_of_nothing().await;
    let args = [
        "demo",
        "--replicas",
        "2",
        "--tasks-per-agent",
        "1",
        "--push-arrival-bound",
        "500ms",
        "--redis",
        url.as_str(),
    ];
    let output = a2a(&[&args[..], &["--json"]].concat()).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    let note = report["redis"]["note"].as_str().unwrap_or_default();
    assert!(note.contains(&format!("{url} is unreachable")), "{note}");
    assert!(note.contains("local caches alone"), "says what the run becomes: {note}");
    assert!(note.contains("fails for that reason"), "says what it means for the checks: {note}");
    assert!(!note.starts_with("using"), "{note}");
    assert!(
        report["redis"]["unreachable"].as_str().is_some_and(|why| why.contains("127.0.0.1")),
        "{report:#}"
    );
    let checks = report["checks"].as_array().expect("checks");
    let through_redis = checks
        .iter()
        .find(|c| c["name"].as_str().is_some_and(|n| n.contains("through Redis")))
        .unwrap_or_else(|| panic!("the shared-cache check is still made: {checks:#?}"));
    let detail = through_redis["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("was unreachable"), "the check names the cause: {detail}");

    let output = a2a(&args).await;
    let shown = stdout(&output);
    let line = shown.lines().find(|l| l.trim_start().starts_with("redis:")).unwrap_or_default();
    assert!(line.contains("is unreachable"), "the text report says it too: {shown}");
}
