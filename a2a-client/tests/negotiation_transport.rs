//! Transport faults say nothing about the card: retried (or the stream reattached), never refused,
//! never a suspect mark; an exhausted budget is a transport error the caller can retry.

mod negotiation_common;

use a2a_testkit::{Capabilities, Fault, RunningAgent, Script, Times};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{AgentBaseUrl, Capability, Client, ErrorKind};
use a2a_typestate_types::TaskState;
use negotiation_common::{builder, client, count, ms, spawn, text};

fn assert_not_refused(client: &Client, agent: &RunningAgent) {
    let snapshot = client.metrics().snapshot();
    assert_eq!(snapshot.refusals.values().sum::<u64>(), 0, "a transport fault is never a refusal");
    assert_eq!(snapshot.fallbacks, 0);
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none(), "and never a suspect mark");
}

#[tokio::test]
async fn bad_gateway_on_the_streaming_call_is_retried_never_refused() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().with_fault(Fault::BadGateway(Times::First(2))),
    )
    .await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::Streaming));
    assert_eq!(count(&agent, "SendStreamingMessage"), 3, "two 502s, then the stream");
    assert_eq!(client.metrics().snapshot().retries, 2);
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn service_unavailable_on_the_polled_path_is_retried_never_refused() {
    let agent = spawn(
        Capabilities::none().with_state_transition_history(),
        Script::honest().with_fault(Fault::ServiceUnavailable(Times::First(2))),
    )
    .await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::StateTransitionHistory]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert!(outcome.verified.contains(Capability::StateTransitionHistory));
    assert_eq!(count(&agent, "SendMessage"), 3, "two 503s, then the send");
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn connection_reset_mid_stream_is_reattached_never_refused() {
    let agent = spawn(
        Capabilities::none().with_streaming().with_state_transition_history(),
        Script::honest()
            .step_delay(ms(60))
            .with_fault(Fault::ResetMidStream { after_events: 1, times: Times::First(1) }),
    )
    .await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming, Capability::StateTransitionHistory]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(count(&agent, "SendStreamingMessage"), 1, "the task is not sent twice");
    assert_eq!(count(&agent, "SubscribeToTask"), 1, "the stream is reattached");
    // The missed states are rebuilt from the history, which the agent keeps: verified.
    assert!(outcome.verified.contains(Capability::StateTransitionHistory));
    let history_asked = agent
        .requests_for("GetTask")
        .iter()
        .any(|r| r.body.as_ref().and_then(|b| b.pointer("/params/historyLength")).is_some());
    assert!(history_asked, "GetTask asked for the history");
    assert!(client.metrics().snapshot().retries >= 1);
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn truncated_stream_is_reattached_never_refused() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest()
            .step_delay(ms(60))
            .with_fault(Fault::TruncatedSse { after_events: 1, times: Times::First(1) }),
    )
    .await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(count(&agent, "SendStreamingMessage"), 1);
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_timed_out_send_is_a_transport_error_never_a_refusal_and_never_sent_again() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest().with_fault(Fault::SlowResponses(ms(600))),
    )
    .await;
    let client = builder().request_timeout(ms(100)).build().unwrap();

    let err =
        client.run_task(&agent.base_url(), text("hello"), &Negotiation::depending_on(&[])).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert!(err.is_timeout());
    assert!(err.may_have_run(), "the agent may have taken it: {err}");
    assert!(!err.is_retryable(), "sending it again could run the work twice");
    // Every answer, the listing's too, comes after the request timeout: the task is not found.
    assert!(err.unanswered_lookup().is_some_and(|why| why.contains("ListTasks")), "{err}");
    assert!(err.to_string().contains("not sent again"), "{err}");
    assert_eq!(count(&agent, "SendMessage"), 1, "a send that may have reached the agent is not repeated");
    assert_eq!(client.metrics().snapshot().retries, 0);
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

#[tokio::test]
async fn streams_cut_every_time_are_reattached_within_the_budget_then_polled_to_the_end() {
    let agent = spawn(
        Capabilities::none().with_streaming(),
        Script::honest()
            .step_delay(ms(200))
            .with_fault(Fault::ResetMidStream { after_events: 1, times: Times::Always }),
    )
    .await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming]);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert_eq!(outcome.state(), Some(TaskState::Completed), "the task still ends definitely");
    assert_eq!(count(&agent, "SendStreamingMessage"), 1, "the task is never sent twice");
    assert_eq!(count(&agent, "SubscribeToTask"), 2, "three attempts: the stream and two reattachments");
    assert!(count(&agent, "GetTask") >= 1, "then polled");
    assert!(!outcome.verified.contains(Capability::Streaming), "cut streams settle nothing");
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}

/// Only the agent's own "not supported" turns an unclaimed stream into polling: a transport
/// failure of the stream it was offered is the caller's error to retry, and the task is not sent a
/// second time on another call.
#[tokio::test]
async fn an_unclaimed_stream_failing_in_transport_is_an_error_not_a_switch_to_polling() {
    let agent =
        spawn(Capabilities::none(), Script::honest().with_fault(Fault::BadGateway(Times::Always))).await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming]);

    let err = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert_eq!(count(&agent, "SendStreamingMessage"), 3, "the budget of three attempts was spent");
    assert_eq!(count(&agent, "SendMessage"), 0, "not sent again on the polled path");
    assert_not_refused(&client, &agent);
    agent.shutdown().await;
}
