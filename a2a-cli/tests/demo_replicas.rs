//! `a2a demo --replicas N`: replica processes that share nothing but Redis. With the shared cache,
//! the replicas after the first waste nothing on the lying agents the first one met; with local
//! caches only, each pays for them again. Needs a redis-server: `A2A_TEST_REDIS_URL`'s (passed as
//! `--redis`), or the one the demo starts itself; without either the test fails in CI and is skipped
//! elsewhere, with the reason printed.

mod common;

use common::{a2a, stderr, stdout};
use serde_json::Value;

fn n(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_sharing_redis_pay_for_each_lie_once_and_local_caches_pay_for_it_on_each() {
    // An empty variable means unset, as in a shell's `${A2A_TEST_REDIS_URL:-}`.
    let url = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty());
    let mut args =
        vec!["demo", "--json", "--replicas", "3", "--tasks-per-agent", "2", "--push-arrival-bound", "500ms"];
    if let Some(url) = &url {
        args.extend(["--redis", url.as_str()]);
    }
    let output = a2a(&args).await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    let runs = report["runs"].as_array().expect("runs");
    if report["redis"]["url"].is_null() {
        let why = report["redis"]["note"].as_str().unwrap_or_default().to_owned();
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must have a redis-server: {why}");
        eprintln!("skipped the shared-cache comparison: {why}");
        assert_eq!(runs.len(), 1, "the local-caches run still ran");
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(runs.len(), 2, "shared, then local caches only");
    for run in runs {
        for batch in run["batches"].as_array().expect("batches") {
            let parts = batch["replicas"].as_array().expect("replicas");
            assert_eq!(parts.len(), 3);
            for part in parts {
                let r = &part["report"];
                let ended = n(&r["completed"])
                    + n(&r["completedSingleShot"])
                    + n(&r["completedBeforeRefusal"])
                    + n(&r["completedViaFallback"])
                    + n(&r["failed"]);
                assert_eq!((n(&r["submitted"]), ended), (26, 26), "a task was lost: {part:#}");
            }
        }
    }
    let batch_one = |shared: bool| -> Vec<u64> {
        let run = runs.iter().find(|r| r["sharedCache"] == shared).expect("run");
        run["batches"][0]["replicas"]
            .as_array()
            .expect("replicas")
            .iter()
            .map(|p| n(&p["report"]["wastedRoundTrips"]))
            .collect()
    };
    let (shared, local) = (batch_one(true), batch_one(false));
    assert!(
        shared[0] > 0 && local[0] > 0,
        "the first replica pays for the lies either way: {shared:?} {local:?}"
    );
    assert_eq!(shared[1..], [0, 0], "with the shared cache the later replicas waste nothing: {shared:?}");
    assert!(local[1] > 0 && local[2] > 0, "with local caches each replica pays again: {local:?}");
    let shared_run = runs.iter().find(|r| r["sharedCache"] == true).expect("shared run");
    let received: u64 = shared_run["batches"][0]["replicas"].as_array().expect("replicas")[1..]
        .iter()
        .map(|p| n(&p["shared"]["marksReceived"]))
        .sum();
    assert!(received > 0, "the later replicas got the marks through redis: {shared_run:#}");
}

#[tokio::test]
async fn a_redis_url_that_is_none_is_refused_before_any_replica_starts() {
    for given in ["", "http://127.0.0.1:6379/"] {
        let output = a2a(&["demo", "--replicas", "2", "--redis", given]).await;
        assert!(!output.status.success(), "{}", stdout(&output));
        let err = stderr(&output);
        assert!(err.contains(&format!("--redis {given:?} is not a redis url")), "{err}");
        assert!(stdout(&output).is_empty(), "nothing ran: {}", stdout(&output));
    }
}
