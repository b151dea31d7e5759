//! `a2a audit` end to end: the built binary against scripted agents spawned by the test.

mod common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Fault, Lie, RunningAgent, Script, ScriptedAgent, Times};
use common::{a2a, has_escape_codes, stderr, stdout};
use serde_json::Value;

async fn spawn(capabilities: Capabilities, script: Script) -> RunningAgent {
    ScriptedAgent::builder().name("audited").capabilities(capabilities).script(script).spawn().await.unwrap()
}

/// Audits `agent` with `--json` and a short push bound; returns the exit status and the agent's entry.
async fn audit_json(agent: &RunningAgent) -> (Option<i32>, Value) {
    let output = a2a(&["audit", "--json", "--push-arrival-bound", "1s", &agent.base_url()]).await;
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

async fn assert_lie_is_named(capabilities: Capabilities, lie: Lie, capability: &str) {
    let agent = spawn(capabilities, Script::honest().with(lie)).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(1), "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([capability]), "{audited:#}");
    let verdict = verdict_of(&audited, capability);
    assert_eq!(verdict["verdict"], "refused", "{audited:#}");
    assert!(!verdict["evidence"].as_str().unwrap_or_default().is_empty(), "refusal without evidence");
    assert!(audited["error"].is_null(), "{audited:#}");
}

#[tokio::test]
async fn streaming_refused_with_32004_is_named_as_over_declared_streaming() {
    assert_lie_is_named(Capabilities::none(), Lie::StreamingRefused, "streaming").await;
}

#[tokio::test]
async fn a_stream_without_its_artifact_is_named_as_over_declared_streaming() {
    assert_lie_is_named(Capabilities::none(), Lie::StreamWithoutArtifact, "streaming").await;
}

#[tokio::test]
async fn an_empty_history_is_named_as_over_declared_state_transition_history() {
    let streaming = Capabilities::none().with_streaming();
    assert_lie_is_named(streaming, Lie::EmptyHistory, "stateTransitionHistory").await;
}

#[tokio::test]
async fn an_abandoned_probe_reports_the_round_trips_it_wasted() {
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::EmptyHistory)).await;
    let (_, audited) = audit_json(&agent).await;
    assert!(audited["probe"]["ending"] == "failed", "an empty history abandons the task: {audited:#}");
    let round_trips = audited["probe"]["negotiationRoundTrips"].as_u64();
    assert!(round_trips.is_some_and(|n| n > 0), "{audited:#}");
}

#[tokio::test]
async fn a_silent_pusher_is_named_as_over_declared_push() {
    let polled = Capabilities::none().with_poll_cadence(Duration::from_millis(50));
    assert_lie_is_named(polled, Lie::SilentPush, "pushNotifications").await;
}

#[tokio::test]
async fn push_with_wrong_credentials_is_named_as_over_declared_push() {
    let polled = Capabilities::none().with_poll_cadence(Duration::from_millis(50));
    assert_lie_is_named(polled, Lie::WrongPushCredentials, "pushNotifications").await;
}

#[tokio::test]
async fn an_honest_agent_has_its_claims_verified_and_exits_zero() {
    let capabilities = Capabilities::none().with_streaming().with_state_transition_history();
    let agent = spawn(capabilities, Script::honest()).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
    assert_eq!(verdict_of(&audited, "streaming")["verdict"], "verified", "{audited:#}");
    assert_eq!(verdict_of(&audited, "stateTransitionHistory")["verdict"], "verified", "{audited:#}");
    assert_eq!(audited["probe"]["ending"], "completed", "{audited:#}");
}

#[tokio::test]
async fn an_honest_pusher_has_push_verified() {
    let polled = Capabilities::none().with_push_notifications().with_poll_cadence(Duration::from_millis(50));
    let agent = spawn(polled, Script::honest()).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(verdict_of(&audited, "pushNotifications")["verdict"], "verified", "{audited:#}");
}

#[tokio::test]
async fn an_under_declaring_agent_is_no_lie_and_exits_zero() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::UnderDeclaredStreaming)).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(audited["claims"], serde_json::json!([]), "nothing declared, nothing judged");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
}

#[tokio::test]
async fn claims_behind_a_gateway_are_unverifiable_not_refused() {
    let backend = Capabilities::none();
    let agent =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::Gateway { backend })).await;
    let output = a2a(&["audit", "--json", "--gateway", &agent.base_url()]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(verdict_of(&report["agents"][0], "streaming")["verdict"], "unverifiable");
    assert_eq!(report["agents"][0]["gateway"], true);
}

#[tokio::test]
async fn one_liar_among_honest_agents_fails_the_audit_and_the_table_names_it() {
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let liar = ScriptedAgent::builder()
        .name("liar")
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["audit", &honest.base_url(), &liar.base_url()]).await;
    let shown = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}\n{}", stderr(&output));
    assert!(shown.contains("over-declares: liar (streaming)"), "{shown}");
    assert!(shown.contains("refused") && shown.contains("verified"), "{shown}");
    assert!(!has_escape_codes(&shown));
}

#[tokio::test]
async fn an_agent_without_a_card_is_not_audited_and_exits_two() {
    let base = common::serve_nothing().await;
    let output = a2a(&["audit", "--json", &base]).await;
    assert_eq!(output.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["notAudited"], 1);
    assert!(
        report["agents"][0]["error"].as_str().unwrap_or_default().contains("no agent card"),
        "{report:#}"
    );
}

#[tokio::test]
async fn an_honest_agent_that_streams_and_pushes_has_both_verified() {
    let capabilities = Capabilities::none().with_streaming().with_push_notifications();
    let agent = spawn(capabilities, Script::honest()).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(verdict_of(&audited, "streaming")["verdict"], "verified", "{audited:#}");
    assert_ne!(verdict_of(&audited, "pushNotifications")["verdict"], "refused", "{audited:#}");
    assert_eq!(status, Some(0), "{audited:#}");
}

#[tokio::test]
async fn the_design_notes_observed_run_is_refused_with_evidence() {
    let agent = ScriptedAgent::observed_run().spawn().await.unwrap();
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(1), "{audited:#}");
    assert_eq!(audited["protocolVersions"], serde_json::json!(["0.3"]));
    let lies = audited["overDeclares"].as_array().expect("list");
    // The note's run: the artifact never came on the stream, only through GetTask.
    assert!(lies.contains(&Value::from("streaming")), "{audited:#}");
    assert_ne!(verdict_of(&audited, "pushNotifications")["verdict"], "refused", "push is honest there");
    for lie in lies {
        let verdict = verdict_of(&audited, lie.as_str().unwrap_or_default());
        assert_eq!(verdict["verdict"], "refused");
        assert!(verdict["evidence"].as_str().is_some_and(|e| e.contains("event #")), "{verdict:#}");
    }
}

#[tokio::test]
async fn auditing_the_demo_fleet_names_exactly_its_five_lies() {
    use a2a_testkit::fleet::{Claim, EXTENDED_CARD_LIAR_TOKEN, Honesty, demo_fleet};
    let fleet = demo_fleet().await.unwrap();
    let urls: Vec<String> = fleet.members.iter().map(|m| m.agent.base_url()).collect();
    // The token goes only to the agent whose card asks for a bearer: the extended-card liar.
    let mut args = vec!["audit", "--json", "--push-arrival-bound", "1s", "--bearer-env", "DEMO_FLEET_TOKEN"];
    args.extend(urls.iter().map(String::as_str));
    let output = common::a2a_with_env(&args, &[("DEMO_FLEET_TOKEN", EXTENDED_CARD_LIAR_TOKEN)]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(report["overDeclaring"], 5, "{report:#}");
    assert_eq!(report["notAudited"], 0, "{report:#}");
    let refused_card_claims = |audited: &Value| -> Vec<String> {
        let claims = audited["cardClaims"].as_array().cloned().unwrap_or_default();
        claims
            .iter()
            .filter(|c| c["verdict"] == "refused")
            .map(|c| c["kind"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    for (member, audited) in fleet.members.iter().zip(report["agents"].as_array().expect("agents")) {
        let lies = &audited["overDeclares"];
        match member.honesty {
            Honesty::OverDeclares(claim) if claim.is_lifecycle() => {
                assert_eq!(lies.as_array().map(Vec::len), Some(1), "{audited:#}");
                assert_eq!(refused_card_claims(audited), Vec::<String>::new(), "{audited:#}");
            }
            Honesty::OverDeclares(claim) => {
                assert_eq!(lies, &serde_json::json!([]), "{audited:#}");
                let kind = if claim == Claim::Interface { "interfaces" } else { "extended-card" };
                assert_eq!(refused_card_claims(audited), [kind], "{audited:#}");
            }
            _ => {
                assert_eq!(
                    lies,
                    &serde_json::json!([]),
                    "{} wrongly refused: {audited:#}",
                    member.agent.name()
                );
                assert_eq!(refused_card_claims(audited), Vec::<String>::new(), "{audited:#}");
            }
        }
    }
    let named =
        |name: &str| report["agents"].as_array().and_then(|a| a.iter().find(|x| x["name"] == name)).cloned();
    assert_eq!(
        named("streaming-refuser").map(|a| a["overDeclares"].clone()),
        Some(serde_json::json!(["streaming"]))
    );
    assert_eq!(
        named("history-forgetter").map(|a| a["overDeclares"].clone()),
        Some(serde_json::json!(["stateTransitionHistory"]))
    );
    assert_eq!(
        named("silent-pusher").map(|a| a["overDeclares"].clone()),
        Some(serde_json::json!(["pushNotifications"]))
    );
    fleet.shutdown().await;
}

#[tokio::test]
async fn transport_faults_are_retried_and_never_reported_as_lies() {
    let capabilities = Capabilities::none().with_streaming();
    let script = Script::honest().with_fault(Fault::BadGateway(Times::First(2)));
    let agent = spawn(capabilities, script).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(0), "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
    assert_eq!(verdict_of(&audited, "streaming")["verdict"], "verified", "{audited:#}");
}

#[tokio::test]
async fn working_past_the_bound_without_a_poll_hint_is_not_audited_rather_than_a_lie() {
    let script = Script::honest().with(Lie::SlowWorkingWithoutPollHint(Duration::from_secs(5)));
    let agent = spawn(Capabilities::none(), script).await;
    let output = a2a(&["audit", "--json", "--working-bound", "1s", &agent.base_url()]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(2), "{report:#}");
    let audited = &report["agents"][0];
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
    assert!(audited["error"].as_str().is_some_and(|e| e.contains("probe failed")), "{audited:#}");
}

#[tokio::test]
async fn a_card_that_marks_itself_a_gateway_has_its_claims_unverifiable_without_being_told() {
    // The backend behind the gateway streams nothing; the gateway's card claims streaming for itself.
    let backend = spawn(Capabilities::none(), Script::honest()).await;
    let mut card = backend.card().clone();
    card["capabilities"]["streaming"] = Value::Bool(true);
    card["capabilities"]["extensions"] = serde_json::json!([{ "uri": a2a_typestate::GATEWAY_EXTENSION_URI }]);
    let gateway = common::serve_card_json(card).await;
    let output = a2a(&["audit", "--json", &gateway]).await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let audited = &report["agents"][0];
    assert_eq!(audited["gateway"], true, "{audited:#}");
    assert_eq!(verdict_of(audited, "streaming")["verdict"], "unverifiable", "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!([]));
}

#[tokio::test]
async fn a_claim_the_first_probe_never_reached_gets_a_probe_of_its_own() {
    // The refused streaming claim ends the first probe before push is ever relied on; push is then
    // probed on its own, and this agent's push is honest.
    let capabilities = Capabilities::none().with_push_notifications();
    let agent = spawn(capabilities, Script::honest().with(Lie::StreamingRefused)).await;
    let (status, audited) = audit_json(&agent).await;
    assert_eq!(status, Some(1), "{audited:#}");
    assert_eq!(verdict_of(&audited, "streaming")["verdict"], "refused", "{audited:#}");
    assert_eq!(verdict_of(&audited, "pushNotifications")["verdict"], "verified", "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!(["streaming"]), "{audited:#}");
}

#[tokio::test]
async fn an_unreachable_agent_is_not_audited_with_a_one_line_reason_naming_its_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let output = a2a(&["audit", "--json", "--request-timeout", "5s", &base]).await;
    assert_eq!(output.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = report["agents"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains(&base) && !error.contains('\n'), "{error:?}");
    let table = stdout(&a2a(&["audit", "--request-timeout", "5s", &base]).await);
    assert!(!table.contains("caused by"), "a cause broke out of its table cell: {table}");
}

#[tokio::test]
async fn an_agent_with_a_malformed_card_is_not_audited_and_the_reason_names_the_json_path() {
    let base = common::serve_card(
        r#"{"name":"bad","description":"","version":"1","skills":[],
            "supportedInterfaces":[{"url":"http://x/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "capabilities":{"pushNotifications":1}}"#,
    )
    .await;
    let output = a2a(&["audit", "--json", &base]).await;
    assert_eq!(output.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = report["agents"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("capabilities.pushNotifications"), "{error}");
    assert_eq!(report["overDeclaring"], 0, "a card that cannot be read is no lie: {report:#}");
}

/// Audits `agents` in one run with `extra` flags; returns the exit status, the report and the time.
async fn audit_many(agents: &[&RunningAgent], extra: &[&str]) -> (Option<i32>, Value, Duration) {
    let urls: Vec<String> = agents.iter().map(|agent| agent.base_url()).collect();
    let mut args = vec!["audit", "--json"];
    args.extend_from_slice(extra);
    args.extend(urls.iter().map(String::as_str));
    let start = std::time::Instant::now();
    let output = a2a(&args).await;
    let took = start.elapsed();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report, took)
}

#[tokio::test]
async fn slow_but_honest_agents_are_verified_and_exit_zero() {
    let secs = Duration::from_secs;
    let long_stream = spawn(
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest().step_delay(secs(7)),
    )
    .await;
    let slow_calls = spawn(
        Capabilities::none().with_streaming().with_push_notifications().with_state_transition_history(),
        Script::honest().with_fault(Fault::SlowResponses(secs(3))),
    )
    .await;
    let pushes_at_the_end = spawn(
        Capabilities::none().with_push_notifications(),
        Script::honest().step_delay(secs(7)).push_timing(a2a_testkit::PushTiming::TerminalOnly),
    )
    .await;

    let (status, report, _) = audit_many(&[&long_stream, &slow_calls, &pushes_at_the_end], &[]).await;

    assert_eq!(status, Some(0), "{report:#}");
    for agent in report["agents"].as_array().unwrap() {
        for claim in agent["claims"].as_array().unwrap() {
            assert_eq!(claim["verdict"], "verified", "{agent:#}");
        }
    }
    for agent in [&long_stream, &slow_calls, &pushes_at_the_end] {
        let sends =
            agent.requests_for("SendMessage").len() + agent.requests_for("SendStreamingMessage").len();
        assert_eq!(sends, 1, "one send per agent, no fallback");
    }
}

#[tokio::test]
async fn stuck_agents_are_not_audited_and_exit_two_within_the_bound() {
    use a2a_testkit::Stall;
    let quick = Duration::from_millis(200);
    let mut agents = Vec::new();
    for (card, stall) in [
        (Capabilities::none(), Stall::Submitted),
        (Capabilities::none(), Stall::SameQuestion),
        (Capabilities::none(), Stall::NoQuestion),
        (Capabilities::none().with_streaming(), Stall::CommentsOnly),
        (Capabilities::none().with_streaming(), Stall::WorkingForever),
    ] {
        agents.push(spawn(card, Script::honest().stall(stall).step_delay(quick)).await);
    }
    let refs: Vec<&RunningAgent> = agents.iter().collect();

    let (status, report, took) = audit_many(&refs, &["--working-bound", "2s"]).await;

    assert_eq!(status, Some(2), "{report:#}");
    assert!(took < Duration::from_secs(2 + 5), "within the bound plus 5 s: {took:?}");
    for agent in report["agents"].as_array().unwrap() {
        let error = agent["error"].as_str().unwrap_or_else(|| panic!("not audited: {agent:#}"));
        assert!(error.contains("no progress"), "{error}");
        assert!(
            agent["overDeclares"].as_array().is_none_or(|v| v.is_empty()),
            "a stuck agent is no liar: {agent:#}"
        );
    }
}

/// BeeAI's card: push declared, modes written `text`, every push-config call answered `-32004`
/// (UnsupportedOperation) and the inline config dropped. The agent's own "not supported" to push's
/// own call refuses push whatever the card's modes say; `text` is read as text/plain either way.
#[tokio::test]
async fn push_config_answered_unsupported_operation_is_refused_whatever_the_card_modes() {
    for modes in [["text"], ["text/plain"], ["image/png"]] {
        let agent = ScriptedAgent::builder()
            .name("audited")
            .capabilities(Capabilities::none().with_streaming())
            .default_input_modes(modes)
            .default_output_modes(modes)
            .script(Script::honest().with(Lie::PushConfigUnsupportedOperation))
            .spawn()
            .await
            .unwrap();
        let (status, audited) = audit_json(&agent).await;
        assert_eq!(status, Some(1), "{modes:?}: {audited:#}");
        assert_eq!(
            audited["overDeclares"],
            serde_json::json!(["pushNotifications"]),
            "{modes:?}: {audited:#}"
        );
        let verdict = verdict_of(&audited, "pushNotifications");
        assert!(verdict["contradiction"].as_str().unwrap_or_default().contains("-32004"), "{verdict:#}");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn a_hung_agent_costs_the_audit_one_request_timeout_and_the_others_are_audited() {
    let honest = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let hung = a2a_testkit::hung_agent().await.unwrap();
    let started = std::time::Instant::now();
    let output = a2a(&["audit", "--json", "--request-timeout", "2s", &hung, &honest.base_url()]).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "one request timeout, not one per attempt or probe: {took:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["agents"][0]["error"].as_str().is_some_and(|e| e.contains("timed out")), "{report:#}");
    assert_eq!(verdict_of(&report["agents"][1], "streaming")["verdict"], "verified", "{report:#}");
}

#[tokio::test]
async fn an_agent_past_the_audit_deadline_is_reported_not_audited_saying_so() {
    let slow = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(30))),
    )
    .await;
    let started = std::time::Instant::now();
    let output = a2a(&["audit", "--json", "--deadline", "2s", &slow.base_url()]).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "{took:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = report["agents"][0]["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.contains("deadline") && error.contains("2 s"), "{report:#}");
    assert_ne!(output.status.code(), Some(0));
}
