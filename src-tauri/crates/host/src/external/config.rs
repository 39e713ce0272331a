//! The external agents the user added: `agents.json` in Paddock's config folder, theirs alone
//! (a folder cannot add an agent, nor the hosts one may reach).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use paddock_protocol::ProviderKind;
use serde::Deserialize;

use crate::HostError;

/// The file, in Paddock's config folder.
pub const AGENTS_FILE: &str = "agents.json";
const MAX_AGENTS_FILE_BYTES: u64 = 256 * 1024;

/// One external ACP agent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentConfig {
    /// The program (a path, or a name on PATH) that speaks ACP on stdin/stdout.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables it gets on top of the wall's scrubbed environment (its API base URL...).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Hosts it may reach besides the project's network allow list (its vendor's API):
    /// rules as in `network.allow` (`api.anthropic.com`, `127.0.0.1:8080`).
    #[serde(default)]
    pub hosts: Vec<String>,
    /// The API key it gets from the keychain (or the environment), and the variable.
    #[serde(default)]
    pub key: Option<AgentKey>,
    /// The ACP mode each session is put in (Claude Code's `default` asks before every edit,
    /// so Paddock's approval cards decide); unset keeps the agent's own default.
    #[serde(default)]
    pub mode: Option<String>,
}

impl AgentConfig {
    /// The program and its arguments as one line to show.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Which stored key an agent is given, as which variable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentKey {
    pub provider: ProviderKind,
    /// e.g. `ANTHROPIC_API_KEY`.
    pub env: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentsFile {
    #[serde(default)]
    agents: BTreeMap<String, AgentConfig>,
}

pub fn agents_path(config_dir: &Path) -> PathBuf {
    config_dir.join(AGENTS_FILE)
}

/// The user's agents (none without the file); a file that cannot be used is an error
/// naming it.
pub fn agents(config_dir: &Path) -> Result<BTreeMap<String, AgentConfig>, HostError> {
    let path = agents_path(config_dir);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(broken(&path, &e.to_string())),
    };
    let mut text = String::new();
    file.take(MAX_AGENTS_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| broken(&path, &e.to_string()))?;
    if text.len() as u64 > MAX_AGENTS_FILE_BYTES {
        return Err(broken(
            &path,
            &format!("over {MAX_AGENTS_FILE_BYTES} bytes"),
        ));
    }
    let parsed: AgentsFile =
        serde_json::from_str(&text).map_err(|e| broken(&path, &e.to_string()))?;
    for (name, agent) in &parsed.agents {
        for host in &agent.hosts {
            crate::network::check_rule(host)
                .map_err(|e| broken(&path, &format!("agent {name}: host {host}: {e}")))?;
        }
    }
    Ok(parsed.agents)
}

/// The agent called `name`.
pub fn agent(config_dir: &Path, name: &str) -> Result<AgentConfig, HostError> {
    let mut all = agents(config_dir)?;
    all.remove(name).ok_or_else(|| {
        let known: Vec<&String> = all.keys().collect();
        HostError::Usage(format!(
            "no external agent '{name}' in {} ({})",
            agents_path(config_dir).display(),
            if known.is_empty() {
                "it lists none".to_owned()
            } else {
                format!(
                    "it lists {}",
                    known
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ))
    })
}

fn broken(path: &Path, why: &str) -> HostError {
    HostError::Usage(format!(
        "your agents file {} cannot be used: {why}",
        path.display()
    ))
}

/// The user's agents as the app lists them.
pub fn list(config_dir: &Path) -> Result<Vec<paddock_protocol::ExternalAgentInfo>, HostError> {
    Ok(agents(config_dir)?
        .into_iter()
        .map(|(name, a)| paddock_protocol::ExternalAgentInfo {
            name,
            command: a.command_line(),
            hosts: a.hosts,
            key: a.key.map(|k| k.provider),
        })
        .collect())
}
