//! Checks that span packages, kept in this unpublished member so that no published package reads a
//! file outside itself: text that two packages each carry must stay the same.

use std::path::{Path, PathBuf};

fn workspace_file(relative: &str) -> String {
    let root: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default();
    let path = root.join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The lines between the quickstart markers of `a2a-client/examples/quickstart.rs`.
fn quickstart_code() -> String {
    let example = workspace_file("a2a-client/examples/quickstart.rs");
    let begin = "// README quickstart: begin";
    let end = "// README quickstart: end";
    let start = example.find(begin).expect("the example marks where the quickstart begins") + begin.len();
    let stop = example.find(end).expect("the example marks where the quickstart ends");
    example[start..stop].trim().to_owned()
}

#[test]
fn the_workspace_readme_quickstart_is_the_example_ci_runs() {
    let code = quickstart_code();
    let readme = workspace_file("README.md");
    assert!(
        readme.contains(&code),
        "README.md's quickstart block differs from a2a-client/examples/quickstart.rs; paste this between its fences:\n{code}"
    );
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
