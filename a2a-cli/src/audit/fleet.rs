//! Fleets: the agents file, and telling agents apart when their cards share a name.

use std::collections::HashMap;
use std::path::Path;

use a2a_typestate::Deployment;

use super::AgentAudit;

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

/// Labels each agent by its card's name, or by its URL when another agent's card has the same name
/// (or no card was read): every label in a report names one agent.
pub(super) fn label_agents(agents: &mut [AgentAudit]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for agent in agents.iter() {
        if let Some(name) = &agent.name {
            *seen.entry(name.clone()).or_default() += 1;
        }
    }
    for agent in agents.iter_mut() {
        agent.label = match &agent.name {
            Some(name) if seen.get(name) == Some(&1) && !name.trim().is_empty() => name.clone(),
            _ => agent.url.clone(),
        };
    }
}
