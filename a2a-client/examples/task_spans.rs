//! Prints one `a2a.task` span per task as it closes: a lying agent's first task (refused, then the
//! single-shot fallback) and its second (single-shot at once: the agent is suspect).
//!
//! `cargo run -p a2a-typestate-client --example task_spans`
//!
//! Any `tracing` subscriber receives the same spans; an OpenTelemetry layer
//! (`tracing-opentelemetry`) exports each as one span with these fields as attributes.

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Capability, Client, Message, Report};
use tracing_subscriber::fmt::format::FmtSpan;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Report> {
    tracing_subscriber::fmt()
        .with_span_events(FmtSpan::CLOSE)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_writer(std::io::stdout)
        .init();
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none())
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await?;
    let client = Client::builder().replica_name("replica-1").build()?;
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    for n in 1..=2 {
        let message = Message::user("hello").with_message_id(format!("m{n}"));
        client.run_task(&agent.base_url(), message, &negotiation).await?;
    }
    agent.shutdown().await;
    Ok(())
}
