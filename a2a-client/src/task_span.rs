//! The one `tracing` span every [`Client::run_task`] runs in, for a subscriber to export (an
//! OpenTelemetry layer turns it into one span per task; `tracing_subscriber::fmt` prints it).
//!
//! The span is named `a2a.task` and carries, once the task ends:
//!
//! | field | what |
//! |---|---|
//! | `agent` | the agent's base URL |
//! | `replica` | the replica name ([`ClientBuilder::replica_name`](crate::ClientBuilder::replica_name)), or empty |
//! | `message.id` | the message that started the task |
//! | `task.id` | the task the agent answered with (empty for a direct message or an error) |
//! | `claims.depended` | the card claims the caller depends on (`streaming,pushNotifications`) |
//! | `claims.verified` | those the run verified |
//! | `verdicts` | each refused claim with its evidence (`;`-separated), or empty |
//! | `path` | `negotiated`, `single_shot_suspect`, `kept_after_refusal`, `fallback`, `ended_with_refusal` or `error` |
//! | `may_have_run_twice` | `true` when the message was sent again after the agent had accepted the refused, unfinished task ([`TaskOutcome::may_have_run_twice`]) |
//! | `round_trips` | negotiation round trips the run made |
//! | `outcome` | the task's last state, `message`, or the error kind |
//! | `suspect.marked_by` | on the single-shot path, the replica whose mark sent it there |
//!
//! While the task runs, events are recorded on the span for each claim verified or refused, each
//! suspect mark set, each refused task kept, canceled or left, and each fallback taken: see
//! [`crate::task_events`]. With the feature `otel`,
//! every request the task sends carries this span's trace context (`traceparent`).
//!
//! ```no_run
//! use a2a_typestate_client::negotiate::Negotiation;
//! use a2a_typestate_client::{Capability, Client, Message};
//!
//! # async fn demo() -> Result<(), a2a_typestate_client::Error> {
//! let client = Client::builder().replica_name("replica-1").build()?;
//! let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
//! let outcome =
//!     client.run_task("http://agent.example", Message::user("hi").with_message_id("m1"), &negotiation).await?;
//! # let _ = outcome;
//! # Ok(()) }
//! ```

use a2a_typestate::CapabilitySet;
use a2a_typestate_types::{Message, TaskState};
use tracing::Instrument;
use tracing::field::Empty;

use crate::negotiate::{Negotiation, TaskOutcome, TaskPath};
use crate::{Client, Error};

/// The span's name.
pub const TASK_SPAN_NAME: &str = "a2a.task";

/// Runs the task inside one `a2a.task` span whose fields say what happened; the result is the
/// run's, unchanged.
pub(crate) async fn run_in_span(
    client: &Client,
    agent: crate::negotiate::Target<'_>,
    message: Message,
    negotiation: &Negotiation,
) -> Result<TaskOutcome, Error> {
    let target = agent;
    let label = target.label().to_owned();
    let agent = label.as_str();
    {
        let span = tracing::info_span!(
            "a2a.task",
            otel.kind = "client",
            agent,
            replica = client.metrics().replica_name().unwrap_or_default(),
            message.id = %message.message_id,
            task.id = Empty,
            claims.depended = %capabilities(negotiation.depends()),
            claims.verified = Empty,
            verdicts = Empty,
            path = Empty,
            may_have_run_twice = Empty,
            round_trips = Empty,
            outcome = Empty,
            suspect.marked_by = Empty,
        );
        let result =
            crate::negotiate::run_task(client, target, message, negotiation).instrument(span.clone()).await;
        match &result {
            Ok(outcome) => record_outcome(&span, outcome),
            Err(error) => {
                span.record("path", "error");
                span.record("outcome", format!("{:?}", error.kind()).to_lowercase());
                span.record("round_trips", error.negotiation_round_trips().unwrap_or(0));
                if let Some(violation) = error.lifecycle_violation() {
                    span.record("verdicts", format!("{}: {violation}", violation.capability()));
                }
            }
        }
        result
    }
}

fn record_outcome(span: &tracing::Span, outcome: &TaskOutcome) {
    let path = match &outcome.path {
        TaskPath::Negotiated => "negotiated",
        TaskPath::SingleShotBecauseSuspect(mark) => {
            span.record("suspect.marked_by", mark.marked_by().unwrap_or("this replica"));
            "single_shot_suspect"
        }
        TaskPath::KeptAfterRefusal => "kept_after_refusal",
        TaskPath::Fallback => "fallback",
        TaskPath::EndedWithRefusal => "ended_with_refusal",
    };
    span.record("path", path);
    span.record("may_have_run_twice", outcome.may_have_run_twice());
    span.record("round_trips", outcome.negotiation_round_trips);
    span.record("claims.verified", capabilities(outcome.verified).as_str());
    if let Some(task) = outcome.result.task_id() {
        span.record("task.id", task.as_str());
    }
    let verdicts: Vec<String> =
        outcome.refusals().map(|violation| format!("{}: {violation}", violation.capability())).collect();
    span.record("verdicts", verdicts.join("; ").as_str());
    let state = outcome.state().map_or("message", TaskState::as_str);
    span.record("outcome", state);
}

fn capabilities(set: CapabilitySet) -> String {
    set.iter().map(|c| c.card_field()).collect::<Vec<_>>().join(",")
}
