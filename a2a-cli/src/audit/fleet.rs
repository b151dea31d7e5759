//! The agents file: the fleet `a2a audit --file` and `a2a watch --file` read.

use std::path::Path;

use a2a_typestate::Deployment;

/// Reads an agents file: one base URL per line; blank lines and lines starting with `#` are
/// skipped; a line `gateway URL` is an agent reached through a gateway (its claims are reported
/// unverifiable).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("a2a-agents-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("agents.txt");
/// std::fs::write(&file, "# the fleet\nhttp://a.example\n\ngateway http://gw.example\n").unwrap();
/// let agents = a2a_typestate_cli::audit::read_agent_file(&file).unwrap();
/// assert_eq!(agents.len(), 2);
/// assert_eq!(agents[1], ("http://gw.example".to_owned(), a2a_typestate::Deployment::Gateway));
/// ```
///
/// # Errors
/// A message naming the file when it cannot be read, or naming the line of an entry that is not an
/// http(s) URL.
pub fn read_agent_file(path: &Path) -> Result<Vec<(String, Deployment)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut agents = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (url, deployment) = match line.strip_prefix("gateway ") {
            Some(url) => (url.trim(), Deployment::Gateway),
            None => (line, Deployment::Direct),
        };
        // Where the file's URLs enter the command: masked here, as a URL argument is.
        let url = crate::user_url::shown(url);
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "{} line {}: `{url}` is not an http(s) URL (write one base URL per line, `gateway URL` for a gateway)",
                path.display(),
                number + 1
            ));
        }
        agents.push((url, deployment));
    }
    Ok(agents)
}
