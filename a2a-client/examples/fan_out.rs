//! One question to many agents at once, each answer (or why there is none) on its own line. The
//! deadline is the caller's: a hung agent holds its own task that long, and never the others'.
//!
//! `cargo run -p a2a-typestate-client --example fan_out -- "hello" http://127.0.0.1:9999/ ...`

use std::time::Duration;

use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Capability, Client, Message, Report};

#[tokio::main]
async fn main() -> Result<(), Report> {
    let mut args = std::env::args().skip(1);
    let question = args.next().ok_or("usage: fan_out QUESTION AGENT_URL...")?;

    // Each task ends within 10 s from discovery to answer, the fallback included: no agent costs more.
    let client = Client::builder().task_deadline(Duration::from_secs(10)).build()?;
    let needs = Negotiation::depending_on(&[Capability::Streaming]);
    let runs: Vec<_> = args
        .map(|agent| {
            let (client, needs, message) = (client.clone(), needs.clone(), Message::user(&question));
            tokio::spawn(async move { (client.run_task(&agent, message, &needs).await, agent) })
        })
        .collect();
    for run in runs {
        match run.await? {
            (Ok(outcome), agent) => {
                for refusal in outcome.refusals() {
                    println!("{agent}: refused: {refusal}");
                }
                println!("{agent}: {}", outcome.text().unwrap_or_default());
            }
            // `{:#}` puts the causes on the line: which bound ran out, which connection failed.
            (Err(error), agent) => println!("{agent}: no answer: {:#}", Report::from(error)),
        }
    }
    Ok(())
}
