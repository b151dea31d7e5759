//! The push claim end to end (silent, wrong credentials, -32003 on the config call: refused; honest:
//! verified) and gateways (no claims, so no refusal). Silence is judged only after the task ended,
//! so those refused tasks keep their result and run once; a config call refused while the task
//! runs cancels it and sends again.

mod negotiation_common;

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script, ScriptedAgent};
use a2a_typestate::{Contradiction, Deployment};
use a2a_typestate_client::negotiate::{AfterRefusal, Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{client, count, spawn, text};

fn push() -> Negotiation {
    Negotiation::depending_on(&[Capability::PushNotifications])
}

/// Push refused once the task had completed: the agent ran it once, its artifact is the result, and
/// nothing was sent again.
fn assert_push_refused_with_the_finished_task_kept(
    client: &Client,
    agent: &RunningAgent,
    outcome: &TaskOutcome,
) {
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let mark = client.discovery_cache().is_suspect(&base).expect("marked suspect");
    assert_eq!(mark.capability(), Some(Capability::PushNotifications));
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    assert_eq!(outcome.state(), Some(TaskState::Completed), "the refused task's own result");
    let SendMessageResponse::Task(task) = &outcome.result else { panic!("a task result") };
    let answer: String = task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect();
    assert_eq!(answer, "echo: hello");
    let sends = agent.requests_for("SendMessage");
    assert_eq!(sends.len(), 1, "the negotiated send, nothing sent again");
    let negotiated = sends[0].body.as_ref().unwrap();
    let inline = negotiated.pointer("/params/configuration/taskPushNotificationConfig/url");
    assert!(inline.is_some(), "the webhook rode inline on the first send");
    assert_eq!(agent.executions(), 1);
    assert!(!outcome.may_have_run_twice());
    let metrics = client.metrics().snapshot();
    assert_eq!(metrics.refusals[&Capability::PushNotifications], 1);
    assert_eq!((metrics.fallbacks, metrics.refused_results_kept), (0, 1));
}

#[tokio::test]
async fn push_declared_but_silent_is_refused_once_the_arrival_bound_passed() {
    let agent =
        ScriptedAgent::builder().script(Script::honest().with(Lie::SilentPush)).spawn().await.unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await.unwrap();

    let refusal = outcome.refusal.as_ref().unwrap();
    assert_eq!(refusal.capability(), Capability::PushNotifications);
    let Contradiction::NoPushCallback { waited, bound } = refusal.contradiction() else {
        panic!("{refusal}")
    };
    assert!(waited > bound, "{waited:?} waited, bound {bound:?}");
    assert!(agent.push_callbacks_sent().is_empty());
    assert_push_refused_with_the_finished_task_kept(&client, &agent, &outcome);
    agent.shutdown().await;
}

#[tokio::test]
async fn push_with_wrong_credentials_is_refused_since_rejected_callbacks_never_arrive() {
    let agent = ScriptedAgent::builder()
        .script(Script::honest().with(Lie::WrongPushCredentials))
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await.unwrap();

    let refusal = outcome.refusal.as_ref().unwrap();
    assert!(matches!(refusal.contradiction(), Contradiction::NoPushCallback { .. }), "{refusal}");
    let sent = agent.push_callbacks_sent();
    assert!(!sent.is_empty(), "the agent did call back");
    assert!(sent.iter().all(|d| d.response_status == Some(401)), "each rejected by the webhook: {sent:?}");
    assert_push_refused_with_the_finished_task_kept(&client, &agent, &outcome);
    agent.shutdown().await;
}

/// A card claiming push and streaming in front of a backend that does neither.
async fn gateway() -> RunningAgent {
    spawn(
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest().with(Lie::Gateway { backend: Capabilities::none() }),
    )
    .await
}

/// [`gateway`], taking its time: a task is still running when its push config is refused.
async fn slow_gateway() -> RunningAgent {
    spawn(
        Capabilities::none().with_streaming().with_push_notifications(),
        Script::honest()
            .with(Lie::Gateway { backend: Capabilities::none() })
            .step_delay(negotiation_common::ms(300)),
    )
    .await
}

#[tokio::test]
async fn push_config_answered_push_not_supported_while_declared_is_refused() {
    let agent = slow_gateway().await;
    let client = client();

    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &push().after_refusal(AfterRefusal::SendAgain))
        .await
        .unwrap();

    // Refused while the task ran: canceled, then sent again (as asked), a second run.
    assert_eq!(outcome.path, TaskPath::Fallback);
    assert!(outcome.may_have_run_twice());
    assert_eq!(outcome.refused_task.as_ref().map(|t| t.state()), Some(TaskState::Canceled));
    assert_eq!(agent.requests_for("CancelTask").len(), 1);
    assert_eq!(agent.executions(), 2);
    let refusal = outcome.refusal.as_ref().unwrap();
    assert_eq!(refusal.capability(), Capability::PushNotifications);
    assert!(
        matches!(refusal.contradiction(), Contradiction::AgentSaysUnsupported { code: -32003, .. }),
        "{refusal}"
    );
    // Before the refusal, the other registration path: the send again without the webhook, then
    // CreateTaskPushNotificationConfig for the task it made; that answer (-32003 again) refuses.
    let sends = agent.requests_for("SendMessage");
    assert_eq!(sends.len(), 3, "inline, again without the webhook, then exactly one fallback");
    let inline = |i: usize| {
        sends[i].body.as_ref().unwrap().pointer("/params/configuration/taskPushNotificationConfig").is_some()
    };
    assert!(inline(0) && !inline(1) && !inline(2));
    assert!(sends[2].body.as_ref().unwrap().pointer("/params/configuration/returnImmediately").is_none());
    assert_eq!(agent.requests_for("CreateTaskPushNotificationConfig").len(), 1);
    let paths: Vec<_> = outcome.push_registration.iter().map(|a| a.path).collect();
    assert_eq!(
        paths,
        [
            a2a_typestate_client::task::PushRegistrationPath::Inline,
            a2a_typestate_client::task::PushRegistrationPath::CreateTaskPushNotificationConfig
        ]
    );
    assert!(outcome.push_registration.iter().all(|a| !a.answer.accepted()));
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let mark = client.discovery_cache().is_suspect(&base).expect("marked suspect");
    assert_eq!(mark.capability(), Some(Capability::PushNotifications));
    assert_eq!(client.metrics().snapshot().refusals[&Capability::PushNotifications], 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn gateway_card_gives_no_claims_so_nothing_is_refused() {
    let agent = gateway().await;
    let client = client();
    let depends = Negotiation::depending_on(&[Capability::Streaming, Capability::PushNotifications])
        .deployment(Deployment::Gateway);

    let outcome = client.run_task(&agent.base_url(), text("hello"), &depends).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.refusal.is_none());
    assert!(outcome.verified.is_empty());
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    // The backend refused the stream (-32004) and the webhook (-32003, no task created); the task
    // was still done, by polling, after one send without the webhook.
    assert_eq!(count(&agent, "SendStreamingMessage"), 1);
    let sends = agent.requests_for("SendMessage");
    assert_eq!(sends.len(), 2);
    assert!(
        sends[1].body.as_ref().unwrap().pointer("/params/configuration/taskPushNotificationConfig").is_none()
    );
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    assert_eq!(client.metrics().snapshot().refusals.values().sum::<u64>(), 0);
    agent.shutdown().await;
}

#[tokio::test]
async fn honest_push_verifies_the_push_claim() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated);
    assert!(outcome.verified.contains(Capability::PushNotifications));
    assert!(agent.push_callbacks_sent().iter().any(|d| d.response_status == Some(200)));
    assert!(client.discovery_cache().is_suspect(&outcome.agent).is_none());
    agent.shutdown().await;
}

#[tokio::test]
async fn concurrent_runs_share_one_webhook_receiver_and_each_verifies_its_own_callbacks() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_push_notifications())
        .spawn()
        .await
        .unwrap();
    let client = client();
    let receiver = std::sync::Arc::new(client.start_push_receiver().await.unwrap());
    let depends = push().push_receiver(receiver.clone());

    let url = agent.base_url();
    let (a, b) = tokio::join!(
        client.run_task(&url, text("one"), &depends),
        client.run_task(&url, text("two"), &depends),
    );

    for outcome in [a.unwrap(), b.unwrap()] {
        assert_eq!(outcome.path, TaskPath::Negotiated);
        assert!(outcome.verified.contains(Capability::PushNotifications));
    }
    let urls: std::collections::BTreeSet<_> =
        agent.push_callbacks_sent().into_iter().map(|d| d.url).collect();
    assert_eq!(urls.len(), 2, "one registration per task");
    assert!(urls.iter().all(|url| url.starts_with(receiver.base_url())), "all on the shared receiver");
    agent.shutdown().await;
}

/// A neighbour holding the shared webhook receiver with its own valid token (slow bodies, five
/// times the cap) exhausts only its own share: the honest agent beside it is verified.
#[tokio::test]
async fn an_honest_agent_beside_one_holding_the_shared_receiver_is_verified() {
    use tokio::io::AsyncWriteExt;
    let limits = a2a_typestate_client::webhook::WebhookLimits {
        max_connections: 16,
        ..a2a_typestate_client::webhook::WebhookLimits::default()
    };
    let client = negotiation_common::builder().webhook_limits(limits).build().unwrap();
    let receiver = std::sync::Arc::new(client.start_push_receiver().await.unwrap());
    let hog = receiver.register(&a2a_typestate_types::TaskId::new("hog"));
    let path = &hog.url()[hog.url().find("/a2a/").unwrap()..];
    let mut held = Vec::new();
    for _ in 0..80 {
        let mut stream = tokio::net::TcpStream::connect(receiver.local_addr()).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-a2a-notification-token: {}\r\ncontent-length: 100000\r\n\r\n{{",
            hog.token()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        held.push(stream);
    }
    let agent = spawn(Capabilities::none().with_push_notifications(), Script::honest()).await;

    let outcome =
        client.run_task(&agent.base_url(), text("hello"), &push().push_receiver(receiver)).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{outcome}");
    assert!(outcome.verified.contains(Capability::PushNotifications), "{outcome}: {:?}", outcome.verdicts);
    drop(held);
    agent.shutdown().await;
}
