//! The streaming claim, end to end against scripted agents: refused only when all three conditions
//! hold, and then a suspect mark, no second attempt of the refused task, and either its result kept
//! (it had ended) or exactly one fallback `SendMessage` (the agent accepted no task).

mod negotiation_common;

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::{Channel, Contradiction, Observed};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, ErrorKind};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{client, count, image, operations, spawn, text};

fn streaming() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming])
}

#[tokio::test]
async fn streaming_declared_with_the_artifact_only_via_get_task_is_refused_and_the_finished_result_kept() {
    let agent =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    let refusal = outcome.refusal.as_ref().expect("the streaming claim is refused");
    assert_eq!(refusal.capability(), Capability::Streaming);
    assert_eq!(refusal.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
    assert!(
        matches!(
            refusal.evidence().observed,
            Observed::Status { state: TaskState::Completed, via: Channel::Stream, .. }
        ),
        "the evidence is the terminal transition on the stream: {}",
        refusal.evidence()
    );
    // The refused task had completed: its result, with the artifact GetTask returned, is the
    // outcome's, and the work is not sent again.
    let SendMessageResponse::Task(result) = &outcome.result else { panic!("a task result") };
    assert_eq!(result.state(), TaskState::Completed);
    assert_eq!(answer_text(&outcome.result), "echo: hello", "the artifact GetTask returned");
    assert!(outcome.refused_task.is_none(), "the refused task is the result");
    assert!(!outcome.fell_back() && !outcome.may_have_run_twice());
    // On the wire: one stream, one GetTask confirming the artifacts, and nothing sent again.
    assert_eq!(operations(&agent), ["SendStreamingMessage", "GetTask"]);
    assert_eq!(agent.executions(), 1);
    // The agent is marked capability-suspect for streaming.
    let mark = client.discovery_cache().is_suspect(&outcome.agent).expect("suspect");
    assert_eq!(mark.capability(), Some(Capability::Streaming));
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.refusals[&Capability::Streaming], 1);
    assert_eq!((metrics.fallbacks, metrics.refused_results_kept), (0, 1));
    assert_eq!(outcome.negotiation_round_trips, 2);
    agent.shutdown().await;
}

#[tokio::test]
async fn streaming_call_answered_unsupported_operation_while_declared_is_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Fallback);
    let refusal = outcome.refusal.as_ref().unwrap();
    assert_eq!(refusal.capability(), Capability::Streaming);
    assert!(
        matches!(refusal.contradiction(), Contradiction::AgentSaysUnsupported { code: -32004, .. }),
        "{refusal}"
    );
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(operations(&agent), ["SendStreamingMessage", "SendMessage"]);
    // The agent accepted no task before its "not supported": the fallback is the work's only run.
    let fallback = agent.requests_for("SendMessage")[0].body.clone().unwrap();
    assert!(fallback.pointer("/params/configuration/returnImmediately").is_none(), "single-shot blocks");
    assert!(outcome.refused_task.is_none() && !outcome.may_have_run_twice());
    assert_eq!(agent.executions(), 1);
    assert_eq!(client.metrics().snapshot().fallbacks, 1);
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_some());
    agent.shutdown().await;
}

#[tokio::test]
async fn honest_streamer_verifies_the_streaming_claim_without_a_confirmation_call() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::Streaming));
    assert!(outcome.refusal.is_none());
    let SendMessageResponse::Task(task) = &outcome.result else { panic!("a task result") };
    assert_eq!(task.state(), TaskState::Completed);
    assert_eq!(task.artifacts.len(), 1, "the streamed artifact is folded into the result");
    assert_eq!(operations(&agent), ["SendStreamingMessage"]);
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    agent.shutdown().await;
}

#[tokio::test]
async fn refusal_needs_the_caller_to_depend_on_the_claim() {
    let agent =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let client = client();

    let outcome =
        client.run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&[])).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.refusal.is_none());
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(count(&agent, "SendStreamingMessage"), 0, "a caller that does not stream never tests it");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    agent.shutdown().await;
}

#[tokio::test]
async fn refusal_needs_the_card_to_declare_the_claim() {
    // An honest agent that does not stream answers -32004: condition 1 fails, the turn is polled.
    let agent = ScriptedAgent::builder().capabilities(Capabilities::none()).spawn().await.unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.refusal.is_none());
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    let ops = operations(&agent);
    assert_eq!(ops[..2], ["SendStreamingMessage", "SendMessage"]);
    assert!(ops[2..].iter().all(|op| op == "GetTask"), "then polled: {ops:?}");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    assert_eq!(client.metrics().snapshot().fallbacks, 0);
    agent.shutdown().await;
}

#[tokio::test]
async fn refusal_needs_the_divergence_reachable_through_the_default_input_modes() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .default_input_modes(["text/plain"])
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), image(), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "an image/png message is outside text/plain");
    assert!(outcome.refusal.is_none());
    assert!(!outcome.verified.contains(Capability::Streaming), "not verified either");
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(count(&agent, "SendMessage"), 0, "no fallback");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    agent.shutdown().await;
}

#[tokio::test]
async fn under_declared_streaming_is_used_and_never_refused() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::UnderDeclaredStreaming)).await;
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.refusal.is_none());
    assert!(outcome.verified.is_empty(), "nothing was claimed, so nothing is verified");
    let SendMessageResponse::Task(task) = &outcome.result else { panic!("a task result") };
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(operations(&agent), ["SendStreamingMessage"], "the stream it did not declare was used");
    agent.shutdown().await;
}

#[tokio::test]
async fn first_working_alone_never_refuses_a_slow_streamer() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().step_delay(negotiation_common::ms(250)),
    )
    .await;
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::Streaming));
    assert_eq!(client.metrics().snapshot().refusals.values().sum::<u64>(), 0);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_refused_task_is_never_sent_again_on_the_negotiation_path() {
    // Refused once the task ended: nothing at all is sent again.
    let keeper =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let client = client();
    let outcome = client.run_task(&keeper.base_url(), text("only once"), &streaming()).await.unwrap();
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    assert_eq!(count(&keeper, "SendStreamingMessage"), 1, "no second attempt of the refused task");
    assert_eq!(count(&keeper, "SendMessage"), 0, "no fallback either");
    keeper.shutdown().await;

    // Refused before any task existed: one fallback, a new message on the single-shot path.
    let agent =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamingRefused)).await;
    let message = text("only once");
    let message_id = message.message_id.clone();

    let outcome = client.run_task(&agent.base_url(), message, &streaming()).await.unwrap();

    assert!(outcome.fell_back());
    let streamed = agent.requests_for("SendStreamingMessage");
    assert_eq!(streamed.len(), 1, "no second attempt of the refused task");
    let sent_ids: Vec<_> = agent
        .requests_for("SendMessage")
        .iter()
        .filter_map(|r| r.body.as_ref()?.pointer("/params/message/messageId")?.as_str().map(str::to_owned))
        .collect();
    assert_eq!(sent_ids.len(), 1);
    assert_ne!(sent_ids[0], message_id.as_str(), "the fallback is a new message, not a replay");
    assert_eq!(client.metrics().snapshot().fallbacks, 1);
    // An unrelated error path stays an error: a malformed URL is a misuse of the API, not a refusal.
    let err = client.run_task("not a url", text("x"), &streaming()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misuse);
    agent.shutdown().await;
}

/// Condition 3 also reads the message's `acceptedOutputModes`: a divergence reached while accepting
/// only output types the card does not declare is not refused.
#[tokio::test]
async fn refusal_needs_the_divergence_reachable_through_the_default_output_modes() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .default_output_modes(["text/plain"])
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let client = client();
    let negotiation = streaming().accepted_output_modes(["audio/mpeg"]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "audio/mpeg is outside text/plain");
    assert!(outcome.refusal.is_none());
    assert_eq!(count(&agent, "SendMessage"), 0, "no fallback");
    let sent = agent.requests_for("SendStreamingMessage");
    let accepted = sent[0].body.as_ref().and_then(|b| b.pointer("/params/configuration/acceptedOutputModes"));
    assert_eq!(accepted, Some(&serde_json::json!(["audio/mpeg"])), "the modes asked for are the ones sent");
    agent.shutdown().await;
}

/// The answer text of a task result, wherever the agent put it.
fn answer_text(result: &SendMessageResponse) -> String {
    let SendMessageResponse::Task(task) = result else { panic!("a task result: {result:?}") };
    task.answer_parts().iter().filter_map(|p| p.as_text()).collect()
}

/// Agno streams its answer as message chunks sharing one id, keeps no artifact, and its JSON-RPC
/// endpoint answers HTTP 400 to everything but the stream: the stream carried the answer to its
/// end, and no `GetTask` can compare, so streaming is verified and the task ends with its answer.
#[tokio::test]
async fn a_stream_that_carried_the_answer_to_its_end_verifies_streaming_where_get_task_is_not_served() {
    use a2a_testkit::Quirk;
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::AnswersInMessages).quirk(AGNO_400))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello world again"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome}");
    assert!(outcome.verified.contains(Capability::Streaming), "{outcome}: {:?}", outcome.verdicts);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(answer_text(&outcome.result), "echo: hello world again", "the chunks are one answer");
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    agent.shutdown().await;
}

#[tokio::test]
async fn an_answer_streamed_as_messages_with_no_artifact_anywhere_verifies_streaming() {
    use a2a_testkit::Quirk;
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::AnswersInMessages))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &streaming()).await.unwrap();

    assert!(outcome.verified.contains(Capability::Streaming), "{outcome}");
    assert_eq!(answer_text(&outcome.result), "echo: hello");
    agent.shutdown().await;
}

/// How Agno's JSON-RPC endpoint answers every method but the stream: HTTP 400, FastAPI's own body.
const AGNO_400: a2a_testkit::Quirk = a2a_testkit::Quirk::OnlyStreams {
    status: 400,
    body: r#"{"detail":"Invalid A2A request: only message/stream"}"#,
};
