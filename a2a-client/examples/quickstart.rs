//! The README quickstart, runnable: the typed handle, a refusal and its fallback, and the suspect
//! mark that makes the next task go single-shot at once.
//!
//! `cargo run -p a2a-typestate-client --example quickstart -- URL QUESTION...` asks the agent at
//! URL (its base URL, or its card's URL) each question in turn, on a path that depends on
//! streaming. CI runs the built program against the official Python and JS SDK servers, honest
//! and lying (`a2a-client/tests/quickstart.rs`).

// README quickstart: begin
use a2a_typestate_client::negotiate::AfterRefusal;
use a2a_typestate_client::{Claims, Client, Message, Report, Settlement, Streaming, Task, TaskEntry};

#[tokio::main]
async fn main() -> Result<(), Report> {
    let mut args = std::env::args().skip(1);
    let agent = args.next().ok_or("usage: quickstart AGENT_URL QUESTION...")?;

    let client = Client::builder().build()?;
    // One task per question. After a refusal the agent is marked suspect: the next goes single-shot.
    for question in args {
        // The claim this code relies on is in the handle's type: `client.task` checks the card makes it.
        let mut task: Task<Claims<Streaming>> = match client.task(&agent).await? {
            TaskEntry::Claimed(task) => task,
            TaskEntry::Suspect(single_shot, mark) => {
                println!("suspect, single-shot at once: {mark}");
                let fallback =
                    single_shot.fall_back(Message::user(question), AfterRefusal::FollowToEnd).await?;
                println!("{}", fallback.text().unwrap_or_default());
                continue;
            }
        };
        // A contradiction ("not supported", a stream without its artifact) is no error: it is recorded.
        task.send_streaming_message(Message::user(question.clone())).await?;
        let text = match task.settle_streaming() {
            Ok(Settlement::Verified(task)) => task.result().and_then(|answer| answer.text()),
            Ok(Settlement::Pending(_task, why)) => Some(format!("not settled yet: {why}")),
            Err(refusal) => {
                // The agent is marked suspect; a task that had finished keeps its answer (no resend).
                println!("refused: {}", refusal.violation());
                let fallback =
                    refusal.into_task().fall_back(Message::user(question), AfterRefusal::FollowToEnd);
                fallback.await?.text()
            }
        };
        println!("{}", text.unwrap_or_default());
    }
    Ok(())
}
// README quickstart: end
