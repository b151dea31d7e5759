//! A quick smoke of figures 2-4: every Rust client completes each workload against the bench
//! agent and counts exactly the events it was sent. Small numbers: this runs in `cargo test`.

use a2a_bench::drive::{ClientKind, DriveOptions, Workload, drive};
use a2a_bench::{BenchAgent, BenchAgentConfig};
use serde_json::{Value, json};

const EVENTS: usize = 25;

async fn run(agent: &BenchAgent, client: ClientKind, workload: Workload) -> a2a_bench::drive::DriveReport {
    let options = DriveOptions {
        client,
        workload,
        agents: vec![agent.base_url()],
        requests: 6,
        in_flight: 3,
        expect_events: EVENTS,
    };
    drive(&options).await.unwrap_or_else(|e| panic!("{client:?} {workload:?}: {e:?}"))
}

#[tokio::test]
async fn every_client_counts_one_event_per_round_trip_and_every_streamed_event() {
    let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: EVENTS }).await.unwrap();
    for client in [ClientKind::Floor, ClientKind::Sdk, ClientKind::SdkEngine, ClientKind::SdkReqwest] {
        let sent = run(&agent, client, Workload::Send).await;
        assert_eq!((sent.requests, sent.events), (6, 6), "{client:?}");
        let streamed = run(&agent, client, Workload::Stream).await;
        assert_eq!(streamed.events, 6 * EVENTS as u64, "{client:?}");
        assert!(streamed.seconds > 0.0 && streamed.peak_rss_kib > 0);
    }
}

#[tokio::test]
async fn a_stream_of_another_length_than_expected_fails_the_run() {
    let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: EVENTS }).await.unwrap();
    for client in [ClientKind::Floor, ClientKind::Sdk] {
        let options = DriveOptions {
            client,
            workload: Workload::Stream,
            agents: vec![agent.base_url()],
            requests: 1,
            in_flight: 1,
            expect_events: EVENTS + 1,
        };
        let error = drive(&options).await.unwrap_err();
        assert!(error.to_string().contains("expected 26"), "{client:?}: {error}");
    }
}

#[tokio::test]
async fn the_bench_agent_requires_the_1_0_version_header_like_the_official_servers() {
    let agent = BenchAgent::spawn(BenchAgentConfig::default()).await.unwrap();
    let request = json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": {
        "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}});
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let answer: Value =
        http.post(agent.jsonrpc_url()).json(&request).send().await.unwrap().json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32009);
    let answer: Value = http
        .post(agent.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .json(&request)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(answer["id"], 3);
}

#[tokio::test]
async fn an_interleaved_comparison_gives_every_client_the_same_calls_and_the_reference_ratio_one() {
    use a2a_bench::drive::{CompareOptions, compare};
    let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: EVENTS }).await.unwrap();
    let options = CompareOptions {
        clients: vec![ClientKind::Floor, ClientKind::Sdk, ClientKind::SdkEngine],
        workload: Workload::Stream,
        agents: vec![agent.base_url()],
        rounds: 3,
        block: 2,
        in_flight: 2,
        expect_events: EVENTS,
    };
    let report = compare(&options).await.unwrap();
    assert_eq!(report.clients.len(), 3);
    for row in &report.clients {
        assert_eq!((row.requests, row.events), (6, 6 * EVENTS as u64), "{row:?}");
        assert!(row.ratio_range.0 <= row.ratio && row.ratio <= row.ratio_range.1, "{row:?}");
    }
    assert!((report.clients[0].ratio - 1.0).abs() < 1e-9);
}

/// The engine row measures verified tasks only: an agent whose card lies about streaming is
/// refused by the engine, and a benchmark of refused tasks fails instead of timing the fallback.
#[tokio::test]
async fn the_engine_row_fails_the_run_when_the_engine_refuses_a_claim() {
    use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    let options = DriveOptions {
        client: ClientKind::SdkEngine,
        workload: Workload::Stream,
        agents: vec![agent.base_url()],
        requests: 1,
        in_flight: 1,
        expect_events: 0,
    };
    let error = drive(&options).await.unwrap_err();
    assert!(error.to_string().contains("the engine did not verify the card"), "{error}");
    assert!(error.to_string().contains("streaming"), "the refused claim is named: {error}");
}

/// The gRPC row has a floor and a rival beside the SDK: all three give the same answers (the
/// comparison checks this before it times anything) on an agent whose card lists a GRPC interface.
#[tokio::test]
async fn the_grpc_floor_the_sdk_and_the_rival_give_the_same_answers_over_grpc() {
    use a2a_bench::drive::{CompareOptions, compare};
    use a2a_testkit::{Binding, Capabilities, Script, ScriptedAgent};
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .bindings(Binding::ALL)
        .script(Script::honest().step_delay(std::time::Duration::ZERO))
        .spawn()
        .await
        .unwrap();
    for workload in [Workload::Send, Workload::Stream] {
        let options = CompareOptions {
            clients: vec![ClientKind::FloorGrpc, ClientKind::SdkGrpc, ClientKind::A2aProtocolClientGrpc],
            workload,
            agents: vec![agent.base_url()],
            rounds: 2,
            block: 2,
            in_flight: 1,
            expect_events: 0,
        };
        let report = compare(&options).await.unwrap_or_else(|e| panic!("{workload:?}: {e:?}"));
        assert_eq!(report.clients.len(), 3);
        for row in &report.clients {
            assert_eq!(row.requests, 4, "{workload:?} {row:?}");
            assert!(row.events >= 4, "{workload:?} {row:?}");
        }
    }
    agent.shutdown().await;
}

/// Every binding the bench agent serves has its floor, the SDK and the rivals that speak it; within
/// each binding all give the same answers (the comparison checks this before it times anything)
/// and count every streamed event.
#[tokio::test]
async fn on_every_binding_the_floor_the_sdk_and_the_rivals_give_the_same_answers() {
    use a2a_bench::drive::{CompareOptions, compare};
    let agent = BenchAgent::spawn(BenchAgentConfig { stream_events: EVENTS }).await.unwrap();
    let bindings = [
        vec![ClientKind::FloorHyper, ClientKind::Sdk, ClientKind::A2aClientLf, ClientKind::A2aProtocolClient],
        vec![
            ClientKind::FloorRest,
            ClientKind::SdkRest,
            ClientKind::A2aClientLfRest,
            ClientKind::A2aProtocolClientRest,
        ],
        vec![ClientKind::FloorGrpc, ClientKind::SdkGrpc, ClientKind::A2aProtocolClientGrpc],
        vec![ClientKind::FloorV03, ClientKind::SdkV03],
    ];
    for clients in bindings {
        for workload in [Workload::Send, Workload::Stream] {
            let options = CompareOptions {
                clients: clients.clone(),
                workload,
                agents: vec![agent.base_url()],
                rounds: 2,
                block: 2,
                in_flight: 2,
                expect_events: EVENTS,
            };
            let report =
                compare(&options).await.unwrap_or_else(|e| panic!("{clients:?} {workload:?}: {e:?}"));
            let per_call = if workload == Workload::Send { 1 } else { EVENTS as u64 };
            for row in &report.clients {
                assert_eq!((row.requests, row.events), (4, 4 * per_call), "{workload:?} {row:?}");
            }
        }
    }
}

/// The 1.0 faces require the version header on every binding, as the official servers do; the
/// 0.3 face does not know it.
#[tokio::test]
async fn the_bench_agent_requires_the_version_header_on_http_json_and_not_on_its_0_3_face() {
    let agent = BenchAgent::spawn(BenchAgentConfig::default()).await.unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let rest = format!("{}/a2a/rest/message:send", agent.base_url());
    let message = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let refused = http.post(&rest).json(&message).send().await.unwrap();
    assert_eq!(refused.status(), 400);
    let answer: Value = http
        .post(&rest)
        .header("A2A-Version", "1.0")
        .json(&message)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["task"]["artifacts"][0]["parts"][0]["text"], "echo: hi");
    let card: Value = http
        .get(format!("{}/.well-known/agent-card.json", agent.v03_base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    let request = json!({"jsonrpc": "2.0", "id": "x", "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m2", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}});
    let answer: Value =
        http.post(card["url"].as_str().unwrap()).json(&request).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        (answer["id"].as_str(), answer["result"]["status"]["state"].as_str()),
        (Some("x"), Some("completed"))
    );
}
