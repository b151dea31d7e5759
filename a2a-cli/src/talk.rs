//! What `a2a send` and `a2a tasks` share: a client built from the command line, the connection to
//! the agent, and agent-sent updates written for people (through [`crate::sanitize`]) or as JSON
//! lines.

use std::io::Write;

use a2a_typestate_client::auth::Secret;
use a2a_typestate_client::text;
use a2a_typestate_client::{AgentConnection, Client, Error, WireReading};
use a2a_typestate_types::{Artifact, Message, StreamResponse, Task};
use serde::Serialize;

use crate::cli::AgentArgs;

/// The client `args` describe for the agent at `url`: each request within `--request-timeout` (its
/// retries too), each task within `--task-deadline`, with the credentials and headers asked for
/// (sent to the agent's origin only, and to the allowed ones).
///
/// # Errors
/// A message for people: a credential that could not be read, or a bound the client refuses.
pub(crate) fn client(args: &AgentArgs, url: &str) -> Result<Client, String> {
    let reading = if args.strict { WireReading::Strict } else { WireReading::Tolerant };
    let builder = Client::builder()
        .request_timeout(args.request_timeout)
        .operation_deadline(args.request_timeout)
        .task_deadline(args.task_deadline)
        .wire_reading(reading);
    let agents = [url];
    let mut builder = args.credentials.apply(builder, &agents)?;
    for (index, header) in args.headers.iter().enumerate() {
        let (name, value) =
            header_of(header).map_err(|why| format!("-H (the {} header given): {why}", ordinal(index)))?;
        builder = args.credentials.header_for(builder, &agents, name, &Secret::new(value));
    }
    builder.build().map_err(|e| text::describe(&e))
}

/// A `-H NAME:VALUE` argument split in two (the client judges the name and the value, never
/// showing the value). The error leaves the value out: it may be a secret.
fn header_of(given: &str) -> Result<(&str, &str), String> {
    match given.split_once(':') {
        Some((name, value)) => Ok((name.trim(), value.trim())),
        None => Err("write it as NAME:VALUE, e.g. -H 'X-Tenant: blue' (no `:` found)".to_owned()),
    }
}

/// "first", "second", ... for the position of a repeated argument.
fn ordinal(index: usize) -> String {
    match index {
        0 => "first".to_owned(),
        1 => "second".to_owned(),
        2 => "third".to_owned(),
        n => format!("{}th", n + 1),
    }
}

/// The connection to the agent at `url` (a base URL, or its card's URL under `/.well-known/`).
pub(crate) async fn connect(client: &Client, url: &str) -> Result<AgentConnection, Error> {
    client.connect(a2a_typestate_client::discovery::base_url_of(url)).await
}

/// The text of a message's parts, cleaned and cut, or what kind of parts it holds.
fn message_text(message: &Message) -> String {
    match message.text() {
        Some(text) => text::message(&text),
        None => format!("({} non-text part(s))", message.parts.len()),
    }
}

/// One line for people about `task`: its id, state and status message.
pub(crate) fn describe_task(task: &Task) -> String {
    let mut line = format!("task {} {}", text::message(task.id.as_str()), task.state().word());
    if let Some(message) = &task.status.message {
        line.push_str(": ");
        line.push_str(&message_text(message));
    }
    line
}

/// One line for people about an update an agent sent.
pub(crate) fn describe_update(update: &StreamResponse) -> String {
    match update {
        StreamResponse::Task(task) => describe_task(task),
        StreamResponse::Message(message) => format!("message: {}", message_text(message)),
        StreamResponse::StatusUpdate(update) => {
            let mut line = format!("status {}", update.status.state.word());
            if let Some(message) = &update.status.message {
                line.push_str(": ");
                line.push_str(&message_text(message));
            }
            line
        }
        StreamResponse::ArtifactUpdate(update) => describe_artifact(&update.artifact),
    }
}

/// One line for people about an artifact: its name (or id) and its text.
pub(crate) fn describe_artifact(artifact: &Artifact) -> String {
    let name = artifact.name.as_deref().unwrap_or(artifact.artifact_id.as_str());
    let content = match artifact.text() {
        Some(text) => text::message(&text),
        None => format!("({} non-text part(s))", artifact.parts.len()),
    };
    format!("artifact {}: {content}", text::message(name))
}

/// Writes `value` as one JSON line.
pub(crate) fn json_line<T: Serialize>(out: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let text = serde_json::to_string(value).map_err(std::io::Error::other)?;
    writeln!(out, "{text}")
}

/// An error as one JSON line: `{"type":"error","error":...}`.
pub(crate) fn json_error(out: &mut dyn Write, error: &str) -> std::io::Result<()> {
    json_line(out, &serde_json::json!({ "type": "error", "error": error }))
}
