//! `a2a card` and `a2a audit` against agents whose cards prefer gRPC: the audit goes over gRPC and
//! reaches the verdicts it reaches over the other bindings.

mod common;

use a2a_testkit::{Binding, Capabilities, Lie, RunningAgent, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

async fn spawn_grpc_first(capabilities: Capabilities, script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .name("grpc-first")
        .capabilities(capabilities)
        .script(script)
        .bindings([Binding::Grpc, Binding::JsonRpc, Binding::HttpJson])
        .spawn()
        .await
        .unwrap()
}

fn all_over_grpc(agent: &RunningAgent) {
    let operations: Vec<_> = agent.requests().into_iter().filter(|r| r.operation.is_some()).collect();
    assert!(!operations.is_empty());
    for request in operations {
        assert!(
            request.path.starts_with("/lf.a2a.v1.A2AService/"),
            "{} {}",
            request.http_method,
            request.path
        );
    }
}

async fn audit(agent: &RunningAgent) -> (Option<i32>, Value) {
    let output = a2a(&["audit", "--json", "--push-arrival-bound", "1s", &agent.base_url()]).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report["agents"][0].clone())
}

#[tokio::test]
async fn card_lists_the_grpc_interface_first() {
    let agent = spawn_grpc_first(Capabilities::none().with_streaming(), Script::honest()).await;
    let output = a2a(&["card", "--json", &agent.base_url()]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let card: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(card["interfaces"][0]["binding"], "GRPC", "{card:#}");
}

#[tokio::test]
async fn an_honest_agent_is_audited_over_grpc_with_exit_0() {
    let claims = Capabilities::none().with_streaming().with_push_notifications();
    let agent = spawn_grpc_first(claims, Script::honest()).await;
    let (status, audited) = audit(&agent).await;
    assert_eq!(status, Some(0), "{audited:#}");
    all_over_grpc(&agent);
}

#[tokio::test]
async fn a_lie_over_grpc_is_named_with_exit_1() {
    let agent =
        spawn_grpc_first(Capabilities::none(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let (status, audited) = audit(&agent).await;
    assert_eq!(status, Some(1), "{audited:#}");
    assert_eq!(audited["overDeclares"], serde_json::json!(["streaming"]), "{audited:#}");
    all_over_grpc(&agent);
}
