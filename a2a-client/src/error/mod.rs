//! The one error type of the client, and the questions it answers.
//!
//! A caller never matches on strings: [`Error::kind`] says which of five things went wrong, and
//! [`Error::is_retryable`] says whether trying again can help. Only transport faults are retryable; a
//! lifecycle violation (the verifier's [`AgentCardLifecycleViolation`]) means the agent's card lied and
//! must be refused, never retried; a [`LifecycleFault`] means the task could not be observed within
//! the client's bounds (abandon, do not retry).
//!
//! ```
//! use std::time::Duration;
//! use a2a_typestate_client::{Client, ErrorKind};
//!
//! // Errors come only from the client's own calls (their constructors are private to the crate).
//! let err = Client::builder().request_timeout(Duration::ZERO).build().unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Config);
//! assert!(!err.is_retryable(), "only transport faults are");
//! assert_eq!(err.status(), None);
//! ```

use std::fmt;

use a2a_typestate::{AgentCardLifecycleViolation, LifecycleFault};
use a2a_typestate_types::parse::ParseError;

pub use crate::protocol_error::ProtocolError;

mod body_snippet;
pub(crate) use body_snippet::SNIPPET_BYTES;
pub(crate) mod card_signature;
mod listing;
mod report;
mod unavailable;

pub use listing::ListingFault;
pub use report::Report;
pub use unavailable::Unavailable;

/// A boxed error from below the client (hyper, rustls, io), kept as the source.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong, at the level a caller decides on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The network or an intermediary failed (connect, reset, timeout, HTTP 502/503/504). Retryable.
    Transport,
    /// The agent answered an HTTP status that is neither success, a gateway fault, a credentials
    /// problem nor an A2A error body (a bare 404, 500 with HTML...). Not retryable.
    Status,
    /// The agent (or its token endpoint) refused the credentials (HTTP 401 or 403), or the client
    /// holds none that meet the card's security requirements. Not retryable as a transport fault,
    /// not a refused claim: fix the credentials (see [`crate::auth`]).
    Auth,
    /// The agent answered with an A2A error (JSON-RPC `error`, or HTTP+JSON `google.rpc.Status`).
    Protocol,
    /// The agent contradicted its own card: refuse the claim, never retry.
    LifecycleViolation,
    /// The task's lifecycle could not be observed within the client's bounds (still `working` past
    /// the bound, with neither streaming nor a declared poll cadence): abandon, do not retry.
    LifecycleFault,
    /// A document (card, response, event, callback) could not be read; carries the JSON path.
    BadInput,
    /// The client was configured with values it cannot use.
    Config,
    /// The API was used in a way it cannot serve (a call before the task exists, a claim the
    /// handle does not hold): a bug in the caller, not in the agent.
    Misuse,
    /// The agent card's signatures did not satisfy the client's
    /// [`CardSignaturePolicy`](crate::signing::CardSignaturePolicy): unsigned under `Require`, or no
    /// signature verified against the trust store. The card was not cached and drives no claim;
    /// [`Error::card_signature_error`] says which signature failed and why. Not retryable.
    CardSignature,
    /// A listing that pages for the caller ([`TaskPages`](crate::TaskPages)) stopped before the
    /// agent's last page: the agent named a page token again, answered a page with more tasks than
    /// it asked for, or the page bound ran out ([`Error::listing_fault`] says which). Not retryable.
    Listing,
}

/// Which transport fault happened (see [`Error::transport_fault`]): the typestate's words, so the
/// verifier reads the client's faults as they are.
pub use a2a_typestate::TransportFault;

#[derive(Debug, thiserror::Error)]
enum Repr {
    #[error("transport fault: {fault}")]
    Transport {
        fault: TransportFault,
        #[source]
        source: Option<BoxError>,
    },
    /// A status the call cannot read, with the start of the body it came with (see `body_snippet`).
    #[error("unexpected http status {status}{}", Quoted(body.as_deref()))]
    Status { status: u16, body: Option<Box<str>> },
    /// Every well-known card path under a base URL answered 404 or 410.
    #[error(
        "no agent card at {base}: {} (a card served elsewhere is read when its own url, ending in agent-card.json, is given)",
        Tried(tried)
    )]
    NoCard { base: String, tried: Vec<(String, u16)> },
    #[error("agent returned {0}")]
    Protocol(ProtocolError),
    #[error("not authorized: {message}")]
    Auth { status: Option<u16>, message: String },
    // The violation is shown, not chained as a source: it is the whole message (capability,
    // contradiction, evidence), and a source would repeat it. `Error::lifecycle_violation` gives it.
    #[error("agent card lifecycle violation: {0}")]
    Lifecycle(AgentCardLifecycleViolation),
    #[error("task lifecycle not observable within the client's bounds")]
    LifecycleFault(#[source] LifecycleFault),
    #[error("bad input in {what}")]
    BadInput {
        what: &'static str,
        #[source]
        source: ParseError,
    },
    /// A document that is not JSON at all, served as something else (an HTML page, most often).
    #[error("the {what} at {url} is not JSON (got {})", content_type.as_deref().unwrap_or("no content type"))]
    NotJson {
        what: &'static str,
        url: String,
        content_type: Option<String>,
        #[source]
        source: ParseError,
    },
    #[error("the agent's answer makes no sense: {message}")]
    Answer { message: String },
    #[error("misuse of the API: {message}")]
    Misuse { message: String },
    #[error("agent card signature check failed")]
    CardSignature(#[source] card_signature::CardSignatureError),
    #[error("the listing stopped before the agent's last page")]
    Listing(#[source] ListingFault),
    #[error("invalid configuration: {message}")]
    Config {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// The agent's availability breaker is open: nothing was sent.
    #[error("the agent at {agent} is held unavailable, nothing was sent: {unavailable}")]
    Unavailable { agent: String, unavailable: Unavailable },
    /// The card marks an extension `required` that the call does not ask for.
    #[error(
        "the agent requires extension {uri} (capabilities.extensions[{index}] is marked required) and this call \
         does not ask for it: nothing was sent (ask for it with ClientBuilder::extension or CallOptions::extension)"
    )]
    ExtensionRequired { uri: String, index: usize },
}

/// `: <the start of the body>`, or nothing when there is none.
struct Quoted<'a>(Option<&'a str>);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(body) => write!(f, ": {body}"),
            None => Ok(()),
        }
    }
}

/// The well-known URLs asked and what each answered, in words.
struct Tried<'a>(&'a [(String, u16)]);

impl fmt::Display for Tried<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (url, status)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", then ")?;
            }
            write!(f, "{url} answered {status}")?;
        }
        Ok(())
    }
}

impl Repr {
    /// Whether the message already names the URL (so `Display` does not add it again).
    fn names_its_url(&self) -> bool {
        matches!(self, Repr::NoCard { .. } | Repr::NotJson { .. } | Repr::Unavailable { .. })
    }
}

struct Inner {
    repr: Repr,
    url: Option<String>,
    /// Requests a negotiated run made before it ended in this error.
    negotiation_round_trips: Option<u64>,
    /// The card claim this answer contradicted (open access answered with a 401, say).
    card_claim_violation: Option<a2a_typestate::CardClaimViolation>,
    /// The wait a 502/503/504 asked for in `Retry-After`.
    retry_after: Option<std::time::Duration>,
    /// The attempts the retry policy made before giving up with this error, and how long they took.
    attempts: Option<Attempts>,
    /// The request timeout that bounded each attempt, when a timeout is what happened.
    request_timeout: Option<std::time::Duration>,
    /// What is known of the work, when this ended a send whose answer never came.
    unanswered: Option<Unanswered>,
    /// The declared interfaces a task tried before it ended in this error, when it tried several.
    interfaces_tried: Option<InterfacesTried>,
    /// Further claims the run that ended in this refusal contradicted, after the deciding one.
    other_refusals: Vec<AgentCardLifecycleViolation>,
}

/// How many of a card's declared interfaces a task tried, of how many, under which bound
/// ([`TaskBudget::interfaces`](crate::TaskBudget::interfaces)).
#[derive(Clone, Copy, Debug)]
struct InterfacesTried {
    tried: usize,
    declared: usize,
    bound: u32,
}

/// A send whose request may have reached the agent, whose answer never came
/// ([`Error::may_have_run`]), and what looking for its task found.
#[derive(Clone, Debug)]
struct Unanswered {
    /// Why its task could not be found, once it was looked for.
    not_found: Option<String>,
}

/// How many attempts a retried call made, and how long they took together (backoff included).
#[derive(Clone, Copy, Debug)]
struct Attempts {
    count: u32,
    elapsed: std::time::Duration,
}

/// The error of every fallible call in this crate.
///
/// One pointer wide, so `Result<T, Error>` stays cheap. It may carry the URL involved, with any user
/// info, query and fragment removed: errors never hold tokens or credentials.
pub struct Error {
    inner: Box<Inner>,
}

impl Error {
    fn new(repr: Repr, url: Option<&str>) -> Self {
        Self {
            inner: Box::new(Inner {
                repr,
                url: url.map(redact_url),
                negotiation_round_trips: None,
                card_claim_violation: None,
                retry_after: None,
                attempts: None,
                request_timeout: None,
                unanswered: None,
                interfaces_tried: None,
                other_refusals: Vec::new(),
            }),
        }
    }

    /// A transport fault of the given kind, with the underlying error as its source.
    pub(crate) fn transport(fault: TransportFault, source: Option<BoxError>) -> Self {
        Self::new(Repr::Transport { fault, source }, None)
    }

    /// A request that found no complete answer within `bound`, the request timeout of one attempt.
    pub(crate) fn timeout(bound: std::time::Duration) -> Self {
        let source = format!(
            "no complete answer within the request timeout of {}",
            a2a_typestate_types::human::HumanDuration(bound)
        );
        let mut error = Self::transport(TransportFault::Timeout, Some(source.into()));
        error.inner.request_timeout = Some(bound);
        error
    }

    /// The error for an HTTP status that carried no A2A error body: 502, 503 and 504 are transport
    /// faults (retryable), 401 and 403 are [`ErrorKind::Auth`], anything else is [`ErrorKind::Status`].
    pub(crate) fn from_status(status: u16, url: Option<&str>) -> Self {
        let repr = match status {
            502..=504 => Repr::Transport { fault: TransportFault::Unavailable(status), source: None },
            401 | 403 => {
                Repr::Auth { status: Some(status), message: format!("the agent answered http {status}") }
            }
            _ => Repr::Status { status, body: None },
        };
        Self::new(repr, url)
    }

    /// No card under the base URL `base`: each of `tried` (a URL and its status, 404 or 410)
    /// answered that it has none. Kind [`ErrorKind::Status`], with the last status; its URL is the
    /// last one tried.
    pub(crate) fn no_card(base: &str, tried: Vec<(String, u16)>) -> Self {
        let last = tried.last().cloned();
        let tried = tried.into_iter().map(|(url, status)| (redact_url(&url), status)).collect();
        // An `AgentBaseUrl` holds no user info or query: shown as the caller wrote it.
        let error = Self::new(Repr::NoCard { base: base.to_string(), tried }, None);
        match last {
            Some((url, _)) => error.with_url(&url),
            None => error,
        }
    }

    /// A `what` ("agent card") at `url` that is not JSON, served as `content_type`; `source` is
    /// the parser's own account. Kind [`ErrorKind::BadInput`].
    pub(crate) fn not_json(
        what: &'static str,
        url: &str,
        content_type: Option<&str>,
        source: ParseError,
    ) -> Self {
        // The agent wrote the header: shown cut short, as printable text only.
        let content_type =
            content_type.map(|value| value.chars().filter(|c| !c.is_control()).take(100).collect::<String>());
        Self::new(Repr::NotJson { what, url: redact_url(url), content_type, source }, Some(url))
    }

    /// A credentials problem: a 401 or 403 (`status`), or none held that fits; `message` says which
    /// schemes were asked for and sent, never a credential.
    pub fn auth(status: Option<u16>, message: impl Into<String>) -> Self {
        Self::new(Repr::Auth { status, message: message.into() }, None)
    }

    /// An A2A error the agent answered with.
    pub(crate) fn protocol(error: ProtocolError) -> Self {
        Self::new(Repr::Protocol(error), None)
    }

    /// A document named `what` ("agent card", "push callback"...) that could not be parsed.
    pub(crate) fn bad_input(what: &'static str, source: ParseError) -> Self {
        Self::new(Repr::BadInput { what, source }, None)
    }

    /// A configuration value the client cannot use; `message` says which and why.
    pub(crate) fn config(message: impl Into<String>) -> Self {
        Self::new(Repr::Config { message: message.into(), source: None }, None)
    }

    /// An agent answer that is well formed but makes no sense for the call (a protocol error).
    pub(crate) fn protocol_answer(message: impl Into<String>) -> Self {
        Self::new(Repr::Answer { message: message.into() }, None)
    }

    /// An answer, event or callback that names a task (or context) other than the one it must be
    /// about (`what` says which answer): a protocol error, never an observation of this task.
    pub(crate) fn about_another_task(
        what: &str,
        answered: (&a2a_typestate_types::TaskId, Option<&a2a_typestate_types::ContextId>),
        this: (&a2a_typestate_types::TaskId, Option<&a2a_typestate_types::ContextId>),
    ) -> Self {
        let named =
            |(task, context): (&a2a_typestate_types::TaskId, Option<&a2a_typestate_types::ContextId>)| {
                context.map_or_else(|| task.to_string(), |context| format!("{task} (context {context})"))
            };
        Self::protocol_answer(format!(
            "{what} is about task {} while this task is {}",
            named(answered),
            named(this)
        ))
    }

    /// A call the API cannot serve as made.
    pub(crate) fn misuse(message: impl Into<String>) -> Self {
        Self::new(Repr::Misuse { message: message.into() }, None)
    }

    /// A task not sent because `agent`'s availability breaker is open.
    pub(crate) fn breaker_open(agent: &str, unavailable: Unavailable) -> Self {
        Self::new(Repr::Unavailable { agent: redact_url(agent), unavailable }, None)
    }

    /// A card whose signatures did not satisfy the signature policy.
    pub(crate) fn card_signature(error: card_signature::CardSignatureError) -> Self {
        Self::new(Repr::CardSignature(error), None)
    }

    /// The card's `capabilities.extensions[index]`, `uri`, is marked required and the call does not
    /// ask for it. Kind [`ErrorKind::Config`].
    pub(crate) fn required_extension_not_asked(uri: &str, index: usize) -> Self {
        // The card wrote the URI: shown cut short, as printable text only.
        let uri: String = uri.chars().filter(|c| !c.is_control()).take(300).collect();
        Self::new(Repr::ExtensionRequired { uri, index }, None)
    }

    pub(crate) fn config_with(message: impl Into<String>, source: BoxError) -> Self {
        Self::new(Repr::Config { message: message.into(), source: Some(source) }, None)
    }

    /// Returns the error with the URL it concerns (redacted: no user info, query or fragment).
    #[must_use]
    pub(crate) fn with_url(mut self, url: &str) -> Self {
        self.inner.url = Some(redact_url(url));
        self
    }

    /// Returns the error with the start of `body`, the body its unexpected status came with (`more`:
    /// the body went on past `body`); kept on [`ErrorKind::Status`] errors only, cleaned as
    /// [`Error::body_snippet`] says.
    #[must_use]
    pub(crate) fn with_body(mut self, body: &[u8], more: bool) -> Self {
        if let Repr::Status { body: kept, .. } = &mut self.inner.repr {
            *kept = body_snippet::snippet(body, more);
        }
        self
    }

    /// Returns the error with the requests the negotiated run made before it ended in this error.
    #[must_use]
    pub(crate) fn with_negotiation_round_trips(mut self, round_trips: u64) -> Self {
        self.inner.negotiation_round_trips = Some(round_trips);
        self
    }

    /// Returns the refusal error with the further claims its run contradicted.
    #[must_use]
    pub(crate) fn with_other_refusals(mut self, others: Vec<AgentCardLifecycleViolation>) -> Self {
        self.inner.other_refusals = others;
        self
    }

    /// Returns the error with the card claim its answer contradicted.
    #[must_use]
    pub(crate) fn with_card_claim_violation(mut self, violation: a2a_typestate::CardClaimViolation) -> Self {
        self.inner.card_claim_violation = Some(violation);
        self
    }

    /// Returns the error with how many of the card's `declared` interfaces the task tried before it
    /// (`tried`, the last one included) under the task budget's `bound`.
    #[must_use]
    pub(crate) fn with_interfaces_tried(mut self, tried: usize, declared: usize, bound: u32) -> Self {
        self.inner.interfaces_tried = Some(InterfacesTried { tried, declared, bound });
        self
    }

    /// How many of the card's declared interfaces the task tried before this error, the last one
    /// included, when it tried more than the one it began on or stopped at the task budget's bound
    /// ([`TaskBudget::interfaces`](crate::TaskBudget::interfaces)); `None` otherwise.
    pub fn interfaces_tried(&self) -> Option<usize> {
        self.inner.interfaces_tried.map(|i| i.tried)
    }

    /// Returns the error with the wait the agent asked for in `Retry-After`; kept on transport faults
    /// only (a `Retry-After` on a 401 says nothing about retrying).
    #[must_use]
    pub(crate) fn with_retry_after(mut self, wait: Option<std::time::Duration>) -> Self {
        if self.transport_fault().is_some() {
            self.inner.retry_after = wait;
        }
        self
    }

    /// Returns the error with the attempts a retried call made before it (the last one included)
    /// and the time they took together, waits between them included.
    #[must_use]
    pub(crate) fn with_attempts(mut self, count: u32, elapsed: std::time::Duration) -> Self {
        self.inner.attempts = Some(Attempts { count, elapsed });
        self
    }

    /// How many attempts the client's [`RetryPolicy`](crate::RetryPolicy) made before returning
    /// this error, the last one included (`None` for an error of a call that is not retried).
    /// When more than one, the error's `Display` says how many and how long they took in all.
    pub fn attempts(&self) -> Option<u32> {
        self.inner.attempts.map(|a| a.count)
    }

    /// How long the attempts behind [`attempts`](Self::attempts) took together, the waits between
    /// them included.
    pub fn elapsed(&self) -> Option<std::time::Duration> {
        self.inner.attempts.map(|a| a.elapsed)
    }

    /// The request timeout that ran out on each attempt, when this is a request timeout.
    pub fn request_timeout(&self) -> Option<std::time::Duration> {
        self.inner.request_timeout
    }

    /// The wait a 502, 503 or 504 answer asked for in its `Retry-After` header (delta-seconds, at
    /// most a day: a longer wait is taken as a day; an HTTP-date, a negative number or text that is
    /// no number is not read). [`RetryPolicy`](crate::RetryPolicy) waits at least this long before
    /// the next attempt, and gives up at once when it is longer than the policy's largest delay.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        self.inner.retry_after
    }

    /// Requests made on the negotiation path before the task ended in this error: the round trips an
    /// abandoned or failed task wasted (0 for an agent sent straight to the single-shot path). Set on
    /// every error [`Client::run_task`](crate::Client::run_task) returns once the agent's card was
    /// discovered; `None` for discovery errors and errors from other calls.
    pub fn negotiation_round_trips(&self) -> Option<u64> {
        self.inner.negotiation_round_trips
    }

    /// Which kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match &self.inner.repr {
            Repr::Transport { .. } | Repr::Unavailable { .. } => ErrorKind::Transport,
            Repr::Status { .. } | Repr::NoCard { .. } => ErrorKind::Status,
            Repr::Protocol(_) => ErrorKind::Protocol,
            Repr::Auth { .. } => ErrorKind::Auth,
            Repr::Lifecycle(_) => ErrorKind::LifecycleViolation,
            Repr::LifecycleFault(_) => ErrorKind::LifecycleFault,
            Repr::BadInput { .. } | Repr::NotJson { .. } => ErrorKind::BadInput,
            Repr::Config { .. } | Repr::ExtensionRequired { .. } => ErrorKind::Config,
            Repr::Answer { .. } => ErrorKind::Protocol,
            Repr::Misuse { .. } => ErrorKind::Misuse,
            Repr::CardSignature(_) => ErrorKind::CardSignature,
            Repr::Listing(_) => ErrorKind::Listing,
        }
    }

    /// Whether trying the same call again can help: true only for retryable transport faults, and
    /// never for a send that [may have run](Self::may_have_run) (sending it again could run the work
    /// twice).
    ///
    /// A lifecycle violation is never retryable: the agent will lie the same way again.
    pub fn is_retryable(&self) -> bool {
        self.inner.unanswered.is_none() && self.transport_fault().is_some_and(TransportFault::is_retryable)
    }

    /// Whether this error ended a send (`SendMessage`, `SendStreamingMessage`) whose request may
    /// have reached the agent while its answer never came: a timeout, a reset, a stream cut before
    /// its first event, a 504. The agent may be doing the work, so the client never sends it again
    /// blind: it looks for the task under the message's context id and follows it when found; this
    /// error is what is left when it was not found, and says why
    /// ([`unanswered_lookup`](Self::unanswered_lookup)). Not [retryable](Self::is_retryable): sending
    /// the message again is the caller's choice, made knowing it may run twice. A fault that proves
    /// the request was not taken (the connection never opened, a 502 or 503) is not one of these:
    /// it is retried.
    pub fn may_have_run(&self) -> bool {
        self.inner.unanswered.is_some()
    }

    /// Why the task of a send that [may have run](Self::may_have_run) was not found, once the client
    /// looked for it (the agent listed no task under the message's context, or cannot list).
    pub fn unanswered_lookup(&self) -> Option<&str> {
        self.inner.unanswered.as_ref().and_then(|u| u.not_found.as_deref())
    }

    /// This error, as the end of a send that may have reached the agent, when it is a fault that
    /// leaves that open (see [`Error::may_have_run`]); any other error unchanged.
    pub(crate) fn sent_unanswered(mut self) -> Self {
        let open = matches!(
            self.transport_fault(),
            Some(
                TransportFault::Timeout
                    | TransportFault::Reset
                    | TransportFault::Truncated
                    | TransportFault::Unavailable(504)
            )
        );
        if open && self.inner.unanswered.is_none() {
            self.inner.unanswered = Some(Unanswered { not_found: None });
        }
        self
    }

    /// What a task kept of the agent's artifacts and messages (`held` bytes) went past the task
    /// budget's `bound` ([`TaskBudget::result_bytes`](crate::TaskBudget::result_bytes)): bad input,
    /// the run ended there.
    pub(crate) fn result_over_budget(held: usize, bound: usize) -> Self {
        let problem = a2a_typestate_types::parse::ParseError::new(
            a2a_typestate_types::parse::ParseErrorKind::TooLarge,
            "",
            format!(
                "the task's artifacts and messages reached {held} bytes, past the task budget of {bound} bytes \
                 (TaskBudget::with_result_bytes)"
            ),
        );
        Self::new(Repr::BadInput { what: "task result", source: problem }, None)
    }

    /// This error, as the end of a run that had sent its message when it ended (see
    /// [`Error::may_have_run`]).
    pub(crate) fn after_a_send(mut self) -> Self {
        self.inner.unanswered.get_or_insert(Unanswered { not_found: None });
        self
    }

    /// This send's error once its task was looked for and not found, for `why`.
    pub(crate) fn not_found_after_send(mut self, why: impl Into<String>) -> Self {
        self.inner.unanswered = Some(Unanswered { not_found: Some(why.into()) });
        self
    }

    /// The transport fault, when this is one.
    pub fn transport_fault(&self) -> Option<TransportFault> {
        match &self.inner.repr {
            Repr::Transport { fault, .. } => Some(*fault),
            _ => None,
        }
    }

    /// Why the task was not sent, when the agent's availability breaker held it unavailable (see
    /// [`Breaker`](crate::Breaker)): an [`ErrorKind::Transport`] error with no
    /// [`transport_fault`](Self::transport_fault) of its own, not retryable before
    /// [`Unavailable::reopens_in`](crate::Unavailable::reopens_in).
    pub fn unavailable(&self) -> Option<&Unavailable> {
        match &self.inner.repr {
            Repr::Unavailable { unavailable, .. } => Some(unavailable),
            _ => None,
        }
    }

    /// Whether a bound ran out (connect, request or SSE idle timeout).
    pub fn is_timeout(&self) -> bool {
        self.transport_fault() == Some(TransportFault::Timeout)
    }

    /// Whether the connection could not be opened.
    pub fn is_connect(&self) -> bool {
        self.transport_fault() == Some(TransportFault::Connect)
    }

    /// The HTTP status involved, if any: a gateway fault, an unexpected status, or the status of an
    /// HTTP+JSON protocol error.
    pub fn status(&self) -> Option<u16> {
        match &self.inner.repr {
            Repr::Transport { fault: TransportFault::Unavailable(status), .. } => Some(*status),
            Repr::Status { status, .. } => Some(*status),
            Repr::NoCard { tried, .. } => tried.last().map(|(_, status)| *status),
            Repr::Auth { status, .. } => *status,
            Repr::Protocol(error) => error.http_status(),
            _ => None,
        }
    }

    /// Whether the agent has no such method: "method not found" (-32601, gRPC `UNIMPLEMENTED`),
    /// or an HTTP 404, 405 or 501 without an A2A error code (an HTTP+JSON route not there). It
    /// speaks of the method only where the agent answers the binding's other calls.
    pub(crate) fn is_method_missing(&self) -> bool {
        match self.protocol_error().and_then(ProtocolError::a2a_code) {
            Some(code) => code == a2a_typestate_types::error::A2aErrorCode::MethodNotFound,
            None => matches!(self.status(), Some(404 | 405 | 501)),
        }
    }

    /// The start of the body an unexpected HTTP status came with ([`ErrorKind::Status`]: a 500's
    /// body is usually what says why), shown after the status by `Display`: at most its first 200
    /// bytes as one line of text, control characters and terminal escape sequences removed, and
    /// values that look like credentials (after `Bearer` or `Basic`, a URL's user info, a
    /// `token=`/`password:`/`api_key` value...) replaced with `***`. Agent text all the same: clean
    /// it for the medium it is shown in.
    pub fn body_snippet(&self) -> Option<&str> {
        match &self.inner.repr {
            Repr::Status { body, .. } => body.as_deref(),
            _ => None,
        }
    }

    /// The card claim the answer behind this error contradicted, when it did: an agent whose card
    /// claims open access answering a call without credentials with 401 (the refusal, kept with
    /// the answer; the agent is marked suspect for the claim). See [`a2a_typestate::card_claim`].
    pub fn card_claim_violation(&self) -> Option<&a2a_typestate::CardClaimViolation> {
        self.inner.card_claim_violation.as_ref()
    }

    /// The A2A error from the agent, when this is one.
    pub fn protocol_error(&self) -> Option<&ProtocolError> {
        match &self.inner.repr {
            Repr::Protocol(error) => Some(error),
            _ => None,
        }
    }

    /// The lifecycle violation, when the agent contradicted its card (its `advice()` says whether to
    /// fall back to single-shot or abandon).
    pub fn lifecycle_violation(&self) -> Option<&AgentCardLifecycleViolation> {
        match &self.inner.repr {
            Repr::Lifecycle(violation) => Some(violation),
            _ => None,
        }
    }

    /// Every claim the run that ended in this error refused: the deciding one
    /// ([`lifecycle_violation`](Self::lifecycle_violation)) first, then the others the same run
    /// contradicted (an abandoned task can contradict more than the history it was abandoned for).
    /// Empty when the error is no refusal.
    pub fn refusals(&self) -> impl Iterator<Item = &AgentCardLifecycleViolation> {
        self.lifecycle_violation().into_iter().chain(&self.inner.other_refusals)
    }

    /// The lifecycle fault, when the task could not be observed within the client's bounds.
    pub fn lifecycle_fault(&self) -> Option<&LifecycleFault> {
        match &self.inner.repr {
            Repr::LifecycleFault(fault) => Some(fault),
            _ => None,
        }
    }

    /// The parse error (with its JSON path), when a document could not be read.
    pub fn parse_error(&self) -> Option<&ParseError> {
        match &self.inner.repr {
            Repr::BadInput { source, .. } | Repr::NotJson { source, .. } => Some(source),
            _ => None,
        }
    }

    /// Why the card's signatures were refused, when this is [`ErrorKind::CardSignature`]: each
    /// signature's index, `kid`, `alg` and failure.
    pub fn card_signature_error(&self) -> Option<&card_signature::CardSignatureError> {
        match &self.inner.repr {
            Repr::CardSignature(error) => Some(error),
            _ => None,
        }
    }

    /// Why a listing that pages for the caller stopped early, when this is [`ErrorKind::Listing`].
    pub fn listing_fault(&self) -> Option<&ListingFault> {
        match &self.inner.repr {
            Repr::Listing(fault) => Some(fault),
            _ => None,
        }
    }

    /// The URL involved, redacted.
    pub fn url(&self) -> Option<&str> {
        self.inner.url.as_deref()
    }

    /// The URI of the extension the card marks required and the call did not ask for, when that is
    /// why nothing was sent (kind [`ErrorKind::Config`]; see [`crate::extensions`]).
    pub fn required_extension(&self) -> Option<&str> {
        match &self.inner.repr {
            Repr::ExtensionRequired { uri, .. } => Some(uri),
            _ => None,
        }
    }

    /// A copy of this error for a second holder (a view of a connection keeps its connection's
    /// extended-card error): the same kind, message, URL and details; a source from below the client
    /// (hyper, rustls, io) is kept as its text, chain included.
    pub(crate) fn duplicate(&self) -> Self {
        let repr = match &self.inner.repr {
            Repr::Transport { fault, source } => {
                Repr::Transport { fault: *fault, source: source.as_deref().map(SourceText::boxed) }
            }
            Repr::Status { status, body } => Repr::Status { status: *status, body: body.clone() },
            Repr::NoCard { base, tried } => Repr::NoCard { base: base.clone(), tried: tried.clone() },
            Repr::Protocol(error) => Repr::Protocol(error.clone()),
            Repr::Auth { status, message } => Repr::Auth { status: *status, message: message.clone() },
            Repr::Lifecycle(violation) => Repr::Lifecycle(violation.clone()),
            Repr::LifecycleFault(fault) => Repr::LifecycleFault(fault.clone()),
            Repr::BadInput { what, source } => Repr::BadInput { what, source: source.clone() },
            Repr::NotJson { what, url, content_type, source } => Repr::NotJson {
                what,
                url: url.clone(),
                content_type: content_type.clone(),
                source: source.clone(),
            },
            Repr::Answer { message } => Repr::Answer { message: message.clone() },
            Repr::Misuse { message } => Repr::Misuse { message: message.clone() },
            Repr::CardSignature(error) => Repr::CardSignature(error.clone()),
            Repr::Config { message, source } => {
                Repr::Config { message: message.clone(), source: source.as_deref().map(SourceText::boxed) }
            }
            Repr::ExtensionRequired { uri, index } => {
                Repr::ExtensionRequired { uri: uri.clone(), index: *index }
            }
            Repr::Listing(fault) => Repr::Listing(fault.clone()),
            Repr::Unavailable { agent, unavailable } => {
                Repr::Unavailable { agent: agent.clone(), unavailable: unavailable.clone() }
            }
        };
        let inner = &self.inner;
        Self {
            inner: Box::new(Inner {
                repr,
                url: inner.url.clone(),
                negotiation_round_trips: inner.negotiation_round_trips,
                card_claim_violation: inner.card_claim_violation.clone(),
                retry_after: inner.retry_after,
                attempts: inner.attempts,
                request_timeout: inner.request_timeout,
                unanswered: inner.unanswered.clone(),
                interfaces_tried: inner.interfaces_tried,
                other_refusals: inner.other_refusals.clone(),
            }),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("a2a_typestate_client::Error");
        s.field("kind", &self.kind());
        if let Some(url) = &self.inner.url {
            s.field("url", url);
        }
        if let Some(wait) = self.inner.retry_after {
            s.field("retry_after", &wait);
        }
        if let Some(round_trips) = self.inner.negotiation_round_trips {
            s.field("negotiation_round_trips", &round_trips);
        }
        if let Some(attempts) = self.inner.attempts {
            s.field("attempts", &attempts.count).field("elapsed", &attempts.elapsed);
        }
        if let Some(bound) = self.inner.request_timeout {
            s.field("request_timeout", &bound);
        }
        if let Some(unanswered) = &self.inner.unanswered {
            s.field("may_have_run", &true).field("unanswered_lookup", &unanswered.not_found);
        }
        s.field("repr", &self.inner.repr);
        s.finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.inner.repr, f)?;
        // A call that ran several attempts says so: its last fault alone would read as one.
        if let Some(Attempts { count, elapsed }) = self.inner.attempts.filter(|a| a.count > 1) {
            write!(f, " after {count} attempts in {:.1} s in all", elapsed.as_secs_f64())?;
            if let Some(bound) = self.inner.request_timeout {
                write!(
                    f,
                    ", each bounded by the request timeout of {}",
                    a2a_typestate_types::human::HumanDuration(bound)
                )?;
            }
        }
        if let Some(url) = self.inner.url.as_ref().filter(|_| !self.inner.repr.names_its_url()) {
            write!(f, " ({url})")?;
        }
        if let Some(unanswered) = &self.inner.unanswered {
            f.write_str("; the agent may have done the work, so the message was not sent again")?;
            if let Some(why) = &unanswered.not_found {
                write!(f, ", and its task was not found: {why}")?;
            }
        }
        if let Some(InterfacesTried { tried, declared, bound }) = self.inner.interfaces_tried {
            write!(f, "; {tried} of the {declared} interfaces the card declares were tried")?;
            if tried >= bound as usize && declared > tried {
                write!(f, ", the task budget's bound ({bound})")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.inner.repr)
    }
}

impl From<AgentCardLifecycleViolation> for Error {
    fn from(violation: AgentCardLifecycleViolation) -> Self {
        Self::new(Repr::Lifecycle(violation), None)
    }
}

impl From<ListingFault> for Error {
    fn from(fault: ListingFault) -> Self {
        Self::new(Repr::Listing(fault), None)
    }
}

impl From<LifecycleFault> for Error {
    fn from(fault: LifecycleFault) -> Self {
        Self::new(Repr::LifecycleFault(fault), None)
    }
}

impl From<ProtocolError> for Error {
    fn from(error: ProtocolError) -> Self {
        Self::protocol(error)
    }
}

impl From<hyper_util::client::legacy::Error> for Error {
    fn from(error: hyper_util::client::legacy::Error) -> Self {
        let fault = if error.is_connect() { Some(TransportFault::Connect) } else { None };
        from_http_stack(fault, Box::new(error))
    }
}

impl From<hyper::Error> for Error {
    fn from(error: hyper::Error) -> Self {
        from_http_stack(None, Box::new(error))
    }
}

/// An error of a user's HTTP service (or of a body it answered) that is not the client's own: a
/// transport fault as its chain says, [`TransportFault::Other`] (not retried) when nothing in it says
/// which, since the client cannot tell that sending again helps.
pub(crate) fn from_service(error: BoxError) -> Error {
    classify(None, TransportFault::Other, error)
}

/// An error of the HTTP stack as a transport fault (`known` when the caller already knows which),
/// or as bad input when hyper refused the response head as too large.
pub(crate) fn from_http_stack(known: Option<TransportFault>, error: BoxError) -> Error {
    classify(known, TransportFault::Reset, error)
}

/// The fault `error` is: `known`, else the first its chain names, else `otherwise`.
fn classify(known: Option<TransportFault>, otherwise: TransportFault, error: BoxError) -> Error {
    let mut fault = known;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&*error);
    while let Some(cause) = source {
        if let Some(pool) = cause.downcast_ref::<hyper_util::client::legacy::Error>() {
            if pool.is_connect() {
                fault.get_or_insert(TransportFault::Connect);
            }
        } else if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            if hyper.is_parse_too_large() {
                // Not a reset: the agent answered, with more headers than the client reads. Sending
                // again gets the same answer, so it is bad input, not retried.
                let problem = a2a_typestate_types::parse::ParseError::new(
                    a2a_typestate_types::parse::ParseErrorKind::TooLarge,
                    "",
                    "the response head (status line and headers) is over the http client's limit",
                );
                return Error::new(Repr::BadInput { what: "response headers", source: problem }, None);
            }
            if hyper.is_timeout() {
                fault.get_or_insert(TransportFault::Timeout);
            } else if hyper.is_incomplete_message()
                || hyper.is_closed()
                || hyper.is_canceled()
                || hyper.is_body_write_aborted()
            {
                fault.get_or_insert(TransportFault::Reset);
            }
        } else if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            fault.get_or_insert(io_fault(io.kind()));
        } else if let Some(refused) = cause.downcast_ref::<AddressRefused>() {
            // Not a fault to retry or to fail over from: the client's own policy said no.
            return Error::config(refused.to_string());
        }
        source = cause.source();
    }
    Error::transport(fault.unwrap_or(otherwise), Some(error))
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Self::transport(io_fault(error.kind()), Some(Box::new(error)))
    }
}

/// The transport fault an I/O error of `kind` is.
fn io_fault(kind: std::io::ErrorKind) -> TransportFault {
    use std::io::ErrorKind as Io;
    match kind {
        Io::TimedOut => TransportFault::Timeout,
        Io::ConnectionRefused | Io::NotConnected | Io::AddrNotAvailable => TransportFault::Connect,
        Io::ConnectionReset | Io::ConnectionAborted | Io::BrokenPipe | Io::UnexpectedEof => {
            TransportFault::Reset
        }
        _ => TransportFault::Other,
    }
}

/// Every address a host name resolved to is refused by the URL policy (`net::PolicyResolver`
/// returns it; reading the error chain, the client makes it a configuration error).
#[derive(Debug)]
pub(crate) struct AddressRefused {
    pub(crate) host: String,
    pub(crate) address: std::net::IpAddr,
    pub(crate) why: &'static str,
}

impl std::fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the url policy refuses {}: it resolves to {}, {}", self.host, self.address, self.why)
    }
}

impl std::error::Error for AddressRefused {}

/// A source error kept as its text, with its own source the same way (see [`Error::duplicate`]).
#[derive(Debug)]
struct SourceText {
    text: String,
    source: Option<Box<SourceText>>,
}

impl SourceText {
    fn boxed(error: &(dyn std::error::Error + Send + Sync + 'static)) -> BoxError {
        Box::new(Self::of(error))
    }

    fn of(error: &(dyn std::error::Error + 'static)) -> Self {
        Self { text: error.to_string(), source: error.source().map(|s| Box::new(Self::of(s))) }
    }
}

impl fmt::Display for SourceText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for SourceText {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn std::error::Error + 'static))
    }
}

/// Removes user info, query and fragment, which is where URLs carry secrets.
pub(crate) fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            // Both setters only fail for URLs that cannot have credentials; nothing to remove then.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.into()
        }
        // Not a URL we can take apart: keep only what precedes any query or fragment.
        Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::parse::ParseErrorKind;
    use std::error::Error as _;

    #[test]
    fn error_is_one_pointer_wide() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert_eq!(std::mem::size_of::<Result<(), Error>>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn error_is_send_sync_static() {
        fn check<T: Send + Sync + 'static>() {}
        check::<Error>();
    }

    #[test]
    fn gateway_statuses_are_retryable_transport_faults() {
        for status in [502, 503, 504] {
            let err = Error::from_status(status, None);
            assert_eq!(err.kind(), ErrorKind::Transport, "{status}");
            assert!(err.is_retryable(), "{status}");
            assert_eq!(err.status(), Some(status));
        }
    }

    #[test]
    fn credential_statuses_are_their_own_kind_and_not_retryable() {
        for status in [401, 403] {
            let err = Error::from_status(status, None);
            assert_eq!(err.kind(), ErrorKind::Auth, "{status}");
            assert!(!err.is_retryable() && err.transport_fault().is_none(), "{status}");
            assert!(err.lifecycle_violation().is_none() && err.protocol_error().is_none(), "{status}");
            assert_eq!(err.status(), Some(status));
        }
    }

    #[test]
    fn other_statuses_are_not_retryable() {
        for status in [400, 404, 429, 500] {
            let err = Error::from_status(status, None);
            assert_eq!(err.kind(), ErrorKind::Status, "{status}");
            assert!(!err.is_retryable(), "{status}");
        }
    }

    #[test]
    fn an_unexpected_status_quotes_the_start_of_its_body_and_only_then() {
        let body = "Internal Server Error: the task store is down\n\u{1b}[2Jtoken=abc123";
        let err = Error::from_status(500, Some("http://a.example/rpc")).with_body(body.as_bytes(), false);
        let quoted = err.body_snippet().unwrap_or_default().to_owned();
        assert!(quoted.starts_with("Internal Server Error: the task store is down"), "{quoted}");
        assert!(!quoted.contains('\u{1b}') && !quoted.contains("abc123"), "{quoted}");
        assert_eq!(err.to_string(), format!("unexpected http status 500: {quoted} (http://a.example/rpc)"));
        assert_eq!(err.duplicate().body_snippet(), Some(quoted.as_str()), "a copy keeps it");
        // Only an unexpected status quotes its body: a gateway fault or a refusal of credentials does not.
        for status in [401, 403, 502] {
            assert_eq!(
                Error::from_status(status, None).with_body(body.as_bytes(), false).body_snippet(),
                None
            );
        }
        assert_eq!(Error::from_status(500, None).to_string(), "unexpected http status 500");
    }

    #[test]
    fn transport_reset_is_retried_not_refused() {
        let err = Error::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert_eq!(err.transport_fault(), Some(TransportFault::Reset));
        assert!(err.is_retryable());
        assert!(err.lifecycle_violation().is_none());
    }

    #[test]
    fn timeouts_and_refused_connections_answer_their_questions() {
        let timeout = Error::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
        assert!(timeout.is_timeout() && !timeout.is_connect() && timeout.is_retryable());
        let refused = Error::from(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(refused.is_connect() && !refused.is_timeout() && refused.is_retryable());
    }

    #[test]
    fn lifecycle_violation_is_refused_never_retried() {
        let err = Error::from(crate::test_support::streaming_violation());
        assert_eq!(err.kind(), ErrorKind::LifecycleViolation);
        assert!(!err.is_retryable());
        assert_eq!(err.lifecycle_violation().map(|v| v.capability()), Some(crate::Capability::Streaming));
        let text = err.to_string();
        assert!(text.starts_with("agent card lifecycle violation: card declares streaming but "), "{text}");
        assert!(text.contains("-32004"), "the contradiction is shown: {text}");
        assert!(err.source().is_none(), "shown in the message, not repeated as a source");
    }

    #[test]
    fn working_unobservable_is_a_lifecycle_fault_not_a_transport_fault() {
        let err = Error::from(crate::test_support::working_unobservable());
        assert_eq!(err.kind(), ErrorKind::LifecycleFault);
        assert!(!err.is_retryable() && !err.is_timeout());
        assert!(err.lifecycle_fault().is_some() && err.lifecycle_violation().is_none());
    }

    #[test]
    fn bad_input_keeps_the_json_path() {
        let parse = ParseError::new(ParseErrorKind::Shape, "capabilities.streaming", "expected a boolean");
        let err = Error::bad_input("agent card", parse);
        assert_eq!(err.kind(), ErrorKind::BadInput);
        assert_eq!(err.parse_error().map(ParseError::path), Some("capabilities.streaming"));
        assert_eq!(err.to_string(), "bad input in agent card");
        assert!(!err.is_retryable());
    }

    #[test]
    fn urls_in_errors_lose_credentials_and_queries() {
        let err = Error::from_status(401, Some("https://user:secret@agent.example/rpc?token=abc#frag"));
        assert_eq!(err.url(), Some("https://agent.example/rpc"));
        let shown = err.to_string();
        assert!(!shown.contains("secret") && !shown.contains("abc"), "{shown}");
        assert!(!format!("{err:?}").contains("secret"));
    }

    #[test]
    fn card_signature_refusals_are_their_own_kind_and_never_retried() {
        let err = Error::card_signature(card_signature::CardSignatureError::unsigned())
            .with_url("https://a.example/.well-known/agent-card.json");
        assert_eq!(err.kind(), ErrorKind::CardSignature);
        assert!(!err.is_retryable());
        assert!(err.card_signature_error().is_some_and(|e| e.is_unsigned()));
        assert_eq!(
            err.to_string(),
            "agent card signature check failed (https://a.example/.well-known/agent-card.json)"
        );
        let source = err.source().map(ToString::to_string).unwrap_or_default();
        assert_eq!(source, "the card has no signature and the policy requires one");
    }

    #[test]
    fn a_timeout_after_retries_says_the_attempts_the_total_time_and_the_bound_of_each() {
        let err = Error::timeout(std::time::Duration::from_secs(2))
            .with_url("http://a.example/rpc")
            .with_attempts(3, std::time::Duration::from_millis(6300));
        assert_eq!(
            err.to_string(),
            "transport fault: timed out after 3 attempts in 6.3 s in all, each bounded by the request \
             timeout of 2 s (http://a.example/rpc)"
        );
        let source = err.source().map(ToString::to_string).unwrap_or_default();
        assert_eq!(source, "no complete answer within the request timeout of 2 s");
        let two = std::time::Duration::from_secs(2);
        let once = Error::timeout(two).with_attempts(1, two);
        assert_eq!(once.to_string(), "transport fault: timed out", "one attempt is not counted out loud");
    }

    #[test]
    fn display_is_lowercase_without_trailing_period() {
        let errors = [
            Error::from_status(503, Some("http://a.example/")),
            Error::from_status(404, None),
            Error::config("connect timeout must be positive"),
            Error::from(std::io::Error::from(std::io::ErrorKind::TimedOut)),
        ];
        for err in errors {
            let text = err.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }
}
