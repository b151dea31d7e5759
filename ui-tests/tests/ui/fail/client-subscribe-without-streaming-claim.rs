// A task handle narrowed from a card without `streaming: true` cannot subscribe to the task's stream.
use a2a_typestate_client::{Claims, Task};

async fn follow(task: &mut Task<Claims>) {
    let _events = task.subscribe_to_task().await; //~ ERROR E0277
}

fn main() {
    let _ = follow;
}
