//! A run in the task journal: what identifies it written before its first byte, each state read
//! on the way (through the run's update observer, so the engine is not touched), and its end.

use std::borrow::Cow;
use std::sync::Arc;

use a2a_typestate::Capability;
use a2a_typestate_types::{ContextId, Message, MessageId};

use super::{Negotiation, TaskOutcome};
use crate::agent_url::AgentBaseUrl;
use crate::journal::{Begin, Journal, Recorder};
use crate::task::OnUpdate;
use crate::{AgentConnection, Client, Error, SuspectMarks};

/// Gives the message the ids recovery needs (a message id, and a context id of the client's when
/// it has none, so the agent can list the task by it) and commits what identifies the run.
pub(super) async fn begin(
    client: &Client,
    journal: &Journal,
    conn: &AgentConnection,
    mut message: Message,
    negotiation: &Negotiation,
) -> (Message, Arc<Recorder>) {
    if message.message_id.is_empty() {
        message.message_id = MessageId::random();
    }
    if message.context_id.as_ref().is_none_or(|c| c.is_empty()) {
        message.context_id = Some(ContextId::from(uuid::Uuid::new_v4().to_string()));
    }
    let suspect = client.config().suspect_marks() == SuspectMarks::On
        && client.discovery_cache().is_suspect(conn.agent()).is_some();
    let depends = negotiation.depends();
    let path = if suspect {
        "single-shot"
    } else if depends.contains(Capability::Streaming) {
        "streaming"
    } else {
        "polling"
    };
    let claims = conn.card().claims(negotiation.deployment_kind());
    let begin = Begin {
        agent: conn.agent(),
        message_id: message.message_id.as_str(),
        context_id: message.context_id.as_ref().map_or("", |c| c.as_str()),
        path,
        depends: depends.iter().map(|c| c.card_field().to_owned()).collect(),
        claimed: depends.iter().filter(|c| claims.declares(*c)).map(|c| c.card_field().to_owned()).collect(),
    };
    let recorder = Recorder::begin(journal, begin).await;
    (message, recorder)
}

/// The negotiation with an update observer that records each state in the journal, after the
/// caller's own observer.
pub(super) fn observed<'a>(negotiation: &'a Negotiation, recorder: &Arc<Recorder>) -> Cow<'a, Negotiation> {
    let caller = negotiation.update_observer().cloned();
    let recorder = Arc::clone(recorder);
    let observer = OnUpdate::new(move |update| {
        if let Some(caller) = &caller {
            caller.event(update);
        }
        recorder.observe(update);
    });
    Cow::Owned(negotiation.clone().on_update(observer))
}

/// Records the run's end and the agent's marks; the outcome says whether the run was durable.
pub(super) fn end(
    client: &Client,
    journal: &Journal,
    agent: &AgentBaseUrl,
    recorder: &Recorder,
    run: Result<TaskOutcome, Error>,
) -> Result<TaskOutcome, Error> {
    match &run {
        Ok(outcome) => recorder.end(outcome.state(), None),
        Err(error) => recorder.end(None, Some(error)),
    }
    journal.remember_marks(client.discovery_cache(), agent);
    run.map(|mut outcome| {
        outcome.durability = recorder.durability();
        outcome
    })
}
