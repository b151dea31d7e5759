//! The README's first program run as a user runs it: the example binary `cargo test` builds,
//! against the official Python and JS servers. An honest agent's answer is printed and nothing is
//! refused; a lying card is refused, the program says so and prints the fallback's answer, and the
//! work ran once.

mod program_common;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use program_common::{between_markers, executions, run, run_with_stderr};

/// This crate's README (its crates.io page) shows the program CI runs; the workspace README's copy
/// is checked by the `ui-tests` member. At most 30 lines, `main` included.
#[test]
fn the_readme_first_program_is_the_example_ci_runs_in_at_most_30_lines() {
    let code = between_markers(include_str!("../examples/first_program.rs"), "first program");
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&code),
        "a2a-client/README.md's first program differs from examples/first_program.rs; paste this between its fences:\n{code}"
    );
    assert!(code.contains("async fn main"), "a whole program");
    let lines = code.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(lines <= 30, "{lines} lines");
}

fn question() -> String {
    program_common::question("first program")
}

#[tokio::test]
async fn the_first_program_prints_an_honest_agents_answer_and_refuses_nothing() {
    for kind in [PeerKind::PythonHonest, PeerKind::JsHonest] {
        let peer = OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let question = question();
        let (printed, ok) = run("first_program", &[peer.base_url(), &question]).await;
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
        let (printed, ok) = run("first_program", &[peer.base_url(), &question]).await;
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

/// `main` returning `Result<(), Report>` prints what went wrong in words: the error's message and
/// the causes it does not already say, never the error's fields.
#[tokio::test]
async fn the_first_program_prints_an_unreachable_agents_error_as_words_not_a_debug_dump() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let (stdout, stderr, success) = run_with_stderr("first_program", &[&url, "hello"]).await;
    assert!(!success, "{stdout}\n{stderr}");
    assert!(stderr.contains(&url), "names the agent: {stderr}");
    assert!(stderr.to_lowercase().contains("connect"), "says what failed: {stderr}");
    for dump in ["Error {", "kind:", "hyper_util", "Some("] {
        assert!(!stderr.contains(dump), "no Debug dump ({dump}): {stderr}");
    }
}
