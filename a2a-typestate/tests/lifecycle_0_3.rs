//! A 0.3 agent's stream, read with `a2a_typestate_types::v03` and converted to 1.0, drives the same lifecycle:
//! 0.3 state names are mapped, and the end of a task comes from its state, never from `final`.

mod support;

use a2a_typestate::{Channel, Claims, DynHandle, Handle, Observed, Step, TaskEnd};
use a2a_typestate_types::v03::StreamResult;
use a2a_typestate_types::{TaskState, parse};
use support::*;

/// A 0.3 `message/stream` result, converted to the observation the client feeds the handle.
fn observed_0_3(json: &str) -> Observed {
    let result: StreamResult = parse::from_str(json).unwrap();
    Observed::from_stream_response(&result.to_v1().value, Channel::Stream).unwrap()
}

fn status_update_0_3(state: &str, is_final: bool) -> Observed {
    observed_0_3(&format!(
        r#"{{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","final":{is_final},
            "status":{{"state":"{state}"}}}}"#
    ))
}

fn polling_task() -> Handle<Claims> {
    Handle::try_from(DynHandle::new(claims("{}"), Default::default())).unwrap()
}

#[test]
fn a_0_3_stream_is_followed_with_its_states_mapped_to_1_0_names() {
    let mut task = polling_task();
    task.observe(ms(0), sent_text()).unwrap();
    let first = r#"{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"submitted"}}"#;
    assert_eq!(task.observe(ms(1), observed_0_3(first)).unwrap(), Some(Step::Entered(TaskState::Submitted)));
    task.observe(ms(2), status_update_0_3("working", false)).unwrap();
    let step = task.observe(ms(3), status_update_0_3("input-required", true)).unwrap();
    assert_eq!(step, Some(Step::Entered(TaskState::InputRequired)));
    assert_eq!(task.lifecycle().end(), Some(TaskEnd::Interrupted(TaskState::InputRequired)));

    task.observe(ms(4), follow_up()).unwrap();
    task.observe(ms(5), status_update_0_3("working", false)).unwrap();
    task.observe(ms(6), status_update_0_3("completed", true)).unwrap();
    assert_eq!(task.lifecycle().end(), Some(TaskEnd::Terminal(TaskState::Completed)));
}

#[test]
fn the_end_of_a_0_3_task_comes_from_its_state_not_the_final_flag() {
    // `final: true` on `working` (the agent closes the stream early) does not end the task...
    let mut task = polling_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status_update_0_3("working", true)).unwrap();
    assert_eq!(task.lifecycle().end(), None);
    assert!(!task.lifecycle().is_finished());

    // ...and `final: false` on `completed` does not keep it open.
    task.observe(ms(2), status_update_0_3("completed", false)).unwrap();
    assert!(task.lifecycle().is_finished());
}

#[test]
fn a_0_3_unknown_state_is_rejected_as_unspecified() {
    let mut task = polling_task();
    task.observe(ms(0), sent_text()).unwrap();
    task.observe(ms(1), status_update_0_3("working", false)).unwrap();
    let err = task.observe(ms(2), status_update_0_3("unknown", false)).unwrap_err();
    assert!(err.to_string().contains("unspecified (TASK_STATE_UNSPECIFIED) is not a task state"), "{err}");
    assert_eq!(task.state(), Some(TaskState::Working));
}
