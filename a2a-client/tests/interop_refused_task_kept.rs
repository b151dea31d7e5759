//! Against the official Python SDK (a2a-sdk 1.3.0, started by `a2a_testkit::official`): its
//! silent-push peer claims push, accepts the webhook config, never calls it, and completes the task
//! with its artifact. A run depending on push refuses the claim once the task ended, and keeps the
//! completed task: the peer holds one task, the work ran once.

use std::time::Duration;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use a2a_typestate::Contradiction;
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{Capability, Client, RetryPolicy};
use a2a_typestate_types::{ContextId, ListTasksRequest, Message, SendMessageResponse, TaskState};

#[tokio::test]
async fn push_refused_by_the_python_silent_push_peer_keeps_the_completed_task_run_once() {
    // A peer of its own: every task it holds came from this test.
    let peer = OfficialPeer::start(PeerKind::PythonSilentPush).await.unwrap_or_else(|e| panic!("{e}"));
    let retry = RetryPolicy::new(3, Duration::from_millis(50), Duration::from_millis(200), 0.0).unwrap();
    let client = Client::builder()
        .retry_policy(retry)
        .request_timeout(Duration::from_secs(30))
        .push_arrival_bound(Duration::from_secs(2))
        .build()
        .unwrap();
    let context = ContextId::new(uuid::Uuid::new_v4().to_string());
    let mut message = Message::user("the work");
    message.context_id = Some(context.clone());
    let negotiation = Negotiation::depending_on(&[Capability::PushNotifications]);

    let outcome = client.run_task(peer.base_url(), message, &negotiation).await.unwrap();

    let refusal = outcome.refusal.as_ref().expect("push refused");
    assert_eq!(refusal.capability(), Capability::PushNotifications);
    assert!(matches!(refusal.contradiction(), Contradiction::NoPushCallback { .. }), "{refusal}");
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{outcome}");
    assert!(!outcome.may_have_run_twice());
    let SendMessageResponse::Task(task) = &outcome.result else { panic!("a task: {outcome}") };
    assert_eq!(task.state(), TaskState::Completed);
    let answer: String = task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect();
    assert_eq!(answer, "echo: the work", "the completed task's own artifact");
    let metrics = client.metrics().snapshot();
    assert_eq!((metrics.refused_results_kept, metrics.fallbacks), (1, 0), "nothing sent again");

    // From the peer's side: one task in the context, the one the outcome carries, and no other.
    let connection = client.connect(peer.base_url()).await.unwrap();
    let in_context = ListTasksRequest { context_id: Some(context), ..Default::default() };
    let page = connection.list_tasks(in_context).await.unwrap();
    let ids: Vec<_> = page.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, [task.id.as_str()], "the peer ran the work once");
    let everything = connection.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert_eq!(everything.tasks.len(), 1, "{:?}", everything.tasks);
}
