use serde_json::{Value, json};

use super::*;
use crate::parse;
use crate::v03::{SendMessageResult, StreamResult, Task, TaskPushNotificationConfig};

fn read_answer(method: Method, mut value: Value) -> (Value, Read) {
    let read = answer(method, &mut value).unwrap();
    (value, read)
}

#[test]
fn a2a_python_s_task_answer_reads_as_the_0_3_task_with_its_status_message() {
    // BeeAI 0.1.85 (a2a-sdk 0.3.26), `POST /v1/message:send`, trimmed.
    let wire = json!({"task": {"id": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "m2", "contextId": "c1",
            "taskId": "t1", "role": "ROLE_AGENT", "content": [{"text": "Paris is the capital of France."}]}},
        "history": [{"messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_USER",
            "content": [{"text": "hello"}], "metadata": {}}]}});
    let (value, read) = read_answer(Method::MessageSend, wire);
    assert_eq!(read, Read::default());
    let SendMessageResult::Task(task) = parse::from_value(value).unwrap() else { panic!("a task") };
    let converted = task.to_v1();
    assert!(converted.losses.is_empty(), "{:?}", converted.losses);
    let task = converted.value;
    assert_eq!(task.status.state, crate::TaskState::Completed);
    assert_eq!(task.status.message.unwrap().parts[0].as_text(), Some("Paris is the capital of France."));
    assert_eq!(task.history[0].role, crate::Role::User);
}

#[test]
fn members_are_read_by_their_json_or_proto_field_names_and_enums_by_name_or_number() {
    let wire = json!({"msg": {"message_id": "m1", "context_id": "c1", "role": 2,
        "content": [{"file": {"file_with_uri": "https://f", "mime_type": "image/png"}},
            {"data": {"data": {"k": 1}}}]}});
    let (value, _) = read_answer(Method::MessageSend, wire);
    let SendMessageResult::Message(message) = parse::from_value(value).unwrap() else { panic!("a message") };
    assert_eq!(message.role, crate::v03::Role::Agent);
    assert_eq!(message.context_id.as_ref().map(|c| c.as_str()), Some("c1"));
    let crate::v03::Part::File(file) = &message.parts[0] else { panic!("a file part") };
    assert_eq!(file.file.source, crate::v03::FileSource::Uri("https://f".to_owned()));
    assert_eq!(file.file.mime_type.as_deref(), Some("image/png"));
    assert!(matches!(&message.parts[1], crate::v03::Part::Data(d) if d.data["k"] == 1));

    let (value, _) = read_answer(
        Method::TasksGet,
        json!({"id": "t1", "context_id": "c1", "status": {"state": 5, "update": null}}),
    );
    let task: Task = parse::from_value(value).unwrap();
    assert_eq!(task.status.state, crate::v03::TaskState::Canceled);
}

#[test]
fn members_left_out_are_the_proto_defaults() {
    let mut event = json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {}}});
    stream_response(&mut event).unwrap();
    let StreamResult::StatusUpdate(update) = parse::from_value(event).unwrap() else { panic!("an update") };
    assert!(!update.is_final, "`final` left out is false");
    assert_eq!(update.status.state, crate::v03::TaskState::Unknown, "no state is TASK_STATE_UNSPECIFIED");

    let mut event = json!({"artifactUpdate": {"taskId": "t1", "artifact": {"parts": [{"text": "a"}]}}});
    stream_response(&mut event).unwrap();
    let StreamResult::ArtifactUpdate(update) = parse::from_value(event).unwrap() else { panic!("an update") };
    assert!(!update.append && !update.last_chunk);
    assert_eq!(update.context_id.as_str(), "", "an id left out is the empty string");
}

#[test]
fn an_answer_in_the_json_rpc_shape_is_left_as_it_is_and_reported_as_a_deviation() {
    let kinded = json!({"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"}});
    for method in [Method::MessageSend, Method::TasksGet] {
        let (value, read) = read_answer(method, kinded.clone());
        assert_eq!(value, kinded, "{method}");
        let deviation = read.deviation.expect("a deviation");
        assert_eq!((deviation.kind, deviation.path.as_str()), (DeviationKind::V03JsonRpcShape, ""));
    }
    let mut event = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": true,
        "status": {"state": "completed"}});
    assert!(stream_response(&mut event).unwrap().deviation.is_some());
    let (_, read) = read_answer(Method::PushNotificationConfigList, json!([]));
    assert!(read.deviation.is_some(), "a bare array is the JSON-RPC listing");
    let config = json!({"taskId": "t1", "pushNotificationConfig": {"url": "https://h"}});
    assert!(read_answer(Method::PushNotificationConfigGet, config).1.deviation.is_some());
}

#[test]
fn a_proto_answer_that_does_not_fit_is_an_error_at_its_path_on_the_wire() {
    let error = |method, mut value: Value| answer(method, &mut value).unwrap_err();
    let no_content = json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "content": [{"text": "a"}, {"metadata": {}}]}});
    assert_eq!(error(Method::MessageSend, no_content).path(), "message.content[1]");
    let bad_state = json!({"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_CANCELED"}});
    let err = error(Method::TasksGet, bad_state);
    assert_eq!(err.path(), "status.state");
    assert!(err.message().contains("TASK_STATE_CANCELLED"), "{err}");
    let no_role = json!({"message": {"messageId": "m", "content": []}});
    assert_eq!(error(Method::MessageSend, no_role).path(), "message.role");
    assert_eq!(error(Method::MessageStream, json!({"other": {}})).path(), "");
    let nameless = json!({"pushNotificationConfig": {"url": "https://h"}});
    assert_eq!(error(Method::PushNotificationConfigGet, nameless).path(), "name");
}

#[test]
fn a_config_is_named_by_its_resource_name() {
    let wire = json!({"name": "tasks/t1/pushNotificationConfigs/c1",
        "pushNotificationConfig": {"url": "https://h", "token": "", "authentication": {"schemes": ["Bearer"]}}});
    let (value, _) = read_answer(Method::PushNotificationConfigSet, wire);
    let config: TaskPushNotificationConfig = parse::from_value(value).unwrap();
    assert_eq!(config.task_id.as_str(), "t1");
    assert_eq!(config.push_notification_config.id.as_deref(), Some("c1"), "the id the name gives");
    assert_eq!(config.push_notification_config.token, None, "an empty token is no token");

    let listing = json!({"configs": [{"name": "tasks/t1/pushNotificationConfigs/c1",
        "pushNotificationConfig": {"url": "https://h"}}], "nextPageToken": "p2"});
    let (value, read) = read_answer(Method::PushNotificationConfigList, listing);
    let configs: Vec<TaskPushNotificationConfig> = parse::from_value(value).unwrap();
    assert_eq!(configs.len(), 1);
    assert_eq!(read.losses[0].path, "nextPageToken", "the later pages are a loss");
}

#[test]
fn a_send_is_written_as_the_proto_send_message_request_with_blocking_always_set() {
    let params = json!({
        "message": {"kind": "message", "messageId": "m1", "contextId": "c1", "role": "user",
            "parts": [{"kind": "text", "text": "hi"}, {"kind": "file", "file": {"bytes": "aGk=", "name": "f"}},
                {"kind": "data", "data": {"k": 1}, "metadata": {"m": true}}],
            "referenceTaskIds": ["t0"]},
        "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 2,
            "pushNotificationConfig": {"url": "https://h", "token": "tok"}},
        "metadata": {"trace": "x"}});
    let written = request(Method::MessageSend, params);
    assert_eq!(
        written.value,
        json!({
            "message": {"messageId": "m1", "contextId": "c1", "role": "ROLE_USER",
                "content": [{"text": "hi"}, {"file": {"fileWithBytes": "aGk=", "name": "f"}},
                    {"data": {"data": {"k": 1}}, "metadata": {"m": true}}]},
            "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 2,
                "pushNotification": {"url": "https://h", "token": "tok"}, "blocking": true},
            "metadata": {"trace": "x"}})
    );
    assert_eq!(written.losses.len(), 1);
    assert_eq!(written.losses[0].path, "message.referenceTaskIds");

    let returning = json!({"message": {}, "configuration": {"blocking": false}});
    assert_eq!(request(Method::MessageStream, returning).value["configuration"]["blocking"], false);
}

#[test]
fn cancel_and_push_config_requests_name_their_task_as_the_proto_resource() {
    let cancel = request(Method::TasksCancel, json!({"id": "t1", "metadata": {"a": 1}}));
    assert_eq!(cancel.value, json!({"name": "tasks/t1"}));
    assert_eq!(cancel.losses[0].path, "metadata");

    let set = json!({"taskId": "t1", "pushNotificationConfig": {"id": "c1", "url": "https://h",
        "authentication": {"schemes": ["Bearer"]}}});
    assert_eq!(
        request(Method::PushNotificationConfigSet, set).value,
        json!({"parent": "tasks/t1", "configId": "c1", "config": {
            "name": "tasks/t1/pushNotificationConfigs/c1",
            "pushNotificationConfig": {"id": "c1", "url": "https://h", "authentication": {"schemes": ["Bearer"]}}}})
    );
    let get = json!({"id": "t1", "historyLength": 3});
    assert_eq!(request(Method::TasksGet, get.clone()).value, get, "a GET's params are its path and query");
}
