//! Typed entry points: the same negotiation as [`Client::run_task`], returning the typestate
//! handle whose type says how far the claim came, so later code can require a verified claim at
//! compile time (`Task<Claims<StreamingVerified>>::rely_on_streaming`).

use a2a_types::Message;
use a2a_typestate::{
    Capability, CapabilitySet, Claims, DynTask, Refusal, Settlement, SingleShot, StreamingClaimed,
    StreamingVerified, Task,
};

use super::{Negotiation, TaskOutcome};
use crate::{Client, Error};

/// What [`Client::negotiate_streaming`] learned about the agent's streaming claim, each with the
/// task's [`TaskOutcome`] (its result, always).
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamingNegotiation {
    /// The first stream delivered what the claim promises: the handle's streaming slot is
    /// verified, so [`Task::rely_on_streaming`] compiles for it.
    Verified {
        /// The verified handle.
        task: Task<Claims<StreamingVerified>>,
        /// The task's outcome.
        outcome: TaskOutcome,
    },
    /// All three refusal conditions held: the refusal carries the violation and the handle
    /// downgraded to `Task<SingleShot>`; the outcome carries the fallback's result.
    Refused {
        /// The violation and the single-shot handle.
        refusal: Refusal,
        /// The task's outcome (path [`TaskPath::Fallback`](super::TaskPath::Fallback)).
        outcome: TaskOutcome,
    },
    /// Settled neither way: the card claims no streaming (or is a gateway), the divergence was
    /// reached outside the card's default modes, a cut stream left the artifacts unconfirmed, or
    /// the task ended waiting for input. The dynamic handle, with every observation.
    Unsettled {
        /// The handle as the run left it.
        task: DynTask,
        /// The task's outcome.
        outcome: TaskOutcome,
    },
    /// The agent was capability-suspect: one single-shot send at once, a single-shot handle.
    SingleShot {
        /// The single-shot handle.
        task: Task<SingleShot>,
        /// The task's outcome (path
        /// [`TaskPath::SingleShotBecauseSuspect`](super::TaskPath::SingleShotBecauseSuspect)).
        outcome: TaskOutcome,
    },
}

impl StreamingNegotiation {
    /// The task's outcome, whichever way the claim went.
    pub fn outcome(&self) -> &TaskOutcome {
        match self {
            Self::Verified { outcome, .. }
            | Self::Refused { outcome, .. }
            | Self::Unsettled { outcome, .. }
            | Self::SingleShot { outcome, .. } => outcome,
        }
    }
}

impl Client {
    /// Runs one task as [`Client::run_task`] with a path that depends on streaming (and nothing
    /// else: the other capabilities in `negotiation` are not checked), and returns the typestate
    /// handle that followed it.
    ///
    /// ```
    /// use a2a_client::Client;
    /// use a2a_client::negotiate::{Negotiation, StreamingNegotiation};
    /// use a2a_testkit::{Capabilities, ScriptedAgent};
    /// use a2a_types::Message;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await?;
    /// let client = Client::builder().build()?;
    /// let message = Message::user_text("m1", "hello");
    /// match client.negotiate_streaming(&agent.base_url(), message, &Negotiation::default()).await? {
    ///     StreamingNegotiation::Verified { task, .. } => {
    ///         let _reliance = task.rely_on_streaming(); // compiles only on a verified handle
    ///     }
    ///     StreamingNegotiation::Refused { refusal, outcome } => {
    ///         println!("{}; fallback result: {:?}", refusal.violation(), outcome.state());
    ///         let _single_shot = refusal.into_task();
    ///     }
    ///     other => println!("unsettled: {:?}", other.outcome().path),
    /// }
    /// # agent.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`Client::run_task`].
    pub async fn negotiate_streaming(
        &self,
        agent: &str,
        message: Message,
        negotiation: &Negotiation,
    ) -> Result<StreamingNegotiation, Error> {
        let plan = negotiation.clone().with_depends(CapabilitySet::of(&[Capability::Streaming]));
        let (outcome, trace) = self.run_task_traced(agent, message, &plan).await?;
        let Some(handle) = trace.handle else {
            return Err(Error::config("the negotiated run left no task handle"));
        };
        if handle.is_single_shot() {
            return Ok(match Task::<SingleShot>::try_from(handle) {
                Ok(task) => StreamingNegotiation::SingleShot { task, outcome },
                Err(error) => StreamingNegotiation::Unsettled { task: error.into_handle(), outcome },
            });
        }
        let task = match Task::<Claims<StreamingClaimed>>::try_from(handle) {
            Ok(task) => task,
            // The card claims no streaming: nothing to settle.
            Err(error) => return Ok(StreamingNegotiation::Unsettled { task: error.into_handle(), outcome }),
        };
        Ok(match task.settle_streaming(trace.elapsed) {
            Ok(Settlement::Verified(task)) => StreamingNegotiation::Verified { task, outcome },
            Ok(Settlement::Pending(task, _)) => {
                StreamingNegotiation::Unsettled { task: task.into_dyn(), outcome }
            }
            Err(refusal) => StreamingNegotiation::Refused { refusal, outcome },
        })
    }
}
