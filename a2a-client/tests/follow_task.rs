//! `AgentConnection::follow_task` against scripted agents that do not stream: each new state once,
//! to the terminal one or to a question, on the same loop and bounds as `poll_task`.

mod transport_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Script, ScriptedAgent};
use a2a_typestate_types::{SendMessageConfiguration, SendMessageResponse, Task, TaskState};
use futures::StreamExt;
use transport_common::{client, text};

fn returning_immediately(words: &str) -> a2a_typestate_types::SendMessageRequest {
    text(words)
        .with_configuration(SendMessageConfiguration { return_immediately: true, ..Default::default() })
}

async fn started(connection: &a2a_typestate_client::AgentConnection, words: &str) -> Task {
    match connection.send_message(returning_immediately(words)).await.unwrap() {
        SendMessageResponse::Task(task) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

#[tokio::test]
async fn following_a_task_yields_each_new_state_once_and_ends_at_the_terminal_one() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_poll_cadence(Duration::from_millis(100)))
        .script(Script::honest().step_delay(Duration::from_millis(250)))
        .spawn()
        .await
        .unwrap();
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let task = started(&connection, "follow me").await;

    let followed: Vec<Task> = connection.follow_task(&task.id).map(Result::unwrap).collect().await;
    let states: Vec<TaskState> = followed.iter().map(Task::state).collect();
    assert_eq!(states.last(), Some(&TaskState::Completed), "{states:?}");
    for pair in states.windows(2) {
        assert_ne!(pair[0], pair[1], "a state was yielded twice in a row: {states:?}");
    }
    assert!(states.contains(&TaskState::Working), "{states:?}");
    let polls = agent.requests_for("GetTask").len();
    assert!(polls >= states.len(), "one item comes from one poll at least: {polls} polls, {states:?}");
    assert!(followed.iter().all(|t| t.id == task.id));
}

#[tokio::test]
async fn following_a_task_stops_at_its_question() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_poll_cadence(Duration::from_millis(100)))
        .script(Script::honest().step_delay(Duration::from_millis(50)))
        .spawn()
        .await
        .unwrap();
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let task = started(&connection, "please clarify").await;

    let mut follow = connection.follow_task(&task.id);
    let mut states = Vec::new();
    while let Some(task) = follow.next().await {
        states.push(task.unwrap().state());
    }
    assert_eq!(states.last(), Some(&TaskState::InputRequired), "{states:?}");
    assert_eq!(follow.last_state(), Some(TaskState::InputRequired));
}
