//! Input-required flows: the follow-up policy answers with the paused task's ids, on the streamed
//! and the polled path; without an answer the paused task is the result.

mod negotiation_common;

use a2a_testkit::{Capabilities, ScriptedAgent};
use a2a_typestate_client::Capability;
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskPath};
use a2a_typestate_types::{Message, TaskState};
use negotiation_common::{client, text};

#[tokio::test]
async fn input_required_is_answered_on_the_stream_with_the_tasks_ids() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let client = client();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    let negotiation =
        Negotiation::depending_on(&[Capability::Streaming]).follow_up(FollowUp::with(move |request| {
            seen.lock().unwrap().push(request.question.as_ref().and_then(Message::text));
            Some(Message::user("in metric units").with_message_id(""))
        }));

    let outcome =
        client.run_task(&agent.base_url(), text("please clarify the plan"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert!(outcome.verified.contains(Capability::Streaming));
    let questions = asked.lock().unwrap().clone();
    assert_eq!(questions.len(), 1, "asked once");
    assert!(questions[0].as_deref().is_some_and(|q| q.contains("clarify")), "{questions:?}");
    let streams = agent.requests_for("SendStreamingMessage");
    assert_eq!(streams.len(), 2, "the first message, then the answer");
    let task_id = outcome.result.task_id().unwrap().as_str().to_owned();
    let answer = streams[1].body.as_ref().unwrap();
    assert_eq!(answer.pointer("/params/message/taskId").and_then(|v| v.as_str()), Some(task_id.as_str()));
    assert!(answer.pointer("/params/message/contextId").is_some(), "a follow-up carries the contextId");
    assert!(
        answer.pointer("/params/message/messageId").and_then(|v| v.as_str()).is_some_and(|id| !id.is_empty()),
        "an empty message id is replaced by a fresh one"
    );
    agent.shutdown().await;
}

#[tokio::test]
async fn input_required_is_answered_on_the_polled_path() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let client = client();
    let negotiation = Negotiation::default().follow_up(FollowUp::reply("in metric units"));

    let outcome =
        client.run_task(&agent.base_url(), text("please clarify the plan"), &negotiation).await.unwrap();

    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(agent.requests_for("SendMessage").len(), 2);
    agent.shutdown().await;
}

#[tokio::test]
async fn without_an_answer_the_paused_task_is_the_result() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let client = client();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome =
        client.run_task(&agent.base_url(), text("please clarify the plan"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::InputRequired));
    assert!(outcome.refusal.is_none(), "an unanswered question says nothing about the card");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);
    agent.shutdown().await;
}

/// `max_follow_ups` bounds the answers one task gets: with none allowed the question is left
/// unanswered and the paused task is the result.
#[tokio::test]
async fn with_no_follow_up_allowed_the_question_is_not_answered() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let negotiation = Negotiation::default().follow_up(FollowUp::reply("in metric units")).max_follow_ups(0);

    let outcome =
        client().run_task(&agent.base_url(), text("please clarify the plan"), &negotiation).await.unwrap();

    assert_eq!(outcome.state(), Some(TaskState::InputRequired));
    assert_eq!(agent.requests_for("SendMessage").len(), 1, "the first message only");
    agent.shutdown().await;
}

/// Every answer given counts against the budget: an agent that keeps asking gets
/// `max_follow_ups` answers and no more, and the paused task is the result.
#[tokio::test]
async fn an_agent_that_keeps_asking_gets_no_more_answers_than_the_budget() {
    let agent =
        ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await.unwrap();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = answered.clone();
    // Each answer makes the agent ask again; the policy itself would stop after five.
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]).max_follow_ups(2).follow_up(
        FollowUp::with(move |_| {
            let given = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            (given < 5).then(|| Message::user("metric, but please clarify the units").with_message_id(""))
        }),
    );

    let outcome =
        client().run_task(&agent.base_url(), text("please clarify the plan"), &negotiation).await.unwrap();

    assert_eq!(answered.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(outcome.state(), Some(TaskState::InputRequired));
    let sent = agent.requests_for("SendStreamingMessage");
    assert_eq!(sent.len(), 3, "the first message and two answers");
    let ids: std::collections::HashSet<_> =
        sent.iter().filter_map(|r| r.body.as_ref()?.pointer("/params/message/messageId")?.as_str()).collect();
    assert_eq!(ids.len(), 3, "every message has its own id: {ids:?}");
    agent.shutdown().await;
}

#[test]
fn a_follow_up_policy_shows_whether_it_answers() {
    assert_eq!(format!("{:?}", FollowUp::none()), "FollowUp { answers: false }");
    assert_eq!(format!("{:?}", FollowUp::reply("yes")), "FollowUp { answers: true }");
}

/// A reply sent in a run of its own (a later process continuing the conversation, as `a2a send
/// --task-id` does): the agent's answer from before it read the reply still shows the question,
/// which is not taken for a new one; the run follows the reply to the task's end, and the task the
/// first run started is the one that completes.
#[tokio::test]
async fn a_reply_in_a_run_of_its_own_is_followed_to_the_tasks_end_not_ended_by_the_old_question() {
    for capabilities in [Capabilities::none(), Capabilities::none().with_streaming()] {
        let agent = ScriptedAgent::builder().capabilities(capabilities.clone()).spawn().await.unwrap();
        let client = client();
        let asked = client
            .run_task(&agent.base_url(), text("please clarify the plan"), &Negotiation::default())
            .await;
        let asked = asked.unwrap();
        assert_eq!(asked.state(), Some(TaskState::InputRequired), "{capabilities:?}");
        let task = asked.result.task_id().unwrap().clone();
        let reply = text("in metric units").with_task_id(task.clone());

        let answered = client.run_task(&agent.base_url(), reply, &Negotiation::default()).await.unwrap();

        assert_eq!(answered.state(), Some(TaskState::Completed), "{capabilities:?}: {:?}", answered.result);
        assert_eq!(answered.result.task_id(), Some(&task));
        assert!(answered.refusal.is_none(), "an honest agent: {:?}", answered.refusal);
        assert_eq!(agent.executions(), 1, "one task, run once");
        agent.shutdown().await;
    }
}
