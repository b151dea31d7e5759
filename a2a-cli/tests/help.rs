//! `--help` works on every command and says what the command does.

mod common;

use common::{a2a, has_escape_codes, stdout};

#[tokio::test]
async fn help_works_on_every_command() {
    for (args, expected) in [
        (&["--help"][..], "Checks A2A agents"),
        (&["demo", "--help"][..], "--tasks-per-agent"),
        (&["audit", "--help"][..], "--json"),
        (&["card", "--help"][..], "<URL>"),
        (&["help", "audit"][..], "over-declares"),
        (&["send", "--help"][..], "[TEXT]"),
        (&["tasks", "--help"][..], "subscribe"),
        (&["tasks", "list", "--help"][..], "--page-size"),
        (&["tasks", "get", "--help"][..], "<ID>"),
        (&["watch", "--help"][..], "--card-check"),
    ] {
        let output = a2a(args).await;
        let shown = stdout(&output);
        assert!(output.status.success(), "{args:?} failed");
        assert!(shown.contains("Usage:"), "{args:?}: {shown}");
        assert!(shown.contains(expected), "{args:?} lacks {expected:?}: {shown}");
        assert!(!has_escape_codes(&shown), "{args:?} coloured in a pipe");
    }
}

#[tokio::test]
async fn a_missing_url_is_a_usage_error_that_says_so() {
    let output = a2a(&["audit"]).await;
    assert_eq!(output.status.code(), Some(64));
    assert!(common::stderr(&output).contains("<URL>"), "{}", common::stderr(&output));
}
