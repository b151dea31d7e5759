//! The task journal in one process: what a run records, how a journal that cannot be written
//! degrades, and what survives a restart of the client (the SIGKILL tests are in
//! `a2a-bench/tests/crash_recovery.rs`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate_client::journal::{Durability, Journal};
use a2a_typestate_client::negotiate::{Negotiation, TaskPath};
use a2a_typestate_client::{AgentBaseUrl, BackendStatus, Capability, Client, ErrorKind, Message, TaskState};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-journal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("journal.redb")
}

/// Opens the file once the previous journal on it let it go (its writer stops when the last
/// handle is dropped, on the runtime).
async fn reopen(path: &PathBuf) -> Journal {
    let started = Instant::now();
    loop {
        match Journal::embedded(path).build() {
            Ok(journal) => return journal,
            Err(error) if started.elapsed() < Duration::from_secs(5) => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(error) => panic!("the journal file stays held: {error}"),
        }
    }
}

#[tokio::test]
async fn a_journaled_run_is_durable_and_its_record_ends_with_the_task() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let path = scratch("durable");
    let client = Client::builder().journal(Journal::embedded(&path).build().unwrap()).build().unwrap();
    let outcome = client
        .run_task(
            &agent.base_url(),
            Message::user("hi").with_message_id("m-durable"),
            &Negotiation::depending_on(&[]),
        )
        .await
        .unwrap();
    assert_eq!(outcome.durability, Durability::Journaled);
    assert!(outcome.is_durable());

    // The end is written in the background.
    assert!(client.journal().unwrap().flush(Duration::from_secs(5)).await);
    let record = client.journaled("m-durable").await.unwrap().expect("the run is journaled");
    assert!(record.has_ended(), "{record:?}");
    assert_eq!(record.last_state(), Some(TaskState::Completed));
    assert_eq!(record.agent(), AgentBaseUrl::parse(&agent.base_url()).unwrap().as_str());
    assert!(record.task_id().is_some());
    assert!(!record.context_id().is_empty(), "the client chose a context id");
    assert_eq!(record.path(), "polling");
    assert!(client.recover().await.unwrap().is_empty(), "an ended run is not recovered");
    // The context id the client chose went to the agent with the message.
    let sent = agent.requests_for("SendMessage");
    let context =
        sent[0].body.as_ref().unwrap()["params"]["message"]["contextId"].as_str().map(str::to_owned);
    assert_eq!(context.as_deref(), Some(record.context_id()));
    assert_eq!(client.journal().unwrap().status(), BackendStatus::Connected);
    agent.shutdown().await;
}

/// A state that does not wait on the caller (submitted, working, the terminal state the end
/// writes) costs no write of its own: a streamed run, whatever its events, is at most three records
/// (what identifies it, its task id, its end; fewer when two share a commit), and the end carries
/// the last state. The agent's steps are further apart than the writer's linger, so a write per
/// state would not be folded away.
#[tokio::test]
async fn states_that_do_not_wait_on_the_caller_cost_no_write_of_their_own() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().step_delay(Duration::from_millis(60)))
        .spawn()
        .await
        .unwrap();
    let path = scratch("states");
    let client = Client::builder().journal(Journal::embedded(&path).build().unwrap()).build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);
    let outcome = client
        .run_task(&agent.base_url(), Message::user("hi").with_message_id("m-states"), &negotiation)
        .await
        .unwrap();
    assert_eq!(outcome.path, TaskPath::Negotiated);
    let journal = client.journal().unwrap();
    assert!(journal.flush(Duration::from_secs(5)).await);
    assert!(journal.stats().writes <= 3, "{:?}", journal.stats());
    let record = client.journaled("m-states").await.unwrap().expect("journaled");
    assert_eq!(record.last_state(), Some(TaskState::Completed));
    assert!(record.task_id().is_some());
}

#[tokio::test]
async fn a_journal_that_cannot_be_written_degrades_and_the_task_goes_on_within_the_commit_wait() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    // Nothing listens on port 1.
    let journal =
        Journal::redis("redis://127.0.0.1:1/").commit_wait(Duration::from_millis(200)).build().unwrap();
    let client = Client::builder().journal(journal).build().unwrap();
    let started = Instant::now();
    let outcome = client
        .run_task(
            &agent.base_url(),
            Message::user("hi").with_message_id("m-degraded"),
            &Negotiation::default(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.state(), Some(TaskState::Completed), "the task went on");
    assert_eq!(outcome.durability, Durability::NotDurable);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(client.journal().unwrap().status(), BackendStatus::Degraded);
    let err = client.recover().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config, "{err}");
    agent.shutdown().await;
}

#[tokio::test]
async fn without_a_journal_a_run_says_so_and_recover_is_misuse() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let client = Client::builder().build().unwrap();
    let outcome = client
        .run_task(&agent.base_url(), Message::user("hi").with_message_id("m1"), &Negotiation::default())
        .await
        .unwrap();
    assert_eq!(outcome.durability, Durability::NoJournal);
    assert_eq!(client.recover().await.unwrap_err().kind(), ErrorKind::Misuse);
    agent.shutdown().await;
}

#[tokio::test]
async fn a_journal_file_held_by_another_journal_is_a_configuration_error() {
    let path = scratch("held");
    let _held = Journal::embedded(&path).build().unwrap();
    let err = Journal::embedded(&path).build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(err.to_string().contains("journal.redb"), "{err}");
    let err = Journal::embedded(scratch("prefix")).key_prefix("x").build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn suspect_marks_survive_a_restart_of_the_client_with_the_time_left_of_their_ttl() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let path = scratch("marks");
    let streaming = Negotiation::depending_on(&[Capability::Streaming]);
    {
        let journal = Journal::embedded(&path).build().unwrap();
        let client =
            Client::builder().suspect_ttl(Duration::from_secs(600)).journal(journal).build().unwrap();
        let outcome = client
            .run_task(&agent.base_url(), Message::user("hi").with_message_id("m1"), &streaming)
            .await
            .unwrap();
        assert_eq!(outcome.path, TaskPath::KeptAfterRefusal, "{outcome}");
        assert!(client.discovery_cache().is_suspect(&base).is_some());
    }
    let restarted = Client::builder().journal(reopen(&path).await).build().unwrap();
    assert!(restarted.discovery_cache().is_suspect(&base).is_none(), "nothing before recover");
    assert!(restarted.recover().await.unwrap().is_empty());
    let mark = restarted.discovery_cache().is_suspect(&base).expect("the mark is back");
    assert_eq!(mark.capability(), Some(Capability::Streaming));
    let left = mark.expires_at().saturating_duration_since(tokio::time::Instant::now());
    assert!(left > Duration::from_secs(590) && left <= Duration::from_secs(600), "{left:?}");
    agent.shutdown().await;
}

/// A replica on the shared Redis journal, with a short lease.
fn replica_on(url: &str, prefix: &str, name: &str, lease: Duration) -> Client {
    let journal = Journal::redis(url).key_prefix(prefix).replica_lease(lease).build().unwrap();
    Client::builder().replica_name(name).journal(journal).build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tasks_of_a_replica_whose_lease_ran_out_go_to_exactly_one_replica_asking_and_are_followed_to_their_end()
 {
    // An empty variable means unset, as in a shell's `${A2A_TEST_REDIS_URL:-}`.
    let Some(url) = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty()) else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must set A2A_TEST_REDIS_URL");
        eprintln!("skipped: A2A_TEST_REDIS_URL names no redis-server");
        return;
    };
    let prefix = format!("a2a-takeover-{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    let lease = Duration::from_millis(300);
    // Slow enough that the task is still running when its replica goes.
    let agent = ScriptedAgent::builder()
        .script(Script::honest().step_delay(Duration::from_millis(300)))
        .spawn()
        .await
        .unwrap();
    let (first, second) =
        (replica_on(&url, &prefix, "replica-b", lease), replica_on(&url, &prefix, "replica-c", lease));
    assert!(first.take_over().await.unwrap().is_empty() && second.take_over().await.unwrap().is_empty());

    // A replica begins a task and dies with it in flight: its run is dropped, its lease no longer
    // renewed (nothing of it runs again: the journal's renewal ends with the client).
    let dying = replica_on(&url, &prefix, "replica-a", lease);
    let run = {
        let dying = dying.clone();
        let url = agent.base_url();
        tokio::spawn(async move {
            dying.run_task(&url, Message::user("taken over"), &Negotiation::default()).await
        })
    };
    let started = Instant::now();
    while agent.executions() == 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "the task never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(first.take_over().await.unwrap().is_empty(), "a live replica's tasks are not taken");
    run.abort();
    drop(dying);

    // Past the lease, both live replicas ask at once: one takes the task, the other nothing.
    tokio::time::sleep(lease + Duration::from_millis(200)).await;
    let (a, b) = tokio::join!(first.take_over(), second.take_over());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.len() + b.len(), 1, "one task, one taker: {a:?} {b:?}");
    let (taker, taken) = if a.is_empty() { (&second, &b[0]) } else { (&first, &a[0]) };
    assert_eq!(taken.taken_over_from(), Some("replica-a"));
    assert_eq!(taker.metrics().snapshot().tasks_taken_over, 1);
    assert!(first.take_over().await.unwrap().is_empty() && second.take_over().await.unwrap().is_empty());

    let recovered = taker.resume(taken).await.unwrap();
    let a2a_typestate_client::journal::Recovered::Task(task) = recovered else { panic!("{recovered}") };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(agent.executions(), 1, "followed, never sent again");
    // Ended in the taker's journal: not found unfinished again by anyone.
    assert!(taker.journal().unwrap().flush(Duration::from_secs(2)).await);
    assert!(taker.recover().await.unwrap().is_empty());
    agent.shutdown().await;
}
