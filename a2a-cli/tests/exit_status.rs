//! One exit status scheme for every command (`a2a_typestate_cli::exit`), printed by `a2a --help`
//! and in the README; and what a newcomer types that the commands read as meant: a URL without its
//! scheme, output piped into another program, `a2a watch` started from any folder.

mod common;

use a2a_testkit::ScriptedAgent;
use a2a_typestate_cli::exit::{Exit, TABLE};
use common::{a2a, stderr, stdout};

/// A loopback URL where nothing listens.
fn unreachable() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn an_unreachable_agent_is_no_result_for_every_command_that_reaches_one() {
    let url = unreachable();
    let commands: [&[&str]; 7] = [
        &["send", "--request-timeout", "2s", &url, "hi"],
        &["card", "--request-timeout", "2s", &url],
        &["audit", "--request-timeout", "2s", &url],
        &["tasks", "list", "--request-timeout", "2s", &url],
        &["tasks", "get", "--request-timeout", "2s", &url, "t-1"],
        &["tasks", "cancel", "--request-timeout", "2s", &url, "t-1"],
        &["conformance", "report", &url],
    ];
    for args in commands {
        let output = a2a(args).await;
        assert_eq!(
            output.status.code(),
            Some(i32::from(Exit::NoResult.code())),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("panicked"), "{args:?}");
    }
}

#[tokio::test]
async fn a_command_line_that_cannot_be_read_is_a_usage_error_for_every_command() {
    let commands: [&[&str]; 9] = [
        &[],
        &["no-such-command"],
        &["send"],
        &["send", "--no-such-option", "http://a", "hi"],
        &["card", "--request-timeout", "soon", "http://a"],
        &["audit"],
        &["tasks", "get", "http://a"],
        &["watch", "--interval", "0s", "http://a"],
        &["demo", "--tasks-per-agent", "0"],
    ];
    for args in commands {
        let output = a2a(args).await;
        assert_eq!(
            output.status.code(),
            Some(i32::from(Exit::Usage.code())),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{args:?}: the error goes to stderr");
    }
    for asked in [&["--help"][..], &["--version"], &["send", "--help"]] {
        assert_eq!(a2a(asked).await.status.code(), Some(i32::from(Exit::Done.code())), "{asked:?}");
    }
}

#[tokio::test]
async fn the_exit_status_table_is_in_the_help_and_in_the_readme_alike() {
    let help = stdout(&a2a(&["--help"]).await);
    assert!(help.contains(TABLE), "{help}");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains(TABLE), "a2a-cli/README.md holds the table as `a2a --help` prints it");
}

#[tokio::test]
async fn a_url_typed_without_its_scheme_is_read_as_meant_and_says_so() {
    let agent = ScriptedAgent::builder().name("schemeless").spawn().await.unwrap();
    let typed = agent.base_url().trim_start_matches("http://").to_owned();
    let output = a2a(&["card", &typed]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("schemeless"), "{}", stdout(&output));
    assert!(stderr(&output).contains(&format!("read as http://{typed}")), "{}", stderr(&output));

    let output = a2a(&["send", "agent example", "hi"]).await;
    assert_eq!(output.status.code(), Some(i32::from(Exit::Usage.code())));
    assert!(stderr(&output).contains("`agent example` is no URL"), "{}", stderr(&output));
}

#[tokio::test]
async fn a_table_piped_into_another_program_keeps_every_word_whole_on_its_line() {
    let long_path = format!("/{}", (0..40).map(|i| format!("segment{i}")).collect::<Vec<_>>().join("/"));
    let agent = ScriptedAgent::builder().name("long-urls").spawn().await.unwrap();
    let card_url = format!("{}{long_path}", agent.base_url());
    let card = serde_json::json!({
        "name": "long-urls", "description": "an agent whose interface URL is longer than any terminal",
        "version": "1", "skills": [], "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "capabilities": {},
        "supportedInterfaces": [{"url": card_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    });
    let base = common::serve_card_json(card).await;
    let output = a2a(&["card", &base]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).lines().any(|line| line.contains(&card_url)),
        "the URL is whole on one line: {}",
        stdout(&output)
    );
}

/// A new, empty directory of its own under the system's temporary directory.
fn fresh_dir(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-exit-status-{what}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn watch_keeps_its_history_under_the_users_data_directory_not_the_current_folder() {
    let data = fresh_dir("data");
    let folder = fresh_dir("started-in");
    let agent = ScriptedAgent::builder().spawn().await.unwrap();
    let mut command = common::command(&["watch", "--listen", "127.0.0.1:0", &agent.base_url()], &[]);
    command
        .current_dir(folder.as_path())
        .env("XDG_DATA_HOME", data.as_path())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    let mut child = command.spawn().unwrap();
    let mut said = tokio::io::BufReader::new(child.stderr.take().unwrap());
    let expected = data.as_path().join("a2a").join("watch.redb");
    let mut lines = String::new();
    let found = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        use tokio::io::AsyncBufReadExt as _;
        let mut line = String::new();
        while said.read_line(&mut line).await.unwrap() > 0 {
            lines.push_str(&line);
            if line.contains("history is kept in") {
                return Some(line);
            }
            line.clear();
        }
        None
    })
    .await
    .ok()
    .flatten();
    child.kill().await.unwrap();
    let found = found.unwrap_or_else(|| panic!("the watch named no store: {lines}"));
    assert!(found.contains(&expected.display().to_string()), "{found}");
    assert!(expected.exists(), "{}", expected.display());
    assert_eq!(
        std::fs::read_dir(folder.as_path()).unwrap().count(),
        0,
        "nothing written where it was started"
    );
    let _ = std::fs::remove_dir_all(data);
    let _ = std::fs::remove_dir_all(folder);
}
