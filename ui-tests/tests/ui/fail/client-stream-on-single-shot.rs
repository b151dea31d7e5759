// After a refusal the handle is `Task<SingleShot>`: a gated call names the missing claim.
use a2a_typestate_client::{SingleShot, Task};
use a2a_typestate_types::Message;

async fn stream(task: &mut Task<SingleShot>) {
    let _answer = task.send_streaming_message(Message::user("hi").with_message_id("m1")).await; //~ ERROR E0277
}

fn main() {
    let _ = stream;
}
