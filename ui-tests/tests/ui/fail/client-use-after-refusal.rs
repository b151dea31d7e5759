// `settle_streaming` takes the typed task: after a refusal only the single-shot one is left.
use a2a_client::TypedTask;
use a2a_types::{Message, SendMessageRequest};
use a2a_typestate::{Claims, NoHistory, NoPush, StreamingClaimed};

async fn stream_again(mut task: TypedTask<Claims<StreamingClaimed, NoHistory, NoPush>>) {
    let now = task.elapsed();
    if let Err(refusal) = task.settle_streaming(now) {
        let _fallback = refusal.into_task();
        let again = SendMessageRequest::new(Message::user_text("m2", "hi"));
        let _events = task.send_streaming(again).await; //~ ERROR E0382
    }
}

fn main() {
    let _ = stream_again;
}
