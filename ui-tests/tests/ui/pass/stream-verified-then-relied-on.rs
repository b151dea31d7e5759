// The intended streaming flow: narrow, exercise the claim, report what the stream delivered,
// settle, and only then rely on the stream alone.
use std::time::Duration;

use a2a_typestate_types::{ContextId, TaskId, TaskState};
use a2a_typestate::{
    Channel, Claims, ExchangeModes, NoHistory, NoPush, Observed, Settlement, Streaming, StreamingVerified,
    Handle,
};

fn main() {
    let mut task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let permit = task.stream_permit();
    assert!(permit.must_confirm_artifacts());

    let status = |state| Observed::Status {
        task_id: TaskId::new("t"),
        context_id: Some(ContextId::new("c")),
        state,
        message: None,
        via: Channel::Stream,
        artifacts: None,
    };
    let ms = Duration::from_millis;
    task.observe(ms(0), Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None })
        .unwrap();
    task.observe(ms(1), status(TaskState::Working)).unwrap();
    task.observe(ms(2), Observed::Artifact { via: Channel::Stream }).unwrap();
    task.observe(ms(3), status(TaskState::Completed)).unwrap();

    match task.settle_streaming(ms(3)) {
        Ok(Settlement::Verified(task)) => {
            let task: Handle<Claims<StreamingVerified, NoHistory, NoPush>> = task;
            let _ = task.rely_on_streaming();
        }
        Ok(Settlement::Pending(task, pending)) => {
            let _ = (task.stream_permit(), pending.advice());
        }
        Err(refusal) => {
            let _ = refusal.into_task().single_shot_send();
        }
    }
}
