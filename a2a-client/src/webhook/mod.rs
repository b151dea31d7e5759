//! The push-notification receiver the client runs itself.
//!
//! A small HTTP server (127.0.0.1, any free port, by default) where agents POST task updates. Each
//! [`PushReceiver::register`] issues a fresh config id, URL, token and Bearer credentials; a callback is
//! accepted only with the credentials issued for its URL (`Authorization: Bearer <credentials>` and/or
//! `X-A2A-Notification-Token: <token>`, since a2a-sdk sends both and the JS server one or the other),
//! a JSON body (`application/json` or `application/a2a+json`) whose task id is the registered task, and
//! only once per identical body. Answers: 200 accepted (or duplicate), 400 unreadable body or wrong
//! content type, 401 missing or wrong credentials, 403 a task other than the registered one, 404 unknown
//! URL, 405 a method other than POST, 408 a body slower than its bound, 413 a body over the limit, 429
//! the task's queue is full, 503 too many bodies in flight.
//!
//! Credentials are checked from the request head before any body is read, and every resource a sender
//! can make the receiver hold is bounded by [`WebhookLimits`] (see the [`server`] module).
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::config::ClientConfig;
//! use a2a_typestate_client::{PushArrival, PushReceiver};
//! use a2a_typestate_client::types::TaskId;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let receiver = PushReceiver::start(&ClientConfig::default()).await?;
//! let task = TaskId::new("task-1");
//! let registration = receiver.register(&task);
//! assert!(registration.url().starts_with("http://127.0.0.1:"));
//! // Nothing was posted: the wait ends at its bound and says so.
//! let arrival = receiver.next_callback(&task, Duration::from_millis(10)).await?;
//! assert!(matches!(arrival, PushArrival::Absent { .. }));
//! # Ok::<(), a2a_typestate_client::Error>(())
//! # });
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_typestate_types::{StreamResponse, TaskId, TaskPushNotificationConfig};
use hyper::header;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::Error;
use crate::config::ClientConfig;

pub mod server;
pub use server::WebhookLimits;

/// The path prefix callbacks are POSTed under: `{base}/a2a/push/{config id}`.
pub const PUSH_PATH_PREFIX: &str = "/a2a/push";
/// Header a2a-sdk (and 0.3 agents) send the config's token in.
pub const NOTIFICATION_TOKEN_HEADER: &str = "x-a2a-notification-token";
/// Callbacks queued per task before the receiver answers 429.
pub const CALLBACK_QUEUE_PER_TASK: usize = 256;
/// Distinct bodies remembered per registration for de-duplication.
const REMEMBERED_BODIES: usize = 1024;

/// What to put in a push config so the agent can reach this receiver. Debug output hides the secrets.
#[derive(Clone, PartialEq, Eq)]
pub struct PushRegistration {
    config_id: String,
    task_id: Option<TaskId>,
    url: String,
    token: String,
    credentials: String,
}

impl PushRegistration {
    /// The config id (the last URL segment).
    pub fn config_id(&self) -> &str {
        &self.config_id
    }

    /// The registered task; `None` for [`PushReceiver::register_for_new_task`] until the first callback.
    pub fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }

    /// The webhook URL the agent POSTs to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The opaque token (checked in `X-A2A-Notification-Token`).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The authentication scheme the agent must use: always `Bearer`.
    pub fn scheme(&self) -> &'static str {
        "Bearer"
    }

    /// The Bearer credentials the agent must send in `Authorization`.
    pub fn credentials(&self) -> &str {
        &self.credentials
    }

    /// The 1.0 `TaskPushNotificationConfig` to send (`taskId` unset when not yet known, as inside
    /// `SendMessage`): id, url, token and `Bearer` credentials.
    pub fn to_config(&self) -> TaskPushNotificationConfig {
        let config = TaskPushNotificationConfig::new(self.url.clone())
            .with_id(self.config_id.clone())
            .with_token(self.token.clone())
            .with_bearer(self.credentials.clone());
        match &self.task_id {
            Some(task) => config.with_task_id(task.clone()),
            None => config,
        }
    }

    /// [`PushRegistration::to_config`] as JSON.
    pub fn to_config_json(&self) -> Value {
        serde_json::to_value(self.to_config()).unwrap_or_default()
    }
}

impl fmt::Debug for PushRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushRegistration")
            .field("config_id", &self.config_id)
            .field("task_id", &self.task_id)
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .field("credentials", &"<redacted>")
            .finish()
    }
}

/// One accepted callback. The body is kept as JSON, since 0.3 agents post 0.3 shapes; read a 1.0 body
/// with [`PushCallback::stream_response`].
#[derive(Clone, Debug, PartialEq)]
pub struct PushCallback {
    /// The task the body reports on (checked against the registration).
    pub task_id: TaskId,
    /// The config id whose URL received it.
    pub config_id: String,
    /// The `StreamResponse` JSON as posted.
    pub body: Value,
    /// When it was accepted.
    pub received_at: Instant,
}

impl PushCallback {
    /// The body as a 1.0 `StreamResponse`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::BadInput`] with the JSON path when the body is not a 1.0 `StreamResponse`
    /// (a 0.3 body, for instance: read those with [`types::v03`](crate::types::v03)).
    pub fn stream_response(&self) -> Result<StreamResponse, Error> {
        a2a_typestate_types::parse::from_value(self.body.clone())
            .map_err(|e| Error::bad_input("push callback", e))
    }

    /// The task state the callback reports (a task snapshot or a status update); `None` for
    /// messages, artifact chunks and bodies that are not a 1.0 `StreamResponse`. This is what the
    /// verifier is told about a callback.
    pub fn task_state(&self) -> Option<a2a_typestate_types::TaskState> {
        self.stream_response().ok().and_then(|body| body.state())
    }
}

/// The outcome of waiting for a callback within a bound.
#[derive(Clone, Debug, PartialEq)]
pub enum PushArrival {
    /// A callback arrived.
    Delivered(PushCallback),
    /// Nothing arrived within the bound: evidence against a `pushNotifications` claim.
    Absent {
        /// How long the receiver waited.
        waited: Duration,
    },
}

struct Registration {
    task: Option<TaskId>,
    token: String,
    credentials: String,
    seen: HashSet<u64>,
    seen_order: VecDeque<u64>,
}

struct TaskQueue {
    tx: mpsc::Sender<PushCallback>,
    rx: Arc<tokio::sync::Mutex<mpsc::Receiver<PushCallback>>>,
}

impl TaskQueue {
    fn new() -> Self {
        let (tx, rx) = mpsc::channel(CALLBACK_QUEUE_PER_TASK);
        Self { tx, rx: Arc::new(tokio::sync::Mutex::new(rx)) }
    }
}

#[derive(Default)]
struct Registry {
    registrations: HashMap<String, Registration>,
    queues: HashMap<TaskId, TaskQueue>,
}

struct Shared {
    registry: Mutex<Registry>,
    hasher: RandomState,
    /// Counts accepted callbacks: an event loop waits on it beside its stream and its deadlines.
    arrivals: tokio::sync::watch::Sender<u64>,
    /// Connections turned away or closed to make room since the receiver started.
    turned_away: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// Counts `count` connections the receiver turned away or closed to make room.
    pub(super) fn turned_away(&self, count: usize) {
        if count > 0 {
            self.turned_away.fetch_add(count as u64, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Shared {
    fn new() -> Self {
        Self {
            registry: Mutex::default(),
            hasher: RandomState::new(),
            arrivals: tokio::sync::watch::Sender::new(0),
            turned_away: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn issue(&self, base_url: &str, task: Option<TaskId>) -> PushRegistration {
        let config_id = uuid::Uuid::new_v4().simple().to_string();
        let registration = PushRegistration {
            url: format!("{base_url}{PUSH_PATH_PREFIX}/{config_id}"),
            token: secret(),
            credentials: secret(),
            task_id: task.clone(),
            config_id: config_id.clone(),
        };
        let mut registry = self.lock();
        if let Some(task) = &task {
            registry.queues.entry(task.clone()).or_insert_with(TaskQueue::new);
        }
        registry.registrations.insert(
            config_id,
            Registration {
                task,
                token: registration.token.clone(),
                credentials: registration.credentials.clone(),
                seen: HashSet::new(),
                seen_order: VecDeque::new(),
            },
        );
        registration
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running webhook server; stops when dropped.
pub struct PushReceiver {
    shared: Arc<Shared>,
    base_url: String,
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    serving: tokio::task::AbortHandle,
}

impl fmt::Debug for PushReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushReceiver")
            .field("base_url", &self.base_url)
            .field("local_addr", &self.local_addr)
            .field("registrations", &self.shared.lock().registrations.len())
            .finish_non_exhaustive()
    }
}

impl Drop for PushReceiver {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl PushReceiver {
    /// Binds the configured webhook address and starts serving on the current tokio runtime, within
    /// the configured [`WebhookLimits`].
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the address cannot be bound.
    pub async fn start(config: &ClientConfig) -> Result<Self, Error> {
        let listener = tokio::net::TcpListener::bind(config.webhook_addr())
            .await
            .map_err(|e| Error::config_with("the webhook address could not be bound", Box::new(e)))?;
        let local_addr = listener
            .local_addr()
            .map_err(|e| Error::config_with("the webhook address could not be read", Box::new(e)))?;
        let base_url = match config.webhook_public_url() {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{local_addr}"),
        };
        let shared = Arc::new(Shared::new());
        let shutdown = CancellationToken::new();
        let serving =
            tokio::spawn(server::serve(listener, shared.clone(), config.webhook_limits(), shutdown.clone()))
                .abort_handle();
        Ok(Self { shared, base_url, local_addr, shutdown, serving })
    }

    /// Whether its server still runs (it ends with the runtime it was started on).
    pub(crate) fn is_serving(&self) -> bool {
        !self.serving.is_finished()
    }

    /// The address the server is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The base URL registrations are issued under.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Issues a config id, URL, token and credentials for callbacks about `task`.
    pub fn register(&self, task: &TaskId) -> PushRegistration {
        self.issue(Some(task.clone()))
    }

    /// Issues a registration for a task that does not exist yet (push config inline in `SendMessage`):
    /// it binds to the task id of the first accepted callback, and refuses any other task after that.
    pub fn register_for_new_task(&self) -> PushRegistration {
        self.issue(None)
    }

    fn issue(&self, task: Option<TaskId>) -> PushRegistration {
        self.shared.issue(&self.base_url, task)
    }

    /// Stops accepting callbacks for `registration` (later POSTs get 404). Callbacks already queued
    /// for its task stay readable.
    pub fn unregister(&self, registration: &PushRegistration) {
        self.shared.lock().registrations.remove(&registration.config_id);
    }

    /// Waits up to `bound` for the next callback about `task`; callbacks that arrived earlier are
    /// returned first, in arrival order.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when no registration was ever issued for `task` (nor bound to it
    /// by a callback): waiting could only end in absence.
    pub async fn next_callback(&self, task: &TaskId, bound: Duration) -> Result<PushArrival, Error> {
        let queue = self.shared.lock().queues.get(task).map(|q| q.rx.clone());
        let Some(queue) = queue else {
            return Err(Error::misuse(format!("no push registration for task {task}")));
        };
        let start = Instant::now();
        let mut queue = match tokio::time::timeout(bound, queue.lock()).await {
            Ok(queue) => queue,
            Err(_) => return Ok(PushArrival::Absent { waited: start.elapsed() }),
        };
        let remaining = bound.saturating_sub(start.elapsed());
        match tokio::time::timeout(remaining, queue.recv()).await {
            Ok(Some(callback)) => Ok(PushArrival::Delivered(callback)),
            // The sender lives in the registry as long as the receiver; `None` cannot outlive it.
            Ok(None) | Err(_) => Ok(PushArrival::Absent { waited: start.elapsed() }),
        }
    }
}

impl PushReceiver {
    /// How many connections this receiver turned away or closed to make room (at its connection
    /// limit) since it started. A task that waited for a callback while this grew cannot read its
    /// silence as the agent's: a callback may have been lost on the client's side.
    pub fn turned_away(&self) -> u64 {
        self.shared.turned_away.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A watch that changes whenever a callback is accepted (for any task): what an event loop
    /// selects on, then reads the callbacks with [`PushReceiver::try_next_callback`].
    pub(crate) fn arrivals(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.arrivals.subscribe()
    }

    /// The next callback already received about `task`, without waiting.
    pub(crate) fn try_next_callback(&self, task: &TaskId) -> Option<PushCallback> {
        let queue = self.shared.lock().queues.get(task).map(|q| q.rx.clone())?;
        let mut queue = queue.try_lock().ok()?;
        queue.try_recv().ok()
    }
}

/// 256 random bits as hex (two v4 UUIDs: 244 bits of OS randomness).
fn secret() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Compares secrets without stopping at the first differing byte.
fn same_secret(given: &str, issued: &str) -> bool {
    given.len() == issued.len()
        && given.bytes().zip(issued.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// Checks what the request head says, before any body is read: a known URL, the issued credentials,
/// a JSON content type.
fn admit(shared: &Shared, config_id: &str, headers: &HeaderMap) -> Result<(), StatusCode> {
    {
        let registry = shared.lock();
        let registration = registry.registrations.get(config_id).ok_or(StatusCode::NOT_FOUND)?;
        check_credentials(headers, registration)?;
    }
    check_content_type(headers)
}

/// Reads an admitted body and queues it for the task's waiter.
fn accept_body(shared: &Shared, config_id: &str, body: &[u8]) -> Result<StatusCode, StatusCode> {
    let json: Value = a2a_typestate_types::parse::from_slice(body).map_err(|_| StatusCode::BAD_REQUEST)?;
    let task = task_id_of(&json).ok_or(StatusCode::BAD_REQUEST)?;
    let digest = shared.hasher.hash_one(serde_json::to_string(&json).unwrap_or_default());

    let mut registry = shared.lock();
    let registration = registry.registrations.get_mut(config_id).ok_or(StatusCode::NOT_FOUND)?;
    match &registration.task {
        Some(registered) if *registered != task => return Err(StatusCode::FORBIDDEN),
        Some(_) => {}
        None => registration.task = Some(task.clone()),
    }
    if !registration.seen.insert(digest) {
        return Ok(StatusCode::OK);
    }
    registration.seen_order.push_back(digest);
    if registration.seen_order.len() > REMEMBERED_BODIES
        && let Some(oldest) = registration.seen_order.pop_front()
    {
        registration.seen.remove(&oldest);
    }
    let callback = PushCallback {
        task_id: task.clone(),
        config_id: config_id.to_owned(),
        body: json,
        received_at: Instant::now(),
    };
    let queue = registry.queues.entry(task).or_insert_with(TaskQueue::new);
    if queue.tx.try_send(callback).is_err() {
        // Forget the body so the agent's retry can be delivered once there is room.
        if let Some(registration) = registry.registrations.get_mut(config_id) {
            registration.seen.remove(&digest);
            registration.seen_order.retain(|d| *d != digest);
        }
        return Err(StatusCode::TOO_MANY_REQUESTS);
    }
    drop(registry);
    shared.arrivals.send_modify(|count| *count = count.wrapping_add(1));
    Ok(StatusCode::OK)
}

fn check_credentials(headers: &HeaderMap, registration: &Registration) -> Result<(), StatusCode> {
    let bearer = headers.get(header::AUTHORIZATION).map(|value| {
        value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .is_some_and(|(_, credentials)| same_secret(credentials.trim(), &registration.credentials))
    });
    let token = headers
        .get(NOTIFICATION_TOKEN_HEADER)
        .map(|value| value.to_str().is_ok_and(|v| same_secret(v.trim(), &registration.token)));
    match (bearer, token) {
        (None, None) => Err(StatusCode::UNAUTHORIZED),
        // Every credential presented must be the one issued.
        (Some(false), _) | (_, Some(false)) => Err(StatusCode::UNAUTHORIZED),
        _ => Ok(()),
    }
}

fn check_content_type(headers: &HeaderMap) -> Result<(), StatusCode> {
    let media_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match media_type.as_deref() {
        Some("application/json" | "application/a2a+json") => Ok(()),
        _ => Err(StatusCode::BAD_REQUEST),
    }
}

/// The task a `StreamResponse` body reports on, in 1.0 (`{"task": {"id"}}`, `{"statusUpdate":
/// {"taskId"}}`...) or 0.3 (`{"kind": "task", "id"}`, `{"kind": "status-update", "taskId"}`) shape.
fn task_id_of(body: &Value) -> Option<TaskId> {
    let text = |v: &Value, keys: &[&str]| {
        keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(TaskId::new))
    };
    if let Some(task) = body.get("task") {
        return text(task, &["id"]);
    }
    for member in ["statusUpdate", "status_update", "artifactUpdate", "artifact_update", "message"] {
        if let Some(inner) = body.get(member) {
            return text(inner, &["taskId", "task_id"]);
        }
    }
    match body.get("kind").and_then(Value::as_str) {
        Some("task") => text(body, &["id"]),
        Some(_) => text(body, &["taskId", "task_id"]),
        None => None,
    }
}

/// The request handling without sockets, for the fuzz targets in `fuzz/` (built with `--cfg fuzzing`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    use super::*;

    /// What one request came to.
    #[derive(Debug)]
    pub struct Outcome {
        /// The HTTP status answered.
        pub status: u16,
        /// Whether the issued bearer credentials or token were among the headers.
        pub credentialed: bool,
        /// Whether the body was read at all.
        pub body_read: bool,
    }

    /// Handles one request against a fresh registration: `headers` holds `name: value` lines; `flags`
    /// bit 0 adds the issued bearer credentials, bit 1 the issued token, bit 2 a JSON content type, bit 3
    /// registers a task id `t1` (else the registration binds to the first task seen).
    pub fn handle(flags: u8, headers: &[u8], body: &[u8]) -> Outcome {
        let shared = Shared::new();
        let task = (flags & 8 != 0).then(|| TaskId::new("t1"));
        let registration = shared.issue("http://127.0.0.1:1", task);
        let mut map = HeaderMap::new();
        for line in headers.split(|b| *b == b'\n') {
            let Some(colon) = line.iter().position(|b| *b == b':') else { continue };
            let (Ok(name), Ok(value)) = (
                header::HeaderName::from_bytes(&line[..colon]),
                header::HeaderValue::from_bytes(line[colon + 1..].trim_ascii()),
            ) else {
                continue;
            };
            map.append(name, value);
        }
        let bearer = format!("Bearer {}", registration.credentials());
        if flags & 1 != 0 {
            map.append(header::AUTHORIZATION, header::HeaderValue::from_str(&bearer).expect("hex"));
        }
        if flags & 2 != 0 {
            map.append(
                NOTIFICATION_TOKEN_HEADER,
                header::HeaderValue::from_str(registration.token()).expect("hex"),
            );
        }
        if flags & 4 != 0 {
            map.append(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
        }
        let admitted = admit(&shared, registration.config_id(), &map);
        let body_read = admitted.is_ok();
        let status = match admitted {
            Err(code) => code,
            Ok(()) => match accept_body(&shared, registration.config_id(), body) {
                Ok(code) | Err(code) => code,
            },
        };
        Outcome { status: status.as_u16(), credentialed: flags & 3 != 0, body_read }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_ids_are_found_in_every_stream_response_shape() {
        let cases = [
            json!({"task": {"id": "t1", "status": {}}}),
            json!({"statusUpdate": {"taskId": "t1"}}),
            json!({"artifactUpdate": {"task_id": "t1"}}),
            json!({"message": {"taskId": "t1"}}),
            json!({"kind": "task", "id": "t1"}),
            json!({"kind": "status-update", "taskId": "t1"}),
        ];
        for body in cases {
            assert_eq!(task_id_of(&body), Some(TaskId::new("t1")), "{body}");
        }
        assert_eq!(task_id_of(&json!({"statusUpdate": {"taskId": ""}})), None);
        assert_eq!(task_id_of(&json!({"other": 1})), None);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abd", "abc"));
        assert!(!same_secret("ab", "abc"));
        assert_ne!(secret(), secret());
        assert_eq!(secret().len(), 64);
    }

    #[test]
    fn registration_debug_hides_token_and_credentials() {
        let registration = PushRegistration {
            config_id: "c".into(),
            task_id: None,
            url: "http://127.0.0.1:1/a2a/push/c".into(),
            token: "tok-secret".into(),
            credentials: "cred-secret".into(),
        };
        let shown = format!("{registration:?}");
        assert!(!shown.contains("tok-secret") && !shown.contains("cred-secret"), "{shown}");
        let config = registration.to_config_json();
        assert_eq!(config["authentication"]["scheme"], "Bearer");
        assert_eq!(config["authentication"]["credentials"], "cred-secret");
        assert_eq!(config["token"], "tok-secret");
        assert_eq!(config["id"], "c");
        assert!(config.get("taskId").is_none());
        let bound = PushRegistration { task_id: Some(TaskId::new("t1")), ..registration };
        assert_eq!(bound.to_config().task_id, Some(TaskId::new("t1")));
    }
}
