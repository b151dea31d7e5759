//! One card per decision: an audit reports, lifts and probes the same card document, even when
//! the card is served `no-store` and changes between fetches.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::Deployment;
use a2a_typestate_client::Client;
use a2a_typestate_client::audit::{AuditOptions, Auditor};

async fn card_of(agent: &a2a_testkit::RunningAgent) -> serde_json::Value {
    let url = format!("{}/.well-known/agent-card.json", agent.base_url());
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn a_card_that_changes_between_fetches_is_audited_and_probed_from_one_copy() {
    let first = ScriptedAgent::builder()
        .name("first-copy")
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let second = ScriptedAgent::builder()
        .name("second-copy")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let copies = Arc::new([card_of(&first).await, card_of(&second).await]);
    let served = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get({
            let (copies, served) = (copies.clone(), served.clone());
            move || async move {
                // Each fetch gets the next copy: the first names one interface, the next another.
                let n = served.fetch_add(1, Ordering::SeqCst).min(1);
                ([(axum::http::header::CACHE_CONTROL, "no-store")], axum::Json(copies[n].clone()))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let auditor = Auditor::new(Client::builder(), AuditOptions::default()).await.unwrap();

    let audited = auditor.agent(&base, Deployment::Direct).await;

    assert_eq!(audited.name.as_deref(), Some("first-copy"), "the report is the first copy's");
    assert!(
        audited.over_declares.is_empty(),
        "the copy reported is honest and was the one probed: {audited:?}"
    );
    assert_eq!(
        first.requests_for("SendStreamingMessage").len(),
        1,
        "the probe went to the reported copy's interface"
    );
    assert!(
        second.requests_for("SendStreamingMessage").is_empty(),
        "nothing went to the other copy's interface"
    );
    assert_eq!(served.load(Ordering::SeqCst), 1, "one card fetch for the whole audit");
    first.shutdown().await;
    second.shutdown().await;
}
