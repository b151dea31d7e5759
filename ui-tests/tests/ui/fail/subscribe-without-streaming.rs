// A handle narrowed from a card without `streaming: true` cannot open a stream.
use a2a_typestate::{Claims, NoHistory, NoPush, NoStreaming, Handle};

fn main() {
    let task: Handle<Claims<NoStreaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":false}"#)).unwrap();
    let _permit = task.stream_permit(); //~ ERROR E0277
}
