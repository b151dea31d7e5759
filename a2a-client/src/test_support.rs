//! Real verdicts from the typestate verifier, for tests of how the client carries them.

use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{
    AgentCardLifecycleViolation, Bounds, Call, CapabilitySet, CardClaims, Channel, Deployment, ExchangeModes,
    LifecycleFault, Observed, Verifier,
};
use a2a_typestate_types::{AgentCard, TaskId, TaskState};

fn verifier(capabilities: &str, depends_on: CapabilitySet) -> Verifier {
    let card: AgentCard = a2a_typestate_types::parse::from_str(&format!(
        r#"{{"name":"liar","description":"d","version":"1","supportedInterfaces":[{{"url":"http://a.example",
        "protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],"capabilities":{capabilities},
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
    ))
    .unwrap();
    let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
    let mut verifier = Verifier::new(claims, depends_on, Bounds::default());
    verifier.observe(
        Duration::ZERO,
        Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None },
    );
    verifier
}

/// A card declaring streaming whose agent answers the streaming call with -32004.
pub(crate) fn streaming_violation() -> AgentCardLifecycleViolation {
    let streaming = CapabilitySet::of(&[a2a_typestate::Capability::Streaming]);
    let mut verifier = verifier(r#"{"streaming":true}"#, streaming);
    let at = Duration::from_millis(10);
    verifier.observe(at, Observed::AgentError { call: Call::SendStreamingMessage, code: -32004 });
    verifier.refusal(at).unwrap()
}

/// A task `working` with no progress for longer than the unobservable bound.
pub(crate) fn working_unobservable() -> LifecycleFault {
    let mut verifier = verifier("{}", CapabilitySet::EMPTY);
    let status = Observed::Status {
        task_id: TaskId::new("t1"),
        context_id: None,
        state: TaskState::Working,
        message: None,
        via: Channel::GetTask,
        artifacts: None,
    };
    verifier.observe(Duration::from_millis(10), status);
    verifier.lifecycle_fault(Bounds::default().unobservable() * 2).unwrap()
}
