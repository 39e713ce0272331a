//! The managed policy: what an administrator fixes for every project on this machine,
//! `/etc/paddock/managed-settings.json` and then `managed-settings.d/*.json` in name order.
//! It is applied last over every configuration Paddock resolves (`Resolved`), so neither a
//! folder's settings, trust, a run's flags nor an edit can loosen it; a later file can add
//! restrictions, never lift one. A broken file stops runs, naming it (fail closed).

mod apply;
mod error;
mod lists;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use paddock_guard::read_untrusted;
use paddock_protocol::{NetworkPreset, ProviderKind, ToolPreset};
use serde::Deserialize;

pub use error::{PolicyFileError, PolicyRefusal};

/// Where the policy lives unless [`MANAGED_DIR_ENV`] says otherwise.
pub const MANAGED_DIR: &str = "/etc/paddock";
/// Names another folder holding the policy (tests, or a policy kept elsewhere).
pub const MANAGED_DIR_ENV: &str = "PADDOCK_MANAGED_DIR";
pub const MANAGED_FILE: &str = "managed-settings.json";
pub const DROP_IN_DIR: &str = "managed-settings.d";
/// The policy format this Paddock reads.
pub const POLICY_VERSION: u32 = 1;
/// Largest policy file read.
const MAX_POLICY_BYTES: u64 = 256 * 1024;
/// Most drop-in files read.
const MAX_DROP_INS: usize = 64;

/// One policy file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PolicyFile {
    version: u32,
    /// Argument rules that deny, per tool, added to every project's (deny wins over all).
    #[serde(default)]
    deny_rules: BTreeMap<String, Vec<String>>,
    /// Paths hidden from every tool and command, added to every project's.
    #[serde(default)]
    hidden_paths: Vec<String>,
    /// The widest preset a project or a run may use; tools past it are asked for at most.
    #[serde(default)]
    max_preset: Option<ToolPreset>,
    /// bash never runs without the OS wall (`allowUnconfinedBash` is refused).
    #[serde(default)]
    require_wall: bool,
    /// bash never gets the whole network (`bashNetwork` is refused).
    #[serde(default)]
    forbid_bash_network: bool,
    /// Headless runs never turn Ask into allow (`--ask-allows` is refused).
    #[serde(default)]
    forbid_ask_allows: bool,
    #[serde(default)]
    network: Option<PolicyNetwork>,
    /// The only MCP servers a project may start (absent: any).
    #[serde(default)]
    allowed_mcp_servers: Option<Vec<McpAllow>>,
    /// The only hook commands that run, the user's and the project's (`*` matches any
    /// text; absent: any).
    #[serde(default)]
    allowed_hook_commands: Option<Vec<String>>,
    /// The only providers a run may use (absent: any).
    #[serde(default)]
    allowed_providers: Option<Vec<ProviderKind>>,
    /// The only model addresses a run may use, by prefix (absent: any).
    #[serde(default)]
    allowed_base_urls: Option<Vec<String>>,
    /// The only external agents a run may start (absent: any).
    #[serde(default)]
    allowed_agents: Option<Vec<AgentAllow>>,
}

/// An external agent the policy allows: each field given must match the agent's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentAllow {
    /// Its name in the user's agents file.
    #[serde(default)]
    pub name: Option<String>,
    /// The program it starts, exactly.
    #[serde(default)]
    pub command: Option<String>,
}

/// An MCP server the policy allows: each field given must match the server's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpAllow {
    /// The server's name in `mcpServers`.
    #[serde(default)]
    pub name: Option<String>,
    /// The program it starts (`command`), exactly.
    #[serde(default)]
    pub command: Option<String>,
    /// The start of its `url`.
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PolicyNetwork {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    /// Always denied, whatever a project allows.
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    presets: Vec<NetworkPreset>,
    /// `false`: the lists above are the only ones; a project's or a run's own are dropped
    /// and edits adding hosts are refused.
    #[serde(default = "yes")]
    allow_additions: bool,
}

fn yes() -> bool {
    true
}

/// A value the policy fixes, with the file that fixed it (named in every refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed<T> {
    pub value: T,
    pub file: PathBuf,
}

impl<T> Fixed<T> {
    fn by(value: T, file: &Path) -> Self {
        Self {
            value,
            file: file.to_path_buf(),
        }
    }
}

/// The policy in effect: every file merged. Empty when there is none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagedPolicy {
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    /// `(tool, pattern, file)`.
    pub deny_rules: Vec<(String, String, PathBuf)>,
    pub hidden_paths: Vec<String>,
    pub max_preset: Option<Fixed<ToolPreset>>,
    pub require_wall: Option<PathBuf>,
    pub forbid_bash_network: Option<PathBuf>,
    pub forbid_ask_allows: Option<PathBuf>,
    pub network_allow: Vec<String>,
    pub network_ask: Vec<String>,
    pub network_deny: Vec<String>,
    pub network_presets: Vec<NetworkPreset>,
    /// The file that fixed the network lists, when one did.
    pub network_fixed: Option<PathBuf>,
    /// Allow-lists, each with its file: a thing must be on every list given.
    pub mcp_servers: Vec<Fixed<Vec<McpAllow>>>,
    pub hook_commands: Vec<Fixed<Vec<String>>>,
    pub providers: Vec<Fixed<Vec<ProviderKind>>>,
    pub base_urls: Vec<Fixed<Vec<String>>>,
    pub agents: Vec<Fixed<Vec<AgentAllow>>>,
}

impl ManagedPolicy {
    /// The policy of this machine (or of [`MANAGED_DIR_ENV`]'s folder).
    pub fn load() -> Result<Self, PolicyFileError> {
        let dir = std::env::var_os(MANAGED_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from(MANAGED_DIR), PathBuf::from);
        Self::load_from(&dir)
    }

    /// The policy kept in `dir`: its main file, then its drop-ins in name order.
    pub fn load_from(dir: &Path) -> Result<Self, PolicyFileError> {
        let mut policy = Self::default();
        let main = dir.join(MANAGED_FILE);
        if let Some(file) = read(&main)? {
            policy.merge(file, &main);
        }
        for path in drop_ins(&dir.join(DROP_IN_DIR))? {
            if let Some(file) = read(&path)? {
                policy.merge(file, &path);
            }
        }
        Ok(policy)
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What the app's screens show locked; `error`: why the policy could not be read.
    pub fn info(&self, error: Option<&str>) -> paddock_protocol::ManagedInfo {
        paddock_protocol::ManagedInfo {
            files: self.files.iter().map(|f| f.display().to_string()).collect(),
            error: error.map(str::to_owned),
            summary: self.summary(),
            max_preset: self.max_preset.as_ref().map(|c| c.value),
            deny_rules: self
                .deny_rules
                .iter()
                .map(|(tool, pattern, _)| format!("{tool}: {pattern}"))
                .collect(),
            require_wall: self.require_wall.is_some(),
            forbid_bash_network: self.forbid_bash_network.is_some(),
            network_fixed: self.network_fixed.is_some(),
        }
    }

    /// What the policy fixes, one phrase each (doctor, the app).
    pub fn summary(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(cap) = &self.max_preset {
            out.push(format!("presets capped at {}", cap.value.as_str()));
        }
        if !self.deny_rules.is_empty() {
            out.push(format!("{} deny rule(s)", self.deny_rules.len()));
        }
        if !self.hidden_paths.is_empty() {
            out.push(format!("{} hidden path(s)", self.hidden_paths.len()));
        }
        for (flag, what) in [
            (&self.require_wall, "bash only behind the wall"),
            (&self.forbid_bash_network, "no bashNetwork"),
            (&self.forbid_ask_allows, "no --ask-allows"),
        ] {
            if flag.is_some() {
                out.push(what.to_owned());
            }
        }
        for (lists, what) in [
            (!self.mcp_servers.is_empty(), "MCP servers allow-listed"),
            (!self.hook_commands.is_empty(), "hooks allow-listed"),
            (!self.providers.is_empty(), "providers allow-listed"),
            (!self.base_urls.is_empty(), "model addresses allow-listed"),
            (!self.agents.is_empty(), "external agents allow-listed"),
        ] {
            if lists {
                out.push(what.to_owned());
            }
        }
        if self.network_fixed.is_some() {
            out.push("network lists fixed".to_owned());
        } else if !self.network_deny.is_empty() || !self.network_allow.is_empty() {
            out.push("network rules added".to_owned());
        }
        out
    }

    /// Adds one file: lists add up, a cap only narrows, a prohibition stays.
    fn merge(&mut self, file: PolicyFile, path: &Path) {
        self.files.push(path.to_path_buf());
        for (tool, patterns) in file.deny_rules {
            for pattern in patterns {
                self.deny_rules
                    .push((tool.clone(), pattern, path.to_path_buf()));
            }
        }
        extend_new(&mut self.hidden_paths, file.hidden_paths);
        if let Some(cap) = file.max_preset {
            let narrower = self
                .max_preset
                .as_ref()
                .is_none_or(|now| rank(cap) < rank(now.value));
            if narrower {
                self.max_preset = Some(Fixed::by(cap, path));
            }
        }
        for (flag, said) in [
            (&mut self.require_wall, file.require_wall),
            (&mut self.forbid_bash_network, file.forbid_bash_network),
            (&mut self.forbid_ask_allows, file.forbid_ask_allows),
        ] {
            if said && flag.is_none() {
                *flag = Some(path.to_path_buf());
            }
        }
        if let Some(net) = file.network {
            extend_new(&mut self.network_deny, net.deny);
            extend_new(&mut self.network_allow, net.allow);
            extend_new(&mut self.network_ask, net.ask);
            for p in net.presets {
                if !self.network_presets.contains(&p) {
                    self.network_presets.push(p);
                }
            }
            if !net.allow_additions && self.network_fixed.is_none() {
                self.network_fixed = Some(path.to_path_buf());
            }
        }
        self.mcp_servers
            .extend(file.allowed_mcp_servers.map(|l| Fixed::by(l, path)));
        self.hook_commands
            .extend(file.allowed_hook_commands.map(|l| Fixed::by(l, path)));
        self.providers
            .extend(file.allowed_providers.map(|l| Fixed::by(l, path)));
        self.base_urls
            .extend(file.allowed_base_urls.map(|l| Fixed::by(l, path)));
        self.agents
            .extend(file.allowed_agents.map(|l| Fixed::by(l, path)));
    }
}

/// How wide a preset is.
pub(crate) fn rank(p: ToolPreset) -> u8 {
    match p {
        ToolPreset::Readonly => 0,
        ToolPreset::Readwrite => 1,
        ToolPreset::Full => 2,
    }
}

fn extend_new(list: &mut Vec<String>, more: Vec<String>) {
    for item in more {
        if !list.contains(&item) {
            list.push(item);
        }
    }
}

/// The file parsed and checked; `None` when it does not exist.
fn read(path: &Path) -> Result<Option<PolicyFile>, PolicyFileError> {
    let broken = |why: String| PolicyFileError {
        path: path.to_path_buf(),
        why,
    };
    let text = match read_untrusted(path, MAX_POLICY_BYTES) {
        Ok(text) => text,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(broken(e.to_string())),
    };
    let raw: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| broken(format!("line {}, column {}: {e}", e.line(), e.column())))?;
    let file: PolicyFile = serde_path_to_error::deserialize(&raw).map_err(|e| {
        let field = e.path().to_string();
        broken(format!("`{field}`: {}", e.into_inner()))
    })?;
    if file.version != POLICY_VERSION {
        return Err(broken(format!(
            "version {}; this Paddock reads version {POLICY_VERSION}",
            file.version
        )));
    }
    for (tool, patterns) in &file.deny_rules {
        let specs: Vec<paddock_rules::RuleSpec> = patterns
            .iter()
            .map(|p| paddock_rules::RuleSpec {
                tool: tool.clone(),
                action: paddock_rules::Action::Deny,
                pattern: p.clone(),
            })
            .collect();
        paddock_rules::Rules::compile(&specs)
            .map_err(|e| broken(format!("`denyRules.{tool}`: {e}")))?;
    }
    if let Some(net) = &file.network {
        let check = paddock_protocol::NetworkSettings {
            allow: net.allow.clone(),
            ask: net.ask.clone(),
            deny: net.deny.clone(),
            presets: net.presets.clone(),
            ..Default::default()
        };
        paddock_net::NetworkPolicy::from_lists(&check.allowed(), &check.ask, &check.deny)
            .map_err(|e| broken(format!("`network.{}[{}]`: {}", e.list, e.index, e.error)))?;
    }
    Ok(Some(file))
}

/// The drop-in files (`*.json`) in name order; none when the folder does not exist.
fn drop_ins(dir: &Path) -> Result<Vec<PathBuf>, PolicyFileError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(PolicyFileError {
                path: dir.to_path_buf(),
                why: e.to_string(),
            });
        }
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if files.len() > MAX_DROP_INS {
        return Err(PolicyFileError {
            path: dir.to_path_buf(),
            why: format!("{} files, more than the {MAX_DROP_INS} read", files.len()),
        });
    }
    Ok(files)
}

#[cfg(test)]
mod tests;
