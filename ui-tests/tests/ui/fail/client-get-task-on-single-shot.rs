// After a refusal the handle is `Task<SingleShot>`: it tracks no task to poll.
use a2a_typestate_client::{SingleShot, Task};

async fn poll(task: &mut Task<SingleShot>) {
    let _task = task.get_task().await; //~ ERROR E0277
}

fn main() {
    let _ = poll;
}
