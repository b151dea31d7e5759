//! The README quickstart, runnable: the typed handle, a refusal and its single-shot fallback, and
//! the suspect mark that makes the next task go single-shot at once.
//!
//! `cargo run -p a2a-typestate-client --example quickstart -- URL` runs it twice against the agent
//! at URL (its base URL, or its card's URL); with no URL it runs against two embedded agents, one
//! honest and one whose card claims streaming it answers "not supported" to. CI runs the same code
//! against the official Python and JS SDK servers (`a2a-client/tests/quickstart.rs`).

// README quickstart: begin
use a2a_typestate_client::{
    Answer, Claims, Client, Error, Message, SendMessageResponse, Settlement, Streaming, StreamingVerified,
    Task, TaskEntry,
};

/// What became of one task.
#[derive(Debug)]
pub enum Ran {
    /// The streaming claim held: from here the stream alone can be relied on.
    Verified(Box<Task<Claims<StreamingVerified>>>),
    /// Not settled yet, and why.
    Pending(String),
    /// The card lied: the refusal, and the single-shot fallback's answer.
    FellBack {
        /// The contradiction, in words.
        refusal: String,
        /// What the single-shot send answered.
        fallback: Answer<SendMessageResponse>,
    },
    /// The agent was caught lying before (its mark is inside its TTL): single-shot at once.
    SingleShot {
        /// The suspect mark, in words.
        mark: String,
        /// What the single-shot send answered.
        answer: Answer<SendMessageResponse>,
    },
}

/// Asks `agent` for the weather on a path that depends on streaming.
pub async fn weather(client: &Client, agent: &str) -> Result<Ran, Error> {
    // The claim this code depends on, in the handle's type. An honest 1.0 card can make it (1.0
    // cards carry no history claim: `History` comes only from 0.3 cards or the legacy field).
    let mut task: Task<Claims<Streaming>> = match client.task(agent).await? {
        TaskEntry::Claimed(task) => task,
        TaskEntry::Suspect(mut single_shot, mark) => {
            let answer = single_shot.send_message(Message::user("weather in Lisbon")).await?;
            return Ok(Ran::SingleShot { mark: mark.to_string(), answer });
        }
    };
    // A contradiction ("not supported", a stream without the artifact) is no error: it is recorded.
    task.send_streaming_message(Message::user("weather in Lisbon")).await?;
    match task.settle_streaming() {
        Ok(Settlement::Verified(task)) => {
            let _ = task.handle().rely_on_streaming(); // compiles only once verified
            Ok(Ran::Verified(Box::new(task)))
        }
        Ok(Settlement::Pending(_task, why)) => Ok(Ran::Pending(why.to_string())),
        Err(refusal) => {
            // The agent is marked suspect now; only the single-shot send is left on this handle.
            let refused = refusal.violation().to_string();
            let mut single_shot = refusal.into_task();
            let fallback = single_shot.send_message(Message::user("weather in Lisbon")).await?;
            Ok(Ran::FellBack { refusal: refused, fallback })
        }
    }
}
// README quickstart: end

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::builder().build()?;
    let mut embedded = Vec::new();
    let agents: Vec<String> = match std::env::args().nth(1) {
        Some(url) => vec![url],
        None => {
            use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
            let streaming = Capabilities::none().with_streaming();
            let honest = ScriptedAgent::builder().capabilities(streaming.clone()).spawn().await?;
            let liar = ScriptedAgent::builder()
                .capabilities(streaming)
                .script(Script::honest().with(Lie::StreamingRefused))
                .spawn()
                .await?;
            let urls = vec![honest.base_url(), liar.base_url()];
            embedded.extend([honest, liar]);
            urls
        }
    };
    for agent in &agents {
        for run in 1..=2 {
            match weather(&client, agent).await? {
                Ran::Verified(task) => {
                    println!("{agent} (run {run}): streaming verified, {:?}", task.state())
                }
                Ran::Pending(why) => println!("{agent} (run {run}): not settled yet: {why}"),
                Ran::FellBack { refusal, fallback } => {
                    println!("{agent} (run {run}): refused: {refusal}");
                    println!("  fallback result: {:?}", state_of(&fallback));
                }
                Ran::SingleShot { mark, answer } => {
                    println!("{agent} (run {run}): suspect ({mark}), single-shot: {:?}", state_of(&answer));
                }
            }
        }
    }
    let metrics = client.metrics().snapshot();
    println!(
        "negotiation round trips {}, fallbacks {}, suspect single-shots {}",
        metrics.negotiation_round_trips, metrics.fallbacks, metrics.suspect_single_shots
    );
    for agent in embedded {
        agent.shutdown().await;
    }
    Ok(())
}

fn state_of(answer: &Answer<SendMessageResponse>) -> Option<a2a_typestate_client::TaskState> {
    match answer.answered()? {
        SendMessageResponse::Task(task) => Some(task.state()),
        SendMessageResponse::Message(_) => None,
    }
}
