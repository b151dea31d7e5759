//! The default of every bound the client applies, in one place. [`crate::config`] re-exports them
//! beside the setters that change them; the modules that apply them (the cache, SSE, the push
//! receiver) read them from here, below the configuration.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

/// Default connect timeout: 10 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default whole-request timeout for non-streaming calls: 120 s. `SendMessage` blocks until the task
/// is terminal or interrupted unless `returnImmediately` is set, so this is long on purpose.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Default bound on one operation's attempts all together (a call and its retries, or opening a stream
/// and its retries): 150 s. [`DEFAULT_REQUEST_TIMEOUT`] bounds each attempt.
pub const DEFAULT_OPERATION_DEADLINE: Duration = Duration::from_secs(150);
/// Default SSE idle timeout: 60 s with no byte at all (the official Python server pings every 15 s).
pub const DEFAULT_SSE_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default largest SSE event: 8 MiB, the same as the largest JSON document `a2a_typestate_types::parse` accepts.
pub const DEFAULT_MAX_SSE_EVENT_BYTES: usize = a2a_typestate_types::parse::DEFAULT_MAX_DOCUMENT_BYTES;
/// Default first `GetTask` poll delay: 500 ms.
pub const DEFAULT_POLL_INITIAL: Duration = Duration::from_millis(500);
/// Default factor each poll delay grows by: 2.
pub const DEFAULT_POLL_BACKOFF_FACTOR: f64 = 2.0;
/// Default longest poll delay: 2 s, the verifier's default poll interval (`a2a_typestate::Bounds`).
pub const DEFAULT_POLL_CAP: Duration = Duration::from_secs(2);
/// Default `pageSize` of a listing that pages for the caller ([`crate::TaskPages`]) when its request
/// sets none: 50, the spec's own default (it allows 1 to 100).
pub const DEFAULT_LIST_PAGE_SIZE: i32 = 50;
/// Default bound on the pages one listing reads ([`TaskBudget::pages`](crate::TaskBudget::pages),
/// [`crate::TaskPages::max_pages`] for one listing): 1,000, so 50,000
/// tasks at the default page size. An agent that keeps handing out new page tokens ends there, with
/// an error, instead of being followed forever.
pub const DEFAULT_MAX_LIST_PAGES: u32 = 1_000;
/// Default bound after which a task with no observable progress (no new state, question or
/// artifact since the client last acted) is a lifecycle fault, on every channel: 30 s, as
/// `a2a_typestate::Bounds`.
pub const DEFAULT_UNOBSERVABLE_BOUND: Duration = Duration::from_secs(30);
/// Default deadline of one whole task, however much progress it shows: 300 s, as
/// `a2a_typestate::Bounds`.
pub const DEFAULT_TASK_DEADLINE: Duration = Duration::from_secs(300);
/// Default bound for the first push callback to arrive after the task's terminal transition: 10 s,
/// as `a2a_typestate::Bounds` (the official servers POST as each event happens).
pub const DEFAULT_PUSH_ARRIVAL_BOUND: Duration = Duration::from_secs(10);
/// Default bound on the observations one task keeps ([`TaskBudget`](crate::TaskBudget)): 10,000.
/// An event that repeats the one before it (the same state, nothing new) is counted, never kept, so
/// only events that say something new spend it; past it events are counted only.
pub const DEFAULT_EVENTS_KEPT: usize = 10_000;
/// Default bound on the bytes of artifacts one task keeps ([`TaskBudget`](crate::TaskBudget)): 64 MiB.
pub const DEFAULT_RESULT_BYTES: usize = 64 * 1024 * 1024;
/// Default bound on the declared interfaces one task tries ([`TaskBudget`](crate::TaskBudget)): 8.
/// A card may declare thousands; trying each costs a connect timeout.
pub const DEFAULT_INTERFACES_TRIED: u32 = 8;
/// Default lifetime of a discovered card when the server sends no `Cache-Control`: 300 s.
pub const DEFAULT_DISCOVERY_TTL: Duration = Duration::from_secs(300);
/// Default lifetime of a capability-suspect mark: 1 h.
pub const DEFAULT_SUSPECT_TTL: Duration = Duration::from_secs(3600);
/// Default longest wait of a task for another task's negotiation of the same claims with the same
/// agent (single-flight negotiation, [`ClientBuilder::negotiation_wait`](crate::ClientBuilder::negotiation_wait)): 10 s.
pub const DEFAULT_NEGOTIATION_WAIT: Duration = Duration::from_secs(10);
/// Default count of tasks in a row to one agent ending in a transport fault that opens its
/// availability breaker ([`Breaker`](crate::Breaker)): 3.
pub const DEFAULT_BREAKER_FAILURES: u32 = 3;
/// Default time an open availability breaker holds an agent unavailable before one task probes it:
/// 30 s.
pub const DEFAULT_BREAKER_COOL_DOWN: Duration = Duration::from_secs(30);
/// Default address of the push webhook receiver: `127.0.0.1:0` (loopback, any free port).
pub const DEFAULT_WEBHOOK_ADDR: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 0);

/// Bytes of response bodies (cards and answers) one client reads and parses at once: 64 MiB, eight
/// bodies of the largest size. Further reads wait for room within their own bound.
pub const DEFAULT_DOCUMENT_BUDGET: usize = 64 * 1024 * 1024;
