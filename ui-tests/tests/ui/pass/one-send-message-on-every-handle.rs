// `send_message` takes the same message on a tracked handle and on the single-shot fallback.
use a2a_typestate_client::{Claims, Message, SingleShot, Streaming, Task};

async fn send_on_both(tracked: &mut Task<Claims<Streaming>>, single_shot: &mut Task<SingleShot>) {
    let _polled = tracked.send_message(Message::user("hi").with_message_id("m1")).await;
    let _blocking = single_shot.send_message(Message::user("hi").with_message_id("m2")).await;
}

fn main() {
    let _ = send_on_both;
}
