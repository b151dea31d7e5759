//! How a task's webhook reaches the agent: inline on the first send, then — when the agent
//! refused it there or accepted it and dropped it (`GetTaskPushNotificationConfig` does not return
//! it, or answers `-32003` not supported) — `CreateTaskPushNotificationConfig` once the task
//! exists, at once, with no arrival bound waited first. Every attempt is recorded with what the agent answered, so a report can say which paths
//! were tried and never calls a dropped config registered.

use std::fmt;
use std::sync::Arc;

use a2a_typestate::{Call, Observed, TaskHandle};
use a2a_typestate_types::error::A2aErrorCode;
use a2a_typestate_types::{GetTaskPushNotificationConfigRequest, GetTaskRequest};

use super::session::Session;
use crate::Error;
use crate::webhook::{PushReceiver, PushRegistration};

/// A path by which a webhook config reaches the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PushRegistrationPath {
    /// Inline in the first send (`configuration.taskPushNotificationConfig`).
    Inline,
    /// `CreateTaskPushNotificationConfig` for the existing task.
    CreateTaskPushNotificationConfig,
}

impl fmt::Display for PushRegistrationPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Inline => "inline in the first send",
            Self::CreateTaskPushNotificationConfig => "CreateTaskPushNotificationConfig",
        })
    }
}

/// What the agent answered one registration attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PushRegistrationAnswer {
    /// Accepted, and `GetTaskPushNotificationConfig` returned the config.
    Confirmed,
    /// Accepted; whether the agent holds it could not be confirmed (why).
    AcceptedUnconfirmed(String),
    /// Accepted, but the agent does not hold it: `GetTaskPushNotificationConfig` answered this.
    Dropped(String),
    /// Refused with a protocol error (`-32003` not supported, `-32602` a URL it will not call, ...).
    Refused {
        /// The error code, when the agent sent one.
        code: Option<i64>,
        /// The agent's message.
        message: String,
    },
    /// The attempt failed below the protocol (a transport fault after its retries).
    Failed(String),
}

impl PushRegistrationAnswer {
    /// `true` when the agent took the config (confirmed or not).
    pub fn accepted(&self) -> bool {
        matches!(self, Self::Confirmed | Self::AcceptedUnconfirmed(_))
    }
}

/// One attempt to register the task's webhook, and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushRegistrationAttempt {
    /// The path tried.
    pub path: PushRegistrationPath,
    /// What the agent answered.
    pub answer: PushRegistrationAnswer,
}

impl fmt::Display for PushRegistrationAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.answer {
            PushRegistrationAnswer::Confirmed => {
                write!(f, "{}: accepted (GetTaskPushNotificationConfig returns it)", self.path)
            }
            PushRegistrationAnswer::AcceptedUnconfirmed(why) => {
                write!(f, "{}: accepted, not confirmed ({why})", self.path)
            }
            PushRegistrationAnswer::Dropped(why) => {
                write!(f, "{}: accepted but dropped (GetTaskPushNotificationConfig: {why})", self.path)
            }
            PushRegistrationAnswer::Refused { code: Some(code), message } => {
                write!(f, "{}: refused with {code}: {message}", self.path)
            }
            PushRegistrationAnswer::Refused { code: None, message } => {
                write!(f, "{}: refused: {message}", self.path)
            }
            PushRegistrationAnswer::Failed(why) => write!(f, "{}: failed: {why}", self.path),
        }
    }
}

/// The answer an error gives a registration attempt.
pub(crate) fn refused(error: &Error) -> PushRegistrationAnswer {
    match error.protocol_error() {
        Some(p) => PushRegistrationAnswer::Refused { code: p.code(), message: p.message().to_owned() },
        None => PushRegistrationAnswer::Failed(error.to_string()),
    }
}

/// `true` for the refusals another path may get past: not supported (`-32003`) and invalid
/// params (`-32602`, a webhook URL the agent will not call).
pub(crate) fn another_path_may_help(error: &Error) -> bool {
    error.protocol_error().is_some_and(|p| {
        p.is_push_notification_not_supported() || p.a2a_code() == Some(A2aErrorCode::InvalidParams)
    })
}

/// A push config the task watches: where its callbacks arrive, and whether the agent took it.
#[derive(Debug)]
pub(crate) struct PushWatch {
    pub(crate) receiver: Arc<PushReceiver>,
    pub(crate) registration: PushRegistration,
    /// The agent accepted the config (the send carrying it, or the create call, succeeded).
    pub(crate) accepted: bool,
    /// The config rode inline and is still to be confirmed once the task exists.
    pub(crate) confirm: bool,
    pub(crate) arrivals: tokio::sync::watch::Receiver<u64>,
    /// The receiver's count of connections turned away when the agent accepted the config; `None`
    /// before that, and once a growth of it was observed.
    pub(crate) turned_away_at: Option<u64>,
}

/// What a task knows of its webhook, beside the session that owns it: the config it watches,
/// every attempt to register one, and the receiver still to register once the task exists.
#[derive(Debug, Default)]
pub(crate) struct PushState {
    pub(crate) watch: Option<PushWatch>,
    /// Every attempt to register the webhook, with the agent's answer.
    pub(crate) attempts: Vec<PushRegistrationAttempt>,
    /// A receiver to register with `CreateTaskPushNotificationConfig` once the task exists (the
    /// inline path was refused or dropped).
    pub(crate) fallback: Option<Arc<PushReceiver>>,
    /// Whether another registration path is tried when one fails (with the push claim held).
    pub(crate) alternatives: bool,
}

impl Drop for PushState {
    fn drop(&mut self) {
        if let Some(watch) = &self.watch {
            watch.receiver.unregister(&watch.registration);
        }
    }
}

impl Session {
    /// Once the task exists: confirms an inline config the agent accepted
    /// (`GetTaskPushNotificationConfig`), and registers with `CreateTaskPushNotificationConfig`
    /// when the inline path was refused or dropped. Nothing here fails the turn: a webhook the
    /// agent will not take leaves push unverified, with the attempts saying why.
    pub(super) async fn follow_up_push<H: TaskHandle>(&mut self, handle: &mut H) {
        let Some(task) = self.task_id() else { return };
        if let Some(watch) = self.push.watch.as_mut().filter(|w| w.accepted && w.confirm) {
            watch.confirm = false;
            let request = GetTaskPushNotificationConfigRequest {
                tenant: None,
                task_id: task.clone(),
                id: watch.registration.config_id().to_owned(),
            };
            let url = watch.registration.url().to_owned();
            self.round_trip();
            let answer = match self.conn.get_task_push_notification_config(request).await {
                Ok(config) if config.url == url => PushRegistrationAnswer::Confirmed,
                Ok(config) => PushRegistrationAnswer::Dropped(format!("it holds {} instead", config.url)),
                Err(error) => match error.protocol_error() {
                    // The agent does not hold the config: it has no such task or config, or it says
                    // it supports no push config at all (`-32003`, or the generic `-32004` BeeAI
                    // answers). Either way the create call is
                    // next, at once, and its answer is the one judged; waiting out the arrival bound
                    // for a config the agent just disowned would only delay that.
                    Some(p)
                        if matches!(
                            p.a2a_code(),
                            Some(
                                A2aErrorCode::TaskNotFound
                                    | A2aErrorCode::InvalidParams
                                    | A2aErrorCode::PushNotificationNotSupported
                                    | A2aErrorCode::UnsupportedOperation
                            )
                        ) =>
                    {
                        PushRegistrationAnswer::Dropped(format!("{} {}", p.code().unwrap_or(0), p.message()))
                    }
                    _ => PushRegistrationAnswer::AcceptedUnconfirmed(format!(
                        "GetTaskPushNotificationConfig: {error}"
                    )),
                },
            };
            let dropped = matches!(answer, PushRegistrationAnswer::Dropped(_));
            self.record_push_answer(PushRegistrationPath::Inline, answer);
            if dropped {
                self.observe(handle, Observed::PushDropped);
                if let Some(watch) = self.push.watch.take() {
                    watch.receiver.unregister(&watch.registration);
                    if self.push.alternatives {
                        self.push.fallback = Some(watch.receiver);
                    }
                }
            }
        }
        if let Some(receiver) = self.push.fallback.take() {
            self.observe_url_refusal(handle);
            self.register_created(handle, receiver).await;
        }
    }

    /// An inline config refused for its URL (`-32602`) is observed before the create call, so the
    /// verifier knows the agent announced it will not call that webhook: a silence there is then
    /// explained, not a broken claim. (The refused send is answered where it was made, which tries
    /// the other path without observing; this is the one place both paths meet.)
    fn observe_url_refusal<H: TaskHandle>(&mut self, handle: &mut H) {
        if let Some(code) = self.url_refused_inline() {
            self.observe(handle, Observed::AgentError { call: Call::PushNotificationConfig, code });
        }
    }

    /// The agent's `-32602` to the inline config, if it refused the webhook URL there.
    fn url_refused_inline(&self) -> Option<i32> {
        self.push.attempts.iter().rev().find(|a| a.path == PushRegistrationPath::Inline).and_then(
            |a| match &a.answer {
                PushRegistrationAnswer::Refused { code: Some(code), .. }
                    if A2aErrorCode::from_code(*code) == A2aErrorCode::InvalidParams =>
                {
                    i32::try_from(*code).ok()
                }
                _ => None,
            },
        )
    }

    /// Registers with `CreateTaskPushNotificationConfig`, recording the answer; a `-32003` is
    /// observed (with the claim held, the refusal `settle_*` reads).
    async fn register_created<H: TaskHandle>(&mut self, handle: &mut H, receiver: Arc<PushReceiver>) {
        let path = PushRegistrationPath::CreateTaskPushNotificationConfig;
        match self.create_push_config(handle, receiver).await {
            Ok(_) => self.push.attempts.push(PushRegistrationAttempt {
                path,
                answer: PushRegistrationAnswer::AcceptedUnconfirmed(
                    "the agent answered the create call with the config".to_owned(),
                ),
            }),
            Err(error) => self.push.attempts.push(PushRegistrationAttempt { path, answer: refused(&error) }),
        }
    }

    /// Whether the task had ended, unseen by this handle, before the agent took a config created
    /// for it: a config covers the transitions after it, so a terminal state the client reads only
    /// after the create call (a poll or a stream delivering what the agent did earlier) may have
    /// come before it, with nothing left to push. A `GetTask` answered after the create call says
    /// whether the task was still running; ended, the registration is not observed and no callback
    /// is awaited (the agent's silence then says nothing). A task the handle already saw end is
    /// left to the verifier (a registration observed after the terminal state awaits nothing); a
    /// `GetTask` that fails says nothing either way, and none is needed when the agent refused the
    /// URL inline (its silence there is explained already).
    pub(super) async fn ended_unseen_before_registration(&mut self) -> bool {
        if self.last_state.is_some_and(|state| state.is_terminal()) || self.url_refused_inline().is_some() {
            return false;
        }
        let Some(id) = self.task_id() else { return false };
        self.round_trip();
        match self.conn.get_task(GetTaskRequest::new(id)).await {
            Ok(task) => self.is_this_task("a GetTask answer", &task).is_ok() && task.state().is_terminal(),
            Err(_) => false,
        }
    }

    /// Sets the answer of the latest attempt on `path` (an inline attempt is recorded accepted when
    /// the send succeeds, then confirmed or found dropped).
    pub(super) fn record_push_answer(&mut self, path: PushRegistrationPath, answer: PushRegistrationAnswer) {
        match self.push.attempts.iter_mut().rev().find(|a| a.path == path) {
            Some(attempt) => attempt.answer = answer,
            None => self.push.attempts.push(PushRegistrationAttempt { path, answer }),
        }
    }
}
