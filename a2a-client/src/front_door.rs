//! The client's front door: the calls that start from an agent's base URL and open a connection,
//! a task handle or a whole run.
//!
//! They sit above the connection, the task and the negotiation they open, which hold a [`Client`];
//! the type itself, its state and discovery sit below them, in `client.rs`.

use a2a_typestate::{ClaimSet, Deployment};
use a2a_typestate_types::Message;

use crate::negotiate::{Negotiation, TaskOutcome};
use crate::task::{DynTask, Task, TaskEntry};
use crate::{AgentConnection, Client, Error};

impl Client {
    /// Discovers the agent at `agent` (through the cache) and connects to the interface it prefers
    /// among those this client speaks: protocol 1.0 before 0.3, then the card's order; JSON-RPC,
    /// HTTP+JSON, or (feature `grpc`) gRPC.
    ///
    /// # Errors
    /// As [`Client::discover`]; [`crate::ErrorKind::BadInput`] when the card's interfaces cannot be
    /// read; [`crate::ErrorKind::Protocol`] when the agent offers no interface this client speaks.
    pub async fn connect(&self, agent: &str) -> Result<AgentConnection, Error> {
        AgentConnection::discover(self, agent).await
    }

    /// A new task handle on the agent at `agent` (its base URL, through the discovery cache),
    /// narrowed to the claims `C` depends on: the typed front door (see [`crate::task`]).
    ///
    /// An agent that is capability-suspect (it contradicted its card, and the mark is inside its
    /// TTL) is handed out as [`TaskEntry::Suspect`]: the single-shot handle and the mark, so the
    /// task goes out at once with no negotiation round trip (unless marks are
    /// [off](crate::SuspectMarks::Off)).
    ///
    /// # Errors
    /// As [`Client::connect`]; [`ErrorKind::Misuse`](crate::ErrorKind::Misuse) when the card does
    /// not claim what `C` holds, saying which claim is missing and where it would come from (use
    /// [`Client::dyn_task`] and `Task::try_from` to get the handle back instead). A 1.0 card has
    /// no state-transition history claim: it comes from 0.3 cards and the legacy field only.
    pub async fn task<C: ClaimSet>(&self, agent: &str) -> Result<TaskEntry<C>, Error> {
        let conn = self.connect(agent).await?;
        let handle = conn.dyn_task(Deployment::Direct);
        if self.config().suspect_marks() == crate::SuspectMarks::On
            && let Some(mark) = self.discovery_cache().is_suspect(conn.agent())
        {
            return Ok(TaskEntry::Suspect(handle.into_suspect_single_shot(), mark));
        }
        match Task::try_from(handle) {
            Ok(task) => Ok(TaskEntry::Claimed(task)),
            Err(error) => Err(Error::misuse(narrowing_advice(&error)).with_url(conn.agent().as_str())),
        }
    }

    /// A new dynamic task handle on the agent at `agent`, holding every claim its card makes.
    ///
    /// # Errors
    /// As [`Client::connect`].
    pub async fn dyn_task(&self, agent: &str) -> Result<DynTask, Error> {
        Ok(self.connect(agent).await?.dyn_task(Deployment::Direct))
    }

    /// Runs one task against `agent` (its base URL) on the path `negotiation` depends on, verifying
    /// the card's claims as they are exercised, and acts on a refusal: a refused task that had
    /// ended keeps its result (nothing is sent again); one that had not gets what the
    /// negotiation's [`AfterRefusal`](crate::negotiate::AfterRefusal) says. See
    /// [`crate::negotiate`].
    ///
    /// # Errors
    /// - [`ErrorKind::Transport`](crate::ErrorKind): a fault outlived the retry budget (retry later;
    ///   the agent is not marked), or the agent's availability breaker holds it unavailable after
    ///   such faults and nothing was sent ([`Error::unavailable`](crate::Error::unavailable) says
    ///   when a task may go again; see [`Breaker`](crate::Breaker));
    /// - [`ErrorKind::LifecycleViolation`](crate::ErrorKind): a refused claim whose advice is to
    ///   abandon the task (the agent is marked suspect, nothing was retried);
    /// - [`ErrorKind::LifecycleFault`](crate::ErrorKind): no progress past the unobservable bound,
    ///   or the task deadline ran out;
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
    /// Every wait is bounded by the client's configuration (request timeout, SSE idle timeout,
    /// the unobservable bound, push arrival, the task deadline). Dropping the future cancels the
    /// run; the agent's task is left as it is (cancel it with `CancelTask`).
    pub async fn run_task(
        &self,
        agent: &str,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<TaskOutcome, Error> {
        let target = crate::negotiate::Target::Address(agent);
        crate::task_span::run_in_span(self, target, message, negotiation).await
    }

    /// As [`Client::run_task`], on a connection already open: every decision of the run (its
    /// claims, its interface, what a report says it checked) is made on the one card document that
    /// connection holds, however the card's caching headers ask the client to fetch it again. For
    /// code that reads the card and then runs tasks on what it read, such as an audit.
    ///
    /// # Errors
    /// As [`Client::run_task`], less discovery.
    pub async fn run_task_on(
        &self,
        connection: &AgentConnection,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<TaskOutcome, Error> {
        let target = crate::negotiate::Target::Connection(connection);
        crate::task_span::run_in_span(self, target, message, negotiation).await
    }
}

/// Why `Client::task` could not give the typed handle, and what would.
fn narrowing_advice(error: &a2a_typestate::NarrowingError<DynTask>) -> String {
    use a2a_typestate::{Capability, ClaimStatus, Mismatch};
    let why = match error.mismatch() {
        Mismatch::Claim {
            capability: Capability::StateTransitionHistory,
            held: ClaimStatus::Unclaimed,
            ..
        } => {
            "; the history claim comes only from a 0.3 card's `capabilities.stateTransitionHistory` (or a 1.0 card \
             carrying it as a legacy field): 1.0 removed it, so an honest 1.0 agent never makes it (ask for \
             `Claims<Streaming>` or `Claims<Streaming, NoHistory, Push>` instead)"
        }
        Mismatch::Claim { held: ClaimStatus::Unclaimed, .. } => {
            "; the card does not declare it: ask for a handle without that claim, or use `dyn_task` and read \
             what the card claims"
        }
        _ => "",
    };
    format!("{error}{why}")
}
