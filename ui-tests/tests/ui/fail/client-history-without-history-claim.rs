// A task handle whose card claims streaming only cannot rely on the task's history.
use a2a_typestate_client::{Claims, Streaming, Task};

async fn catch_up(task: &mut Task<Claims<Streaming>>) {
    let _task = task.get_task_history(10).await; //~ ERROR E0277
}

fn main() {
    let _ = catch_up;
}
