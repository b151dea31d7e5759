//! Checks that span packages, kept in this unpublished member so that no published package reads a
//! file outside itself: text that two packages each carry must stay the same.

use std::path::{Path, PathBuf};

fn workspace_file(relative: &str) -> String {
    let root: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default();
    let path = root.join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The lines of `a2a-client/examples/<example>.rs` between `// README <block>: begin` and
/// `// README <block>: end`.
fn marked_code(example: &str, block: &str) -> String {
    let text = workspace_file(&format!("a2a-client/examples/{example}.rs"));
    let begin = format!("// README {block}: begin");
    let end = format!("// README {block}: end");
    let start =
        text.find(&begin).unwrap_or_else(|| panic!("{example}.rs marks where {block} begins")) + begin.len();
    let stop = text.find(&end).unwrap_or_else(|| panic!("{example}.rs marks where {block} ends"));
    text[start..stop].trim().to_owned()
}

#[test]
fn the_workspace_readme_quickstart_and_first_program_are_the_examples_ci_runs() {
    let readme = workspace_file("README.md");
    for (example, block) in [("quickstart", "quickstart"), ("first_program", "first program")] {
        let code = marked_code(example, block);
        assert!(
            readme.contains(&code),
            "README.md's {block} block differs from a2a-client/examples/{example}.rs; paste this between its fences:\n{code}"
        );
    }
}

/// `a2a-proto` compiles `proto/a2a.proto` in its build script and `a2a-typestate-types` checks its
/// model against its own copy (`tests/proto_coverage.rs`); each package ships its copy, so the two
/// must be the same file.
#[test]
fn both_copies_of_the_proto_are_the_same() {
    let compiled = workspace_file("a2a-proto/proto/a2a.proto");
    let covered = workspace_file("a2a-types/proto/a2a.proto");
    assert!(
        compiled == covered,
        "a2a-proto/proto/a2a.proto and a2a-types/proto/a2a.proto differ: update both from the normative proto \
         (cp a2a-proto/proto/a2a.proto a2a-types/proto/a2a.proto, or the other way)"
    );
}
