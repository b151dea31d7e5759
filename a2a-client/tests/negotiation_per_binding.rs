//! The refusal rules do not depend on the binding: each rule below runs against the same scripted
//! agent over JSON-RPC, HTTP+JSON and gRPC, and against a 0.3 agent over HTTP+JSON (the card lists
//! the binding under test first, so `run_task` selects it), and must reach the same verdict with the
//! same operations on the wire.

mod negotiation_common;

use a2a_testkit::{Binding, Capabilities, Lie, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
use a2a_typestate::{Advice, Contradiction};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, ErrorKind};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{client, count, operations, text};

/// The wire a rule runs over: a protocol version and a binding.
#[derive(Clone, Copy, Debug)]
struct Over(Protocol, Binding);

/// An agent speaking `over`'s version whose card claims `capabilities`, playing `script`, listing
/// `over`'s binding first (a 0.3 card lists JSON-RPC after it: 0.3 has no gRPC here).
async fn spawn_over(
    Over(protocol, binding): Over,
    capabilities: Capabilities,
    script: Script,
) -> RunningAgent {
    let rest = Binding::ALL.into_iter().filter(|b| *b != binding);
    let rest: Vec<Binding> = match protocol {
        Protocol::V0_3 => rest.filter(|b| *b == Binding::JsonRpc).collect(),
        _ => rest.collect(),
    };
    ScriptedAgent::builder()
        .protocol(protocol)
        .capabilities(capabilities)
        .script(script)
        .bindings(std::iter::once(binding).chain(rest))
        .spawn()
        .await
        .unwrap()
}

/// Every operation the agent received came over `over`'s binding (for 0.3 HTTP+JSON, its `/v1`
/// routes).
fn assert_all_over(agent: &RunningAgent, Over(protocol, binding): Over) {
    let prefix = match (protocol, binding) {
        (_, Binding::JsonRpc) => "/a2a/jsonrpc",
        (Protocol::V0_3, Binding::HttpJson) => "/a2a/rest/v1/",
        (_, Binding::HttpJson) => "/a2a/rest",
        (_, Binding::Grpc) => "/lf.a2a.v1.A2AService/",
        _ => unreachable!("a binding this test does not know"),
    };
    for request in agent.requests().iter().filter(|r| r.operation.is_some()) {
        assert!(request.path.starts_with(prefix), "{binding:?}: {} {}", request.http_method, request.path);
    }
}

fn depending_on(capability: Capability) -> Negotiation {
    Negotiation::depending_on(&[capability])
}

/// The text of a task result's artifacts.
fn artifact_text(result: &SendMessageResponse) -> String {
    let SendMessageResponse::Task(task) = result else { panic!("a task result: {result:?}") };
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect()
}

async fn streamed_artifact_missing_is_refused_and_the_finished_task_kept(binding: Over) {
    let agent = spawn_over(
        binding,
        Capabilities::none().with_streaming(),
        Script::honest().with(Lie::StreamWithoutArtifact),
    )
    .await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap();
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{binding:?}");
    let refusal = outcome.refusal.as_ref().expect("refused");
    assert_eq!(refusal.capability(), Capability::Streaming);
    assert_eq!(refusal.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
    // The task had completed: its artifact, read with GetTask, is the result; nothing is sent again.
    assert_eq!(outcome.state(), Some(TaskState::Completed), "{binding:?}");
    assert_eq!(artifact_text(&outcome.result), "echo: hello", "{binding:?}");
    assert_eq!(operations(&agent), ["SendStreamingMessage", "GetTask"], "{binding:?}");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_some());
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.fallbacks, metrics.refused_results_kept), (0, 1));
    assert_all_over(&agent, binding);
}

async fn unsupported_streaming_while_declared_is_refused(binding: Over) {
    let agent = spawn_over(binding, Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap();
    let refusal = outcome.refusal.as_ref().expect("refused");
    assert!(
        matches!(refusal.contradiction(), Contradiction::AgentSaysUnsupported { code: -32004, .. }),
        "{binding:?}: {refusal}"
    );
    assert_eq!(operations(&agent), ["SendStreamingMessage", "SendMessage"], "{binding:?}");
    // No task existed when the stream was refused: the fallback is the work's only run.
    assert_eq!(outcome.path, TaskPath::Fallback, "{binding:?}");
    assert!(!outcome.may_have_run_twice(), "{binding:?}");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert_all_over(&agent, binding);
}

async fn honest_streamer_is_verified(binding: Over) {
    let agent = spawn_over(binding, Capabilities::none().with_streaming(), Script::honest()).await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap();
    assert_eq!(outcome.path, TaskPath::Negotiated, "{binding:?}");
    assert!(outcome.verified.contains(Capability::Streaming));
    assert_eq!(operations(&agent), ["SendStreamingMessage"], "{binding:?}");
    assert_all_over(&agent, binding);
}

async fn no_refusal_without_the_caller_depending_on_the_claim(binding: Over) {
    let agent = spawn_over(
        binding,
        Capabilities::none().with_streaming(),
        Script::honest().with(Lie::StreamWithoutArtifact),
    )
    .await;
    let client = client();
    let outcome =
        client.run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&[])).await.unwrap();
    assert!(outcome.refusal.is_none(), "{binding:?}");
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(count(&agent, "SendStreamingMessage"), 0);
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    assert_all_over(&agent, binding);
}

async fn no_refusal_without_the_card_declaring_the_claim(binding: Over) {
    let agent = spawn_over(binding, Capabilities::none(), Script::honest()).await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap();
    assert!(outcome.refusal.is_none(), "{binding:?}");
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(operations(&agent)[..2], ["SendStreamingMessage", "SendMessage"], "{binding:?}");
    assert_eq!(client.metrics().snapshot().fallbacks, 0);
    assert_all_over(&agent, binding);
}

async fn silent_push_is_refused_after_the_arrival_bound_and_the_finished_task_kept(binding: Over) {
    let agent = spawn_over(
        binding,
        Capabilities::none().with_push_notifications(),
        Script::honest().with(Lie::SilentPush),
    )
    .await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::PushNotifications))
        .await
        .unwrap();
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{binding:?}");
    let refusal = outcome.refusal.as_ref().expect("refused");
    assert!(
        matches!(refusal.contradiction(), Contradiction::NoPushCallback { .. }),
        "{binding:?}: {refusal}"
    );
    // Push is refused only once the task ended and the callback's bound ran out: the completed task
    // is the result, and the negotiated send was the only one.
    assert_eq!(artifact_text(&outcome.result), "echo: hello", "{binding:?}");
    assert_eq!(count(&agent, "SendMessage"), 1, "the negotiated send, nothing sent again");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert_all_over(&agent, binding);
}

async fn push_not_supported_while_declared_is_refused(binding: Over) {
    let claims = Capabilities::none().with_streaming().with_push_notifications();
    let agent =
        spawn_over(binding, claims, Script::honest().with(Lie::Gateway { backend: Capabilities::none() }))
            .await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::PushNotifications))
        .await
        .unwrap();
    let refusal = outcome.refusal.as_ref().expect("refused");
    assert!(
        matches!(refusal.contradiction(), Contradiction::AgentSaysUnsupported { code: -32003, .. }),
        "{binding:?}: {refusal}"
    );
    assert_all_over(&agent, binding);
}

async fn empty_history_where_declared_abandons_without_retry(binding: Over) {
    let agent = spawn_over(binding, Capabilities::none(), Script::honest().with(Lie::EmptyHistory)).await;
    let client = client();
    let err = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::StateTransitionHistory))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LifecycleViolation, "{binding:?}: {err}");
    let violation = err.lifecycle_violation().unwrap();
    assert_eq!(violation.contradiction(), &Contradiction::EmptyHistory);
    assert_eq!(violation.advice(), Advice::Abandon);
    assert_eq!(count(&agent, "SendMessage"), 1, "abandoned: no retry and no fallback send");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert_all_over(&agent, binding);
}

/// Streaming claimed, and no streaming method at all ("method not found", a 404 route, gRPC
/// `UNIMPLEMENTED`): the agent's "task not found" to a `GetTask` on the same interface shows it
/// speaks the binding, so the missing method is streaming's, refused before any task existed.
async fn a_missing_stream_method_while_declared_is_refused(binding: Over) {
    let script = Script::honest().with(Lie::StreamingRefused).quirk(Quirk::NoStreamingMethods);
    let agent = spawn_over(binding, Capabilities::none(), script).await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap_or_else(|e| panic!("{binding:?}: {e}"));
    let refusal = outcome.refusal.as_ref().unwrap_or_else(|| panic!("{binding:?}: not refused"));
    assert_eq!(refusal.capability(), Capability::Streaming);
    assert!(matches!(refusal.contradiction(), Contradiction::MethodMissing { .. }), "{binding:?}: {refusal}");
    assert_eq!(operations(&agent), ["SendStreamingMessage", "GetTask", "SendMessage"], "{binding:?}");
    assert_eq!(outcome.path, TaskPath::Fallback, "{binding:?}");
    assert_eq!(outcome.state(), Some(TaskState::Completed), "{binding:?}");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_some(), "{binding:?}");
    assert_all_over(&agent, binding);
}

/// The same agent with a card that does not claim streaming: the caller's stream is tried
/// (under-declaring is safe), the missing method moves the task to polling, and nothing is refused.
async fn a_missing_stream_method_not_declared_is_polled_and_never_refused(binding: Over) {
    let script = Script::honest().quirk(Quirk::NoStreamingMethods);
    let agent = spawn_over(binding, Capabilities::none(), script).await;
    let client = client();
    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &depending_on(Capability::Streaming))
        .await
        .unwrap_or_else(|e| panic!("{binding:?}: {e}"));
    assert!(outcome.refusal.is_none(), "{binding:?}: {:?}", outcome.refusal);
    assert_eq!(outcome.path, TaskPath::Negotiated, "{binding:?}");
    assert_eq!(outcome.state(), Some(TaskState::Completed), "{binding:?}");
    assert_eq!(artifact_text(&outcome.result), "echo: hello", "{binding:?}");
    assert_eq!(count(&agent, "SendMessage"), 1, "{binding:?}");
    assert_eq!(agent.executions(), 1, "{binding:?}");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none(), "{binding:?}");
    assert_all_over(&agent, binding);
}

/// One test per rule and binding, named `<rule>_over_<binding>`.
macro_rules! per_binding {
    ($($rule:ident),* $(,)?) => {
        mod over_jsonrpc {
            use super::*;
            $( #[tokio::test] async fn $rule() { super::$rule(Over(Protocol::V1_0, Binding::JsonRpc)).await } )*
        }
        mod over_http_json {
            use super::*;
            $( #[tokio::test] async fn $rule() { super::$rule(Over(Protocol::V1_0, Binding::HttpJson)).await } )*
        }
        mod over_grpc {
            use super::*;
            $( #[tokio::test] async fn $rule() { super::$rule(Over(Protocol::V1_0, Binding::Grpc)).await } )*
        }
        mod over_0_3_http_json {
            use super::*;
            $( #[tokio::test] async fn $rule() { super::$rule(Over(Protocol::V0_3, Binding::HttpJson)).await } )*
        }
    };
}

per_binding!(
    streamed_artifact_missing_is_refused_and_the_finished_task_kept,
    unsupported_streaming_while_declared_is_refused,
    a_missing_stream_method_while_declared_is_refused,
    a_missing_stream_method_not_declared_is_polled_and_never_refused,
    honest_streamer_is_verified,
    no_refusal_without_the_caller_depending_on_the_claim,
    no_refusal_without_the_card_declaring_the_claim,
    silent_push_is_refused_after_the_arrival_bound_and_the_finished_task_kept,
    push_not_supported_while_declared_is_refused,
    empty_history_where_declared_abandons_without_retry,
);
