//! The README quickstart run as a user runs it: the example binary `cargo test` builds, against
//! the official Python and JS servers. An honest agent is verified and both answers printed; a
//! lying card is refused (never an `Err`), the fallback's answer printed, the agent marked, and the
//! second question goes single-shot at once; each question ran once on the agent.
//!
//! The crate README's block must be the example's text, so what a user copies is what runs.

mod program_common;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use program_common::{between_markers, executions, question, run};

/// This crate's README (its crates.io page). The workspace README carries the same block, checked
/// by the `ui-tests` member (that file is not part of this package).
#[test]
fn the_readme_quickstart_is_the_example_ci_runs() {
    let code = between_markers(include_str!("../examples/quickstart.rs"), "quickstart");
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&code),
        "a2a-client/README.md's quickstart block differs from examples/quickstart.rs; paste this between its fences:\n{code}"
    );
    assert!(code.contains("async fn main"), "a whole program");
}

#[tokio::test]
async fn the_quickstart_refuses_a_lying_official_peer_falls_back_marks_it_and_then_goes_single_shot_at_once()
{
    for kind in [PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring] {
        let peer = OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let (first, next) = (question("quickstart"), question("quickstart"));

        let (printed, ok) = run("quickstart", &[peer.base_url(), &first, &next]).await;

        assert!(ok, "{kind:?}: a refusal is an outcome, not a failure: {printed}");
        let lines: Vec<&str> = printed.lines().collect();
        let [refused, fallback, suspect, single_shot] = lines[..] else { panic!("{kind:?}: {printed}") };
        assert!(refused.starts_with("refused: ") && refused.contains("streaming"), "{kind:?}: {printed}");
        assert_eq!(fallback, format!("echo: {first}"), "{kind:?}: the fallback's answer");
        assert!(
            suspect.starts_with("suspect, single-shot at once: ") && suspect.contains("streaming"),
            "{kind:?}: the second task goes single-shot because of the mark: {printed}"
        );
        assert_eq!(single_shot, format!("echo: {next}"), "{kind:?}");
        if kind == PeerKind::PythonOverDeclaring {
            for asked in [&first, &next] {
                assert_eq!(executions(peer.base_url(), asked).await, 1, "{kind:?}: {asked} ran once");
            }
        }
    }
}

#[tokio::test]
async fn the_quickstart_verifies_an_honest_official_peer() {
    for kind in [PeerKind::PythonHonest, PeerKind::JsHonest] {
        let peer = OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"));
        let (first, next) = (question("quickstart"), question("quickstart"));

        let (printed, ok) = run("quickstart", &[peer.base_url(), &first, &next]).await;

        assert!(ok, "{kind:?}: {printed}");
        // Verified each time: no refusal, no mark, nothing pending; each answer the agent's echo.
        assert_eq!(printed.trim(), format!("echo: {first}\necho: {next}"), "{kind:?}");
        if kind == PeerKind::PythonHonest {
            assert_eq!(executions(peer.base_url(), &first).await, 1, "{kind:?}: run once");
        }
    }
}
