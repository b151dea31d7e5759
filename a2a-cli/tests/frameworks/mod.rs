//! The corpus agents as test subjects: which run where, each started once per test binary with
//! the audit of it, and the helpers that compare the audit's verdicts with the truth.
//!
//! Which agents run ([`selection`]): the frameworks whose install is cheapest ([`IN_CI`]) always,
//! every one with `A2A_FRAMEWORKS=all` (what `scripts/frameworks/interop.sh` sets). Under
//! `CI=true` a cheap framework that cannot be installed fails its tests with the reason, and so
//! does any under `A2A_FRAMEWORKS=all`; elsewhere (a developer's machine without python or node,
//! say) its tests are skipped with the reason printed, as the redis tests do, and so are the
//! tests of the frameworks not selected.

#![allow(dead_code)] // each test uses its own part of this module

pub mod expected;
pub mod truth;
pub mod wire;

use std::fmt::Debug;

use a2a_testkit::frameworks::{CorpusAgent, Framework, FrameworkAgent, RunningFrameworkAgent};
use a2a_typestate::{Capability, ClaimKind, Deployment};
use a2a_typestate_client::audit::{AgentAudit, AuditOptions, CardClaimAudit, ClaimAudit, audit};
use serde_json::Value;
use tokio::sync::OnceCell;

use self::expected::Verdict;
use self::truth::{PUSH_BOUND, declared_content, strings};
use self::wire::{Content, Interface, Wire};

/// The frameworks CI runs: the five cheapest installs of `scripts/frameworks/README.md` (fasta2a
/// 16 s, msaf 23 s, mastra 28 s, strands 34 s, ag2 36 s on two idle cores, cold caches). Between
/// them: 1.0 JSON-RPC (fasta2a, msaf, ag2), 0.3 (strands, mastra), push refused by the agent's
/// own error (msaf) and by silence (ag2, mastra), a card negotiated by header (mastra). BeeAI,
/// ADK, LangGraph, Agno, python-a2a and VoltAgent run with `A2A_FRAMEWORKS=all`.
pub const IN_CI: [Framework; 5] =
    [Framework::FastA2A, Framework::Msaf, Framework::Strands, Framework::Ag2, Framework::Mastra];

/// One corpus agent, running, with what the audit said of it.
#[derive(Debug)]
pub struct Subject {
    /// Which agent.
    pub corpus: CorpusAgent,
    /// The running agent.
    pub agent: RunningFrameworkAgent,
    /// Its card, as served without an `A2A-Version` header (what the audit reads).
    pub card: Value,
    /// `a2a audit` of it (the library, every interface, a push bound of [`PUSH_BOUND`]).
    pub audit: AgentAudit,
}

/// Why a subject is not there.
#[derive(Clone, Debug)]
struct Missing {
    /// Skip (print the reason and pass) rather than fail.
    skip: bool,
    reason: String,
}

static SUBJECTS: [OnceCell<Result<Subject, Missing>>; CorpusAgent::ALL.len()] =
    [const { OnceCell::const_new() }; CorpusAgent::ALL.len()];

/// The running, audited `corpus` agent, shared by the tests of this binary; `None` (with the
/// reason printed) when it is skipped here. Panics, with the reason, when it is selected and
/// cannot be installed, or when it does not start.
pub async fn subject(corpus: CorpusAgent) -> Option<&'static Subject> {
    let index = CorpusAgent::ALL.iter().position(|a| *a == corpus).expect("every agent is in ALL");
    match SUBJECTS[index].get_or_init(|| start(corpus)).await {
        Ok(subject) => Some(subject),
        Err(Missing { skip: true, reason }) => {
            eprintln!("skipped: {reason}");
            None
        }
        Err(Missing { skip: false, reason }) => panic!("{reason}"),
    }
}

/// What this run does with a framework: runs it or skips it (with why), and whether a failed
/// install fails its tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Not selected: its tests are skipped, with this reason printed.
    Skipped(String),
    /// Selected; an install failure skips its tests (with the reason printed).
    BestEffort,
    /// Selected; an install failure fails its tests, with the reason.
    Required,
}

/// The policy: with `A2A_FRAMEWORKS=all` (`all`) every framework is required; under `CI=true`
/// (`ci`) those of [`IN_CI`] are; elsewhere those of [`IN_CI`] run if they can be installed, and
/// the others are skipped.
pub fn selection(framework: Framework, all: bool, ci: bool) -> Selection {
    let cheap = IN_CI.contains(&framework);
    if all || (ci && cheap) {
        Selection::Required
    } else if cheap {
        Selection::BestEffort
    } else {
        Selection::Skipped(format!(
            "{framework} runs only with A2A_FRAMEWORKS=all (scripts/frameworks/interop.sh): its install is \
             not among the cheapest, which CI runs"
        ))
    }
}

/// [`selection`] under this process's environment.
fn selected(framework: Framework) -> Selection {
    let all = std::env::var("A2A_FRAMEWORKS").as_deref() == Ok("all");
    let ci = std::env::var("CI").as_deref() == Ok("true");
    selection(framework, all, ci)
}

async fn start(corpus: CorpusAgent) -> Result<Subject, Missing> {
    let required = match selected(corpus.framework()) {
        Selection::Skipped(reason) => return Err(Missing { skip: true, reason }),
        Selection::BestEffort => false,
        Selection::Required => true,
    };
    let agent = match FrameworkAgent::start(corpus).await {
        Ok(agent) => agent,
        Err(e) if e.is_install() && !required => {
            return Err(Missing {
                skip: true,
                reason: format!("{corpus}: cannot be installed here (CI=true would fail on it): {e}"),
            });
        }
        Err(e) => return Err(Missing { skip: false, reason: format!("{corpus}: {e}") }),
    };
    let card = wire::Wire::get_json(&agent.card_url(), false)
        .await
        .map_err(|reason| Missing { skip: false, reason: format!("{corpus}: the card: {reason}") })?;
    let options =
        AuditOptions { push_arrival_bound: PUSH_BOUND, all_interfaces: true, ..AuditOptions::default() };
    let report = audit(&[(agent.url(), Deployment::Direct)], &options).await;
    let audit = report.agents.into_iter().next().expect("one agent audited, one report");
    // Beside the agent's log, for whoever reads a failure.
    let json = serde_json::to_string_pretty(&audit).unwrap_or_default();
    let _ = std::fs::write(audit_file(&agent), json);
    Ok(Subject { corpus, agent, card, audit })
}

/// Where the audit of `agent` is written, beside its log: `LABEL-PORT.audit.json`.
fn audit_file(agent: &RunningFrameworkAgent) -> std::path::PathBuf {
    agent.log().with_file_name(format!("{}-{}.audit.json", agent.agent().label(), agent.port()))
}

impl Subject {
    /// A wire to the interface a client of this card calls first.
    pub fn wire(&self) -> Wire {
        Wire::new(
            Interface::preferred(&self.card)
                .unwrap_or_else(|| panic!("{}: no interface: {}", self.corpus, self.card)),
        )
    }

    /// What a caller keeping to the card sends, and whether the card's input modes cover it.
    pub fn content(&self) -> (Content, bool) {
        declared_content(&self.card)
    }

    /// The card's `defaultOutputModes`: what a caller keeping to the card accepts.
    pub fn output_modes(&self) -> Vec<String> {
        strings(&self.card["defaultOutputModes"])
    }

    /// Whether the card declares `capability` (its field is `true`).
    pub fn declares(&self, capability: Capability) -> bool {
        self.card["capabilities"][capability.card_field()] == true
    }

    /// The audit's verdict on a lifecycle claim.
    pub fn claim(&self, capability: Capability) -> Option<&ClaimAudit> {
        self.audit.claims.iter().find(|c| c.capability == capability)
    }

    /// The audit's card claims of `kind`.
    pub fn card_claims(&self, kind: ClaimKind) -> Vec<&CardClaimAudit> {
        self.audit.card_claims.iter().filter(|c| c.kind == kind).collect()
    }

    /// The audit's claim about the interface at `url` in `version` (compared by major.minor).
    pub fn interface_claim(&self, interface: &Interface) -> Option<&CardClaimAudit> {
        let mut parts = interface.version.split('.');
        let version = format!("{}.{}", parts.next().unwrap_or(""), parts.next().unwrap_or("0"));
        self.card_claims(ClaimKind::Interfaces).into_iter().find(|c| {
            c.claim.contains(&format!("interface {} ", interface.url))
                && c.claim.contains(&format!("version {version}"))
        })
    }

    /// Asserts the audit's verdict on `capability` is `expected`, the rules' verdict for `truth`.
    pub fn assert_claim(&self, capability: Capability, expected: Verdict, truth: &impl Debug) {
        let found = self.claim(capability).map_or(Verdict::Absent, |c| Verdict::of_claim(&c.verdict));
        assert_eq!(
            found,
            expected,
            "{}: {capability:?}: the audit says {found:?}, the rules give {expected:?} for what the agent did\n\
             truth: {truth:#?}\naudit of the claim: {:#?}\naudit error: {:?}\nfull audit: {}",
            self.corpus,
            self.claim(capability),
            self.audit.error,
            audit_file(&self.agent).display(),
        );
    }

    /// Asserts the audit's verdict on the card claim `claim` is `expected` for `truth`.
    pub fn assert_card_claim(
        &self,
        what: &str,
        claim: Option<&CardClaimAudit>,
        expected: Verdict,
        truth: &impl Debug,
    ) {
        let found = claim.map_or(Verdict::Absent, |c| Verdict::of_card_claim(&c.verdict));
        assert_eq!(
            found, expected,
            "{}: {what}: the audit says {found:?}, the rules give {expected:?} for what the agent did\n\
             truth: {truth:#?}\naudit of the claim: {claim:#?}\nevery card claim: {:#?}\naudit error: {:?}",
            self.corpus, self.audit.card_claims, self.audit.error,
        );
    }

    /// Asserts the audit judged none of the lifecycle claims the card does not make.
    pub fn assert_only_declared_claims_judged(&self) {
        for capability in Capability::ALL {
            if !self.declares(capability) {
                assert!(
                    self.claim(capability).is_none(),
                    "{}: the card does not declare {capability:?}, yet the audit judged it: {:#?}\ncard: {}",
                    self.corpus,
                    self.claim(capability),
                    self.card["capabilities"],
                );
            }
        }
    }
}
