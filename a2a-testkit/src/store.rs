//! The agent's state: tasks, their event channels, push configs and the traffic records.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use crate::record::{PushDelivery, RecordedRequest};
use crate::script::{Behaviour, Protocol, Script};
use crate::wire::{self, TaskState};

/// One lifecycle event as published to streams and push callbacks.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    /// The stream item: a StreamResponse (1.0) or a `kind`-tagged event (0.3).
    pub(crate) body: Value,
    /// True when a stream closes after this event.
    pub(crate) ends_stream: bool,
    /// False when the script hides this event from streams (the artifact lie).
    pub(crate) on_stream: bool,
    /// How many times a stream writes it in a row (1, but for [`Script::repeat_working`]).
    pub(crate) times: u64,
}

/// A push notification config as the agent stores it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PushConfig {
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) token: Option<String>,
    pub(crate) scheme: Option<String>,
    pub(crate) credentials: Option<String>,
}

impl PushConfig {
    /// Reads a 1.0 `TaskPushNotificationConfig` or a 0.3 `PushNotificationConfig` found at `at`
    /// (a JSON path such as `params.configuration.taskPushNotificationConfig`, for the error).
    pub(crate) fn from_json(config: &Value, default_id: &str, at: &str) -> Result<PushConfig, String> {
        let url = config
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| format!("{at}.url is required and must be a non-empty string"))?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let auth = config.get("authentication");
        let scheme = text(auth.and_then(|a| a.get("scheme")))
            .or_else(|| text(auth.and_then(|a| a.get("schemes")).and_then(|s| s.get(0))));
        Ok(PushConfig {
            id: text(config.get("id")).unwrap_or_else(|| default_id.to_owned()),
            url: url.to_owned(),
            token: text(config.get("token")),
            scheme,
            credentials: text(auth.and_then(|a| a.get("credentials"))),
        })
    }

    /// The config as the agent returns it: `TaskPushNotificationConfig` in both versions' shapes.
    pub(crate) fn to_json(&self, protocol: Protocol, task_id: &str) -> Value {
        let mut config = Map::new();
        config.insert("id".to_owned(), json!(self.id));
        if protocol == Protocol::V1_0 {
            config.insert("taskId".to_owned(), json!(task_id));
        }
        config.insert("url".to_owned(), json!(self.url));
        if let Some(token) = &self.token {
            config.insert("token".to_owned(), json!(token));
        }
        if let Some(scheme) = &self.scheme {
            let mut auth = match protocol {
                Protocol::V1_0 => json!({ "scheme": scheme }),
                Protocol::V0_3 => json!({ "schemes": [scheme] }),
            };
            if let (Some(credentials), Some(obj)) = (&self.credentials, auth.as_object_mut()) {
                obj.insert("credentials".to_owned(), json!(credentials));
            }
            config.insert("authentication".to_owned(), auth);
        }
        match protocol {
            Protocol::V1_0 => Value::Object(config),
            Protocol::V0_3 => json!({ "taskId": task_id, "pushNotificationConfig": config }),
        }
    }
}

/// One task and everything the agent remembers about it.
#[derive(Debug)]
pub(crate) struct TaskRecord {
    pub(crate) id: String,
    pub(crate) context_id: String,
    pub(crate) state: TaskState,
    pub(crate) status_message: Option<Value>,
    pub(crate) timestamp: String,
    pub(crate) history: Vec<Value>,
    pub(crate) artifacts: Vec<Value>,
    pub(crate) push_configs: Vec<PushConfig>,
    pub(crate) events: broadcast::Sender<Arc<Published>>,
    /// Bumped on every change; orders ListTasks newest first.
    pub(crate) updated: u64,
}

/// How much history a rendering shows (`historyLength`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistoryView {
    All,
    Last(usize),
}

impl HistoryView {
    pub(crate) fn from_param(value: Option<&Value>) -> HistoryView {
        match value.and_then(Value::as_u64) {
            Some(n) => HistoryView::Last(usize::try_from(n).unwrap_or(usize::MAX)),
            None => HistoryView::All,
        }
    }
}

impl TaskRecord {
    /// The Task JSON in the protocol's shape.
    pub(crate) fn render(
        &self,
        protocol: Protocol,
        behaviour: &Behaviour,
        view: HistoryView,
        with_artifacts: bool,
    ) -> Value {
        let mut task = Map::new();
        task.insert("id".to_owned(), json!(self.id));
        task.insert("contextId".to_owned(), json!(self.context_id));
        task.insert(
            "status".to_owned(),
            wire::status(protocol, self.state, self.status_message.as_ref(), &self.timestamp),
        );
        if with_artifacts && !self.artifacts.is_empty() {
            task.insert("artifacts".to_owned(), Value::Array(self.artifacts.clone()));
        }
        let history: Vec<Value> = match view {
            _ if !behaviour.keeps_history => Vec::new(),
            HistoryView::All => self.history.clone(),
            HistoryView::Last(n) => {
                self.history.iter().skip(self.history.len().saturating_sub(n)).cloned().collect()
            }
        };
        // ProtoJSON omits an empty list; the 0.3 lying agent of the design note sends `[]`.
        let lie_shows_empty_array = !behaviour.keeps_history && protocol == Protocol::V0_3;
        if !history.is_empty() || lie_shows_empty_array {
            task.insert("history".to_owned(), Value::Array(history));
        }
        if protocol == Protocol::V0_3 {
            task.insert("kind".to_owned(), json!("task"));
        }
        Value::Object(task)
    }
}

/// Everything mutable about a running agent.
#[derive(Debug, Default)]
pub(crate) struct AgentState {
    pub(crate) tasks: HashMap<String, TaskRecord>,
    pub(crate) clock: u64,
    pub(crate) requests: Vec<RecordedRequest>,
    /// How each answer to a request handled by the HTTP router left (gRPC calls are not counted).
    pub(crate) answers: Vec<crate::record::AnswerRecord>,
    pub(crate) pushes: Vec<PushDelivery>,
    /// How many times each fault (by index in the script) has hit.
    pub(crate) fault_hits: HashMap<usize, u32>,
    /// How many tasks each message text started (a reply to a paused task continues one): each is
    /// one run of the caller's work.
    pub(crate) executions: HashMap<String, u32>,
}

impl AgentState {
    pub(crate) fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

/// The agent's configuration and state, shared by the server and the lifecycle tasks.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) protocol: Protocol,
    pub(crate) script: Script,
    pub(crate) behaviour: Behaviour,
    pub(crate) card: Value,
    pub(crate) card_bytes: Vec<u8>,
    pub(crate) etag: String,
    pub(crate) card_path: crate::script::CardPath,
    pub(crate) started: Instant,
    pub(crate) http: reqwest::Client,
    pub(crate) state: Mutex<AgentState>,
    /// What the agent requires of callers, and its extended card.
    pub(crate) gate: crate::auth::Gate,
    /// `http://127.0.0.1:<port>` (`https` when served over TLS).
    pub(crate) base_url: String,
    /// The tenant the card's interfaces name, which every request must carry.
    pub(crate) tenant: Option<String>,
    /// The extensions the card declares, and the ones the agent requires.
    pub(crate) extensions: crate::extensions::ExtensionRules,
    /// `GetTask` and `ListTasks` answer 401 whatever the credentials
    /// ([`ScriptedAgentBuilder::denies_task_reads`](crate::ScriptedAgentBuilder::denies_task_reads)).
    pub(crate) denies_task_reads: bool,
    /// A 0.3 agent whose card lists HTTP+JSON serves the 0.3 routes under `/a2a/rest/v1`.
    pub(crate) serves_v03_rest: bool,
    /// Spaces each JSON answer to an operation carries before its last brace
    /// ([`ScriptedAgentBuilder::padded_answers`](crate::ScriptedAgentBuilder::padded_answers)).
    pub(crate) padded_answers: u64,
}

impl Shared {
    /// Locks the state; a poisoned lock is still usable (a panicking test must not hide the records).
    pub(crate) fn lock(&self) -> MutexGuard<'_, AgentState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

// Read by the push operations (which refuse such webhooks) and by the delivery of callbacks.
/// The host of `url` when it is a loopback or private address (or `localhost`).
pub(crate) fn private_host(url: &str) -> Option<&str> {
    let host =
        url.split_once("://").map_or(url, |(_, rest)| rest).split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    let private = host.eq_ignore_ascii_case("localhost")
        || match host.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
            Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback() || ip.is_unique_local(),
            Err(_) => false,
        };
    private.then_some(host)
}
