//! `a2a audit --format html|junit` read by real consumers: the HTML page rendered by headless
//! Chromium (screenshot and DOM), the JUnit XML parsed by junitparser. `scripts/report-check.sh`
//! installs both on first use.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, RunningAgent, Script, ScriptedAgent};
use common::{a2a, stderr, stdout};
use serde_json::Value;

async fn fleet() -> (RunningAgent, RunningAgent) {
    let honest = ScriptedAgent::builder()
        .name("honest-weather")
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let liar = ScriptedAgent::builder()
        .name("lying-weather")
        .script(Script::honest().with(Lie::StreamWithoutArtifact))
        .spawn()
        .await
        .unwrap();
    (honest, liar)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-report-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `scripts/report-check.sh` with `args` (installs may take minutes on a fresh machine).
async fn report_check(args: &[&str]) -> std::process::Output {
    let script = workspace_root().join("scripts/report-check.sh");
    let run = tokio::process::Command::new("bash").arg(script).args(args).kill_on_drop(true).output();
    tokio::time::timeout(Duration::from_secs(1500), run)
        .await
        .expect("report-check.sh finishes within 25 minutes")
        .expect("bash runs")
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let word = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (word(16), word(20))
}

#[tokio::test]
async fn the_html_report_renders_in_chromium_with_both_agents_and_the_refusal_marked() {
    let (honest, liar) = fleet().await;
    let output = a2a(&["audit", "--format", "html", &honest.base_url(), &liar.base_url()]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let page = stdout(&output);
    assert!(
        !page.contains("http-equiv") && !page.contains("<script") && !page.contains("<link"),
        "self-contained"
    );
    let dir = scratch("html");
    let report = dir.join("audit.html");
    std::fs::write(&report, &page).unwrap();

    let checked = report_check(&["html", report.to_str().unwrap(), dir.to_str().unwrap()]).await;
    assert!(checked.status.success(), "{}\n{}", stdout(&checked), stderr(&checked));

    let screenshot = std::fs::read(dir.join("screenshot.png")).unwrap();
    assert_eq!(png_size(&screenshot), (1280, 2000));
    assert!(
        screenshot.len() > 20_000,
        "a blank page compresses to almost nothing: {} bytes",
        screenshot.len()
    );
    let dom = std::fs::read_to_string(dir.join("dom.html")).unwrap();
    assert!(dom.contains("honest-weather") && dom.contains("lying-weather"), "both agents rendered");
    assert!(dom.contains("class=\"refusal\""), "the refusal evidence is marked on the timeline");
    assert!(dom.contains("refuses streaming (event #"), "and labelled with its event");
    assert!(dom.contains("streaming: the stream ended without the artifact GetTask has"), "the lie named");
    assert_eq!(dom.matches("<svg").count(), 2, "one timeline per agent");
    assert!(
        dom.contains(">stream<") && dom.contains(">poll<") && dom.contains(">push<"),
        "one lane per channel"
    );
}

#[tokio::test]
async fn the_junit_report_is_read_by_junitparser_one_case_per_agent_and_claim() {
    let (honest, liar) = fleet().await;
    let output = a2a(&["audit", "--format", "junit", &honest.base_url(), &liar.base_url()]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let dir = scratch("junit");
    let report = dir.join("audit.xml");
    std::fs::write(&report, &output.stdout).unwrap();

    let checked = report_check(&["junit", report.to_str().unwrap()]).await;
    assert!(checked.status.success(), "{}\n{}", stdout(&checked), stderr(&checked));
    let summary: Value = serde_json::from_slice(&checked.stdout).unwrap();

    let suites = summary["suites"].as_array().expect("suites");
    assert_eq!(suites.len(), 2, "{summary:#}");
    let case = |suite: &Value, name: &str| {
        suite["cases"].as_array().and_then(|c| c.iter().find(|c| c["name"] == name)).cloned()
    };
    let honest_suite = &suites[0];
    assert_eq!(honest_suite["name"], "honest-weather");
    assert_eq!(case(honest_suite, "streaming").map(|c| c["result"].clone()), Some("passed".into()));
    let liar_suite = &suites[1];
    assert_eq!(liar_suite["name"], "lying-weather");
    assert_eq!(liar_suite["failures"], 1, "{summary:#}");
    let streaming = case(liar_suite, "streaming").expect("a case for the liar's streaming claim");
    assert_eq!(streaming["result"], "failure", "{streaming:#}");
    assert_eq!(streaming["classname"], "lying-weather");
    assert!(streaming["message"].as_str().is_some_and(|m| m.contains("stream ended without the artifact")));
    assert_eq!(case(liar_suite, "wire format").map(|c| c["result"].clone()), Some("passed".into()));
}
