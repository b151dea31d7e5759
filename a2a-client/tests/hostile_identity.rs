//! Every answer is about the task it answers: once the agent named the task, a stream event, a
//! `GetTask`/`CancelTask` answer or a follow-up answer naming another task (or context) is a
//! protocol error naming both, never an observation that verifies or refuses a claim.

mod negotiation_common;

use a2a_testkit::{Capabilities, Misaddress, RunningAgent, Script};
use a2a_typestate::{ClaimStatus, TaskHandle};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
use a2a_typestate_client::{
    AgentBaseUrl, Capability, Claims, ErrorKind, History, NoHistory, NoPush, NoStreaming, Settlement,
    Streaming,
};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{client, count, spawn, text};

/// "`what` is about task <other> (context <other>) while this task is <id> (context <ctx>)".
fn about_another(what: &str, task: &a2a_typestate_types::Task) -> String {
    let (id, context) =
        (task.id.as_str(), task.context_id.as_ref().expect("the agent set a context").as_str());
    format!(
        "{what} is about task {} (context {}) while this task is {id} (context {context})",
        Misaddress::other_id(id),
        Misaddress::other_id(context)
    )
}

fn no_suspect_mark(client: &a2a_typestate_client::Client, agent: &RunningAgent) {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(
        client.discovery_cache().suspect_marks(&base).is_empty(),
        "an answer about another task marks nothing"
    );
    assert!(client.metrics().snapshot().refusals.values().all(|n| *n == 0), "and refuses nothing");
}

#[tokio::test]
async fn a_stream_about_another_task_is_a_protocol_error_not_a_verified_claim() {
    let script = Script::honest().misaddress(Misaddress::StreamEventsAfterFirst);
    let agent = spawn(Capabilities::none().with_streaming(), script).await;
    let client = client();
    let mut task = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap().claimed().unwrap();

    let error = task.send_streaming_message(text("hello")).await.unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.protocol_error().is_none(), "the agent sent no error: the client refused its answer");
    assert!(!error.is_retryable());
    let Some(SendMessageResponse::Task(seen)) = task.result() else {
        panic!("the first event named the task")
    };
    assert!(error.to_string().contains(&about_another("a stream event", &seen)), "{error}");
    // Nothing about the other task was folded in: the task is as its first event left it.
    assert_eq!(seen.state(), TaskState::Submitted);
    assert!(seen.artifacts.is_empty(), "the artifact about the other task is not this task's");
    assert_eq!(task.state(), Some(TaskState::Submitted));
    // The claim is neither verified nor refused.
    let Ok(Settlement::Pending(task, _)) = task.settle_streaming() else {
        panic!("a stream about another task settled the streaming claim")
    };
    assert_eq!(task.handle().claim_status(Capability::Streaming), ClaimStatus::Claimed);
    no_suspect_mark(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn run_task_reports_a_stream_about_another_task_as_an_error_without_a_fallback() {
    let script = Script::honest().misaddress(Misaddress::StreamEventsAfterFirst);
    let agent = spawn(Capabilities::none().with_streaming(), script).await;
    let client = client();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let error = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap_err();

    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains("a stream event is about task elsewhere-"), "{error}");
    assert_eq!(count(&agent, "SendMessage"), 0, "not a refused claim: no fallback send");
    no_suspect_mark(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_get_task_answer_about_another_task_is_refused_as_an_answer() {
    let script = Script::honest().misaddress(Misaddress::TaskAnswers);
    let agent = spawn(Capabilities::none().with_state_transition_history(), script).await;
    let client = client();
    let mut task =
        client.task::<Claims<NoStreaming, History>>(&agent.base_url()).await.unwrap().claimed().unwrap();

    // The send names the task; the first poll answers about another one.
    let error = task.send_message(text("hello")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.protocol_error().is_none(), "{error}");
    let Some(SendMessageResponse::Task(seen)) = task.result() else { panic!("the send named the task") };
    assert!(error.to_string().contains(&about_another("a GetTask answer", &seen)), "{error}");
    assert_eq!(count(&agent, "GetTask"), 1, "refused, not polled again");
    assert_ne!(task.state(), Some(TaskState::Completed), "the other task's state is not this task's");

    // Asked directly, the history about another task is refused the same way: it verifies nothing.
    let error = task.get_task_history(10).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains(&about_another("a GetTask answer", &seen)), "{error}");
    let Ok(Settlement::Pending(task, _)) = task.settle_history() else {
        panic!("a GetTask answer about another task settled the history claim")
    };
    assert_eq!(task.handle().claim_status(Capability::StateTransitionHistory), ClaimStatus::Claimed);
    no_suspect_mark(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn get_task_and_cancel_task_answers_about_another_task_are_errors_naming_both() {
    let script = Script::honest().misaddress(Misaddress::TaskAnswers);
    let agent = spawn(Capabilities::none(), script).await;
    let client = client();
    let mut task = client
        .task::<Claims<NoStreaming, NoHistory, NoPush>>(&agent.base_url())
        .await
        .unwrap()
        .claimed()
        .unwrap();
    let _ = task.send_message(text("hello")).await.unwrap_err();
    let Some(SendMessageResponse::Task(seen)) = task.result() else { panic!("the send named the task") };

    let error = task.get_task().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains(&about_another("a GetTask answer", &seen)), "{error}");

    let error = task.cancel_task().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains(&about_another("a CancelTask answer", &seen)), "{error}");
    assert_ne!(task.state(), Some(TaskState::Canceled), "the other task's cancel is not this task's");
    agent.shutdown().await;
}

#[tokio::test]
async fn a_follow_up_answer_about_another_task_is_a_protocol_error() {
    let script = Script::honest().misaddress(Misaddress::FollowUpAnswers);
    let agent = spawn(Capabilities::none(), script).await;
    let client = client();
    let typed = || async {
        client
            .task::<Claims<NoStreaming, NoHistory, NoPush>>(&agent.base_url())
            .await
            .unwrap()
            .claimed()
            .unwrap()
    };

    // Polled: the reply to the question is answered about another task.
    let mut task = typed().await;
    task.send_message(text("please clarify")).await.unwrap();
    assert_eq!(task.state(), Some(TaskState::InputRequired));
    let Some(SendMessageResponse::Task(seen)) = task.result() else { panic!("the task asked") };
    let error = task.send_message(text("in metric units")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains(&about_another("a SendMessage answer", &seen)), "{error}");
    assert_eq!(task.state(), Some(TaskState::InputRequired), "the other task's answer is not folded in");

    // Single-shot: the follow-up policy's answer comes back about another task.
    let mut single_shot = typed().await.into_single_shot();
    single_shot.set_follow_up(FollowUp::reply("in metric units"), 1);
    let error = single_shot.send_message(text("please clarify")).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    let sends = agent.requests_for("SendMessage");
    let continued = sends.last().unwrap().body.as_ref().unwrap();
    let id = continued.pointer("/params/message/taskId").and_then(|v| v.as_str()).expect("a follow-up");
    let said = error.to_string();
    assert!(
        said.contains(&format!("a follow-up answer is about task {}", Misaddress::other_id(id)))
            && said.contains(&format!("while this task is {id}")),
        "{said}"
    );
    agent.shutdown().await;
}

#[tokio::test]
async fn an_honest_agent_answers_about_its_task_on_every_path() {
    for capabilities in [Capabilities::none(), Capabilities::none().with_streaming()] {
        let agent = spawn(capabilities, Script::honest()).await;
        let client = client();
        let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
        // A question and its answer: the follow-up continues the same task and context.
        let outcome = client.run_task(&agent.base_url(), text("please clarify"), &negotiation).await.unwrap();
        let SendMessageResponse::Task(result) = &outcome.result else { panic!("a task result") };
        assert_eq!(result.state(), TaskState::InputRequired);
        agent.shutdown().await;
    }
}
