// A typed task whose card claims streaming only cannot reconstruct missed states from history.
use a2a_client::TypedTask;
use a2a_typestate::{Claims, NoHistory, NoPush, StreamingClaimed};

async fn catch_up(task: &mut TypedTask<Claims<StreamingClaimed, NoHistory, NoPush>>) {
    let _task = task.reconstruct_history(Some(10)).await; //~ ERROR E0277
}

fn main() {
    let _ = catch_up;
}
