// A handle narrowed from a card without `streaming: true` cannot open a stream.
use a2a_typestate::{Claims, NoHistory, NoPush, NoStreaming, Task};

fn main() {
    let task: Task<Claims<NoStreaming, NoHistory, NoPush>> =
        Task::try_from(ui_tests::dyn_task(r#"{"streaming":false}"#)).unwrap();
    let _permit = task.stream_permit(); //~ ERROR E0277
}
