//! Reading an answer: the text, the data and the files of a [`Message`], an [`Artifact`], a
//! [`Task`] and a [`SendMessageResponse`], each read by the same three methods.
//!
//! An agent can put its answer in artifacts, in messages or in the status message, and each of
//! those holds parts of several kinds. `text()`, `data()` and `file(name)` read it wherever it is,
//! so a caller does not walk artifacts, messages and parts by hand. On a task (and on a
//! `SendMessage` result that is one) they read [`Task::answer_parts`].

use serde_json::Value;

use crate::JsonText;
use crate::v1::events::SendMessageResponse;
use crate::v1::message::{Message, Part, PartContent};
use crate::v1::task::{Artifact, Task};

/// The text parts among `parts`, joined with newlines; `None` when there is none. The one
/// implementation behind every `text()`, so that they all join alike.
fn joined_text<'a>(parts: impl IntoIterator<Item = &'a Part>) -> Option<String> {
    let mut texts = parts.into_iter().filter_map(Part::as_text);
    let mut joined = texts.next()?.to_owned();
    for text in texts {
        joined.push('\n');
        joined.push_str(text);
    }
    Some(joined)
}

/// The values of the data parts among `parts`, in order, each parsed from the text it came in.
fn data_values<'a>(parts: impl IntoIterator<Item = &'a Part>) -> Vec<Value> {
    parts.into_iter().filter_map(Part::as_data).map(JsonText::value).collect()
}

/// The first file part among `parts` (inline bytes or a link) whose file name is `name`.
fn file_named<'a>(parts: impl IntoIterator<Item = &'a Part>, name: &str) -> Option<&'a Part> {
    parts.into_iter().find(|part| {
        matches!(part.content, PartContent::Raw(_) | PartContent::Url(_))
            && part.filename.as_deref() == Some(name)
    })
}

impl Message {
    /// The text parts joined with newlines, or `None` when there is no text part: what a person
    /// reads of the message.
    pub fn text(&self) -> Option<String> {
        joined_text(&self.parts)
    }

    /// The values of the data parts, in order, each parsed (the structured answer an agent sends
    /// beside or instead of text). Empty when there is none.
    pub fn data(&self) -> Vec<Value> {
        data_values(&self.parts)
    }

    /// The first file part (inline bytes or a link) named `name` ([`Part::filename`]); read its
    /// content with [`Part::as_raw`] or [`Part::as_url`].
    pub fn file(&self, name: &str) -> Option<&Part> {
        file_named(&self.parts, name)
    }
}

impl Artifact {
    /// The text parts joined with newlines, or `None` when there is no text part: what a person
    /// reads of the artifact.
    pub fn text(&self) -> Option<String> {
        joined_text(&self.parts)
    }

    /// The values of the data parts, in order, each parsed. Empty when there is none.
    pub fn data(&self) -> Vec<Value> {
        data_values(&self.parts)
    }

    /// The first file part (inline bytes or a link) named `name` ([`Part::filename`]).
    pub fn file(&self, name: &str) -> Option<&Part> {
        file_named(&self.parts, name)
    }
}

impl Task {
    /// The answer's text: the text parts of [`answer_parts`](Self::answer_parts) joined with
    /// newlines, or `None` when they hold no text. That is the artifacts' text when the task has
    /// artifacts, else the agent's messages since the client's last one, else the status message.
    ///
    /// ```
    /// use a2a_typestate_types::{Artifact, Part, Task, TaskState};
    /// use serde_json::json;
    ///
    /// let mut task = Task::new("t-1", TaskState::Completed);
    /// task.artifacts.push(Artifact::new(
    ///     "forecast",
    ///     vec![
    ///         Part::text("Sunny, 24 °C."),
    ///         Part::data(json!({"celsius": 24})),
    ///         Part::file_url("https://example.com/map.png", "image/png").with_filename("map.png"),
    ///     ],
    /// ));
    /// assert_eq!(task.text().as_deref(), Some("Sunny, 24 °C."));
    /// assert_eq!(task.data(), [json!({"celsius": 24})]);
    /// assert_eq!(task.file("map.png").and_then(|part| part.as_url()), Some("https://example.com/map.png"));
    /// ```
    pub fn text(&self) -> Option<String> {
        joined_text(self.answer_parts())
    }

    /// The values of the data parts of [`answer_parts`](Self::answer_parts), in order, each
    /// parsed. Empty when there is none.
    pub fn data(&self) -> Vec<Value> {
        data_values(self.answer_parts())
    }

    /// The first file part (inline bytes or a link) named `name` among
    /// [`answer_parts`](Self::answer_parts).
    pub fn file(&self, name: &str) -> Option<&Part> {
        file_named(self.answer_parts(), name)
    }
}

impl SendMessageResponse {
    /// The answer's text: the message's ([`Message::text`]) or the task's ([`Task::text`]).
    pub fn text(&self) -> Option<String> {
        joined_text(self.answer_parts())
    }

    /// The values of the answer's data parts, in order, each parsed: the message's, or those of
    /// the task's [`answer_parts`](Task::answer_parts).
    pub fn data(&self) -> Vec<Value> {
        data_values(self.answer_parts())
    }

    /// The first file part (inline bytes or a link) named `name` in the answer: the message's, or
    /// among the task's [`answer_parts`](Task::answer_parts).
    pub fn file(&self, name: &str) -> Option<&Part> {
        file_named(self.answer_parts(), name)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::v1::enums::TaskState;
    use crate::{parse, v1::events::SendMessageResponse};

    fn completed() -> Task {
        Task::new("t-1", TaskState::Completed)
    }

    #[test]
    fn text_parts_are_joined_with_newlines_and_other_parts_left_out() {
        let parts =
            vec![Part::text("one"), Part::data(json!(1)), Part::url("https://x.test/f"), Part::text("two")];
        assert_eq!(Message::new("m", crate::Role::Agent, parts.clone()).text().as_deref(), Some("one\ntwo"));
        assert_eq!(Artifact::new("a", parts).text().as_deref(), Some("one\ntwo"));
    }

    #[test]
    fn no_text_part_is_no_text_but_an_empty_text_part_is_empty_text() {
        assert_eq!(
            Artifact::new("a", vec![Part::data(json!({"k": 1})), Part::raw(b"x".to_vec())]).text(),
            None
        );
        assert_eq!(Artifact::new("a", Vec::new()).text(), None);
        assert_eq!(completed().text(), None, "a task with no answer yet");
        assert_eq!(Artifact::new("a", vec![Part::text("")]).text().as_deref(), Some(""));
    }

    #[test]
    fn a_task_s_text_is_its_artifacts_then_the_agent_s_messages_since_the_client_s_then_the_status_message() {
        let mut task = completed();
        task.status.message = Some(Message::agent("from the status"));
        task.history = vec![Message::user("question")];
        assert_eq!(task.text().as_deref(), Some("from the status"));

        task.history = vec![
            Message::agent("old answer"),
            Message::user("again"),
            Message::agent("new"),
            Message::agent("answer"),
        ];
        assert_eq!(task.text().as_deref(), Some("new\nanswer"), "messages since the client's last");

        task.artifacts = vec![
            Artifact::new("a-1", vec![Part::text("first")]),
            Artifact::new("a-2", vec![Part::text("second")]),
        ];
        assert_eq!(task.text().as_deref(), Some("first\nsecond"), "artifacts, in order, win");
    }

    #[test]
    fn artifacts_without_text_hide_the_status_message_s_text() {
        // The rule picks where the answer is, then reads its text: the artifacts hold the answer.
        let mut task = completed();
        task.status.message = Some(Message::agent("done"));
        task.artifacts = vec![Artifact::new("chart", vec![Part::raw(b"\x89PNG".to_vec())])];
        assert_eq!(task.text(), None);
    }

    #[test]
    fn a_send_message_result_reads_its_message_or_its_task() {
        let message = SendMessageResponse::Message(Message::agent("hi"));
        assert_eq!(message.text().as_deref(), Some("hi"));
        let mut task = completed();
        task.artifacts = vec![Artifact::new("a", vec![Part::text("from the task"), Part::data(json!([1]))])];
        let answer = SendMessageResponse::Task(task.clone());
        assert_eq!(answer.text(), task.text());
        assert_eq!(answer.data(), [json!([1])]);
        assert_eq!(answer.answer_parts(), task.answer_parts());
    }

    #[test]
    fn data_parts_are_read_parsed_in_order() {
        let answer: Task = parse::from_str(
            r#"{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[
                {"artifactId":"a","parts":[{"data":{"b": [1, 2]}},{"text":"t"},{"data":null}]},
                {"artifactId":"b","parts":[{"data":"s"}]}]}"#,
        )
        .unwrap();
        assert_eq!(answer.data(), [json!({"b": [1, 2]}), Value::Null, json!("s")]);
        assert_eq!(answer.artifacts[0].data(), [json!({"b": [1, 2]}), Value::Null]);
        let part = &answer.artifacts[0].parts[0];
        assert_eq!(part.as_data().map(JsonText::get), Some(r#"{"b": [1, 2]}"#), "kept as it came");
        assert_eq!(answer.artifacts[0].parts[1].as_data(), None);
        assert!(Message::agent("text only").data().is_empty());
    }

    #[test]
    fn a_file_is_found_by_name_among_bytes_and_link_parts_only() {
        let parts = vec![
            Part::text("report.pdf").with_filename("notes.txt"),
            Part::file_bytes(b"%PDF".to_vec(), "application/pdf").with_filename("report.pdf"),
            Part::file_url("https://x.test/map.png", "image/png").with_filename("map.png"),
            Part::file_url("https://x.test/other.pdf", "application/pdf").with_filename("report.pdf"),
        ];
        let artifact = Artifact::new("a", parts.clone());
        assert_eq!(artifact.file("report.pdf").and_then(Part::as_raw), Some(&b"%PDF"[..]), "the first");
        assert_eq!(artifact.file("map.png").and_then(Part::as_url), Some("https://x.test/map.png"));
        assert_eq!(artifact.file("notes.txt"), None, "a text part is not a file");
        assert_eq!(artifact.file("missing"), None);
        assert_eq!(artifact.file(""), None);
        let message = Message::new("m", crate::Role::Agent, parts);
        assert_eq!(message.file("map.png"), artifact.file("map.png"));

        let mut task = completed();
        task.artifacts = vec![Artifact::new("x", Vec::new()), artifact];
        assert_eq!(task.file("map.png").and_then(Part::as_url), Some("https://x.test/map.png"));
        assert_eq!(SendMessageResponse::Task(task.clone()).file("map.png"), task.file("map.png"));
    }

    #[test]
    fn a_part_says_what_it_holds() {
        let data = Part::data(json!({"a": 1}));
        assert_eq!(data.as_data().map(JsonText::value), Some(json!({"a": 1})));
        assert_eq!((data.as_text(), data.as_raw(), data.as_url()), (None, None, None));
        assert_eq!(Part::raw(vec![1, 2]).as_raw(), Some(&[1_u8, 2][..]));
        assert_eq!(Part::url("u").as_url(), Some("u"));
        assert_eq!(Part::url("u").as_data(), None);
    }
}
