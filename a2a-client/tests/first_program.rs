//! The README's first program run as a user runs it: the example binary `cargo test` builds,
//! against the official Python and JS servers. An honest agent's answer is printed and nothing is
//! refused; a lying card is refused, the program says so and prints the fallback's answer, and the
//! work ran once.

use std::path::PathBuf;
use std::process::Command;

use a2a_testkit::official::{OfficialPeer, PeerKind};

/// `target/<profile>/examples/first_program`, which `cargo test` builds beside this test.
fn program() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>");
    let path = profile.join("examples").join(format!("first_program{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test` builds it, or `cargo build -p a2a-typestate-client --example first_program`",
        path.display()
    );
    path
}

/// What the program printed for `question` to the agent at `url`, and whether it exited 0.
async fn run(url: &str, question: &str) -> (String, bool) {
    let mut command = Command::new(program());
    command.arg(url).arg(question);
    let output =
        tokio::task::spawn_blocking(move || command.output()).await.unwrap().expect("the program runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(stderr.trim().is_empty() || output.status.success(), "{stdout}\n{stderr}");
    (stdout, output.status.success())
}

/// The lines of the example between its README markers.
fn between_markers(text: &str) -> String {
    let begin = "// README first program: begin";
    let end = "// README first program: end";
    let start = text.find(begin).expect("the example marks where the program begins") + begin.len();
    let stop = text.find(end).expect("the example marks where the program ends");
    text[start..stop].trim().to_owned()
}

/// This crate's README (its crates.io page) shows the program CI runs; the workspace README's copy
/// is checked by the `ui-tests` member. At most 30 lines, `main` included.
#[test]
fn the_readme_first_program_is_the_example_ci_runs_in_at_most_30_lines() {
    let code = between_markers(include_str!("../examples/first_program.rs"));
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&code),
        "a2a-client/README.md's first program differs from examples/first_program.rs; paste this between its fences:\n{code}"
    );
    assert!(code.contains("async fn main"), "a whole program");
    let lines = code.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(lines <= 30, "{lines} lines");
}

/// A question no other test asks, so the agent's count of its executions is this test's.
fn question() -> String {
    format!("first program {}", uuid::Uuid::new_v4().simple())
}

/// How many tasks the Python peer started for `text` (it counts them at `/test/executions`).
async fn executions(base: &str, text: &str) -> u64 {
    let url = format!("{}/test/executions", base.trim_end_matches('/'));
    let counts: serde_json::Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    counts.get(text).and_then(serde_json::Value::as_u64).unwrap_or(0)
}

#[tokio::test]
async fn the_first_program_prints_an_honest_agents_answer_and_refuses_nothing() {
    for kind in [PeerKind::PythonHonest, PeerKind::JsHonest] {
        let peer = OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let question = question();
        let (printed, ok) = run(peer.base_url(), &question).await;
        assert!(ok, "{kind:?}: {printed}");
        assert!(!printed.contains("refused"), "{kind:?}: an honest agent refused: {printed}");
        // The peer's answer to a text is its echo: what the program printed is the agent's answer.
        assert_eq!(printed.trim(), format!("echo: {question}"), "{kind:?}");
        if kind == PeerKind::PythonHonest {
            assert_eq!(executions(peer.base_url(), &question).await, 1, "{kind:?}: run once");
        }
    }
}

#[tokio::test]
async fn the_first_program_says_a_lying_card_was_refused_and_prints_the_fallbacks_answer() {
    for kind in [PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring] {
        let peer = OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let question = question();
        let (printed, ok) = run(peer.base_url(), &question).await;
        assert!(ok, "{kind:?}: a refusal is an outcome, not a failure: {printed}");
        let lines: Vec<&str> = printed.lines().collect();
        assert!(
            lines.first().is_some_and(|l| l.starts_with("refused: ") && l.contains("streaming")),
            "{kind:?}: the refusal, naming the claim, comes first: {printed}"
        );
        assert!(lines.contains(&"the single-shot fallback answered:"), "{kind:?}: {printed}");
        assert_eq!(lines.last().copied(), Some(format!("echo: {question}").as_str()), "{kind:?}: {printed}");
        if kind == PeerKind::PythonOverDeclaring {
            assert_eq!(
                executions(peer.base_url(), &question).await,
                1,
                "{kind:?}: the fallback is the only run"
            );
        }
    }
}
