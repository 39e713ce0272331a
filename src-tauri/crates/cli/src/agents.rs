//! `paddock agents`: the user's external ACP agents, through the same host functions as the
//! app's Sandbox screen (list, known entries, add, remove).

use paddock_host::external::{self, AgentKey, ExternalAgentConfig};
use paddock_host::trust::TrustStore;
use paddock_protocol::ProviderKind;

use crate::cli::AgentsAction;
use crate::exit::{CliError, Code};
use crate::output;

pub fn run(action: &AgentsAction) -> Result<Code, CliError> {
    let trust = TrustStore::open_default()?;
    let dir = trust.config_dir();
    match action {
        AgentsAction::List { json } => list(dir, *json)?,
        AgentsAction::Known => known(),
        AgentsAction::Add {
            name,
            known,
            hosts,
            env,
            key_provider,
            key_value,
            key_env,
            mode,
            replace,
            command,
        } => {
            let mut config = base_config(known.as_deref(), command)?;
            config.hosts.extend(hosts.iter().cloned());
            for pair in env {
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| CliError::usage(format!("--env {pair}: not NAME=VALUE")))?;
                config.env.insert(k.to_owned(), v.to_owned());
            }
            set_key(&mut config, key_provider.as_deref(), key_value, key_env)?;
            if let Some(m) = mode {
                config.mode = Some(m.clone()).filter(|m| !m.is_empty());
            }
            external::save(dir, name, config, *replace)?;
            output::out(&format!(
                "Added {name} to {}. Start it with: paddock exec --agent {name} PROMPT\n",
                external::agents_path(dir).display()
            ));
        }
        AgentsAction::Remove { name } => {
            external::remove(dir, name)?;
            output::out(&format!("Removed {name} (its sessions stay).\n"));
        }
    }
    Ok(Code::Success)
}

/// `paddock agents list`: a line each (or JSON lines), and how to add one when there is none.
fn list(dir: &std::path::Path, json: bool) -> Result<(), CliError> {
    let agents = external::list(dir)?;
    if json {
        for a in &agents {
            output::json_line(&serde_json::to_value(a).unwrap_or_default());
        }
        return Ok(());
    }
    if agents.is_empty() {
        output::out(
            "No agents: add one with `paddock agents add NAME --known claude` (see \
             `paddock agents known`), or `paddock agents add NAME -- COMMAND ARGS...`.\n",
        );
    }
    for a in &agents {
        let hosts = if a.hosts.is_empty() {
            "no hosts of its own".to_owned()
        } else {
            a.hosts.join(", ")
        };
        let key = a.key.as_deref().unwrap_or("no key");
        output::out(&format!("{:<12} {}  [{hosts}; {key}]\n", a.name, a.command));
    }
    Ok(())
}

/// `paddock agents known`: the agents Paddock knows how to start, and whether each is here.
fn known() {
    for k in external::known() {
        let state = if k.installed {
            "installed".to_owned()
        } else {
            format!("not installed: {}", k.install)
        };
        output::out(&format!(
            "{:<8} {} — {} ({state})\n",
            k.id,
            k.title,
            k.config.command_line()
        ));
    }
}

/// A new agent's entry: a known one's (`--known`), with the program after `--` over it.
fn base_config(known: Option<&str>, command: &[String]) -> Result<ExternalAgentConfig, CliError> {
    let mut config = match known {
        Some(id) => external::known()
            .into_iter()
            .find(|k| k.id == id)
            .map(|k| k.config)
            .ok_or_else(|| {
                CliError::usage(format!(
                    "no known agent '{id}' (see `paddock agents known`)"
                ))
            })?,
        None => ExternalAgentConfig::default(),
    };
    if let Some((program, args)) = command.split_first() {
        config.command = program.clone();
        config.args = args.to_vec();
    }
    if config.command.is_empty() {
        return Err(CliError::usage(
            "name the agent's program after `--` (or start from --known)",
        ));
    }
    Ok(config)
}

/// The key the agent gets: a provider's, a value, or only the variable it is read from.
fn set_key(
    config: &mut ExternalAgentConfig,
    key_provider: Option<&str>,
    key_value: &Option<String>,
    key_env: &Option<String>,
) -> Result<(), CliError> {
    if key_provider.is_some() || key_value.is_some() {
        let provider = key_provider
            .map(str::parse::<ProviderKind>)
            .transpose()
            .map_err(|e| CliError::usage(format!("--key-provider: {e}")))?;
        let var = key_env.clone().or_else(|| {
            provider
                .map(|p| p.key_env_var().to_owned())
                .or_else(|| key_value.clone())
        });
        config.key = Some(AgentKey {
            provider,
            value: key_value.clone(),
            env: var.unwrap_or_default(),
        });
    } else if let (Some(var), Some(key)) = (key_env, config.key.as_mut()) {
        key.env = var.clone();
    }
    Ok(())
}
