//! A2A extensions and per-call options against scripted agents: the extensions header of each wire
//! (`A2A-Extensions` for 1.0 over JSON-RPC and HTTP+JSON, `X-A2A-Extensions` for 0.3, the gRPC
//! metadata `a2a-extensions`), the activated ones read back from the answer, a required extension
//! not asked for refused before anything is sent, -32008 read as what it is, and the headers,
//! timeout and history length of `CallOptions` on the wire.

mod transport_common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_testkit::{Binding, Fault, Protocol, RunningAgent, Script, ScriptedAgent};
use a2a_typestate_client::{CallOptions, Client, ErrorKind};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use a2a_typestate_types::{GetTaskRequest, SendMessageConfiguration, SendMessageResponse, Task};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use transport_common::{client, connect_over, text};

const NOTE: &str = "https://example.com/ext/note/v1";
const TRAIL: &str = "https://example.com/ext/trail/v1";

/// A 1.0 agent serving every binding, its card declaring `NOTE` (not required).
async fn declaring(bindings: impl IntoIterator<Item = Binding>) -> RunningAgent {
    ScriptedAgent::builder().bindings(bindings).extension(NOTE).spawn().await.unwrap()
}

fn asking_for_note() -> Client {
    Client::builder().extension(NOTE).request_timeout(Duration::from_secs(20)).build().unwrap()
}

fn task(response: SendMessageResponse) -> Task {
    match response {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(message) => panic!("expected a task, got {message:?}"),
    }
}

#[tokio::test]
async fn one_point_zero_http_bindings_ask_in_the_a2a_extensions_header_and_read_its_echo() {
    let agent = declaring(Binding::ALL).await;
    let client = asking_for_note();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding.clone()).await;
        assert!(connection.activated_extensions().is_empty(), "nothing answered yet");
        connection.send_message(text("hi")).await.unwrap();
        assert!(connection.activated_extensions().contains(NOTE), "{binding}");
        assert_eq!(connection.activated_extensions().uris(), [NOTE]);
    }
    for sent in agent.requests_for("SendMessage") {
        assert_eq!(sent.header("A2A-Extensions"), Some(NOTE), "{}", sent.path);
        assert_eq!(sent.header("X-A2A-Extensions"), None, "1.0 uses the unprefixed name");
    }
}

#[tokio::test]
async fn a_v03_agent_is_asked_in_the_x_a2a_extensions_header_and_its_echo_is_read() {
    let agent = ScriptedAgent::builder().protocol(Protocol::V0_3).extension(NOTE).spawn().await.unwrap();
    let connection = asking_for_note().connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.interface().protocol_version, ProtocolVersion::V0_3);
    connection.send_message(text("hi")).await.unwrap();
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.header("X-A2A-Extensions"), Some(NOTE));
    assert_eq!(sent.header("A2A-Extensions"), None, "0.3 predates the unprefixed name");
    assert!(connection.activated_extensions().contains(NOTE));
}

#[tokio::test]
async fn grpc_asks_in_the_a2a_extensions_metadata_and_reads_the_echo_from_the_answers_metadata() {
    let agent = declaring([Binding::Grpc, Binding::JsonRpc]).await;
    let client = asking_for_note();
    let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, ProtocolBinding::Grpc).await;
    connection.send_message(text("hi")).await.unwrap();
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.path, "/lf.a2a.v1.A2AService/SendMessage");
    assert_eq!(sent.header("a2a-extensions"), Some(NOTE));
    assert!(connection.activated_extensions().contains(NOTE));
}

#[tokio::test]
async fn an_extension_the_card_does_not_declare_is_asked_for_but_not_reported_activated() {
    let agent = declaring([Binding::JsonRpc]).await;
    let client = Client::builder().extension("urn:example:unknown").build().unwrap();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    connection.send_message(text("hi")).await.unwrap();
    assert_eq!(agent.requests_for("SendMessage")[0].header("A2A-Extensions"), Some("urn:example:unknown"));
    assert!(connection.activated_extensions().is_empty());
}

#[tokio::test]
async fn a_view_asks_for_its_extensions_after_the_clients_and_keeps_its_own_record() {
    let agent = ScriptedAgent::builder().extension(NOTE).extension(TRAIL).spawn().await.unwrap();
    let connection = asking_for_note().connect(&agent.base_url()).await.unwrap();
    let view = connection.with_options(CallOptions::new().extension(TRAIL)).unwrap();
    assert_eq!(view.requested_extensions(), [NOTE, TRAIL]);
    assert_eq!(connection.requested_extensions(), [NOTE], "the connection itself is unchanged");

    view.send_message(text("through the view")).await.unwrap();
    assert!(connection.activated_extensions().is_empty(), "nothing answered through the connection");
    connection.send_message(text("through the connection")).await.unwrap();

    let sent = agent.requests_for("SendMessage");
    assert_eq!(sent[0].header("A2A-Extensions"), Some(format!("{NOTE},{TRAIL}").as_str()));
    assert_eq!(sent[1].header("A2A-Extensions"), Some(NOTE));
    assert_eq!(view.activated_extensions().uris(), [NOTE, TRAIL]);
    assert_eq!(connection.activated_extensions().uris(), [NOTE]);
}

#[tokio::test]
async fn a_required_card_extension_not_asked_for_fails_before_any_request_reaches_the_agent() {
    let agent = ScriptedAgent::builder().extension(NOTE).required_extension(TRAIL).spawn().await.unwrap();
    let connection = asking_for_note().connect(&agent.base_url()).await.unwrap();

    let err = connection.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert_eq!(err.required_extension(), Some(TRAIL));
    let shown = err.to_string();
    assert!(shown.contains(TRAIL) && shown.contains("capabilities.extensions[1]"), "{shown}");
    assert!(!err.is_retryable());
    let streaming = connection.send_streaming_message(text("hi")).await.unwrap_err();
    assert_eq!(streaming.required_extension(), Some(TRAIL));
    let get = connection.get_task(GetTaskRequest::new("t1")).await.unwrap_err();
    assert_eq!(get.required_extension(), Some(TRAIL));

    let operations: Vec<_> = agent.requests().into_iter().filter_map(|r| r.operation).collect();
    assert!(operations.is_empty(), "nothing reached the agent: {operations:?}");
}

#[tokio::test]
async fn asking_for_the_required_extension_per_call_lets_the_call_through() {
    let agent = ScriptedAgent::builder().required_extension(TRAIL).spawn().await.unwrap();
    let connection = client().connect(&agent.base_url()).await.unwrap();
    let view = connection.with_options(CallOptions::new().extension(TRAIL)).unwrap();
    view.send_message(text("hi")).await.unwrap();
    assert!(view.activated_extensions().contains(TRAIL));
}

#[tokio::test]
async fn an_agent_that_demands_an_undeclared_extension_is_read_as_extension_support_required() {
    let agent =
        ScriptedAgent::builder().bindings(Binding::ALL).demands_extension(TRAIL).spawn().await.unwrap();
    let client = client();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding.clone()).await;
        let err = connection.send_message(text("hi")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol, "{binding}: {err}");
        let agent_said = err.protocol_error().unwrap();
        assert!(agent_said.is_extension_support_required(), "{binding}: {agent_said}");
        assert_eq!(agent_said.code(), Some(-32008), "{binding}");
        assert!(!err.is_retryable());
    }
}

#[tokio::test]
async fn per_call_headers_reach_the_wire_on_every_binding_and_only_through_the_view() {
    let agent = ScriptedAgent::builder().bindings(Binding::ALL).spawn().await.unwrap();
    let v03 = ScriptedAgent::builder().protocol(Protocol::V0_3).spawn().await.unwrap();
    let client = client();
    let options = || CallOptions::new().header("X-Request-Id", "req-42").header("X-Tenant-Hint", "blue");
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding).await;
        connection.with_options(options()).unwrap().send_message(text("with")).await.unwrap();
        connection.send_message(text("without")).await.unwrap();
    }
    let connection = client.connect(&v03.base_url()).await.unwrap();
    connection.with_options(options()).unwrap().send_message(text("with")).await.unwrap();
    connection.send_message(text("without")).await.unwrap();

    let sent: Vec<_> =
        agent.requests_for("SendMessage").into_iter().chain(v03.requests_for("SendMessage")).collect();
    assert_eq!(sent.len(), 8);
    for pair in sent.chunks(2) {
        assert_eq!(pair[0].header("x-request-id"), Some("req-42"), "{}", pair[0].path);
        assert_eq!(pair[0].header("x-tenant-hint"), Some("blue"), "{}", pair[0].path);
        assert_eq!(
            pair[1].header("x-request-id"),
            None,
            "the connection itself sends none: {}",
            pair[1].path
        );
    }
}

#[tokio::test]
async fn headers_the_client_writes_itself_cannot_be_set_per_call() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let connection = client().connect(&agent.base_url()).await.unwrap();
    for name in ["A2A-Version", "Content-Type", "A2A-Extensions"] {
        let err = connection.with_options(CallOptions::new().header(name, "x")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config, "{name}");
    }
    let err = connection.with_options(CallOptions::new().extension("two,uris")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn per_call_history_length_fills_the_requests_that_leave_it_unset() {
    let agent = ScriptedAgent::builder().bindings(Binding::ALL).spawn().await.unwrap();
    let client = client();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        let connection = connect_over(&client, &agent, ProtocolVersion::V1_0, binding).await;
        let view = connection.with_options(CallOptions::new().history_length(1)).unwrap();
        let task = task(view.send_message(text("hi")).await.unwrap());
        view.get_task(GetTaskRequest::new(task.id.clone())).await.unwrap();
        let own = GetTaskRequest { history_length: Some(0), ..GetTaskRequest::new(task.id.clone()) };
        view.get_task(own).await.unwrap();
        let own = text("mine")
            .with_configuration(SendMessageConfiguration { history_length: Some(0), ..Default::default() });
        view.send_message(own).await.unwrap();
    }
    let history = |request: &a2a_testkit::RecordedRequest, field: &str| -> Option<i64> {
        if let Some(query) = &request.query {
            let pair = query.split('&').find_map(|p| p.strip_prefix("historyLength="));
            return pair.and_then(|v| v.parse().ok());
        }
        let body = request.body.as_ref()?;
        let params = body.get("params").unwrap_or(body);
        let value = match field {
            "send" => params.pointer("/configuration/historyLength"),
            _ => params.get("historyLength"),
        };
        value.and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
    };
    let sends = agent.requests_for("SendMessage");
    let gets = agent.requests_for("GetTask");
    assert_eq!((sends.len(), gets.len()), (6, 6));
    for binding in 0..3 {
        assert_eq!(history(&sends[binding * 2], "send"), Some(1), "{}", sends[binding * 2].path);
        assert_eq!(
            history(&sends[binding * 2 + 1], "send"),
            Some(0),
            "its own is kept: {}",
            sends[binding * 2 + 1].path
        );
        assert_eq!(history(&gets[binding * 2], "get"), Some(1), "{}", gets[binding * 2].path);
        assert_eq!(
            history(&gets[binding * 2 + 1], "get"),
            Some(0),
            "its own is kept: {}",
            gets[binding * 2 + 1].path
        );
    }
}

#[tokio::test]
async fn a_per_call_timeout_ends_a_call_to_a_slow_agent_as_a_timeout_fault() {
    let slow = Script::honest().with_fault(Fault::SlowResponses(Duration::from_secs(5)));
    let agent = ScriptedAgent::builder().script(slow).spawn().await.unwrap();
    let connection = client().connect(&agent.base_url()).await.unwrap();
    let view = connection.with_options(CallOptions::new().timeout(Duration::from_millis(300))).unwrap();
    let err = view.send_message(text("hi")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert!(err.is_timeout(), "{err}");
}

#[tokio::test]
async fn a_per_call_timeout_is_sent_as_the_grpc_deadline() {
    let agent = ScriptedAgent::builder().bindings([Binding::Grpc]).spawn().await.unwrap();
    let connection = client().connect(&agent.base_url()).await.unwrap();
    let view = connection.with_options(CallOptions::new().timeout(Duration::from_secs(3))).unwrap();
    view.send_message(text("hi")).await.unwrap();
    let deadline = agent.requests_for("SendMessage")[0].header("grpc-timeout").map(str::to_owned);
    let deadline = deadline.expect("a grpc-timeout");
    let (digits, unit) = deadline.split_at(deadline.len() - 1);
    let value: u64 = digits.parse().unwrap();
    let micros = match unit {
        "H" => value * 3_600_000_000,
        "M" => value * 60_000_000,
        "S" => value * 1_000_000,
        "m" => value * 1_000,
        "u" => value,
        _ => value / 1_000,
    };
    assert!(micros <= 3_000_000, "the call's 3 s, not the client's 20 s: {deadline}");
}

/// A loopback HTTP/1.1 server: `answer(path, own base)` for each request; keeps each request head.
async fn serve(answer: impl Fn(&str, &str) -> String + Send + 'static) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let heads = Arc::new(Mutex::new(Vec::new()));
    let (log, own) = (heads.clone(), base.clone());
    tokio::spawn(async move {
        for _ in 0..20 {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let mut buffer = vec![0u8; 8192];
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buffer[..n]).to_string();
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            log.lock().unwrap().push(head.to_ascii_lowercase());
            let _ = stream.write_all(answer(&path, &own).as_bytes()).await;
        }
    });
    (base, heads)
}

fn ok_json(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_per_call_credential_never_reaches_another_origin_through_a_redirect() {
    let (elsewhere, elsewhere_heads) = serve(|_, _| ok_json(r#"{"id":"t1"}"#)).await;
    let (base, base_heads) = serve(move |path, own| {
        if path == "/.well-known/agent-card.json" {
            return ok_json(&format!(
                r#"{{"name":"a","description":"","version":"1","skills":[],"capabilities":{{}},
                "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
                "supportedInterfaces":[{{"url":"{own}/a2a","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}}]}}"#
            ));
        }
        let target = if path.starts_with("/a2a/tasks/same") { format!("{own}/a2a/tasks/t1") } else { format!("{elsewhere}/a2a/tasks/t1") };
        if path.starts_with("/a2a/tasks/t1") {
            return ok_json(r#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}"#);
        }
        format!("HTTP/1.1 302 Found\r\nlocation: {target}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
    })
    .await;
    let connection = client().connect(&base).await.unwrap();
    let view = connection
        .with_options(
            CallOptions::new().header("Authorization", "Bearer CALL-SECRET").header("X-Trace", "t-1"),
        )
        .unwrap();

    // Same origin: the redirect is followed and the call's headers go along.
    view.get_task(GetTaskRequest::new("same")).await.unwrap();
    // Another origin: not followed, so nothing of the call's reaches it.
    let err = view.get_task(GetTaskRequest::new("away")).await.unwrap_err();
    assert_eq!(err.status(), Some(302), "{err}");
    assert!(!err.to_string().contains("CALL-SECRET"));

    let heads = base_heads.lock().unwrap().clone();
    let followed = heads.iter().filter(|h| h.starts_with("get /a2a/tasks/t1")).count();
    assert_eq!(followed, 1, "{heads:?}");
    for head in heads.iter().filter(|h| h.starts_with("get /a2a/tasks/")) {
        assert!(head.contains("authorization: bearer call-secret"), "{head}");
        assert!(head.contains("x-trace: t-1"), "{head}");
    }
    assert!(elsewhere_heads.lock().unwrap().is_empty(), "another origin heard nothing");
}
