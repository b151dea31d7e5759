//! The conformance fleet grades clients from the agents' side: `a2a send` (this SDK's client, used
//! as its docs show, with its deadline set to the patience) passes every scenario, and a client that
//! takes every card at its word, written here for the purpose, fails every one.

use std::process::Output;
use std::time::Duration;

use a2a_testkit::conformance::{ConformanceFleet, Outcome, ScenarioInfo, Scorecard};
use futures::future::join_all;
use serde_json::{Value, json};

const PATIENCE: Duration = Duration::from_secs(2);

fn shown(scorecard: &Scorecard) -> String {
    scorecard
        .grades
        .iter()
        .map(|g| format!("{:>24} {:?}: {} ({})", g.scenario, g.outcome, g.verdict, g.observed))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn a2a_send(scenario: &ScenarioInfo) -> Output {
    let deadline = format!("{}s", PATIENCE.as_secs());
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"));
    command.args(["send", &scenario.url, &scenario.message, "--task-deadline", &deadline]);
    command.args(["--request-timeout", &deadline]).kill_on_drop(true);
    if let Some(token) = &scenario.bearer_token {
        command.args(["--bearer-env", "CONFORMANCE_TOKEN"]).env("CONFORMANCE_TOKEN", token);
    }
    tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("a2a send ends")
        .expect("a2a runs")
}

#[tokio::test]
async fn every_scenario_grades_this_sdks_client_as_conforming() {
    let fleet = ConformanceFleet::spawn(PATIENCE).await.unwrap();
    let scenarios = fleet.scenarios();
    join_all(scenarios.iter().map(a2a_send)).await;
    let scorecard = fleet.settled_grade().await;
    assert_eq!(scorecard.grades.len(), scenarios.len());
    assert_eq!(scorecard.count(Outcome::Pass), scenarios.len(), "{}", shown(&scorecard));
    fleet.shutdown().await;
}

#[tokio::test]
async fn every_scenario_grades_a_client_that_trusts_the_card_as_failing() {
    let fleet = ConformanceFleet::spawn(PATIENCE).await.unwrap();
    let scenarios = fleet.scenarios();
    // The trusting client has no deadline of its own: it runs until the fleet has graded it (every
    // scenario reached, then the patience given to the ones it still holds), and is dropped then.
    let clients: Vec<_> = scenarios
        .iter()
        .cloned()
        .map(|s| tokio::spawn(async move { trusting_client(&s).await.map_err(|e| e.to_string()) }))
        .collect();
    let reached = tokio::time::Instant::now() + Duration::from_secs(60);
    while fleet.grade().count(Outcome::NotRun) > 0 && tokio::time::Instant::now() < reached {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let scorecard = fleet.settled_grade().await;
    clients.iter().for_each(tokio::task::JoinHandle::abort);
    eprintln!("{}", shown(&scorecard));
    let not_failed: Vec<_> = scorecard.grades.iter().filter(|g| g.outcome != Outcome::Fail).collect();
    assert!(not_failed.is_empty(), "{}", shown(&scorecard));
    fleet.shutdown().await;
}

#[tokio::test]
async fn a_fleet_nobody_was_pointed_at_grades_every_scenario_not_run() {
    let fleet = ConformanceFleet::spawn(PATIENCE).await.unwrap();
    let scorecard = fleet.settled_grade().await;
    assert_eq!(scorecard.count(Outcome::NotRun), scorecard.grades.len(), "{}", shown(&scorecard));
    fleet.shutdown().await;
}

#[tokio::test]
async fn serve_lists_the_scenarios_and_report_reads_the_scorecard_over_http() {
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"));
    serve.args(["conformance", "serve", "--json", "--patience", "1s", "--listen", "127.0.0.1:0"]);
    serve.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).kill_on_drop(true);
    let mut serve = serve.spawn().unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut stdout = tokio::io::BufReader::new(serve.stdout.take().unwrap()).lines();
    let mut stderr = tokio::io::BufReader::new(serve.stderr.take().unwrap()).lines();
    let listed: Vec<ScenarioInfo> =
        serde_json::from_str(&stdout.next_line().await.unwrap().unwrap()).unwrap();
    let said = stderr.next_line().await.unwrap().unwrap();
    let index = said
        .split_whitespace()
        .find_map(|w| w.trim_end_matches(',').strip_suffix("/scenarios"))
        .expect(&said)
        .to_owned();

    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let served: Vec<ScenarioInfo> =
        http.get(format!("{index}/scenarios")).send().await.unwrap().json().await.unwrap();
    assert_eq!(served, listed);
    let honest = listed.iter().find(|s| s.id == "honest-streamer").unwrap();
    assert_eq!(a2a_send(honest).await.status.code(), Some(0));

    let report = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(["conformance", "report", "--json", &index])
        .output()
        .await
        .unwrap();
    assert_eq!(report.status.code(), Some(1), "the other scenarios were not run");
    let scorecard: Scorecard = serde_json::from_slice(&report.stdout).unwrap();
    let outcome = |id: &str| scorecard.grades.iter().find(|g| g.scenario == id).map(|g| g.outcome);
    assert_eq!(outcome("honest-streamer"), Some(Outcome::Pass), "{}", shown(&scorecard));
    assert_eq!(scorecard.count(Outcome::NotRun), listed.len() - 1, "{}", shown(&scorecard));
    serve.kill().await.unwrap();
}

/// A client that believes every card: it streams when the card says so and reads the stream to its
/// end, takes the first interface, sends its credential wherever the card points, asks for the
/// extended card and gives up without it, waits for push callbacks and for blocking answers as long
/// as they take, reads answers whole, polls for a history the card promised, and, when the final
/// task it read carries no artifact, sends the message again.
async fn trusting_client(scenario: &ScenarioInfo) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let http = reqwest::Client::builder().no_proxy().build()?;
    let with_token = |request: reqwest::RequestBuilder| match &scenario.bearer_token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let card_url = format!("{}/.well-known/agent-card.json", scenario.url);
    let card: Value = with_token(http.get(card_url)).send().await?.json().await?;
    let v03 = card.get("url").is_some();
    let endpoint = if v03 { card["url"].as_str() } else { card["supportedInterfaces"][0]["url"].as_str() };
    let endpoint = endpoint.ok_or("no interface")?.to_owned();
    let call = |method: &str, params: Value| {
        let method = if v03 {
            match method {
                "SendMessage" => "message/send",
                "GetTask" => "tasks/get",
                other => other,
            }
        } else {
            method
        };
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        with_token(http.post(&endpoint).header("A2A-Version", "1.0").json(&body))
    };
    let message = if v03 {
        json!({"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": scenario.message}]})
    } else {
        json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": scenario.message}]})
    };
    let capabilities = &card["capabilities"];
    if capabilities["extendedAgentCard"] == true {
        let answer: Value = call("GetExtendedAgentCard", json!({})).send().await?.json().await?;
        if answer.get("error").is_some() {
            return Err("the extended card the card promised is not there".into());
        }
    }
    if capabilities["streaming"] == true {
        let mut last = Value::Null;
        for _ in 0..2 {
            let response = call("SendStreamingMessage", json!({"message": message})).send().await?;
            let text = response.text().await?;
            last = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str(d.trim()).ok())
                .next_back()
                .unwrap_or(Value::Null);
            if last.get("error").is_none() && last != Value::Null {
                break;
            }
        }
        if last.pointer("/result/task/artifacts").is_none() {
            call("SendMessage", json!({"message": message})).send().await?;
        }
        return Ok(());
    }
    if capabilities["pushNotifications"] == true {
        let configuration = json!({"returnImmediately": true, "taskPushNotificationConfig": {"url": "http://127.0.0.1:9/callback"}});
        call("SendMessage", json!({"message": message, "configuration": configuration})).send().await?;
        // The callback the card promised will say when the task ends.
        std::future::pending::<()>().await;
    }
    let response = call("SendMessage", json!({"message": message})).send().await?;
    let answer: Value = response.json().await?;
    let task =
        answer.pointer("/result/task").or_else(|| answer.get("result")).cloned().unwrap_or(Value::Null);
    if capabilities["stateTransitionHistory"] == true {
        for _ in 0..5 {
            let read: Value =
                call("GetTask", json!({"id": task["id"], "historyLength": 10})).send().await?.json().await?;
            if read["result"]["history"].as_array().is_some_and(|h| !h.is_empty()) {
                break;
            }
        }
    }
    Ok(())
}
