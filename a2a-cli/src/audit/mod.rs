//! `a2a audit URL...`: discover each agent, run one short probe task that depends on every claim its
//! card makes, and report each declared capability as verified, refused (with the evidence), not
//! exercised, or unverifiable (the card describes a gateway).
//!
//! The exit status says what was found: 1 when any agent over-declares, else 2 when an agent could
//! not be audited (no card, unreachable, the probe failed for another reason), else 0.
//!
//! ```
//! use a2a_typestate_cli::audit::{AuditOptions, EXIT_OVER_DECLARES, audit};
//! use a2a_testkit::{Lie, Script, ScriptedAgent};
//! use a2a_typestate::{Capability, Deployment};
//! # #[tokio::main] async fn main() -> Result<(), a2a_testkit::TestkitError> {
//! // An agent whose card claims streaming and whose streaming calls answer -32004.
//! let liar = ScriptedAgent::builder().script(Script::honest().with(Lie::StreamingRefused)).spawn().await?;
//!
//! let report = audit(&[(liar.base_url(), Deployment::Direct)], &AuditOptions::default()).await;
//! assert_eq!(report.exit_status, EXIT_OVER_DECLARES);
//! assert!(report.agents[0].over_declares.contains(Capability::Streaming));
//! # Ok(()) }
//! ```

mod render;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use a2a_typestate::{Capability, CapabilitySet, CardClaims, Deployment};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation};
use a2a_typestate_client::{Client, PollCadence};
use futures::StreamExt;
use serde::Serialize;

use crate::card::{self, CardSummary};
use crate::cli::{AuditArgs, CredentialArgs};
use crate::errors;
use crate::outcome::{self, Ending, RefusedClaim, TaskRecord};
use crate::output;

/// Exit status when an agent over-declares.
pub const EXIT_OVER_DECLARES: u8 = 1;
/// Exit status when no agent over-declares but one could not be audited.
pub const EXIT_NOT_AUDITED: u8 = 2;

/// Agents audited at once.
const PARALLEL_AUDITS: usize = 8;

/// How the audit runs.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// How long a push callback may take before the push claim is refused.
    pub push_arrival_bound: Duration,
    /// Longest wait for any one request.
    pub request_timeout: Duration,
    /// How long a task may stay `working` with nothing observable before the probe gives up.
    pub working_bound: Duration,
    /// Credentials for agents that require them (none by default).
    pub credentials: CredentialArgs,
}

impl Default for AuditOptions {
    /// A 5 s push bound, a 30 s request timeout and a 30 s working bound.
    fn default() -> Self {
        Self {
            push_arrival_bound: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            working_bound: Duration::from_secs(30),
            credentials: CredentialArgs::default(),
        }
    }
}

impl From<&AuditArgs> for AuditOptions {
    fn from(args: &AuditArgs) -> Self {
        Self {
            push_arrival_bound: args.push_arrival_bound,
            request_timeout: args.request_timeout,
            working_bound: args.working_bound,
            credentials: args.credentials.clone(),
        }
    }
}

/// The audit of every agent asked for; also the `--json` output.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    /// One entry per URL, in the order given.
    pub agents: Vec<AgentAudit>,
    /// How many agents over-declare.
    pub over_declaring: usize,
    /// How many agents could not be audited.
    pub not_audited: usize,
    /// The exit status the command returns (0, [`EXIT_OVER_DECLARES`] or [`EXIT_NOT_AUDITED`]).
    pub exit_status: u8,
}

/// The audit of one agent.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentAudit {
    /// The URL as given.
    pub url: String,
    /// The card's name (absent when no card was read).
    pub name: Option<String>,
    /// Where the card was read.
    pub card_url: Option<String>,
    /// The protocol versions the card's interfaces speak.
    pub protocol_versions: Vec<String>,
    /// Whether the card describes a gateway (its claims are then unverifiable).
    pub gateway: bool,
    /// One verdict per capability the card declares.
    pub claims: Vec<ClaimAudit>,
    /// The capabilities the agent was caught over-declaring.
    #[serde(serialize_with = "outcome::capability_fields")]
    pub over_declares: CapabilitySet,
    /// How the probe task ended (absent when it could not be sent).
    pub probe: Option<ProbeSummary>,
    /// Why the agent could not be audited, if it could not.
    pub error: Option<String>,
}

impl AgentAudit {
    fn unreadable(url: &str, error: String) -> Self {
        Self {
            url: url.to_owned(),
            name: None,
            card_url: None,
            protocol_versions: Vec::new(),
            gateway: false,
            claims: Vec::new(),
            over_declares: CapabilitySet::EMPTY,
            probe: None,
            error: Some(error),
        }
    }
}

/// The verdict on one declared capability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimAudit {
    /// The capability (its card field).
    #[serde(serialize_with = "outcome::capability_field")]
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
    Verified,
    /// The agent contradicted the claim.
    Refused {
        /// What it did.
        contradiction: String,
        /// The observation that showed it.
        evidence: String,
    },
    /// The probe did not reach a transition that exercises the claim.
    NotExercised,
    /// The card describes a gateway, so the claim says nothing about the task's lifecycle.
    Unverifiable,
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

/// Audits each of `agents` (URL and how it is reached) with one client (fresh discovery cache, so
/// nothing is suspect beforehand).
pub async fn audit(agents: &[(String, Deployment)], options: &AuditOptions) -> AuditReport {
    let agents = match audit_client(options) {
        Ok(client) => {
            let client = &client;
            futures::stream::iter(agents)
                .map(|(url, deployment)| audit_agent(client, url, *deployment))
                .buffered(PARALLEL_AUDITS)
                .collect::<Vec<_>>()
                .await
        }
        Err(e) => agents.iter().map(|(url, _)| AgentAudit::unreadable(url, e.clone())).collect(),
    };
    let over_declaring = agents.iter().filter(|a| !a.over_declares.is_empty()).count();
    let not_audited = agents.iter().filter(|a| a.error.is_some()).count();
    let exit_status = if over_declaring > 0 {
        EXIT_OVER_DECLARES
    } else if not_audited > 0 {
        EXIT_NOT_AUDITED
    } else {
        0
    };
    AuditReport { agents, over_declaring, not_audited, exit_status }
}

fn audit_client(options: &AuditOptions) -> Result<Client, String> {
    let cadence = PollCadence::new(Duration::from_millis(100), 2.0, Duration::from_secs(2))
        .map_err(|e| errors::one_line(&e))?;
    let builder = Client::builder()
        .push_arrival_bound(options.push_arrival_bound)
        .request_timeout(options.request_timeout)
        .unobservable_bound(options.working_bound)
        .poll_cadence(cadence);
    options.credentials.apply(builder)?.build().map_err(|e| errors::one_line(&e))
}

/// Audits one agent: its card, then one probe task depending on every claim the card makes.
pub async fn audit_agent(client: &Client, url: &str, deployment: Deployment) -> AgentAudit {
    let base = card::base_url_of(url);
    let mut discovered = match client.discover(base).await {
        Ok(card) => card,
        Err(e) => {
            return AgentAudit::unreadable(url, card::explain_fetch_error(base, &e, errors::one_line));
        }
    };
    // With credentials that allow it, the extended card is the one audited (it may claim more).
    if discovered.card().capabilities.extended_agent_card == Some(true)
        && let Ok(connection) = client.connect(base).await
        && connection.uses_extended_card()
    {
        discovered = connection.card().clone();
    }
    let summary = match CardSummary::of(&discovered) {
        Ok(summary) => summary,
        Err(e) => return AgentAudit::unreadable(url, format!("the card cannot be used: {e}")),
    };
    let lifted = CardClaims::lift(discovered.card(), deployment);
    // What the card says, before the gateway rule empties it: a gateway's claims are reported too.
    let written: CapabilitySet =
        Capability::ALL.into_iter().filter(|c| summary.claims.get(*c) == Some(true)).collect();
    let depends: Vec<Capability> = lifted.declared().iter().collect();
    let negotiation = Negotiation::depending_on(&depends)
        .deployment(deployment)
        .follow_up(FollowUp::reply("a2a audit probe: no further input"));
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let probe = PROBES.fetch_add(1, Ordering::Relaxed);
    let message = a2a_typestate_types::Message::user_text(
        format!("a2a-audit-{}-{probe}", std::process::id()),
        "a2a audit probe: please answer briefly",
    );
    let result = client.run_task(base, message, &negotiation).await;
    let record = TaskRecord::from_result(&result);
    let error = match &result {
        Err(e) if e.lifecycle_violation().is_none() => {
            Some(format!("the probe failed: {}", errors::one_line(e)))
        }
        _ => None,
    };
    let claims: Vec<ClaimAudit> = written
        .iter()
        .map(|capability| ClaimAudit { capability, verdict: verdict(capability, &lifted, &record) })
        .collect();
    let over_declares = claims
        .iter()
        .filter(|c| matches!(c.verdict, ClaimVerdict::Refused { .. }))
        .map(|c| c.capability)
        .collect();
    AgentAudit {
        url: url.to_owned(),
        name: Some(summary.name),
        card_url: Some(summary.source_url),
        protocol_versions: summary.protocol_versions,
        gateway: lifted.is_gateway(),
        claims,
        over_declares,
        probe: Some(ProbeSummary {
            ending: record.ending.clone(),
            negotiation_round_trips: match &result {
                Ok(outcome) => Some(outcome.negotiation_round_trips),
                Err(e) => e.negotiation_round_trips(),
            },
        }),
        error,
    }
}

fn verdict(capability: Capability, lifted: &CardClaims, record: &TaskRecord) -> ClaimVerdict {
    if lifted.is_gateway() {
        return ClaimVerdict::Unverifiable;
    }
    if let Some(refused) = record.refusals.iter().find(|r: &&RefusedClaim| r.capability == capability) {
        return ClaimVerdict::Refused {
            contradiction: refused.contradiction.clone(),
            evidence: refused.evidence.clone(),
        };
    }
    if record.verified.contains(capability) { ClaimVerdict::Verified } else { ClaimVerdict::NotExercised }
}

/// Runs `a2a audit`.
pub async fn run_command(args: &AuditArgs, out: &mut dyn Write) -> ExitCode {
    let agents: Vec<(String, Deployment)> = args
        .urls
        .iter()
        .map(|url| (url.clone(), Deployment::Direct))
        .chain(args.gateways.iter().map(|url| (url.clone(), Deployment::Gateway)))
        .collect();
    let report = audit(&agents, &AuditOptions::from(args)).await;
    match output::write_report(out, args.json, &report, render::render) {
        Ok(()) => ExitCode::from(report.exit_status),
        Err(_) => ExitCode::from(EXIT_NOT_AUDITED),
    }
}
