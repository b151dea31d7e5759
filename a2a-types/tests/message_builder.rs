//! The message builder and the short forms: what a user writes instead of hand-made ids.

use a2a_typestate_types::{
    ContextId, Message, MessageBuilder, MessageId, Part, PartContent, Role, TaskId, parse,
};
use serde_json::json;

#[test]
fn message_builder_gives_a_random_id_unless_set() {
    let first = Message::builder(Role::User).text("hi").build();
    let second = Message::builder(Role::User).text("hi").build();
    assert!(!first.message_id.is_empty());
    assert_ne!(first.message_id, second.message_id, "two messages, two ids");
    let set = Message::builder(Role::User).message_id("m-1").text("hi").build();
    assert_eq!(set.message_id, MessageId::new("m-1"));
    let empty = Message::builder(Role::User).message_id("").text("hi").build();
    assert!(!empty.message_id.is_empty(), "an empty id is the ProtoJSON 'not set'");
}

#[test]
fn random_message_ids_are_distinct_uuids() {
    let ids: std::collections::HashSet<String> =
        (0..1000).map(|_| MessageId::random().into_string()).collect();
    assert_eq!(ids.len(), 1000);
    for id in ids.iter().take(10) {
        let groups: Vec<usize> = id.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{id}");
    }
}

#[test]
fn short_forms_make_one_text_part_with_a_fresh_id() {
    let user = Message::user("hello");
    assert_eq!(user.role, Role::User);
    assert_eq!(user.parts, [Part::text("hello")]);
    assert_ne!(user.message_id, Message::user("hello").message_id);
    let agent = Message::agent("done");
    assert_eq!(agent.role, Role::Agent);
    assert_eq!(agent.text().as_deref(), Some("done"));
}

#[test]
fn the_builder_sets_every_field_and_keeps_parts_in_order() {
    let msg = MessageBuilder::new(Role::User)
        .message_id("m-9")
        .text("look at these")
        .file_bytes(vec![1, 2, 3], "image/png")
        .file_url("https://files.example/a.csv", "text/csv")
        .part(Part::file_bytes(b"x".to_vec(), "text/plain").with_filename("x.txt"))
        .data(json!({"k": [1, 2]}))
        .metadata("a", json!(1))
        .metadata("b", json!("two"))
        .extension("https://ext.example/one")
        .extension("https://ext.example/two")
        .reference_task("t-0")
        .reference_task("t-00")
        .context_id("c-1")
        .task_id("t-1")
        .build();
    assert_eq!(msg.parts.len(), 5);
    assert_eq!(msg.parts[0].content, PartContent::Text("look at these".into()));
    assert_eq!(msg.parts[1].content, PartContent::Raw(vec![1, 2, 3]));
    assert_eq!(msg.parts[1].media_type.as_deref(), Some("image/png"));
    assert_eq!(msg.parts[2].content, PartContent::Url("https://files.example/a.csv".into()));
    assert_eq!(msg.parts[2].media_type.as_deref(), Some("text/csv"));
    assert_eq!(msg.parts[3].filename.as_deref(), Some("x.txt"));
    assert!(matches!(&msg.parts[4].content, PartContent::Data(d) if d.value() == json!({"k": [1, 2]})));
    let metadata = msg.metadata.clone().unwrap();
    assert_eq!((metadata.value("a"), metadata.value("b")), (Some(json!(1)), Some(json!("two"))));
    assert_eq!(msg.extensions, ["https://ext.example/one", "https://ext.example/two"]);
    assert_eq!(msg.reference_task_ids, [TaskId::new("t-0"), TaskId::new("t-00")]);
    assert_eq!(msg.context_id, Some(ContextId::new("c-1")));
    assert_eq!(msg.task_id, Some(TaskId::new("t-1")));
    // What was built reads back as the same message from its wire form.
    let wire = serde_json::to_string(&msg).unwrap();
    let read: Message = parse::from_str(&wire).unwrap();
    assert_eq!(read, msg);
}

#[test]
fn a_part_names_its_own_media_type_else_the_one_its_content_implies() {
    assert_eq!(Part::text("hi").implied_media_type(), Some("text/plain"));
    assert_eq!(Part::data(json!({"a": 1})).implied_media_type(), Some("application/json"));
    assert_eq!(Part::text("<p>").with_media_type("text/html").implied_media_type(), Some("text/html"));
    assert_eq!(Part::raw(vec![1, 2]).implied_media_type(), None, "bytes that do not say are no evidence");
    assert_eq!(Part::file_bytes(vec![1], "image/png").implied_media_type(), Some("image/png"));
}
