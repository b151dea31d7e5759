//! Each scenario's rule, read from what its agent recorded: the evidence and the verdict.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::Value;

use super::{Grade, OVERSIZED_ANSWER_BYTES, OVERSIZED_READ_BOUND, Outcome, Running, Scenario};
use crate::record::{AnswerRecord, RecordedRequest};

/// What one agent saw of the client.
struct Seen {
    requests: Vec<RecordedRequest>,
    answers: Vec<AnswerRecord>,
    executions: u64,
    now: Duration,
}

impl Seen {
    fn of(running: &Running) -> Self {
        let agent = &running.agent;
        Self {
            requests: agent.requests(),
            answers: agent.answers(),
            executions: agent.executions(),
            now: agent.since_start(),
        }
    }

    fn count(&self, operation: &str) -> usize {
        self.requests.iter().filter(|r| r.is(operation)).count()
    }

    fn operations(&self) -> impl Iterator<Item = (usize, &RecordedRequest)> {
        self.requests.iter().enumerate().filter(|(_, r)| r.operation.is_some())
    }

    /// The answers to operations (not to card fetches).
    fn operation_answers(&self) -> impl Iterator<Item = &AnswerRecord> {
        self.answers.iter().filter(|a| self.requests.get(a.request).is_some_and(|r| r.operation.is_some()))
    }

    /// The requests in order, each with its time from the first.
    fn timeline(&self) -> String {
        const SHOWN: usize = 8;
        let Some(first) = self.requests.first().map(|r| r.at) else {
            return "no request".to_owned();
        };
        let mut line = String::new();
        for request in self.requests.iter().take(SHOWN) {
            let what = request.operation.clone().unwrap_or_else(|| match request.path.as_str() {
                p if p.starts_with("/.well-known/") => "card".to_owned(),
                p => format!("{} {p}", request.http_method),
            });
            if !line.is_empty() {
                line.push_str(", ");
            }
            let _ = write!(line, "{what} +{:.2} s", request.at.saturating_sub(first).as_secs_f64());
        }
        if self.requests.len() > SHOWN {
            let _ = write!(line, ", … {} requests in all", self.requests.len());
        }
        line
    }

    /// Fails when the work ran more than once.
    fn ran_at_most_once(&self) -> Result<(), String> {
        match self.executions {
            0 | 1 => Ok(()),
            n => Err(format!("the work ran {n} times")),
        }
    }

    /// Fails unless the work ran exactly once.
    fn ran_once(&self) -> Result<(), String> {
        self.ran_at_most_once()?;
        if self.executions == 0 {
            return Err("the work never ran".to_owned());
        }
        Ok(())
    }
}

/// Grades one scenario at this moment.
pub(super) fn grade(running: &Running, patience: Duration) -> Grade {
    let seen = Seen::of(running);
    let front_requests = running.front.as_ref().map_or(0, |f| f.requests().len());
    let scenario = running.scenario;
    let (outcome, verdict) = if seen.requests.is_empty() && front_requests == 0 {
        (Outcome::NotRun, "the client never reached this agent".to_owned())
    } else {
        let judged = match scenario {
            Scenario::HonestStreamer => honest_streamer(&seen),
            Scenario::StreamingRefused => streaming_refused(&seen),
            Scenario::FinishedTaskRunTwice => ran_once(&seen, "the finished task kept its result"),
            Scenario::HistoryForgetter => history_forgetter(&seen),
            Scenario::SilentPusher => silent_pusher(&seen, patience),
            Scenario::ExtendedCardLiar => extended_card_liar(&seen),
            Scenario::DeadFirstInterface => ran_once(&seen, "reached the second interface"),
            Scenario::CredentialElsewhere => credential_elsewhere(&seen, running, front_requests),
            Scenario::TransientUnavailable => ran_once(
                &seen,
                &format!("retried through the 503s ({} operation requests)", seen.operations().count()),
            ),
            Scenario::WorkingForever | Scenario::EndlessStream => let_go(&seen, patience),
            Scenario::OversizedAnswer => oversized(&seen, patience),
        };
        match judged {
            Ok(verdict) => (Outcome::Pass, verdict),
            Err(Judged::Pending(verdict)) => (Outcome::Pending, verdict),
            Err(Judged::Fail(verdict)) => (Outcome::Fail, verdict),
        }
    };
    Grade {
        scenario: scenario.id().to_owned(),
        outcome,
        expected: scenario.conforming().to_owned(),
        verdict,
        observed: format!("{}; the work ran {}×", seen.timeline(), seen.executions),
    }
}

/// Why a scenario did not pass (yet).
enum Judged {
    Fail(String),
    Pending(String),
}

impl From<String> for Judged {
    fn from(verdict: String) -> Self {
        Self::Fail(verdict)
    }
}

type Verdict = Result<String, Judged>;

/// Passes with `verdict` when the work ran exactly once.
fn ran_once(seen: &Seen, verdict: &str) -> Verdict {
    seen.ran_once()?;
    Ok(verdict.to_owned())
}

fn honest_streamer(seen: &Seen) -> Verdict {
    seen.ran_once()?;
    if seen.count("SendStreamingMessage") > 0 && seen.count("SendMessage") > 0 {
        return Err(Judged::Fail(
            "sent SendMessage after the honest stream: an honest agent treated as a liar".into(),
        ));
    }
    Ok("no fallback from an honest agent".to_owned())
}

fn streaming_refused(seen: &Seen) -> Verdict {
    let (streams, sends) = (seen.count("SendStreamingMessage"), seen.count("SendMessage"));
    if streams > 1 {
        return Err(format!("asked for the refused stream {streams} times").into());
    }
    if streams == 1 && sends == 0 {
        return Err("no SendMessage after the refused stream: no fallback".to_owned().into());
    }
    if sends > 1 {
        return Err(format!("sent SendMessage {sends} times: one fallback is one send").into());
    }
    seen.ran_once()?;
    Ok(if streams == 1 { "fell back to one SendMessage" } else { "never relied on the stream" }.to_owned())
}

fn history_forgetter(seen: &Seen) -> Verdict {
    seen.ran_once()?;
    // A task this fast ends before a polling client's second read: more reads are retries for the
    // history that never comes.
    let reads = seen.count("GetTask");
    if reads > 2 {
        return Err(format!("read the task {reads} times for a history that never came: retried").into());
    }
    Ok(format!("read the task {reads} time(s), no retry"))
}

/// Whether a send carried a push config inline, and whether it asked not to wait for the end.
fn push_inline(request: &RecordedRequest) -> (bool, bool) {
    let params = request.body.as_ref().map(|b| b.get("params").unwrap_or(b));
    let configuration = params.and_then(|p| p.get("configuration"));
    let inline = ["taskPushNotificationConfig", "pushNotificationConfig"]
        .iter()
        .any(|field| configuration.and_then(|c| c.get(*field)).is_some_and(|v| !v.is_null()));
    let returns_at_once = configuration.and_then(|c| c.get("returnImmediately")).and_then(Value::as_bool)
        == Some(true)
        || configuration.and_then(|c| c.get("blocking")).and_then(Value::as_bool) == Some(false);
    (inline, returns_at_once)
}

fn silent_pusher(seen: &Seen, patience: Duration) -> Verdict {
    seen.ran_at_most_once()?;
    let configured = seen.requests.iter().find(|r| {
        r.is("CreateTaskPushNotificationConfig") || (r.is("SendMessage") && push_inline(r) == (true, true))
    });
    let Some(configured) = configured else {
        seen.ran_once()?;
        return Ok("never waited on push".to_owned());
    };
    let since = configured.at;
    let read = seen
        .requests
        .iter()
        .find(|r| r.at >= since && (r.is("GetTask") || r.is("SubscribeToTask") || r.is("ListTasks")));
    match read {
        Some(read) if read.at - since <= patience => {
            Ok(format!("read the task itself {:.2} s after setting push", (read.at - since).as_secs_f64()))
        }
        Some(read) => Err(format!(
            "set push, then waited {:.1} s for a callback that never came before reading the task",
            (read.at - since).as_secs_f64()
        )
        .into()),
        None if seen.now - since <= patience => {
            Err(Judged::Pending("set push and has not read the task yet".to_owned()))
        }
        None => Err(format!(
            "set push and never read the task in {:.1} s: waiting for a callback that never comes",
            (seen.now - since).as_secs_f64()
        )
        .into()),
    }
}

fn extended_card_liar(seen: &Seen) -> Verdict {
    let asked = seen.count("GetExtendedAgentCard");
    if asked > 1 {
        return Err(format!("asked for the refused extended card {asked} times").into());
    }
    seen.ran_once()?;
    Ok(format!("asked for the extended card {asked} time(s), ran the task on the public card"))
}

/// The requests carrying `token` in a header or the query.
fn carrying(requests: &[RecordedRequest], token: &str) -> usize {
    requests
        .iter()
        .filter(|r| {
            r.headers.iter().any(|(_, v)| v.contains(token))
                || r.query.as_deref().is_some_and(|q| q.contains(token))
        })
        .count()
}

fn credential_elsewhere(seen: &Seen, running: &Running, front_requests: usize) -> Verdict {
    let token = running.bearer_token.as_deref().unwrap_or_default();
    let leaked = carrying(&seen.requests, token);
    if leaked > 0 {
        return Err(format!(
            "the credential reached the interface's origin, which it was not given for, in {leaked} request(s)"
        )
        .into());
    }
    Ok(format!(
        "{} request(s) at the interface's origin, none with the credential ({front_requests} at its own)",
        seen.requests.len()
    ))
}

/// How long after its first operation a client may still be at it: the patience, and a margin for
/// the process around the client (its start, its card fetch).
pub(super) fn allowance(patience: Duration) -> Duration {
    patience + Duration::from_secs(1) + patience / 10
}

fn let_go(seen: &Seen, patience: Duration) -> Verdict {
    seen.ran_at_most_once()?;
    let Some(first) = seen.operations().map(|(_, r)| r.at).next() else {
        return Err("fetched the card and sent nothing".to_owned().into());
    };
    let deadline = first + allowance(patience);
    let open = seen.operation_answers().find(|a| a.ended.is_none());
    let last = seen
        .operations()
        .map(|(_, r)| r.at)
        .chain(seen.operation_answers().filter_map(|a| a.ended))
        .max()
        .unwrap_or(first);
    let at = |t: Duration| (t.saturating_sub(first)).as_secs_f64();
    match open {
        Some(_) if seen.now > deadline => Err(format!(
            "still holding an answer open {:.1} s after its first request (the patience is {:.0} s)",
            at(seen.now),
            patience.as_secs_f64()
        )
        .into()),
        _ if last > deadline => Err(format!(
            "still at it {:.1} s after its first request (the patience is {:.0} s)",
            at(last),
            patience.as_secs_f64()
        )
        .into()),
        _ if seen.now <= deadline => Err(Judged::Pending(format!("at it for {:.1} s so far", at(seen.now)))),
        _ => Ok(format!("let go {:.1} s after its first request", at(last))),
    }
}

fn oversized(seen: &Seen, patience: Duration) -> Verdict {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let whole = mib(OVERSIZED_ANSWER_BYTES);
    let answers: Vec<&AnswerRecord> = seen.operation_answers().collect();
    if answers.iter().any(|a| a.complete) {
        return Err(format!("read the whole {whole:.0} MiB answer").into());
    }
    let most = answers.iter().map(|a| a.bytes_sent).max().unwrap_or(0);
    if most > OVERSIZED_READ_BOUND {
        return Err(
            format!("read {:.1} MiB of the {whole:.0} MiB answer before letting go", mib(most)).into()
        );
    }
    if let Some(open) = answers.iter().find(|a| a.ended.is_none()) {
        let held = seen.now.saturating_sub(seen.requests.get(open.request).map_or(seen.now, |r| r.at));
        return if held > allowance(patience) {
            Err(format!("held the answer open for {:.1} s without reading it", held.as_secs_f64()).into())
        } else {
            Err(Judged::Pending("an answer is still being read".to_owned()))
        };
    }
    seen.ran_at_most_once()?;
    Ok(format!("let go after {:.1} MiB of the {whole:.0} MiB answer", mib(most)))
}
