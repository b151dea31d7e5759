//! `Client::run_task` runs each task in one `a2a.task` span, whose fields say the path taken, the
//! round trips, the claims and the verdicts.

mod negotiation_common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use a2a_testkit::{Capabilities, Lie, Script};
use a2a_typestate_client::Capability;
use a2a_typestate_client::negotiate::{AfterRefusal, Negotiation};
use negotiation_common::{builder, spawn, text};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

type Fields = BTreeMap<String, String>;

/// Keeps every `a2a.task` span's fields, by span id.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<BTreeMap<u64, Fields>>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() == a2a_typestate_client::task_span::TASK_SPAN_NAME {
            let mut fields = Fields::new();
            attrs.record(&mut Collect(&mut fields));
            self.0.lock().unwrap().insert(id.into_u64(), fields);
        }
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(fields) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Collect(fields));
        }
    }
}

#[tokio::test]
async fn each_task_gets_one_span_naming_its_path_round_trips_claims_and_verdicts() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let agent = spawn(Capabilities::none(), Script::honest().with(Lie::StreamingRefused)).await;
    let client = builder().replica_name("replica-7").build().unwrap();
    let negotiation = Negotiation::depending_on(&[Capability::Streaming]);

    let first = client.run_task(&agent.base_url(), text("one"), &negotiation).await.unwrap();
    let second = client.run_task(&agent.base_url(), text("two"), &negotiation).await.unwrap();

    let recorded: Vec<Fields> = spans.0.lock().unwrap().values().cloned().collect();
    assert_eq!(recorded.len(), 2, "one span per task: {recorded:#?}");
    let (refused, suspect) = (&recorded[0], &recorded[1]);
    assert_eq!(refused["agent"], agent.base_url());
    assert_eq!(refused["replica"], "replica-7");
    assert_eq!(refused["claims.depended"], "streaming");
    assert_eq!(refused["path"], "fallback");
    assert_eq!(refused["may_have_run_twice"], "false", "no task existed when the stream was refused");
    assert_eq!(refused["round_trips"], first.negotiation_round_trips.to_string());
    assert!(refused["verdicts"].starts_with("streaming: "), "{refused:?}");
    assert_eq!(refused["task.id"], first.result.task_id().unwrap().as_str());
    assert_eq!(refused["outcome"], "TASK_STATE_COMPLETED");
    assert_eq!(suspect["path"], "single_shot_suspect");
    assert_eq!(suspect["round_trips"], "0");
    assert_eq!(suspect["verdicts"], "");
    assert_eq!(suspect["suspect.marked_by"], "replica-7");
    assert_eq!(suspect["task.id"], second.result.task_id().unwrap().as_str());
    agent.shutdown().await;
}

#[tokio::test]
async fn the_span_says_whether_a_refused_task_was_kept_or_sent_again_and_may_have_run_twice() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    // Refused at the stream's end, the task completed: kept.
    let keeper =
        spawn(Capabilities::none().with_streaming(), Script::honest().with(Lie::StreamWithoutArtifact)).await;
    // Refused while the task runs (its push config is not supported): canceled and sent again.
    let slow = Script::honest().with(Lie::PushConfigUnsupported).step_delay(negotiation_common::ms(300));
    let runner = spawn(Capabilities::none(), slow).await;
    let client = builder().build().unwrap();

    client
        .run_task(&keeper.base_url(), text("one"), &Negotiation::depending_on(&[Capability::Streaming]))
        .await
        .unwrap();
    client
        .run_task(
            &runner.base_url(),
            text("two"),
            &Negotiation::depending_on(&[Capability::PushNotifications])
                .after_refusal(AfterRefusal::SendAgain),
        )
        .await
        .unwrap();

    let recorded: Vec<Fields> = spans.0.lock().unwrap().values().cloned().collect();
    assert_eq!(recorded.len(), 2, "one span per task: {recorded:#?}");
    let (kept, sent_again) = (&recorded[0], &recorded[1]);
    assert_eq!(kept["path"], "kept_after_refusal");
    assert_eq!(kept["may_have_run_twice"], "false");
    assert_eq!(kept["outcome"], "TASK_STATE_COMPLETED");
    assert_eq!(sent_again["path"], "fallback");
    assert_eq!(sent_again["may_have_run_twice"], "true");
    assert_eq!((keeper.executions(), runner.executions()), (1, 2));
    keeper.shutdown().await;
    runner.shutdown().await;
}
