// Code holding many agents keeps `DynHandle`s and narrows each to what it depends on; a failed
// narrowing hands the handle back.
use a2a_typestate::{Claims, DynHandle, History, NoStreaming, Push, Streaming, Handle};

fn main() {
    let fleet: Vec<DynHandle> = vec![
        ui_tests::dyn_task(r#"{"streaming":true}"#),
        ui_tests::dyn_task(r#"{"pushNotifications":true,"stateTransitionHistory":true}"#),
        ui_tests::dyn_task(r#"{}"#),
    ];
    for handle in fleet {
        match Handle::<Claims<Streaming>>::try_from(handle) {
            Ok(streaming) => {
                let _ = streaming.stream_permit();
            }
            Err(err) => match Handle::<Claims<NoStreaming, History, Push>>::try_from(err.into_handle()) {
                Ok(task) => {
                    let _ = (task.history_permit(), task.push_permit());
                }
                Err(err) => {
                    let polling: Handle<Claims> = Handle::try_from(err.into_handle()).unwrap();
                    let _ = (polling.send_permit(), polling.poll_permit());
                }
            },
        }
    }
}
