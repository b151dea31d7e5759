//! `a2a audit` exercises every claim: after a refusal, each claim the first probe left unsettled is
//! probed on its own, so every lie is named with its own evidence; honest agents get one probe and
//! exit 0; silence at a webhook URL the agent itself refused is no lie.

mod common;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use a2a_testkit::{Capabilities, Lie, Quirk, RunningAgent, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

/// Audits `url` with `--json` and a short push bound; returns the exit status and the agent's entry.
async fn audit_json(url: &str) -> (Option<i32>, Value) {
    let output = a2a(&["audit", "--json", "--push-arrival-bound", "1s", url]).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report["agents"][0].clone())
}

fn verdict_of<'a>(agent: &'a Value, capability: &str) -> &'a Value {
    agent["claims"]
        .as_array()
        .and_then(|claims| claims.iter().find(|c| c["capability"] == capability))
        .unwrap_or_else(|| panic!("no verdict on {capability}: {agent:#}"))
}

fn assert_refused_with_evidence(agent: &Value, capability: &str) {
    let verdict = verdict_of(agent, capability);
    assert_eq!(verdict["verdict"], "refused", "{capability}: {agent:#}");
    let evidence = verdict["evidence"].as_str().unwrap_or_default();
    assert!(evidence.contains("event #"), "{capability} refused without evidence: {verdict:#}");
}

fn probed_alone(agent: &Value) -> Vec<String> {
    agent["claimProbes"]
        .as_array()
        .unwrap_or_else(|| panic!("no claimProbes: {agent:#}"))
        .iter()
        .filter_map(|p| p["capability"].as_str().map(str::to_owned))
        .collect()
}

async fn spawn(capabilities: Capabilities, script: Script) -> RunningAgent {
    ScriptedAgent::builder().name("audited").capabilities(capabilities).script(script).spawn().await.unwrap()
}

#[tokio::test]
async fn a_card_lying_about_three_capabilities_is_refused_three_times_each_with_its_own_evidence() {
    let script =
        Script::honest().with(Lie::StreamingRefused).with(Lie::EmptyHistory).with(Lie::PushConfigUnsupported);
    let agent = spawn(Capabilities::none(), script).await;

    let (status, audited) = audit_json(&agent.base_url()).await;

    assert_eq!(status, Some(1), "{audited:#}");
    for capability in ["streaming", "stateTransitionHistory", "pushNotifications"] {
        assert_refused_with_evidence(&audited, capability);
    }
    assert_eq!(
        audited["overDeclares"],
        serde_json::json!(["streaming", "stateTransitionHistory", "pushNotifications"]),
        "{audited:#}"
    );
    // The first probe refused streaming; each other claim had one probe of its own, no more.
    assert_eq!(probed_alone(&audited), ["stateTransitionHistory", "pushNotifications"], "{audited:#}");
    let push = verdict_of(&audited, "pushNotifications");
    assert!(
        push["evidence"].as_str().is_some_and(|e| e.contains("pushNotifications alone")),
        "the evidence names the probe it comes from: {push:#}"
    );
    assert!(audited["error"].is_null(), "{audited:#}");
}

#[tokio::test]
async fn the_official_over_declaring_python_peer_has_every_claim_exercised_and_each_lie_named() {
    let peer = OfficialPeer::start(PeerKind::PythonOverDeclaring).await.unwrap_or_else(|e| panic!("{e}"));

    let (status, audited) = audit_json(peer.base_url()).await;

    assert_eq!(status, Some(1), "{audited:#}");
    // -32004 to SendStreamingMessage in the first probe; -32003 to the push-config calls in the
    // push probe (the inline config's confirmation, then the create call).
    assert_refused_with_evidence(&audited, "streaming");
    assert_refused_with_evidence(&audited, "pushNotifications");
    let push = verdict_of(&audited, "pushNotifications");
    assert!(push["contradiction"].as_str().is_some_and(|c| c.contains("-32003")), "{push:#}");
    // a2a-sdk keeps the task's messages, so GetTask's history is not empty: under the refusal rule
    // (an empty history when relied on) the history claim holds, and its own probe shows it.
    let history = verdict_of(&audited, "stateTransitionHistory");
    assert_eq!(history["verdict"], "verified", "{audited:#}");
    assert!(
        history["evidence"].as_str().is_some_and(|e| e.contains("stateTransitionHistory alone")),
        "{history:#}"
    );
    for claim in audited["claims"].as_array().unwrap() {
        assert_ne!(claim["verdict"], "notExercised", "every claim is exercised: {audited:#}");
    }
    assert_eq!(probed_alone(&audited), ["stateTransitionHistory", "pushNotifications"], "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!(["streaming", "pushNotifications"]));
    peer.stop().unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn an_honest_agent_gets_one_probe_and_exits_zero() {
    let capabilities =
        Capabilities::none().with_streaming().with_state_transition_history().with_push_notifications();
    let agent = spawn(capabilities, Script::honest()).await;

    let (status, audited) = audit_json(&agent.base_url()).await;

    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(audited["claimProbes"], serde_json::json!([]), "nothing refused, nothing probed again");
    let sends = agent.requests_for("SendMessage").len() + agent.requests_for("SendStreamingMessage").len();
    assert_eq!(sends, 1, "one task for an honest agent");
}

#[tokio::test]
async fn an_agent_that_refused_the_webhook_url_inline_and_never_calls_it_is_not_over_declaring_push() {
    let agent = spawn(
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest().quirk(Quirk::NeverCallsPrivateWebhooks),
    )
    .await;

    let (status, audited) = audit_json(&agent.base_url()).await;

    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]), "{audited:#}");
    assert_eq!(verdict_of(&audited, "streaming")["verdict"], "verified", "{audited:#}");
    let push = verdict_of(&audited, "pushNotifications");
    assert_eq!(push["verdict"], "unverifiable", "{audited:#}");
    let reason = push["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("-32602") && reason.contains("webhook URL the agent accepts"), "{reason}");
    assert_eq!(agent.requests_for("CreateTaskPushNotificationConfig").len(), 1, "{audited:#}");
    assert!(agent.push_callbacks_sent().is_empty());
}
