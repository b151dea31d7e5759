//! `a2a audit` for real fleets: tolerant reading with deviations reported apart, push registered by
//! the other path before any refusal, webhooks an agent will not call, agents with the same name,
//! agent files.

mod common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Quirk, RunningAgent, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

async fn spawn(name: &str, capabilities: Capabilities, script: Script) -> RunningAgent {
    ScriptedAgent::builder().name(name).capabilities(capabilities).script(script).spawn().await.unwrap()
}

async fn audit_json(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["audit", "--json", "--push-arrival-bound", "2s"];
    all.extend_from_slice(args);
    let output = a2a(&all).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report)
}

fn verdict_of<'a>(agent: &'a Value, capability: &str) -> &'a Value {
    agent["claims"]
        .as_array()
        .and_then(|claims| claims.iter().find(|c| c["capability"] == capability))
        .unwrap_or_else(|| panic!("no verdict on {capability}: {agent:#}"))
}

#[tokio::test]
async fn a_stream_of_0_3_shaped_events_is_read_verified_and_its_deviations_reported_apart() {
    let agent = spawn(
        "framework",
        Capabilities::none().with_streaming(),
        Script::honest().quirk(Quirk::V03ShapedEventsAfterFirst),
    )
    .await;
    let url = agent.base_url();

    let (status, report) = audit_json(&[&url]).await;

    let audited = &report["agents"][0];
    assert_eq!(status, Some(0), "{report:#}");
    assert_eq!(verdict_of(audited, "streaming")["verdict"], "verified", "{audited:#}");
    assert!(audited["error"].is_null(), "{audited:#}");
    let deviations = audited["wireDeviations"].as_array().expect("a list");
    // The first event (the Task) is 1.0; the second is the first 0.3-shaped one.
    let unwrapped = deviations
        .iter()
        .find(|d| d["kind"] == "unwrapped-0.3-object")
        .unwrap_or_else(|| panic!("no unwrapped event: {audited:#}"));
    assert_eq!(unwrapped["call"], "SendStreamingMessage");
    assert_eq!(unwrapped["event"], 2, "{unwrapped:#}");
    assert_eq!(unwrapped["path"], "result.kind", "{unwrapped:#}");
    assert!(
        deviations.iter().any(|d| d["path"] == "result.final" && d["kind"] == "removed-field"),
        "{audited:#}"
    );
    assert!(deviations.iter().all(|d| d["event"].as_u64().is_some_and(|n| n >= 2)), "{audited:#}");
    assert_eq!(report["wireDeviations"], deviations.len());
    assert_eq!(audited["overDeclares"], serde_json::json!([]), "a deviation is no lie");

    let (strict, report) = audit_json(&["--strict", &url]).await;
    assert_eq!(strict, Some(3), "--strict fails on deviations alone: {report:#}");
    assert_eq!(verdict_of(&report["agents"][0], "streaming")["verdict"], "verified");

    let table = stdout(&a2a(&["audit", &url]).await);
    assert!(table.contains("Wire deviations") && table.contains("result.kind"), "{table}");
}

#[tokio::test]
async fn a_strict_client_still_refuses_to_read_0_3_shaped_events() {
    // The library default stays strict: the tolerant reading is the audit's choice.
    let agent = spawn(
        "framework",
        Capabilities::none().with_streaming(),
        Script::honest().quirk(Quirk::V03ShapedEventsAfterFirst),
    )
    .await;
    let client = a2a_typestate_client::Client::builder().build().unwrap();
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[
        a2a_typestate_client::Capability::Streaming,
    ]);
    let message = a2a_typestate_types::Message::user("hi").with_message_id("m-strict");
    let error = client.run_task(&agent.base_url(), message, &negotiation).await.unwrap_err();
    assert_eq!(error.kind(), a2a_typestate_client::ErrorKind::BadInput, "{error}");
}

#[tokio::test]
async fn a_stream_behind_record_separators_is_read_verified_and_the_separators_reported_apart() {
    // VoltAgent's A2A server writes each event's data as a JSON text sequence element (RFC 7464).
    let agent = spawn(
        "json-text-sequence",
        Capabilities::none().with_streaming(),
        Script::honest().quirk(Quirk::JsonTextSequenceEvents),
    )
    .await;
    let url = agent.base_url();

    let (status, report) = audit_json(&[&url]).await;

    let audited = &report["agents"][0];
    assert_eq!(status, Some(0), "{report:#}");
    assert_eq!(verdict_of(audited, "streaming")["verdict"], "verified", "{audited:#}");
    let deviations = audited["wireDeviations"].as_array().expect("a list");
    let first = deviations
        .iter()
        .find(|d| d["kind"] == "json-text-sequence-rs")
        .unwrap_or_else(|| panic!("no record separator reported: {audited:#}"));
    assert_eq!(
        (&first["call"], &first["event"], &first["path"]),
        (&"SendStreamingMessage".into(), &1.into(), &"".into())
    );
    assert!(first["found"].as_str().is_some_and(|f| f.contains("0x1E")), "{first:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]), "a deviation is no lie");

    let (strict, _) = audit_json(&["--strict", &url]).await;
    assert_eq!(strict, Some(3), "--strict fails on deviations alone");
}

#[tokio::test]
async fn an_agent_that_drops_inline_push_configs_but_honours_the_create_call_has_push_verified() {
    let agent = spawn(
        "drops-inline",
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest().quirk(Quirk::DropsInlinePushConfig).step_delay(Duration::from_millis(300)),
    )
    .await;

    let (status, report) = audit_json(&[&agent.base_url()]).await;

    let audited = &report["agents"][0];
    assert_eq!(status, Some(0), "{report:#}");
    assert_eq!(verdict_of(audited, "pushNotifications")["verdict"], "verified", "{audited:#}");
    assert_eq!(verdict_of(audited, "streaming")["verdict"], "verified", "{audited:#}");
    let attempts: Vec<&str> =
        audited["pushRegistration"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(attempts.iter().any(|a| a.starts_with("inline") && a.contains("dropped")), "{attempts:?}");
    assert!(attempts.iter().any(|a| a.starts_with("CreateTaskPushNotificationConfig")), "{attempts:?}");
    assert!(!attempts.iter().any(|a| a.starts_with("inline") && a.contains("accepted (")), "{attempts:?}");
    assert_eq!(agent.requests_for("GetTaskPushNotificationConfig").len(), 1);
    assert_eq!(agent.requests_for("CreateTaskPushNotificationConfig").len(), 1);
}

#[tokio::test]
async fn an_agent_that_refuses_loopback_webhooks_has_push_unverifiable_and_streaming_still_verified() {
    let agent = spawn(
        "ssrf-guarded",
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest().quirk(Quirk::RejectsPrivateWebhookUrls),
    )
    .await;

    let (status, report) = audit_json(&[&agent.base_url()]).await;

    let audited = &report["agents"][0];
    assert_eq!(status, Some(0), "{report:#}");
    assert!(audited["error"].is_null(), "never 'not audited' for a refused webhook: {audited:#}");
    assert_eq!(verdict_of(audited, "streaming")["verdict"], "verified", "{audited:#}");
    let push = verdict_of(audited, "pushNotifications");
    assert_eq!(push["verdict"], "unverifiable", "{audited:#}");
    let reason = push["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("-32602") && reason.contains("loopback or private"), "{reason}");
    assert!(reason.contains("inline") && reason.contains("CreateTaskPushNotificationConfig"), "{reason}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
}

#[tokio::test]
async fn agents_whose_cards_share_a_name_are_told_apart_by_url() {
    let one = spawn("twin", Capabilities::none().with_streaming(), Script::honest()).await;
    let other = spawn("twin", Capabilities::none().with_streaming(), Script::honest()).await;
    let single = spawn("single", Capabilities::none(), Script::honest()).await;

    let (status, report) = audit_json(&[&one.base_url(), &other.base_url(), &single.base_url()]).await;

    assert_eq!(status, Some(0), "{report:#}");
    let labels: Vec<&str> =
        report["agents"].as_array().unwrap().iter().filter_map(|a| a["label"].as_str()).collect();
    assert_eq!(labels, [one.base_url().as_str(), other.base_url().as_str(), "single"]);
    let table = stdout(&a2a(&["audit", &one.base_url(), &other.base_url()]).await);
    assert!(table.contains(&one.base_url()) && table.contains(&other.base_url()), "{table}");
}

#[tokio::test]
async fn a_fleet_file_is_audited_in_order_with_bounded_concurrency() {
    let honest = spawn("honest", Capabilities::none().with_streaming(), Script::honest()).await;
    let liar =
        spawn("liar", Capabilities::none(), Script::honest().with(a2a_testkit::Lie::StreamingRefused)).await;
    let dir = std::env::temp_dir().join(format!("a2a-audit-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("agents.txt");
    std::fs::write(&file, format!("# fleet\n{}\n\n{}\n", honest.base_url(), liar.base_url())).unwrap();

    let (status, report) = audit_json(&["--concurrency", "1", "--file", file.to_str().unwrap()]).await;

    assert_eq!(status, Some(1), "{report:#}");
    let labels: Vec<&str> =
        report["agents"].as_array().unwrap().iter().filter_map(|a| a["label"].as_str()).collect();
    assert_eq!(labels, ["honest", "liar"]);
    let refused = verdict_of(&report["agents"][1], "streaming");
    assert_eq!(refused["lie"], "streaming declared but refused", "{refused:#}");
    assert!(refused["contradiction"].as_str().unwrap().contains("SendStreamingMessage answered -32004"));

    std::fs::write(&file, "not-a-url\n").unwrap();
    let output = a2a(&["audit", "--file", file.to_str().unwrap()]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("line 1"), "{}", stderr(&output));
}

#[tokio::test]
async fn working_left_unobservable_is_named_a_lifecycle_fault_and_no_lie() {
    let agent = spawn(
        "forever",
        Capabilities::none().with_streaming(),
        Script::honest().stall(a2a_testkit::Stall::WorkingForever).step_delay(Duration::from_millis(200)),
    )
    .await;

    let (status, report) = audit_json(&["--working-bound", "1s", &agent.base_url()]).await;

    let audited = &report["agents"][0];
    assert_eq!(status, Some(2), "{report:#}");
    let fault = audited["lifecycleFault"].as_str().unwrap_or_else(|| panic!("named: {audited:#}"));
    assert!(fault.contains("`working` left unobservable past the 1 s bound"), "{fault}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
    assert_ne!(
        verdict_of(audited, "streaming")["verdict"],
        "notExercised",
        "a stream was opened: {audited:#}"
    );
}

#[tokio::test]
async fn the_webhook_listens_where_asked_and_agents_are_given_the_public_url() {
    let agent = spawn(
        "pusher",
        Capabilities::none().with_push_notifications().with_poll_cadence(Duration::from_millis(50)),
        Script::honest(),
    )
    .await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let public = format!("http://localhost:{port}");

    let (status, report) =
        audit_json(&["--webhook-listen", &listen, "--webhook-public-url", &public, &agent.base_url()]).await;

    assert_eq!(status, Some(0), "{report:#}");
    assert_eq!(verdict_of(&report["agents"][0], "pushNotifications")["verdict"], "verified", "{report:#}");
    let sent = agent.requests_for("SendMessage");
    let url = sent[0].body.as_ref().and_then(|b| {
        b.pointer("/params/configuration/taskPushNotificationConfig/url").and_then(Value::as_str)
    });
    assert!(url.is_some_and(|u| u.starts_with(&public)), "the agent was given {url:?}");
}
