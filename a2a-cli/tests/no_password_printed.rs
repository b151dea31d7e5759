//! A password the user typed into a URL is never printed: every subcommand, in every output format,
//! given URLs that carry one unique password (as an agent URL, in an agents file, as `--gateway`,
//! `--allow-credential-origin` and `--redis`), leaves it out of stdout, stderr and the files it
//! writes, and shows the URL with its user info masked.

mod common;

use std::process::Output;
use std::time::Duration;

use a2a_testkit::{Capabilities, ScriptedAgent};
use common::{a2a, stderr, stdout};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// A scratch directory of this test, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("a2a-no-password-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything a run printed.
fn printed(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

/// Asserts `text`, what `run` printed or wrote, holds no `password`, and (when `shows_url`) that it
/// showed a URL with its user info masked.
fn assert_masked(run: &str, text: &str, password: &str, shows_url: bool) {
    assert!(!text.contains(password), "{run} printed the password:\n{text}");
    if shows_url {
        assert!(text.contains(":***@"), "{run} shows no masked URL:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_in_a_url_appears_in_no_output_of_any_subcommand_or_format() {
    let password = format!("pw-{}", uuid::Uuid::new_v4().simple());
    let mut agents = Vec::new();
    for _ in 0..3 {
        let agent = ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn();
        agents.push(agent.await.unwrap());
    }
    let with_password = |url: &str| url.replacen("://", &format!("://alice:{password}@"), 1);
    let url = with_password(&agents[0].base_url());
    let url = url.as_str();
    let scratch = Scratch::new();
    // The test's own input apart from what the commands write.
    let written = scratch.0.join("written");
    std::fs::create_dir_all(&written).unwrap();
    let agents_file = scratch.0.join("agents.txt");
    let (listed, gateway) = (with_password(&agents[1].base_url()), with_password(&agents[2].base_url()));
    std::fs::write(&agents_file, format!("{listed}\ngateway {gateway}\n")).unwrap();
    let file = agents_file.to_string_lossy().into_owned();
    let file = file.as_str();

    let mut runs: Vec<(Vec<&str>, bool)> = Vec::new();
    for format in ["table", "json", "junit", "html"] {
        runs.push((vec!["audit", "--format", format, url], true));
        runs.push((vec!["audit", "--format", format, "--gateway", url, "--file", file], true));
    }
    runs.push((vec!["card", url], true));
    runs.push((vec!["card", "--json", url], true));
    let origin = with_password("ftp://login.example");
    let plain = agents[0].base_url();
    runs.push((vec!["card", "--allow-credential-origin", origin.as_str(), plain.as_str()], true));
    runs.push((vec!["send", url, "hello"], true));
    runs.push((vec!["send", "--json", url, "hello"], true));
    for json in [false, true] {
        let mut commands = vec![vec!["tasks", "list", url], vec!["tasks", "get", url, "some-task"]];
        commands.push(vec!["tasks", "cancel", url, "some-task"]);
        commands.push(vec!["tasks", "subscribe", url, "some-task"]);
        for mut command in commands {
            if json {
                command.insert(2, "--json");
            }
            runs.push((command, true));
        }
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let redis = with_password(&format!("redis://127.0.0.1:{port}/0"));
    let not_redis = with_password("notredis://127.0.0.1/0");
    for redis in [redis.as_str(), not_redis.as_str()] {
        runs.push((vec!["demo", "--replicas", "1", "--tasks-per-agent", "1", "--redis", redis], true));
        runs.push((
            vec!["demo", "--json", "--replicas", "1", "--tasks-per-agent", "1", "--redis", redis],
            true,
        ));
    }
    let store = written.join("redis-watch.redb");
    let store = store.to_string_lossy().into_owned();
    runs.push((
        vec!["watch", "--listen", "127.0.0.1:0", "--store", store.as_str(), "--redis", redis.as_str(), url],
        true,
    ));

    for (args, shows_url) in &runs {
        let output = a2a(args).await;
        assert_masked(&args.join(" "), &printed(&output), &password, *shows_url);
    }

    // A watch that runs: its output, its page, its metrics, each agent's page and its store.
    let store = written.join("watch.redb");
    let mut watch = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(["--color", "never", "watch", "--listen", "127.0.0.1:0", "--store"])
        .arg(&store)
        .args([url, file])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut said = BufReader::new(watch.stderr.take().unwrap());
    let mut first = String::new();
    tokio::time::timeout(Duration::from_secs(30), said.read_line(&mut first)).await.unwrap().unwrap();
    let page = first.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_default().to_owned();
    assert!(!page.is_empty(), "{first}");
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let get = |path: String| {
        let http = http.clone();
        async move { http.get(path).send().await.unwrap().text().await.unwrap() }
    };
    // Until every agent's first audit is in the history.
    let mut metrics = String::new();
    for _ in 0..300 {
        metrics = get(format!("{page}metrics")).await;
        let counts: Vec<&str> =
            metrics.lines().filter(|l| l.starts_with("a2a_watch_audits_total{")).collect();
        if counts.len() == agents.len() && counts.iter().all(|l| !l.ends_with(" 0")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let masked = masked(url);
    let mut served = vec![metrics, get(page.clone()).await];
    served.push(get(format!("{page}agent?url={}", urlencode(&masked))).await);
    for text in &served {
        assert_masked("watch's page", text, &password, false);
    }
    assert!(served.iter().any(|t| t.contains(":***@")), "the page shows the masked URL");
    watch.start_kill().unwrap();
    let _ = watch.wait().await;
    let mut rest = String::new();
    let _ = said.read_to_string(&mut rest).await;
    let mut out = String::new();
    let _ = watch.stdout.take().unwrap().read_to_string(&mut out).await;
    assert_masked("watch", &format!("{first}{rest}{out}"), &password, false);
    let files: Vec<_> = std::fs::read_dir(&written).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!files.is_empty(), "the watch wrote its store");
    for path in files {
        let bytes = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert_masked(&format!("the file {}", path.display()), &bytes, &password, false);
    }
}

/// The URL as the commands show it: its password masked (computed here from the URL, not asked of
/// the code under test).
fn masked(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (user_info, host) = rest.split_once('@').unwrap();
    let user = user_info.split(':').next().unwrap();
    format!("{scheme}://{user}:***@{host}")
}

/// `text` percent-encoded for a query value.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
