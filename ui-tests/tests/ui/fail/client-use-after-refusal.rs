// `settle_streaming` takes the task handle: after a refusal only the single-shot one is left.
use a2a_typestate_client::{Claims, Streaming, Task};
use a2a_typestate_types::Message;

async fn stream_again(mut task: Task<Claims<Streaming>>) {
    if let Err(refusal) = task.settle_streaming() {
        let _fallback = refusal.into_task();
        let _answer = task.send_streaming_message(Message::user("hi").with_message_id("m2")).await; //~ ERROR E0382
    }
}

fn main() {
    let _ = stream_again;
}
