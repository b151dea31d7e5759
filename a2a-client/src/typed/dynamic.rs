//! [`DynAgentTask`]: the dynamic handle a typed one is narrowed from, and the narrowing itself.

use std::fmt;

use a2a_typestate::{ClaimSet, Deployment, DynTask, Mismatch, Task};
use tokio::time::Instant;

use super::{Session, TypedTask};
use crate::{AgentConnection, Client, Error};

/// A task against one agent holding every claim its card makes, known only at run time: what a
/// [`TypedTask`] is narrowed from (`TypedTask::try_from`, which hands this back on failure).
#[derive(Debug)]
pub struct DynAgentTask {
    session: Session,
    task: DynTask,
}

impl DynAgentTask {
    /// A new task on `conn`: the card's claims as read when it was discovered (lifted once and
    /// shared, see [`DiscoveredCard::claims`](crate::DiscoveredCard::claims)), judged against the
    /// client's bounds. The handle's clock starts now.
    pub fn new(conn: AgentConnection, deployment: Deployment) -> Self {
        let claims = conn.card().claims(deployment);
        let task = DynTask::new(claims, conn.client().config().verifier_bounds());
        Self { session: Session { conn, start: Instant::now(), state: None }, task }
    }

    /// Connects to the agent at `agent` (its base URL, through the discovery cache) and starts a
    /// new task handle on it.
    ///
    /// # Errors
    /// As [`Client::connect`].
    pub async fn connect(client: &Client, agent: &str, deployment: Deployment) -> Result<Self, Error> {
        Ok(Self::new(client.connect(agent).await?, deployment))
    }

    pub(super) fn from_parts(session: Session, task: DynTask) -> Self {
        Self { session, task }
    }

    /// The typestate handle: which claims it holds, its verdicts.
    pub fn task(&self) -> &DynTask {
        &self.task
    }

    /// The connection the calls go through.
    pub fn connection(&self) -> &AgentConnection {
        &self.session.conn
    }
}

/// Why a [`DynAgentTask`] could not be narrowed to a [`TypedTask`]; holds the handle, so nothing
/// is lost.
pub struct TypedNarrowingError {
    handle: DynAgentTask,
    mismatch: Mismatch,
    message: String,
}

impl TypedNarrowingError {
    /// What did not match.
    pub fn mismatch(&self) -> Mismatch {
        self.mismatch
    }

    /// The handle, unchanged.
    pub fn into_handle(self) -> DynAgentTask {
        self.handle
    }
}

impl fmt::Debug for TypedNarrowingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedNarrowingError")
            .field("agent", self.handle.session.conn.agent())
            .field("mismatch", &self.mismatch)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for TypedNarrowingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}: {}", self.handle.session.conn.agent(), self.message)
    }
}

impl std::error::Error for TypedNarrowingError {}

/// Narrowing as [`Task::try_from`]: every claim `C` holds must be held by the card; an unclaimed
/// slot drops the claim (the caller does not depend on it).
impl<C: ClaimSet> TryFrom<DynAgentTask> for TypedTask<C> {
    type Error = TypedNarrowingError;

    fn try_from(handle: DynAgentTask) -> Result<Self, TypedNarrowingError> {
        let DynAgentTask { session, task } = handle;
        match Task::<C>::try_from(task) {
            Ok(task) => Ok(TypedTask { session, task }),
            Err(error) => {
                let (mismatch, message) = (error.mismatch(), error.to_string());
                let handle = DynAgentTask { session, task: error.into_handle() };
                Err(TypedNarrowingError { handle, mismatch, message })
            }
        }
    }
}
