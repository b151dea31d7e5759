//! The audit is a library call: a program audits a fleet through `a2a_typestate_client::audit`
//! as `a2a audit` does, each agent's verdicts in the order given, every lie of each card named, an
//! agent that cannot be reached reported not audited (never as a liar), and the caller's
//! credentials used for the agents that require them.

use std::collections::BTreeSet;

use a2a_testkit::{Capabilities, Guard, Lie, Script, ScriptedAgent};
use a2a_typestate::{Capability, Deployment};
use a2a_typestate_client::Client;
use a2a_typestate_client::audit::{AuditFinding, AuditOptions, AuditReport, Auditor, ClaimVerdict};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use futures::StreamExt;

/// Each lie, and the claim it makes false.
const LIES: [(Lie, Capability); 3] = [
    (Lie::StreamWithoutArtifact, Capability::Streaming),
    (Lie::EmptyHistory, Capability::StateTransitionHistory),
    (Lie::SilentPush, Capability::PushNotifications),
];

fn options() -> AuditOptions {
    AuditOptions { push_arrival_bound: std::time::Duration::from_secs(1), ..AuditOptions::default() }
}

fn dead_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn an_auditor_names_every_lie_of_each_card_and_calls_no_honest_or_unreachable_agent_a_liar() {
    let claiming_all =
        Capabilities::none().with_streaming().with_state_transition_history().with_push_notifications();
    // One agent per mix of the three lies (the honest agent among them), then one nobody serves.
    let mut agents = Vec::new();
    let mut lied_by_url = Vec::new();
    for mix in 0u8..(1 << LIES.len()) {
        let lied: Vec<&(Lie, Capability)> =
            LIES.iter().enumerate().filter(|(i, _)| mix & (1 << i) != 0).map(|(_, lie)| lie).collect();
        let script = lied.iter().fold(Script::honest(), |script, (lie, _)| script.with(lie.clone()));
        let agent = ScriptedAgent::builder()
            .name(format!("mix-{mix:03b}"))
            .capabilities(claiming_all.clone())
            .script(script)
            .spawn()
            .await
            .unwrap();
        let expected: BTreeSet<&str> = lied.iter().map(|(_, c)| c.card_field()).collect();
        lied_by_url.push((agent.base_url(), expected));
        agents.push(agent);
    }
    let down = dead_url();
    let fleet: Vec<(String, Deployment)> = lied_by_url
        .iter()
        .map(|(url, _)| (url.clone(), Deployment::Direct))
        .chain([(down.clone(), Deployment::Direct)])
        .collect();

    let auditor = Auditor::new(Client::builder(), options()).await.unwrap();
    let audited: Vec<_> = auditor.agents(&fleet).collect().await;
    let report = AuditReport::new(audited, false);

    assert_eq!(report.agents.len(), fleet.len());
    for ((url, expected), audit) in lied_by_url.iter().zip(&report.agents) {
        assert_eq!(&audit.url, url, "verdicts come in the order given");
        assert_eq!(audit.error, None, "{url} was audited: {audit:#?}");
        let refused: BTreeSet<&str> = audit.over_declares.iter().map(Capability::card_field).collect();
        assert_eq!(&refused, expected, "{}: {audit:#?}", audit.label);
        for claim in &audit.claims {
            let is_refused = matches!(claim.verdict, ClaimVerdict::Refused { .. });
            assert_eq!(is_refused, expected.contains(claim.capability.card_field()), "{claim:?}");
        }
    }
    let unreachable = report.agents.last().unwrap();
    assert!(unreachable.over_declares.is_empty() && !unreachable.over_declares_anything());
    let why = unreachable.error.as_deref().expect("an agent nobody serves is not audited");
    assert!(why.contains(&down), "the reason names the agent: {why}");
    assert_eq!(report.over_declaring, (1 << LIES.len()) - 1);
    assert_eq!(report.not_audited, 1);
    assert_eq!(report.finding(), AuditFinding::OverDeclares);
    for agent in agents {
        assert!(agent.executions() <= 4, "one probe, then at most one per claim it left unsettled");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn an_auditor_uses_the_callers_credentials_for_an_agent_that_requires_them() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .guard(Guard::bearer("tok-audit"))
        .spawn()
        .await
        .unwrap();
    let fleet = [(agent.base_url(), Deployment::Direct)];

    let without = Auditor::new(Client::builder(), options()).await.unwrap();
    let report = AuditReport::new(without.agents(&fleet).collect().await, false);
    assert_eq!(report.finding(), AuditFinding::NotAudited, "{report:#?}");
    assert!(report.agents[0].over_declares.is_empty(), "a refused credential is no lie");

    let token = Credentials::new().with(BearerToken::new(Secret::new("tok-audit")));
    let with = Auditor::new(Client::builder().credentials(token), options()).await.unwrap();
    let report = AuditReport::new(with.agents(&fleet).collect().await, false);
    assert_eq!(report.finding(), AuditFinding::Clean, "{report:#?}");
    let streaming = &report.agents[0].claims[0];
    assert!(matches!(streaming.verdict, ClaimVerdict::Verified { .. }), "{streaming:?}");
    let sent = agent.requests_for("SendStreamingMessage");
    assert!(!sent.is_empty() && sent.iter().all(|r| r.header("authorization") == Some("Bearer tok-audit")));
    agent.shutdown().await;
}
