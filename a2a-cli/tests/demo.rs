//! `a2a demo` end to end: the built binary runs the embedded fleet with a small batch.

mod common;

use common::{a2a, has_escape_codes, stderr, stdout};
use serde_json::Value;

async fn demo_json(tasks_per_agent: &str) -> (Option<i32>, Value) {
    let output =
        a2a(&["demo", "--json", "--tasks-per-agent", tasks_per_agent, "--push-arrival-bound", "1s"]).await;
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report)
}

fn n(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

#[tokio::test]
async fn every_task_is_accounted_for_and_the_suspect_cache_cuts_waste_to_a_tenth() {
    let (_, report) = demo_json("3").await;
    assert!(n(&report["elapsedMs"]) < 60_000, "the demo must finish within a minute");
    let runs = report["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "cache on and cache off");
    for run in runs {
        let batches = run["batches"].as_array().expect("batches");
        assert_eq!(batches.len(), 2);
        for batch in batches {
            let submitted = n(&batch["submitted"]);
            assert_eq!(submitted, 13 * 3, "{batch:#}");
            let ended = n(&batch["completed"])
                + n(&batch["completedSingleShot"])
                + n(&batch["completedBeforeRefusal"])
                + n(&batch["completedViaFallback"])
                + n(&batch["failed"]);
            assert_eq!(ended, submitted, "a task was lost: {batch:#}");
            assert_eq!(n(&batch["failed"]), batch["failures"].as_array().map_or(0, |f| f.len() as u64));
        }
    }
    let on = runs.iter().find(|r| r["suspectCache"] == true).expect("cache-on run");
    let (first, second) =
        (n(&on["batches"][0]["wastedRoundTrips"]), n(&on["batches"][1]["wastedRoundTrips"]));
    assert!(first > 0, "the lying agents waste round trips in the first batch: {on:#}");
    assert!(second * 10 <= first, "second batch wasted {second}, first {first}: {on:#}");
    assert_eq!(n(&on["batches"][1]["refusals"]), 0, "suspect agents are not negotiated again: {on:#}");

    let off = runs.iter().find(|r| r["suspectCache"] == false).expect("cache-off run");
    let off_second = n(&off["batches"][1]["wastedRoundTrips"]);
    assert!(off_second > second, "without the suspect cache the waste comes back: {off:#}");
    for batch in off["batches"].as_array().expect("batches") {
        assert_eq!(n(&batch["completedSingleShot"]), 0, "no agent is marked suspect: {batch:#}");
        assert!(n(&batch["refusals"]) > 0, "every batch negotiates the liars again: {batch:#}");
    }
}

#[tokio::test]
async fn each_lying_agent_is_refused_on_its_lie_and_only_lying_agents_are_refused() {
    let (status, report) = demo_json("2").await;
    let agents = report["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 13);
    let refused = |name: &str| -> Vec<String> {
        let agent = agents.iter().find(|a| a["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        agent["refused"]
            .as_array()
            .expect("refused list")
            .iter()
            .map(|r| r["capability"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(refused("streaming-refuser"), ["streaming"]);
    assert_eq!(refused("history-forgetter"), ["stateTransitionHistory"]);
    assert_eq!(refused("silent-pusher"), ["pushNotifications"]);
    let refused_card = |name: &str| -> Vec<(String, String)> {
        let agent = agents.iter().find(|a| a["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        let kind = |r: &serde_json::Value| r["kind"].as_str().unwrap_or_default().to_owned();
        let fallback = |r: &serde_json::Value| r["fallback"].as_str().unwrap_or_default().to_owned();
        agent["refusedCardClaims"]
            .as_array()
            .expect("card refusals")
            .iter()
            .map(|r| (kind(r), fallback(r)))
            .collect()
    };
    assert_eq!(
        refused_card("extended-card-liar"),
        [("extended-card".to_owned(), "used the public card".to_owned())]
    );
    assert_eq!(
        refused_card("retired-interface"),
        [("interfaces".to_owned(), "sent the task to the next declared interface".to_owned())]
    );
    for name in ["extended-card-liar", "retired-interface"] {
        assert_eq!(refused(name), Vec::<String>::new(), "no lifecycle claim refused for {name}");
    }
    for agent in agents {
        if !agent["truth"].as_str().unwrap_or_default().starts_with("over-declares") {
            assert_eq!(agent["refused"], serde_json::json!([]), "an honest agent was refused: {agent:#}");
            assert_eq!(
                agent["refusedCardClaims"],
                serde_json::json!([]),
                "an honest agent was refused: {agent:#}"
            );
        }
    }
    assert!(report["checks"].as_array().expect("checks").iter().all(|c| c["passed"] == true), "{report:#}");
    assert_eq!(status, Some(0));
}

#[tokio::test]
async fn the_table_report_has_no_colour_codes_in_a_pipe() {
    let output = a2a(&["demo", "--tasks-per-agent", "1", "--push-arrival-bound", "1s"]).await;
    let shown = stdout(&output);
    assert!(shown.contains("Batches") && shown.contains("streaming-refuser"), "{shown}");
    assert!(shown.contains("Refused card claims and the fallback taken"), "{shown}");
    assert!(shown.contains("fallback: sent the task to the next declared interface"), "{shown}");
    assert!(shown.contains("fallback: used the public card"), "{shown}");
    assert!(shown.contains("every task accounted for"), "{shown}");
    assert!(!has_escape_codes(&shown), "{shown:?}");
    assert!(!has_escape_codes(&stderr(&output)), "progress bar drawn into a pipe: {:?}", stderr(&output));
}
