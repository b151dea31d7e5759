//! Where the corpus scripts, installs and logs live, all relative to the workspace root.

use std::path::{Path, PathBuf};

use super::FrameworkError;

/// The workspace's corpus paths.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: PathBuf,
}

impl Layout {
    /// Finds the workspace root from this crate's manifest directory (`<root>/a2a-testkit`), and
    /// checks that the corpus scripts are there.
    pub(crate) fn discover() -> Result<Layout, FrameworkError> {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().unwrap_or(manifest).to_path_buf();
        let layout = Layout { root };
        if layout.install_script().is_file() && layout.start_script().is_file() {
            Ok(layout)
        } else {
            Err(FrameworkError::Layout { path: layout.scripts_dir() })
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `scripts/frameworks/`: one directory per framework, `agents.tsv`, the scripts.
    pub(crate) fn scripts_dir(&self) -> PathBuf {
        self.root.join("scripts").join("frameworks")
    }

    pub(crate) fn install_script(&self) -> PathBuf {
        self.scripts_dir().join("install.sh")
    }

    pub(crate) fn start_script(&self) -> PathBuf {
        self.scripts_dir().join("start.sh")
    }

    /// `target/frameworks/logs/`, where `start.sh` writes each agent's log (`NAME-PORT.log`).
    pub(crate) fn logs_dir(&self) -> PathBuf {
        self.root.join("target").join("frameworks").join("logs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_finds_the_corpus_scripts_from_the_manifest_dir() {
        let layout = Layout::discover().expect("scripts/frameworks exists in this workspace");
        assert!(layout.root().join("Cargo.toml").is_file());
        assert!(layout.scripts_dir().join("agents.tsv").is_file());
        assert!(layout.logs_dir().ends_with("target/frameworks/logs"));
    }
}
