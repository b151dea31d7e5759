//! Whatever a task holds, `text()`, `data()` and `file(name)` read the answer where the rule says it
//! is: the artifacts' parts when there are artifacts, else the agent's messages since the client's
//! last message, else the status message. The expected answer is computed here by a model of that
//! rule written apart from `Task::answer_parts`.

mod strategies;

use a2a_typestate_types::{Message, Part, PartContent, Role, SendMessageResponse, Task};
use proptest::prelude::*;
use serde_json::Value;
use strategies::messages::{artifact, message, non_empty, part, task_status};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, ..ProptestConfig::default() }
}

/// A part, often with a file name from a small set, so that names repeat across parts.
fn named_part() -> impl Strategy<Value = Part> {
    (part(), proptest::option::of(prop_oneof![Just("a.txt"), Just("b.png"), Just("c")])).prop_map(
        |(mut part, name)| {
            if let Some(name) = name {
                part.filename = Some(name.to_owned());
            }
            part
        },
    )
}

fn named_message() -> impl Strategy<Value = Message> {
    (message(), proptest::collection::vec(named_part(), 0..4)).prop_map(|(mut message, parts)| {
        message.parts = parts;
        message
    })
}

/// A task whose answer may be in any of the three places, or nowhere: artifacts often absent, and
/// a history long enough to hold several turns.
fn task() -> impl Strategy<Value = Task> {
    let named_artifact =
        (artifact(), proptest::collection::vec(named_part(), 0..4)).prop_map(|(mut artifact, parts)| {
            artifact.parts = parts;
            artifact
        });
    (
        non_empty(),
        task_status(),
        proptest::option::of(named_message()),
        prop_oneof![Just(Vec::new()), proptest::collection::vec(named_artifact, 1..3)],
        proptest::collection::vec(named_message(), 0..6),
    )
        .prop_map(|(id, mut status, status_message, artifacts, history)| {
            status.message = status_message;
            let mut task = Task::new(id, status.state);
            task.status = status;
            task.artifacts = artifacts;
            task.history = history;
            task
        })
}

/// The rule, written as a reader would state it.
fn expected_answer(task: &Task) -> Vec<Part> {
    if !task.artifacts.is_empty() {
        return task.artifacts.iter().flat_map(|a| a.parts.clone()).collect();
    }
    // Walk back from the newest message to the client's last one, keeping what the agent said.
    let mut said: Vec<&Message> = Vec::new();
    for message in task.history.iter().rev() {
        match message.role {
            Role::User => break,
            Role::Agent => said.push(message),
            Role::Unspecified => {}
        }
    }
    said.reverse();
    let said: Vec<Part> = said.into_iter().flat_map(|m| m.parts.clone()).collect();
    if !said.is_empty() {
        return said;
    }
    task.status.message.as_ref().map(|m| m.parts.clone()).unwrap_or_default()
}

fn expected_text(parts: &[Part]) -> Option<String> {
    let mut text: Option<String> = None;
    for part in parts {
        if let PartContent::Text(t) = &part.content {
            text = Some(match text {
                None => t.clone(),
                Some(before) => format!("{before}\n{t}"),
            });
        }
    }
    text
}

fn expected_data(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Data(data) => Some(serde_json::from_str(data.get()).unwrap()),
            _ => None,
        })
        .collect()
}

fn expected_file<'a>(parts: &'a [Part], name: &str) -> Option<&'a Part> {
    parts.iter().find(|part| {
        let is_file = matches!(part.content, PartContent::Raw(_) | PartContent::Url(_));
        is_file && part.filename.as_deref() == Some(name)
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_task_s_text_is_the_text_of_the_parts_the_rule_names(task in task()) {
        let expected = expected_answer(&task);
        let answer_parts: Vec<Part> = task.answer_parts().into_iter().cloned().collect();
        prop_assert_eq!(&answer_parts, &expected, "answer_parts follows the rule");
        prop_assert_eq!(task.text(), expected_text(&expected));
        prop_assert_eq!(task.data(), expected_data(&expected));
    }

    #[test]
    fn a_task_s_file_is_the_first_file_part_of_that_name_in_its_answer(task in task()) {
        let expected = expected_answer(&task);
        for name in ["a.txt", "b.png", "c", "absent"] {
            prop_assert_eq!(task.file(name).cloned(), expected_file(&expected, name).cloned(), "{}", name);
        }
    }

    #[test]
    fn a_send_message_result_reads_as_its_task_or_its_message(task in task(), message in named_message()) {
        let as_task = SendMessageResponse::Task(task.clone());
        prop_assert_eq!(as_task.text(), task.text());
        prop_assert_eq!(as_task.data(), task.data());
        prop_assert_eq!(as_task.file("b.png"), task.file("b.png"));

        let direct = SendMessageResponse::Message(message.clone());
        prop_assert_eq!(direct.text(), expected_text(&message.parts));
        prop_assert_eq!(direct.text(), message.text());
        prop_assert_eq!(direct.data(), expected_data(&message.parts));
        prop_assert_eq!(direct.file("c"), expected_file(&message.parts, "c"));
    }

    #[test]
    fn an_artifact_s_text_is_its_text_parts_joined(parts in proptest::collection::vec(part(), 0..6)) {
        let artifact = a2a_typestate_types::Artifact::new("a", parts.clone());
        prop_assert_eq!(artifact.text(), expected_text(&parts));
        prop_assert_eq!(artifact.data(), expected_data(&parts));
    }
}
