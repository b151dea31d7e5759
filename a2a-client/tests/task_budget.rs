//! What a task costs is bounded by the task budget the user set, whatever the agent does: a hung
//! agent costs no more than the task deadline (a card endpoint that accepts and never answers,
//! operations answered only after the deadline, a fan-out with one such agent among honest ones),
//! and a result no more than its bytes.

mod negotiation_common;

use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Fault, Script};
use a2a_typestate_client::negotiate::Negotiation;
use a2a_typestate_client::{Capability, Client, ErrorKind};
use negotiation_common::{builder, ms, spawn, text};

/// A client whose request timeout is far longer than its task deadline: the deadline must decide.
fn client_with_deadline(deadline: Duration) -> Client {
    builder().request_timeout(Duration::from_secs(60)).task_deadline(deadline).build().unwrap()
}

/// The deadline plus what a loaded machine may add to a timer.
fn within(deadline: Duration, took: Duration) -> bool {
    took < deadline + ms(700)
}

#[tokio::test]
async fn a_card_endpoint_that_never_answers_costs_the_task_deadline_and_nothing_is_sent() {
    let url = a2a_testkit::hung_agent().await.unwrap();
    let deadline = ms(800);
    let client = client_with_deadline(deadline);

    let started = Instant::now();
    let err = client.run_task(&url, text("hello"), &Negotiation::default()).await.unwrap_err();

    assert!(within(deadline, started.elapsed()), "took {:?}", started.elapsed());
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert!(err.is_timeout(), "{err}");
    assert!(!err.may_have_run(), "discovery never finished: nothing was sent ({err})");
    let cause = std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default();
    assert!(cause.contains("task deadline of 800 ms passed while discovering"), "{cause}");
}

#[tokio::test]
async fn operations_answered_after_the_deadline_cost_the_deadline_and_may_have_run() {
    for depends in [&[][..], &[Capability::Streaming][..]] {
        let agent = spawn(
            Capabilities::none().with_streaming(),
            Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(30))),
        )
        .await;
        let deadline = ms(900);
        let client = client_with_deadline(deadline);

        let started = Instant::now();
        let negotiation = Negotiation::depending_on(depends);
        let err = client.run_task(&agent.base_url(), text("hello"), &negotiation).await.unwrap_err();

        assert!(within(deadline, started.elapsed()), "{depends:?}: took {:?}", started.elapsed());
        assert!(err.may_have_run(), "{depends:?}: the send was made: {err}");
        assert!(!err.is_retryable(), "{depends:?}");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn one_hung_agent_costs_a_fan_out_no_more_than_the_deadline() {
    let mut urls = vec![a2a_testkit::hung_agent().await.unwrap()];
    let mut honest = Vec::new();
    for _ in 0..4 {
        let agent = spawn(Capabilities::none().with_streaming(), Script::honest().step_delay(ms(20))).await;
        urls.push(agent.base_url());
        honest.push(agent);
    }
    let deadline = Duration::from_secs(2);
    let client = client_with_deadline(deadline);
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let started = Instant::now();
    let runs =
        futures::future::join_all(urls.iter().map(|url| client.run_task(url, text("fan"), &negotiation)))
            .await;

    assert!(within(deadline, started.elapsed()), "took {:?}", started.elapsed());
    assert!(runs[0].is_err(), "the hung agent ended with an error");
    for run in &runs[1..] {
        let outcome = run.as_ref().unwrap();
        assert_eq!(outcome.text().as_deref(), Some("echo: fan"));
    }
    for agent in honest {
        assert_eq!(agent.executions(), 1);
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn a_result_past_the_task_budget_ends_the_task_naming_the_bound() {
    // The scripted agent's artifact is "echo: " and the message: past a 1 KiB budget.
    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let budget = a2a_typestate_client::TaskBudget::default().with_result_bytes(1024);
    let client = builder().task_budget(budget).build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let err = client.run_task(&agent.base_url(), text(&"x".repeat(4096)), &negotiation).await.unwrap_err();

    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    let said =
        format!("{err}: {}", std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default());
    assert!(said.contains("task budget of 1024 bytes"), "{said}");
    assert!(err.may_have_run(), "the agent took the task: {err}");
    assert_eq!(agent.executions(), 1);
    agent.shutdown().await;

    let agent = spawn(Capabilities::none().with_streaming(), Script::honest()).await;
    let outcome = client.run_task(&agent.base_url(), text("small"), &negotiation).await.unwrap();
    assert_eq!(outcome.text().as_deref(), Some("echo: small"), "under the bound nothing changes");
    agent.shutdown().await;
}
