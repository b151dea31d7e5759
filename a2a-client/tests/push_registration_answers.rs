//! What the agent answers a push-config call decides the next registration path at once: an
//! explicit "not supported" (-32003) to the confirmation of an inline config moves straight to
//! `CreateTaskPushNotificationConfig`, whose answer is the one judged; and silence at a webhook URL
//! the agent itself refused (-32602) is explained, not a broken claim.

mod negotiation_common;

use std::time::Duration;

use a2a_testkit::{Binding, Capabilities, Lie, Quirk, Script, ScriptedAgent};
use a2a_typestate::{Call, Contradiction, Observed, PendingReason, Verdict};
use a2a_typestate_client::negotiate::{AfterRefusal, Negotiation, TaskPath};
use a2a_typestate_client::task::{PushRegistrationAnswer, PushRegistrationPath};
use a2a_typestate_client::{AgentBaseUrl, Capability};
use negotiation_common::{builder, client, operations, spawn, text};

fn push() -> Negotiation {
    Negotiation::depending_on(&[Capability::PushNotifications])
}

#[tokio::test]
async fn not_supported_to_the_inline_config_confirmation_goes_straight_to_the_create_call() {
    // The task takes a few steps, and the arrival bound is long: waiting it out first would show
    // as a NoPushCallback refusal judged after the terminal state, not as the create call's answer.
    let agent = spawn(
        Capabilities::none(),
        Script::honest().with(Lie::PushConfigUnsupported).step_delay(Duration::from_millis(300)),
    )
    .await;
    let client = builder().push_arrival_bound(Duration::from_secs(60)).build().unwrap();

    let outcome = client
        .run_task(&agent.base_url(), text("hello"), &push().after_refusal(AfterRefusal::SendAgain))
        .await
        .unwrap();

    let attempts: Vec<(PushRegistrationPath, PushRegistrationAnswer)> =
        outcome.push_registration.iter().map(|a| (a.path, a.answer.clone())).collect();
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!(attempts[0].0, PushRegistrationPath::Inline);
    assert!(
        matches!(&attempts[0].1, PushRegistrationAnswer::Dropped(why) if why.contains("-32003")),
        "the inline config is recorded as not held, with the agent's answer: {attempts:?}"
    );
    assert_eq!(attempts[1].0, PushRegistrationPath::CreateTaskPushNotificationConfig);
    assert!(
        matches!(&attempts[1].1, PushRegistrationAnswer::Refused { code: Some(-32003), .. }),
        "{attempts:?}"
    );

    // On the wire: the confirmation, then the create call right after it.
    let ops = operations(&agent);
    let get = ops.iter().position(|o| o == "GetTaskPushNotificationConfig").expect("confirmed");
    assert_eq!(ops.get(get + 1).map(String::as_str), Some("CreateTaskPushNotificationConfig"), "{ops:?}");
    assert_eq!(ops.iter().filter(|o| *o == "GetTaskPushNotificationConfig").count(), 1, "{ops:?}");
    assert_eq!(ops.iter().filter(|o| *o == "CreateTaskPushNotificationConfig").count(), 1, "{ops:?}");

    // The create call's answer is the one judged, before the task even ended: the running task
    // is canceled and the message sent again (as asked), a second run of the work.
    assert_eq!(outcome.path, TaskPath::Fallback);
    assert!(outcome.may_have_run_twice());
    assert_eq!(ops.iter().filter(|o| *o == "CancelTask").count(), 1, "{ops:?}");
    assert_eq!(agent.executions(), 2);
    let refusal = outcome.refusal.as_ref().expect("refused");
    assert_eq!(refusal.capability(), Capability::PushNotifications);
    assert_eq!(
        refusal.contradiction(),
        &Contradiction::AgentSaysUnsupported { call: Call::PushNotificationConfig, code: -32003 }
    );
    let terminal = outcome.observations.iter().position(
        |(_, o)| matches!(o, Observed::Status { state, via, .. } if state.is_terminal() && *via != a2a_typestate::Channel::Push),
    );
    assert!(
        terminal.is_none_or(|t| refusal.evidence().seq < t),
        "refused before the terminal transition, so no arrival bound was waited: {:?}",
        outcome.observations
    );
    agent.shutdown().await;
}

#[tokio::test]
async fn silence_at_a_webhook_url_the_agent_refused_is_explained_not_refused() {
    let agent = spawn(
        Capabilities::none().with_push_notifications(),
        Script::honest().quirk(Quirk::NeverCallsPrivateWebhooks),
    )
    .await;
    let client = client();

    let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Negotiated, "{:?}", outcome.refusal);
    assert!(outcome.refusal.is_none());
    let attempts = &outcome.push_registration;
    assert!(
        matches!(
            attempts.first().map(|a| (a.path, &a.answer)),
            Some((PushRegistrationPath::Inline, PushRegistrationAnswer::Refused { code: Some(-32602), .. }))
        ),
        "{attempts:?}"
    );
    assert!(
        attempts
            .iter()
            .any(|a| a.path == PushRegistrationPath::CreateTaskPushNotificationConfig && a.answer.accepted()),
        "{attempts:?}"
    );
    assert!(agent.push_callbacks_sent().is_empty(), "its policy: never called");
    let push = outcome.verdicts.iter().find(|(c, _)| *c == Capability::PushNotifications).map(|(_, v)| v);
    assert!(
        matches!(push, Some(Verdict::Pending(p)) if matches!(p.reason(), PendingReason::WebhookUrlRefused { code: -32602, .. })),
        "{push:?}"
    );
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    assert!(client.discovery_cache().is_suspect(&base).is_none(), "an honest agent is never marked");
    agent.shutdown().await;
}

/// Over HTTP+JSON and gRPC, an agent's -32602 comes as a status `INVALID_ARGUMENT` with no
/// `ErrorInfo` (the spec gives the JSON-RPC standard errors no reason): the same answer as over
/// JSON-RPC, a webhook URL the agent will not call, so the task goes on and push is not refused.
#[tokio::test]
async fn a_webhook_url_refused_over_http_json_or_grpc_is_the_agents_own_refusal_as_over_json_rpc() {
    for binding in [Binding::HttpJson, Binding::Grpc] {
        let agent = ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_push_notifications())
            .script(Script::honest().quirk(Quirk::RejectsPrivateWebhookUrls))
            .bindings([binding])
            .spawn()
            .await
            .unwrap();
        let client = client();

        let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await;

        let outcome = outcome.unwrap_or_else(|e| panic!("{binding:?}: the task failed: {e}"));
        assert_eq!(outcome.path, TaskPath::Negotiated, "{binding:?}: {:?}", outcome.refusal);
        let attempts = &outcome.push_registration;
        assert!(
            !attempts.is_empty()
                && attempts
                    .iter()
                    .all(|a| matches!(a.answer, PushRegistrationAnswer::Refused { code: Some(-32602), .. })),
            "{binding:?}: refused as invalid params on every path: {attempts:?}"
        );
        let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
        assert!(client.discovery_cache().is_suspect(&base).is_none(), "{binding:?}: never marked");
        agent.shutdown().await;
    }
}

/// An inline config the agent accepted and forgot is registered again with the create call; when
/// the task had already ended by then (unseen: the client had not polled it yet), nothing was
/// left to push, and the silence that follows is no evidence against the card.
#[tokio::test]
async fn a_webhook_created_after_the_task_ended_unseen_is_not_refused_for_the_silence() {
    for binding in [Binding::JsonRpc, Binding::HttpJson] {
        // No step delay: the task ends while the client confirms the inline config.
        let agent = ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_push_notifications())
            .script(Script::honest().quirk(Quirk::DropsInlinePushConfig).step_delay(Duration::ZERO))
            .bindings([binding])
            .spawn()
            .await
            .unwrap();
        let client = client();

        let outcome = client.run_task(&agent.base_url(), text("hello"), &push()).await.unwrap();

        assert!(
            agent.push_callbacks_sent().is_empty(),
            "{binding:?}: the config came after the last event, nothing was pushed"
        );
        assert_eq!(outcome.path, TaskPath::Negotiated, "{binding:?}: {:?}", outcome.refusal);
        let attempts: Vec<_> = outcome.push_registration.iter().map(|a| a.path).collect();
        assert_eq!(
            attempts,
            [PushRegistrationPath::Inline, PushRegistrationPath::CreateTaskPushNotificationConfig],
            "{binding:?}"
        );
        let push = outcome.verdicts.iter().find(|(c, _)| *c == Capability::PushNotifications).map(|(_, v)| v);
        assert!(matches!(push, Some(Verdict::Pending(_))), "{binding:?}: unexercised, not refused: {push:?}");
        let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
        assert!(client.discovery_cache().is_suspect(&base).is_none(), "{binding:?}: never marked");
        agent.shutdown().await;
    }
}
