// A task handle whose card claims streaming only cannot register a push-notification callback.
use std::sync::Arc;

use a2a_typestate_client::{Claims, PushReceiver, Streaming, Task};

async fn watch(task: &mut Task<Claims<Streaming>>, receiver: Arc<PushReceiver>) {
    let _registration = task.create_task_push_notification_config(receiver).await; //~ ERROR E0277
}

fn main() {
    let _ = watch;
}
