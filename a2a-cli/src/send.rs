//! `a2a send URL TEXT`: one message to an agent, run through the client's engine
//! ([`Client::run_task_on`](a2a_typestate_client::Client::run_task_on)), each update shown as it
//! arrives, then what became of the card's streaming claim and the answer.
//!
//! When the card claims streaming the task depends on it: it is sent with `SendStreamingMessage`
//! and the claim is checked on the way; an agent that contradicts it is refused. A task refused at
//! its end (a stream without the artifact `GetTask` has) keeps its own answer and is not sent
//! again; otherwise the answer comes from the one single-shot `SendMessage` the engine falls back
//! to, a second run of the work when the agent had accepted the refused task. Otherwise the message
//! is sent with `SendMessage` and the task followed with `GetTask`, at the card's cadence or the
//! client's. Exit status ([`crate::exit`]): 0 answered, 1 the agent contradicted its card (the
//! answer is still shown), 2 no answer, 4 the task waits for the user (the command that continues
//! it is printed: `--task-id` and `--context-id`; TEXT `-` reads the reply from stdin). An answer the updates carried (a stream that took the task to the end
//! of its turn) is an answer even when a call after it failed (the `GetTask` that confirms a
//! stream's artifacts, say): it is shown, the failure is a note on stderr, and the exit status is
//! the answer's.

use std::io::Write;
use std::process::ExitCode;

use a2a_typestate::{Capability, Deployment};
use a2a_typestate_client::negotiate::{Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::task::OnUpdate;
use a2a_typestate_client::{AgentConnection, Error, WireDeviation};
use a2a_typestate_types::{Message, SendMessageResponse, StreamResponse, TaskState};
use serde::Serialize;

use crate::cli::SendArgs;
use crate::exit::Exit;
use crate::style::{self, paint};
use crate::talk;
use a2a_typestate_client::negotiate::record::AnswerSeen;
use a2a_typestate_client::negotiate::record::{Ending, RefusedClaim, TaskRecord};
use a2a_typestate_client::text;

/// The most `a2a send -` reads from stdin: 4 MiB, a message far larger than any prompt.
const STDIN_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// What became of the card's streaming claim, for `--json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamingCheck {
    /// The card does not claim streaming: the task was polled.
    NotClaimed,
    /// The agent's events on the stream bore the claim out.
    Verified,
    /// The agent contradicted the claim; the answer is the refused task's own when it had ended,
    /// else the single-shot fallback's.
    Refused,
    /// The run ended before the claim could be settled either way (also: the stream carried the
    /// answer and a call after it, which would have settled the claim, failed).
    Unsettled,
    /// The agent was already marked capability-suspect: one single-shot send, nothing checked.
    SkippedAsSuspect,
}

/// The last JSON line of `a2a send --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultLine<'a> {
    r#type: &'static str,
    /// `negotiated`, `keptAfterRefusal`, `fallback`, `endedWithRefusal` or
    /// `singleShotBecauseSuspect`.
    path: &'static str,
    /// The message was sent again after the agent had accepted the refused task, which had not
    /// ended: the work may have run twice.
    may_have_run_twice: bool,
    ending: &'a Ending,
    state: Option<TaskState>,
    streaming: StreamingCheck,
    refusals: &'a [RefusedClaim],
    /// The answer's text ([`SendMessageResponse::text`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// The ids that continue a task waiting for the user (`a2a send --task-id --context-id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    continue_with: Option<ContinueWith>,
    answer: &'a SendMessageResponse,
    /// A call after the answer that failed (the answer came on the updates before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    follow_up_error: Option<String>,
}

/// The ids a task that waits for the user is continued with.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ContinueWith {
    task_id: String,
    /// `None` when the agent left the task's context out (a deviation).
    context_id: Option<String>,
}

/// Runs `a2a send`.
pub async fn run(args: &SendArgs, out: &mut dyn Write, err_out: &mut dyn Write) -> ExitCode {
    let text = match message_text(args.text.as_deref()).await {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(err_out, "error: {e}");
            return Exit::Usage.into();
        }
    };
    let client = match talk::client(&args.agent, &args.url) {
        Ok(client) => client,
        Err(e) => {
            let _ = writeln!(err_out, "error: {e}");
            return Exit::NoResult.into();
        }
    };
    let connection = match talk::connect(&client, &args.url).await {
        Ok(connection) => connection,
        Err(e) => {
            let shown = a2a_typestate_client::text::card_fetch_error(
                a2a_typestate_client::discovery::base_url_of(&args.url),
                &e,
                text::describe,
            );
            if args.json {
                let _ = talk::json_error(out, &text::one_line(&e));
            }
            let _ = writeln!(err_out, "error: {shown}");
            return Exit::NoResult.into();
        }
    };
    let streams = connection.card().claims(Deployment::Direct).declared().contains(Capability::Streaming);
    let _ = write_header(out, args.json, &connection, streams);

    let (updates_in, mut updates) = tokio::sync::mpsc::unbounded_channel::<StreamResponse>();
    let depends: &[Capability] = if streams { &[Capability::Streaming] } else { &[] };
    let negotiation = Negotiation::depending_on(depends).on_update(OnUpdate::new(move |update| {
        let _ = updates_in.send(update.clone());
    }));
    let mut message = Message::user(text).with_message_id(format!("a2a-send-{}", uuid::Uuid::new_v4()));
    if let Some(id) = &args.task_id {
        message = message.with_task_id(id.as_str());
    }
    if let Some(id) = &args.context_id {
        message = message.with_context_id(id.as_str());
    }
    let run = client.run_task_on(&connection, message, &negotiation);
    tokio::pin!(run);
    // Each update is written as it arrives, while the run goes on, and folded into the answer
    // they carry.
    let mut lines = Lines::default();
    let mut seen = AnswerSeen::default();
    let result = loop {
        tokio::select! {
            biased;
            Some(update) = updates.recv() => {
                seen.apply(&update);
                let _ = lines.write(out, args.json, &update);
            }
            result = &mut run => break result,
        }
    };
    while let Ok(update) = updates.try_recv() {
        seen.apply(&update);
        let _ = lines.write(out, args.json, &update);
    }
    let record = TaskRecord::from_result(&result);
    // An error after the updates carried the answer (not a refusal: that is the card's lie) is a
    // failed follow-up call, not a run without an answer.
    let answered_before = match &result {
        Err(e) if e.lifecycle_violation().is_none() => seen.answer(),
        _ => None,
    };
    let written = match (&result, &answered_before) {
        (Ok(outcome), _) => write_outcome(out, args, outcome, &record, streams),
        (Err(e), Some(answer)) => write_answer_then_failure(out, err_out, args, e, answer, streams),
        (Err(e), None) => write_error(out, err_out, args.json, e, &record),
    };
    if written.is_err() {
        return Exit::NoResult.into();
    }
    exit_status(&result, answered_before.as_ref()).into()
}

/// The message's text: `given`, or stdin when `given` is `-` or absent and stdin is no terminal.
///
/// # Errors
/// A message for people when there is no text to send, or stdin cannot be read or is too long.
async fn message_text(given: Option<&str>) -> Result<String, String> {
    use std::io::IsTerminal as _;
    use tokio::io::AsyncReadExt as _;
    match given {
        Some(text) if text != "-" => return Ok(text.to_owned()),
        None if std::io::stdin().is_terminal() => {
            return Err("no TEXT: give the message as an argument, or `-` to read it from stdin".to_owned());
        }
        _ => {}
    }
    let mut read = Vec::new();
    tokio::io::stdin()
        .take(STDIN_MAX_BYTES + 1)
        .read_to_end(&mut read)
        .await
        .map_err(|e| format!("cannot read the message from stdin: {e}"))?;
    if read.len() as u64 > STDIN_MAX_BYTES {
        return Err(format!("stdin holds more than {} MiB: too long for one message", STDIN_MAX_BYTES >> 20));
    }
    let text = String::from_utf8(read).map_err(|e| {
        format!("stdin is not UTF-8 text (byte {} is not): send text", e.utf8_error().valid_up_to())
    })?;
    // A message piped in ends with the newline `echo` adds; it is no part of the message.
    let text = text.strip_suffix('\n').map_or(text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t));
    if text.trim().is_empty() {
        return Err("the message read from stdin is empty".to_owned());
    }
    Ok(text.to_owned())
}

/// The run's exit status (see [`crate::exit`]); `answered_before`: the answer the updates carried
/// before the run's error.
fn exit_status(result: &Result<TaskOutcome, Error>, answered_before: Option<&SendMessageResponse>) -> Exit {
    match result {
        Err(e) if e.lifecycle_violation().is_some() => Exit::Contradicted,
        Err(_) => answered_before.map_or(Exit::NoResult, |answer| answer_status(answer_state(answer))),
        Ok(outcome) if outcome.refusal.is_some() => Exit::Contradicted,
        Ok(outcome) => answer_status(outcome.state()),
    }
}

/// The exit status of an answer in `state` (`None`: a direct message): a task that failed, was
/// rejected or canceled is no answer; one that waits for the user is neither.
fn answer_status(state: Option<TaskState>) -> Exit {
    match state {
        Some(TaskState::Failed | TaskState::Rejected | TaskState::Canceled | TaskState::Unspecified) => {
            Exit::NoResult
        }
        Some(TaskState::InputRequired | TaskState::AuthRequired) => Exit::Waiting,
        _ => Exit::Done,
    }
}

/// The ids that continue `answer` when it is a task waiting for the user.
fn continue_with(answer: &SendMessageResponse) -> Option<ContinueWith> {
    match answer {
        SendMessageResponse::Task(task)
            if matches!(task.state(), TaskState::InputRequired | TaskState::AuthRequired) =>
        {
            Some(ContinueWith {
                task_id: task.id.as_str().to_owned(),
                context_id: task.context_id.as_ref().map(|id| id.as_str().to_owned()),
            })
        }
        _ => None,
    }
}

/// For people: what the waiting task asks, and the command that continues it.
fn write_continue(out: &mut dyn Write, args: &SendArgs, answer: &SendMessageResponse) -> std::io::Result<()> {
    let Some(ids) = continue_with(answer) else { return Ok(()) };
    let SendMessageResponse::Task(task) = answer else { return Ok(()) };
    let what = if task.state() == TaskState::AuthRequired { "authentication" } else { "your input" };
    let context = ids.context_id.map_or_else(String::new, |id| format!(" --context-id {}", shell_word(&id)));
    writeln!(
        out,
        "{} the task waits for {what}; continue it with:\n  a2a send {} --task-id {}{context} 'YOUR REPLY'",
        paint(style::TITLE, "waiting"),
        shell_word(&args.url),
        shell_word(&ids.task_id),
    )
}

/// `text` as one word for a POSIX shell: kept when it holds only safe characters, else quoted.
fn shell_word(text: &str) -> String {
    let text = text::message(text);
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./:@%+=,".contains(&b)) {
        return text;
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The state of the task an answer is (`None` for a direct message).
fn answer_state(answer: &SendMessageResponse) -> Option<TaskState> {
    match answer {
        SendMessageResponse::Task(task) => Some(task.state()),
        SendMessageResponse::Message(_) => None,
    }
}

fn write_header(
    out: &mut dyn Write,
    json: bool,
    connection: &AgentConnection,
    streams: bool,
) -> std::io::Result<()> {
    let interface = connection.interface();
    let card = connection.card().card();
    if json {
        return talk::json_line(
            out,
            &serde_json::json!({
                "type": "card",
                "agent": connection.agent().as_str(),
                "name": card.name,
                "protocolVersion": interface.protocol_version.as_str(),
                "binding": interface.binding.as_str(),
                "url": interface.url,
                "streamingClaimed": streams,
                "sentWith": if streams { "SendStreamingMessage" } else { "SendMessage" },
            }),
        );
    }
    writeln!(
        out,
        "{} {} ({} over {} at {})",
        paint(style::TITLE, "agent"),
        text::message(&card.name),
        text::message(interface.protocol_version.as_str()),
        text::message(interface.binding.as_str()),
        text::message(&interface.url),
    )?;
    if streams {
        writeln!(
            out,
            "the card claims streaming: sent with SendStreamingMessage, each event shown as it arrives"
        )
    } else {
        writeln!(
            out,
            "the card does not claim streaming: sent with SendMessage, the task followed with GetTask"
        )
    }
}

/// The updates written so far: for people, a polled task that has not changed since the line before
/// is not written again (`--json` writes every update).
#[derive(Default)]
struct Lines {
    last_line: Option<String>,
}

impl Lines {
    fn write(&mut self, out: &mut dyn Write, json: bool, update: &StreamResponse) -> std::io::Result<()> {
        if json {
            return talk::json_line(out, &serde_json::json!({ "type": "update", "update": update }));
        }
        let line = talk::describe_update(update);
        if self.last_line.as_ref() == Some(&line) {
            return Ok(());
        }
        writeln!(out, "  {line}")?;
        self.last_line = Some(line);
        Ok(())
    }
}

/// What became of the streaming claim in `outcome`.
fn streaming_check(outcome: &TaskOutcome, streams: bool) -> StreamingCheck {
    if !streams {
        return StreamingCheck::NotClaimed;
    }
    if matches!(outcome.path, TaskPath::SingleShotBecauseSuspect(_)) {
        return StreamingCheck::SkippedAsSuspect;
    }
    if outcome.refusals().any(|v| v.capability() == Capability::Streaming) {
        return StreamingCheck::Refused;
    }
    if outcome.verified.contains(Capability::Streaming) {
        return StreamingCheck::Verified;
    }
    StreamingCheck::Unsettled
}

fn path_name(path: &TaskPath) -> &'static str {
    match path {
        TaskPath::SingleShotBecauseSuspect(_) => "singleShotBecauseSuspect",
        TaskPath::KeptAfterRefusal => "keptAfterRefusal",
        TaskPath::Fallback => "fallback",
        TaskPath::EndedWithRefusal => "endedWithRefusal",
        _ => "negotiated",
    }
}

fn write_outcome(
    out: &mut dyn Write,
    args: &SendArgs,
    outcome: &TaskOutcome,
    record: &TaskRecord,
    streams: bool,
) -> std::io::Result<()> {
    let check = streaming_check(outcome, streams);
    if args.json {
        let line = ResultLine {
            r#type: "result",
            path: path_name(&outcome.path),
            may_have_run_twice: outcome.may_have_run_twice(),
            ending: &record.ending,
            state: outcome.state(),
            streaming: check,
            refusals: &record.refusals,
            text: outcome.result.text(),
            continue_with: continue_with(&outcome.result),
            answer: &outcome.result,
            follow_up_error: None,
        };
        return talk::json_line(out, &line);
    }
    let claim = paint(style::TITLE, "streaming");
    match check {
        StreamingCheck::NotClaimed => writeln!(out, "{claim} not claimed: nothing to check")?,
        StreamingCheck::Verified => {
            writeln!(
                out,
                "{claim} {}: the agent's events arrived on the stream",
                paint(style::GOOD, "verified")
            )?;
        }
        StreamingCheck::Unsettled if continue_with(&outcome.result).is_some() => writeln!(
            out,
            "{claim} not settled yet: the task stopped to wait for you before it was exercised"
        )?,
        StreamingCheck::Unsettled => {
            writeln!(out, "{claim} not settled: the task ended before the claim was exercised")?
        }
        StreamingCheck::SkippedAsSuspect => {
            writeln!(out, "{claim} not checked: {}", text::message(&outcome.path.to_string()))?;
        }
        StreamingCheck::Refused => {}
    }
    for refused in &record.refusals {
        writeln!(
            out,
            "{} {}: {}\n  evidence: {}",
            paint(style::TITLE, refused.capability.card_field()),
            paint(style::BAD, "refused"),
            text::message(&refused.contradiction),
            text::message(&refused.evidence),
        )?;
    }
    match outcome.path {
        TaskPath::KeptAfterRefusal => writeln!(
            out,
            "{} the refused task had ended: its own answer, nothing sent again (the work ran once):",
            paint(style::TITLE, "kept")
        )?,
        TaskPath::Fallback if outcome.may_have_run_twice() => writeln!(
            out,
            "{} the refused task had not ended: it was asked to cancel, and one single-shot SendMessage \
             ran the work again ({}); its answer:",
            paint(style::TITLE, "fallback"),
            paint(style::BAD, "it may have run twice")
        )?,
        TaskPath::Fallback => writeln!(
            out,
            "{} one single-shot SendMessage (no task existed before the refusal); its answer:",
            paint(style::TITLE, "fallback")
        )?,
        _ => {}
    }
    write_answer(out, &outcome.result)?;
    write_continue(out, args, &outcome.result)?;
    write_deviations(out, &outcome.wire_deviations)
}

/// The answers that deviated from the protocol and were read anyway (`--strict` refuses them): a
/// count, and each kind once with where it was first seen.
fn write_deviations(out: &mut dyn Write, deviations: &[WireDeviation]) -> std::io::Result<()> {
    if deviations.is_empty() {
        return Ok(());
    }
    let mut kinds: Vec<&WireDeviation> = Vec::new();
    for deviation in deviations {
        if !kinds.iter().any(|k| k.kind() == deviation.kind()) {
            kinds.push(deviation);
        }
    }
    writeln!(
        out,
        "{} {} answer part(s) deviated from the protocol and were read as they unambiguously say (--strict refuses them):",
        paint(style::TITLE, "deviations"),
        deviations.len()
    )?;
    for first in kinds {
        let event = first.event.map_or_else(String::new, |n| format!(" event #{n}"));
        let at = match first.path() {
            "" => "the whole answer".to_owned(),
            path => text::message(path),
        };
        writeln!(
            out,
            "  {} first on {}{event}, at {at}: {}",
            first.kind().as_str(),
            first.call,
            text::message(&first.deviation.read_as),
        )?;
    }
    Ok(())
}

fn write_answer(out: &mut dyn Write, answer: &SendMessageResponse) -> std::io::Result<()> {
    match answer {
        SendMessageResponse::Task(task) => {
            writeln!(out, "{} {}", paint(style::TITLE, "answer"), talk::describe_task(task))?;
            for artifact in &task.artifacts {
                writeln!(out, "  {}", talk::describe_artifact(artifact))?;
            }
            Ok(())
        }
        SendMessageResponse::Message(message) => writeln!(
            out,
            "{} {}",
            paint(style::TITLE, "answer"),
            talk::describe_update(&StreamResponse::Message(message.clone()))
        ),
    }
}

/// The answer the updates carried, then the error that ended the run after it, as a note.
fn write_answer_then_failure(
    out: &mut dyn Write,
    err_out: &mut dyn Write,
    args: &SendArgs,
    error: &Error,
    answer: &SendMessageResponse,
    streams: bool,
) -> std::io::Result<()> {
    let failed = text::one_line(error);
    let check = if streams { StreamingCheck::Unsettled } else { StreamingCheck::NotClaimed };
    if args.json {
        let state = answer_state(answer);
        let ending = match state {
            None | Some(TaskState::Completed) => Ending::Completed,
            Some(state) => Ending::Failed(format!("the task ended in {}", state.as_str())),
        };
        let line = ResultLine {
            r#type: "result",
            path: "negotiated",
            may_have_run_twice: false,
            ending: &ending,
            state,
            streaming: check,
            refusals: &[],
            text: answer.text(),
            continue_with: continue_with(answer),
            answer,
            follow_up_error: Some(failed),
        };
        return talk::json_line(out, &line);
    }
    let claim = paint(style::TITLE, "streaming");
    if check == StreamingCheck::Unsettled {
        writeln!(out, "{claim} not settled: the stream carried the answer, and the call after it failed")?;
    } else {
        writeln!(out, "{claim} not claimed: nothing to check")?;
    }
    write_answer(out, answer)?;
    write_continue(out, args, answer)?;
    writeln!(err_out, "note: the answer above came before a call that failed: {}", text::describe(error))
}

fn write_error(
    out: &mut dyn Write,
    err_out: &mut dyn Write,
    json: bool,
    error: &Error,
    record: &TaskRecord,
) -> std::io::Result<()> {
    if json {
        let line = serde_json::json!({
            "type": "error",
            "error": text::one_line(error),
            "ending": record.ending,
            "refusals": record.refusals,
        });
        talk::json_line(out, &line)?;
    }
    for refused in &record.refusals {
        writeln!(
            err_out,
            "{} refused: {}\n  evidence: {}",
            refused.capability.card_field(),
            text::message(&refused.contradiction),
            text::message(&refused.evidence),
        )?;
    }
    writeln!(err_out, "error: {}", text::describe(error))
}
