//! Audits: discover each agent, run one short probe task that depends on every claim its
//! card makes, and report each declared capability as verified, refused (with the evidence), not
//! exercised, unverified or unverifiable; beside the verdicts, the wire deviations the agent's
//! answers carried (read tolerantly, reported apart from the claims), and which of the extensions
//! the card declares the agent activated when the probes asked for them. When that probe refused a
//! claim, each claim it left unsettled is probed again on its own (one task per claim), so every
//! lie the card tells is reported with its own evidence. Beside the lifecycle claims, the card's
//! other claims (extended card, extensions, interfaces, output modes, security) are checked from
//! calls that change nothing at the agent and from the probe's answers (`card_claims`).
//!
//! What the audit found, worst first ([`AuditReport::finding`]): an agent over-declares (a claim
//! was refused), an agent could not be audited (no card, unreachable, a lifecycle fault ended the
//! probe), or, when [`AuditOptions::strict`] says so, an agent's answers deviated from the 1.0 wire
//! format (each deviation listed with its call, event number and JSON path). The `a2a audit`
//! command is this module with a table, JSON, JUnit or HTML around it, and its exit status is the
//! finding.
//!
//! ```
//! use a2a_typestate_client::audit::{AuditFinding, AuditOptions, audit};
//! use a2a_typestate_client::{Capability, Deployment};
//! # use a2a_testkit::{Lie, Script, ScriptedAgent};
//! # #[tokio::main] async fn main() -> Result<(), a2a_testkit::TestkitError> {
//! # // An agent whose card claims streaming and whose streaming calls answer -32004.
//! # let liar = ScriptedAgent::builder().script(Script::honest().with(Lie::StreamingRefused)).spawn().await?;
//! # let url = liar.base_url();
//! let report = audit(&[(url, Deployment::Direct)], &AuditOptions::default()).await;
//! assert_eq!(report.finding(), AuditFinding::OverDeclares);
//! assert!(report.agents[0].over_declares.contains(Capability::Streaming));
//! # Ok(()) }
//! ```
//!
//! [`Auditor`] is the same audit with a client of the caller's (credentials, trusted roots, default
//! headers), one agent at a time or a fleet as a stream of verdicts in the order given.

mod card_claims;
mod evidence;
mod probe;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_typestate::{Capability, CapabilitySet, ClaimKind, Deployment};
use futures::{Stream, StreamExt};
use serde::Serialize;

use crate::discovery::base_url_of;
use crate::negotiate::record::{self, Ending};
use crate::text;
use crate::{
    CallOptions, Client, ClientBuilder, Error, PollCadence, PushReceiver, SuspectMarks, WireReading,
};

pub use card_claims::{CardClaimAudit, CardClaimOutcome};
pub use evidence::TimelineEntry;
pub use probe::ClaimProbe;

/// Agents audited at once unless [`AuditOptions::concurrency`] says otherwise: 8.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// The longest one agent's audit takes unless [`AuditOptions::deadline`] says otherwise: 3 minutes.
pub const DEFAULT_AGENT_DEADLINE: Duration = Duration::from_secs(180);

/// How the audit runs.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// How long a push callback may take before the push claim is refused.
    pub push_arrival_bound: Duration,
    /// Longest wait for any one request.
    pub request_timeout: Duration,
    /// Longest one agent's audit may take, its card and every probe together: a hung agent costs
    /// the audit no more.
    pub deadline: Duration,
    /// How long a task may stay `working` with nothing observable before the probe gives up.
    pub working_bound: Duration,
    /// Wire deviations are a finding of their own ([`AuditFinding::WireDeviations`]).
    pub strict: bool,
    /// Agents audited at once.
    pub concurrency: usize,
    /// Where the webhook receiver listens (one receiver for the whole audit); `None`: a loopback
    /// port per probe.
    pub webhook_listen: Option<SocketAddr>,
    /// The URL agents are given for the webhook (behind a proxy or NAT); `None`: the bound address.
    pub webhook_public_url: Option<String>,
    /// The card claims beyond the lifecycle to check (default: every kind).
    pub claims: Vec<ClaimKind>,
    /// Call every declared interface, not only the one the audit uses.
    pub all_interfaces: bool,
}

impl Default for AuditOptions {
    /// A 5 s push bound, a 30 s request timeout, a 3 min deadline per agent and a 30 s working
    /// bound, not strict, eight agents at once, a loopback webhook, every card claim, only the
    /// interface in use.
    fn default() -> Self {
        Self {
            push_arrival_bound: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            deadline: DEFAULT_AGENT_DEADLINE,
            working_bound: Duration::from_secs(30),
            strict: false,
            concurrency: DEFAULT_CONCURRENCY,
            webhook_listen: None,
            webhook_public_url: None,
            claims: ClaimKind::ALL.to_vec(),
            all_interfaces: false,
        }
    }
}

/// The audit of every agent asked for; also the `--format json` output.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    /// One entry per URL, in the order given.
    pub agents: Vec<AgentAudit>,
    /// How many agents over-declare (a lifecycle or a card claim refused).
    pub over_declaring: usize,
    /// How many agents could not be audited.
    pub not_audited: usize,
    /// How many wire deviations were read, over all agents.
    pub wire_deviations: usize,
    /// Whether wire deviations are a finding ([`AuditOptions::strict`]).
    pub strict: bool,
}

/// What an audit found, worst first: the first that applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditFinding {
    /// An agent over-declares: a lifecycle or a card claim was refused.
    OverDeclares,
    /// No agent over-declares, but one could not be audited.
    NotAudited,
    /// Only under [`AuditOptions::strict`]: nothing worse than wire deviations.
    WireDeviations,
    /// Every agent audited, none caught over-declaring.
    Clean,
}

impl AuditReport {
    /// The report on `agents`, each labelled so that every label names one agent (its card's name,
    /// or its URL when another agent's card has the same name or no card was read).
    pub fn new(mut agents: Vec<AgentAudit>, strict: bool) -> Self {
        label_agents(&mut agents);
        let over_declaring = agents.iter().filter(|a| a.over_declares_anything()).count();
        let not_audited = agents.iter().filter(|a| a.error.is_some()).count();
        let wire_deviations = agents.iter().map(|a| a.wire_deviations.len()).sum();
        Self { agents, over_declaring, not_audited, wire_deviations, strict }
    }

    /// What the audit found, worst first.
    pub fn finding(&self) -> AuditFinding {
        if self.over_declaring > 0 {
            AuditFinding::OverDeclares
        } else if self.not_audited > 0 {
            AuditFinding::NotAudited
        } else if self.strict && self.wire_deviations > 0 {
            AuditFinding::WireDeviations
        } else {
            AuditFinding::Clean
        }
    }
}

/// Labels each agent by its card's name, or by its URL when another agent's card has the same name
/// (or no card was read): every label in a report names one agent.
fn label_agents(agents: &mut [AgentAudit]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for agent in agents.iter() {
        if let Some(name) = &agent.name {
            *seen.entry(name.clone()).or_default() += 1;
        }
    }
    for agent in agents.iter_mut() {
        agent.label = match &agent.name {
            Some(name) if seen.get(name) == Some(&1) && !name.trim().is_empty() => name.clone(),
            _ => agent.url.clone(),
        };
    }
}

/// The audit of one agent.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentAudit {
    /// The URL as given (a password in it masked as `***`, as everywhere a typed URL is shown).
    pub url: String,
    /// The card's name (absent when no card was read).
    pub name: Option<String>,
    /// What reports call the agent: its card's name, or its URL when no card was read or when
    /// another audited agent's card has the same name.
    pub label: String,
    /// Where the card was read.
    pub card_url: Option<String>,
    /// The protocol versions the card's interfaces speak.
    pub protocol_versions: Vec<String>,
    /// Whether the card describes a gateway (its claims are then unverifiable).
    pub gateway: bool,
    /// One verdict per capability the card declares.
    pub claims: Vec<ClaimAudit>,
    /// The capabilities the agent was caught over-declaring.
    #[serde(serialize_with = "record::capability_fields")]
    pub over_declares: CapabilitySet,
    /// How the first probe task (depending on every claim) ended (absent when it could not be
    /// sent).
    pub probe: Option<ProbeSummary>,
    /// Why the agent could not be audited, if it could not.
    pub error: Option<String>,
    /// The lifecycle fault that ended the first probe, named (a bound ran out: not a lie).
    pub lifecycle_fault: Option<String>,
    /// Every attempt to register the first probe's webhook and what the agent answered.
    pub push_registration: Vec<String>,
    /// The deviations from the 1.0 wire format the agent's answers carried, read anyway (over all
    /// its probes).
    pub wire_deviations: Vec<DeviationReport>,
    /// What the first probe observed, in order, on each channel: the report's timeline.
    pub timeline: Vec<TimelineEntry>,
    /// After a refusal, one probe per claim the first probe left unsettled, each depending on that
    /// claim alone; its verdict is the one in `claims` (empty when nothing was refused).
    pub claim_probes: Vec<ClaimProbe>,
    /// Each extension the card declares (`capabilities.extensions[]`), all asked for on the probes,
    /// and whether the agent's answers said it activated it.
    pub extensions: Vec<ExtensionAudit>,
    /// The card's claims beyond the lifecycle (extended card, required extensions, interfaces,
    /// output modes, security), each with its verdict.
    pub card_claims: Vec<CardClaimAudit>,
}

impl AgentAudit {
    /// `true` when the audit caught the agent over-declaring: a lifecycle or a card claim refused.
    pub fn over_declares_anything(&self) -> bool {
        !self.over_declares.is_empty() || self.card_claims.iter().any(CardClaimAudit::is_refused)
    }
}

/// One extension the card declares, asked for on the audit's probes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionAudit {
    /// Its URI.
    pub uri: String,
    /// Whether the card marks it `required`.
    pub required: bool,
    /// Whether an answer to the probes named it in the extensions header (or gRPC metadata): not
    /// activated is no refusal, since an agent may activate an extension only for some requests.
    pub activated: bool,
}

impl AgentAudit {
    /// An agent that could not be audited, and why: nothing of it was read.
    pub fn not_audited(url: &str, error: String) -> Self {
        Self {
            url: url.to_owned(),
            name: None,
            label: url.to_owned(),
            card_url: None,
            protocol_versions: Vec::new(),
            gateway: false,
            claims: Vec::new(),
            over_declares: CapabilitySet::EMPTY,
            probe: None,
            error: Some(error),
            lifecycle_fault: None,
            push_registration: Vec::new(),
            wire_deviations: Vec::new(),
            timeline: Vec::new(),
            claim_probes: Vec::new(),
            extensions: Vec::new(),
            card_claims: Vec::new(),
        }
    }
}

/// One wire deviation, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviationReport {
    /// The call that received it.
    pub call: String,
    /// The event's number on that call's stream (from 1); absent for a plain answer.
    pub event: Option<u64>,
    /// The JSON path of the deviating value in the received document.
    pub path: String,
    /// The kind of deviation (`unwrapped-0.3-object`, `kind-field`, `lowercase-enum`, ...).
    pub kind: String,
    /// What came.
    pub found: String,
    /// How it was read.
    pub read_as: String,
}

/// The verdict on one declared capability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimAudit {
    /// The capability (its card field).
    #[serde(serialize_with = "record::capability_field")]
    pub capability: Capability,
    /// What the probe showed.
    #[serde(flatten)]
    pub verdict: ClaimVerdict,
}

/// What the probe showed about one declared capability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "camelCase")]
pub enum ClaimVerdict {
    /// The agent did what the card claims.
    Verified {
        /// The observation that settled it.
        evidence: String,
    },
    /// The agent contradicted the claim.
    Refused {
        /// The lie, named by its capability (`streaming declared but refused`, ...).
        lie: String,
        /// What was expected and what came.
        contradiction: String,
        /// The observation that showed it: the call or channel, the event number, when.
        evidence: String,
    },
    /// No call of the probe exercised the claim.
    NotExercised {
        /// Why not.
        reason: String,
    },
    /// A call exercised the claim, but the probe ended before it settled.
    Unverified {
        /// Where it stopped.
        reason: String,
    },
    /// The claim cannot be checked from here: the card describes a gateway, or the agent refused
    /// the webhook it would need.
    Unverifiable {
        /// Why, in the agent's words where it gave some.
        reason: String,
    },
}

/// How the probe task ended.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSummary {
    /// The ending (and its reason when it failed).
    #[serde(flatten)]
    pub ending: Ending,
    /// Requests made on the negotiation path (absent when the run failed before negotiating, e.g.
    /// while discovering the card).
    pub negotiation_round_trips: Option<u64>,
}

/// Audits each of `agents` (URL and how it is reached) with one client of the audit's own (a fresh
/// discovery cache, so nothing is suspect beforehand), [`AuditOptions::concurrency`] at once.
pub async fn audit(agents: &[(String, Deployment)], options: &AuditOptions) -> AuditReport {
    let audited = match Auditor::new(Client::builder(), options.clone()).await {
        Ok(auditor) => auditor.agents(agents).collect().await,
        Err(e) => {
            let why = text::one_line(&e);
            agents.iter().map(|(url, _)| AgentAudit::not_audited(url, why.clone())).collect()
        }
    };
    AuditReport::new(audited, options.strict)
}

/// Audits agents with one client: the caller's [`ClientBuilder`] (credentials, trusted roots,
/// default headers) with the audit's own settings on top.
#[derive(Debug)]
pub struct Auditor {
    client: Client,
    /// One webhook receiver for every probe when [`AuditOptions::webhook_listen`] names a fixed
    /// address (it binds once); `None`: a loopback port per probe.
    receiver: Option<Arc<PushReceiver>>,
    options: AuditOptions,
}

impl Auditor {
    /// The auditor: `builder` with the audit's settings on top. Its answers are read tolerantly and
    /// their deviations reported apart; suspect marks are off, since an audit's later probes exist
    /// to negotiate exactly the claims such a mark would skip (the cache is the auditor's own, so
    /// no mark would outlive it anyway, and a refusal still falls back).
    ///
    /// # Errors
    /// The client cannot be built from `builder` and `options` (a zero timeout, say), or the webhook
    /// receiver cannot listen on [`AuditOptions::webhook_listen`].
    pub async fn new(builder: ClientBuilder, options: AuditOptions) -> Result<Self, Error> {
        let cadence = PollCadence::new(Duration::from_millis(100), 2.0, Duration::from_secs(2))?;
        let mut builder = builder
            .push_arrival_bound(options.push_arrival_bound)
            .request_timeout(options.request_timeout)
            .task_deadline(options.deadline)
            .unobservable_bound(options.working_bound)
            .poll_cadence(cadence)
            .wire_reading(WireReading::Tolerant)
            .suspect_marks(SuspectMarks::Off);
        if let Some(addr) = options.webhook_listen {
            builder = builder.webhook_addr(addr);
        }
        if let Some(url) = &options.webhook_public_url {
            builder = builder.webhook_public_url(url.clone());
        }
        let client = builder.build()?;
        let receiver = match options.webhook_listen {
            Some(_) => Some(Arc::new(client.start_push_receiver().await?)),
            None => None,
        };
        Ok(Self { client, receiver, options })
    }

    /// The client the probes run on.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Audits one agent within [`AuditOptions::deadline`]: its card, then one probe task depending
    /// on every claim the card makes, and, when that probe refused a claim, one probe per claim it
    /// left unsettled; beside them, the card's other claims.
    pub async fn agent(&self, url: &str, deployment: Deployment) -> AgentAudit {
        let audit = audit_agent(&self.client, url, deployment, self.receiver.clone(), &self.options);
        match tokio::time::timeout(self.options.deadline, audit).await {
            Ok(audited) => audited,
            Err(_) => AgentAudit::not_audited(
                url,
                format!(
                    "not audited: the deadline of {} per agent passed",
                    a2a_typestate_types::human::HumanDuration(self.options.deadline)
                ),
            ),
        }
    }

    /// Audits each of `agents`, [`AuditOptions::concurrency`] at once, each verdict in the order
    /// given as soon as it and those before it are done; [`AuditReport::new`] makes the report.
    pub fn agents<'a>(&'a self, agents: &'a [(String, Deployment)]) -> impl Stream<Item = AgentAudit> + 'a {
        futures::stream::iter(agents)
            .map(move |(url, deployment)| self.agent(url, *deployment))
            .buffered(self.options.concurrency.max(1))
    }
}

async fn audit_agent(
    client: &Client,
    url: &str,
    deployment: Deployment,
    receiver: Option<Arc<PushReceiver>>,
    options: &AuditOptions,
) -> AgentAudit {
    let base = base_url_of(url);
    // One card per decision: the connection's card (the extended one, when credentials allow it,
    // since it may claim more) is the one reported, lifted and probed; every probe runs on that
    // connection, so a card served with `no-store` and changed between fetches cannot have one
    // copy audited while another copy's interface is called.
    // Why the card's extensions could not all be asked for, when they could not.
    let mut not_asked: Option<String> = None;
    let (target, discovered) = match client.connect(base).await {
        Ok(connection) => {
            let card = connection.card().clone();
            // Every extension the card declares is asked for on the probes, so the report can say
            // which the agent activated (and a required one does not stop the audit).
            let declared = card.card().capabilities.extensions.iter().map(|e| e.uri.clone());
            let connection = match connection.with_options(CallOptions::new().extensions(declared)) {
                Ok(asking) => asking,
                // A URI the extensions header cannot carry, or more than it may: probed without
                // asking, and the reason kept for the report.
                Err(error) => {
                    not_asked = Some(text::one_line(&error));
                    connection
                }
            };
            (probe::Target::Connection(connection), card)
        }
        // The card is there but cannot be connected to (no interface this client speaks, say): it
        // is still reported, and the probe says why it failed.
        // A transport fault leaves nothing to read: asking for the card again would cost the same
        // wait a second time.
        Err(connect_error) if connect_error.transport_fault().is_some() => {
            return AgentAudit::not_audited(
                url,
                text::card_fetch_error(base, &connect_error, text::one_line),
            );
        }
        Err(connect_error) => match client.discover(base).await {
            Ok(card) => (probe::Target::Address(base.to_owned()), card),
            Err(_) => {
                return AgentAudit::not_audited(
                    url,
                    text::card_fetch_error(base, &connect_error, text::one_line),
                );
            }
        },
    };
    let protocol_versions = match discovered.offered_interfaces() {
        Ok(offered) => {
            crate::discovery::protocol_versions(offered.iter().map(|i| i.protocol_version.as_str()))
        }
        Err(e) => return AgentAudit::not_audited(url, format!("the card cannot be used: {e}")),
    };
    // The claims discovery lifted (a signature that covers part of the card narrows them there).
    let lifted = discovered.claims(deployment);
    // What the card says, before the gateway rule empties it: a gateway's claims are reported too.
    let written: CapabilitySet =
        Capability::ALL.into_iter().filter(|c| discovered.declared(*c) == Some(true)).collect();
    let depends: Vec<Capability> = lifted.declared().iter().collect();
    // The first probe accepts only the card's output modes, so its answer checks them.
    let accepted: Vec<String> = if options.claims.contains(&ClaimKind::OutputModes) && !lifted.is_gateway() {
        discovered.card().default_output_modes.clone()
    } else {
        Vec::new()
    };
    let input_modes = lifted.default_input_modes();
    let first =
        probe::Probe::run(client, &target, deployment, &depends, input_modes, &accepted, receiver.clone())
            .await;
    // The rest of the audit goes through the interface that carried the first probe: a declared
    // interface it could not reach is reported unreachable, not audited.
    let unreachable = first.unreachable_interfaces().to_vec();
    let target = first.answering(target).await;
    let mut claims: Vec<ClaimAudit> = written
        .iter()
        .map(|capability| ClaimAudit { capability, verdict: first.verdict(capability, &lifted) })
        .collect();
    let mut wire_deviations = first.deviations();
    let claim_probes = probe::probe_each_unsettled_claim(
        client,
        &target,
        deployment,
        &lifted,
        &mut claims,
        &mut wire_deviations,
        receiver,
    )
    .await;
    let activated = match &target {
        probe::Target::Connection(connection) => connection.activated_extensions(),
        probe::Target::Address(_) => Default::default(),
    };
    let extensions = discovered
        .card()
        .capabilities
        .extensions
        .iter()
        .map(|e| ExtensionAudit {
            uri: e.uri.clone(),
            required: e.required,
            activated: activated.contains(&e.uri),
        })
        .collect();
    let probed = card_claims::ProbeAnswers {
        connection: match &target {
            probe::Target::Connection(connection) => Some(connection),
            probe::Target::Address(_) => None,
        },
        result: first.answer(),
        modes: first.modes(),
        unreachable: &unreachable,
        run_verdicts: first.outcome().map(|o| o.card_claims.as_slice()).unwrap_or_default(),
    };
    let card_claims = card_claims::audit_card_claims(base, &lifted, &discovered, &probed, options).await;
    let over_declares = claims
        .iter()
        .filter(|c| matches!(c.verdict, ClaimVerdict::Refused { .. }))
        .map(|c| c.capability)
        .collect();
    AgentAudit {
        url: url.to_owned(),
        name: Some(discovered.card().name.clone()),
        label: discovered.card().name.clone(),
        card_url: Some(discovered.source_url().to_owned()),
        protocol_versions,
        gateway: lifted.is_gateway(),
        claims,
        over_declares,
        probe: Some(first.summary()),
        error: first.error(&target).map(|error| match &not_asked {
            Some(why) => format!("{error} (the card's extensions were not asked for: {why})"),
            None => error,
        }),
        lifecycle_fault: first.lifecycle_fault(),
        push_registration: first.push_registration(),
        wire_deviations,
        timeline: first.timeline(),
        claim_probes,
        extensions,
        card_claims,
    }
}
