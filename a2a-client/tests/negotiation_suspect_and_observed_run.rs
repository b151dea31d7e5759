//! The suspect mark (single-shot at once inside its TTL, negotiated again after it), the design
//! note's observed run, and the counters adding up over a batch.

mod negotiation_common;

use std::time::Duration;

use a2a_testkit::fleet::{EXTENDED_CARD_LIAR_TOKEN, Honesty, demo_fleet};
use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::{Channel, Contradiction, Observed};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client, DiscoveryCache, Error, ErrorKind, SuspectMarks};
use a2a_typestate_types::{SendMessageResponse, TaskState};
use negotiation_common::{builder, client, operations, spawn, text};

fn streaming() -> Negotiation {
    Negotiation::depending_on(&[Capability::Streaming])
}

#[tokio::test]
async fn suspect_agent_within_its_ttl_gets_the_single_shot_path_at_once_with_zero_negotiation_round_trips() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = client();
    let first = client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();
    assert_eq!(first.path, TaskPath::Fallback);
    let before = client.metrics().snapshot();
    let seen_before = operations(&agent).len();

    let second = client.run_task(&agent.base_url(), text("two"), &streaming()).await.unwrap();

    let TaskPath::SingleShotBecauseSuspect(mark) = &second.path else { panic!("{:?}", second.path) };
    assert_eq!(mark.capability(), Some(Capability::Streaming));
    assert_eq!(second.state(), Some(TaskState::Completed));
    assert_eq!(second.negotiation_round_trips, 0);
    assert_eq!(operations(&agent)[seen_before..], ["SendMessage"], "one single-shot send, nothing else");
    let after = client.metrics().snapshot();
    assert_eq!(after.negotiation_round_trips, before.negotiation_round_trips);
    assert_eq!(after.fallbacks, before.fallbacks, "a suspect agent's single shot is no new fallback");
    assert_eq!(after.refusals, before.refusals);
    agent.shutdown().await;
}

#[tokio::test]
async fn after_the_suspect_ttl_the_agent_is_negotiated_again() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let (cache, clock) = DiscoveryCache::with_manual_clock(Duration::from_secs(300), Duration::from_secs(10));
    let client = builder().discovery_cache(cache).build().unwrap();
    client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();

    clock.advance(Duration::from_secs(5));
    let inside = client.run_task(&agent.base_url(), text("two"), &streaming()).await.unwrap();
    assert!(matches!(inside.path, TaskPath::SingleShotBecauseSuspect(_)));

    clock.advance(Duration::from_secs(6));
    let after = client.run_task(&agent.base_url(), text("three"), &streaming()).await.unwrap();

    assert_eq!(after.path, TaskPath::Fallback, "negotiated again, and refused again");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 2);
    assert_eq!(client.metrics().snapshot().refusals[&Capability::Streaming], 2);
    agent.shutdown().await;
}

#[tokio::test]
async fn with_suspect_marks_off_an_agent_is_never_marked_nor_skipped() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = builder().suspect_marks(SuspectMarks::Off).build().unwrap();

    let first = client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();
    let second = client.run_task(&agent.base_url(), text("two"), &streaming()).await.unwrap();

    assert_eq!((&first.path, &second.path), (&TaskPath::Fallback, &TaskPath::Fallback));
    assert!(second.negotiation_round_trips > 0, "negotiated again, not skipped");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 2);
    assert!(client.discovery_cache().suspect_marks(&first.agent).is_empty(), "never marked");
    let counters = client.metrics().snapshot();
    assert_eq!((counters.refusals[&Capability::Streaming], counters.fallbacks), (2, 2));
    agent.shutdown().await;
}

#[tokio::test]
async fn with_suspect_marks_off_a_mark_already_in_a_shared_cache_is_ignored() {
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let cache = DiscoveryCache::default();
    let base = a2a_typestate_client::AgentBaseUrl::parse(&agent.base_url()).unwrap();
    cache.mark_suspect(&base, Capability::Streaming, "marked by another client");
    let client = builder().discovery_cache(cache).suspect_marks(SuspectMarks::Off).build().unwrap();

    let outcome = client.run_task(&agent.base_url(), text("one"), &streaming()).await.unwrap();

    assert_eq!(outcome.path, TaskPath::Fallback, "negotiated despite the mark");
    assert_eq!(agent.requests_for("SendStreamingMessage").len(), 1);
    agent.shutdown().await;
}

#[tokio::test]
async fn design_note_observed_run_is_refused_for_streaming_with_its_evidence_and_the_finished_task_kept() {
    let agent = ScriptedAgent::observed_run().spawn().await.unwrap();
    let client = client();
    let depends = Negotiation::depending_on(&[
        Capability::Streaming,
        Capability::StateTransitionHistory,
        Capability::PushNotifications,
    ])
    .follow_up(FollowUp::reply("the clarification"));

    let outcome = client.run_task(&agent.base_url(), text("plan the trip"), &depends).await.unwrap();

    // Refused at the stream's end: the task had completed, so its result is kept, not run again.
    assert_eq!(outcome.path, TaskPath::KeptAfterRefusal);
    // The first claim contradicted: the terminal transition streamed no artifact, GetTask has one.
    let refusal = outcome.refusal.as_ref().unwrap();
    assert_eq!(refusal.capability(), Capability::Streaming);
    assert_eq!(refusal.contradiction(), &Contradiction::NoArtifactStreamed { artifacts_via_get_task: 1 });
    assert!(
        matches!(
            refusal.evidence().observed,
            Observed::Status { state: TaskState::Completed, via: Channel::Stream, .. }
        ),
        "{}",
        refusal.evidence()
    );
    // The same GetTask showed the history relied on was empty: also refused, also marked.
    let history: Vec<_> = outcome
        .other_refusals
        .iter()
        .filter(|v| v.capability() == Capability::StateTransitionHistory)
        .collect();
    assert_eq!(history.len(), 1, "{:?}", outcome.other_refusals);
    assert_eq!(history[0].contradiction(), &Contradiction::EmptyHistory);
    assert!(history[0].evidence().seq > refusal.evidence().seq, "the streaming evidence came first");
    // Push was honest in that run: its callbacks came, so it is not among the refusals.
    assert!(outcome.refusals().all(|v| v.capability() != Capability::PushNotifications));
    assert!(agent.push_callbacks_sent().iter().any(|d| d.response_status == Some(200)));
    let marks = client.discovery_cache().suspect_marks(&outcome.agent);
    assert!(marks.iter().any(|m| m.capability() == Some(Capability::Streaming)));
    assert!(marks.iter().any(|m| m.capability() == Some(Capability::StateTransitionHistory)));
    // The refused task's own result: completed after the clarification, with the artifact GetTask
    // returned.
    let SendMessageResponse::Task(result) = &outcome.result else { panic!("a task") };
    assert_eq!(result.state(), TaskState::Completed);
    assert_eq!(result.artifacts.len(), 1);
    assert!(outcome.refused_task.is_none() && !outcome.may_have_run_twice());
    // On the wire: two streams (first message, clarification), one GetTask, and nothing sent again.
    let ops = operations(&agent);
    assert_eq!(ops.iter().filter(|op| *op == "SendStreamingMessage").count(), 2, "{ops:?}");
    assert_eq!(ops.iter().filter(|op| *op == "GetTask").count(), 1, "{ops:?}");
    assert!(ops.iter().all(|op| op != "SendMessage"), "no single-shot send: {ops:?}");
    assert_eq!(agent.executions(), 1, "the clarification continued the one task");
    agent.shutdown().await;
}

async fn run_batch(
    client: &Client,
    urls: &[String],
    depends: &Negotiation,
) -> Vec<Result<TaskOutcome, Error>> {
    let mut outcomes = Vec::new();
    for url in urls {
        outcomes.push(client.run_task(url, text("hello"), depends).await);
    }
    outcomes
}

#[tokio::test]
async fn counters_add_up_over_the_demo_fleet_and_the_suspect_batch_wastes_no_round_trip() {
    use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
    let fleet = demo_fleet().await.unwrap();
    // The token goes to the one card that asks for a bearer: the extended-card liar's.
    let bearer = BearerToken::new(Secret::new(EXTENDED_CARD_LIAR_TOKEN.to_owned()));
    let client = builder().credentials(Credentials::new().with(bearer)).build().unwrap();
    let lifecycle_liars = fleet
        .over_declaring()
        .filter(|m| matches!(m.honesty, Honesty::OverDeclares(claim) if claim.is_lifecycle()))
        .count();
    let depends = Negotiation::depending_on(&Capability::ALL).follow_up(FollowUp::reply("details"));
    let urls: Vec<String> = fleet.members.iter().map(|m| m.agent.base_url()).collect();
    let first = run_batch(&client, &urls, &depends).await;
    let after_first = client.metrics().snapshot();
    let operations_after_first: Vec<usize> =
        fleet.members.iter().map(|m| operations(&m.agent).len()).collect();
    let executions_after_first: Vec<u64> = fleet.members.iter().map(|m| m.agent.executions()).collect();
    let second = run_batch(&client, &urls, &depends).await;
    let after_second = client.metrics().snapshot();

    // Every task ended definitely: a result, a refusal with its kept result or its fallback, or an
    // abandoning violation.
    let abandoned: Vec<usize> = (0..first.len()).filter(|i| first[*i].is_err()).collect();
    for i in &abandoned {
        let Err(err) = &first[*i] else { unreachable!() };
        assert_eq!(err.kind(), ErrorKind::LifecycleViolation, "{err}");
    }
    let outcomes: Vec<&TaskOutcome> = first.iter().filter_map(|r| r.as_ref().ok()).collect();
    // Every refusal counted once, by capability; every fallback counted once.
    let refused = outcomes.iter().map(|o| o.refusals().count()).sum::<usize>() + abandoned.len();
    assert_eq!(after_first.refusals.values().sum::<u64>(), refused as u64);
    let fallbacks = outcomes.iter().filter(|o| o.fell_back()).count();
    let kept = outcomes.iter().filter(|o| o.path == TaskPath::KeptAfterRefusal).count();
    // Discovery's visits to the legacy card path are counted apart (one per legacy agent).
    let legacy_card_fetches = fleet
        .members
        .iter()
        .flat_map(|m| m.agent.requests())
        .filter(|r| r.path == "/.well-known/agent.json")
        .count();
    assert_eq!(after_first.fallbacks, fallbacks as u64);
    assert_eq!(after_first.refused_results_kept, kept as u64);
    assert_eq!(after_first.legacy_card_fetches, legacy_card_fetches as u64);
    assert_eq!(fallbacks + kept + abandoned.len(), lifecycle_liars, "each lifecycle liar was caught");
    // None of it ran twice: each agent executed the batch's one task once.
    assert!(outcomes.iter().all(|o| !o.may_have_run_twice()));
    for (member, executions) in fleet.members.iter().zip(&executions_after_first) {
        assert_eq!(*executions, 1, "{}", member.agent.name());
    }
    // Each card-claim liar was caught too, and its task completed through the claim's fallback.
    for (member, result) in fleet.members.iter().zip(&first) {
        let Honesty::OverDeclares(claim) = member.honesty else { continue };
        if claim.is_lifecycle() {
            continue;
        }
        let outcome = result.as_ref().unwrap_or_else(|e| panic!("{}: {e}", member.agent.name()));
        assert_eq!(outcome.card_claims.iter().filter(|v| v.violation().is_some()).count(), 1, "{outcome}");
        assert_eq!(outcome.path, TaskPath::Negotiated);
        assert!(outcome.state().is_some_and(|s| s.is_terminal()), "{outcome}");
    }
    // Negotiation round trips: the outcomes' own, plus every request the abandoned runs made.
    let abandoned_requests: usize = abandoned.iter().map(|i| operations_after_first[*i]).sum();
    let round_trips: u64 = outcomes.iter().map(|o| o.negotiation_round_trips).sum();
    assert_eq!(after_first.negotiation_round_trips, round_trips + abandoned_requests as u64);
    // Requests per agent: what each agent received (card fetches included).
    for member in &fleet.members {
        let url = a2a_typestate_client::AgentBaseUrl::parse(&member.agent.base_url()).unwrap();
        let counted = after_second.requests_per_agent.get(url.as_str()).copied().unwrap_or(0);
        assert_eq!(counted, member.agent.requests().len() as u64, "{}", member.agent.name());
    }
    // The second batch: the suspect agents go single-shot at once, with no negotiation round trip.
    let second: Vec<TaskOutcome> = second.into_iter().map(Result::unwrap).collect();
    let suspects: Vec<&TaskOutcome> =
        second.iter().filter(|o| matches!(o.path, TaskPath::SingleShotBecauseSuspect(_))).collect();
    assert_eq!(suspects.len(), lifecycle_liars, "card-claim marks do not send an agent single-shot");
    assert!(suspects.iter().all(|o| o.negotiation_round_trips == 0));
    assert_eq!(after_second.fallbacks, after_first.fallbacks, "no new fallback");
    let spent_second = after_second.negotiation_round_trips - after_first.negotiation_round_trips;
    assert!(spent_second < after_first.negotiation_round_trips, "{spent_second} vs {after_first:?}");
    fleet.shutdown().await;
}
