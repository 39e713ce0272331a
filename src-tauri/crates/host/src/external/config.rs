//! The external agents the user added: `agents.json` in Paddock's config folder, theirs alone
//! (a folder cannot add an agent, nor the hosts one may reach).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use paddock_protocol::{AgentKey, ExternalAgentConfig};
use serde::{Deserialize, Serialize};

use crate::HostError;
use crate::error::AgentConfigError;

/// The file, in Paddock's config folder.
pub const AGENTS_FILE: &str = "agents.json";
const MAX_AGENTS_FILE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct AgentsFile {
    #[serde(default)]
    agents: BTreeMap<String, ExternalAgentConfig>,
}

/// Most characters in an agent's name.
const MAX_NAME_CHARS: usize = 40;

pub fn agents_path(config_dir: &Path) -> PathBuf {
    config_dir.join(AGENTS_FILE)
}

/// The user's agents (none without the file); a file that cannot be used is an error
/// naming it.
pub fn agents(config_dir: &Path) -> Result<BTreeMap<String, ExternalAgentConfig>, HostError> {
    let path = agents_path(config_dir);
    // The user's own file, so a link is followed (dotfiles); but never a FIFO's open that
    // waits forever, nor a device read without end.
    let text = match paddock_guard::read_regular_text(
        &path,
        MAX_AGENTS_FILE_BYTES,
        paddock_guard::Links::Follow,
    ) {
        Ok(text) => text,
        Err(e) if e.is_missing() => return Ok(BTreeMap::new()),
        Err(e) => return Err(broken(&path, &e.to_string())),
    };
    let parsed: AgentsFile =
        serde_json::from_str(&text).map_err(|e| broken(&path, &e.to_string()))?;
    for (name, agent) in &parsed.agents {
        check(name, agent).map_err(|e| broken(&path, &format!("agent {name}: {e}")))?;
    }
    Ok(parsed.agents)
}

/// The agent called `name`.
pub fn agent(config_dir: &Path, name: &str) -> Result<ExternalAgentConfig, HostError> {
    let mut all = agents(config_dir)?;
    all.remove(name).ok_or_else(|| {
        AgentConfigError::Unknown {
            name: name.to_owned(),
            in_file: Some(agents_path(config_dir)),
            known: all.keys().cloned().collect(),
        }
        .into()
    })
}

fn broken(path: &Path, why: &str) -> HostError {
    AgentConfigError::Broken {
        path: path.to_owned(),
        why: why.to_owned(),
    }
    .into()
}

fn unknown(name: &str) -> HostError {
    AgentConfigError::Unknown {
        name: name.to_owned(),
        in_file: None,
        known: Vec::new(),
    }
    .into()
}

fn invalid(name: &str) -> impl Fn(String) -> HostError {
    move |why| {
        AgentConfigError::Invalid {
            name: name.to_owned(),
            why,
        }
        .into()
    }
}

/// The user's agents as the app lists them.
pub fn list(config_dir: &Path) -> Result<Vec<paddock_protocol::ExternalAgentInfo>, HostError> {
    Ok(agents(config_dir)?
        .into_iter()
        .map(|(name, a)| paddock_protocol::ExternalAgentInfo {
            name,
            command: a.command_line(),
            hosts: a.hosts.clone(),
            key: a
                .key
                .as_ref()
                .map(|k| format!("{}, as {}", k.describe(), k.env)),
            config: a,
        })
        .collect())
}

/// What makes an entry unusable, in words: a name the app and the CLI cannot take, no
/// program, a host rule that does not parse, a key that names nothing.
pub fn check(name: &str, agent: &ExternalAgentConfig) -> Result<(), String> {
    let name_ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && !name.starts_with(['-', '.']);
    if !name_ok {
        return Err(format!(
            "the name {name:?} is not usable: letters, digits, '-', '_' and '.', at most \
             {MAX_NAME_CHARS}, not starting with '-' or '.'"
        ));
    }
    if agent.command.trim().is_empty() {
        return Err("it names no program".to_owned());
    }
    for host in &agent.hosts {
        crate::network::check_rule(host).map_err(|e| format!("host {host}: {e}"))?;
    }
    for rule in &agent.allow {
        let star = rule.find('*');
        if rule.is_empty()
            || rule.chars().any(|c| c.is_whitespace() || c.is_control())
            || star.is_some_and(|at| at + 1 != rule.len())
        {
            return Err(format!(
                "allow: {rule:?} is not a tool's name (`*` only at the end)"
            ));
        }
    }
    if let Some(key) = &agent.key {
        let variable = |v: &str| {
            !v.is_empty()
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !v.starts_with(|c: char| c.is_ascii_digit())
        };
        match (&key.provider, &key.value) {
            (Some(_), None) => {}
            (None, Some(v)) if variable(v) => {}
            (None, Some(v)) => return Err(format!("key: {v:?} is not a value's name")),
            _ => {
                return Err("key: name either a provider or a keychain value, not both".to_owned());
            }
        }
        if !variable(&key.env) {
            return Err(format!("key: {:?} is not a variable's name", key.env));
        }
    }
    Ok(())
}

/// Adds `name` (or, with `replace`, replaces it) in the user's agents file, written
/// atomically and private to them; the file's other agents stay as they were.
pub fn save(
    config_dir: &Path,
    name: &str,
    agent: ExternalAgentConfig,
    replace: bool,
) -> Result<(), HostError> {
    check(name, &agent).map_err(invalid(name))?;
    let mut all = agents(config_dir)?;
    if !replace && all.contains_key(name) {
        return Err(AgentConfigError::Exists {
            name: name.to_owned(),
        }
        .into());
    }
    all.insert(name.to_owned(), agent);
    write(config_dir, all)
}

/// "Always allow" on an agent's approval card: `rules` join its `allow` list.
pub fn allow(config_dir: &Path, name: &str, rules: &[String]) -> Result<(), HostError> {
    let mut all = agents(config_dir)?;
    let agent = all.get_mut(name).ok_or_else(|| unknown(name))?;
    for rule in rules.iter().map(|r| r.trim()).filter(|r| !r.is_empty()) {
        if !agent.allow.iter().any(|a| a == rule) {
            agent.allow.push(rule.to_owned());
        }
    }
    check(name, agent).map_err(invalid(name))?;
    write(config_dir, all)
}

/// Removes `name` from the user's agents file (its sessions and home stay).
pub fn remove(config_dir: &Path, name: &str) -> Result<(), HostError> {
    let mut all = agents(config_dir)?;
    if all.remove(name).is_none() {
        return Err(unknown(name));
    }
    write(config_dir, all)
}

fn write(
    config_dir: &Path,
    agents: BTreeMap<String, ExternalAgentConfig>,
) -> Result<(), HostError> {
    let path = agents_path(config_dir);
    let io = |e: std::io::Error| HostError::Io {
        context: format!("your agents file {}", path.display()),
        source: e,
    };
    crate::trust::create_private_dir(config_dir).map_err(io)?;
    let mut text = serde_json::to_string_pretty(&AgentsFile { agents })
        .map_err(|e| io(std::io::Error::other(e)))?;
    text.push('\n');
    let tmp = config_dir.join(format!(".{AGENTS_FILE}.tmp-{}", std::process::id()));
    crate::trust::write_private(&tmp, text.as_bytes()).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// The key `agent` is given: a provider's (the environment's variable, else the keychain),
/// or a named keychain value (the environment's variable of that name, else the keychain).
pub(crate) fn key_value(
    agent: &str,
    key: &AgentKey,
    keys: &dyn crate::KeyStore,
) -> Result<String, HostError> {
    match (&key.provider, &key.value) {
        (Some(provider), _) => crate::keys::resolve_key(*provider, Some(keys))?
            .map(|k| k.expose().to_owned())
            .ok_or_else(|| {
                AgentConfigError::NoProviderKey {
                    agent: agent.to_owned(),
                    provider: provider.as_str(),
                    var: provider.key_env_var(),
                }
                .into()
            }),
        (None, Some(name)) => {
            let from_env = std::env::var(name).ok().filter(|v| !v.is_empty());
            match from_env {
                Some(v) => Ok(v),
                None => keys
                    .get_var(name)?
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| {
                        AgentConfigError::NoKeyValue {
                            agent: agent.to_owned(),
                            name: name.clone(),
                        }
                        .into()
                    }),
            }
        }
        (None, None) => Err(AgentConfigError::NoKeySource {
            agent: agent.to_owned(),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(command: &str) -> ExternalAgentConfig {
        ExternalAgentConfig {
            command: command.into(),
            hosts: vec!["api.example.com".into()],
            ..ExternalAgentConfig::default()
        }
    }

    #[test]
    fn saving_adds_replaces_and_removes_keeping_the_others_and_the_files_privacy() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("paddock");
        save(&config, "one", agent("first"), false).unwrap();
        save(&config, "two", agent("second"), false).unwrap();
        let again = save(&config, "one", agent("other"), false).unwrap_err();
        assert!(
            again
                .to_string()
                .contains("already have an agent named one"),
            "{again}"
        );
        save(&config, "one", agent("replaced"), true).unwrap();
        let all = agents(&config).unwrap();
        assert_eq!(all["one"].command, "replaced");
        assert_eq!(all["two"].command, "second");
        let mode = std::fs::metadata(agents_path(&config))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        remove(&config, "one").unwrap();
        assert_eq!(agents(&config).unwrap().keys().collect::<Vec<_>>(), ["two"]);
        assert!(remove(&config, "one").is_err());
    }

    #[test]
    fn unusable_entries_are_refused_by_name_and_a_broken_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path();
        for (name, entry, says) in [
            ("../x", agent("a"), "is not usable"),
            ("-rf", agent("a"), "is not usable"),
            ("ok", agent("  "), "names no program"),
            (
                "ok",
                ExternalAgentConfig {
                    hosts: vec!["http://".into()],
                    ..agent("a")
                },
                "host http://",
            ),
            (
                "ok",
                ExternalAgentConfig {
                    key: Some(AgentKey {
                        provider: Some(paddock_protocol::ProviderKind::Anthropic),
                        value: Some("X".into()),
                        env: "K".into(),
                    }),
                    ..agent("a")
                },
                "not both",
            ),
            (
                "ok",
                ExternalAgentConfig {
                    key: Some(AgentKey {
                        provider: None,
                        value: Some("GEMINI_API_KEY".into()),
                        env: "1BAD".into(),
                    }),
                    ..agent("a")
                },
                "not a variable's name",
            ),
        ] {
            let err = save(config, name, entry, false).unwrap_err().to_string();
            assert!(err.contains(says), "{name}: {err}");
        }
        std::fs::write(agents_path(config), "{ not json").unwrap();
        let err = save(config, "fine", agent("a"), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot be used"), "{err}");
        assert_eq!(
            std::fs::read_to_string(agents_path(config)).unwrap(),
            "{ not json",
            "the user's broken file is left for them to mend"
        );
    }
}
