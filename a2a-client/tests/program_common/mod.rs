//! Running the README's example programs as a user runs them: the binaries `cargo test` builds
//! beside the tests, their README blocks, and what the official Python peer counts.
// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/examples/<name>`, which `cargo test` builds beside the test binaries.
fn program(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>");
    let path = profile.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test` builds it, or `cargo build -p a2a-typestate-client --example {name}`",
        path.display()
    );
    path
}

/// What the example `name` printed when run with `args`, and whether it exited 0.
pub async fn run(name: &str, args: &[&str]) -> (String, bool) {
    let (stdout, stderr, success) = run_with_stderr(name, args).await;
    assert!(stderr.trim().is_empty() || success, "{stdout}\n{stderr}");
    (stdout, success)
}

/// What the example `name` wrote on stdout and stderr when run with `args`, and whether it exited 0.
pub async fn run_with_stderr(name: &str, args: &[&str]) -> (String, String, bool) {
    let mut command = Command::new(program(name));
    command.args(args);
    let output =
        tokio::task::spawn_blocking(move || command.output()).await.unwrap().expect("the program runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (stdout, stderr, output.status.success())
}

/// The lines of an example between its `// README <block>: begin` and `end` markers.
pub fn between_markers(text: &str, block: &str) -> String {
    let begin = format!("// README {block}: begin");
    let end = format!("// README {block}: end");
    let start = text.find(&begin).expect("the example marks where its README block begins") + begin.len();
    let stop = text.find(&end).expect("the example marks where its README block ends");
    text[start..stop].trim().to_owned()
}

/// A question no other test asks, so the agent's count of its executions is this test's.
pub fn question(program: &str) -> String {
    format!("{program} {}", uuid::Uuid::new_v4().simple())
}

/// How many tasks the Python peer started for `text` (it counts them at `/test/executions`).
pub async fn executions(base: &str, text: &str) -> u64 {
    let url = format!("{}/test/executions", base.trim_end_matches('/'));
    let counts: serde_json::Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    counts.get(text).and_then(serde_json::Value::as_u64).unwrap_or(0)
}
