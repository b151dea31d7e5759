// A single-shot handle tracks no task, so there is none of its own to cancel.
use a2a_typestate_client::{SingleShot, Task};

async fn cancel(task: &mut Task<SingleShot>) {
    let _task = task.cancel_task().await; //~ ERROR E0277
}

fn main() {
    let _ = cancel;
}
