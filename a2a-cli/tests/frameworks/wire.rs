//! Raw HTTP to a corpus agent: its card and the calls of the interface it declares, written here
//! with `serde_json` and reqwest from the specification and the agents' transcripts, never with
//! this project's client, so that what the agent does is observed independently of what the audit
//! reads.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longest wait for any one request, and for a whole stream.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stream that reached a terminal state is read on before it is closed from this side
/// (every agent here closes its streams itself, some after one more event).
const AFTER_TERMINAL: Duration = Duration::from_secs(5);

/// The question every probe asks.
pub const QUESTION: &str = "What is the capital of France?";

/// How a declared interface is spoken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// JSON-RPC, A2A 1.0 (`SendMessage`, `A2A-Version: 1.0`, ProtoJSON).
    JsonRpc10,
    /// JSON-RPC, A2A 0.3 (`message/send`, `kind` discriminators).
    JsonRpc03,
    /// HTTP+JSON, A2A 0.3: the 0.3 gRPC proto as JSON under `/v1` (`{"request": …}`, `content`).
    Rest03,
}

/// One interface a card declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Its URL, as the card writes it.
    pub url: String,
    /// How it is spoken.
    pub dialect: Dialect,
    /// The version the card declares for it (`1.0` where a 1.0 entry names none, `0.3` where a card
    /// of the 0.3 shape alone names none).
    pub version: String,
    /// Where the card declares it (`supportedInterfaces[0]`, `url`).
    pub declared_at: String,
}

impl Interface {
    /// Every interface `card` declares, in its order: the 1.0 `supportedInterfaces` (an entry
    /// without `protocolVersion` is 1.0), then a 0.3 card's `url` (with its `preferredTransport`),
    /// also when a 1.0 card carries the 0.3 members beside its `supportedInterfaces` and names a
    /// 0.3 `protocolVersion` (what a 0.3 client reading that card calls), or when a card of the
    /// 0.3 shape alone names no version at all (read as 0.3). Bindings not spoken
    /// here (gRPC) are left out.
    pub fn declared(card: &Value) -> Vec<Interface> {
        let mut found = Vec::new();
        for (i, entry) in card["supportedInterfaces"].as_array().into_iter().flatten().enumerate() {
            let version = entry["protocolVersion"].as_str().filter(|v| !v.is_empty()).unwrap_or("1.0");
            let binding = entry["protocolBinding"].as_str().unwrap_or("");
            if let (Some(url), Some(dialect)) = (entry["url"].as_str(), dialect_of(binding, version)) {
                found.push(Interface {
                    url: url.to_owned(),
                    dialect,
                    version: version.to_owned(),
                    declared_at: format!("supportedInterfaces[{i}]"),
                });
            }
        }
        let version = match card["protocolVersion"].as_str().map(str::trim) {
            // A card of the 0.3 shape alone that names no version (VoltAgent's) is read as 0.3,
            // as the library reads it.
            None | Some("") if card.get("supportedInterfaces").is_none() => "0.3",
            version => version.unwrap_or(""),
        };
        if let Some(url) = card["url"].as_str()
            && version.starts_with("0.")
        {
            let binding = card["preferredTransport"].as_str().unwrap_or("JSONRPC");
            if let Some(dialect) = dialect_of(binding, version) {
                found.push(Interface {
                    url: url.to_owned(),
                    dialect,
                    version: version.to_owned(),
                    declared_at: "url".to_owned(),
                });
            }
        }
        found
    }

    /// The interface a client of this card calls first: its first declared one.
    pub fn preferred(card: &Value) -> Option<Interface> {
        Interface::declared(card).into_iter().next()
    }
}

fn dialect_of(binding: &str, version: &str) -> Option<Dialect> {
    let v03 = version.starts_with("0.");
    match binding.to_ascii_uppercase().as_str() {
        "JSONRPC" if v03 => Some(Dialect::JsonRpc03),
        "JSONRPC" => Some(Dialect::JsonRpc10),
        "HTTP+JSON" if v03 => Some(Dialect::Rest03),
        _ => None,
    }
}

/// What one call came to.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A JSON-RPC result, or an HTTP+JSON 2xx body.
    Result(Value),
    /// A JSON-RPC error object.
    Error {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// An HTTP answer that is neither: a status and a body outside the binding (or an HTTP+JSON
    /// error status).
    Http {
        /// The status.
        status: u16,
        /// The first bytes of the body.
        body: String,
    },
    /// No answer: connection refused, reset, timed out.
    Failed(String),
}

impl Answer {
    /// The JSON-RPC error code, if it is one.
    pub fn code(&self) -> Option<i64> {
        match self {
            Answer::Error { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The result, if it is one.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Answer::Result(value) => Some(value),
            _ => None,
        }
    }
}

/// What a message carries, chosen from the card's `defaultInputModes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// A text part (`text/plain`).
    Text,
    /// A data part (`application/json`).
    Data,
}

impl Content {
    /// The media type the part is.
    pub fn media_type(self) -> &'static str {
        match self {
            Content::Text => "text/plain",
            Content::Data => "application/json",
        }
    }
}

/// A message to send: what it carries, and what it accepts back.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The part.
    pub content: Content,
    /// `acceptedOutputModes` (none: the field is left out).
    pub accepted: Vec<String>,
    /// An inline push config: webhook URL and token.
    pub push: Option<(String, String)>,
    /// Return at once rather than block (1.0 `returnImmediately`, 0.3 `blocking: false`).
    pub return_immediately: bool,
}

impl Outgoing {
    /// `content`, accepting `accepted`, blocking, no push.
    pub fn new(content: Content, accepted: &[String]) -> Self {
        Outgoing { content, accepted: accepted.to_vec(), push: None, return_immediately: false }
    }
}

/// What a streaming call came to.
#[derive(Clone, Debug, Default)]
pub struct Streamed {
    /// The answer when the call was not answered with a stream (an error, an HTTP status).
    pub refused: Option<Answer>,
    /// Each event's payload (a JSON-RPC event's `result`, an HTTP+JSON event as sent).
    pub events: Vec<Value>,
    /// How reading ended.
    pub ended: String,
    /// Events whose data started with record separators (0x1E), the framing of a JSON text
    /// sequence (RFC 7464): read as the JSON after them, and counted here.
    pub record_separated: usize,
    /// Events whose data was no JSON (after any leading record separators): skipped.
    pub unreadable: usize,
}

/// Raw calls to one interface of one agent.
#[derive(Clone, Debug)]
pub struct Wire {
    http: reqwest::Client,
    interface: Interface,
}

impl Wire {
    /// A wire to `interface`, with no credentials and no proxy.
    pub fn new(interface: Interface) -> Self {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .expect("a reqwest client builds");
        Wire { http, interface }
    }

    /// The interface called.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// `GET url` (with `A2A-Version: 1.0` when `v10_header`) as JSON.
    pub async fn get_json(url: &str, v10_header: bool) -> Result<Value, String> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        let mut request = http.get(url);
        if v10_header {
            request = request.header("A2A-Version", "1.0");
        }
        let response = request.send().await.map_err(|e| format!("GET {url}: {e}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| format!("GET {url}: {e}"))?;
        if !status.is_success() {
            return Err(format!("GET {url}: http {status}: {}", snip(&text)));
        }
        serde_json::from_str(&text).map_err(|e| format!("GET {url}: not JSON ({e}): {}", snip(&text)))
    }

    /// `SendMessage` / `message/send` / `POST /v1/message:send`.
    pub async fn send(&self, outgoing: &Outgoing) -> Answer {
        match self.interface.dialect {
            Dialect::Rest03 => self.rest("POST", "/v1/message:send", Some(rest_send_body(outgoing))).await,
            dialect => self.rpc(send_method(dialect, false), send_params(dialect, outgoing)).await,
        }
    }

    /// `SendStreamingMessage` / `message/stream` / `POST /v1/message:stream`, read to its end.
    pub async fn stream(&self, outgoing: &Outgoing) -> Streamed {
        let request = match self.interface.dialect {
            Dialect::Rest03 => self
                .http
                .post(format!("{}/v1/message:stream", self.interface.url.trim_end_matches('/')))
                .json(&rest_send_body(outgoing)),
            dialect => self.rpc_request(send_method(dialect, true), send_params(dialect, outgoing)),
        };
        let response = match request.header("Accept", "text/event-stream, application/json").send().await {
            Ok(response) => response,
            Err(e) => return Streamed { refused: Some(Answer::Failed(e.to_string())), ..Default::default() },
        };
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse || !response.status().is_success() {
            let status = response.status().as_u16();
            let body = response.text().await.unwrap_or_default();
            return Streamed { refused: Some(self.read_answer(status, &body)), ..Default::default() };
        }
        read_events(response).await
    }

    /// `GetTask` / `tasks/get` / `GET /v1/tasks/{id}`, asking for some history.
    pub async fn get_task(&self, id: &str) -> Answer {
        match self.interface.dialect {
            Dialect::Rest03 => self.rest("GET", &format!("/v1/tasks/{id}?historyLength=10"), None).await,
            Dialect::JsonRpc10 => self.rpc("GetTask", json!({"id": id, "historyLength": 10})).await,
            Dialect::JsonRpc03 => self.rpc("tasks/get", json!({"id": id, "historyLength": 10})).await,
        }
    }

    /// `GetTaskPushNotificationConfig` for the config a task got inline (its id is the task's,
    /// as a2a-sdk names it) / `tasks/pushNotificationConfig/get {id}`.
    pub async fn get_push_config(&self, task_id: &str) -> Answer {
        match self.interface.dialect {
            Dialect::Rest03 => {
                self.rest("GET", &format!("/v1/tasks/{task_id}/pushNotificationConfigs/{task_id}"), None)
                    .await
            }
            Dialect::JsonRpc10 => {
                self.rpc("GetTaskPushNotificationConfig", json!({"taskId": task_id, "id": task_id})).await
            }
            Dialect::JsonRpc03 => self.rpc("tasks/pushNotificationConfig/get", json!({"id": task_id})).await,
        }
    }

    /// `CreateTaskPushNotificationConfig` / `tasks/pushNotificationConfig/set` /
    /// `POST /v1/tasks/{id}/pushNotificationConfigs`: the push capability's own call.
    pub async fn create_push_config(&self, task_id: &str, url: &str, token: &str) -> Answer {
        match self.interface.dialect {
            Dialect::Rest03 => {
                let body = json!({"parent": format!("tasks/{task_id}"), "configId": "truth", "config": {
                    "name": format!("tasks/{task_id}/pushNotificationConfigs/truth"),
                    "pushNotificationConfig": {"id": "truth", "url": url, "token": token}}});
                self.rest("POST", &format!("/v1/tasks/{task_id}/pushNotificationConfigs"), Some(body)).await
            }
            Dialect::JsonRpc10 => {
                let params = json!({"taskId": task_id, "url": url, "token": token});
                self.rpc("CreateTaskPushNotificationConfig", params).await
            }
            Dialect::JsonRpc03 => {
                let params =
                    json!({"taskId": task_id, "pushNotificationConfig": {"url": url, "token": token}});
                self.rpc("tasks/pushNotificationConfig/set", params).await
            }
        }
    }

    /// A JSON-RPC call of `method` in this interface's version.
    pub async fn rpc(&self, method: &str, params: Value) -> Answer {
        match self.rpc_request(method, params).send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                match response.text().await {
                    Ok(body) => self.read_answer(status, &body),
                    Err(e) => Answer::Failed(e.to_string()),
                }
            }
            Err(e) => Answer::Failed(e.to_string()),
        }
    }

    fn rpc_request(&self, method: &str, params: Value) -> reqwest::RequestBuilder {
        let body = json!({"jsonrpc": "2.0", "id": uuid::Uuid::new_v4().to_string(), "method": method, "params": params});
        let request = self.http.post(&self.interface.url).json(&body);
        match self.interface.dialect {
            Dialect::JsonRpc10 => request.header("A2A-Version", "1.0"),
            _ => request,
        }
    }

    async fn rest(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let url = format!("{}{path}", self.interface.url.trim_end_matches('/'));
        let request = match method {
            "GET" => self.http.get(url),
            _ => self.http.post(url).json(&body.unwrap_or(Value::Null)),
        };
        match request.send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                match response.text().await {
                    Ok(body) => self.read_answer(status, &body),
                    Err(e) => Answer::Failed(e.to_string()),
                }
            }
            Err(e) => Answer::Failed(e.to_string()),
        }
    }

    /// An HTTP answer as the binding reads it: a JSON-RPC envelope (whatever the status), an
    /// HTTP+JSON 2xx body, or an HTTP answer outside both.
    fn read_answer(&self, status: u16, body: &str) -> Answer {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        match (self.interface.dialect, parsed) {
            (Dialect::Rest03, Some(value)) if (200..300).contains(&status) => Answer::Result(value),
            (Dialect::Rest03, _) => Answer::Http { status, body: snip(body) },
            (_, Some(value)) if value["jsonrpc"] == "2.0" && value.get("result").is_some() => {
                Answer::Result(value["result"].clone())
            }
            (_, Some(value)) if value["jsonrpc"] == "2.0" && value["error"]["code"].is_i64() => {
                Answer::Error {
                    code: value["error"]["code"].as_i64().unwrap_or(0),
                    message: value["error"]["message"].as_str().unwrap_or("").to_owned(),
                }
            }
            _ => Answer::Http { status, body: snip(body) },
        }
    }
}

fn send_method(dialect: Dialect, streaming: bool) -> &'static str {
    match (dialect, streaming) {
        (Dialect::JsonRpc10, false) => "SendMessage",
        (Dialect::JsonRpc10, true) => "SendStreamingMessage",
        (_, false) => "message/send",
        (_, true) => "message/stream",
    }
}

fn send_params(dialect: Dialect, outgoing: &Outgoing) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    let (message, mut configuration) = match dialect {
        Dialect::JsonRpc10 => {
            let part = match outgoing.content {
                Content::Text => json!({"text": QUESTION}),
                Content::Data => json!({"data": {"question": QUESTION}}),
            };
            let mut configuration = json!({});
            if outgoing.return_immediately {
                configuration["returnImmediately"] = json!(true);
            }
            if let Some((url, token)) = &outgoing.push {
                configuration["taskPushNotificationConfig"] = json!({"url": url, "token": token});
            }
            (json!({"messageId": id, "role": "ROLE_USER", "parts": [part]}), configuration)
        }
        _ => {
            let part = match outgoing.content {
                Content::Text => json!({"kind": "text", "text": QUESTION}),
                Content::Data => json!({"kind": "data", "data": {"question": QUESTION}}),
            };
            let mut configuration = json!({"blocking": !outgoing.return_immediately});
            if let Some((url, token)) = &outgoing.push {
                configuration["pushNotificationConfig"] = json!({"url": url, "token": token});
            }
            (json!({"kind": "message", "messageId": id, "role": "user", "parts": [part]}), configuration)
        }
    };
    if !outgoing.accepted.is_empty() {
        configuration["acceptedOutputModes"] = json!(outgoing.accepted);
    }
    json!({"message": message, "configuration": configuration})
}

/// The 0.3 gRPC proto's `SendMessageRequest` as JSON (BeeAI's HTTP+JSON).
fn rest_send_body(outgoing: &Outgoing) -> Value {
    let part = match outgoing.content {
        Content::Text => json!({"text": QUESTION}),
        Content::Data => json!({"data": {"data": {"question": QUESTION}}}),
    };
    let message =
        json!({"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "content": [part]});
    let mut configuration = json!({"blocking": !outgoing.return_immediately});
    if !outgoing.accepted.is_empty() {
        configuration["acceptedOutputModes"] = json!(outgoing.accepted);
    }
    if let Some((url, token)) = &outgoing.push {
        configuration["pushNotification"] = json!({"url": url, "token": token});
    }
    json!({"request": message, "configuration": configuration})
}

/// Reads server-sent events until the stream closes, [`AFTER_TERMINAL`] after a terminal state,
/// or [`REQUEST_TIMEOUT`]. Each event's `data:` lines are joined (leading record separators set
/// aside and counted); a JSON-RPC envelope is unwrapped to its `result` (an error inside the stream
/// becomes [`Streamed::refused`] when it comes first).
async fn read_events(mut response: reqwest::Response) -> Streamed {
    let started = Instant::now();
    let mut deadline = started + REQUEST_TIMEOUT;
    let mut buffer = String::new();
    let mut streamed = Streamed::default();
    let ended = loop {
        let chunk = match tokio::time::timeout_at(deadline.into(), response.chunk()).await {
            Err(_) if streamed.events.iter().any(|e| is_terminal(state_of_event(e).as_deref())) => {
                break format!("read for {AFTER_TERMINAL:?} after the terminal state, then closed here");
            }
            Err(_) => break format!("still open after {:?}", started.elapsed()),
            Ok(Err(e)) => break format!("read error: {e}"),
            Ok(Ok(None)) => break "closed by the agent".to_owned(),
            Ok(Ok(Some(chunk))) => chunk,
        };
        buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let data: Vec<&str> = block
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|line| line.strip_prefix(' ').unwrap_or(line))
                .collect();
            if data.is_empty() {
                continue;
            }
            let data = data.join("\n");
            let json = data.trim_start_matches('\u{1e}');
            if json.len() != data.len() {
                streamed.record_separated += 1;
            }
            let Ok(value) = serde_json::from_str::<Value>(json) else {
                streamed.unreadable += 1;
                continue;
            };
            if value["jsonrpc"] == "2.0" && value.get("error").is_some() {
                if streamed.events.is_empty() {
                    streamed.refused = Some(Answer::Error {
                        code: value["error"]["code"].as_i64().unwrap_or(0),
                        message: value["error"]["message"].as_str().unwrap_or("").to_owned(),
                    });
                }
                continue;
            }
            let event = if value["jsonrpc"] == "2.0" { value["result"].clone() } else { value };
            if is_terminal(state_of_event(&event).as_deref()) {
                deadline = deadline.min(Instant::now() + AFTER_TERMINAL);
            }
            streamed.events.push(event);
        }
    };
    streamed.ended = ended;
    streamed
}

/// One stream event, or one answer, as what it is about, whatever the version's shape: 1.0 and
/// the 0.3 proto wrap it (`{"task": …}`, `{"statusUpdate": …}`, `{"artifactUpdate": …}`,
/// `{"message": …}` / `{"msg": …}`), 0.3 JSON-RPC tags it with `kind`, some agents send it bare.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A task snapshot.
    Task(&'a Value),
    /// A status update.
    Status(&'a Value),
    /// An artifact update.
    Artifact(&'a Value),
    /// A message.
    Message(&'a Value),
    /// Something else.
    Other(&'a Value),
}

impl<'a> Event<'a> {
    /// Reads `value` as an event.
    pub fn of(value: &'a Value) -> Event<'a> {
        for (key, wrap) in [
            ("task", Event::Task as fn(&'a Value) -> Event<'a>),
            ("statusUpdate", Event::Status),
            ("artifactUpdate", Event::Artifact),
            ("message", Event::Message),
            ("msg", Event::Message),
        ] {
            if let Some(inner) = value.get(key).filter(|v| v.is_object()) {
                return wrap(inner);
            }
        }
        match value["kind"].as_str() {
            Some("task") => return Event::Task(value),
            Some("status-update") => return Event::Status(value),
            Some("artifact-update") => return Event::Artifact(value),
            Some("message") => return Event::Message(value),
            _ => {}
        }
        if value.get("artifact").is_some() {
            Event::Artifact(value)
        } else if value.get("status").is_some() && value.get("taskId").is_some() {
            Event::Status(value)
        } else if value.get("status").is_some() && value.get("id").is_some() {
            Event::Task(value)
        } else if value.get("role").is_some() {
            Event::Message(value)
        } else {
            Event::Other(value)
        }
    }

    /// The task it is about.
    pub fn task_id(&self) -> Option<String> {
        let id = match self {
            Event::Task(task) => task["id"].as_str(),
            Event::Status(v) | Event::Artifact(v) | Event::Message(v) => v["taskId"].as_str(),
            Event::Other(_) => None,
        };
        id.map(str::to_owned)
    }
}

/// A state as one word, whatever the version writes: `TASK_STATE_COMPLETED` and `completed` are
/// `completed`, `TASK_STATE_INPUT_REQUIRED` is `input-required`.
pub fn normalize_state(state: &str) -> String {
    let state = state.strip_prefix("TASK_STATE_").unwrap_or(state);
    let state = state.to_ascii_lowercase().replace('_', "-");
    if state == "cancelled" { "canceled".to_owned() } else { state }
}

/// The state a task or status-update event reports.
pub fn state_of_event(event: &Value) -> Option<String> {
    match Event::of(event) {
        Event::Task(v) | Event::Status(v) => v["status"]["state"].as_str().map(normalize_state),
        _ => None,
    }
}

/// `true` for the terminal states.
pub fn is_terminal(state: Option<&str>) -> bool {
    matches!(state, Some("completed" | "failed" | "canceled" | "rejected"))
}

/// A message's parts (`parts`, or the 0.3 proto's `content`).
pub fn parts_of(message: &Value) -> Vec<Value> {
    let parts = message.get("parts").or_else(|| message.get("content"));
    parts.and_then(Value::as_array).cloned().unwrap_or_default()
}

/// `true` when `message` is the user's (1.0 `ROLE_USER`, 0.3 `user`).
pub fn is_users(message: &Value) -> bool {
    matches!(message["role"].as_str(), Some("ROLE_USER" | "user"))
}

/// What a task answered, read as a client reads an answer: its artifacts' parts; else what the
/// agent said after the last user message; else its status message's parts.
pub fn answer_parts_of_task(task: &Value) -> Vec<Value> {
    let artifacts: Vec<Value> =
        task["artifacts"].as_array().into_iter().flatten().flat_map(parts_of).collect();
    if !artifacts.is_empty() {
        return artifacts;
    }
    let history = task["history"].as_array().cloned().unwrap_or_default();
    let since = history.iter().rposition(is_users).map_or(0, |at| at + 1);
    let said: Vec<Value> = history[since..].iter().filter(|m| !is_users(m)).flat_map(parts_of).collect();
    if !said.is_empty() {
        return said;
    }
    parts_of(&task["status"]["message"])
}

/// The media type a part is: its declared one, else what its kind implies (text is
/// `text/plain`, data is `application/json`); `None` for a file part that names none.
pub fn media_type_of(part: &Value) -> Option<String> {
    for declared in
        [&part["mediaType"], &part["mimeType"], &part["file"]["mimeType"], &part["file"]["mediaType"]]
    {
        if let Some(media_type) = declared.as_str().filter(|m| !m.is_empty()) {
            return Some(media_type.to_owned());
        }
    }
    if part.get("text").is_some() || part["kind"] == "text" {
        Some("text/plain".to_owned())
    } else if part.get("data").is_some() || part["kind"] == "data" {
        Some("application/json".to_owned())
    } else {
        None
    }
}

/// Every text the parts hold, joined.
pub fn text_of(parts: &[Value]) -> String {
    parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("")
}

/// `true` when `value` holds the string `needle` anywhere (a push config naming our webhook).
pub fn mentions(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s == needle,
        Value::Array(items) => items.iter().any(|v| mentions(v, needle)),
        Value::Object(members) => members.values().any(|v| mentions(v, needle)),
        _ => false,
    }
}

/// The agent's own A2A error in an HTTP+JSON 0.3 error answer, as a2a-python 0.3 writes it: a
/// JSON body `{"message": …}` (its status from the error's table: 404 for a task not found, 501
/// for an unsupported operation); `None` for any other body.
pub fn rest_error_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    value["message"].as_str().map(str::to_owned)
}

/// The first 300 characters of `text`.
pub fn snip(text: &str) -> String {
    text.chars().take(300).collect()
}
