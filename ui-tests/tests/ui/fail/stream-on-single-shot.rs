// After a refusal the handle is `Task<SingleShot>`: it offers only the single-shot send.
use a2a_typestate::{SingleShot, Task};

fn main() {
    let task: Task<SingleShot> = Task::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _permit = task.stream_permit(); //~ ERROR E0277
}
