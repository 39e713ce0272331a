//! Other agents fenced by Paddock: an external ACP agent (Claude Code's adapter, Gemini CLI,
//! Codex's adapter...) runs as one program behind the same wall as bash — the workspace and
//! its own home folder its only writable places, the home's secrets hidden, the project's
//! network policy plus the hosts the user allowed it — and Paddock is its ACP client. It is
//! offered no file-system or terminal methods, so all it does goes through the wall. Its
//! prompts are Paddock sessions: recorded, with the workspace checkpointed before and the
//! run's changes listed after (rewind works on its files), its permission requests become
//! Paddock approvals.

mod claims;
pub mod config;
mod known;
mod open;
mod opening;
mod place;
mod reach;
mod session;

pub use session::PreparedExternal;

use std::path::PathBuf;

pub use config::{
    AGENTS_FILE, AgentKey, ExternalAgentConfig, agents, agents_path, allow, list, remove, save,
};
pub use known::known;

/// The provider recorded in an external agent's sessions (the model is the agent's name).
pub const EXTERNAL_PROVIDER: &str = "acp";

/// How long an agent gets to start and answer `initialize` and `session/new`.
pub const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// How long an agent gets to exit once its stdin is closed.
pub const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Where an agent keeps its own files for a project: beside Paddock's data folder, never
/// inside it (the wall hides that folder, and a writable place inside it would show it).
pub fn agent_home(project: &std::path::Path, agent: &str) -> Result<PathBuf, crate::HostError> {
    Ok(agents_root()?
        .join(paddock_session::project_key(project))
        .join(agent))
}

/// `<data>-agents`: every agent's home, one per project and agent.
fn agents_root() -> Result<PathBuf, crate::HostError> {
    let data = paddock_session::data_dir()?;
    Ok(crate::places::beside_data(
        &data,
        crate::places::AGENTS_SUFFIX,
    ))
}

/// Makes an agent's home, private to the user like sessions are (it holds the agent's own
/// transcripts), from the agents' root down.
pub(crate) fn make_home(home: &std::path::Path) -> Result<(), crate::HostError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let root = agents_root()?;
    let io = |e: std::io::Error| crate::HostError::Io {
        context: format!("the agent's folder {}", home.display()),
        source: e,
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(home)
        .map_err(io)?;
    for dir in home.ancestors().take_while(|d| d.starts_with(&root)) {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    Ok(())
}

/// What the wall around each of the user's agents enforces in the project at `root`, with
/// the project's settings as they apply.
pub fn walls(
    trust: &crate::trust::TrustStore,
    root: &std::path::Path,
) -> Result<Vec<paddock_protocol::ExternalAgentWall>, crate::HostError> {
    let effect = crate::edit::in_effect(trust, root)?;
    let agents = config::agents(trust.config_dir())?;
    let mut walls = Vec::new();
    for (name, agent) in agents {
        let project = effect
            .clone()
            .narrowed(|s| s.network.allow.extend(agent.hosts.iter().cloned()))
            .project();
        let settings = project.settings();
        let status = project.sandbox_status();
        let home = agent_home(root, &name)?;
        let network = if settings.bash_network {
            "all of it: the project's settings give bash the whole network".to_owned()
        } else if settings.network.allow.is_empty() && settings.network.ask.is_empty() {
            "none: neither the project nor you allowed it a host".to_owned()
        } else if agent.hosts.is_empty() {
            "through Paddock's proxy, to the hosts the project's rules allow".to_owned()
        } else {
            format!(
                "through Paddock's proxy, to the hosts the project's rules allow and {}",
                agent.hosts.join(", ")
            )
        };
        walls.push(paddock_protocol::ExternalAgentWall {
            command: agent.command_line(),
            writable: vec![
                project.workspace_root().to_string_lossy().into_owned(),
                home.to_string_lossy().into_owned(),
            ],
            network,
            key: agent.key.map(|k| format!("{}, as {}", k.describe(), k.env)),
            runs: status.bash_runs,
            name,
        });
    }
    Ok(walls)
}
