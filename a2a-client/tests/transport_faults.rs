//! Transport faults are retried (before any event was delivered) or reported as a dropped stream,
//! never confused with the agent's answers; every wait is bounded.

mod transport_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Fault, Lie, RunningAgent, Script, ScriptedAgent, Times};
use a2a_typestate_client::{Client, ErrorKind, RetryPolicy, StreamEnd, TransportFault};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::{SendMessageConfiguration, SendMessageResponse, StreamResponse, TaskState};
use futures::StreamExt;
use transport_common::{agent, client, connect_over, text};

async fn jsonrpc(client: &Client, agent: &RunningAgent) -> a2a_typestate_client::AgentConnection {
    connect_over(client, agent, ProtocolVersion::V1_0, ProtocolBinding::JsonRpc).await
}

fn returning_immediately(message: &str) -> a2a_typestate_types::SendMessageRequest {
    text(message)
        .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() })
}

#[tokio::test]
async fn bad_gateway_is_retried_until_the_call_succeeds() {
    let agent = agent(Script::honest().with_fault(Fault::BadGateway(Times::First(2)))).await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let answer = connection.send_message(text("through")).await.unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "two 502s, then the answer");
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.retries, 2);
    assert_eq!(metrics.requests_per_agent[connection.agent().as_str()], 4, "the card, then three sends");
}

#[tokio::test]
async fn service_unavailable_past_the_budget_is_a_retryable_transport_error() {
    let agent = agent(Script::honest().with_fault(Fault::ServiceUnavailable(Times::Always))).await;
    let client = client();
    let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, ProtocolBinding::HttpJson).await;
    let err = connection.get_task(a2a_typestate_types::GetTaskRequest::new("t")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert_eq!(err.status(), Some(503));
    assert!(err.is_retryable());
    assert_eq!(agent.requests_for("GetTask").len(), 3, "the whole retry budget, no more");
}

#[tokio::test]
async fn a_slow_agent_is_bounded_by_the_request_timeout() {
    let agent = agent(Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(5)))).await;
    let client = Client::builder()
        .retry_policy(RetryPolicy::no_retry())
        .request_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let connection = jsonrpc(&client, &agent).await;
    let started = std::time::Instant::now();
    let err = connection.send_message(text("slow")).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3), "waited {:?}", started.elapsed());
}

#[tokio::test]
async fn reset_mid_stream_is_dropped_and_resubscribe_reattaches() {
    let fault = Fault::ResetMidStream { after_events: 2, times: Times::First(1) };
    let agent = agent(Script::honest().step_delay(Duration::from_millis(200)).with_fault(fault)).await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("cut")).await.unwrap();
    let mut delivered = Vec::new();
    let err = loop {
        match stream.next().await {
            Some(Ok(event)) => delivered.push(event),
            Some(Err(err)) => break err,
            None => panic!("the stream ended cleanly after {delivered:?}"),
        }
    };
    assert_eq!(delivered.len(), 2);
    assert_eq!(err.transport_fault(), Some(TransportFault::Reset), "{err}");
    assert_eq!(stream.end(), Some(StreamEnd::Dropped(TransportFault::Reset)));
    assert!(stream.next().await.is_none());
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1, "never re-sent after events");

    let task_id = stream.task_id().cloned().unwrap();
    let mut again = connection.resubscribe(&task_id).await.unwrap();
    let first = again.next().await.unwrap().unwrap();
    assert!(matches!(&first, StreamResponse::Task(t) if t.id == task_id), "{first:?}");
    let mut last = first;
    while let Some(event) = again.next().await {
        last = event.unwrap();
    }
    assert_eq!(last.state(), Some(TaskState::Completed));
    assert_eq!(again.end(), Some(StreamEnd::Closed));
}

#[tokio::test]
async fn reset_before_the_first_event_is_not_sent_again_and_may_have_run() {
    let fault = Fault::ResetMidStream { after_events: 0, times: Times::First(1) };
    let agent = agent(Script::honest().with_fault(fault)).await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let err = connection.send_streaming_message(text("again")).await.unwrap_err();
    assert_eq!(err.transport_fault(), Some(TransportFault::Reset), "{err}");
    assert!(err.may_have_run() && !err.is_retryable(), "{err}");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);
    assert_eq!(client.metrics().snapshot().retries, 0);
}

#[tokio::test]
async fn truncated_sse_is_dropped_not_closed() {
    let fault = Fault::TruncatedSse { after_events: 1, times: Times::Always };
    let agent = agent(Script::honest().with_fault(fault)).await;
    let client = client();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding.clone()).await;
        let mut stream = connection.send_streaming_message(text("half")).await.unwrap();
        assert!(stream.next().await.unwrap().is_ok());
        let err = stream.next().await.unwrap().unwrap_err();
        assert_eq!(err.transport_fault(), Some(TransportFault::Truncated), "{binding}: {err}");
        assert_eq!(stream.end(), Some(StreamEnd::Dropped(TransportFault::Truncated)), "{binding}");
    }
}

#[tokio::test]
async fn streaming_refused_as_plain_json_is_a_protocol_error_from_the_call_itself() {
    let agent = agent(Script::honest().with(Lie::StreamingRefused)).await;
    let client = client();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding.clone()).await;
        let err = connection.send_streaming_message(text("stream?")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol, "{binding}: {err}");
        assert_eq!(err.protocol_error().and_then(|p| p.code()), Some(-32004), "{binding}: {err}");
    }
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 2, "one per binding, not retried");
}

#[tokio::test]
async fn poll_follows_the_cadence_the_card_declares_and_stops_at_the_terminal_state() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_poll_cadence(Duration::from_millis(150)))
        .script(Script::honest().step_delay(Duration::from_millis(150)))
        .spawn()
        .await
        .unwrap();
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let SendMessageResponse::Task(task) =
        connection.send_message(returning_immediately("poll")).await.unwrap()
    else {
        panic!("expected a task")
    };
    let poll = connection.poll_task(&task.id);
    assert_eq!(poll.delay(0), Duration::from_millis(150));
    assert_eq!(poll.delay(9), Duration::from_millis(150), "a declared cadence does not grow");
    let polled: Vec<_> = poll.map(Result::unwrap).collect().await;
    assert_eq!(polled.last().map(|t| t.state()), Some(TaskState::Completed));
    let gets = agent.requests_for("GetTask");
    assert_eq!(gets.len(), polled.len(), "one GetTask per item, none after the terminal state");
    for pair in gets.windows(2) {
        let gap = pair[1].at.saturating_sub(pair[0].at);
        assert!(gap >= Duration::from_millis(140), "polled after {gap:?}");
    }
}

#[tokio::test]
async fn poll_stops_at_input_required_and_sends_the_callers_request_each_time() {
    let agent = agent(Script::honest().step_delay(Duration::from_millis(50))).await;
    let client = client();
    let connection = jsonrpc(&client, &agent).await;
    let SendMessageResponse::Task(task) =
        connection.send_message(returning_immediately("clarify")).await.unwrap()
    else {
        panic!("expected a task")
    };
    let request = a2a_typestate_types::GetTaskRequest {
        history_length: Some(0),
        ..a2a_typestate_types::GetTaskRequest::new(task.id)
    };
    let poll = connection.poll_task_with(request);
    assert_eq!(poll.delay(0), client.config().poll_cadence().initial(), "no declared cadence: the client's");
    let polled: Vec<_> = poll.map(Result::unwrap).collect().await;
    assert_eq!(polled.last().map(|t| t.state()), Some(TaskState::InputRequired));
    assert!(polled.iter().all(|t| t.history.is_empty()));
    for get in agent.requests_for("GetTask") {
        assert_eq!(get.body.unwrap()["params"]["historyLength"], 0);
    }
}

/// Opening a connection is bounded as a whole by the connect timeout, not only its TCP connect: a
/// name lookup or a proxy's tunnel that never completes is a connection never opened (nothing was
/// sent), so it is a connect fault, which moves a task to the card's next interface, not a
/// request timeout, which does not.
#[tokio::test]
async fn a_connection_that_never_opens_is_a_connect_fault_within_the_connect_timeout() {
    // A proxy that takes the connection and never answers the CONNECT: the tunnel never opens.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let via = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let client = Client::builder()
        .proxy(a2a_typestate_client::net::Proxy::https(&via).unwrap())
        .connect_timeout(Duration::from_millis(300))
        .request_timeout(Duration::from_secs(20))
        .retry_policy(RetryPolicy::no_retry())
        .build()
        .unwrap();
    let started = std::time::Instant::now();

    let error = client.discover("https://agent.example").await.unwrap_err();

    assert!(error.is_connect(), "{:?}: {error}", error.kind());
    assert_eq!(error.transport_fault(), Some(TransportFault::Connect));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "bounded by the connect timeout: {:?}",
        started.elapsed()
    );
}
