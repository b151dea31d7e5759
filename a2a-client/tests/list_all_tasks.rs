//! `AgentConnection::list_all_tasks`: every page of `ListTasks` as one stream, on each 1.0 binding,
//! and the bounds that keep a misbehaving agent from making it loop (a page token met again, the
//! page count).

mod transport_common;

use std::collections::HashSet;

use a2a_testkit::{Binding, Capabilities, Protocol, Quirk, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::{AgentConnection, ErrorKind, ListingFault};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::{ListTasksRequest, TaskState};
use futures::StreamExt;
use transport_common::{client, connect_over};

/// A 1.0 agent serving all three bindings, playing `script`, holding `tasks` completed tasks.
async fn agent_holding(tasks: usize, script: Script) -> (RunningAgent, Vec<String>) {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none())
        .bindings([Binding::JsonRpc, Binding::HttpJson, Binding::Grpc])
        .script(script)
        .spawn()
        .await
        .unwrap();
    let ids = agent.store_completed_tasks(tasks);
    (agent, ids)
}

fn pages_of(size: i32) -> ListTasksRequest {
    ListTasksRequest { page_size: Some(size), ..Default::default() }
}

/// Lists everything over `binding`: the ids in the order read, and how many pages that took.
async fn list_over(agent: &RunningAgent, binding: ProtocolBinding, size: i32) -> (Vec<String>, u32) {
    let client = client();
    let connection: AgentConnection =
        connect_over(&client, agent, ProtocolVersion::V1_0, binding.clone()).await;
    let mut pages = connection.list_all_tasks(pages_of(size));
    let mut ids = Vec::new();
    while let Some(task) = pages.next().await {
        let task = task.unwrap_or_else(|e| panic!("{binding}: {e}"));
        assert_eq!(task.state(), TaskState::Completed);
        ids.push(task.id.as_str().to_owned());
    }
    assert_eq!(pages.total_size(), Some(1000));
    (ids, pages.pages_read())
}

#[tokio::test]
async fn a_thousand_tasks_are_read_in_pages_of_fifty_on_every_binding_each_once_newest_first() {
    let (agent, stored) = agent_holding(1000, Script::honest()).await;
    let newest_first: Vec<String> = stored.iter().rev().cloned().collect();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        let before = agent.requests_for("ListTasks").len();
        let (ids, pages) = list_over(&agent, binding.clone(), 50).await;
        assert_eq!(pages, 20, "{binding}");
        assert_eq!(ids, newest_first, "{binding}: every task once, in the agent's order");
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 1000, "{binding}");
        assert_eq!(agent.requests_for("ListTasks").len() - before, 20, "{binding}: one request a page");
    }
}

#[tokio::test]
async fn a_page_token_the_agent_names_again_ends_the_listing_with_an_error_not_a_loop() {
    let (agent, _) = agent_holding(200, Script::honest().quirk(Quirk::RepeatsPageToken)).await;
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let items: Vec<_> = connection.list_all_tasks(pages_of(50)).collect().await;
    // Page 1 names token "50"; page 2, asked with "50", names "50" again.
    assert_eq!(items.iter().filter(|i| i.is_ok()).count(), 100, "the tasks of both pages, then the error");
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Listing);
    assert!(!error.is_retryable());
    assert_eq!(error.listing_fault(), Some(&ListingFault::RepeatedPageToken { page: 2, first_named_by: 1 }));
    assert_eq!(agent.requests_for("ListTasks").len(), 2, "the repeated page was not asked for again");
}

#[tokio::test]
async fn a_listing_longer_than_its_page_bound_stops_at_the_bound_with_an_error() {
    let (agent, _) = agent_holding(100, Script::honest()).await;
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let items: Vec<_> = connection.list_all_tasks(pages_of(10)).max_pages(3).collect().await;
    assert_eq!(items.iter().filter(|i| i.is_ok()).count(), 30);
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.listing_fault(), Some(&ListingFault::PageBound { max_pages: 3 }));
    assert!(error.to_string().contains(&agent.base_url()), "the error names the agent: {error}");
    assert_eq!(agent.requests_for("ListTasks").len(), 3);

    // The same listing within a bound it fits in reads everything.
    let all: Vec<_> = connection.list_all_tasks(pages_of(10)).max_pages(10).collect().await;
    assert_eq!(all.len(), 100);
    assert!(all.iter().all(Result::is_ok));
}

#[tokio::test]
async fn a_0_3_agent_has_no_listing_and_nothing_is_sent() {
    let agent = ScriptedAgent::builder().protocol(Protocol::V0_3).spawn().await.unwrap();
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let items: Vec<_> = connection.list_all_tasks(ListTasksRequest::default()).collect().await;
    assert_eq!(items.len(), 1);
    let error = items[0].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Misuse);
    assert!(error.to_string().contains("ListTasks"), "{error}");
    assert!(agent.requests_for("ListTasks").is_empty());
}

#[tokio::test]
async fn a_listing_stops_at_its_task_bound_asking_the_last_page_for_only_what_is_left() {
    let (agent, _) = agent_holding(100, Script::honest()).await;
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let items: Vec<_> = connection.list_all_tasks(pages_of(10)).max_tasks(25).collect().await;
    assert_eq!(items.len(), 25, "the tasks up to the bound, and no error: the caller asked for no more");
    assert!(items.iter().all(Result::is_ok));
    let asked: Vec<u64> = agent
        .requests_for("ListTasks")
        .iter()
        .map(|r| r.body.as_ref().unwrap()["params"]["pageSize"].as_u64().unwrap())
        .collect();
    assert_eq!(asked, [10, 10, 5]);
}

#[tokio::test]
async fn an_agent_answering_more_tasks_per_page_than_asked_with_an_endless_next_token_stops_at_the_cap() {
    // Every page holds every task from its offset on, and names a next page forever.
    let (agent, _) = agent_holding(5_000, Script::honest().quirk(Quirk::OverfullEndlessPages)).await;
    let client = client();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let mut pages = connection.list_all_tasks(pages_of(10)).max_tasks(25);
    let mut items = Vec::new();
    while let Some(item) = pages.next().await {
        items.push(item);
        assert!(items.len() <= 26, "the listing went on past its cap of 25");
    }
    let tasks = items.iter().filter(|i| i.is_ok()).count();
    assert_eq!(tasks, 10, "the first page's tasks, as many as it was asked for");
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Listing);
    assert_eq!(
        error.listing_fault(),
        Some(&ListingFault::OverfullPage { page: 1, asked: 10, answered: 5_000 })
    );
    let said = error.listing_fault().unwrap().to_string();
    assert!(said.contains("5000 tasks") && said.contains("asked for 10"), "{said}");
    assert_eq!(agent.requests_for("ListTasks").len(), 1, "no page asked for after the overfull one");
}

#[tokio::test]
async fn the_page_bound_is_the_clients_task_budget_unless_the_listing_sets_its_own() {
    let (agent, _) = agent_holding(100, Script::honest()).await;
    let client = a2a_typestate_client::Client::builder()
        .task_budget(a2a_typestate_client::TaskBudget::default().with_pages(2))
        .build()
        .unwrap();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    let items: Vec<_> = connection.list_all_tasks(pages_of(10)).collect().await;
    assert_eq!(items.iter().filter(|i| i.is_ok()).count(), 20);
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.listing_fault(), Some(&ListingFault::PageBound { max_pages: 2 }));

    let items: Vec<_> = connection.list_all_tasks(pages_of(10)).max_pages(20).collect().await;
    assert_eq!(items.len(), 100, "the listing's own bound");
    assert!(items.iter().all(Result::is_ok));
}
