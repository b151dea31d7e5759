//! Shared helpers for the specification tests: cards in one line, observations in one word.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{
    Bounds, CapabilitySet, CardClaims, Channel, Deployment, ExchangeModes, Observed, Verifier,
};
use a2a_typestate_types::{AgentCard, ContextId, TaskId, TaskState};

/// A card with the given `capabilities` JSON object and default modes.
pub fn card_json(capabilities: &str, input: &[&str], output: &[&str]) -> AgentCard {
    let json = format!(
        r#"{{"name":"agent","description":"test agent","version":"1","supportedInterfaces":[],"skills":[],
            "defaultInputModes":{},"defaultOutputModes":{},"capabilities":{capabilities}}}"#,
        serde_json::to_string(input).unwrap(),
        serde_json::to_string(output).unwrap(),
    );
    a2a_typestate_types::parse::from_str(&json).unwrap()
}

/// Claims lifted from a direct (non-gateway) card with `text/plain` in and out.
pub fn claims(capabilities: &str) -> Arc<CardClaims> {
    Arc::new(CardClaims::lift(&card_json(capabilities, &["text/plain"], &["text/plain"]), Deployment::Direct))
}

/// The card claiming everything.
pub const ALL_CLAIMS: &str = r#"{"streaming":true,"pushNotifications":true,"stateTransitionHistory":true}"#;

/// A verifier for a caller depending on everything the card claims.
pub fn verifier(capabilities: &str) -> Verifier {
    Verifier::new(claims(capabilities), CapabilitySet::ALL, Bounds::default())
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

pub fn task_id() -> TaskId {
    TaskId::new("task-1")
}

pub fn context_id() -> ContextId {
    ContextId::new("ctx-1")
}

/// The client sent a first plain-text message.
pub fn sent_text() -> Observed {
    Observed::MessageSent { modes: ExchangeModes::text(), task_id: None, context_id: None }
}

/// The client sent a first message with these input media types.
pub fn sent(input: &[&str]) -> Observed {
    Observed::MessageSent {
        modes: ExchangeModes::new(input.iter().copied(), std::iter::empty::<&str>()),
        task_id: None,
        context_id: None,
    }
}

/// The client sent a plain-text follow-up to the task.
pub fn follow_up() -> Observed {
    Observed::MessageSent {
        modes: ExchangeModes::text(),
        task_id: Some(task_id()),
        context_id: Some(context_id()),
    }
}

/// A status update event (no artifacts attached).
pub fn status(state: TaskState, via: Channel) -> Observed {
    Observed::Status {
        task_id: task_id(),
        context_id: Some(context_id()),
        state,
        message: None,
        via,
        artifacts: None,
    }
}

/// A whole `Task` with `artifacts` artifacts.
pub fn snapshot(state: TaskState, via: Channel, artifacts: usize) -> Observed {
    Observed::Status {
        task_id: task_id(),
        context_id: Some(context_id()),
        state,
        message: None,
        via,
        artifacts: Some(artifacts),
    }
}

/// Feeds `events` one millisecond apart, starting at 0.
pub fn feed(verifier: &mut Verifier, events: impl IntoIterator<Item = Observed>) {
    for (i, event) in events.into_iter().enumerate() {
        verifier.observe(ms(i as u64), event);
    }
}
