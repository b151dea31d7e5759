//! The 1.0 gRPC binding against a scripted agent: every operation (both server streams included),
//! the method paths, the `a2a-version` metadata, errors read from `google.rpc.Status` details, and
//! the bounds (deadline, idle stream, message size).

mod transport_common;

use std::time::Duration;

use a2a_testkit::{Binding, Capabilities, Fault, RunningAgent, Script, ScriptedAgent, Stall, Times};
use a2a_typestate_client::{Client, ErrorKind, StreamEnd, TransportFault};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use futures::StreamExt;
use transport_common::scenarios::{self, slow};
use transport_common::{client, connect_over, text};

/// A 1.0 agent that streams and pushes, playing `script`, whose card lists gRPC first.
async fn agent(script: Script) -> RunningAgent {
    ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .bindings([Binding::Grpc, Binding::JsonRpc, Binding::HttpJson])
        .script(script)
        .spawn()
        .await
        .unwrap()
}

async fn grpc(client: &Client, agent: &RunningAgent) -> a2a_typestate_client::AgentConnection {
    connect_over(client, agent, ProtocolVersion::V1_0, ProtocolBinding::Grpc).await
}

#[tokio::test]
async fn connect_selects_grpc_when_the_card_prefers_it() {
    let agent = agent(Script::honest()).await;
    let connection = client().connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.interface().binding, ProtocolBinding::Grpc);
    scenarios::send_message_waits_for_the_completed_task(&connection).await;
    assert_eq!(agent.requests_for("SendMessage")[0].path, "/lf.a2a.v1.A2AService/SendMessage");
}

#[tokio::test]
async fn requests_are_the_service_methods_with_the_version_metadata() {
    let agent = agent(slow(Duration::from_millis(50))).await;
    let client = client();
    let connection = grpc(&client, &agent).await;
    let task = scenarios::send_message_waits_for_the_completed_task(&connection).await;
    scenarios::get_task_honours_history_length(&connection, &task).await;
    scenarios::list_tasks_lists_what_was_sent(&connection, &task).await;
    scenarios::cancel_of_a_working_task_returns_it_canceled(&connection).await;
    scenarios::streaming_starts_with_the_task_and_closes_cleanly(&connection).await;

    let seen: Vec<String> =
        agent.requests().iter().filter(|r| r.operation.is_some()).map(|r| r.path.clone()).collect();
    let method = |name: &str| format!("/lf.a2a.v1.A2AService/{name}");
    assert_eq!(
        seen,
        [
            method("SendMessage"),
            method("GetTask"),
            method("GetTask"),
            method("ListTasks"),
            method("SendMessage"),
            method("CancelTask"),
            method("SendStreamingMessage")
        ]
    );
    for request in agent.requests().iter().filter(|r| r.operation.is_some()) {
        assert_eq!(request.header("a2a-version"), Some("1.0"), "{request:?}");
        assert_eq!(request.header("content-type"), Some("application/grpc"), "{request:?}");
    }
    let unary = &agent.requests_for("GetTask")[0];
    assert!(unary.header("grpc-timeout").is_some(), "the request timeout travels as the deadline");
    let stream = &agent.requests_for("SendStreamingMessage")[0];
    assert_eq!(stream.header("grpc-timeout"), None, "a stream is bounded by the idle bound, not a deadline");
    let history = agent.requests_for("GetTask")[1].body.clone().unwrap();
    assert_eq!(history["historyLength"], 0, "an explicit historyLength 0 is sent");
}

#[tokio::test]
async fn input_required_then_follow_up_completes() {
    let agent = agent(Script::honest()).await;
    scenarios::input_required_then_follow_up_completes(&grpc(&client(), &agent).await).await;
}

#[tokio::test]
async fn unknown_task_is_a_task_not_found_error_read_from_the_error_info() {
    let agent = agent(Script::honest()).await;
    let connection = grpc(&client(), &agent).await;
    scenarios::unknown_task_is_a_task_not_found_protocol_error(&connection).await;
    let err = connection.get_task(a2a_typestate_types::GetTaskRequest::new("missing")).await.unwrap_err();
    let protocol = err.protocol_error().unwrap();
    assert_eq!((protocol.reason(), protocol.rpc_status()), (Some("TASK_NOT_FOUND"), Some("NOT_FOUND")));
    assert_eq!(protocol.a2a_code(), Some(a2a_typestate_types::error::A2aErrorCode::TaskNotFound));
    assert!(err.to_string().contains("(grpc NOT_FOUND)"), "{err}");
}

#[tokio::test]
async fn subscribe_starts_with_the_snapshot_and_follows_to_the_end() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    scenarios::subscribe_starts_with_the_snapshot_and_follows_to_the_end(&grpc(&client(), &agent).await)
        .await;
    assert_eq!(agent.requests_for("SubscribeToTask")[0].path, "/lf.a2a.v1.A2AService/SubscribeToTask");
}

#[tokio::test]
async fn push_configs_round_trip_and_callbacks_arrive() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    let client = client();
    let connection = grpc(&client, &agent).await;
    scenarios::push_configs_round_trip_and_callbacks_arrive(&client, &connection).await;
    assert_eq!(agent.requests_for("DeleteTaskPushNotificationConfig").len(), 1);
}

#[tokio::test]
async fn extended_card_refusal_is_an_unsupported_operation_error() {
    let agent = agent(Script::honest()).await;
    let err = grpc(&client(), &agent).await.get_extended_agent_card().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    let protocol = err.protocol_error().unwrap();
    assert!(protocol.is_unsupported_operation(), "{err}");
    assert_eq!(protocol.rpc_status(), Some("FAILED_PRECONDITION"));
}

#[tokio::test]
async fn poll_stops_at_the_terminal_state() {
    let agent = agent(slow(Duration::from_millis(100))).await;
    scenarios::poll_stops_at_the_terminal_state(&grpc(&client(), &agent).await).await;
}

#[tokio::test]
async fn unavailable_answers_are_retried_as_transport_faults() {
    let agent = agent(Script::honest().with_fault(Fault::ServiceUnavailable(Times::First(2)))).await;
    let connection = grpc(&client(), &agent).await;
    scenarios::send_message_waits_for_the_completed_task(&connection).await;
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "two UNAVAILABLE answers, then the task");
}

#[tokio::test]
async fn a_cut_stream_is_dropped_not_closed_and_can_be_reattached() {
    let script = slow(Duration::from_millis(50))
        .with_fault(Fault::ResetMidStream { after_events: 1, times: Times::Always });
    let agent = agent(script).await;
    let connection = grpc(&client(), &agent).await;
    let mut stream = connection.send_streaming_message(text("cut")).await.unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(first.task_id().is_some());
    let second = stream.next().await.unwrap();
    assert_eq!(second.unwrap_err().transport_fault(), Some(TransportFault::Reset));
    assert_eq!(stream.end(), Some(StreamEnd::Dropped(TransportFault::Reset)));
    assert!(stream.task_id().is_some(), "the task to resubscribe to is known");
}

#[tokio::test]
async fn a_silent_stream_ends_at_the_idle_bound() {
    // Over gRPC the comments-only stall is silence: not even the first snapshot comes.
    let agent = agent(Script::honest().stall(Stall::CommentsOnly)).await;
    let retry =
        a2a_typestate_client::RetryPolicy::new(2, Duration::from_millis(10), Duration::from_millis(10), 0.0)
            .unwrap();
    let client =
        Client::builder().sse_idle_timeout(Duration::from_millis(300)).retry_policy(retry).build().unwrap();
    let connection = grpc(&client, &agent).await;
    let started = std::time::Instant::now();
    let err = connection.send_streaming_message(text("stall")).await.unwrap_err();
    assert_eq!(err.transport_fault(), Some(TransportFault::Timeout), "{err}");
    assert!(err.may_have_run(), "the agent may have taken the send: {err}");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1, "a send is not repeated blind");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_stream_gone_quiet_after_its_first_event_is_dropped_at_the_idle_bound() {
    let agent = agent(Script::honest().stall(Stall::Submitted)).await;
    let client = Client::builder().sse_idle_timeout(Duration::from_millis(300)).build().unwrap();
    let connection = grpc(&client, &agent).await;
    let mut stream = connection.send_streaming_message(text("stall")).await.unwrap();
    assert!(stream.next().await.unwrap().is_ok(), "the snapshot");
    let err = stream.next().await.unwrap().unwrap_err();
    assert_eq!(err.transport_fault(), Some(TransportFault::Timeout), "{err}");
    assert_eq!(stream.end(), Some(StreamEnd::Dropped(TransportFault::Timeout)));
}

#[tokio::test]
async fn a_unary_call_is_bounded_by_the_request_timeout() {
    let agent = agent(Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(3)))).await;
    let retry =
        a2a_typestate_client::RetryPolicy::new(1, Duration::from_millis(10), Duration::from_millis(10), 0.0)
            .unwrap();
    let client =
        Client::builder().request_timeout(Duration::from_millis(300)).retry_policy(retry).build().unwrap();
    let connection = grpc(&client, &agent).await;
    let started = std::time::Instant::now();
    let err = connection.get_task(a2a_typestate_types::GetTaskRequest::new("t")).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[tokio::test]
async fn an_answer_over_the_event_size_bound_is_bad_input() {
    let agent = agent(Script::honest()).await;
    let client = Client::builder().max_sse_event_bytes(64).build().unwrap();
    let connection = grpc(&client, &agent).await;
    let mut stream = connection
        .send_streaming_message(text("a message whose events are larger than sixty-four bytes"))
        .await;
    let err = match stream {
        Err(err) => err,
        Ok(ref mut events) => events.next().await.unwrap().unwrap_err(),
    };
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
}
