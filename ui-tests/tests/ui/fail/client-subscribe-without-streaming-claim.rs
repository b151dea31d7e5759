// A typed task narrowed from a card without `streaming: true` cannot subscribe to the task's stream.
use a2a_client::TypedTask;
use a2a_typestate::{Claims, NoHistory, NoPush, NoStreaming};

async fn follow(task: &mut TypedTask<Claims<NoStreaming, NoHistory, NoPush>>) {
    let _events = task.subscribe().await; //~ ERROR E0277
}

fn main() {
    let _ = follow;
}
