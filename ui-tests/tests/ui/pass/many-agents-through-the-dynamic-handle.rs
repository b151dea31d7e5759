// Code holding many agents keeps `DynTask`s and narrows each to what it depends on; a failed
// narrowing hands the handle back.
use a2a_typestate::{Claims, DynTask, History, NoStreaming, Push, Streaming, Task};

fn main() {
    let fleet: Vec<DynTask> = vec![
        ui_tests::dyn_task(r#"{"streaming":true}"#),
        ui_tests::dyn_task(r#"{"pushNotifications":true,"stateTransitionHistory":true}"#),
        ui_tests::dyn_task(r#"{}"#),
    ];
    for handle in fleet {
        match Task::<Claims<Streaming>>::try_from(handle) {
            Ok(streaming) => {
                let _ = streaming.stream_permit();
            }
            Err(err) => match Task::<Claims<NoStreaming, History, Push>>::try_from(err.into_handle()) {
                Ok(task) => {
                    let _ = (task.history_permit(), task.push_permit());
                }
                Err(err) => {
                    let polling: Task<Claims> = Task::try_from(err.into_handle()).unwrap();
                    let _ = (polling.send_permit(), polling.poll_permit());
                }
            },
        }
    }
}
