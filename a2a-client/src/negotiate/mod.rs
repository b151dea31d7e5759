//! Negotiation: run a task on the path the caller depends on, verify each card claim at the first
//! transition that exercises it, and act on a refusal exactly as the design note says.
//!
//! [`Client::run_task`] is the entry point. It
//! 1. sends an agent that is **capability-suspect** (a mark in the [`DiscoveryCache`](crate::DiscoveryCache)
//!    still inside its TTL) one single-shot `SendMessage` at once: no negotiation round trip;
//! 2. otherwise runs the task on the negotiated path (streaming, polling, push: see
//!    [`Negotiation`]), feeding everything it observes to the typestate
//!    [`Verifier`](a2a_typestate::Verifier);
//! 3. on a refusal (all three conditions held): marks the agent capability-suspect for every refused
//!    capability, never retries the task against it, and either falls back to a single-shot
//!    `SendMessage` that expects no intermediate states, returning its result **with** the refusal
//!    ([`TaskPath::Fallback`]), or, when the advice is to abandon (an empty history the caller relied
//!    on), returns the violation as an [`ErrorKind::LifecycleViolation`](crate::ErrorKind) error.
//!
//! [`SuspectMarks::Off`] (set with
//! [`ClientBuilder::suspect_marks`](crate::ClientBuilder::suspect_marks)) leaves out steps 1 and 3's
//! mark: every task is negotiated, refusals are still counted and still fall back.
//!
//! Never refused: transport faults (retried by the transports, streams reattached; an exhausted
//! budget is an [`ErrorKind::Transport`](crate::ErrorKind) error, the agent unmarked), a first
//! `working`, an agent doing more than its card says, a gateway. A task still `working` past the
//! bound with no card basis for polling is an [`ErrorKind::LifecycleFault`](crate::ErrorKind).
//!
//! Every task ends in one of: a result, a refusal with the fallback's result, or an error the caller
//! can act on. Counters ([`Metrics`](crate::Metrics)): requests per agent, negotiation round trips
//! (every request on the negotiated path, including polls), refusals by capability, fallbacks and
//! retries.
//!
//! ```
//! use a2a_client::negotiate::{Negotiation, TaskPath};
//! use a2a_client::{Capability, Client};
//! use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
//! use a2a_types::Message;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A card claiming streaming, from an agent whose artifact only comes through GetTask.
//! let agent = ScriptedAgent::builder()
//!     .capabilities(Capabilities::none().with_streaming())
//!     .script(Script::honest().with(Lie::StreamWithoutArtifact))
//!     .spawn()
//!     .await?;
//! let client = Client::builder().build()?;
//! let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
//!
//! let outcome = client.run_task(&agent.base_url(), Message::user_text("m1", "hi"), &negotiation).await?;
//! assert_eq!(outcome.path, TaskPath::Fallback); // refused, then one single-shot send
//! assert_eq!(outcome.refusal.as_ref().map(|v| v.capability()), Some(Capability::Streaming));
//! assert!(outcome.state().is_some_and(|state| state.is_terminal())); // the fallback's result
//!
//! // Suspect now: the next task goes single-shot at once, with no negotiation round trip.
//! let again = client.run_task(&agent.base_url(), Message::user_text("m2", "hi"), &negotiation).await?;
//! assert!(matches!(again.path, TaskPath::SingleShotBecauseSuspect(_)));
//! assert_eq!(again.negotiation_round_trips, 0);
//! # agent.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod outcome;
mod plan;
mod run;
mod snapshot;
mod typed;

use std::time::Duration;

use a2a_types::{Message, SendMessageRequest, SendMessageResponse};
use a2a_typestate::{Advice, AgentCardLifecycleViolation, DynTask, SingleShot, Task};

pub use outcome::{TaskOutcome, TaskPath};
pub use plan::{DEFAULT_HISTORY_LENGTH, DEFAULT_MAX_FOLLOW_UPS, FollowUp, InputRequest, Negotiation};
pub use typed::StreamingNegotiation;

use crate::{AgentConnection, Client, Error, SuspectMarks};
use plan::new_message_id;
pub(crate) use run::observed_fault;
use run::{Run, RunEnd};

impl Client {
    /// Runs one task against `agent` (its base URL) on the path `negotiation` depends on, verifying
    /// the card's claims as they are exercised, and acts on a refusal: see [`crate::negotiate`].
    ///
    /// # Errors
    /// - [`ErrorKind::Transport`](crate::ErrorKind): a fault outlived the retry budget (retry later;
    ///   the agent is not marked);
    /// - [`ErrorKind::LifecycleViolation`](crate::ErrorKind): a refused claim whose advice is to
    ///   abandon the task (the agent is marked suspect, nothing was retried);
    /// - [`ErrorKind::LifecycleFault`](crate::ErrorKind): `working` past the bound with no card basis;
    /// - discovery errors, protocol errors unrelated to a claim, unreadable answers.
    ///
    /// Every error after discovery carries the round trips the run made before it
    /// ([`Error::negotiation_round_trips`]), so an abandoned task's waste is counted too.
    ///
    /// When the single-shot fallback itself fails, its error is returned; the refusal was still
    /// counted and the agent marked (read it with
    /// [`DiscoveryCache::suspect_marks`](crate::DiscoveryCache::suspect_marks)).
    ///
    /// # Bounds and cancellation
    /// Every call is bounded by the client's configuration (request timeout, SSE idle timeout, push
    /// arrival bound, and the working bound while polling on the client's own interval). A card that
    /// declares a poll cadence gives a basis to poll a long `working` task for as long as it works:
    /// bound the whole run with `tokio::time::timeout` if the caller cannot wait. Dropping the future
    /// cancels the run; the agent's task is left as it is (cancel it with `CancelTask`).
    pub async fn run_task(
        &self,
        agent: &str,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<TaskOutcome, Error> {
        self.run_task_traced(agent, message, negotiation).await.map(|(outcome, _)| outcome)
    }

    /// [`Client::run_task`], also returning the typestate handle that saw the negotiated run (a
    /// single-shot handle for a suspect agent) and the run's elapsed time on its clock.
    pub(crate) async fn run_task_traced(
        &self,
        agent: &str,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<(TaskOutcome, Trace), Error> {
        let conn = self.connect(agent).await?;
        let base = conn.agent().clone();
        let marks_on = self.config().suspect_marks() == SuspectMarks::On;
        if let Some(mark) = self.discovery_cache().is_suspect(&base).filter(|_| marks_on) {
            let result = single_shot(&conn, message, negotiation)
                .await
                .map_err(|error| error.with_negotiation_round_trips(0))?;
            let claims = conn.card().claims(negotiation.deployment_kind());
            let handle = DynTask::new(claims, self.config().verifier_bounds());
            let handle =
                Task::<SingleShot>::try_from(handle).map_or_else(|e| e.into_handle(), Task::into_dyn);
            let trace = Trace { handle: Some(handle), elapsed: Duration::ZERO };
            return Ok((
                TaskOutcome {
                    agent: base,
                    path: TaskPath::SingleShotBecauseSuspect(mark),
                    result,
                    verified: a2a_typestate::CapabilitySet::EMPTY,
                    refusal: None,
                    other_refusals: Vec::new(),
                    refused_task: None,
                    negotiation_round_trips: 0,
                },
                trace,
            ));
        }
        let report = Run::new(self, &conn, negotiation).run(message.clone()).await?;
        let trace = Trace { handle: report.handle, elapsed: report.elapsed };
        let (refusals, refused_task, verified) = match report.end {
            RunEnd::Finished { result, verified } => {
                return Ok((
                    TaskOutcome {
                        agent: base,
                        path: TaskPath::Negotiated,
                        result,
                        verified,
                        refusal: None,
                        other_refusals: Vec::new(),
                        refused_task: None,
                        negotiation_round_trips: report.round_trips,
                    },
                    trace,
                ));
            }
            RunEnd::Refused { refusals, task, verified } => (refusals, task, verified),
        };
        for violation in &refusals {
            self.metrics().record_refusal(violation.capability());
            if marks_on {
                self.discovery_cache().mark_suspect(&base, violation.capability(), violation.to_string());
            }
        }
        let mut refusals = refusals.into_iter();
        let Some(first) = refusals.next() else {
            return Err(Error::config("a refused run carried no violation"));
        };
        if first.advice() == Advice::Abandon {
            tracing::warn!(agent = %base.as_str(), violation = %first, "task abandoned");
            return Err(Error::from(first).with_negotiation_round_trips(report.round_trips));
        }
        tracing::warn!(agent = %base.as_str(), violation = %first, "falling back to a single-shot send");
        self.metrics().record_fallback();
        let mut fallback = message;
        fallback.message_id = new_message_id().into();
        fallback.task_id = None;
        let result = single_shot(&conn, fallback, negotiation)
            .await
            .map_err(|error| error.with_negotiation_round_trips(report.round_trips))?;
        Ok((
            TaskOutcome {
                agent: base,
                path: TaskPath::Fallback,
                result,
                verified,
                refusal: Some(first),
                other_refusals: refusals.collect::<Vec<AgentCardLifecycleViolation>>(),
                refused_task,
                negotiation_round_trips: report.round_trips,
            },
            trace,
        ))
    }
}

/// What a run leaves for the typed entry points.
#[derive(Debug)]
pub(crate) struct Trace {
    pub(crate) handle: Option<DynTask>,
    pub(crate) elapsed: Duration,
}

/// The lifecycle-agnostic path: blocking `SendMessage`s (no stream, no push, no
/// `returnImmediately`) expecting no intermediate states; a paused task is answered by the
/// follow-up policy with another blocking send.
pub(crate) async fn single_shot(
    conn: &AgentConnection,
    message: Message,
    negotiation: &Negotiation,
) -> Result<SendMessageResponse, Error> {
    let mut message = message;
    let mut follow_ups = 0;
    loop {
        let mut request = SendMessageRequest::new(message);
        if !negotiation.accepted().is_empty() {
            request = request.with_configuration(a2a_types::SendMessageConfiguration {
                accepted_output_modes: negotiation.accepted().to_vec(),
                ..Default::default()
            });
        }
        let response = conn.send_message(request).await?;
        let SendMessageResponse::Task(task) = &response else { return Ok(response) };
        if !task.status.state.is_interrupted() || follow_ups >= negotiation.follow_up_budget() {
            return Ok(response);
        }
        let request = InputRequest {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state,
            question: task.status.message.clone(),
        };
        let Some(answer) = negotiation.follow_up_policy().answer(&request) else { return Ok(response) };
        message = answer;
        follow_ups += 1;
    }
}
