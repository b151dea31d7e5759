//! The audit asks for every extension the card declares and reports which the agent activated:
//! a row per extension, and `extensions` in the JSON report. Not activating one is no refusal, and
//! a required one does not stop the audit.

use a2a_testkit::ScriptedAgent;
use a2a_typestate::Deployment;
use a2a_typestate_client::audit::{AuditFinding, AuditOptions, ExtensionAudit, audit};

const NOTE: &str = "https://example.com/ext/note/v1";
const TRAIL: &str = "https://example.com/ext/trail/v1";
const INERT: &str = "https://example.com/ext/inert/v1";

#[tokio::test]
async fn the_audit_asks_for_declared_extensions_and_reports_which_were_activated() {
    let agent = ScriptedAgent::builder()
        .extension(NOTE)
        .required_extension(TRAIL)
        .inert_extension(INERT)
        .spawn()
        .await
        .unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &AuditOptions::default()).await;

    assert_eq!(report.finding(), AuditFinding::Clean, "{report:?}");
    let extension =
        |uri: &str, required, activated| ExtensionAudit { uri: uri.to_owned(), required, activated };
    assert_eq!(
        report.agents[0].extensions,
        [extension(NOTE, false, true), extension(TRAIL, true, true), extension(INERT, false, false)]
    );
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.header("A2A-Extensions"), Some(format!("{NOTE},{TRAIL},{INERT}").as_str()));

    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["agents"][0]["extensions"][2],
        serde_json::json!({"uri": INERT, "required": false, "activated": false})
    );
}

#[tokio::test]
async fn a_card_without_extensions_reports_none() {
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let report = audit(&[(agent.base_url(), Deployment::Direct)], &AuditOptions::default()).await;
    assert!(report.agents[0].extensions.is_empty());
    assert_eq!(agent.requests_for("SendMessage")[0].header("A2A-Extensions"), None);
}
