// A refusal consumes the typed handle and hands back the single-shot fallback with the evidence.
use std::time::Duration;

use a2a_typestate::{Call, Claims, ExchangeModes, NoHistory, NoPush, Observed, SingleShot, Streaming, Handle};

fn main() {
    let mut task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    task.observe(Duration::ZERO, Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None })
        .unwrap();
    task.observe(Duration::ZERO, Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 }).unwrap();

    let refusal = task.settle_streaming(Duration::ZERO).unwrap_err();
    let (fallback, violation): (Handle<SingleShot>, _) = refusal.into_parts();
    let _send = fallback.single_shot_send();
    let _ = (violation.capability(), violation.contradiction(), violation.evidence(), violation.advice());
}
