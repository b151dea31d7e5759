//! A first program: ask an A2A agent one question on a path that depends on streaming, and print
//! the answer. The card's streaming claim is checked on the way, not trusted.
//!
//! `cargo run -p a2a-typestate-client --example first_program -- AGENT_URL [QUESTION]`

// README first program: begin
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client, Message, Report};

#[tokio::main]
async fn main() -> Result<(), Report> {
    let mut args = std::env::args().skip(1);
    let agent = args.next().ok_or("usage: first_program AGENT_URL [QUESTION]")?;
    let question = args.next().unwrap_or_else(|| "What is the weather in Lisbon?".to_owned());

    let client = Client::builder().build()?;
    // This program relies on the agent's stream: the card's claim to stream is checked, not trusted.
    let needs = Negotiation::depending_on(&[Capability::Streaming]);
    let outcome = client.run_task(&agent, Message::user(question), &needs).await?;

    for refusal in outcome.refusals() {
        println!("refused: {refusal}");
    }
    match outcome.path {
        TaskPath::Fallback => println!("the single-shot fallback answered:"),
        TaskPath::KeptAfterRefusal => println!("the task had already finished; its answer is kept:"),
        _ => {}
    }
    println!("{}", outcome.text().unwrap_or_else(|| "(an answer without text)".to_owned()));
    Ok(())
}
// README first program: end
