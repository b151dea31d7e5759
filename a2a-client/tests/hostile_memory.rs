//! What a document costs once read: unknown card members kept as text, and the per-client document
//! budget that keeps a fleet of large bodies from multiplying the worst case. (The figures are in
//! RELIABILITY.md, measured with `a2a-hostile`; these tests assert the behaviour.)

use std::time::{Duration, Instant};

use a2a_typestate_client::{AgentBaseUrl, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn card_with_padding(padding: &str) -> String {
    format!(
        r#"{{"name":"a","description":"","version":"1","skills":[],"capabilities":{{}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "padding":{padding}}}"#
    )
}

fn zeros(bytes: usize) -> String {
    let mut text = String::from("[0");
    while text.len() < bytes {
        text.push_str(",0");
    }
    text.push(']');
    text
}

/// Serves `body` as the card to one request: the head and the first half at once, the rest after
/// `pause`.
async fn card_server(body: String, pause: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let Ok((mut stream, _)) = listener.accept().await else { return };
        let mut buffer = vec![0u8; 8192];
        let _ = stream.read(&mut buffer).await;
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let (first, rest) = body.as_bytes().split_at(body.len() / 2);
        let _ = stream.write_all(head.as_bytes()).await;
        let _ = stream.write_all(first).await;
        tokio::time::sleep(pause).await;
        let _ = stream.write_all(rest).await;
    });
    base
}

#[tokio::test]
async fn an_unknown_card_member_is_kept_as_the_text_it_came_in() {
    let padding = zeros(1024 * 1024);
    let base = card_server(card_with_padding(&padding), Duration::ZERO).await;
    let client = Client::builder().build().unwrap();
    let card = client.discover_agent(&AgentBaseUrl::parse(&base).unwrap()).await.unwrap();
    let kept = card.card().extra.get("padding").expect("the unknown member is kept");
    assert_eq!(kept.get(), padding, "kept as its text, not as a Value per zero");
    assert_eq!(card.json()["padding"].as_array().map(Vec::len), Some(padding.len() / 2));
}

#[tokio::test]
async fn a_body_waits_for_room_while_another_holds_the_document_budget() {
    let large = card_with_padding(&zeros(64 * 1024));
    let small = card_with_padding("null");
    let slow = card_server(large.clone(), Duration::from_millis(600)).await;
    let quick = card_server(small, Duration::ZERO).await;
    // Room for the large card only: the small one must wait until the large one is parsed.
    let client = Client::builder().document_budget(large.len()).build().unwrap();

    let started = Instant::now();
    let first = {
        let client = client.clone();
        tokio::spawn(async move {
            client.discover_agent(&AgentBaseUrl::parse(&slow).unwrap()).await.map(|_| started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let second =
        client.discover_agent(&AgentBaseUrl::parse(&quick).unwrap()).await.map(|_| started.elapsed());
    let first = first.await.unwrap().expect("the large card is read");
    let second = second.expect("the small card is read once there is room");
    assert!(second >= first, "the small card was read at {second:?}, before the large one left at {first:?}");
}

#[tokio::test]
async fn every_body_is_read_even_when_the_budget_is_smaller_than_one() {
    let mut bases = Vec::new();
    for _ in 0..4 {
        bases.push(card_server(card_with_padding(&zeros(32 * 1024)), Duration::from_millis(20)).await);
    }
    let client = Client::builder().document_budget(1).build().unwrap();
    let bases: Vec<AgentBaseUrl> = bases.iter().map(|b| AgentBaseUrl::parse(b).unwrap()).collect();
    let reads = futures::future::join_all(bases.iter().map(|base| client.discover_agent(base))).await;
    assert!(
        reads.iter().all(Result::is_ok),
        "{:?}",
        reads.iter().filter_map(|r| r.as_ref().err()).collect::<Vec<_>>()
    );
}

/// A streaming agent whose task sends `chunks` artifact chunks, each a data part holding `data`.
async fn data_stream_agent(chunks: usize, data: String) -> String {
    use axum::routing::{get, post};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = format!(
        r#"{{"name":"d","description":"","version":"1","skills":[],"capabilities":{{"streaming":true}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],
            "supportedInterfaces":[{{"url":"{base}/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}]}}"#
    );
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", get(move || async move { ([("content-type", "application/json")], card) }))
        .route(
            "/a2a",
            post(move |body: bytes::Bytes| {
                let data = data.clone();
                async move {
                    let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    let id = request["id"].to_string();
                    let frame = |result: String| format!("data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n\n");
                    let mut body = frame(r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#.into());
                    for index in 0..chunks {
                        body.push_str(&frame(format!(
                            r#"{{"artifactUpdate":{{"taskId":"t1","contextId":"c1","append":{},"artifact":{{"artifactId":"a1","parts":[{{"data":{data}}}]}}}}}}"#,
                            index > 0
                        )));
                    }
                    body.push_str(&frame(
                        r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#.into(),
                    ));
                    ([("content-type", "text/event-stream")], body)
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn streamed_data_chunks_are_kept_as_the_text_they_came_in() {
    let data = zeros(256 * 1024);
    let base = data_stream_agent(3, data.clone()).await;
    let client = Client::builder().build().unwrap();
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[
        a2a_typestate_client::Capability::Streaming,
    ]);
    let outcome = client
        .run_task(&base, a2a_typestate_types::Message::user("zeros").with_message_id("m-1"), &negotiation)
        .await
        .unwrap();
    assert_eq!(outcome.state(), Some(a2a_typestate_types::TaskState::Completed));
    let a2a_typestate_types::SendMessageResponse::Task(task) = &outcome.result else { panic!("a task") };
    let parts = &task.artifacts[0].parts;
    assert_eq!(parts.len(), 3, "the three chunks are appended");
    for part in parts {
        let a2a_typestate_types::PartContent::Data(text) = &part.content else { panic!("a data part") };
        assert_eq!(text.get(), data, "kept as its text");
    }
}

/// An agent that answers every JSON-RPC call with `result` (a `SendMessage` answer), its card
/// claiming nothing.
async fn unary_agent(result: String) -> String {
    use axum::routing::{get, post};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = format!(
        r#"{{"name":"u","description":"","version":"1","skills":[],"capabilities":{{}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],
            "supportedInterfaces":[{{"url":"{base}/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}]}}"#
    );
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { ([("content-type", "application/json")], card) }),
        )
        .route(
            "/a2a",
            post(move |body: bytes::Bytes| {
                let result = result.clone();
                async move {
                    let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    let id = request["id"].to_string();
                    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}");
                    ([("content-type", "application/json")], answer)
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

fn completed_task_with(members: &str) -> String {
    format!(
        r#"{{"task":{{"id":"t1","contextId":"c1","status":{{"state":"TASK_STATE_COMPLETED"}}{members}}}}}"#
    )
}

#[tokio::test]
async fn metadata_in_an_answer_is_kept_as_the_text_it_came_in() {
    let zeros = zeros(256 * 1024);
    let base = unary_agent(completed_task_with(&format!(r#","metadata":{{"zeros":{zeros}}}"#))).await;
    let client = Client::builder().build().unwrap();
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[]);
    let outcome = client
        .run_task(&base, a2a_typestate_types::Message::user("zeros").with_message_id("m-1"), &negotiation)
        .await
        .unwrap();
    let a2a_typestate_types::SendMessageResponse::Task(task) = &outcome.result else { panic!("a task") };
    let metadata = task.metadata.as_ref().expect("the metadata is kept");
    assert_eq!(
        metadata.get("zeros").map(|text| text.get()),
        Some(zeros.as_str()),
        "as text, not a Value per zero"
    );
}

#[tokio::test]
async fn a_clean_answer_read_tolerantly_reports_nothing_and_an_escaped_0_3_kind_is_still_reported() {
    let client = Client::builder().wire_reading(a2a_typestate_client::WireReading::Tolerant).build().unwrap();
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[]);
    let clean =
        unary_agent(completed_task_with(r#","artifacts":[{"artifactId":"a","parts":[{"data":[0,0]}]}]"#))
            .await;
    let outcome = client
        .run_task(&clean, a2a_typestate_types::Message::user("x").with_message_id("m-1"), &negotiation)
        .await
        .unwrap();
    assert!(outcome.wire_deviations.is_empty(), "{:?}", outcome.wire_deviations);
    // `\u006bind` is `kind`: read straight into the task, it would be dropped without a word.
    let escaped = unary_agent(completed_task_with(r#","\u006bind":"task""#)).await;
    let outcome = client
        .run_task(&escaped, a2a_typestate_types::Message::user("x").with_message_id("m-2"), &negotiation)
        .await
        .unwrap();
    let kinds: Vec<_> = outcome.wire_deviations.iter().map(|d| d.kind()).collect();
    assert_eq!(
        kinds,
        [a2a_typestate_types::tolerant::DeviationKind::KindField],
        "{:?}",
        outcome.wire_deviations
    );
    assert_eq!(outcome.state(), Some(a2a_typestate_types::TaskState::Completed));
}

#[tokio::test]
async fn a_stream_event_waits_for_room_while_a_body_holds_the_document_budget() {
    let large = card_with_padding(&zeros(64 * 1024));
    let slow = card_server(large.clone(), Duration::from_millis(600)).await;
    let streaming = data_stream_agent(1, "[0]".into()).await;
    // Room for the large card only: the stream's events must wait until it is parsed.
    let client = Client::builder().document_budget(large.len()).build().unwrap();
    let connection = client.connect(&streaming).await.unwrap();
    let negotiation = a2a_typestate_client::negotiate::Negotiation::depending_on(&[
        a2a_typestate_client::Capability::Streaming,
    ]);

    let started = Instant::now();
    let first = {
        let client = client.clone();
        tokio::spawn(async move {
            client.discover_agent(&AgentBaseUrl::parse(&slow).unwrap()).await.map(|_| started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let message = a2a_typestate_types::Message::user("zeros").with_message_id("m-1");
    let outcome = client.run_task_on(&connection, message, &negotiation).await.unwrap();
    let streamed = started.elapsed();
    let first = first.await.unwrap().expect("the large card is read");
    assert_eq!(outcome.state(), Some(a2a_typestate_types::TaskState::Completed));
    assert!(
        streamed >= first,
        "the stream was read by {streamed:?}, before the large card left at {first:?}"
    );
}
