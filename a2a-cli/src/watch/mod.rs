//! `a2a watch FILE|URL...`: a fleet audited again and again, its history kept, and shown on one page
//! and in Prometheus metrics served by the same process.
//!
//! Each agent is audited as `a2a audit` audits it ([`a2a_typestate_client::audit::Auditor`]), on a schedule (every
//! [`WatchOptions::interval`], plus up to [`WatchOptions::jitter`] at random so a fleet's audits
//! spread out) and again as soon as its card changes: the card is fetched every
//! [`WatchOptions::card_check`] with `If-None-Match`, and a new `ETag` or a new body (by digest) is a
//! change. Never more than [`WatchOptions::concurrency`] audits run at once, never two of one agent
//! within [`WatchOptions::min_interval`], and an audit that outlives [`WatchOptions::audit_timeout`]
//! is abandoned and counted as an error, so a stuck agent never holds up the others.
//!
//! The verdicts are read from the audit's report by claim name, whatever claims the audit checks.
//! What is kept and for how long: [`store`](self#store). The page and `/metrics` are served on one
//! address, loopback by default; bound elsewhere, a token is required to read anything.
//!
//! ```no_run
//! use a2a_typestate::Deployment;
//! use a2a_typestate_cli::watch::{Watch, WatchOptions};
//! # #[tokio::main] async fn main() -> Result<(), String> {
//! let agents = vec![("http://127.0.0.1:8000".to_owned(), Deployment::Direct)];
//! let watch = Watch::start(agents, WatchOptions::default()).await?;
//! println!("the fleet is at {}", watch.url());
//! watch.stop().await;
//! # Ok(()) }
//! ```
//!
//! # Store
//!
//! Per agent: each claim's verdict and since when it has held, and the last
//! [`Retention::keep`] entries (audits, card changes) no older than [`Retention::max_age`], each
//! refusal with its evidence; kept in memory and written through to an embedded file
//! ([`WatchOptions::store`]) so a restarted watch still knows since when a verdict holds. With
//! [`WatchOptions::redis`], the history is kept in the Redis orchestrator replicas share (and read
//! back at start), and the suspect marks they share there (the keys
//! [`a2a_typestate_client::shared::redis::RedisBackend`] writes) are read every card check and shown
//! beside the watch's own verdicts.
//!
//! With the feature `otel`, the same state is also offered as OpenTelemetry instruments of the
//! global meter provider (`otel`).

mod hosts;
mod metrics;
#[cfg(feature = "otel")]
pub mod otel;
mod page;
mod replicas;
mod server;
mod store;
mod strip;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use a2a_typestate::Deployment;
use a2a_typestate_client::net::{HttpClient, http};
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use store::Retention;

use a2a_typestate_client::audit::{AgentAudit, AuditOptions};

use crate::cli::CredentialArgs;
use crate::cli::WatchArgs;
use store::{ClaimSeen, Entry, Fleet, now_ms};

/// Exit status when the watch cannot start (bad arguments, a port taken, a store that cannot open).
pub const EXIT_CANNOT_START: u8 = crate::exit::Exit::NoResult.code();

/// The largest card the watch reads when checking for a change: 8 MiB, as discovery.
const CARD_MAX_BYTES: usize = 8 * 1024 * 1024;

/// How a watch runs.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// How often each agent is audited again.
    pub interval: Duration,
    /// Up to this much is added at random to each agent's next audit.
    pub jitter: Duration,
    /// How often each agent's card is fetched to see whether it changed.
    pub card_check: Duration,
    /// The shortest time between two audits of one agent.
    pub min_interval: Duration,
    /// Audits run at once.
    pub concurrency: usize,
    /// The longest one audit may take before it is abandoned (an error, not a verdict).
    pub audit_timeout: Duration,
    /// Where the page and `/metrics` are served.
    pub listen: SocketAddr,
    /// The token readers must give; required when `listen` is not loopback.
    pub token: Option<String>,
    /// Names (`host` or `host:port`) the server answers besides those of `listen`: requests whose
    /// `Host` names anything else are refused (421), so a page that rebinds its own name to the
    /// watch's address cannot read it.
    pub allowed_hosts: Vec<String>,
    /// The embedded store's file; `None` keeps the history in memory only.
    pub store: Option<PathBuf>,
    /// How much history is kept.
    pub retention: Retention,
    /// The Redis the replicas share marks through, and their key prefix: their marks are shown, and
    /// the history is kept there too (read back at start).
    pub redis: Option<(String, String)>,
    /// How each audit runs (its bounds; its own concurrency is one agent).
    pub audit: AuditOptions,
    /// The credentials each audit sends to agents that require them (none by default).
    pub credentials: CredentialArgs,
}

impl Default for WatchOptions {
    /// Every 5 minutes with up to 10 s of jitter, cards checked every 30 s, at least 30 s between two
    /// audits of an agent, 4 audits at once, each within 2 minutes, on `127.0.0.1:9464` without a
    /// token, history in memory (500 entries per agent, 30 days), no Redis.
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(300),
            jitter: Duration::from_secs(10),
            card_check: Duration::from_secs(30),
            min_interval: Duration::from_secs(30),
            concurrency: 4,
            audit_timeout: Duration::from_secs(120),
            listen: SocketAddr::from(([127, 0, 0, 1], 9464)),
            token: None,
            allowed_hosts: Vec::new(),
            store: None,
            retention: Retention { keep: 500, max_age: Duration::from_secs(30 * 86_400) },
            redis: None,
            audit: AuditOptions::default(),
            credentials: CredentialArgs::default(),
        }
    }
}

/// What the scheduler and the server share.
#[derive(Debug)]
struct Shared {
    fleet: Mutex<Fleet>,
    /// The fleet's version, sent at every change (the page's live updates).
    updates: watch::Sender<u64>,
    token: Option<String>,
    /// The `Host` names the server answers.
    hosts: hosts::AllowedHosts,
}

impl Shared {
    fn fleet(&self) -> MutexGuard<'_, Fleet> {
        // A panic while holding the lock leaves plain data behind: keep serving it.
        self.fleet.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Changes the fleet with `change`, then tells the page.
    fn update(&self, change: impl FnOnce(&mut Fleet)) {
        let version = {
            let mut fleet = self.fleet();
            change(&mut fleet);
            fleet.version
        };
        self.updates.send_if_modified(|current| std::mem::replace(current, version) != version);
    }
}

/// A running watch: its scheduler and its server.
#[derive(Debug)]
pub struct Watch {
    address: SocketAddr,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Watch {
    /// Opens the store, binds the server and starts auditing `agents`.
    ///
    /// # Errors
    /// A message saying what is wrong: no agent, a zero bound, a non-loopback address without a
    /// token, an address that cannot be bound, a store that cannot be opened.
    pub async fn start(agents: Vec<(String, Deployment)>, options: WatchOptions) -> Result<Self, String> {
        if agents.is_empty() {
            return Err("no agent to watch (give URLs or files listing them)".to_owned());
        }
        for (name, bound) in [
            ("the interval", options.interval),
            ("the card check", options.card_check),
            ("the audit timeout", options.audit_timeout),
        ] {
            if bound.is_zero() {
                return Err(format!("{name} is zero: it must be positive"));
            }
        }
        if options.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err("the token is empty".to_owned());
        }
        if !options.listen.ip().is_loopback() && options.token.is_none() {
            return Err(format!(
                "{} is not a loopback address: give a token (--token-env NAME) so that only its holders can read the fleet",
                options.listen
            ));
        }
        let mut fleet = Fleet::open(&agents, options.retention, options.store.as_deref())?;
        let mut to_redis = None;
        if let Some((url, prefix)) = &options.redis {
            let urls: Vec<String> = agents.iter().map(|(url, _)| url.clone()).collect();
            let histories = replicas::read_history(url, prefix, &urls, options.retention.keep).await?;
            for (index, entries) in histories.into_iter().enumerate() {
                fleet.load(index, entries);
            }
            let (writer, entries) = mpsc::channel(replicas::WRITE_QUEUE);
            fleet.write_to(writer);
            to_redis = Some(entries);
        }
        let listener = server::bind(options.listen).await?;
        let address = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?;
        let card_client = a2a_typestate_client::Client::builder()
            .request_timeout(options.audit.request_timeout)
            .build()
            .map_err(|e| {
                format!("cannot build the HTTP client: {}", a2a_typestate_client::text::one_line(&e))
            })?;
        let (updates, _) = watch::channel(fleet.version);
        let hosts = hosts::AllowedHosts::new(address, &options.allowed_hosts);
        let shared =
            Arc::new(Shared { fleet: Mutex::new(fleet), updates, token: options.token.clone(), hosts });
        let (stop, stopped) = watch::channel(false);
        let mut tasks = vec![tokio::spawn(server::serve(listener, Arc::clone(&shared), stopped.clone()))];
        if let (Some((url, prefix)), Some(entries)) = (&options.redis, to_redis) {
            tasks.push(tokio::spawn(replicas::write_history(
                url.clone(),
                prefix.clone(),
                options.retention,
                entries,
                Arc::clone(&shared),
                stopped.clone(),
            )));
            tasks.push(tokio::spawn(replicas::follow(
                url.clone(),
                prefix.clone(),
                options.card_check,
                Arc::clone(&shared),
                stopped.clone(),
            )));
        }
        let scheduler = Scheduler::new(agents, options, card_client.http_client().clone(), shared);
        tasks.push(tokio::spawn(scheduler.run(stopped)));
        Ok(Self { address, stop, tasks })
    }

    /// Where the page and `/metrics` are served.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The page's URL (`http://ADDR/`).
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Stops auditing and serving (audits under way are abandoned) and waits for both to end.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

/// One agent's place in the schedule.
#[derive(Debug)]
struct Slot {
    url: String,
    deployment: Deployment,
    next_audit: Instant,
    last_start: Option<Instant>,
    auditing: bool,
    card_url: Option<String>,
    next_card_check: Instant,
    checking: bool,
    etag: Option<String>,
    digest: Option<String>,
}

/// What a finished job reports.
enum Done {
    Audit { index: usize, at_ms: u64, duration: Duration, audited: Option<Box<AgentAudit>> },
    Card { index: usize, result: Result<Option<(Option<String>, String)>, String> },
}

struct Scheduler {
    slots: Vec<Slot>,
    #[cfg(feature = "otel")]
    instruments: otel::Instruments,
    options: WatchOptions,
    http: HttpClient,
    shared: Arc<Shared>,
    audits: Arc<Semaphore>,
    random: RandomState,
    draws: u64,
}

impl Scheduler {
    fn new(
        agents: Vec<(String, Deployment)>,
        options: WatchOptions,
        http: HttpClient,
        shared: Arc<Shared>,
    ) -> Self {
        let now = Instant::now();
        let mut scheduler = Self {
            slots: Vec::with_capacity(agents.len()),
            #[cfg(feature = "otel")]
            instruments: otel::Instruments::from_global(&shared),
            audits: Arc::new(Semaphore::new(options.concurrency.max(1))),
            options,
            http,
            shared,
            random: RandomState::new(),
            draws: 0,
        };
        for (url, deployment) in agents {
            let next_audit = now + scheduler.jitter();
            scheduler.slots.push(Slot {
                url,
                deployment,
                next_audit,
                last_start: None,
                auditing: false,
                card_url: None,
                next_card_check: now,
                checking: false,
                etag: None,
                digest: None,
            });
        }
        scheduler
    }

    /// A random delay up to the jitter.
    fn jitter(&mut self) -> Duration {
        let max = u64::try_from(self.options.jitter.as_millis()).unwrap_or(u64::MAX);
        if max == 0 {
            return Duration::ZERO;
        }
        let mut hasher = self.random.build_hasher();
        hasher.write_u64(self.draws);
        self.draws += 1;
        Duration::from_millis(hasher.finish() % max)
    }

    async fn run(mut self, mut stop: watch::Receiver<bool>) {
        // Each job sends one message; the channel holds two per agent (an audit and a card check).
        let (done_tx, mut done_rx) = mpsc::channel(self.slots.len() * 2);
        let mut jobs = tokio::task::JoinSet::new();
        loop {
            let now = Instant::now();
            let mut wake = now + Duration::from_secs(1);
            for index in 0..self.slots.len() {
                self.start_due(index, now, &done_tx, &mut jobs);
                let slot = &self.slots[index];
                if !slot.auditing {
                    let earliest = slot.last_start.map_or(now, |t| t + self.options.min_interval);
                    wake = wake.min(slot.next_audit.max(earliest));
                    if slot.card_url.is_some() && !slot.checking {
                        wake = wake.min(slot.next_card_check);
                    }
                }
            }
            while jobs.try_join_next().is_some() {}
            tokio::select! {
                () = tokio::time::sleep_until(wake) => {}
                Some(done) = done_rx.recv() => self.finish(done),
                _ = stop.changed() => break,
            }
        }
        jobs.abort_all();
        while jobs.join_next().await.is_some() {}
    }

    /// Starts agent `index`'s audit or card check when due.
    fn start_due(
        &mut self,
        index: usize,
        now: Instant,
        done: &mpsc::Sender<Done>,
        jobs: &mut tokio::task::JoinSet<()>,
    ) {
        let min_interval = self.options.min_interval;
        let slot = &mut self.slots[index];
        let rested = slot.last_start.is_none_or(|t| now >= t + min_interval);
        if !slot.auditing && now >= slot.next_audit && rested {
            slot.auditing = true;
            slot.last_start = Some(now);
            let (url, deployment) = (slot.url.clone(), slot.deployment);
            let (options, credentials) = (self.options.audit.clone(), self.options.credentials.clone());
            let timeout = self.options.audit_timeout;
            let (permits, done) = (Arc::clone(&self.audits), done.clone());
            jobs.spawn(async move {
                let Ok(_permit) = permits.acquire_owned().await else { return };
                let (at_ms, started) = (now_ms(), Instant::now());
                let audited =
                    tokio::time::timeout(timeout, audit_one(url, deployment, options, &credentials))
                        .await
                        .ok();
                let _ = done.send(Done::Audit { index, at_ms, duration: started.elapsed(), audited }).await;
            });
        }
        let slot = &mut self.slots[index];
        if !slot.auditing
            && !slot.checking
            && now >= slot.next_card_check
            && let Some(card_url) = slot.card_url.clone()
        {
            slot.checking = true;
            let (http, etag, done) = (self.http.clone(), slot.etag.clone(), done.clone());
            let timeout = self.options.audit.request_timeout;
            jobs.spawn(async move {
                let result = match tokio::time::timeout(
                    timeout,
                    fetch_card(&http, &card_url, etag.as_deref()),
                )
                .await
                {
                    Ok(result) => result,
                    Err(_) => Err(format!(
                        "the card did not arrive within {}",
                        a2a_typestate_types::human::HumanDuration(timeout)
                    )),
                };
                let _ = done.send(Done::Card { index, result }).await;
            });
        }
    }

    fn finish(&mut self, done: Done) {
        match done {
            Done::Audit { index, at_ms, duration, audited } => {
                let now = Instant::now();
                let next = now + self.options.interval + self.jitter();
                let slot = &mut self.slots[index];
                slot.auditing = false;
                slot.next_audit = next;
                #[cfg(feature = "otel")]
                self.instruments.audit(&slot.url, duration);
                let entry = match &audited {
                    Some(audited) => {
                        if let Some(card_url) = &audited.card_url
                            && slot.card_url.as_ref() != Some(card_url)
                        {
                            slot.card_url = Some(card_url.clone());
                            slot.next_card_check = now;
                        }
                        entry_of(audited, at_ms, duration)
                    }
                    None => Entry::Audit {
                        at_ms,
                        duration_ms: millis(duration),
                        name: None,
                        claims: Vec::new(),
                        error: Some(format!(
                            "the audit did not end within {} and was abandoned",
                            a2a_typestate_types::human::HumanDuration(self.options.audit_timeout)
                        )),
                        evidence: None,
                    },
                };
                let error_kind = match (&audited, &entry) {
                    (None, _) => Some("timeout"),
                    (Some(_), Entry::Audit { error: Some(_), .. }) => Some("not_audited"),
                    _ => None,
                };
                let claims = match &entry {
                    Entry::Audit { claims, .. } => claims.clone(),
                    Entry::Card { .. } => Vec::new(),
                };
                self.shared.update(|fleet| {
                    fleet.count_audit(index, duration, &claims, error_kind);
                    fleet.record(index, entry);
                });
            }
            Done::Card { index, result } => {
                let now = Instant::now();
                let slot = &mut self.slots[index];
                slot.checking = false;
                slot.next_card_check = now + self.options.card_check;
                match result {
                    Ok(None) => {}
                    Ok(Some((etag, digest))) => {
                        let first = slot.digest.is_none();
                        let changed = first || slot.digest.as_ref() != Some(&digest) || slot.etag != etag;
                        if changed {
                            slot.etag.clone_from(&etag);
                            slot.digest = Some(digest.clone());
                            if !first {
                                // Audited again as soon as the minimum interval allows.
                                slot.next_audit = now;
                            }
                            let entry = Entry::Card { at_ms: now_ms(), etag, digest, first };
                            self.shared.update(|fleet| {
                                if !first && let Some(agent) = fleet.agents.get_mut(index) {
                                    agent.counters.card_changes += 1;
                                }
                                fleet.record(index, entry);
                            });
                        }
                    }
                    Err(_) => self.shared.update(|fleet| fleet.count_card_error(index)),
                }
            }
        }
    }
}

/// One agent audited as `a2a audit` audits it: a client of its own (a fresh discovery cache, so a
/// changed card is read anew; suspect marks off, so each claim is probed).
async fn audit_one(
    url: String,
    deployment: Deployment,
    options: AuditOptions,
    credentials: &CredentialArgs,
) -> Box<AgentAudit> {
    let audited = match crate::audit::auditor(credentials, &[url.as_str()], options).await {
        Ok(auditor) => auditor.agent(&url, deployment).await,
        Err(e) => AgentAudit::not_audited(&url, e),
    };
    Box::new(audited)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// FNV-1a, 64 bits, as hex: the card body's digest (a change detector, not a security check).
fn digest(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("fnv64:{hash:016x}")
}

/// Fetches the card at `url` with `If-None-Match: etag`: `None` when the server says it has not
/// changed (304), else its `ETag` and digest.
async fn fetch_card(
    http: &HttpClient,
    url: &str,
    etag: Option<&str>,
) -> Result<Option<(Option<String>, String)>, String> {
    let mut request = http::Request::get(url);
    if let Some(etag) = etag {
        request = request.header(http::header::IF_NONE_MATCH, etag);
    }
    let request = request.body(Bytes::new()).map_err(|e| format!("{url} cannot be requested: {e}"))?;
    let response = http.send(request).await.map_err(|e| a2a_typestate_client::text::one_line(&e))?;
    if response.status() == http::StatusCode::NOT_MODIFIED {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(format!("{url} answered {}", response.status()));
    }
    let etag = response.headers().get(http::header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body =
        response.bytes(CARD_MAX_BYTES, url).await.map_err(|e| a2a_typestate_client::text::one_line(&e))?;
    Ok(Some((etag, digest(&body))))
}

/// The text of a JSON string field (empty when absent or not a string).
fn field<'a>(value: &'a Value, name: &str) -> &'a str {
    value.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// What an audit found, as the watch keeps it: each claim by the name the report gives it, its
/// verdict, and, when a claim was refused, the evidence (cut to the store's bound). The card's name
/// and each reason are cut as the terminal output cuts them, so an agent's long text costs each
/// entry a bounded size.
fn entry_of(audited: &AgentAudit, at_ms: u64, duration: Duration) -> Entry {
    let report = serde_json::to_value(audited).unwrap_or(Value::Null);
    let reported = report.get("claims").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut claims: Vec<ClaimSeen> = reported
        .iter()
        .map(|claim| {
            let name = claim.get("capability").or_else(|| claim.get("claim")).and_then(Value::as_str);
            let verdict = field(claim, "verdict");
            let detail = if verdict == "refused" {
                format!(
                    "{}: {} ({})",
                    field(claim, "lie"),
                    field(claim, "contradiction"),
                    field(claim, "evidence")
                )
            } else {
                [field(claim, "evidence"), field(claim, "reason")].concat()
            };
            ClaimSeen {
                claim: a2a_typestate_client::text::label(name.unwrap_or("claim")),
                verdict: verdict.to_owned(),
                detail: a2a_typestate_client::text::message(&detail),
            }
        })
        .collect();
    let card_claims = report.get("cardClaims").and_then(Value::as_array).cloned().unwrap_or_default();
    claims.extend(card_claims_by_kind(&card_claims));
    let refused: Vec<Value> =
        reported.into_iter().chain(card_claims).filter(|c| field(c, "verdict") == "refused").collect();
    let evidence = (!refused.is_empty()).then(|| {
        let whole = serde_json::json!({
            "refused": refused,
            "timeline": report.get("timeline"),
            "claimProbes": report.get("claimProbes"),
        });
        let size = serde_json::to_vec(&whole).map_or(0, |b| b.len());
        if size <= store::EVIDENCE_MAX_BYTES {
            whole
        } else {
            let cut: Vec<Value> = refused
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "capability": c.get("capability").or_else(|| c.get("claim")),
                        "lie": a2a_typestate_client::text::message(field(c, "lie")),
                        "contradiction": a2a_typestate_client::text::message(field(c, "contradiction")),
                        "evidence": a2a_typestate_client::text::message(field(c, "evidence")),
                    })
                })
                .collect();
            serde_json::json!({
                "refused": cut,
                "cut": format!("the probes' timelines ({size} bytes) are over the {} bytes kept per refusal", store::EVIDENCE_MAX_BYTES),
            })
        }
    });
    Entry::Audit {
        at_ms,
        duration_ms: millis(duration),
        // Agent text, kept in every entry: cut as a table cell and a message are.
        name: audited.name.as_deref().map(a2a_typestate_client::text::label),
        claims,
        error: audited.error.as_deref().map(a2a_typestate_client::text::message),
        evidence,
    }
}

/// The card claims beyond the lifecycle (`extended-card`, `interfaces`, `extensions`,
/// `output-modes`, `security`), one per kind as the page shows them: the worst verdict of the
/// kind's claims (refused over anything unsettled over verified), and each claim's own word.
fn card_claims_by_kind(card_claims: &[Value]) -> Vec<ClaimSeen> {
    let rank = |verdict: &str| match verdict {
        "verified" => 0,
        "refused" => 2,
        _ => 1,
    };
    let mut kinds: Vec<ClaimSeen> = Vec::new();
    for claim in card_claims {
        let kind = a2a_typestate_client::text::label(field(claim, "kind"));
        let verdict = field(claim, "verdict");
        let said = format!(
            "{}: {verdict} {}{}",
            field(claim, "claim"),
            field(claim, "evidence"),
            field(claim, "reason")
        );
        match kinds.iter_mut().find(|k| k.claim == kind) {
            Some(seen) => {
                if rank(verdict) > rank(&seen.verdict) {
                    verdict.clone_into(&mut seen.verdict);
                }
                seen.detail = a2a_typestate_client::text::message(&format!("{}; {said}", seen.detail));
            }
            None => kinds.push(ClaimSeen {
                claim: kind,
                verdict: verdict.to_owned(),
                detail: a2a_typestate_client::text::message(&said),
            }),
        }
    }
    kinds
}

/// The agents named by `args`: URLs as they are, anything else read as an agents file.
fn agents_of(args: &WatchArgs) -> Result<Vec<(String, Deployment)>, String> {
    let mut agents = Vec::new();
    for given in &args.agents {
        if given.starts_with("http://") || given.starts_with("https://") {
            agents.push((given.clone(), Deployment::Direct));
        } else {
            agents.extend(crate::audit::read_agent_file(std::path::Path::new(given))?);
        }
    }
    agents.extend(args.gateways.iter().map(|url| (url.clone(), Deployment::Gateway)));
    Ok(agents)
}

/// The history store's file when `--store` names none: `a2a/watch.redb` under the user's data
/// directory (`$XDG_DATA_HOME`, else `~/.local/share`), the directory created, so a watch started
/// from any folder finds the history it kept before.
///
/// # Errors
/// A message when neither variable names a directory, or the directory cannot be created.
fn default_store() -> Result<PathBuf, String> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let data = set("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|home| home.join(".local").join("share")))
        .ok_or("no data directory: neither XDG_DATA_HOME nor HOME is set (name a file with --store)")?;
    let dir = data.join("a2a");
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!("cannot create {} for the history store: {e} (name a file with --store)", dir.display())
    })?;
    Ok(dir.join("watch.redb"))
}

/// The options `args` ask for.
///
/// # Errors
/// A message naming the token's variable when it is not set, or when the default store's
/// directory cannot be made.
fn options_of(args: &WatchArgs) -> Result<WatchOptions, String> {
    let token = match &args.token_env {
        Some(name) => Some(
            std::env::var(name)
                .map_err(|_| format!("--token-env: environment variable {name} is not set"))?,
        ),
        None => None,
    };
    Ok(WatchOptions {
        interval: args.interval,
        jitter: args.jitter,
        card_check: args.card_check,
        min_interval: args.min_interval,
        concurrency: usize::try_from(args.concurrency).unwrap_or(1).max(1),
        audit_timeout: args.audit_timeout,
        listen: args.listen,
        token,
        allowed_hosts: args.allowed_hosts.clone(),
        // One store: the Redis when given, else the file.
        store: match (&args.redis, &args.store) {
            (Some(_), _) => None,
            (None, Some(path)) => Some(path.clone()),
            (None, None) => Some(default_store()?),
        },
        retention: Retention {
            keep: usize::try_from(args.keep).unwrap_or(usize::MAX),
            max_age: Duration::from_secs(u64::from(args.keep_days) * 86_400),
        },
        redis: args.redis.clone().map(|url| (url, args.redis_key_prefix.clone())),
        audit: AuditOptions {
            push_arrival_bound: args.push_arrival_bound,
            request_timeout: args.request_timeout,
            deadline: args.audit_timeout,
            working_bound: args.working_bound,
            concurrency: 1,
            ..AuditOptions::default()
        },
        credentials: args.credentials.clone(),
    })
}

/// Runs `a2a watch` until interrupted (Ctrl-C or SIGTERM).
pub async fn run_command(args: &WatchArgs, err: &mut dyn Write) -> ExitCode {
    let mut store = None;
    let started = match agents_of(args).and_then(|agents| Ok((agents, options_of(args)?))) {
        Ok((agents, options)) => {
            store.clone_from(&options.store);
            Watch::start(agents, options).await
        }
        Err(e) => Err(e),
    };
    let watch = match started {
        Ok(watch) => watch,
        Err(e) => {
            let _ = writeln!(err, "a2a watch: {e}");
            return ExitCode::from(EXIT_CANNOT_START);
        }
    };
    let _ = writeln!(err, "a2a watch: the fleet is at {} (metrics at {}metrics)", watch.url(), watch.url());
    if let Some(store) = store {
        let _ = writeln!(err, "a2a watch: the history is kept in {}", store.display());
    }
    crate::shutdown_signal().await;
    watch.stop().await;
    crate::exit::Exit::Done.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_long_text_costs_each_entry_a_bounded_size() {
        let mut audited = AgentAudit::not_audited("http://a", "e".repeat(1_000_000));
        audited.name = Some("n".repeat(1_000_000));
        let entry = entry_of(&audited, 0, Duration::from_millis(1));
        let size = serde_json::to_vec(&entry).unwrap().len();
        assert!(size < 4 * a2a_typestate_client::text::MESSAGE_MAX_CHARS, "{size} bytes");
        let Entry::Audit { name, error, .. } = entry else { panic!("an audit entry") };
        assert!(name.unwrap().ends_with("more characters)"));
        assert!(error.unwrap().ends_with("more characters)"));
    }

    #[test]
    fn a_changed_body_has_another_digest() {
        assert_ne!(digest(b"{\"name\":\"a\"}"), digest(b"{\"name\":\"b\"}"));
        assert_eq!(digest(b""), "fnv64:cbf29ce484222325");
    }
}
