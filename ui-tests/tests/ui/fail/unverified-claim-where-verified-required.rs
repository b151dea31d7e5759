// Code written for a verified streaming claim does not accept an unverified one.
use a2a_typestate::{Claims, HasVerifiedStreaming, NoHistory, NoPush, Streaming, Handle};

fn watch_by_stream_only<S: HasVerifiedStreaming>(task: &Handle<Claims<S, NoHistory, NoPush>>) {
    let _ = task.rely_on_streaming();
}

fn main() {
    let task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    watch_by_stream_only(&task); //~ ERROR E0277
}
