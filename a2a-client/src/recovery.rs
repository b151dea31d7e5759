//! After a restart: the tasks the journal holds that did not end ([`Client::recover`]), each
//! followed to a definite outcome through the task engine and its bounds ([`Client::resume`]).
//!
//! - A task whose id the run had read is followed from a `GetTask`: on a `SubscribeToTask` stream
//!   where the run was streaming and the agent is not suspect of streaming now, else (or when the
//!   stream fails) by `GetTask` polling at the client's cadence, until it ends or pauses for input.
//! - A task whose first answer never arrived is looked for under the context id its message went
//!   with (`ListTasks`, which the client chose unique to the run): found, it is followed as above;
//!   listed empty at least the start grace after the send began, it never started
//!   ([`Recovered::NotStarted`]); when the agent cannot list, it may
//!   have started ([`Recovered::MayHaveStarted`]). Nothing is ever sent again here: that is the
//!   caller's policy.
//!
//! A transport fault past the retry budget is an error, and the task stays in the journal for the
//! next `recover`.

use a2a_typestate::{Capability, CapabilitySet, Deployment};
use a2a_typestate_types::{ContextId, GetTaskRequest, SendMessageResponse, Task, TaskId, TaskState};

use crate::journal::{JournaledTask, Recovered};
use crate::{AgentConnection, Client, Error};

impl Client {
    /// The tasks this client's journal holds that did not end (for a replica: those it ran under
    /// its [replica name](crate::ClientBuilder::replica_name)), oldest first, with what is known
    /// of each. The suspect marks the journal kept are put back in the discovery cache first,
    /// each with the time left of its TTL. Call it after a restart, before new tasks.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] when the client has no journal; [`crate::ErrorKind::Config`]
    /// when the journal cannot be read within four times its commit wait (two reads: the marks,
    /// then the tasks).
    pub async fn recover(&self) -> Result<Vec<JournaledTask>, Error> {
        self.journal_or_misuse()?.unfinished(self.discovery_cache()).await
    }

    /// The unfinished tasks of other replicas whose lease ran out (a replica killed, scaled down
    /// or cut off for longer than [`JournalBuilder::replica_lease`](crate::journal::JournalBuilder::replica_lease)),
    /// now this replica's, oldest first: follow each with [`Client::resume`], as after a restart.
    /// Each task goes to one replica however many ask at once, and
    /// [`JournaledTask::taken_over_from`] names the one that began it. Nothing is sent again.
    /// Call it every lease or so; with a journal that is not shared (a file) it finds nothing.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] when the client has no journal or no
    /// [replica name](crate::ClientBuilder::replica_name) (its tasks would be nobody's);
    /// [`crate::ErrorKind::Config`] when the journal cannot be read within four times its commit
    /// wait.
    pub async fn take_over(&self) -> Result<Vec<JournaledTask>, Error> {
        let journal = self.journal_or_misuse()?;
        if journal.owner().is_empty() {
            return Err(Error::misuse("a takeover needs a replica name (ClientBuilder::replica_name)"));
        }
        let taken = journal.take_over().await?;
        self.metrics().record_taken_over(taken.len() as u64);
        Ok(taken)
    }

    /// The journal's record of the task whose first message is `message_id`, ended or not (ended
    /// ones are kept for the journal's retention): how an application tells whether it already
    /// started a task before sending it again.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Misuse`] when the client has no journal; [`crate::ErrorKind::Config`]
    /// when the journal cannot be read within twice its commit wait.
    pub async fn journaled(&self, message_id: &str) -> Result<Option<JournaledTask>, Error> {
        self.journal_or_misuse()?.find(message_id).await
    }

    /// Follows `task` (from [`Client::recover`]) to a definite outcome, as the [module
    /// docs](crate::journal) say, and records it in the journal as ended. Never sends the task's
    /// message again.
    ///
    /// # Errors
    /// As [`Client::connect`]; a transport fault past the retry budget, a lifecycle fault (no
    /// progress past the unobservable bound, the task deadline), a protocol error from `GetTask`:
    /// the task then stays unfinished in the journal.
    pub async fn resume(&self, task: &JournaledTask) -> Result<Recovered, Error> {
        let journal = self.journal_or_misuse()?;
        let conn = self.connect(task.agent()).await?;
        let recovered = match task.task_id() {
            Some(id) => Recovered::Task(Box::new(follow(self, &conn, task, TaskId::from(id)).await?)),
            None => by_context(self, &conn, task).await?,
        };
        journal.resumed(task, &recovered);
        Ok(recovered)
    }

    fn journal_or_misuse(&self) -> Result<&crate::journal::Journal, Error> {
        self.journal()
            .ok_or_else(|| Error::misuse("this client has no task journal (ClientBuilder::journal)"))
    }
}

/// The task started under the run's context id, followed; or why there is none.
async fn by_context(
    client: &Client,
    conn: &AgentConnection,
    task: &JournaledTask,
) -> Result<Recovered, Error> {
    if task.context_id().is_empty() {
        return Ok(Recovered::MayHaveStarted { reason: "the run had no context id to look it up by".into() });
    }
    // A request written before the crash may reach the agent after it, and an agent may store its
    // task a little after reading the request: an empty listing says "not started" only once the
    // start grace from the send has passed.
    let grace =
        client.journal().map_or(crate::journal::DEFAULT_START_GRACE, crate::journal::Journal::start_grace);
    let settled_at = task.begun_at() + grace;
    let context = ContextId::from(task.context_id());
    loop {
        let found = match conn.task_in_context(&context, task.message_id()).await {
            Ok(found) => found,
            // Unreachable now: try again at the next recover.
            Err(error) if error.transport_fault().is_some() => return Err(error),
            Err(error) => return Ok(Recovered::MayHaveStarted { reason: error.to_string() }),
        };
        if let Some(found) = found {
            return Ok(Recovered::Task(Box::new(follow(client, conn, task, found.id).await?)));
        }
        match settled_at.duration_since(std::time::SystemTime::now()) {
            Ok(left) if !left.is_zero() => tokio::time::sleep(left).await,
            _ => return Ok(Recovered::NotStarted),
        }
    }
}

fn settled(state: TaskState) -> bool {
    state.is_terminal() || state.is_interrupted()
}

/// `GetTask`, then the stream or the poll until the task ends or pauses.
async fn follow(
    client: &Client,
    conn: &AgentConnection,
    task: &JournaledTask,
    id: TaskId,
) -> Result<Task, Error> {
    let current = conn.get_task(GetTaskRequest::new(id)).await?;
    if settled(current.status.state) {
        return Ok(current);
    }
    let streamed = task.path() == "streaming"
        && conn.card().claims(Deployment::Direct).declares(Capability::Streaming)
        && client.discovery_cache().claim_mark(conn.agent(), &Capability::Streaming.into()).is_none();
    let mut latest = current;
    if streamed {
        let mut handle = conn.dyn_task(Deployment::Direct);
        handle.depend_only_on(CapabilitySet::of(&[Capability::Streaming]));
        handle.adopt(latest.clone())?;
        // Any failure of the stream (refused, dropped past its budget) leaves the poll to finish.
        let _ = handle.subscribe_to_task().await;
        if let Some(SendMessageResponse::Task(read)) = handle.result() {
            latest = read;
        }
        if settled(latest.status.state) {
            return Ok(latest);
        }
    }
    let mut handle = conn.dyn_task(Deployment::Direct);
    handle.depend_only_on(CapabilitySet::EMPTY);
    handle.adopt(latest)?;
    handle.poll_adopted().await?;
    match handle.result() {
        Some(SendMessageResponse::Task(read)) => Ok(read),
        _ => Err(Error::protocol_answer("the agent answered GetTask without a task")),
    }
}
