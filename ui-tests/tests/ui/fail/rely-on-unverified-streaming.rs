// Relying on the stream alone needs the streaming claim verified, not merely declared.
use a2a_typestate::{Claims, NoHistory, NoPush, Streaming, Handle};

fn main() {
    let task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _reliance = task.rely_on_streaming(); //~ ERROR E0277
}
