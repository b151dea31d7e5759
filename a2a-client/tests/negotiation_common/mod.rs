//! Helpers shared by the negotiation tests: a client with short bounds, messages, and what went on
//! the wire.
#![allow(dead_code)]

use std::time::Duration;

use a2a_testkit::{Capabilities, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::{Client, ClientBuilder, PollCadence, RetryPolicy};
use a2a_typestate_types::{Message, Part, Role};

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Short bounds so refusals and faults show within a test's time: fast retries, 20 ms polls,
/// a 600 ms push-arrival bound.
pub fn builder() -> ClientBuilder {
    Client::builder()
        .retry_policy(RetryPolicy::new(3, ms(10), ms(40), 1.0).unwrap())
        .poll_cadence(PollCadence::new(ms(20), 1.5, ms(80)).unwrap())
        .push_arrival_bound(ms(600))
}

pub fn client() -> Client {
    builder().build().unwrap()
}

/// A scripted agent on loopback whose card declares `capabilities` and which acts out `script`.
pub async fn spawn(capabilities: Capabilities, script: Script) -> RunningAgent {
    ScriptedAgent::builder().capabilities(capabilities).script(script).spawn().await.unwrap()
}

pub fn text(body: &str) -> Message {
    Message::user(body)
}

/// A message whose only part is a PNG image.
pub fn image() -> Message {
    Message::new(
        uuid::Uuid::new_v4().to_string(),
        Role::User,
        vec![Part::raw(vec![0x89, b'P', b'N', b'G']).with_media_type("image/png")],
    )
}

/// The A2A operations the agent received, in order (card fetches left out).
pub fn operations(agent: &RunningAgent) -> Vec<String> {
    agent.requests().into_iter().filter_map(|r| r.operation).collect()
}

/// How many times the agent received `operation`.
pub fn count(agent: &RunningAgent, operation: &str) -> usize {
    agent.requests_for(operation).len()
}
