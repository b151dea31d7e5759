// A typed task whose card claims streaming only cannot register a push-notification callback.
use a2a_client::{PushReceiver, TypedTask};
use a2a_typestate::{Claims, NoHistory, NoPush, StreamingClaimed};

async fn watch(task: &mut TypedTask<Claims<StreamingClaimed, NoHistory, NoPush>>, receiver: &PushReceiver) {
    let _registration = task.register_push(receiver).await; //~ ERROR E0277
}

fn main() {
    let _ = watch;
}
