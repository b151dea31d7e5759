//! The fan-out example run as a user runs it, over agents of every kind at once: honest and lying
//! official servers, one that refuses connections and one that accepts them and never answers.
//! Each agent gets one definite line; a lie is refused by name and the fallback answers; the
//! unreachable and the hung agent each say why in words, and the hung one costs the deadline the
//! program set, not the others' answers.

mod program_common;

use a2a_testkit::official::{OfficialPeer, PeerKind};
use program_common::{executions, run};

/// The last line the program printed for `agent`, and the refusals before it.
fn lines_of<'a>(printed: &'a str, agent: &str) -> (Vec<&'a str>, Option<&'a str>) {
    let prefix = format!("{agent}: ");
    let mine: Vec<&str> = printed.lines().filter_map(|l| l.strip_prefix(prefix.as_str())).collect();
    let (refusals, rest): (Vec<&str>, Vec<&str>) = mine.iter().partition(|l| l.starts_with("refused: "));
    assert!(rest.len() <= 1, "{agent}: one outcome line, got {rest:?}");
    (refusals.into_iter().map(|l| &l["refused: ".len()..]).collect(), rest.first().copied())
}

#[tokio::test]
async fn a_fan_out_gives_every_agent_one_outcome_and_names_every_refusal() {
    let honest = [PeerKind::PythonHonest, PeerKind::JsHonest];
    let lying = [PeerKind::PythonOverDeclaring, PeerKind::JsOverDeclaring];
    let mut peers = Vec::new();
    for kind in honest.into_iter().chain(lying) {
        peers.push((kind, OfficialPeer::shared(kind).await.unwrap_or_else(|e| panic!("{e}"))));
    }
    let refusing = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap();
    let unreachable = format!("http://{refusing}");
    // The kernel completes its handshakes into the backlog; nothing ever reads or answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hung = format!("http://{}", silent.local_addr().unwrap());

    let question = program_common::question("fan out");
    let mut args = vec![question.as_str()];
    args.extend(peers.iter().map(|(_, peer)| peer.base_url()));
    args.extend([unreachable.as_str(), hung.as_str()]);
    let (printed, ok) = run("fan_out", &args).await;
    assert!(ok, "{printed}");

    for (kind, peer) in &peers {
        let (refusals, outcome) = lines_of(&printed, peer.base_url());
        assert_eq!(outcome, Some(format!("echo: {question}").as_str()), "{kind:?}: {printed}");
        if honest.contains(kind) {
            assert!(refusals.is_empty(), "{kind:?}: an honest agent refused: {printed}");
        } else {
            assert!(
                !refusals.is_empty() && refusals.iter().all(|r| r.contains("streaming")),
                "{kind:?}: the lie is refused by its claim: {printed}"
            );
        }
        if matches!(kind, PeerKind::PythonHonest | PeerKind::PythonOverDeclaring) {
            assert_eq!(executions(peer.base_url(), &question).await, 1, "{kind:?}: the work ran once");
        }
    }
    let (refusals, outcome) = lines_of(&printed, &unreachable);
    let outcome = outcome.unwrap_or_default();
    assert!(refusals.is_empty() && outcome.starts_with("no answer: "), "{printed}");
    assert!(
        outcome.contains("Connection refused") || outcome.contains("connect"),
        "says what failed: {outcome}"
    );
    let (refusals, outcome) = lines_of(&printed, &hung);
    let outcome = outcome.unwrap_or_default();
    assert!(refusals.is_empty(), "a silent agent is never called a liar: {printed}");
    assert!(outcome.contains("task deadline of 10 s"), "names the bound that ran out: {outcome}");
    for dump in ["Error {", "kind:", "Some("] {
        assert!(!printed.contains(dump), "no Debug dump ({dump}): {printed}");
    }
    drop(silent);
}
