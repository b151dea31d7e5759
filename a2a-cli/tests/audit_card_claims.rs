//! `a2a audit` checks the card's claims beyond the lifecycle: extended card, required extensions,
//! interfaces, output modes and security. An agent lying about all five gets five refusals, each
//! with the answer that contradicted it, and exit status 1; an honest one gets them verified.

mod common;

use a2a_testkit::{
    Binding, Capabilities, RETIRED_INTERFACE_PATH, RunningAgent, ScriptedAgent, ScriptedAgentBuilder,
};
use a2a_typestate::{ClaimKind, Deployment};
use a2a_typestate_client::audit::{
    AgentAudit, AuditFinding, AuditOptions, CardClaimAudit, CardClaimOutcome, audit,
};

const ECHO: &str = "https://example.com/ext/echo/v1";
const TRAIL: &str = "https://example.com/ext/trail/v1";

/// Streams honestly (so no task read is needed), and lies about every card claim: an extended card
/// it does not serve, a required extension it never activates, a retired interface, an output mode
/// it does not answer in, and open access while task reads answer 401.
async fn lying_about_all_five() -> RunningAgent {
    liar().spawn().await.unwrap()
}

fn liar() -> ScriptedAgentBuilder {
    ScriptedAgent::builder()
        .name("five-card-lies")
        .capabilities(Capabilities::none().with_streaming())
        .unserved_extended_card()
        .extension(ECHO)
        .inert_required_extension(TRAIL)
        .retired_interface()
        .default_output_modes(["application/json"])
        .denies_task_reads()
}

fn every_interface() -> AuditOptions {
    AuditOptions { all_interfaces: true, ..AuditOptions::default() }
}

fn refused(agent: &AgentAudit) -> Vec<&CardClaimAudit> {
    agent.card_claims.iter().filter(|c| c.is_refused()).collect()
}

fn evidence(claim: &CardClaimAudit) -> &str {
    match &claim.verdict {
        CardClaimOutcome::Refused { evidence } | CardClaimOutcome::Verified { evidence } => evidence,
        other => panic!("{}: no evidence, {other:?}", claim.claim),
    }
}

#[tokio::test]
async fn an_agent_lying_about_all_five_card_claims_gets_five_refusals_with_evidence_and_exit_1() {
    let agent = lying_about_all_five().await;
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &every_interface()).await;
    let audited = &report.agents[0];

    assert_eq!(report.finding(), AuditFinding::OverDeclares, "{audited:#?}");
    let kinds: Vec<ClaimKind> = refused(audited).iter().map(|c| c.kind).collect();
    assert_eq!(kinds, ClaimKind::ALL, "{:#?}", audited.card_claims);
    let by_kind = |kind| refused(audited).into_iter().find(|c| c.kind == kind).unwrap();
    assert!(evidence(by_kind(ClaimKind::ExtendedCard)).contains("-32004"));
    assert!(by_kind(ClaimKind::Extensions).claim.contains(TRAIL));
    assert!(evidence(by_kind(ClaimKind::Extensions)).contains(ECHO), "the answer named another extension");
    assert!(by_kind(ClaimKind::Interfaces).claim.contains(RETIRED_INTERFACE_PATH));
    assert!(evidence(by_kind(ClaimKind::Interfaces)).contains("http 404"));
    assert!(evidence(by_kind(ClaimKind::OutputModes)).contains("text/plain"));
    assert!(evidence(by_kind(ClaimKind::Security)).contains("without credentials answered http 401"));
    // The lifecycle claim it honours stays verified.
    assert!(audited.over_declares.is_empty(), "{:?}", audited.over_declares);

    let json = serde_json::to_value(&report).unwrap();
    let claims = json["agents"][0]["cardClaims"].as_array().unwrap();
    let refused_json: Vec<&str> =
        claims.iter().filter(|c| c["verdict"] == "refused").filter_map(|c| c["kind"].as_str()).collect();
    assert_eq!(refused_json, ["extended-card", "extensions", "interfaces", "output-modes", "security"]);
}

#[tokio::test]
async fn without_all_interfaces_only_the_interface_in_use_is_called() {
    let agent = lying_about_all_five().await;
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &AuditOptions::default()).await;
    let audited = &report.agents[0];
    let interfaces: Vec<&CardClaimAudit> =
        audited.card_claims.iter().filter(|c| c.kind == ClaimKind::Interfaces).collect();
    assert_eq!(interfaces.len(), 1, "{interfaces:#?}");
    assert!(!interfaces[0].claim.contains(RETIRED_INTERFACE_PATH));
    assert!(agent.requests().iter().all(|r| !r.path.starts_with(RETIRED_INTERFACE_PATH)));
}

#[tokio::test]
async fn claims_picks_which_card_claims_are_checked() {
    let agent = lying_about_all_five().await;
    let options = AuditOptions { claims: vec![ClaimKind::Security], ..every_interface() };
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &options).await;
    let kinds: Vec<ClaimKind> = report.agents[0].card_claims.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ClaimKind::Security]);
    assert_eq!(report.finding(), AuditFinding::OverDeclares);
}

#[tokio::test]
async fn an_honest_agent_gets_its_card_claims_verified_and_exit_0() {
    let agent = ScriptedAgent::builder()
        .capabilities(Capabilities::none().with_streaming())
        .extended_card(Capabilities::none().with_streaming())
        .required_extension(TRAIL)
        .extension(ECHO)
        .spawn()
        .await
        .unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &every_interface()).await;
    let audited = &report.agents[0];
    assert_eq!(report.finding(), AuditFinding::Clean, "{audited:#?}");
    let verified: Vec<ClaimKind> = audited
        .card_claims
        .iter()
        .filter(|c| matches!(c.verdict, CardClaimOutcome::Verified { .. }))
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        verified,
        [
            ClaimKind::ExtendedCard,
            ClaimKind::Extensions,
            ClaimKind::Interfaces,
            ClaimKind::Interfaces,
            ClaimKind::OutputModes,
            ClaimKind::Security
        ],
        "{:#?}",
        audited.card_claims
    );
}

#[tokio::test]
async fn a_guarded_agent_that_declares_its_guard_is_no_security_liar() {
    let agent = ScriptedAgent::builder().guard(a2a_testkit::Guard::bearer("s3cret")).spawn().await.unwrap();
    let options = AuditOptions { claims: vec![ClaimKind::Security], ..AuditOptions::default() };
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &options).await;
    let security = &report.agents[0].card_claims;
    assert_eq!(security.len(), 1, "{security:#?}");
    assert!(matches!(security[0].verdict, CardClaimOutcome::Verified { .. }), "{security:#?}");
}

#[tokio::test]
async fn the_five_card_lies_are_refused_over_http_json_as_over_json_rpc() {
    let agent = liar().bindings([Binding::HttpJson]).spawn().await.unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &every_interface()).await;
    let audited = &report.agents[0];
    assert_eq!(report.finding(), AuditFinding::OverDeclares, "{audited:#?}");
    let kinds: Vec<ClaimKind> = refused(audited).iter().map(|c| c.kind).collect();
    assert_eq!(kinds, ClaimKind::ALL, "{:#?}", audited.card_claims);
    assert!(agent.requests().iter().any(|r| r.path.starts_with("/a2a/rest/extendedAgentCard")));
    assert!(agent.requests().iter().all(|r| !r.path.starts_with("/a2a/jsonrpc")));
}

#[tokio::test]
async fn every_report_format_shows_the_card_claims_and_exit_1() {
    let agent = lying_about_all_five().await;
    let url = agent.base_url();
    let table = common::a2a(&["audit", "--all-interfaces", &url]).await;
    assert_eq!(table.status.code(), Some(1), "{}", common::stderr(&table));
    let text = common::stdout(&table);
    assert!(text.contains("Card claims"), "{text}");
    assert!(text.contains("extended-card, extensions, interfaces, output-modes, security"), "{text}");

    let junit = common::stdout(&common::a2a(&["audit", "--format", "junit", "--all-interfaces", &url]).await);
    assert_eq!(junit.matches("<failure type=\"refused\"").count(), 5, "{junit}");
    assert!(junit.contains("name=\"security: open access (no security requirement)\""), "{junit}");

    let html = common::stdout(&common::a2a(&["audit", "--format", "html", "--all-interfaces", &url]).await);
    assert!(html.contains("class=\"card-claims\""), "{html}");
    assert_eq!(html.matches("<td class=\"refused\">refused</td>").count(), 5, "{html}");
}

#[tokio::test]
async fn an_unknown_claim_name_is_a_usage_error_that_lists_the_names() {
    let output = common::a2a(&["audit", "--claims", "extensions,streaming", "http://127.0.0.1:1"]).await;
    assert_eq!(output.status.code(), Some(64));
    let said = common::stderr(&output);
    assert!(said.contains("unknown claim `streaming`"), "{said}");
    assert!(said.contains("extended-card, extensions, interfaces, output-modes, security"), "{said}");
}

#[tokio::test]
async fn the_five_card_lies_are_refused_over_grpc_too() {
    let agent = liar().bindings([Binding::Grpc]).spawn().await.unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &every_interface()).await;
    let audited = &report.agents[0];
    assert_eq!(report.finding(), AuditFinding::OverDeclares, "{audited:#?}");
    let kinds: Vec<ClaimKind> = refused(audited).iter().map(|c| c.kind).collect();
    assert_eq!(kinds, ClaimKind::ALL, "{:#?}", audited.card_claims);
    assert!(agent.requests().iter().all(|r| !r.path.starts_with("/a2a/")), "only gRPC was called");
}

#[tokio::test]
async fn an_unreachable_first_interface_is_reported_unreachable_and_the_audit_goes_through_the_next() {
    use a2a_testkit::DeadInterface;
    let agent = ScriptedAgent::builder()
        .name("dead-first")
        .capabilities(Capabilities::none().with_streaming().with_push_notifications())
        .dead_interfaces_first(&[DeadInterface::Refused])
        .spawn()
        .await
        .unwrap();
    let dead = agent.card()["supportedInterfaces"][0]["url"].as_str().unwrap().to_owned();
    let live = agent.card()["supportedInterfaces"][1]["url"].as_str().unwrap().to_owned();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &AuditOptions::default()).await;
    let audited = &report.agents[0];

    assert_eq!(
        report.finding(),
        AuditFinding::Clean,
        "an honest agent behind a dead interface: {audited:#?}"
    );
    assert!(audited.error.is_none(), "{audited:#?}");
    assert!(audited.over_declares.is_empty());
    let verdict_of = |url: &str| {
        audited
            .card_claims
            .iter()
            .find(|c| c.kind == ClaimKind::Interfaces && c.claim.contains(url))
            .map(|c| c.verdict.clone())
    };
    assert!(matches!(verdict_of(&dead), Some(CardClaimOutcome::Unreachable { .. })), "{audited:#?}");
    assert!(matches!(verdict_of(&live), Some(CardClaimOutcome::Verified { .. })), "{audited:#?}");
    for claim in &audited.claims {
        assert!(
            matches!(claim.verdict, a2a_typestate_client::audit::ClaimVerdict::Verified { .. }),
            "{:?} audited through the live interface: {:?}",
            claim.capability,
            claim.verdict
        );
    }
    agent.shutdown().await;
}

/// Agno's JSON-RPC interface: the stream carries the whole answer (as message chunks, no
/// artifact), every other method gets HTTP 400 with a framework's own body. Streaming is verified,
/// the interface is refused for not serving its binding, open access is verified by the probe's
/// own credential-less answer, and no detail says "no answer".
#[tokio::test]
async fn an_interface_serving_only_the_stream_verifies_streaming_and_is_refused_for_the_rest() {
    use a2a_testkit::{Quirk, Script};
    let agent = ScriptedAgent::builder()
        .name("stream-only")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().quirk(Quirk::AnswersInMessages).quirk(AGNO_400))
        .spawn()
        .await
        .unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &AuditOptions::default()).await;
    let audited = &report.agents[0];

    assert!(audited.error.is_none(), "{audited:#?}");
    assert!(
        matches!(audited.claims[0].verdict, a2a_typestate_client::audit::ClaimVerdict::Verified { .. }),
        "{audited:#?}"
    );
    let verdict = |kind| audited.card_claims.iter().find(|c| c.kind == kind).map(|c| c.verdict.clone());
    assert!(
        matches!(verdict(ClaimKind::Interfaces), Some(CardClaimOutcome::Refused { ref evidence }) if evidence.contains("400")),
        "{audited:#?}"
    );
    assert!(matches!(verdict(ClaimKind::Security), Some(CardClaimOutcome::Verified { .. })), "{audited:#?}");
    let json = serde_json::to_string(audited).unwrap();
    assert!(!json.contains("no answer") && !json.contains("was answered"), "{json}");
    assert_eq!(report.finding(), AuditFinding::OverDeclares, "the interface over-declares its binding");
    agent.shutdown().await;
}

/// How Agno's JSON-RPC endpoint answers every method but the stream: HTTP 400, FastAPI's own body.
const AGNO_400: a2a_testkit::Quirk = a2a_testkit::Quirk::OnlyStreams {
    status: 400,
    body: r#"{"detail":"Invalid A2A request: only message/stream"}"#,
};

#[tokio::test]
async fn an_audit_of_a_card_declaring_ten_thousand_dead_interfaces_tries_at_most_the_budget() {
    use a2a_testkit::DeadInterface;
    let bound = a2a_typestate_client::TaskBudget::default().interfaces() as usize;
    let behind = |dead: usize| {
        ScriptedAgent::builder()
            .capabilities(Capabilities::none().with_streaming())
            .dead_interfaces_first(Box::leak(vec![DeadInterface::Refused; dead].into_boxed_slice()))
            .spawn()
    };
    // What the budget costs: the live interface right after as many dead ones as the budget allows.
    let within = behind(bound - 1).await.unwrap();
    let started = std::time::Instant::now();
    let report = audit(&[(within.base_url(), Deployment::Direct)], &every_interface()).await;
    let budget_cost = started.elapsed();
    assert_eq!(report.finding(), AuditFinding::Clean, "{:#?}", report.agents[0]);
    within.shutdown().await;

    let agent = behind(10_000).await.unwrap();
    let started = std::time::Instant::now();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &every_interface()).await;
    let cost = started.elapsed();
    let audited = &report.agents[0];
    let interfaces: Vec<&CardClaimAudit> =
        audited.card_claims.iter().filter(|c| c.kind == ClaimKind::Interfaces).collect();
    let called =
        interfaces.iter().filter(|c| !matches!(c.verdict, CardClaimOutcome::Unreachable { .. })).count();
    eprintln!(
        "{bound} interfaces within the budget: {budget_cost:?}; 10,000 dead declared: {cost:?}, \
         {} interface claims reported, {called} called",
        interfaces.len()
    );
    assert!(called <= bound, "{called} interfaces called, the budget is {bound}");
    assert!(interfaces.len() <= 2 * bound, "{} interface claims reported", interfaces.len());
    assert!(agent.requests_for("SendStreamingMessage").is_empty(), "the live interface is past the budget");
    assert!(
        cost <= budget_cost * 4 + std::time::Duration::from_secs(5),
        "10,000 interfaces declared cost {cost:?}, the budget of {bound} {budget_cost:?}"
    );
    agent.shutdown().await;
}
