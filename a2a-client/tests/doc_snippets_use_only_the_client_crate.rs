//! A user depends on `a2a-typestate-client` alone, so the code a user reads in its docs (the Rust
//! code blocks of the doc comments under `src/` and of `README.md`) names nothing else of this
//! workspace: not the wire model crate (`a2a_typestate_types`, re-exported as
//! `a2a_typestate_client::types`), not the typestate crate (`a2a_typestate::`, whose items the
//! client re-exports), not `uuid::` (ids come from `MessageId::random`, `Message::user`).
//!
//! `a2a_testkit` is allowed on hidden lines only (`# use a2a_testkit::..`): an example that runs
//! needs an agent, and the scripted one stands in for the reader's, who never sees those lines.

use std::path::{Path, PathBuf};

/// What a visible or hidden line of a snippet must not name.
const FORBIDDEN: [&str; 3] = ["a2a_typestate_types", "a2a_typestate::", "uuid::"];
/// What only a hidden line may name.
const HIDDEN_ONLY: [&str; 1] = ["a2a_testkit"];

/// Whether a fence's info string opens a Rust block, as rustdoc reads it: no language, or `rust`,
/// and otherwise only rustdoc's own attributes.
fn is_rust(info: &str) -> bool {
    info.split([',', ' ', '\t']).map(str::trim).filter(|word| !word.is_empty()).all(|word| {
        matches!(
            word,
            "rust"
                | "no_run"
                | "ignore"
                | "compile_fail"
                | "should_panic"
                | "test_harness"
                | "standalone_crate"
        ) || word.starts_with("edition")
            || word.starts_with("ignore-")
            || (word.len() == 5 && word.starts_with('E') && word[1..].bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Every offending line of the Rust code blocks in `lines`, given as (line number, block text):
/// the doc text of a comment with its marker removed, or a Markdown file's lines. A line that is
/// `None` ends any open block (code that is not a doc comment).
fn offences<'a>(lines: impl IntoIterator<Item = (usize, Option<&'a str>)>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence: Option<bool> = None; // Some(is_rust) inside a block
    for (number, line) in lines {
        let Some(line) = line else {
            fence = None;
            continue;
        };
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                None => Some(is_rust(info)),
                Some(_) => None,
            };
            continue;
        }
        if fence != Some(true) {
            continue;
        }
        let hidden = trimmed == "#" || trimmed.starts_with("# ");
        let named = FORBIDDEN.iter().chain(if hidden { &[][..] } else { &HIDDEN_ONLY[..] });
        for name in named {
            if line.contains(name) {
                found.push((number, format!("names `{name}`: {}", line.trim())));
            }
        }
    }
    found
}

/// The doc text of each line of a Rust source (after `//!` or `///`), `None` for other lines.
fn doc_lines(source: &str) -> impl Iterator<Item = (usize, Option<&str>)> {
    source.lines().enumerate().map(|(at, line)| {
        let trimmed = line.trim_start();
        let doc = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///").filter(|rest| !rest.starts_with('/')))
            .map(|rest| rest.strip_prefix(' ').unwrap_or(rest));
        (at + 1, doc)
    })
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn doc_snippets_and_the_readme_import_only_the_client_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 20, "the client's sources were found: {files:?}");

    let mut report = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (line, what) in offences(doc_lines(&source)) {
            report.push(format!("{}:{line}: {what}", file.strip_prefix(root).unwrap_or(file).display()));
        }
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let readme_lines = readme.lines().enumerate().map(|(at, line)| (at + 1, Some(line)));
    for (line, what) in offences(readme_lines) {
        report.push(format!("README.md:{line}: {what}"));
    }
    assert!(
        report.is_empty(),
        "doc snippets must compile with a2a-typestate-client alone (use `a2a_typestate_client::types::..` \
         for the wire model, `MessageId::random()` or `Message::user` for ids):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_check_names_the_line_that_imports_another_crate_and_passes_prose_and_hidden_scaffolding() {
    let source = "\
/// Links to [`a2a_typestate_types::Task`] in prose are fine.
///
/// ```
/// use a2a_typestate_client::Message;
/// # use a2a_testkit::ScriptedAgent;
/// use a2a_typestate_types::Part;
/// let id = uuid::Uuid::new_v4();
/// ```
///
/// ```text
/// a2a_typestate::Handle in a compiler message
/// ```
fn documented() {}
/// ```
/// use a2a_testkit::ScriptedAgent;
/// ```
fn other() {}
";
    let found: Vec<usize> = offences(doc_lines(source)).into_iter().map(|(line, _)| line).collect();
    assert_eq!(found, [6, 7, 15]);
    assert!(is_rust("") && is_rust("rust,no_run") && is_rust("compile_fail,E0277") && !is_rust("toml"));
}
