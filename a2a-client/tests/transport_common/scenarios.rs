//! Every operation, checked the same way whatever the binding or version: what a caller sees must not
//! depend on the wire.

use std::time::Duration;

use a2a_testkit::Script;
use a2a_typestate_client::{AgentConnection, Client, ErrorKind, StreamEnd};
use a2a_typestate_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    GetTaskRequest, ListTaskPushNotificationConfigsRequest, ListTasksRequest, SendMessageConfiguration,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskState,
};
use futures::StreamExt;

use super::{artifact_texts, text};

fn task_of(response: SendMessageResponse) -> Task {
    match response {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(message) => panic!("expected a task, got a message {message:?}"),
    }
}

fn return_immediately() -> SendMessageConfiguration {
    SendMessageConfiguration { return_immediately: true, ..Default::default() }
}

/// A slow agent (each lifecycle step waits `step`), for calls that must find a task still working.
pub fn slow(step: Duration) -> Script {
    Script::honest().step_delay(step)
}

pub async fn send_message_waits_for_the_completed_task(connection: &AgentConnection) -> Task {
    let task = task_of(connection.send_message(text("hello")).await.unwrap());
    assert_eq!(task.state(), TaskState::Completed);
    let texts: Vec<&str> =
        task.artifacts.iter().flat_map(|a| a.parts.iter()).filter_map(|p| p.as_text()).collect();
    assert_eq!(texts, ["echo: hello"]);
    task
}

pub async fn streaming_starts_with_the_task_and_closes_cleanly(connection: &AgentConnection) {
    let mut stream = connection.send_streaming_message(text("stream me")).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    assert!(matches!(events.first(), Some(StreamResponse::Task(_))), "first event: {:?}", events.first());
    assert_eq!(events.last().and_then(StreamResponse::state), Some(TaskState::Completed));
    assert_eq!(artifact_texts(&events), ["echo: stream me"]);
    assert_eq!(stream.end(), Some(StreamEnd::Closed));
    assert_eq!(stream.delivered(), events.len() as u64);
    assert!(stream.task_id().is_some());
}

pub async fn input_required_then_follow_up_completes(connection: &AgentConnection) {
    let first = task_of(connection.send_message(text("please clarify")).await.unwrap());
    assert_eq!(first.state(), TaskState::InputRequired);
    let mut follow_up = text("more detail");
    follow_up.message.task_id = Some(first.id.clone());
    follow_up.message.context_id = first.context_id.clone();
    let second = task_of(connection.send_message(follow_up).await.unwrap());
    assert_eq!(second.id, first.id);
    assert_eq!(second.state(), TaskState::Completed);
}

pub async fn get_task_honours_history_length(connection: &AgentConnection, task: &Task) {
    let full = connection.get_task(GetTaskRequest::new(task.id.clone())).await.unwrap();
    assert_eq!(full.id, task.id);
    assert!(!full.history.is_empty(), "the default history holds the user's message");
    let none = connection
        .get_task(GetTaskRequest { history_length: Some(0), ..GetTaskRequest::new(task.id.clone()) })
        .await
        .unwrap();
    assert!(none.history.is_empty(), "historyLength 0 asks for no history: {:?}", none.history);
}

pub async fn unknown_task_is_a_task_not_found_protocol_error(connection: &AgentConnection) {
    let err = connection.get_task(GetTaskRequest::new("no-such-task")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert_eq!(err.protocol_error().and_then(|p| p.code()), Some(-32001), "{err}");
}

pub async fn list_tasks_lists_what_was_sent(connection: &AgentConnection, task: &Task) {
    let page = connection.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert!(page.tasks.iter().any(|t| t.id == task.id), "{:?}", page.tasks);
    assert!(page.total_size >= 1);
}

pub async fn cancel_of_a_working_task_returns_it_canceled(connection: &AgentConnection) {
    let request = text("cancel me").with_configuration(return_immediately());
    let task = task_of(connection.send_message(request).await.unwrap());
    assert!(!task.state().is_terminal(), "returnImmediately gave {:?}", task.state());
    let canceled = connection
        .cancel_task(CancelTaskRequest { id: task.id.clone(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(canceled.state(), TaskState::Canceled);
}

pub async fn subscribe_starts_with_the_snapshot_and_follows_to_the_end(connection: &AgentConnection) {
    let request = text("follow me").with_configuration(return_immediately());
    let task = task_of(connection.send_message(request).await.unwrap());
    let mut stream = connection
        .subscribe_to_task(SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() })
        .await
        .unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(&first, StreamResponse::Task(t) if t.id == task.id), "{first:?}");
    let mut last = first;
    while let Some(event) = stream.next().await {
        last = event.unwrap();
    }
    assert_eq!(last.state(), Some(TaskState::Completed));
    assert_eq!(stream.end(), Some(StreamEnd::Closed));
}

/// Create, get, list, delete; and the agent really calls the client's receiver.
pub async fn push_configs_round_trip_and_callbacks_arrive(client: &Client, connection: &AgentConnection) {
    let receiver = client.start_push_receiver().await.unwrap();
    let request = text("push me").with_configuration(return_immediately());
    let task = task_of(connection.send_message(request).await.unwrap());
    let registration = receiver.register(&task.id);
    let created = connection.create_task_push_notification_config(registration.to_config()).await.unwrap();
    assert_eq!(created.url, registration.url());
    assert_eq!(created.task_id.as_ref(), Some(&task.id));
    let config_id = created.id.clone().unwrap_or_default();
    assert!(!config_id.is_empty());

    let fetched = connection
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: config_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(fetched.url, registration.url());

    let arrival = receiver.next_callback(&task.id, Duration::from_secs(10)).await.unwrap();
    assert!(matches!(arrival, a2a_typestate_client::PushArrival::Delivered(_)), "{arrival:?}");

    let listed = connection
        .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
            task_id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(listed.configs.iter().any(|c| c.url == registration.url()), "{listed:?}");

    connection
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: config_id,
            ..Default::default()
        })
        .await
        .unwrap();
    let after = connection
        .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
            task_id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(after.configs.iter().all(|c| c.url != registration.url()), "{after:?}");
}

pub async fn poll_stops_at_the_terminal_state(connection: &AgentConnection) -> Vec<Task> {
    let request = text("poll me").with_configuration(return_immediately());
    let task = task_of(connection.send_message(request).await.unwrap());
    let polled: Vec<Task> = connection.poll_task(&task.id).map(Result::unwrap).collect().await;
    assert_eq!(polled.last().map(Task::state), Some(TaskState::Completed));
    assert!(polled.iter().rev().skip(1).all(|t| !t.state().is_terminal()), "polling went on past the end");
    polled
}
