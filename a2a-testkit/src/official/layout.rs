//! Where the peer scripts, installs and logs live, all relative to the workspace root.

use std::path::{Path, PathBuf};

use super::PeerError;

/// The workspace's peer-related paths.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: PathBuf,
}

impl Layout {
    /// Finds the workspace root from this crate's manifest directory (`<root>/a2a-testkit`),
    /// which holds wherever the tests that use the harness are compiled from.
    pub(crate) fn discover() -> Result<Layout, PeerError> {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().unwrap_or(manifest).to_path_buf();
        let layout = Layout { root };
        if layout.start_script().is_file() && layout.install_script().is_file() {
            Ok(layout)
        } else {
            Err(PeerError::Layout { path: layout.scripts_dir() })
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    fn scripts_dir(&self) -> PathBuf {
        self.root.join("scripts").join("peers")
    }

    pub(crate) fn install_script(&self) -> PathBuf {
        self.scripts_dir().join("install.sh")
    }

    pub(crate) fn start_script(&self) -> PathBuf {
        self.scripts_dir().join("start.sh")
    }

    pub(crate) fn logs_dir(&self) -> PathBuf {
        self.root.join("target").join("peers").join("logs")
    }
}

/// How many lines of a log an error carries.
const TAIL_LINES: usize = 40;

/// The last lines of a log file, or a note saying why there are none.
pub(crate) fn tail_of(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) if bytes.is_empty() => "(empty)".to_owned(),
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            lines.iter().skip(lines.len().saturating_sub(TAIL_LINES)).copied().collect::<Vec<_>>().join("\n")
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_finds_the_peer_scripts_from_the_manifest_dir() {
        let layout = Layout::discover().expect("scripts/peers exists in this workspace");
        assert!(layout.root().join("Cargo.toml").is_file());
        assert!(layout.logs_dir().ends_with("target/peers/logs"));
    }

    #[test]
    fn tail_keeps_only_the_last_lines() {
        let dir = std::env::temp_dir().join(format!("a2a-testkit-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let log = dir.join("tail.log");
        let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        std::fs::write(&log, text).expect("write log");
        let tail = tail_of(&log);
        assert!(tail.starts_with("line 61\n"), "{tail}");
        assert!(tail.ends_with("line 100"), "{tail}");
        assert!(tail_of(&dir.join("missing.log")).starts_with("(cannot read"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
