// After a refusal the handle is `Task<SingleShot>`: a gated call names the missing claim.
use a2a_typestate_client::{SingleShot, Task};
use a2a_typestate_types::Message;

async fn stream(task: &mut Task<SingleShot>) {
    let _answer = task.send_streaming_message(Message::user_text("m1", "hi")).await; //~ ERROR E0277
}

fn main() {
    let _ = stream;
}
