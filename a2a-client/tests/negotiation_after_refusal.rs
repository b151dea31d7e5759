//! What becomes of a refused task, counted from the agent's side (`RunningAgent::executions`): a
//! task refused after it ended keeps its result and runs once, whatever the policy; one refused
//! while it runs is canceled and sent again (a second run the outcome reports) or left with the
//! refusal, as `AfterRefusal` says; one refused before the agent accepted any task is sent once.

mod negotiation_common;

use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script};
use a2a_typestate::Contradiction;
use a2a_typestate_client::negotiate::{AfterRefusal, Fallback, Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client};
use a2a_typestate_types::{GetTaskRequest, SendMessageResponse, TaskState};
use negotiation_common::{client, count, ms, spawn, text};

/// How long each step of a slow agent's task takes: its push config is refused while it runs.
const SLOW_STEP: Duration = Duration::from_millis(300);

fn depending_on(capability: Capability) -> Negotiation {
    Negotiation::depending_on(&[capability])
}

/// The text of a task result's artifacts.
fn artifact_text(result: &SendMessageResponse) -> String {
    let SendMessageResponse::Task(task) = result else { panic!("a task result: {result:?}") };
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect()
}

/// A finished task refused: its own result with its artifact, one execution, nothing sent again.
fn assert_kept_and_run_once(outcome: &TaskOutcome, agent: &RunningAgent, sends_before_refusal: usize) {
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{outcome}");
    assert!(outcome.refusal.is_some());
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(artifact_text(&outcome.result), "echo: the work");
    assert!(outcome.refused_task.is_none(), "the refused task is the result");
    assert!(!outcome.fell_back() && !outcome.may_have_run_twice());
    assert_eq!(agent.executions(), 1, "the agent ran the work once");
    assert_eq!(count(agent, "SendMessage"), sends_before_refusal, "nothing sent again");
    assert_eq!(count(agent, "CancelTask"), 0, "a finished task is not canceled");
}

#[tokio::test]
async fn a_task_refused_at_the_end_of_a_stream_without_its_artifact_runs_once_and_keeps_its_result() {
    let agent =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    let client = client();

    let outcome = client
        .run_task(&agent.base_url(), text("the work"), &depending_on(Capability::Streaming))
        .await
        .unwrap();

    assert!(matches!(
        outcome.refusal.as_ref().map(|v| v.contradiction()),
        Some(Contradiction::NoArtifactStreamed { .. })
    ));
    assert_kept_and_run_once(&outcome, &agent, 0);
    assert_eq!(client.metrics().snapshot().refused_results_kept, 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_task_refused_for_a_silent_push_runs_once_and_keeps_its_result() {
    let agent =
        spawn(Capabilities::none().with_push_notifications(), Script::honest().with(Lie::SilentPush)).await;
    let client = client();

    let outcome = client
        .run_task(&agent.base_url(), text("the work"), &depending_on(Capability::PushNotifications))
        .await
        .unwrap();

    assert!(matches!(
        outcome.refusal.as_ref().map(|v| v.contradiction()),
        Some(Contradiction::NoPushCallback { .. })
    ));
    assert_kept_and_run_once(&outcome, &agent, 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_task_refused_for_push_callbacks_the_webhook_rejected_runs_once_and_keeps_its_result() {
    let agent = spawn(
        Capabilities::none().with_push_notifications(),
        Script::honest().with(Lie::WrongPushCredentials),
    )
    .await;
    let client = client();

    let outcome = client
        .run_task(&agent.base_url(), text("the work"), &depending_on(Capability::PushNotifications))
        .await
        .unwrap();

    assert!(matches!(
        outcome.refusal.as_ref().map(|v| v.contradiction()),
        Some(Contradiction::NoPushCallback { .. })
    ));
    assert_kept_and_run_once(&outcome, &agent, 1);
    agent.shutdown().await;
}

/// The finished task is kept whatever the policy says: the policy is for unfinished tasks only.
#[tokio::test]
async fn a_finished_refused_task_is_kept_whatever_the_policy() {
    for policy in [AfterRefusal::FollowToEnd, AfterRefusal::SendAgain, AfterRefusal::EndWithRefusal] {
        let agent =
            spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact))
                .await;
        let negotiation = depending_on(Capability::Streaming).after_refusal(policy);
        let outcome = client().run_task(&agent.base_url(), text("the work"), &negotiation).await.unwrap();
        assert_kept_and_run_once(&outcome, &agent, 0);
        agent.shutdown().await;
    }
}

/// The history claim is refused at the task's end too, with the advice to abandon: an error, and
/// still one execution.
#[tokio::test]
async fn a_task_abandoned_for_an_empty_history_runs_once() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::EmptyHistory)).await;
    let client = client();

    let error = client
        .run_task(&agent.base_url(), text("the work"), &depending_on(Capability::StateTransitionHistory))
        .await
        .unwrap_err();

    assert!(error.lifecycle_violation().is_some(), "{error}");
    assert_eq!(agent.executions(), 1);
    assert_eq!(count(&agent, "SendMessage"), 1);
    agent.shutdown().await;
}

/// An agent whose card claims push and which ignores an inline config and answers -32003 to the
/// config calls (as a2a-sdk does with no push store), slow enough that the refusal comes while its
/// task runs.
async fn slow_push_config_refuser() -> RunningAgent {
    spawn(Capabilities::none(), Script::honest().with(Lie::PushConfigUnsupported).step_delay(SLOW_STEP)).await
}

#[tokio::test]
async fn a_task_refused_while_it_runs_is_followed_to_its_end_by_default_and_runs_once() {
    let agent = slow_push_config_refuser().await;
    let client = client();

    let outcome = client
        .run_task(&agent.base_url(), text("the work"), &depending_on(Capability::PushNotifications))
        .await
        .unwrap();

    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{outcome}");
    assert!(outcome.refusal.is_some(), "the refusal stands");
    assert!(!outcome.may_have_run_twice() && !outcome.fell_back());
    assert_eq!(agent.executions(), 1, "the refused run, followed: the work ran once");
    assert_eq!(count(&agent, "CancelTask"), 0);
    assert_eq!(count(&agent, "SendMessage") + count(&agent, "SendStreamingMessage"), 1);
    assert_eq!(outcome.state(), Some(TaskState::Completed));
    assert_eq!(artifact_text(&outcome.result), "echo: the work");
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.fallbacks, metrics.may_have_run_twice, metrics.refused_results_kept), (0, 0, 1));
    agent.shutdown().await;
}

#[tokio::test]
async fn a_task_refused_while_it_runs_is_canceled_and_sent_again_when_asked_and_may_have_run_twice() {
    let agent = slow_push_config_refuser().await;
    let client = client();
    let negotiation = depending_on(Capability::PushNotifications).after_refusal(AfterRefusal::SendAgain);

    let outcome = client.run_task(&agent.base_url(), text("the work"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Fallback, "{outcome}");
    assert!(outcome.may_have_run_twice());
    assert_eq!(agent.executions(), 2, "the refused run and the single-shot one");
    assert_eq!(count(&agent, "CancelTask"), 1, "the refused task was asked to cancel");
    let refused = outcome.refused_task.as_ref().expect("the refused task is kept");
    assert_eq!(refused.state(), TaskState::Canceled, "as the agent answered the cancel");
    assert_eq!(outcome.state(), Some(TaskState::Completed), "the fallback's result");
    assert_eq!(artifact_text(&outcome.result), "echo: the work");
    // On the agent's side the refused task stopped where the cancel found it.
    let conn = client.connect(&agent.base_url()).await.unwrap();
    tokio::time::sleep(SLOW_STEP * 3).await;
    let seen = conn.get_task(GetTaskRequest::new(refused.id.clone())).await.unwrap();
    assert_eq!(seen.state(), TaskState::Canceled);
    assert!(seen.artifacts.is_empty(), "the canceled run never produced its artifact");
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.fallbacks, metrics.may_have_run_twice, metrics.refused_results_kept), (1, 1, 0));
    agent.shutdown().await;
}

#[tokio::test]
async fn a_task_refused_while_it_runs_ends_with_the_refusal_when_asked_and_runs_once() {
    let agent = slow_push_config_refuser().await;
    let client = client();
    let negotiation = depending_on(Capability::PushNotifications).after_refusal(AfterRefusal::EndWithRefusal);

    let outcome = client.run_task(&agent.base_url(), text("the work"), &negotiation).await.unwrap();

    assert_eq!(outcome.path, TaskPath::EndedWithRefusal, "{outcome}");
    assert!(outcome.refusal.is_some());
    assert!(!outcome.fell_back() && !outcome.may_have_run_twice());
    let state = outcome.state().expect("the unfinished task");
    assert!(!state.is_terminal(), "{state}");
    assert_eq!(agent.executions(), 1);
    assert_eq!(count(&agent, "SendMessage"), 1, "nothing sent again");
    assert_eq!(count(&agent, "CancelTask"), 0, "left as it is, for the caller to follow");
    // The agent goes on with it: the caller can follow it to its end.
    let conn = client.connect(&agent.base_url()).await.unwrap();
    let id = outcome.result.task_id().expect("a task").clone();
    let mut ended = None;
    for _ in 0..40 {
        let task = conn.get_task(GetTaskRequest::new(id.clone())).await.unwrap();
        if task.is_terminal() {
            ended = Some(task);
            break;
        }
        tokio::time::sleep(ms(100)).await;
    }
    let ended = ended.expect("the task the run left ended on its own");
    assert_eq!(ended.state(), TaskState::Completed);
    assert_eq!(agent.executions(), 1);
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.ended_with_refusal, metrics.fallbacks), (1, 0));
    agent.shutdown().await;
}

#[tokio::test]
async fn a_refusal_before_the_agent_accepted_a_task_sends_once_whatever_the_policy() {
    for policy in [AfterRefusal::FollowToEnd, AfterRefusal::SendAgain, AfterRefusal::EndWithRefusal] {
        let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
        let negotiation = depending_on(Capability::Streaming).after_refusal(policy);

        let outcome = client().run_task(&agent.base_url(), text("the work"), &negotiation).await.unwrap();

        assert_eq!(outcome.path, TaskPath::Fallback, "{policy:?}");
        assert!(outcome.refused_task.is_none() && !outcome.may_have_run_twice(), "{policy:?}");
        assert_eq!(artifact_text(&outcome.result), "echo: the work");
        assert_eq!(agent.executions(), 1, "{policy:?}: the single-shot send is the work's first run");
        assert_eq!(count(&agent, "CancelTask"), 0, "{policy:?}");
        agent.shutdown().await;
    }
}

/// One case of the rule below: a lie, how fast the agent works, and the policy.
#[derive(Clone, Debug)]
struct Case {
    lie: Lie,
    card: Capabilities,
    depends: Capability,
    step: Duration,
    policy: AfterRefusal,
}

/// Every lie the engine refuses after a task exists, on fast and slow agents, under both policies:
/// whichever way each run goes (the refusal may find the task ended or running, a cancel may find
/// it ended meanwhile), a task the client saw end is never sent again, the agent runs the work once
/// unless the outcome says it may have run twice, and then exactly twice.
#[tokio::test]
async fn a_finished_refused_task_is_never_sent_again_over_every_lie_speed_and_policy() {
    let lies = [
        (Lie::StreamWithoutArtifact, Capabilities::none().with_streaming(), Capability::Streaming),
        (Lie::SilentPush, Capabilities::none().with_push_notifications(), Capability::PushNotifications),
        (
            Lie::WrongPushCredentials,
            Capabilities::none().with_push_notifications(),
            Capability::PushNotifications,
        ),
        (Lie::PushConfigUnsupported, Capabilities::none(), Capability::PushNotifications),
        (Lie::PushConfigUnsupportedOperation, Capabilities::none(), Capability::PushNotifications),
    ];
    let mut cases = Vec::new();
    for (lie, card, depends) in lies {
        for step in [ms(0), ms(10), SLOW_STEP] {
            for policy in [AfterRefusal::FollowToEnd, AfterRefusal::SendAgain, AfterRefusal::EndWithRefusal] {
                cases.push(Case { lie: lie.clone(), card: card.clone(), depends, step, policy });
            }
        }
    }
    let client = client();
    let runs = futures::future::join_all(cases.into_iter().map(|case| run_case(&client, case))).await;
    let mut paths = std::collections::BTreeSet::new();
    for (case, outcome, executions, sends_again) in runs {
        paths.insert(format!("{:?}", outcome.path));
        let twice = outcome.may_have_run_twice();
        assert_eq!(executions, if twice { 2 } else { 1 }, "{case:?}: {outcome}");
        match outcome.path {
            TaskPath::KeptAfterRefusal => {
                assert!(outcome.state().is_some_and(|s| s.is_terminal()), "{case:?}: {outcome}");
                assert_eq!(sends_again, 0, "{case:?}: a finished task sent again");
            }
            TaskPath::Fallback => {
                assert_eq!(case.policy, AfterRefusal::SendAgain, "{case:?}");
                assert_eq!(sends_again, 1, "{case:?}");
                let refused = outcome.refused_task.as_ref().map(|t| t.state());
                assert!(
                    refused.is_none_or(|s| !s.is_terminal() || s == TaskState::Canceled),
                    "{case:?}: {refused:?}"
                );
            }
            TaskPath::EndedWithRefusal => {
                assert_eq!(case.policy, AfterRefusal::EndWithRefusal, "{case:?}");
                assert!(outcome.state().is_some_and(|s| !s.is_terminal()), "{case:?}: {outcome}");
                assert_eq!(sends_again, 0, "{case:?}");
            }
            ref other => panic!("{case:?}: refused, yet {other}"),
        }
    }
    // The slow agents' config refusals come while the task runs: both unfinished paths were taken.
    for path in ["KeptAfterRefusal", "Fallback", "EndedWithRefusal"] {
        assert!(paths.contains(path), "{path} never taken: {paths:?}");
    }
}

/// Runs one case on its own agent: the outcome, the agent's executions, and how many single-shot
/// sends went after the refusal (a blocking `SendMessage`, no `returnImmediately`).
async fn run_case(client: &Client, case: Case) -> (Case, TaskOutcome, u64, usize) {
    let agent = spawn(case.card.clone(), Script::honest().with(case.lie.clone()).step_delay(case.step)).await;
    let negotiation = Negotiation::depending_on(&[case.depends]).after_refusal(case.policy);
    let outcome = client
        .run_task(&agent.base_url(), text("the work"), &negotiation)
        .await
        .unwrap_or_else(|e| panic!("{case:?}: {e}"));
    assert!(outcome.refusal.is_some(), "{case:?}: not refused: {outcome}");
    let single_shots = agent
        .requests_for("SendMessage")
        .iter()
        .filter(|r| {
            r.body.as_ref().and_then(|b| b.pointer("/params/configuration/returnImmediately")).is_none()
        })
        .count();
    let executions = agent.executions();
    agent.shutdown().await;
    (case, outcome, executions, single_shots)
}

/// The typed handle's refusal, settled after one streamed turn.
async fn refused_typed(agent: &RunningAgent, client: &Client) -> a2a_typestate_client::Task {
    use a2a_typestate_client::{Claims, Streaming, TaskEntry};
    let TaskEntry::Claimed(mut task) = client.task::<Claims<Streaming>>(&agent.base_url()).await.unwrap()
    else {
        panic!("a new client holds no mark")
    };
    task.send_streaming_message(text("the work")).await.unwrap();
    match task.settle_streaming() {
        Err(refusal) => refusal.into_task(),
        Ok(_) => panic!("the lie was not refused"),
    }
}

#[tokio::test]
async fn the_typed_fallback_keeps_a_task_refused_at_the_end_of_its_stream_and_sends_nothing() {
    for after in [AfterRefusal::FollowToEnd, AfterRefusal::SendAgain, AfterRefusal::EndWithRefusal] {
        let agent =
            spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact))
                .await;
        let client = client();

        let fallback = refused_typed(&agent, &client).await.fall_back(text("the work"), after).await.unwrap();

        let Fallback::Kept(result) = &fallback else { panic!("{after:?}: {fallback:?}") };
        assert_eq!(result.state(), Some(TaskState::Completed), "{after:?}");
        assert_eq!(fallback.text().as_deref(), Some("echo: the work"), "{after:?}: the artifact GetTask had");
        assert!(!fallback.may_have_run_twice());
        assert_eq!(agent.executions(), 1, "{after:?}: the agent ran the work once");
        assert_eq!(count(&agent, "SendMessage"), 0, "{after:?}: nothing sent again");
        assert_eq!(client.metrics().snapshot().refused_results_kept, 1, "{after:?}");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn the_typed_fallback_sends_once_a_task_the_agent_never_accepted() {
    for after in [AfterRefusal::FollowToEnd, AfterRefusal::SendAgain, AfterRefusal::EndWithRefusal] {
        let agent =
            spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamingRefused)).await;
        let client = client();

        let fallback = refused_typed(&agent, &client).await.fall_back(text("the work"), after).await.unwrap();

        let Fallback::Sent { answer, refused_task: None } = &fallback else {
            panic!("{after:?}: {fallback:?}")
        };
        assert_eq!(answer.state(), Some(TaskState::Completed), "{after:?}");
        assert_eq!(fallback.text().as_deref(), Some("echo: the work"), "{after:?}");
        assert!(!fallback.may_have_run_twice(), "{after:?}: the send is the work's first run");
        assert_eq!((agent.executions(), count(&agent, "SendMessage")), (1, 1), "{after:?}");
        agent.shutdown().await;
    }
}
