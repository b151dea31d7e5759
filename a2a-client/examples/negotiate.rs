//! Negotiate tasks with three embedded agents: one honest streamer, one whose card over-declares
//! streaming (the artifact only comes through `GetTask`), and the same liar again, now suspect.
//!
//! Run with `cargo run -p a2a-typestate-client --example negotiate`.

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client, Message, Report};

#[tokio::main]
async fn main() -> Result<(), Report> {
    let honest = ScriptedAgent::builder()
        .name("honest-streamer")
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await?;
    let liar = ScriptedAgent::builder()
        .name("artifact-hider")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await?;

    let client = Client::builder().build()?;
    // This caller's path depends on streaming; it answers clarification questions with one text.
    let negotiation = Negotiation::depending_on(&[Capability::Streaming])
        .follow_up(FollowUp::reply("metric units, please"));

    for (label, url) in [
        ("honest agent", honest.base_url()),
        ("lying agent", liar.base_url()),
        ("lying agent, again", liar.base_url()),
    ] {
        let message = Message::user("weather in Lisbon");
        match client.run_task(&url, message, &negotiation).await {
            Ok(outcome) => report(label, &outcome),
            Err(error) => println!("{label}: error ({:?}): {error}", error.kind()),
        }
    }

    let metrics = client.metrics().snapshot();
    println!();
    println!("negotiation round trips: {}", metrics.negotiation_round_trips);
    println!("refusals by capability:  {:?}", metrics.refusals);
    println!("refused results kept:    {}", metrics.refused_results_kept);
    println!("fallbacks:               {}", metrics.fallbacks);
    println!("retries:                 {}", metrics.retries);
    for (agent, requests) in &metrics.requests_per_agent {
        println!("requests to {agent}: {requests}");
    }
    // Two tasks sent to the liar, each run once: the refused one's result was kept, not sent again.
    println!("executions on the lying agent: {}", liar.executions());

    honest.shutdown().await;
    liar.shutdown().await;
    Ok(())
}

fn report(label: &str, outcome: &TaskOutcome) {
    let state = outcome.state().map_or_else(|| "a direct message".to_owned(), |s| s.to_string());
    match &outcome.path {
        TaskPath::Negotiated => {
            println!("{label}: {state}, verified {:?}", outcome.verified);
        }
        TaskPath::KeptAfterRefusal => {
            println!("{label}: refused after the task ended, its result kept (run once) -> {state}");
            for refusal in outcome.refusals() {
                println!("    {refusal}");
            }
        }
        TaskPath::Fallback => {
            let twice = if outcome.may_have_run_twice() { " (the work may have run twice)" } else { "" };
            println!("{label}: refused, fell back to a single-shot send{twice} -> {state}");
            for refusal in outcome.refusals() {
                println!("    {refusal}");
            }
        }
        TaskPath::SingleShotBecauseSuspect(mark) => {
            println!("{label}: suspect ({}), single-shot at once -> {state}", mark.claim());
        }
        other => println!("{label}: {other:?} -> {state}"),
    }
    // The answer's text, wherever the agent put it (artifacts, messages or the status message).
    println!("    answer: {}", outcome.text().unwrap_or_else(|| "(no text)".to_owned()));
    println!("    negotiation round trips: {}", outcome.negotiation_round_trips);
}
