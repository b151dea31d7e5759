//! `a2a audit` of a gRPC-only agent whose card writes its interface the way the official Python
//! SDK's samples do: `host:port`, the gRPC target, with no scheme.

mod common;

use a2a_testkit::{Binding, Capabilities, ScriptedAgent};
use common::{a2a, serve_card_json, stderr, stdout};
use serde_json::Value;

#[tokio::test]
async fn a_grpc_interface_written_host_port_is_reached() {
    let agent = ScriptedAgent::builder()
        .name("official-grpc")
        .capabilities(Capabilities::none().with_streaming())
        .bindings([Binding::Grpc])
        .spawn()
        .await
        .unwrap();
    let mut card = agent.card().clone();
    card["supportedInterfaces"][0]["url"] = Value::String(agent.addr().to_string());
    // Served from another port than the agent's: joined to the card's URL it reaches nothing.
    let card_server = serve_card_json(card).await;

    let output = a2a(&["audit", "--json", "--push-arrival-bound", "1s", &card_server]).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    let audited = &report["agents"][0];
    assert_eq!(output.status.code(), Some(0), "{report:#}\n{}", stderr(&output));
    assert!(audited["error"].is_null(), "{audited:#}");
    let operations: Vec<String> =
        agent.requests().into_iter().filter(|r| r.operation.is_some()).map(|r| r.path).collect();
    assert!(!operations.is_empty(), "the agent was never reached");
    assert!(operations.iter().all(|p| p.starts_with("/lf.a2a.v1.A2AService/")), "{operations:?}");
    let kinds: Vec<&str> = audited["wireDeviations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"grpc-target-url"), "the interface's form is reported: {audited:#}");

    // Under strict reading the deviation fails the audit, with the deviations' own exit status.
    let output = a2a(&["audit", "--strict", "--push-arrival-bound", "1s", &card_server]).await;
    assert_eq!(output.status.code(), Some(3), "{}\n{}", stdout(&output), stderr(&output));
}
