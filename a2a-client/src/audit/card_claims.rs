//! The card's claims beyond the lifecycle (`a2a_typestate::card_claim`): extended card,
//! extensions, interfaces, output modes and security, each judged by a `ClaimCheck` from calls
//! that change nothing at the agent (a `GetTask` for a task that does not exist, the extended
//! card) or from the answers the lifecycle probe already got (extensions, output modes).
//!
//! What the audit depends on, and so checks:
//! - the extended card, when the card declares one (`GetExtendedAgentCard` on the audit's
//!   connection, with the audit's credentials if any);
//! - each extension the card marks `required` (a caller cannot do without those; the others are
//!   reported in the extensions table, activated or not, with no verdict);
//! - the interface the audit's connection uses, or with `--all-interfaces` every declared one
//!   (at most the task budget's [`interfaces`](crate::TaskBudget::interfaces), 8 by
//!   default, concurrently, each call bounded by the request timeout): a
//!   `GetTask` for a task that does not exist, sent without credentials in the interface's own
//!   binding and version, must be answered in that binding;
//! - the output modes: the first probe accepts only the card's `defaultOutputModes`, and every
//!   part of its answer must be in one of them;
//! - security: that same credential-less `GetTask` on the connection's interface is answered 401 or
//!   403 only if the card requires credentials (the reverse is a warning).

use std::sync::Arc;

use crate::task::UnreachableInterface;
use crate::types::discovery::OfferedInterface;
use crate::types::{GetTaskRequest, SendMessageResponse, TaskId};
use crate::{AgentBaseUrl, AgentConnection, CallOptions, Client, DiscoveredCard, Error, TaskBudget};
use a2a_typestate::{
    CardClaim, CardClaimVerdict, CardClaims, ClaimAnswer, ClaimCheck, ClaimKind, ClaimPending, ExchangeModes,
    InterfaceAnswer,
};
use serde::Serialize;

use super::AuditOptions;
use crate::text;

/// The verdict on one card claim, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardClaimAudit {
    /// Which kind of claim (`extended-card`, `extensions`, `interfaces`, `output-modes`, `security`).
    #[serde(serialize_with = "kind_name")]
    pub kind: ClaimKind,
    /// The claim in words (`extension https://...`, `interface http://... (JSONRPC, version 1.0)`).
    pub claim: String,
    /// What the audit showed.
    #[serde(flatten)]
    pub verdict: CardClaimOutcome,
}

fn kind_name<S: serde::Serializer>(kind: &ClaimKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

/// What the audit showed about one card claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "camelCase")]
pub enum CardClaimOutcome {
    /// The first answer that exercised it honoured it.
    Verified {
        /// That answer.
        evidence: String,
    },
    /// The agent contradicted it.
    Refused {
        /// The answer that did.
        evidence: String,
    },
    /// The agent is more open than its card says: not a refusal.
    Warning {
        /// The answer that showed it.
        evidence: String,
    },
    /// The answer that would have settled it was reached through media types the card's default
    /// modes do not declare (clause 3 of the rules): not a refusal, and no proof either.
    Unverifiable {
        /// Why, with the answer.
        reason: String,
    },
    /// An interface whose connection could not be opened (DNS, refused, TLS, connect timeout):
    /// nothing was sent there, so nothing says whether it serves what the card says. The audit went
    /// on through the next declared interface.
    Unreachable {
        /// What the connection attempt came to, and what the URL says plainly when it does.
        reason: String,
    },
    /// Nothing settled it (a transport fault, an answer that says nothing about it, no call).
    Unsettled {
        /// Why.
        reason: String,
    },
}

impl CardClaimAudit {
    fn of(claim: &CardClaim, verdict: Option<CardClaimVerdict>) -> Self {
        let verdict = match verdict {
            Some(CardClaimVerdict::Verified(evidence)) => {
                CardClaimOutcome::Verified { evidence: evidence.to_string() }
            }
            Some(CardClaimVerdict::Refused(violation)) => {
                CardClaimOutcome::Refused { evidence: violation.evidence().to_string() }
            }
            Some(CardClaimVerdict::Warning(evidence)) => {
                CardClaimOutcome::Warning { evidence: evidence.to_string() }
            }
            Some(CardClaimVerdict::Pending(ClaimPending::OutsideDeclaredModes(evidence))) => {
                CardClaimOutcome::Unverifiable {
                    reason: format!("reached outside the card's declared modes: {evidence}"),
                }
            }
            Some(CardClaimVerdict::Pending(pending)) => {
                CardClaimOutcome::Unsettled { reason: pending.to_string() }
            }
            None => CardClaimOutcome::Unsettled { reason: "not checked".to_owned() },
        };
        Self { kind: claim.kind(), claim: claim.to_string(), verdict }
    }

    fn unsettled(claim: &CardClaim, reason: String) -> Self {
        Self { kind: claim.kind(), claim: claim.to_string(), verdict: CardClaimOutcome::Unsettled { reason } }
    }

    /// `true` when the agent contradicted the claim.
    pub fn is_refused(&self) -> bool {
        matches!(self.verdict, CardClaimOutcome::Refused { .. })
    }
}

/// What the lifecycle probe left for the card claims to read.
pub(super) struct ProbeAnswers<'a> {
    /// The probe's connection (absent when none could be opened).
    pub(super) connection: Option<&'a AgentConnection>,
    /// The probe's answer, when it got one (the run's result, or the answer its updates carried
    /// before a later call failed).
    pub(super) result: Option<&'a SendMessageResponse>,
    /// What the probe's message sent and accepted (its `acceptedOutputModes`).
    pub(super) modes: &'a ExchangeModes,
    /// The declared interfaces the probe could not reach (it went on on the next one).
    pub(super) unreachable: &'a [UnreachableInterface],
    /// The card-claim verdicts the probe's run reached (an interface refused before the task went
    /// to the next declared one).
    pub(super) run_verdicts: &'a [CardClaimVerdict],
}

/// Checks every card claim `lifted` makes whose kind `options.claims` names, for the agent at
/// `base`.
pub(super) async fn audit_card_claims(
    base: &str,
    lifted: &Arc<CardClaims>,
    discovered: &DiscoveredCard,
    probe: &ProbeAnswers<'_>,
    options: &AuditOptions,
) -> Vec<CardClaimAudit> {
    let wanted = |kind| options.claims.contains(&kind);
    let claims = lifted.card_claims();
    let mut audits = Vec::new();
    if let Some(claim) = claims.iter().find(|c| c.kind() == ClaimKind::ExtendedCard)
        && wanted(ClaimKind::ExtendedCard)
    {
        audits.push(extended_card(claim, probe.connection).await);
    }
    if wanted(ClaimKind::Extensions) {
        let required = crate::extensions::required_uris(discovered.card());
        let answer = match (probe.connection, probe.result) {
            (Some(connection), Some(_)) => Some(extensions_answer(lifted, connection)),
            _ => None,
        };
        for claim in claims
            .iter()
            .filter(|c| matches!(c, CardClaim::Extension { uri } if required.contains(uri.as_str())))
        {
            audits.push(extension(lifted, claim, answer.as_ref()));
        }
    }
    // An interface the probe could not reach is reported as such, whichever kinds were asked for:
    // it is where the audit did not go.
    for unreachable in probe.unreachable {
        let Some(claim) =
            claims.iter().find(|c| matches!(c, CardClaim::Interface { url, .. } if *url == unreachable.url))
        else {
            continue;
        };
        let mut reason = unreachable.error.clone();
        if let Some(diagnosis) = &unreachable.diagnosis {
            reason.push_str(&format!(" ({diagnosis})"));
        }
        audits.push(CardClaimAudit {
            kind: claim.kind(),
            claim: claim.to_string(),
            verdict: CardClaimOutcome::Unreachable { reason },
        });
    }
    // An interface the probe's run refused (its first call answered outside the binding, and the
    // task went to the next declared one) is reported with that verdict, not called again.
    let mut refused_on_the_way = Vec::new();
    for verdict in probe.run_verdicts {
        let Some(CardClaim::Interface { url, .. }) = verdict.violation().map(|v| v.claim()) else { continue };
        if let Some(claim) =
            claims.iter().find(|c| matches!(c, CardClaim::Interface { url: u, .. } if u == url))
        {
            if wanted(ClaimKind::Interfaces) {
                audits.push(CardClaimAudit::of(claim, Some(verdict.clone())));
            }
            refused_on_the_way.push(url.clone());
        }
    }
    let unauthenticated = if wanted(ClaimKind::Interfaces) || wanted(ClaimKind::Security) {
        let reached = |url: &str| {
            probe.unreachable.iter().all(|u| u.url != url) && !refused_on_the_way.iter().any(|r| r == url)
        };
        interface_answers(base, claims, discovered, probe.connection, reached, options).await
    } else {
        Vec::new()
    };
    if wanted(ClaimKind::Interfaces) {
        for (claim, answer) in &unauthenticated {
            audits.push(match answer {
                Ok(answer) => {
                    let mut check = ClaimCheck::new(lifted.clone(), claim.clone(), true);
                    if let Some(interface) = &answer.interface {
                        check.observe(interface.clone());
                    }
                    match (&answer.interface, check.verdict()) {
                        (None, _) => CardClaimAudit::unsettled(claim, answer.said.clone()),
                        (Some(_), verdict) => CardClaimAudit::of(claim, verdict),
                    }
                }
                Err(reason) => CardClaimAudit::unsettled(claim, reason.clone()),
            });
        }
    }
    if let Some(claim) = claims.iter().find(|c| c.kind() == ClaimKind::OutputModes)
        && wanted(ClaimKind::OutputModes)
    {
        audits.push(output_modes(lifted, claim, probe));
    }
    if let Some(claim) = claims.iter().find(|c| c.kind() == ClaimKind::Security)
        && wanted(ClaimKind::Security)
    {
        // The connection's interface is the first one probed. When its credential-less `GetTask`
        // said nothing about access (an interface that serves only the stream, say), the probe's
        // own answer does, if that connection was sure to send no credentials.
        let served_probe = match (probe.connection, probe.result) {
            (Some(connection), Some(_)) if !connection.may_send_credentials() => {
                Some(ClaimAnswer::Access { credentials_sent: false, status: 200, agent_error: false })
            }
            _ => None,
        };
        let first = unauthenticated.first().map(|(_, answer)| answer);
        let access = first.and_then(|a| a.as_ref().ok()).and_then(|a| a.access.clone()).or(served_probe);
        audits.push(match (access, first) {
            (Some(answer), _) => {
                let mut check = ClaimCheck::new(lifted.clone(), claim.clone(), true);
                check.observe(answer.clone());
                CardClaimAudit::of(claim, check.verdict())
            }
            (None, Some(Ok(Unauthenticated { said, .. }))) => CardClaimAudit::unsettled(
                claim,
                format!("the call without credentials was answered with nothing about access: {said}"),
            ),
            (None, Some(Err(reason))) => {
                CardClaimAudit::unsettled(claim, format!("no call without credentials was made: {reason}"))
            }
            (None, None) => CardClaimAudit::unsettled(
                claim,
                "no call without credentials was made: no interface of the card could be called".to_owned(),
            ),
        });
    }
    audits
}

async fn extended_card(claim: &CardClaim, connection: Option<&AgentConnection>) -> CardClaimAudit {
    let Some(connection) = connection else {
        return CardClaimAudit::unsettled(claim, "no interface could be opened".to_owned());
    };
    match connection.check_extended_card().await {
        Some(verdict) => CardClaimAudit::of(claim, Some(verdict)),
        None => {
            CardClaimAudit::unsettled(claim, "GetExtendedAgentCard gave no answer the rule reads".to_owned())
        }
    }
}

/// The probe's answer about extensions: every extension the card declares was asked for, and the
/// ones the answers named activated. Made once and shared by every extension claim read against it.
fn extensions_answer(lifted: &CardClaims, connection: &AgentConnection) -> ClaimAnswer {
    let asked = lifted
        .card_claims()
        .iter()
        .filter_map(|c| match c {
            CardClaim::Extension { uri } => Some(uri.clone()),
            _ => None,
        })
        .collect();
    let activated = connection.activated_extensions().iter().cloned().collect();
    ClaimAnswer::Extensions { asked, activated }
}

fn extension(lifted: &Arc<CardClaims>, claim: &CardClaim, answer: Option<&ClaimAnswer>) -> CardClaimAudit {
    let Some(answer) = answer else {
        return CardClaimAudit::unsettled(claim, UNANSWERED.to_owned());
    };
    let mut check = ClaimCheck::new(lifted.clone(), claim.clone(), true);
    check.observe(answer.clone());
    CardClaimAudit::of(claim, check.verdict())
}

fn output_modes(lifted: &Arc<CardClaims>, claim: &CardClaim, probe: &ProbeAnswers<'_>) -> CardClaimAudit {
    let Some(result) = probe.result else {
        return CardClaimAudit::unsettled(claim, UNANSWERED.to_owned());
    };
    let answered = result.answered_media_types();
    if answered.is_empty() {
        return CardClaimAudit::unsettled(
            claim,
            "the probe's answer carried no artifact part (nor a direct message) to read a media type from"
                .to_owned(),
        );
    }
    let mut check = ClaimCheck::new(lifted.clone(), claim.clone(), true);
    check.observe(ClaimAnswer::Output { modes: probe.modes.clone(), answered });
    CardClaimAudit::of(claim, check.verdict())
}

/// Why a claim read from the probe's answer is unsettled when the probe has none: its task did not
/// reach the end of a turn (its ending, in the probe table, says how it ended instead).
const UNANSWERED: &str = "the probe's task ended before it answered (its ending says how)";

/// What one credential-less `GetTask` to an interface came to.
struct Unauthenticated {
    /// The answer as evidence about the interface, when it is some.
    interface: Option<ClaimAnswer>,
    /// The answer as evidence about access.
    access: Option<ClaimAnswer>,
    /// What came, in words (shown when the answer is evidence about neither).
    said: String,
}

/// One credential-less `GetTask` for a task that does not exist to each interface checked: the
/// connection's own (else the card's first) first, then (with `--all-interfaces`) the others,
/// concurrently.
async fn interface_answers(
    base: &str,
    claims: &[CardClaim],
    discovered: &DiscoveredCard,
    connection: Option<&AgentConnection>,
    reached: impl Fn(&str) -> bool,
    options: &AuditOptions,
) -> Vec<(CardClaim, Result<Unauthenticated, String>)> {
    let Ok(offered) = discovered.offered_interfaces() else { return Vec::new() };
    let Ok(agent) = AgentBaseUrl::parse(base) else { return Vec::new() };
    let Ok(bare) = Client::builder()
        .request_timeout(options.request_timeout)
        .wire_reading(crate::WireReading::Tolerant)
        .build()
    else {
        return Vec::new();
    };
    // The card as if it asked for no credential, so a client holding none still calls: what the
    // agent answers such a call is what the security claim is about.
    let mut open = discovered.card().clone();
    open.security_requirements.clear();
    let Ok(open) = serde_json::to_vec(&open).map_err(|e| e.to_string()).and_then(|bytes| {
        DiscoveredCard::from_bytes(bytes.into(), discovered.source_url(), discovered.well_known_path())
            .map_err(|e| text::one_line(&e))
    }) else {
        return Vec::new();
    };
    let used = match connection {
        Some(connection) => connection.interface().url.clone(),
        None => match offered.first() {
            Some(first) => first.url.clone(),
            None => return Vec::new(),
        },
    };
    // As many as one task may try (a card can list any number): the one in use first.
    let budget = connection.map_or_else(TaskBudget::default, |c| c.client().config().task_budget());
    let bound = budget.interfaces() as usize;
    // Each declared URL's first interface, looked up once per claim (not a scan of the card each).
    let mut by_url: std::collections::HashMap<&str, &OfferedInterface> = std::collections::HashMap::new();
    for interface in offered {
        by_url.entry(interface.url.as_str()).or_insert(interface);
    }
    let mut first: Option<(CardClaim, OfferedInterface)> = None;
    let mut others: Vec<(CardClaim, OfferedInterface)> = Vec::new();
    for claim in claims {
        let CardClaim::Interface { url, .. } = claim else { continue };
        let Some(interface) = by_url.get(url.as_str()) else { continue };
        if !reached(url) {
            continue;
        }
        if *url == used {
            first.get_or_insert_with(|| (claim.clone(), (*interface).clone()));
        } else if options.all_interfaces && others.len() < bound {
            others.push((claim.clone(), (*interface).clone()));
        }
    }
    let mut chosen: Vec<(CardClaim, OfferedInterface)> = first.into_iter().chain(others).collect();
    chosen.truncate(bound);
    let asked: Vec<String> =
        discovered.card().capabilities.extensions.iter().map(|e| e.uri.clone()).collect();
    let calls = chosen.into_iter().map(|(claim, interface)| {
        let (bare, asked, agent, discovered) = (&bare, asked.clone(), agent.clone(), open.clone());
        async move {
            let answer = match AgentConnection::open(bare, agent, discovered, interface)
                .and_then(|c| c.with_options(CallOptions::new().extensions(asked)))
            {
                Ok(opened) => {
                    let request = GetTaskRequest {
                        id: TaskId::new(format!("a2a-audit-no-such-task-{}", uuid::Uuid::new_v4())),
                        ..Default::default()
                    };
                    Ok(read_unauthenticated(&opened, opened.get_task(request).await.err()))
                }
                Err(error) => Err(format!("not called: {}", text::one_line(&error))),
            };
            (claim, answer)
        }
    });
    futures::future::join_all(calls).await
}

/// Reads the answer to a credential-less `GetTask` for a task that does not exist, made on
/// `opened` (`error` is `None` when the agent answered with a task, which it should not, but it
/// answered). The interface part is read as the client reads it
/// ([`AgentConnection::interface_answer`]); what it says about access is read here.
fn read_unauthenticated(opened: &AgentConnection, error: Option<Error>) -> Unauthenticated {
    let served = |interface| Unauthenticated {
        interface,
        access: Some(ClaimAnswer::Access { credentials_sent: false, status: 200, agent_error: false }),
        said: String::new(),
    };
    let Some(error) = error else {
        let url = opened.interface().url.clone();
        return served(Some(ClaimAnswer::Interface {
            url,
            answer: InterfaceAnswer::Served { protocol_version: None },
        }));
    };
    if let Some(fault) = error.transport_fault() {
        let fault = Some(ClaimAnswer::TransportFault(fault));
        return Unauthenticated { interface: fault.clone(), access: fault, said: String::new() };
    }
    // Refused for its credentials, with or without the agent's own A2A error (the rule weighs which).
    if let Some(status @ (401 | 403)) = error.status() {
        let agent_error = error.protocol_error().is_some();
        return Unauthenticated {
            interface: None,
            access: Some(ClaimAnswer::Access { credentials_sent: false, status, agent_error }),
            said: format!("answered http {status} without credentials"),
        };
    }
    let interface = opened.interface_answer(&error);
    if error.protocol_error().is_some() {
        // An A2A error: the call got past authentication.
        return served(interface);
    }
    Unauthenticated { interface, access: None, said: text::one_line(&error) }
}
