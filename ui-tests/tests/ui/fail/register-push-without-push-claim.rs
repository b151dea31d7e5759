// Registering a push callback needs a pushNotifications claim.
use a2a_typestate::{Claims, NoHistory, NoPush, Streaming, Task};

fn main() {
    let task: Task<Claims<Streaming, NoHistory, NoPush>> =
        Task::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _permit = task.push_permit(); //~ ERROR E0277
}
