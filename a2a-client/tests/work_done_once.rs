//! Work done once: a send whose answer never came may have started the work, so it is never sent
//! again blind. The client looks for the task under the message's context id and follows it to its
//! end; when none can be found, the run ends saying the work may have run. Counted on the agent.

mod negotiation_common;

use a2a_testkit::{Capabilities, Fault, Lie, RunningAgent, Script, Times};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{AgentBaseUrl, Capability, Client};
use a2a_typestate_types::{ContextId, SendMessageRequest, TaskState};
use negotiation_common::{builder, count, ms, spawn, text};

fn assert_never_called_a_liar(client: &Client, agent: &RunningAgent) {
    let snapshot = client.metrics().snapshot();
    assert_eq!(snapshot.refusals.values().sum::<u64>(), 0, "a lost answer is no refusal");
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none(), "and no suspect mark");
}

/// Steps that take longer than the request timeout: the blocking send's answer cannot come in time.
const STEP: u64 = 250;
const REQUEST_TIMEOUT: u64 = 300;

/// An agent that claims streaming, refuses it and works in steps longer than the client's request
/// timeout; the client, and a negotiation depending on streaming.
async fn slow_streaming_liar() -> (RunningAgent, Client, Negotiation) {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().with(Lie::StreamingRefused).step_delay(ms(STEP)),
    )
    .await;
    let client = builder().request_timeout(ms(REQUEST_TIMEOUT)).build().unwrap();
    (agent, client, Negotiation::depending_on(&[Capability::Streaming]))
}

#[tokio::test]
async fn a_fallback_send_that_times_out_while_the_agent_works_runs_once_and_ends_with_its_answer() {
    let (agent, client, depends) = slow_streaming_liar().await;

    let outcome = client.run_task(&agent.base_url(), text("long work"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Fallback, "refused, then the single-shot send");
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(outcome.text().as_deref(), Some("echo: long work"));
    assert_eq!(count(&agent, "SendMessage"), 1, "the send that timed out was not sent again");
    assert_eq!(agent.executions(), 1, "the work ran once");
    assert!(count(&agent, "ListTasks") >= 1, "its task was looked up under the context");
    agent.shutdown().await;
}

#[tokio::test]
async fn a_suspect_agents_single_shot_send_that_times_out_runs_once_and_ends_with_its_answer() {
    let (agent, client, depends) = slow_streaming_liar().await;
    client.run_task(&agent.base_url(), text("first"), &depends).await.unwrap();
    let before = (count(&agent, "SendMessage"), agent.executions());

    let outcome = client.run_task(&agent.base_url(), text("second"), &depends).await.unwrap();

    assert!(matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)), "{:?}", outcome.path);
    assert_eq!(outcome.text().as_deref(), Some("echo: second"));
    assert_eq!(count(&agent, "SendMessage"), before.0 + 1);
    assert_eq!(agent.executions(), before.1 + 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_stream_reset_before_its_first_event_is_followed_to_its_end_not_sent_again() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest()
            .step_delay(ms(50))
            .with_fault(Fault::ResetMidStream { after_events: 0, times: Times::First(1) }),
    )
    .await;
    let client = builder().build().unwrap();
    let depends = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.state(), Some(TaskState::Completed), "the task still ends definitely");
    assert_eq!(outcome.text().as_deref(), Some("echo: hello"));
    assert_eq!(count(&agent, "SendStreamingMessage"), 1, "the task is never sent twice");
    assert_eq!(agent.executions(), 1);
    assert!(!outcome.verified.contains(Capability::Streaming), "a cut stream settles nothing");
    assert_never_called_a_liar(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_connection_send_that_may_have_run_is_found_by_its_context() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().with_fault(Fault::ResetMidStream { after_events: 0, times: Times::First(1) }),
    )
    .await;
    let client = builder().build().unwrap();
    let conn = client.connect(&agent.base_url()).await.unwrap();
    let mut message = text("raw");
    message.context_id = Some(ContextId::from("context-of-raw"));

    let err = conn.send_streaming_message(SendMessageRequest::new(message.clone())).await.unwrap_err();
    assert!(err.may_have_run(), "{err}");
    assert_eq!(count(&agent, "SendStreamingMessage"), 1);

    let found = conn.find_sent_task(&message).await.unwrap().expect("the agent lists the task it started");
    assert_eq!(found.context_id.as_ref().map(ContextId::as_str), Some("context-of-raw"));
    assert_eq!(agent.executions(), 1);
    agent.shutdown().await;
}

/// Whatever fault a send meets and whichever path it is on, the agent runs the work at most once,
/// and the run ends with the answer or an error saying the work may have run.
#[tokio::test]
async fn every_lost_answer_on_every_path_runs_the_work_at_most_once() {
    let faults =
        [Fault::ResetMidStream { after_events: 0, times: Times::First(1) }, Fault::SlowResponses(ms(400))];
    let paths: [&[Capability]; 2] = [&[], &[Capability::Streaming]];
    for fault in faults {
        for depends in paths {
            let agent = spawn(
                Capabilities::none().with_streaming(),
                Script::honest().step_delay(ms(50)).with_fault(fault.clone()),
            )
            .await;
            let client = builder().request_timeout(ms(200)).build().unwrap();
            let run =
                client.run_task(&agent.base_url(), text("once"), &Negotiation::depending_on(depends)).await;
            let sends = count(&agent, "SendMessage") + count(&agent, "SendStreamingMessage");
            assert_eq!(sends, 1, "{fault:?} {depends:?}: {run:?}");
            assert!(agent.executions() <= 1, "{fault:?} {depends:?}");
            match run {
                Ok(outcome) => {
                    assert!(outcome.state().is_some_and(|s| s.is_terminal()), "{fault:?} {depends:?}")
                }
                Err(err) => assert!(err.may_have_run(), "{fault:?} {depends:?}: {err}"),
            }
            assert_never_called_a_liar(&client, &agent);
            agent.shutdown().await;
        }
    }
}
