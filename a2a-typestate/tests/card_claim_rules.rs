//! The card-claim refusal rules (`a2a_typestate::card_claim`), one test per claim and clause: the card
//! declares it, the caller depends on it, an answer contradicts it; and for each claim, what an
//! under-declaring card and a transport fault come to.

use std::sync::Arc;

use a2a_typestate::{
    Access, Advice, CardClaim, CardClaimVerdict, CardClaims, ClaimAnswer, ClaimCheck, ClaimKind,
    ClaimPending, Deployment, ExchangeModes, ExtendedCardAnswer, InterfaceAnswer, TransportFault,
};

const EXT: &str = "https://example.com/ext/citations/v1";
const OTHER_EXT: &str = "https://example.com/ext/echo/v1";
const JSONRPC_URL: &str = "http://127.0.0.1:1/rpc";
const REST_URL: &str = "http://127.0.0.1:1/rest";

/// A card with the given `capabilities`, and the rest of the card's fields (`extra`, starting with
/// a comma) added.
fn card(capabilities: &str, extra: &str) -> Arc<CardClaims> {
    card_taking(r#"["text/plain"]"#, capabilities, extra)
}

/// As [`card`], with `defaultInputModes` written as `inputs`.
fn card_taking(inputs: &str, capabilities: &str, extra: &str) -> Arc<CardClaims> {
    let json = format!(
        r#"{{"name":"a","description":"","version":"1","skills":[],
            "supportedInterfaces":[
                {{"url":"{JSONRPC_URL}","protocolBinding":"JSONRPC","protocolVersion":"1.0"}},
                {{"url":"{REST_URL}","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}}],
            "defaultInputModes":{inputs},"defaultOutputModes":["text/plain","application/json"],
            "capabilities":{capabilities}{extra}}}"#
    );
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(&json).unwrap();
    Arc::new(CardClaims::lift(&card, Deployment::Direct))
}

/// The card that declares every claim: extended card, one extension, two interfaces, two output
/// modes, open access.
fn declaring_all() -> Arc<CardClaims> {
    card(
        &format!(r#"{{"extendedAgentCard":true,"extensions":[{{"uri":"{EXT}"}},{{"uri":"{OTHER_EXT}"}}]}}"#),
        "",
    )
}

/// The interface claim for `url`: REST at [`REST_URL`], JSON-RPC anywhere else.
fn interface(url: &str) -> CardClaim {
    let binding = if url == REST_URL { "HTTP+JSON" } else { "JSONRPC" };
    CardClaim::Interface { url: url.into(), protocol_binding: binding.into(), protocol_version: "1.0".into() }
}

fn output_modes() -> CardClaim {
    CardClaim::OutputModes { declared: vec!["text/plain".into(), "application/json".into()] }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// One lie per claim: the claim, and the answer that contradicts it.
fn lies() -> Vec<(CardClaim, ClaimAnswer)> {
    vec![
        (
            CardClaim::ExtendedAgentCard,
            ClaimAnswer::ExtendedCard(ExtendedCardAnswer::AgentError { code: -32004 }),
        ),
        (
            CardClaim::Extension { uri: EXT.into() },
            ClaimAnswer::Extensions {
                asked: strings(&[EXT, OTHER_EXT]).into(),
                activated: strings(&[OTHER_EXT]).into(),
            },
        ),
        (
            interface(JSONRPC_URL),
            ClaimAnswer::Interface {
                url: JSONRPC_URL.into(),
                answer: InterfaceAnswer::OtherBinding { detail: "http 404".into() },
            },
        ),
        (
            output_modes(),
            ClaimAnswer::Output {
                modes: text_accepting(strings(&["application/json"])),
                answered: strings(&["text/html"]),
            },
        ),
        (
            CardClaim::Security(Access::Open),
            ClaimAnswer::Access { credentials_sent: false, status: 401, agent_error: false },
        ),
    ]
}

/// A text message accepting `accepted` output modes (empty: any).
fn text_accepting(accepted: Vec<String>) -> ExchangeModes {
    ExchangeModes::new(["text/plain"], accepted)
}

fn check(
    card: &Arc<CardClaims>,
    claim: &CardClaim,
    depends: bool,
    answers: &[ClaimAnswer],
) -> Option<CardClaimVerdict> {
    let mut check = ClaimCheck::new(card.clone(), claim.clone(), depends);
    for answer in answers {
        check.observe(answer.clone());
    }
    check.verdict()
}

#[test]
fn every_claim_is_lifted_from_the_card_in_card_order() {
    let claims = declaring_all();
    assert_eq!(
        claims.card_claims(),
        [
            CardClaim::ExtendedAgentCard,
            CardClaim::Extension { uri: EXT.into() },
            CardClaim::Extension { uri: OTHER_EXT.into() },
            interface(JSONRPC_URL),
            interface(REST_URL),
            output_modes(),
            CardClaim::Security(Access::Open),
        ]
    );
    let kinds: Vec<ClaimKind> = claims.card_claims().iter().map(CardClaim::kind).collect();
    assert_eq!(kinds.first(), Some(&ClaimKind::ExtendedCard));
    assert_eq!(kinds.last(), Some(&ClaimKind::Security));
}

#[test]
fn a_declared_depended_on_claim_contradicted_by_its_first_answer_is_refused() {
    let card = declaring_all();
    for (claim, lie) in lies() {
        let verdict = check(&card, &claim, true, std::slice::from_ref(&lie)).unwrap();
        let violation =
            verdict.violation().unwrap_or_else(|| panic!("{claim}: expected a refusal, got {verdict}"));
        assert_eq!(violation.claim(), &claim);
        assert_eq!(violation.evidence().seq, 0);
        assert_eq!(violation.evidence().answer, lie);
    }
}

#[test]
fn clause_declares_a_claim_the_card_does_not_make_is_not_checked() {
    // The card declares nothing beyond its interfaces and modes, and requires a credential.
    let card = card(
        "{}",
        r#","securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}},
            "securityRequirements":[{"schemes":{"key":{"list":[]}}}]"#,
    );
    let undeclared = [
        CardClaim::ExtendedAgentCard,
        CardClaim::Extension { uri: EXT.into() },
        interface("http://127.0.0.1:1/other"),
        CardClaim::OutputModes { declared: strings(&["text/html"]) },
        CardClaim::Security(Access::Open),
    ];
    for (claim, (_, lie)) in undeclared.iter().zip(lies()) {
        assert_eq!(check(&card, claim, true, &[lie]), None, "{claim}");
    }
}

#[test]
fn clause_depends_a_claim_the_caller_does_not_depend_on_is_not_checked() {
    let card = declaring_all();
    for (claim, lie) in lies() {
        assert_eq!(check(&card, &claim, false, &[lie]), None, "{claim}");
    }
}

#[test]
fn clause_contradicted_an_honouring_first_answer_verifies_and_later_answers_do_not_change_it() {
    let card = declaring_all();
    let honest = [
        ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Served),
        ClaimAnswer::Extensions { asked: strings(&[EXT]).into(), activated: strings(&[EXT]).into() },
        ClaimAnswer::Interface {
            url: JSONRPC_URL.into(),
            answer: InterfaceAnswer::Served { protocol_version: Some("1.0".into()) },
        },
        ClaimAnswer::Output {
            modes: text_accepting(strings(&["application/json"])),
            answered: strings(&["application/json"]),
        },
        ClaimAnswer::Access { credentials_sent: false, status: 200, agent_error: false },
    ];
    for ((claim, lie), honest) in lies().into_iter().zip(honest) {
        let verdict = check(&card, &claim, true, &[honest, lie]).unwrap();
        assert!(verdict.is_verified(), "{claim}: {verdict}");
        assert_eq!(verdict.advice(), Advice::Proceed);
    }
}

#[test]
fn a_transport_fault_never_refuses_any_claim() {
    let card = declaring_all();
    for (claim, _) in lies() {
        let faults = [
            ClaimAnswer::TransportFault(TransportFault::Connect),
            ClaimAnswer::TransportFault(TransportFault::Unavailable(503)),
        ];
        let verdict = check(&card, &claim, true, &faults).unwrap();
        assert_eq!(
            verdict,
            CardClaimVerdict::Pending(ClaimPending::TransportFault(TransportFault::Unavailable(503)))
        );
        assert_eq!(verdict.advice(), Advice::Retry);
    }
}

#[test]
fn a_claim_with_no_exercising_answer_is_pending_not_exercised() {
    let card = declaring_all();
    for (claim, _) in lies() {
        assert_eq!(
            check(&card, &claim, true, &[]),
            Some(CardClaimVerdict::Pending(ClaimPending::NotExercised))
        );
    }
}

#[test]
fn a_gateway_card_makes_no_card_claims() {
    let json = format!(
        r#"{{"name":"a","description":"","version":"1","skills":[],"supportedInterfaces":[
            {{"url":"{JSONRPC_URL}","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "defaultInputModes":[],"defaultOutputModes":["text/plain"],
            "capabilities":{{"extendedAgentCard":true}}}}"#
    );
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(&json).unwrap();
    let claims = Arc::new(CardClaims::lift(&card, Deployment::Gateway));
    assert!(claims.card_claims().is_empty());
    let lie = ClaimAnswer::ExtendedCard(ExtendedCardAnswer::AgentError { code: -32004 });
    assert_eq!(check(&claims, &CardClaim::ExtendedAgentCard, true, &[lie]), None);
}

// Extended card.

#[test]
fn extended_card_not_configured_is_a_contradiction_of_the_declared_extended_card() {
    let card = declaring_all();
    let answer = ClaimAnswer::ExtendedCard(ExtendedCardAnswer::AgentError { code: -32007 });
    assert!(check(&card, &CardClaim::ExtendedAgentCard, true, &[answer]).unwrap().violation().is_some());
}

#[test]
fn extended_card_denied_or_an_unrelated_error_is_inconclusive() {
    let card = declaring_all();
    for answer in
        [ExtendedCardAnswer::Denied { status: 401 }, ExtendedCardAnswer::AgentError { code: -32603 }]
    {
        let answer = ClaimAnswer::ExtendedCard(answer);
        let verdict =
            check(&card, &CardClaim::ExtendedAgentCard, true, std::slice::from_ref(&answer)).unwrap();
        assert!(
            matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(ref e)) if e.answer == answer)
        );
    }
}

#[test]
fn extended_card_under_declared_is_safe() {
    // The card does not declare an extended card; the agent serves one anyway: nothing to judge.
    let card = card("{}", "");
    assert!(!card.card_claims().contains(&CardClaim::ExtendedAgentCard));
    let served = ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Served);
    assert_eq!(check(&card, &CardClaim::ExtendedAgentCard, true, &[served]), None);
}

#[test]
fn extended_card_claim_is_read_from_a_0_3_card_too() {
    let v03 = r#"{"protocolVersion":"0.3.0","name":"a","description":"","url":"http://127.0.0.1:1/",
        "version":"1","capabilities":{},"supportsAuthenticatedExtendedCard":true,
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
    let (_, converted) = a2a_typestate_types::v03::read_any_card(v03.as_bytes()).unwrap();
    let claims = CardClaims::lift(&converted.value, Deployment::Direct);
    assert!(claims.card_claims().contains(&CardClaim::ExtendedAgentCard));
}

// Extensions.

#[test]
fn extension_not_asked_for_is_not_exercised() {
    let card = declaring_all();
    let claim = CardClaim::Extension { uri: EXT.into() };
    let answer = ClaimAnswer::Extensions { asked: Default::default(), activated: Default::default() };
    assert_eq!(
        check(&card, &claim, true, &[answer]),
        Some(CardClaimVerdict::Pending(ClaimPending::NotExercised))
    );
}

#[test]
fn extension_answer_naming_no_extension_at_all_is_inconclusive() {
    let card = declaring_all();
    let claim = CardClaim::Extension { uri: EXT.into() };
    let answer = ClaimAnswer::Extensions { asked: strings(&[EXT]).into(), activated: Default::default() };
    let verdict = check(&card, &claim, true, &[answer]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))), "{verdict}");
}

#[test]
fn extension_under_declared_activating_an_undeclared_one_is_safe() {
    let card = card("{}", "");
    let other = "https://example.com/ext/undeclared/v1";
    assert!(card.card_claims().iter().all(|c| c.kind() != ClaimKind::Extensions));
    let claim = CardClaim::Extension { uri: other.into() };
    let answer = ClaimAnswer::Extensions { asked: strings(&[other]).into(), activated: Default::default() };
    assert_eq!(check(&card, &claim, true, &[answer]), None);
}

#[test]
fn this_sdks_card_annotations_are_not_extension_claims() {
    let card = card(
        &format!(
            r#"{{"extensions":[{{"uri":"{}","params":{{"intervalMs":500}}}}]}}"#,
            a2a_typestate::POLL_CADENCE_EXTENSION_URI
        ),
        "",
    );
    assert!(card.card_claims().iter().all(|c| c.kind() != ClaimKind::Extensions));
}

// Interfaces.

#[test]
fn interface_answering_another_protocol_version_contradicts_it() {
    let card = declaring_all();
    let claim = interface(REST_URL);
    for answer in [
        InterfaceAnswer::Served { protocol_version: Some("0.3".into()) },
        InterfaceAnswer::AgentError { code: -32009 },
    ] {
        let answer = ClaimAnswer::Interface { url: REST_URL.into(), answer };
        assert!(check(&card, &claim, true, &[answer]).unwrap().violation().is_some());
    }
}

#[test]
fn interface_answer_for_another_url_does_not_exercise_it() {
    let card = declaring_all();
    let answer = ClaimAnswer::Interface {
        url: REST_URL.into(),
        answer: InterfaceAnswer::OtherBinding { detail: "http 404".into() },
    };
    let verdict = check(&card, &interface(JSONRPC_URL), true, &[answer]).unwrap();
    assert_eq!(verdict, CardClaimVerdict::Pending(ClaimPending::NotExercised));
}

#[test]
fn interface_unrelated_protocol_error_is_inconclusive_and_a_patch_version_is_the_same_version() {
    let card = declaring_all();
    let claim = interface(JSONRPC_URL);
    let unrelated = ClaimAnswer::Interface {
        url: JSONRPC_URL.into(),
        answer: InterfaceAnswer::AgentError { code: -32001 },
    };
    let verdict = check(&card, &claim, true, &[unrelated]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))));
    let patch = ClaimAnswer::Interface {
        url: JSONRPC_URL.into(),
        answer: InterfaceAnswer::Served { protocol_version: Some("1.0.1".into()) },
    };
    assert!(check(&card, &claim, true, &[patch]).unwrap().is_verified());
}

#[test]
fn interface_under_declared_an_undeclared_endpoint_is_not_judged() {
    let card = declaring_all();
    let claim = interface("http://127.0.0.1:1/undeclared");
    let answer = ClaimAnswer::Interface {
        url: "http://127.0.0.1:1/undeclared".into(),
        answer: InterfaceAnswer::OtherBinding { detail: "http 404".into() },
    };
    assert_eq!(check(&card, &claim, true, &[answer]), None);
}

// Output modes.

#[test]
fn output_modes_accepting_a_mode_the_card_does_not_declare_is_inconclusive() {
    let card = declaring_all();
    let answer = ClaimAnswer::Output {
        modes: text_accepting(strings(&["image/png"])),
        answered: strings(&["text/html"]),
    };
    let verdict = check(&card, &output_modes(), true, &[answer]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))));
}

#[test]
fn output_modes_accepting_any_is_inconclusive() {
    let card = declaring_all();
    let answer = ClaimAnswer::Output { modes: text_accepting(Vec::new()), answered: strings(&["text/html"]) };
    let verdict = check(&card, &output_modes(), true, &[answer]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))));
}

#[test]
fn output_modes_match_by_wildcard_and_parameters() {
    let claims = {
        let json = r#"{"name":"a","description":"","version":"1","skills":[{"id":"s","name":"s","description":"",
            "tags":[],"outputModes":["image/*"]}],"supportedInterfaces":[],"defaultInputModes":[],
            "defaultOutputModes":["text/plain"],"capabilities":{}}"#;
        let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(json).unwrap();
        Arc::new(CardClaims::lift(&card, Deployment::Direct))
    };
    let claim = CardClaim::OutputModes { declared: strings(&["text/plain", "image/*"]) };
    assert!(claims.card_claims().contains(&claim), "a skill's output modes join the defaults");
    let answer = ClaimAnswer::Output {
        modes: text_accepting(strings(&["image/png", "text/plain"])),
        answered: strings(&["image/png", "text/plain; charset=utf-8"]),
    };
    assert!(check(&claims, &claim, true, &[answer]).unwrap().is_verified());
}

#[test]
fn output_modes_under_declared_a_card_without_output_modes_makes_no_claim() {
    let json = r#"{"name":"a","description":"","version":"1","skills":[],"supportedInterfaces":[],
        "defaultInputModes":[],"defaultOutputModes":[],"capabilities":{}}"#;
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(json).unwrap();
    let claims = CardClaims::lift(&card, Deployment::Direct);
    assert!(claims.card_claims().iter().all(|c| c.kind() != ClaimKind::OutputModes));
}

// Security.

#[test]
fn security_open_access_denied_with_the_agents_own_403_is_a_contradiction_and_abandons() {
    let card = declaring_all();
    let answer = ClaimAnswer::Access { credentials_sent: false, status: 403, agent_error: true };
    let verdict = check(&card, &CardClaim::Security(Access::Open), true, &[answer]).unwrap();
    assert_eq!(verdict.violation().map(|v| v.advice()), Some(Advice::Abandon));
}

#[test]
fn security_a_bare_403_may_be_a_gateways_and_is_no_contradiction_of_open_access() {
    let card = declaring_all();
    let answer = ClaimAnswer::Access { credentials_sent: false, status: 403, agent_error: false };
    let verdict =
        check(&card, &CardClaim::Security(Access::Open), true, std::slice::from_ref(&answer)).unwrap();
    assert!(
        matches!(&verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(e)) if e.answer == answer)
    );
    // A 401 demands credentials, whoever sends it: with or without an A2A body it contradicts.
    let bare_401 = ClaimAnswer::Access { credentials_sent: false, status: 401, agent_error: false };
    assert!(
        check(&card, &CardClaim::Security(Access::Open), true, &[bare_401]).unwrap().violation().is_some()
    );
}

#[test]
fn security_a_call_with_credentials_does_not_exercise_the_claim() {
    let card = declaring_all();
    let answer = ClaimAnswer::Access { credentials_sent: true, status: 401, agent_error: false };
    let verdict = check(&card, &CardClaim::Security(Access::Open), true, &[answer]).unwrap();
    assert_eq!(verdict, CardClaimVerdict::Pending(ClaimPending::NotExercised));
}

#[test]
fn security_required_but_served_without_credentials_is_a_warning_never_a_refusal() {
    let card = card(
        "{}",
        r#","securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}},
            "securityRequirements":[{"schemes":{"key":{"list":[]}}}]"#,
    );
    let claim = CardClaim::Security(Access::Required);
    assert!(card.card_claims().contains(&claim));
    let served = ClaimAnswer::Access { credentials_sent: false, status: 200, agent_error: false };
    let verdict = check(&card, &claim, true, std::slice::from_ref(&served)).unwrap();
    assert!(matches!(&verdict, CardClaimVerdict::Warning(e) if e.answer == served));
    assert!(verdict.violation().is_none());
    let denied = ClaimAnswer::Access { credentials_sent: false, status: 401, agent_error: false };
    assert!(check(&card, &claim, true, &[denied]).unwrap().is_verified());
}

#[test]
fn security_under_declared_schemes_without_requirements_or_skill_requirements_claim_no_open_access() {
    let schemes_only = card(
        "{}",
        r#","securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}}"#,
    );
    assert!(schemes_only.card_claims().iter().all(|c| c.kind() != ClaimKind::Security));
    let denied = ClaimAnswer::Access { credentials_sent: false, status: 401, agent_error: false };
    assert_eq!(check(&schemes_only, &CardClaim::Security(Access::Open), true, &[denied]), None);

    let json = r#"{"name":"a","description":"","version":"1","supportedInterfaces":[],"defaultInputModes":[],
        "defaultOutputModes":[],"capabilities":{},"skills":[{"id":"s","name":"s","description":"","tags":[],
        "securityRequirements":[{"schemes":{"key":{"list":[]}}}]}]}"#;
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(json).unwrap();
    let claims = CardClaims::lift(&card, Deployment::Direct);
    assert!(claims.card_claims().iter().all(|c| c.kind() != ClaimKind::Security));
}

#[test]
fn security_an_empty_requirement_among_the_alternatives_claims_open_access() {
    let card = card(
        "{}",
        r#","securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}},
            "securityRequirements":[{},{"schemes":{"key":{"list":[]}}}]"#,
    );
    assert!(card.card_claims().contains(&CardClaim::Security(Access::Open)));
}

#[test]
fn a_refusal_names_the_claim_and_the_answer_in_words() {
    let card = declaring_all();
    let (claim, lie) = lies().remove(0);
    let verdict = check(&card, &claim, true, &[lie]).unwrap();
    assert_eq!(
        verdict.to_string(),
        "refused: card declares an extended agent card but answer #0: GetExtendedAgentCard answered error -32004"
    );
}

#[test]
fn security_a_server_error_without_credentials_says_nothing_about_access() {
    let open = declaring_all();
    let answer = ClaimAnswer::Access { credentials_sent: false, status: 500, agent_error: false };
    let verdict =
        check(&open, &CardClaim::Security(Access::Open), true, std::slice::from_ref(&answer)).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))), "{verdict}");
    let required = card(
        "{}",
        r#","securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}},
            "securityRequirements":[{"schemes":{"key":{"list":[]}}}]"#,
    );
    let verdict = check(&required, &CardClaim::Security(Access::Required), true, &[answer]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::Inconclusive(_))), "{verdict}");
}

#[test]
fn a_check_numbers_its_answers_and_keeps_them_in_order() {
    let mut check = ClaimCheck::new(declaring_all(), CardClaim::ExtendedAgentCard, true);
    let fault = ClaimAnswer::TransportFault(TransportFault::Reset);
    let served = ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Served);
    assert_eq!(check.observe(fault.clone()), 0);
    assert_eq!(check.observe(served.clone()), 1);
    assert_eq!(check.answers(), [fault, served]);
    assert!(matches!(check.verdict(), Some(CardClaimVerdict::Verified(e)) if e.seq == 1));
}

#[test]
fn verdicts_and_kinds_read_in_words() {
    assert_eq!(ClaimKind::OutputModes.to_string(), "output-modes");
    let refused = check(&declaring_all(), &lies()[0].0, true, &[lies()[0].1.clone()]).unwrap();
    assert!(!refused.is_verified());
    let pending = |p| CardClaimVerdict::Pending(p).to_string();
    assert_eq!(pending(ClaimPending::NotExercised), "pending: not exercised yet");
    assert_eq!(pending(ClaimPending::TransportFault(TransportFault::Timeout)), "pending: timed out, retry");
    let denied = ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Denied { status: 401 });
    assert_eq!(
        pending(ClaimPending::Inconclusive(a2a_typestate::ClaimEvidence { seq: 2, answer: denied })),
        "pending: inconclusive: answer #2: GetExtendedAgentCard answered http 401"
    );
}

#[test]
fn output_modes_contradicted_by_an_answer_to_an_undeclared_input_mode_are_unverifiable_not_refused() {
    // Clause 3: the card takes only JSON; an answer to a text message proves nothing about it.
    let json = r#"{"name":"a","description":"","version":"1","skills":[],"supportedInterfaces":[],
        "defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],"capabilities":{}}"#;
    let card: a2a_typestate_types::AgentCard = a2a_typestate_types::parse::from_str(json).unwrap();
    let claims = Arc::new(CardClaims::lift(&card, Deployment::Direct));
    let claim = CardClaim::OutputModes { declared: strings(&["application/json"]) };
    let accepted = strings(&["application/json"]);
    let text_answer = |input: &str| ClaimAnswer::Output {
        modes: ExchangeModes::new([input], accepted.clone()),
        answered: strings(&["text/plain"]),
    };
    let verdict = check(&claims, &claim, true, &[text_answer("text/plain")]).unwrap();
    assert!(matches!(verdict, CardClaimVerdict::Pending(ClaimPending::OutsideDeclaredModes(_))), "{verdict}");
    assert!(verdict.to_string().contains("unverifiable"), "{verdict}");
    // The same answer to a message in the declared mode refuses.
    let verdict = check(&claims, &claim, true, &[text_answer("application/json")]).unwrap();
    assert!(verdict.violation().is_some(), "{verdict}");
}

#[test]
fn every_answer_to_a_claims_own_call_counts_whatever_the_modes() {
    // Clause 3 reads message exchanges only: a card declaring no input mode at all still has its
    // extended card, extensions, interfaces and security judged on their own calls.
    let security = r#","securitySchemes":{}"#;
    let takes_nothing = card_taking(
        "[]",
        &format!(r#"{{"extendedAgentCard":true,"extensions":[{{"uri":"{EXT}"}},{{"uri":"{OTHER_EXT}"}}]}}"#),
        security,
    );
    for (claim, lie) in lies().into_iter().filter(|(claim, _)| claim.kind() != ClaimKind::OutputModes) {
        assert_eq!(lie.reach(), a2a_typestate::rules::Reach::OwnCall, "{claim}");
        let verdict = check(&takes_nothing, &claim, true, &[lie]).unwrap();
        assert!(verdict.violation().is_some(), "{claim}: {verdict}");
    }
}
