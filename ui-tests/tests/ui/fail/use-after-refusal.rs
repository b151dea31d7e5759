// `settle_streaming` takes the handle: after a refusal only the downgraded one is left.
use std::time::Duration;

use a2a_typestate::{Claims, NoHistory, NoPush, Streaming, Handle};

fn main() {
    let task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    if let Err(refusal) = task.settle_streaming(Duration::ZERO) {
        let _fallback = refusal.into_task().single_shot_send();
        let _again = task.stream_permit(); //~ ERROR E0382
    }
}
