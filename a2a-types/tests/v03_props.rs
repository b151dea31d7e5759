//! Properties over generated 0.3 stream results: they read back as written, convert to 1.0 and
//! back without loss, and a `final` that disagrees with the state is always reported.

use a2a_typestate_types::v03::{
    Artifact, DataPart, FileContent, FilePart, FileSource, Message, Part, Role, StreamResult, Task,
    TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent, TextPart,
};
use a2a_typestate_types::{JsonText, Metadata};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn id() -> impl Strategy<Value = String> {
    "[a-z0-9-]{1,8}"
}

fn metadata() -> impl Strategy<Value = Option<Metadata>> {
    prop::option::of(prop::collection::btree_map("[a-z]{1,4}", any::<i32>(), 0..3).prop_map(|m| {
        m.into_iter().map(|(k, v)| (k, JsonText::from_value(&Value::from(v)))).collect::<Metadata>()
    }))
}

fn part() -> impl Strategy<Value = Part> {
    let text = (".{0,12}", metadata()).prop_map(|(text, metadata)| Part::Text(TextPart { text, metadata }));
    let source = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..16).prop_map(FileSource::Bytes),
        "https://[a-z]{1,6}\\.example/[a-z]{0,6}".prop_map(FileSource::Uri),
    ];
    let file =
        (source, prop::option::of("[a-z]+/[a-z]+"), prop::option::of("[a-z]{1,6}\\.[a-z]{2,3}"), metadata())
            .prop_map(|(source, mime_type, name, metadata)| {
                Part::File(FilePart { file: FileContent { source, mime_type, name }, metadata })
            });
    let data = (prop::collection::btree_map("[a-z]{1,4}", any::<i32>(), 0..3), metadata()).prop_map(
        |(data, metadata)| {
            let data = data.into_iter().map(|(k, v)| (k, Value::from(v))).collect::<Map<String, Value>>();
            Part::Data(DataPart { data, metadata })
        },
    );
    prop_oneof![text, file, data]
}

fn message() -> impl Strategy<Value = Message> {
    (
        id(),
        prop::option::of(id()),
        prop::option::of(id()),
        prop_oneof![Just(Role::User), Just(Role::Agent)],
        prop::collection::vec(part(), 1..3),
        metadata(),
        prop::collection::vec("https://ext\\.example/[a-z]{1,4}", 0..2),
        prop::collection::vec(id(), 0..2),
    )
        .prop_map(|(message_id, context_id, task_id, role, parts, metadata, extensions, refs)| Message {
            message_id: message_id.into(),
            context_id: context_id.map(Into::into),
            task_id: task_id.map(Into::into),
            role,
            parts,
            metadata,
            extensions,
            reference_task_ids: refs.into_iter().map(Into::into).collect(),
        })
}

fn state() -> impl Strategy<Value = TaskState> {
    prop::sample::select(vec![
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::AuthRequired,
        TaskState::Unknown,
    ])
}

fn status() -> impl Strategy<Value = TaskStatus> {
    (state(), prop::option::of(message()), prop::option::of(Just("2026-11-29T20:03:15.579653Z".to_owned())))
        .prop_map(|(state, message, timestamp)| TaskStatus { state, message, timestamp })
}

fn artifact() -> impl Strategy<Value = Artifact> {
    (
        id(),
        prop::option::of("[a-z ]{1,8}"),
        prop::option::of("[a-z ]{1,8}"),
        prop::collection::vec(part(), 1..3),
        metadata(),
    )
        .prop_map(|(artifact_id, name, description, parts, metadata)| Artifact {
            artifact_id: artifact_id.into(),
            name,
            description,
            parts,
            metadata,
            extensions: Vec::new(),
        })
}

fn stream_result() -> impl Strategy<Value = StreamResult> {
    let task = (
        id(),
        id(),
        status(),
        prop::collection::vec(artifact(), 0..2),
        prop::collection::vec(message(), 0..2),
        metadata(),
    )
        .prop_map(|(id, context_id, status, artifacts, history, metadata)| {
            StreamResult::Task(Task {
                id: id.into(),
                context_id: context_id.into(),
                status,
                artifacts,
                history,
                metadata,
            })
        });
    let status_update =
        (id(), id(), status(), metadata()).prop_map(|(task_id, context_id, status, metadata)| {
            let is_final = status.state.ends_stream();
            StreamResult::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task_id.into(),
                context_id: context_id.into(),
                status,
                is_final,
                metadata,
            })
        });
    let artifact_update = (id(), id(), artifact(), any::<bool>(), any::<bool>(), metadata()).prop_map(
        |(task_id, context_id, artifact, append, last_chunk, metadata)| {
            StreamResult::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: task_id.into(),
                context_id: context_id.into(),
                artifact,
                append,
                last_chunk,
                metadata,
            })
        },
    );
    prop_oneof![task, message().prop_map(StreamResult::Message), status_update, artifact_update]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn v03_stream_results_write_and_read_back_equal(result in stream_result()) {
        let json = serde_json::to_string(&result).unwrap();
        let back: StreamResult = a2a_typestate_types::parse::from_str(&json).unwrap();
        prop_assert_eq!(back, result);
    }

    #[test]
    fn v03_stream_results_convert_to_v1_and_back_without_loss(result in stream_result()) {
        let v1 = result.to_v1();
        prop_assert!(v1.is_lossless(), "{:?}", v1.losses);
        // The 1.0 value survives 1.0 JSON, so nothing hides in a field 1.0 does not write.
        let json = serde_json::to_string(&v1.value).unwrap();
        let reread: a2a_typestate_types::StreamResponse = a2a_typestate_types::parse::from_str(&json).unwrap();
        let back = StreamResult::from_v1(&reread);
        prop_assert!(back.is_lossless(), "{:?}", back.losses);
        prop_assert_eq!(back.value, result);
    }

    #[test]
    fn final_disagreeing_with_the_state_is_always_reported(status in status(), is_final in any::<bool>()) {
        let event = TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            is_final,
            status,
            metadata: None,
        };
        let converted = event.to_v1();
        let final_losses = converted.losses.iter().filter(|l| l.path == "final").count();
        prop_assert_eq!(final_losses, usize::from(is_final != event.status.state.ends_stream()));
    }
}
